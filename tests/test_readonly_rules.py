"""Every read-only catalogue example, checked the way each kind of rule means it.

``RO`` rules prove reads: each ``match`` is read-only with the code among its codes, no
``not_match`` is read-only with it. ``RW`` rules name why a command is not read-only: each
``match`` is not read-only and carries the code; no ``not_match`` carries it.
"""

from __future__ import annotations

import pytest

from tether.rules import readonly
from tether.rules.base import Rule
from tether.shell import parse_command

EXAMPLES = [
    pytest.param(rule, text, kind, id=f"{rule.code}-{kind}-{i}")
    for rule in readonly.RULES
    for kind, texts in (("match", rule.match), ("not_match", rule.not_match))
    for i, text in enumerate(texts)
]


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
