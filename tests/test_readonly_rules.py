"""Every read-only catalogue example, checked the way each kind of rule means it.

``RO`` rules prove reads: each ``match`` is read-only with the code among its codes, no
``not_match`` is read-only with it. ``RW`` rules name why a command is not read-only; their
examples (``readonly.reason_examples``): each is not read-only and carries the code, and no
counter-example carries it.
"""

from __future__ import annotations

import pytest

from tether.rules import readonly
from tether.rules.base import Rule
from tether.shell import parse_command


def _pairs(rule: Rule) -> tuple[tuple[str, ...], tuple[str, ...]]:
    found = readonly.reason_examples(rule.code)
    return found if found is not None else (rule.match, rule.not_match)


EXAMPLES = [
    pytest.param(rule, text, kind, id=f"{rule.code}-{kind}-{i}")
    for rule in readonly.RULES
    for kind, texts in zip(("match", "not_match"), _pairs(rule), strict=True)
    for i, text in enumerate(texts)
]


def test_every_reason_rule_has_examples() -> None:
    for rule in readonly.RULES:
        if rule.code.startswith("RW"):
            assert not rule.match and not rule.not_match, rule.code
            found = readonly.reason_examples(rule.code)
            assert found is not None and found[0], f"{rule.code} has no examples"


@pytest.mark.parametrize(("rule", "text", "kind"), EXAMPLES)
def test_example(rule: Rule, text: str, kind: str) -> None:
    v = readonly.assess(parse_command(text))
    if rule.code.startswith("RO"):
        if kind == "match":
            assert v.read_only and rule.code in v.codes, (text, v)
        else:
            assert not (v.read_only and rule.code in v.codes), (text, v)
    elif kind == "match":
        assert not v.read_only and rule.code in v.codes, (text, v)
    else:
        assert rule.code not in v.codes, (text, v)
