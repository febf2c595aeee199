"""Each shortcut the parser and the read-only catalogue take for speed answers as the long way does.

The long ways are written out here as they were before the shortcuts (benchmarks/compare_parse.py
checks the same over every real and peer command); hypothesis looks for an input where the two
disagree.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tether.rules.readonly import engine
from tether.shell import parse
from tether.shell.parse import control_readings, parse_command
from tether.shell.words import unescape_double_quoted, unescape_unquoted

# Pieces that make the scans' edge cases likely: keywords glued to words or after separators,
# `$((` next to `((`, control characters beside tabs and newlines, code points past Latin-1.
PIECES = st.sampled_from(
    ["for", "select", " ", "\t", "\n", ";", "&", "|", "(", ")", "{", "}", "$", "((", "x", "PATH",
     "_a1", "in", "\x00", "\x01", "\x1b", "\x7f", "\x85", "\x9f", "é", "\u202e", "€", "\U0001f600",
     "\ud800", "\u07ff", "\u0800",
     "\\", "'", '"', "*", "?", "[", "]", ",", "..", "-o", "a{b,c}"]
)  # fmt: skip
TEXTS = st.lists(PIECES, max_size=30).map("".join)

OLD_LOOP_VAR = re.compile(r"(?:^|[\s;&|(){}])(?:for|select)\s+([A-Za-z_][A-Za-z0-9_]*)")
OLD_ARITHMETIC = re.compile(r"(?<!\$)\(\(")
OLD_CONTROLS = dict.fromkeys([*range(0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)])


@settings(max_examples=500)
@given(TEXTS)
@example("xfor a in b; for PATH in c|for IFS in d")
@example("a&&select X in y")
@example("echo $((1)); x((y))")
def test_loop_and_arithmetic_scans_find_what_the_plain_patterns_find(text: str) -> None:
    assert [m.group(1) for m in engine._LOOP_VAR.finditer(text)] == [
        m.group(1) for m in OLD_LOOP_VAR.finditer(text)
    ]
    assert (engine._ARITHMETIC.search(text) is None) == (OLD_ARITHMETIC.search(text) is None)


def test_loop_scan_examples() -> None:
    found = [
        m.group(1) for m in engine._LOOP_VAR.finditer("for a in x;for b in y&&xfor c\nselect d")
    ]
    assert found == ["a", "b", "d"]
    assert engine._ARITHMETIC.search("echo $((1)) ((x=1))") is not None
    assert engine._ARITHMETIC.search("echo $((1+2))") is None


@settings(max_examples=400)
@given(st.one_of(TEXTS, st.text(max_size=40)))
def test_control_readings_are_found_without_translating_every_text(text: str) -> None:
    stripped = text.translate(OLD_CONTROLS)
    assert (control_readings(text) == ()) == (stripped == text)
    if stripped != text:
        assert control_readings(text)[0] == stripped


WORDS = st.lists(PIECES, min_size=1, max_size=8).map("".join)


@settings(max_examples=300)
@given(WORDS, WORDS)
def test_a_kept_word_is_the_word_parsed_afresh(first: str, second: str) -> None:
    text = f"ls {first} {second} {first} {second}"
    kept = parse_command(text)
    saved = parse._PLAIN_WORDS_MAX
    parse._PLAIN_WORDS_MAX = 0  # keep nothing: every word parsed afresh
    try:
        fresh = parse_command(text)
    finally:
        parse._PLAIN_WORDS_MAX = saved
    assert kept == fresh


def test_words_are_shared_within_one_input_only() -> None:
    # Only a source past _KEEP_WORDS_FROM bytes keeps its words (a short one rarely repeats).
    text = "ls -la src src; " + "echo x; " * (parse._KEEP_WORDS_FROM // 8)
    assert len(text.encode()) > parse._KEEP_WORDS_FROM
    one = parse_command(text)
    assert one.commands[0].argv[2] is one.commands[0].argv[3]
    two = parse_command(text)
    assert two.commands[0].argv[1] is not one.commands[0].argv[1]  # each model its own words
    short = parse_command("ls -la src src")
    assert short.commands[0].argv[2] == short.commands[0].argv[3]


def test_the_kept_words_stay_bounded() -> None:
    kept: dict[bytes, parse.Word] = {}
    for i in range(parse._PLAIN_WORDS_MAX + 10):
        parse._plain_word(b"w%d" % i, kept)
    assert len(kept) == parse._PLAIN_WORDS_MAX
    parse._plain_word(b"y" * (parse._PLAIN_WORD_BYTES + 1), kept)
    assert b"y" * (parse._PLAIN_WORD_BYTES + 1) not in kept


def old_unescape(text: str, quoted: bool) -> str:
    """The character loop quote removal was before its regexes."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n and (not quoted or text[i + 1] in '$`"\\\n'):
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


@settings(max_examples=500)
@given(st.one_of(TEXTS, st.text(alphabet="\\\n$`\"'ab", max_size=30)))
def test_quote_removal_is_the_character_loop(text: str) -> None:
    assert unescape_unquoted(text) == old_unescape(text, quoted=False)
    assert unescape_double_quoted(text) == old_unescape(text, quoted=True)


OLD_OVER_LATIN1 = re.compile("[^\x00-\xff]")


def old_scanner_safe(text: str) -> bytes:
    """The stand-ins as one callback per character over 255 made them."""

    def stand_in(match: re.Match[str]) -> str:
        point = ord(match.group())
        return "\xa4" if point < 0x800 else "\xa4_" if point < 0x10000 else "\xa4\xa4"

    return OLD_OVER_LATIN1.sub(stand_in, text).encode("utf-8", "surrogatepass")


@settings(max_examples=500)
@given(st.one_of(TEXTS, st.text(alphabet=st.characters(exclude_categories=()), max_size=30)))
def test_scanner_stand_ins_are_the_callbacks(text: str) -> None:
    safe = parse._scanner_safe(text.encode("utf-8", "surrogatepass"))
    assert safe == old_scanner_safe(text)
    assert len(safe) == len(text.encode("utf-8", "surrogatepass"))
    assert all(ord(ch) < 256 for ch in safe.decode("utf-8", "surrogatepass"))
