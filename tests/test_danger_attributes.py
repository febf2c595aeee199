"""DG433: chattr's words read as chattr.c reads them, checked against the installed usage."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tether.rules.danger import assess
from tether.rules.danger.attributes import _CHATTR_LETTERS, chattr_parts
from tether.shell import parse_command
from tether.shell.model import Word


def test_the_attribute_letters_cover_the_installed_chattr() -> None:
    if shutil.which("chattr") is None:
        pytest.fail("chattr is not installed: apt-get install e2fsprogs (.ci/run does)")
    done = subprocess.run(["chattr"], capture_output=True, text=True, timeout=10, check=False)
    usage = done.stdout + done.stderr
    m = re.search(r"\[-\+=([A-Za-z]+)\]", usage)
    assert m, f"chattr usage changed: {usage!r}"
    assert set(m.group(1)) <= _CHATTR_LETTERS, set(m.group(1)) - _CHATTR_LETTERS
    assert "[-RVf]" in usage and "[-p project]" in usage and "[-v version]" in usage


@pytest.mark.parametrize(
    ("words", "added", "files"),
    [
        ("-R +i /", "i", ["/"]),
        ("-RV -p 7 +a -- -odd", "a", ["-odd"]),
        ("-v 3 =ai /etc/x /etc/y", "ai", ["/etc/x", "/etc/y"]),
        ("-i /etc/x", "", ["/etc/x"]),
        ("-Ri +c x", "c", ["x"]),
        ("+i", "i", []),
    ],
)
def test_chattr_words_split_as_chattr_does(words: str, added: str, files: list[str]) -> None:
    got_added, got_files = chattr_parts(tuple(Word(w) for w in words.split()))
    assert (got_added, [w.value for w in got_files]) == (added, files)


@pytest.mark.parametrize(
    "command",
    ["chattr -p 1 +i /etc/hosts", "chattr -V -R +a /var/lib", "command chattr +i /etc/shadow"],
)
def test_locking_system_files_asks(command: str) -> None:
    assert "DG433" in assess(parse_command(command)).codes


@pytest.mark.parametrize("command", ["chattr +z /etc/hosts", "chattr -v 2 /etc/hosts"])
def test_what_chattr_refuses_or_leaves_alone_passes(command: str) -> None:
    assert "DG433" not in assess(parse_command(command)).codes
