"""Every rule of every catalogue passes its own examples, and the catalogue is well-formed."""

from __future__ import annotations

import re

import pytest

from tether.classify import classify_command
from tether.rules import Rule, Tier, all_rules

RULES = all_rules()
CODE = re.compile(r"^[A-Z]{2}\d{3}$")
NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def _examples() -> list[tuple[Rule, str, bool]]:
    cases = []
    for rule in RULES:
        cases += [(rule, ex, True) for ex in rule.match]
        cases += [(rule, ex, False) for ex in rule.not_match]
    return cases


@pytest.mark.parametrize(
    ("rule", "example", "should_match"),
    _examples(),
    ids=lambda v: v.code if isinstance(v, Rule) else None,
)
def test_rule_examples(rule: Rule, example: str, should_match: bool) -> None:
    result = classify_command(example)
    if rule.tier is Tier.READ:
        proven = result.read_only and rule.code in result.codes
        assert proven == should_match, (
            f"{rule.code} {rule.name}: {example!r} should {'' if should_match else 'not '}"
            f"be proven read-only by this rule; got read_only={result.read_only} "
            f"codes={result.codes} reason={result.reason!r}"
        )
    else:
        hit = rule.code in result.danger_codes
        assert hit == should_match, (
            f"{rule.code} {rule.name}: {example!r} should {'' if should_match else 'not '}"
            f"match; got danger={result.danger.label} codes={result.danger_codes} "
            f"reason={result.danger_reason!r}"
        )


def test_catalogue_is_well_formed() -> None:
    codes = [r.code for r in RULES]
    names = [r.name for r in RULES]
    assert len(set(codes)) == len(codes), "rule codes must be unique"
    assert len(set(names)) == len(names), "rule names must be unique"
    for rule in RULES:
        assert CODE.match(rule.code), f"{rule.code}: codes look like AB123"
        assert NAME.match(rule.name), f"{rule.code}: names are kebab-case ({rule.name!r})"
        assert rule.summary and rule.why and rule.instead, f"{rule.code}: summary, why, instead"
        if rule.tier is not Tier.READ or rule.code.startswith("RO"):
            assert rule.match, f"{rule.code}: every rule needs at least one match example"
