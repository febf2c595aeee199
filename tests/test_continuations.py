"""Backslash-newlines: removed where bash removes them, kept where bash keeps them.

bash joins ``\\<newline>`` before it splits words, except inside single quotes, ``$'…'`` and
comments. Joined everywhere, ``ls # x\\<newline>rm -rf /`` hid ``rm -rf /`` in the comment:
read-only, danger none, while bash runs it. Each case is run by the real bash.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tether.classify import classify_command
from tether.rules.base import Danger
from tether.shell import parse_command

BASH = shutil.which("bash")

WORDS = [
    "printf '%s\\0' 'a\\\nb'",
    "printf '%s\\0' $'a\\\nb'",
    "printf '%s\\0' \"a\\\nb\"",
    "printf '%s\\0' a\\\nb",
    "printf '%s\\0' 'it''s\\\n' x",
    "printf '%s\\0' x # comment\\\n",
    "printf '%s\\0' \"it's\\\nx\" 'y\\\nz'",
    "printf '%s\\0' a\\\\\\\nb",
]


def _bash_words(source: str, cwd: Path | None = None) -> list[str]:
    assert BASH is not None, "bash is needed to compare words with"
    done = subprocess.run([BASH, "-c", source], capture_output=True, timeout=5, check=True, cwd=cwd)
    return [w.decode() for w in done.stdout.split(b"\0")[:-1]]


@pytest.mark.parametrize("source", WORDS)
def test_first_reading_has_the_words_bash_passes(source: str) -> None:
    model = parse_command(source)
    assert not model.errors and model.unprovable is None
    assert [w.value for w in model.commands[0].argv[2:]] == _bash_words(source)


HIDDEN = [
    "ls # x\\\nrm -rf {target}",
    "ls #\\\nrm -rf {target}",
    "true # it's a note\\\nrm -rf {target}",
    "echo ok; # \\\nrm -rf {target}",
    "cat f 2>/dev/null # \\\\\\\nrm -rf {target}",
]


@pytest.mark.parametrize("template", HIDDEN)
def test_a_command_after_a_comment_ending_in_a_backslash_runs_and_is_judged(
    template: str, tmp_path: Path
) -> None:
    target = tmp_path / "victim"
    target.mkdir()
    assert BASH is not None
    subprocess.run([BASH, "-c", template.format(target=target)], cwd=tmp_path, timeout=5)
    assert not target.exists(), "bash did not run the line after the comment"
    verdict = classify_command(template.format(target="/"))
    assert not verdict.read_only
    assert verdict.danger is Danger.HARDLINE, verdict.codes


def test_single_quoted_backslash_newline_is_data_not_a_join() -> None:
    verdict = classify_command("grep -c 'a\\\nb' notes.txt")
    assert verdict.read_only, verdict.codes
