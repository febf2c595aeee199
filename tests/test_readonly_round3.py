"""Issue 24's classes: forms that were ``read_only: true`` on main at 7d64a62 and are refused now.

Each row was classified read-only (and danger ``none``) by main at 7d64a62 (measured with that
tree's code, /tmp export); the reason each one writes or runs is in the comment beside it or
in the module that now refuses it. Class 1 is proven against the real tools by
tests/test_embedded_differential.py; classes 3 and 5 are shell and wrapper options.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tether import classify_command
from tether.rules.base import Danger

# Class 1: embedded languages read by hand (tether.shell.embedded.sed / awk now).
EMBEDDED = [
    "sed -n ':a w /etc/passwd' f",  # the label ends at the blank: `w /etc/passwd` is a command
    "sed -n ':a w out' f",
    "sed -n ':a e rm -rf /' f",
    "sed -n ':a\te touch x' f",
    "sed -n 't x w out' f",
    "sed -n 'b a;:a w out' f",
    "awk '{print $1,\n$2 > \"out\"}' f",  # the statement goes on after `,` and a newline
    "awk 'BEGIN{print 1,\n2 > \"out\"}'",
    "awk 'BEGIN{print (1,\n2) > \"out\"}'",
    'awk \'{print "a" ||\n1 > "out"}\' f',
    'awk \'BEGIN { printf("%s",\n1) > "out" }\'',
]
# Class 2: tree reads a value-taking letter's value from the next argument even inside a
# cluster (Spec.style "next"): `tree -Lo 2 out` is `-L 2 -o out` and writes out.
PARSE_STYLE = ["tree -Lo 2 out", "tree -dLo 1 listing.txt"]
# Class 3: shell start-up files and options.
SHELL_START = [
    "bash -k -c ls PS4=x",  # NAME=value words anywhere become environment
    "bash -o keyword -c ls",
    "bash --rcfile ./evil -c ls",
    "bash --init-file ./evil -c ls",
    "bash -l -c ls",  # a login shell reads ~/.profile
    "bash --login -c ls",
    "bash -i -c ls",  # an interactive shell reads ~/.bashrc
    "sh -l -c ls",
    "dash -l -c ls",
    "ksh -i -c ls",  # reads $ENV
    "zsh -c ls",  # reads ~/.zshenv
    "bash -O extdebug -c ls",
    "for path in /tmp/x; do ls; done",  # zsh: `path` is tied to PATH
    "for fpath in x; do ls; done",
]
# Class 5: side channels into a child's environment.
SIDE_CHANNELS = [
    "xargs --process-slot-var=LD_PRELOAD ls",
    "xargs --process-slot-var=PATH -n1 ls",
]
# Danger `none` on main, now flagged: what a sed or awk script writes or runs.
DANGEROUS = {
    "sed 'w /etc/passwd' f": Danger.ASK,
    "sed -n ':a w /etc/shadow' f": Danger.ASK,
    "sed 's/x/y/w /etc/sudoers' f": Danger.ASK,
    "sed -n ':a e rm -rf /' f": Danger.HARDLINE,
    "awk '{print > \"/etc/passwd\"}' f": Danger.ASK,
    "awk '{print > \"/root/.ssh/authorized_keys\"}' f": Danger.ASK,
    'gawk \'BEGIN { f = "system"; @f("rm -rf /") }\'': Danger.HARDLINE,
}
# Still read-only: the same tools used to read.
READS = [
    "sed -n '1,5p' f",
    "sed 's/a/b/g' f",
    "sed '1a foo; w x' f",  # the text of `a` runs to the end of the line
    "sed -n 'w /dev/stdout' f",
    "awk '{print $1}' f",
    "awk -F: '$3 > 1000 {print $1}' /etc/passwd",
    "awk '{ if ($1 > 5) print $2 }' f",
    "awk 'BEGIN { print (1 > 2) }'",
    "awk '{print > \"/dev/stderr\"}' f",
    "zsh -f -c ls",
    "tree -dL 2",
    "tree -Ld 2 .",
    "bash -c ls",
    'for p in a b; do ls "$p"; done',
]


@pytest.mark.parametrize("command", EMBEDDED + PARSE_STYLE + SHELL_START + SIDE_CHANNELS)
def test_refused_now(command: str) -> None:
    assert not classify_command(command).read_only


@pytest.mark.parametrize(("command", "level"), list(DANGEROUS.items()))
def test_flagged_now(command: str, level: Danger) -> None:
    assert classify_command(command).danger >= level


@pytest.mark.parametrize("command", READS)
def test_still_read_only(command: str) -> None:
    assert classify_command(command).read_only


def test_tree_takes_values_from_the_next_arguments(tmp_path: Path) -> None:
    """The parse style the spec records, confirmed with the real tree: the cluster -Lo takes
    2 and out from the next two words (out is written), and an attached -L2 is refused."""
    subprocess.run(["tree", "-Lo", "2", "out"], cwd=tmp_path, capture_output=True, check=False)
    assert (tmp_path / "out").is_file()
    attached = subprocess.run(["tree", "-L2"], cwd=tmp_path, capture_output=True, check=False)
    assert attached.returncode != 0
