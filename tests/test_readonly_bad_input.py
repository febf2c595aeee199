"""Bad input never crashes the classifier: each gets a not-read-only verdict and a reason."""

from __future__ import annotations

import random

import pytest

from tether.classify import classify_command
from tether.rules import readonly
from tether.shell import parse_command

_rng = random.Random(1234)
GARBAGE = [bytes(_rng.randrange(256) for _ in range(200)).decode("latin-1") for _ in range(20)]

BAD = [
    ("", "RW003"),
    ("   \n\t ", "RW003"),
    ("ls\x00", "RW014"),
    ("\x00", "RW014"),
    ("cat 'unterminated", "RW001"),
    ('echo "unterminated', "RW001"),
    ("ls | | wc", "RW001"),
    ("((((", "RW001"),
    ("a" * 1_000_000, "RW002"),
    ("echo " + "x" * 1_000_000, "RW002"),
    ("'" + "a" * 1_000_000, "RW002"),
    ("echo " + "$(" * 100_000 + ")" * 100_000, "RW002"),
    ("\udcff\udcfe ls", None),
]


@pytest.mark.parametrize(("text", "code"), BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_bad_input_gets_a_verdict_and_reason(text: str, code: str | None) -> None:
    verdict = readonly.assess(parse_command(text))
    assert not verdict.read_only
    assert verdict.reason
    if code is not None:
        assert code in verdict.codes, verdict


@pytest.mark.parametrize("text", GARBAGE, ids=[f"garbage{i}" for i in range(len(GARBAGE))])
def test_binary_garbage_gets_a_verdict(text: str) -> None:
    result = classify_command(text)
    assert isinstance(result.read_only, bool)
    assert result.reason
    assert result.codes


def test_classification_of_bad_input_is_never_read_only() -> None:
    for text, _ in BAD:
        assert not classify_command(text).read_only
