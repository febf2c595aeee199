"""Read-only verdicts that depend on reading options the way the tool does (issue 10, 5-7).

Each write row was classified read-only before the one getopt engine: an abbreviated write
option (optparse takes unique prefixes), an unknown option accepted, a bare ``version`` word
taken as a version flag where it names a script, a target or a file to build.
"""

from __future__ import annotations

import pytest

from tether.classify import classify_command

WRITES = [
    "pip list --lo x",  # --log: appends a log file
    "pip show --pyth /tmp/evil requests",  # --python: runs another interpreter
    "pip list --cache /tmp/x",  # --cache-dir
    "pip list --keyring-provider subprocess",  # runs a keyring program
    "pip list --frobnicate",  # unknown: not proven
    "python3 -m pip show --lo x pkg",
    "make version",  # a make target
    "node version",  # runs ./version
    "python version",  # runs ./version
    "gcc version",  # compiles ./version
    "git -- status",
    "git --no-pag log",  # git's own options are spelt whole; unknown is not read-only
]
READS = [
    "pip list",
    "pip -q list --format json",
    "pip --disable-pip-version-check list",
    "pip freeze -r req.txt",
    "pip show -f requests",
    "pip --version",
    "docker version",
    "npm version",
    "git --no-pager log",
    "git -C repo status",
    "git -P log -1",
]


@pytest.mark.parametrize("command", WRITES)
def test_writes_are_not_read_only(command: str) -> None:
    assert classify_command(command).read_only is False, command


@pytest.mark.parametrize("command", READS)
def test_reads_stay_read_only(command: str) -> None:
    verdict = classify_command(command)
    assert verdict.read_only is True, (command, verdict.codes)
