"""No rule code string outside the rule definitions: a check reports ``RULE.hit(detail)``.

A code written as a string in a check (``Hit("DG101", …)``) links the check to its rule by
spelling alone: a typo or a renumbered rule is found only when the example that reaches it
runs. Checks filed with ``@program_check`` (``tether.rules.danger._registry``) hold the rule
objects they report instead. The modules below still spell codes; the list only shrinks: a
module leaves it when it moves to rule objects (and the test fails if it is listed but clean).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "tether"
CODE = re.compile(r"^(?:DG|RO|RW|TA|TL)\d{3}$")

# Not yet moved to rule objects, with how many code strings each holds today (2026-12-06).
NOT_YET_MIGRATED: dict[str, int] = {
    "approval/files.py": 1,
    "approval/policy.py": 8,
    "cli/classify.py": 1,
    "guard.py": 9,
    "rules/danger/_base.py": 1,
    "rules/danger/self_files.py": 1,
    "rules/danger/self_hosts.py": 1,
    "rules/danger/self_protection.py": 15,
    "rules/decisions.py": 7,
    "rules/readonly/engine.py": 45,  # the working-tree, sed/awk reader and recall reasons
    "rules/readonly/files.py": 27,
    "rules/readonly/forge.py": 8,
    "rules/readonly/ops.py": 20,  # round 3's recall reads, in the catalogue's old style
    "rules/readonly/packages.py": 11,
    "rules/readonly/search.py": 13,
    "rules/readonly/spec.py": 8,
    "rules/readonly/structural.py": 28,  # RW029, RW030
    "rules/readonly/system.py": 28,
    "rules/readonly/text.py": 19,
    "rules/readonly/vcs.py": 16,
    "rules/readonly/vcs_rules.py": 11,
}


def code_strings(path: Path) -> list[tuple[int, str]]:
    """Return the code strings of ``path`` that are not a rule's own ``code=`` value."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    definitions = {
        id(kw.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for kw in node.keywords
        if kw.arg == "code" and isinstance(kw.value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and CODE.match(node.value)
        and id(node) not in definitions
    ]


def _found() -> dict[str, list[tuple[int, str]]]:
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        found = code_strings(path)
        if found:
            out[path.relative_to(SRC).as_posix()] = found
    return out


def test_no_code_string_outside_rule_definitions() -> None:
    found = _found()
    new = {f: spots[:5] for f, spots in found.items() if f not in NOT_YET_MIGRATED}
    assert not new, f"code strings outside rule definitions (use RULE.hit(detail)): {new}"
    grown = {
        f: (len(spots), NOT_YET_MIGRATED[f])
        for f, spots in found.items()
        if f in NOT_YET_MIGRATED and len(spots) > NOT_YET_MIGRATED[f]
    }
    assert not grown, f"more code strings than before (found, allowed): {grown}"


def test_the_not_yet_migrated_list_only_shrinks() -> None:
    found = _found()
    clean = sorted(f for f in NOT_YET_MIGRATED if f not in found)
    assert not clean, f"these modules hold no code string any more; remove them: {clean}"
    fewer = {
        f: (len(found[f]), n)
        for f, n in NOT_YET_MIGRATED.items()
        if f in found and len(found[f]) < n
    }
    assert not fewer, f"lower these counts to what is left (found, listed): {fewer}"


def test_the_scan_finds_a_code_string(tmp_path: Path) -> None:
    path = tmp_path / "probe.py"
    path.write_text('Rule(code="DG999")\nHit("DG999", "x")\n', encoding="utf-8")
    assert code_strings(path) == [(2, "DG999")]


def test_registered_checks_hold_their_rules() -> None:
    from tether.rules import danger  # noqa: F401  (imports every family, filing its checks)
    from tether.rules.danger._registry import registered, rules_of

    table = registered()
    assert {"rm", "psql", "redis-cli", "pip", "umount", "git"} <= set(table)
    for name, checks in table.items():
        for check in checks:
            assert rules_of(check), f"{name}: {check.__qualname__} declares no rules"
