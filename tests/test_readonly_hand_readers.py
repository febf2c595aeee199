"""tee, version queries and gh's root, read on the one engine instead of by hand.

Each table holds what old main got wrong (marked) and the spellings that must keep their
verdict: bundled, attached, ``=``, unique prefixes where the tool takes them, after ``--``,
behind wrappers. The writes old main proved read-only were run by ``tether verify``
(tests/test_verify_found.py keeps them as evidence):

- ``tee`` skipped every operand starting with ``-``, so ``tee -- -out`` writes ``-out``;
  and ``-`` was taken for stdout, but GNU tee 9.1 writes a file named ``-``;
- a version flag was any of ``--version -V -version`` for every tool: ``npm -V`` and
  ``npx -V`` print usage and write npm's logs under ~/.npm.
"""

from __future__ import annotations

import pytest

from tether.rules import readonly
from tether.shell import parse_command

READ_WRAPPERS = ("", "env ", "timeout 5 ", "nice -n 5 ")
WRITE_WRAPPERS = (*READ_WRAPPERS, "sudo ", "env LC_ALL=C timeout -s KILL 9 ")


def read_only(command: str) -> bool:
    return readonly.assess(parse_command(command)).read_only


TEE_READS = [
    "ls | tee",
    "ls | tee /dev/null",
    "ls | tee -a /dev/null",
    "ls | tee --append /dev/null",
    "ls | tee --app /dev/null",  # a unique prefix of --append
    "ls | tee -ai /dev/null /dev/stderr",
    "ls | tee --output-error=warn /dev/null",
    "ls | tee --output-error /dev/null",
    "ls | tee -p -- /dev/null",
]
TEE_WRITES = [
    "ls | tee out",
    "ls | tee -a out",
    "ls | tee /dev/null out",
    "ls | tee -- -out",  # old main: read-only
    "ls | tee -a -- -p",  # old main: read-only
    "ls | tee -",  # old main: read-only (GNU tee writes a file named '-')
    "ls | tee --output-error=warn -- -",  # old main: read-only
]


@pytest.mark.parametrize("command", TEE_READS)
def test_tee_to_null_stays_read_only(command: str) -> None:
    left, _, right = command.partition("| ")
    for w in READ_WRAPPERS:
        assert read_only(f"{left}| {w}{right}"), f"{left}| {w}{right}"


@pytest.mark.parametrize("command", TEE_WRITES)
def test_tee_to_a_file_is_refused_behind_every_wrapper(command: str) -> None:
    left, _, right = command.partition("| ")
    for w in WRITE_WRAPPERS:
        assert not read_only(f"{left}| {w}{right}"), f"{left}| {w}{right}"


VERSION_READS = [
    "python3 --version",
    "python -V",
    "python -VV",
    "node --version",
    "node -v",
    "npm -v",
    "npm --version",
    "npx -v",
    "make -v",
    "make --vers",  # GNU make reads long options with getopt_long: a unique prefix
    "perl -v",
    "perl -V",
    "ruby --version",
    "php -v",
    "gcc --version",
    "java --version",
    # (`rustup -V` obeys a rust-toolchain.toml: proven only given the tree, test_readonly_tree_more)
    "docker --version",
    "docker -v",
    "docker version",  # docker's own `version` subcommand
    "uv version",  # uv's own `version` subcommand
    "uv -V",
]
VERSION_WRITES = [
    "npm -V",  # old main: read-only; npm prints usage and writes ~/.npm (tether verify)
    "npx -V",  # old main: read-only; the same
    "node -V",  # old main: read-only (node: bad option)
    "node -version",  # old main: read-only (node: bad option)
    "make -V",  # old main: read-only (make: invalid option)
    "java -V",  # old main: read-only (java: unrecognized option)
    "docker -V",  # old main: read-only (docker: unknown shorthand flag)
    "python -v",  # verbose: starts the interactive interpreter
    "ruby -v",  # prints the version, then runs the script on stdin
    "gcc -v",
    "python3 --version x.py",
    'node --version -e \'require("fs").writeFileSync("x", "")\'',
    'python3 -V -c \'open("x", "w")\'',
    "node version",  # a script named version
    "make version",  # a make target
    "npm version",  # writes ~/.npm (tether verify)
    "cargo --version",  # rust-toolchain.toml may name another toolchain
]


@pytest.mark.parametrize("command", VERSION_READS)
def test_a_version_query_in_the_tools_own_spelling_is_read_only(command: str) -> None:
    for w in READ_WRAPPERS:
        assert read_only(f"{w}{command}"), f"{w}{command}"


@pytest.mark.parametrize("command", VERSION_WRITES)
def test_anything_else_is_not_a_version_query(command: str) -> None:
    for w in WRITE_WRAPPERS:
        assert not read_only(f"{w}{command}"), f"{w}{command}"


GH_READS = ["gh", "gh --version", "gh version", "gh -h", "gh --help", "gh pr -R o/r view 3"]
GH_REFUSED = [
    "gh --vers",  # pflag spells names whole
    "gh -x",
    "gh version extra",
    "gh --version pr",
    "gh pr -R view view --web",  # the verb is found by the group's grammar, --web still seen
]


@pytest.mark.parametrize("command", GH_READS)
def test_gh_root_reads(command: str) -> None:
    assert read_only(command)


@pytest.mark.parametrize("command", GH_REFUSED)
def test_gh_root_unknown_is_refused(command: str) -> None:
    assert not read_only(command)
