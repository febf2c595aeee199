"""A heredoc whose delimiter is not ASCII ends where bash ends it, so nothing hides behind it.

tree-sitter-bash stores a delimiter one byte per character, so ``<<é`` never found its closing
line and everything after it was read as heredoc body: ``rm -rf /`` after a closed ``<<é``
heredoc was judged harmless (no danger at all, so it ran even with approvals off). bash
closes the heredoc at the ``é`` line and runs what follows.
"""

from __future__ import annotations

import subprocess

import pytest

from tether.classify import classify_command
from tether.rules.base import Danger

DELIMITERS = ["é", "Ω", "终", "😀", "'é'", '"é x"', "é1", "-é", "ÉOF"]


def _closing(delimiter: str) -> str:
    return delimiter.lstrip("-").strip("'\"")


@pytest.mark.parametrize("delimiter", DELIMITERS)
def test_a_command_after_a_non_ascii_heredoc_is_judged(delimiter: str) -> None:
    text = f"cat <<{delimiter}\nbody\n{_closing(delimiter)}\nrm -rf /\n"
    # The spec is bash itself: the line after the closing line runs.
    ran = subprocess.run(
        ["bash", "-c", text.replace("rm -rf /", "echo RAN")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "RAN" in ran.stdout, (delimiter, ran)
    verdict = classify_command(text)
    assert verdict.danger is Danger.HARDLINE and "DG101" in verdict.danger_codes, verdict


# Over the BMP (`<<😀`) tree-sitter-bash drops the delimiter altogether and reads the body as
# commands; that reading is kept (the strictest reading wins), so only the others are data.
@pytest.mark.parametrize("delimiter", [d for d in DELIMITERS if max(map(ord, d)) <= 0xFFFF])
def test_the_body_of_a_non_ascii_heredoc_stays_data(delimiter: str) -> None:
    text = f"cat <<{delimiter}\nrm -rf /\n{_closing(delimiter)}\necho done\n"
    assert classify_command(text).danger is Danger.NONE


def test_a_look_alike_line_does_not_close_it_early() -> None:
    # `Q` is the letter the reading would pick first; the text holds it, so another is chosen.
    text = "cat <<é\nQ\ncat <<EOF\né\nrm -rf /\nEOF\n"
    verdict = classify_command(text)
    assert verdict.danger is Danger.HARDLINE, verdict
