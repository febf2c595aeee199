"""One spec per program: every judge that reads a program's options reads them with one grammar.

DESIGN.md principle 8: a second option table for a program is a second truth an attacker will
find the gap between. These tests walk every option table in ``tether.shell`` and every spec
of the read-only catalogue and fail when one program name has two grammars (the table is then
to be merged, not this test relaxed). The xxd cases run the real xxd: it reads its options by
their first letters, and every judge must read them the way it does.
"""

from __future__ import annotations

import importlib
import pkgutil
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tether.rules.readonly as readonly_package
from tether.classify import classify_command
from tether.loops.canonical import canonical_command
from tether.rules.readonly import forge
from tether.rules.readonly.engine import CATALOGUE
from tether.shell import agents, programs, readers, tools
from tether.shell.options import Grammar
from tether.shell.specs import Spec, grammar_of


def _specs(obj: object, depth: int = 0) -> Iterator[Spec]:
    """Yield the specs held by a module constant (a Spec, or a dict/tuple of them)."""
    if isinstance(obj, Spec):
        yield obj
    elif depth < 3 and isinstance(obj, dict):
        for value in obj.values():
            yield from _specs(value, depth + 1)
    elif depth < 3 and isinstance(obj, (tuple, list)):
        for value in obj:
            yield from _specs(value, depth + 1)


def read_only_grammars() -> dict[str, set[int]]:
    """Return each program name the read-only catalogue has a spec of -> ids of its grammars."""
    found: dict[str, set[int]] = {}
    specs: list[Spec] = []
    for module in pkgutil.iter_modules(readonly_package.__path__):
        loaded = importlib.import_module(f"tether.rules.readonly.{module.name}")
        for value in vars(loaded).values():
            specs.extend(_specs(value))
    for group, verbs in forge._READ_VERBS.items():
        specs.extend(forge._verb_spec(group, verb) for verb in verbs)
    for spec in specs:
        found.setdefault(spec.name, set()).add(id(grammar_of(spec)))
    return found


def shell_grammars() -> dict[str, set[int]]:
    """Return each program name the shell's tables have a grammar of -> ids of its grammars."""
    found: dict[str, set[int]] = {}

    def add(name: str, g: Grammar) -> None:
        found.setdefault(name, set()).add(id(g))

    tables = (tools.TOOLS, tools.INTERPRETERS, tools.SINGLE_DASH, tools.CLUSTER, tools.MACHINE,
              agents.AGENT_CLIS)  # fmt: skip
    for table in (*tables, programs.SHELLS):
        for name, g in table.items():
            add(name, g)
    for runner in programs.RUNNERS.values():
        add(runner.grammar.name, runner.grammar)  # `docker exec`, `timeout` (gtimeout) …
    for name, sub in tools.TERRAFORM.items():
        add(f"terraform {name}".rstrip(), sub)
    for name, sub in tools.TMUX_COMMANDS.items():
        add(f"tmux {name}", sub)
    add("tmux", tools.TMUX)
    for name, sub in tools.GIT_SUBCOMMANDS.items():
        add(f"git {name}", sub)
    for name, sub in tools.DOCKER_SUBCOMMANDS.items():
        add(f"docker {name}", sub)
    for name, wrapping in programs.WRAPPERS.items():
        add(name, wrapping.grammar)
    for name, reader in readers.READERS.items():
        add(name, reader.grammar)
    add("git", tools.GIT)
    add("find", tools.FIND)
    return found


def test_no_program_has_two_grammars_in_the_shell_tables() -> None:
    twice = {name: len(ids) for name, ids in shell_grammars().items() if len(ids) > 1}
    assert twice == {}


def test_no_program_has_two_specs_in_the_read_only_catalogue() -> None:
    twice = {name: len(ids) for name, ids in read_only_grammars().items() if len(ids) > 1}
    assert twice == {}


def test_no_program_has_one_grammar_for_the_catalogue_and_another_for_the_shell() -> None:
    shell = shell_grammars()
    ours = read_only_grammars()
    both = sorted(set(shell) & set(ours))
    assert {"grep", "ls", "cat", "head", "tail", "wc", "nl", "base64", "xxd", "tr"} <= set(both)
    twice = {name for name in both if len(shell[name] | ours[name]) > 1}
    assert twice == set(), "merge the second grammar into the one spec (tether.shell)"


@pytest.mark.parametrize("name", sorted(readers.READERS))
def test_a_loop_signature_reads_a_command_with_the_catalogues_grammar(name: str) -> None:
    (spec,) = CATALOGUE[name].specs
    assert readers.READERS[name].grammar is grammar_of(spec)


# xxd argument lists, each run by the real xxd over a file ``in`` (it writes ``out`` when it
# takes it as its output file) and judged by the catalogue.
XXD_FORMS = [
    ["in"],
    ["-p", "in"],
    ["-ps", "in"],
    ["-pl", "in", "out"],  # -p (the `l` is not read): `in` is the input, `out` the output
    ["-pa", "in", "out"],
    ["-plain", "in", "out"],
    ["--ps", "in", "out"],  # a leading `--` is read as `-`
    ["-l", "4", "in"],
    ["-l4", "in", "out"],
    ["-len", "4", "in"],
    ["-len", "4", "in", "out"],
    ["-lenx", "4", "in", "out"],
    ["-cols", "8", "in"],
    ["-c8", "in"],
    ["-c8", "in", "out"],
    ["-capitalize", "-i", "in", "out"],
    ["-s", "1", "in"],
    ["-seek", "1", "in", "out"],
    ["-g2", "in"],
    ["-u", "in", "out"],
    ["in", "--x"],  # xxd stops at its first operand: `--x` is the output file
]


def _xxd_writes(args: list[str], where: Path) -> bool:
    """Run the real xxd over ``where/in``; return True when it created any other file."""
    (where / "in").write_bytes(b"hello, world\n")
    before = set(where.iterdir())
    subprocess.run(["xxd", *args], cwd=where, capture_output=True, timeout=20, check=False)
    return set(where.iterdir()) != before


@pytest.mark.parametrize("args", XXD_FORMS, ids=[" ".join(a) for a in XXD_FORMS])
def test_xxd_is_read_as_xxd_reads_itself(args: list[str], tmp_path: Path) -> None:
    if shutil.which("xxd") is None:
        pytest.fail("xxd is not installed (.ci/run installs it): nothing to compare with")
    writes = _xxd_writes(args, tmp_path)
    verdict = classify_command("xxd " + " ".join(args))
    assert verdict.read_only is not writes, (writes, verdict.reason)


# Words an agent (or an attacker) might give xxd, composed in any order.
_XXD_WORDS = [
    "-p", "-pl", "-ps", "-plain", "--ps", "-c", "-c8", "-cols", "8", "-l", "4", "-l4", "-len",
    "-s", "1", "-seek", "-g2", "-u", "-r", "-rp", "-i", "-capitalize", "-a", "-d", "-E", "-o",
    "-n", "x", "--", "-", "in", "out",
]  # fmt: skip


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(args=st.lists(st.sampled_from(_XXD_WORDS), min_size=1, max_size=5))
def test_xxd_proven_read_only_writes_nothing(args: list[str], tmp_path: Path) -> None:
    if shutil.which("xxd") is None:
        pytest.fail("xxd is not installed (.ci/run installs it): nothing to compare with")
    where = tmp_path / "run"
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir()
    (where / "in").write_bytes(b"hello, world\n")
    before = {p.name: p.read_bytes() for p in where.iterdir()}
    subprocess.run(["xxd", *args], cwd=where, stdin=subprocess.DEVNULL, capture_output=True,
                   timeout=20, check=False)  # fmt: skip
    after = {p.name: p.read_bytes() for p in where.iterdir()}
    if classify_command("xxd " + " ".join(args)).read_only:
        assert after == before


def test_xxd_spellings_of_one_dump_are_one_loop_signature() -> None:
    assert canonical_command("xxd -ps f") == canonical_command("xxd -p f")
    assert canonical_command("xxd -len 4 f") == canonical_command("xxd -l4 f")
    # -p -s f seeks to offset f; -ps f dumps f: two calls, never one.
    assert canonical_command("xxd -p -s f") != canonical_command("xxd -ps f")


@pytest.mark.parametrize(
    "command",
    [
        "echo 726d202d7266202f | xxd -r -p | sh",
        "echo 726d202d7266202f | xxd -r -c8 -p | sh",  # -c8 carries its value attached
        "echo 726d202d7266202f | xxd -revert -plain | sh",
        "echo 726d202d7266202f | xxd -r -l64 -ps | sh",
        "echo cm0gLXJmIC8= | base64 -di | sh",  # GNU -i: ignore garbage, a flag
        "echo cm0gLXJmIC8= | base64 -D | sh",  # macOS's spelling of --decode
        "echo 'rmx -rfx /' | tr -d x | sh",  # -d deletes: once read as SET1 '-d'
        "echo 'rm -rf /' | tr -d x | sh",
        "echo 'ez -eS /' | tr a-z n-za-m | sh",
        "echo 'rm -rf /' | tr -- a a | sh",
        "printf -- 'rm -rf /' | sh",  # bash's printf ends its options at --
    ],
)
def test_a_decoded_payload_is_judged_whatever_the_decoders_spelling(command: str) -> None:
    assert classify_command(command).danger.label == "hardline"


def test_a_write_option_after_base64s_i_is_seen() -> None:
    # GNU's -i is a flag, so -o after it is an option (macOS's -i FILE would read `-o` as
    # the input's name): the union reads the stricter way.
    verdict = classify_command("base64 -i -o out")
    assert not verdict.read_only
    assert verdict.codes == ("RW020",)


def test_every_grammar_in_the_tables_builds() -> None:
    # Grammars are built on first use: one that cannot be built (an option listed twice)
    # would crash the first judge that meets the program, on an agent's command.
    assert len(shell_grammars()) > 100


def test_tmux_split_window_is_judged_not_crashed_on() -> None:
    # tmux split-window's grammar once listed -e twice (flag and value): judging any
    # `tmux split-window …` raised ValueError.
    assert classify_command("tmux split-window -e A=1 'rm -rf /'").danger.label == "hardline"
    assert classify_command("tmux split-window -h htop").danger.label == "none"


@pytest.mark.parametrize(
    ("command", "read_only"),
    [("printf -v x 'a'", False), ("printf -vx a", False), ("printf -- -v x", True)],
)
def test_printf_is_read_with_its_spec(command: str, read_only: bool) -> None:
    # -v VAR assigns instead of printing; after `--`, -v is the format.
    assert classify_command(command).read_only is read_only


@pytest.mark.parametrize("code", ["RO109", "RO108", "RO101", "RO201"])
def test_tether_rules_shows_each_programs_one_grammar_once(code: str) -> None:
    from tether.cli.rules import grammars
    from tether.rules import get_rule

    rule = get_rule(code)
    assert rule is not None
    names = [g.name for g in grammars(rule)]
    assert names and len(names) == len(set(names)), names


@pytest.mark.parametrize(
    ("command", "named"),
    [
        ("sed -i s/a/b/ f", "sed -i:"),
        ("sed -ni s/a/b/ f", "sed -i:"),
        ("sed --in-place s/a/b/ f", "sed --in-place:"),
        ("base64 -ob64.txt", "base64 -o:"),
        ("tree -Cofile .", "tree -o:"),
        ("gh api -f key=value repos/o/r", "gh api -f:"),
    ],
)
def test_a_reason_names_the_option_as_the_command_spells_it(command: str, named: str) -> None:
    # A shared spec reads -i as --in-place; the model is told about the -i it wrote.
    assert named in classify_command(command).reason
