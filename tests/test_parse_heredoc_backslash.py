"""A heredoc body whose first line starts with a backslash is the body, not words of the command.

tree-sitter-bash read ``cat <<'EOF'`` + ``\\! x`` as ``cat '\\n!' x`` with an empty body, so a
script fed to a shell or a database client that way was never read (reported by records).
"""

from __future__ import annotations

import pytest

from tether.classify import classify_command
from tether.rules.base import Danger
from tether.shell import parse_command


@pytest.mark.parametrize(
    ("text", "argv", "body"),
    [
        ("cat <<'EOF'\n\\! x\nEOF", ("cat",), "\\! x\n"),
        ("psql <<'EOF'\n\\! rm -rf ~\nEOF", ("psql",), "\\! rm -rf ~\n"),
        ("cat <<EOF\n\\x\nEOF\necho hi", ("cat",), "\\x\n"),
    ],
)
def test_the_body_is_read(text: str, argv: tuple[str, ...], body: str) -> None:
    first = parse_command(text).commands[0]
    assert tuple(w.value for w in first.argv) == argv
    assert first.redirects[-1].body == body


@pytest.mark.parametrize(
    "text", ["sh <<'EOF'\n\\rm -rf /\nEOF", "cat <<'EOF' | sh\n\\rm -rf /\nEOF"]
)
def test_a_script_starting_with_a_backslash_is_judged(text: str) -> None:
    verdict = classify_command(text)
    assert verdict.danger is Danger.HARDLINE and "DG101" in verdict.danger_codes, verdict


def test_data_starting_with_a_backslash_stays_data() -> None:
    assert classify_command("cat <<'EOF' > x.tex\n\\section{rm -rf /}\nEOF").danger is Danger.NONE
