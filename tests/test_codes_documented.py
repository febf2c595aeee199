"""Every code a decision can carry is explained by ``tether rules`` and in docs/rules.md.

The codes are found in the source, not listed by hand: every string literal shaped like a code
(``TL201``, ``TA104``, ``DG408`` …), every module constant named ``*_CODE``, every literal in the
codes of a ``Decision(...)``/``Finding(...)`` built anywhere, and the loop detectors' table. A
new code added anywhere without an entry fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tether.cli import main
from tether.rules import all_codes, explain

SRC = Path(__file__).resolve().parents[1] / "src" / "tether"
DOC = Path(__file__).resolve().parents[1] / "docs" / "rules.md"
CODE_SHAPE = re.compile(r"^[A-Z]{2}[0-9]{3}$")


def _strings(node: ast.AST) -> list[str]:
    return [
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def _codes_in(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if CODE_SHAPE.match(node.value):
                found.add(node.value)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if any(n.endswith("_CODE") for n in names) and isinstance(node.value.value, str):
                found.add(node.value.value)
        elif isinstance(node, ast.Call):
            fn = node.func
            name = (
                fn.id
                if isinstance(fn, ast.Name)
                else fn.attr
                if isinstance(fn, ast.Attribute)
                else ""
            )
            if name not in ("Decision", "Finding"):
                continue
            given = [k.value for k in node.keywords if k.arg in ("codes", "code")]
            if name == "Decision" and len(node.args) > 1:
                given.append(node.args[1])
            if name == "Finding" and node.args:
                given.append(node.args[0])
            for value in given:
                found.update(_strings(value))
    return found


def emitted_codes() -> set[str]:
    """Return every code the code base can put on a decision."""
    from tether.loops.detectors import ALL

    found = {d.code for d in ALL}
    for path in sorted(SRC.rglob("*.py")):
        found |= _codes_in(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return found


def test_the_scan_finds_every_family() -> None:
    codes = emitted_codes()
    for expected in ("RO201", "RW014", "DG408", "TA100", "TA104", "TL201", "TL210", "tether-error"):
        assert expected in codes


@pytest.mark.parametrize("code", sorted(emitted_codes()))
def test_every_emitted_code_is_explained(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    entry = explain(code)
    assert entry is not None, f"{code} is emitted but `tether rules {code}` does not know it"
    assert entry.why and entry.instead and entry.summary
    assert main(["rules", code]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{entry.code} {entry.name} (")
    assert "Why: " in out and "Instead: " in out
    assert f"\n## {entry.code}\n" in DOC.read_text(encoding="utf-8")


def test_every_entry_has_examples() -> None:
    from tether.cli.rules import examples

    for entry in all_codes():
        shown, _, _, _ = examples(entry)
        assert shown, f"{entry.code} has no examples"


def test_codes_are_unique() -> None:
    codes = [e.code for e in all_codes()]
    assert len(codes) == len(set(codes))


def test_approval_entries_are_the_policy_codes() -> None:
    from tether.approval import policy
    from tether.rules.base import Tier

    constants = {getattr(policy, n) for n in dir(policy) if n.endswith("_CODE") and n.isupper()}
    documented = {e.code for e in all_codes() if e.tier is Tier.APPROVAL}
    assert documented == constants


def test_loop_entries_print_the_detectors_advice() -> None:
    from tether.loops.detectors import ALL

    for d in ALL:
        entry = explain(d.code)
        assert entry is not None and entry.name == d.name and entry.instead == d.instead
        assert entry.summary == d.summary and entry.match == d.examples


# The approval codes' command examples, run through the policy with the setting they name.
APPROVAL_CASES = [
    ("TA100", "git push --force origin main", {}, False),
    ("TA101", "ls -la", {"approvals.deny": ["ls*"]}, False),
    ("TA103", "git push --force origin main", {}, True),
    ("TA104", "rm -rf /", {"approvals.mode": "off"}, False),
    ("TA104", "echo secret | sudo -S rm file", {}, False),
]


@pytest.mark.parametrize(("code", "command", "settings", "unattended"), APPROVAL_CASES)
def test_approval_examples_raise_their_code(
    code: str, command: str, settings: dict[str, object], unattended: bool
) -> None:
    from tether.approval import review
    from tether.approval.policy import Policy
    from tether.config import load_config

    entry = explain(code)
    assert entry is not None and any(m.startswith(command) for m in entry.match)
    config = load_config(overrides=tuple(f"{k}={_yaml(v)}" for k, v in settings.items()))
    decision = review(command, Policy.from_config(config), unattended=unattended).decision
    assert decision.codes[0] == code


def _yaml(value: object) -> str:
    import json

    return value if isinstance(value, str) else json.dumps(value)
