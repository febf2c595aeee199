"""Rules that span several keys or need other modules, checked on the merged config.

The loop guard refuses some combinations at runtime (``tether.loops.settings.validate``), and
a hook that refuses its config blocks every call; so ``load_config``, ``check`` and ``set``
refuse them first, naming both keys, their values and the layers they came from. Rule codes
in the approvals lists are checked against the rule catalogue: a code the policy would never
match is a setting that silently does nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether.config.schema import KEYS
from tether.config.validate import Problem

if TYPE_CHECKING:
    from tether.config.core import Config

_FILE_LAYERS = ("user:", "project:", "TETHER_CONFIG:", "file:")
DETECTORS = tuple(k.rsplit(".", 1)[1] for k in KEYS if k.startswith("loops.hard_stop_after."))

# (lower key, higher key, strict): the higher key's value must be >= (or >, when strict) the
# lower key's.
ORDERED: tuple[tuple[str, str, bool], ...] = (
    *((f"loops.warn_after.{d}", f"loops.hard_stop_after.{d}", False) for d in DETECTORS),
    ("progress.warn_after", "progress.halt_after", True),
)


Lines = Mapping[str, int]


def check_constraints(
    values: Mapping[str, Any], origins: Mapping[str, str], lines: Lines | None = None
) -> list[Problem]:
    """Return a Problem for every cross-key rule the merged ``values`` break.

    ``lines`` maps keys to their line in the file their value came from, for the messages.
    """
    broken = [problem for _, _, problem in _broken(values, origins, lines or {})]
    return broken + check_rule_codes(values, origins, lines)


def check_floors(layer: Mapping[str, Any], label: str, lines: Lines | None = None) -> list[Problem]:
    """Return a Problem for each built-in shell tool one layer's own values remap or remove.

    No layer may do it, the user's own file included: a shell tool whose command is read from
    another argument (or that is no shell any more) lets ``rm -rf /`` through unclassified.
    Layers may add shell tools. ``label`` names the layer (``user:PATH``, ``env:NAME``, ...).
    (The other floors are ranges in the schema: hooks.deadline stays under the host's timeout;
    hardline rule codes are refused by check_rule_codes.)
    """
    from tether.loops.settings import SHELL_TOOLS

    shell = layer.get("tools.shell")
    if not isinstance(shell, Mapping):
        return []
    problems = []
    for name, arg in shell.items():
        builtin = SHELL_TOOLS.get(name)
        if builtin is None or arg == builtin:
            continue
        verb, got = ("remapped", f"got {arg!r}") if arg else ("removed", "got ''")
        message = (
            f"'{name}' is a built-in shell tool and cannot be {verb}: its command is always in "
            f"'{builtin}' ({got}); remove this entry (a config may add shell tools, not change "
            "the built-ins)"
        )
        found = lines or {}
        line = _line(label, f"tools.shell.{name}", found) or _line(label, "tools.shell", found)
        problems.append(Problem(_source(label), line, f"tools.shell.{name}", message))
    return problems


def _broken(
    values: Mapping[str, Any], origins: Mapping[str, str], lines: Lines
) -> list[tuple[str, str, Problem]]:
    problems = []
    for low, high, strict in ORDERED:
        a, b = values.get(low), values.get(high)
        if not isinstance(a, int) or not isinstance(b, int):
            continue
        if b > a or (b == a and not strict):
            continue
        where = {k: origins.get(k, "default") for k in (low, high)}
        # Report it where the upper bound was set, or else where the lower one was.
        blamed = high if where[high] != "default" else low
        source = where[blamed]
        relation = "greater than" if strict else "at least"
        problems.append(
            (
                low,
                high,
                Problem(
                    _source(source),
                    _line(source, blamed, lines),
                    high,
                    f"expected {relation} {low} ({a}, from {where[low]}), got {b} (from "
                    f"{where[high]}); raise {high} or lower {low}",
                ),
            )
        )
    return problems


RULE_LISTS = ("approvals.disabled_rules", "approvals.enabled_rules")


def check_rule_codes(
    values: Mapping[str, Any], origins: Mapping[str, str], lines: Lines | None = None
) -> list[Problem]:
    """Return a Problem for each rule code in the approvals lists that would do nothing.

    The policy matches codes only, so an unknown code, a rule's name instead of its code, or
    a hardline rule in ``disabled_rules`` would be silently ignored. The rule catalogue is
    imported only when a list is non-empty (and, on the hook path, only on a cache miss).
    """
    if not any(values.get(key) for key in RULE_LISTS):
        return []
    import difflib

    try:
        from tether.rules import all_rules

        rules = {rule.code: rule for rule in all_rules()}
    except Exception as exc:  # a broken install: refuse (fail closed) with the cause, not a crash
        message = f"cannot check rule codes: the rule catalogue failed to load ({exc!r})"
        return [Problem("tether.rules", None, RULE_LISTS[0], message)]
    names = {rule.name: rule.code for rule in rules.values()}
    problems = []
    for key in RULE_LISTS:
        origin = origins.get(key, "default")
        source, line = _source(origin), _line(origin, key, lines or {})
        for item in values.get(key) or ():
            code = str(item).strip().upper()
            rule = rules.get(code)
            if rule is None:
                name = str(item).strip().lower()
                if name in names:
                    message = f"{str(item)!r} is a rule's name; write its code, '{names[name]}'"
                else:
                    close = difflib.get_close_matches(code, list(rules), n=1, cutoff=0.7)
                    hint = f" (did you mean '{close[0]}'?)" if close else ""
                    message = f"unknown rule code {str(item)!r}{hint}; 'tether rules' lists them"
                problems.append(Problem(source, line, key, message))
            elif key == "approvals.disabled_rules" and rule.tier.value == "hardline":
                message = (
                    f"'{rule.code}' ({rule.name}) is a hardline rule and cannot be disabled; "
                    "remove it from the list"
                )
                problems.append(Problem(source, line, key, message))
    return problems


def _source(origin: str) -> str:
    return origin.split(":", 1)[1] if origin.startswith(_FILE_LAYERS) else origin


def _line(origin: str, key: str, lines: Lines) -> int | None:
    # Only a value that came from a file has a line.
    return lines.get(key) if origin.startswith(_FILE_LAYERS) else None


# Layers in the order they apply: a value from a later layer hides an edit to an earlier one.
_RANK = {"default": 0, "user": 1, "project": 2, "TETHER_CONFIG": 3, "env": 4, "--set": 5}


def check_edit(config: Config, layer: str, path: Path, key: str, value: Any) -> list[Problem]:
    """Return the cross-key rules that writing ``key = value`` to ``path`` would break.

    ``config`` is the effective config before the edit; an edit that a higher layer hides
    changes nothing and breaks nothing.
    """
    if key.startswith("tools.shell."):  # one entry: no layer remaps or removes a built-in
        return check_floors({"tools.shell": {key[len("tools.shell.") :]: value}}, f"{layer}:{path}")
    if key not in config.values:
        return []
    current = config.origin(key).split(":", 1)[0]
    if _RANK.get(current, 0) > _RANK[layer]:
        return []
    values = {**config.values, key: value}
    origins = {**config.origins, key: f"{layer}:{path}"}
    broken = _broken(values, origins, {})
    problems = [problem for low, high, problem in broken if key in (low, high)]
    if key in RULE_LISTS:
        problems += [p for p in check_rule_codes(values, origins) if p.key == key]
    if key == "tools.shell":
        problems += check_floors({key: value}, f"{layer}:{path}")
    return problems


__all__ = [
    "DETECTORS",
    "ORDERED",
    "RULE_LISTS",
    "check_constraints",
    "check_edit",
    "check_floors",
    "check_rule_codes",
]
