"""A sed ``a``/``i``/``c`` text runs nothing, however many lines it continues over.

GNU sed reads each line after one that ends in an unescaped backslash as more text of the
``a``, ``i`` or ``c`` command, so an ``e`` at the start of such a line is text, not the ``e``
command. The payload reader once took every line as a command: long ``sed -i '750i\\ …'`` edits
were re-parsed as shell (the slowest inputs of the real corpus) and ``a\\`` followed by
``e rm -rf /`` was judged as running it. Each script below is run by the real sed; what the
reader says runs must be what sed ran.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tether.rules.danger import assess
from tether.shell import parse_command
from tether.shell.payloads import sed_payloads

# (sed script running `e touch ran`, whether sed runs it)
SCRIPTS = [
    ("a\\\ne touch ran", False),
    ("1a hello\\\ne touch ran", False),
    ("1i\\\n  text\\\n  more\\\ne touch ran", False),
    ("c\\\nx\\\ne touch ran", False),
    ("a hello\ne touch ran", True),
    ("a hello\\\\\ne touch ran", True),  # an escaped backslash ends the text
    ("1i\\\n  text\\\nmore\n1e touch ran", True),  # the line after the text block
    ("1e touch ran", True),
]


def _sed() -> str:
    found = shutil.which("sed")
    if found is None:
        pytest.fail("GNU sed is needed to check the payload reader against the real program")
    return found


@pytest.mark.parametrize(("script", "runs"), SCRIPTS)
def test_the_reader_agrees_with_the_real_sed(script: str, runs: bool, tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("x\n")
    done = subprocess.run(
        [_sed(), script, "in.txt"], cwd=tmp_path, capture_output=True, text=True, timeout=10
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "ran").exists() is runs, f"sed {script!r}: {done.stdout!r}"
    assert bool(sed_payloads(script)) is runs


@pytest.mark.parametrize("script", [s for s, runs in SCRIPTS if runs])
def test_an_e_after_the_text_is_still_judged(script: str) -> None:
    # What an attacker tries: a text block that seems to go on, hiding a real `e` behind it.
    command = f"sed -i {_quote(script.replace('touch ran', 'rm -rf /'))} notes.txt"
    assert "DG101" in assess(parse_command(command)).codes


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
