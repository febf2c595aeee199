"""Each shortcut the danger catalogue takes for speed answers as the long way does.

The long ways are written out here as they were before the shortcuts; hypothesis looks for an
input where the two disagree (benchmarks/compare_danger.py checks every real and peer command).
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tether.shell.payloads import _languages

# Letters and marks that decide whether an ``e`` may be sed's e command or the s///e flag.
SED_PIECES = st.sampled_from(
    ["e", "e", "s", "g", "p", "I", "i", "M", "m", "0", "9", "w", ";", "}", "{", "#", " ", "\t",
     "\n", "$", "/", ",", "!", "~", "+", "x", "\\", "-", "d", "é"]
)  # fmt: skip
SED_TEXTS = st.lists(SED_PIECES, max_size=24).map("".join)

# An address regex's I and M flags too: `/x/Mecho hi` is the e command (`cho hi`).
OLD_COMMAND_BEFORE = frozenset("0123456789$/,;{}!\n~+ \tIM")
OLD_FLAGS = frozenset("gpIiMm0123456789")


def old_sed_may_run(text: str) -> bool:
    """The character loop ``sed_may_run`` replaced by one regex."""
    i = text.find("e")
    while i >= 0:
        if i == 0 or text[i - 1] in OLD_COMMAND_BEFORE:
            return True
        j = i + 1
        while j < len(text) and text[j] in OLD_FLAGS:
            j += 1
        if j == len(text) or text[j] in "w \t\n;}#":
            return True
        i = text.find("e", i + 1)
    return "\\" in text and _languages._SED_CUSTOM_ADDRESS_E.search(text) is not None


@settings(max_examples=1500)
@given(st.one_of(SED_TEXTS, st.text(max_size=30)))
@example("s/a/b/ge")
@example("s/a/b/gew out")
@example("1e date")
@example("file.txt")
@example("release")
@example("s/x/y/g\nnotes.e")
@example("\\%x%e")
def test_the_sed_prefilter_is_the_character_loop(text: str) -> None:
    assert _languages.sed_may_run(text) is old_sed_may_run(text)


def test_the_sed_prefilter_examples() -> None:
    assert _languages.sed_may_run("1e date")
    assert _languages.sed_may_run("s/a/b/ge")
    assert _languages.sed_may_run("$e")
    assert not _languages.sed_may_run("s/foo/bar/g\nrelease-notes.txt")
    assert not _languages.sed_may_run("-n\n1,20p\nfile.py")
