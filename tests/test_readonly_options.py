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
    "npm version",  # writes ~/.npm/_logs and _update-notifier-last-checked (tether verify)
    "pip list",  # weekly self-check writes ~/.cache/pip/selfcheck
    "pip -q list --format json",
    "pip list -o --disable-pip-version-check",  # fetches the index into ~/.cache/pip
]
READS = [
    "pip --disable-pip-version-check list",
    "pip -q list --format json --no-index",
    "pip freeze -r req.txt",
    "pip show -f requests",
    "pip --version",
    "docker version",
    "git --no-pager log",
    "git -C . status",
    "git -P log -1",
]


@pytest.mark.parametrize("command", WRITES)
def test_writes_are_not_read_only(command: str) -> None:
    assert classify_command(command).read_only is False, command


@pytest.mark.parametrize("command", READS)
def test_reads_stay_read_only(command: str) -> None:
    verdict = classify_command(command)
    assert verdict.read_only is True, (command, verdict.codes)


# Commands the catalogue once accepted "with any arguments": each now has a spec of every
# option (checked against its --help), and an option it does not list is not proven.
SPELT_OUT = [
    ("cat -Q f", "RW021"),
    ("ls --zzz", "RW021"),
    ("grep -g '*.txt' x", "RW021"),  # ripgrep's -g: not an option of GNU grep
    ("head --frobnicate f", "RW021"),
    ("ps --frobnicate", "RW021"),
    ("jq --frobnicate .", "RW021"),
    ("xxd -ps in out", "RW022"),  # -ps is xxd's -p; `out` is its output file
    ("xxd -cols 8 in out", "RW022"),
    ("file -p f", "RW020"),  # resets the access time of every file it reads
    ("base64 -Q f", "RW021"),
    ("rg --frobnicate x", "RW021"),
    ("hostname -b", "RW020"),
    # gh: each read verb's own options (gh 2.46 manual); --web opens a browser.
    ("gh pr view 1 --frobnicate", "RW021"),
    ("gh pr --web view 1", "RW021"),  # cobra would read `view` as --web's value
    ("gh run view 5 --we", "RW021"),  # pflag takes no prefixes: an unknown flag
    ("gh pr list -w", "RW020"),
    ("gh search prs --web fix", "RW020"),
    ("gh status --frobnicate", "RW021"),
    ("gh auth status -t", "RW020"),  # --show-token prints the token
]
SPELT_READS = [
    "ls -la --color=auto src",
    "head -20 f",
    "tail -n +5 f",
    "grep -rn -C2 foo .",
    "grep -5 foo f",
    "ps aux",
    "ps -ef --forest",
    "seq -5 5",
    "lsof -i :8080",
    "lsof +D .",
    "xxd -ps in",
    "xxd -c 8 -l 64 f.bin",
    "jq -r --arg x 1 .a f.json",
    "echo -x --whatever",  # echo prints every word that is not -n/-e/-E
    "cat $FILE",  # a word that expands stays a read: cat has no option that writes
    "cd -",
    "pushd +1",
    "gh pr -R o/r view 1",  # the verb found with the group's grammar
    "gh run list -w ci",  # -w is --workflow here, not --web
    "gh issue list -s open -L 5 --jq .",
    "gh run view 9876543 --repo acme/widget",
    "date -Iseconds",  # -I[FMT] takes an optional attached value (it was read as -I -s)
    "git tag -n5",  # -n[NUM]: the count can only be attached
]


@pytest.mark.parametrize(("command", "code"), SPELT_OUT)
def test_an_option_a_spec_does_not_list_is_not_read_only(command: str, code: str) -> None:
    verdict = classify_command(command)
    assert not verdict.read_only
    assert code in verdict.codes, verdict.codes


@pytest.mark.parametrize("command", SPELT_READS)
def test_spelt_out_reads_stay_read_only(command: str) -> None:
    assert classify_command(command).read_only, classify_command(command).codes


def _pure_specs() -> list[tuple[str, object]]:
    from tether.rules.readonly.engine import CATALOGUE

    return [(n, s) for n, e in CATALOGUE.items() if e.pure for s in e.specs if not s.open]


@pytest.mark.parametrize(("name", "spec"), _pure_specs(), ids=[n for n, _ in _pure_specs()])
def test_every_pure_command_refuses_an_option_its_spec_lacks(name: str, spec: object) -> None:
    """The class, not the instance: each pure command, an unlisted long and short option."""
    from tether.rules.readonly.spec import Spec, grammar_of

    assert isinstance(spec, Spec) and spec.checked, f"{name}: no version checked against"
    g = grammar_of(spec)
    letter = next(c for c in "QKYjJzZ9" if f"-{c}" not in g.names)
    for option in ("--tether-unknown", f"-{letter}"):
        verdict = classify_command(f"{name} {option} x")
        assert not verdict.read_only, (name, option)
        assert "RW021" in verdict.codes, (name, option, verdict.codes)
