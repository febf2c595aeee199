"""Loop signatures read shell commands through the option model: one call, however it is spelt.

Every spelling that must be one call is run with the real grep and ls in a fixture directory
and must print the same; every pair that must stay two calls either prints differently there
or differs in what the shell does (a glob, a quoted tilde, a redirect, an operator). Then the
guard: a loop spelt five ways is caught as the repeat it is, at the threshold of one spelling.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from test_hook_cli import hook, post, pre, sandbox, verdict
from tether.config import DEFAULT_CONFIG
from tether.guard import Guard
from tether.loops.canonical import canonical_command
from tether.loops.fingerprint import call_signature, preview
from tether.model import Action, ToolCall, ToolResult
from tether.shell.options import Grammar
from tether.shell.readers import READERS

__all__ = ["sandbox"]  # the real hook processes' fixture, used by name below
HARD = DEFAULT_CONFIG.with_values({"loops.hard_stop": True})

# Each row: spellings of one call.
SAME = [
    ("grep -rn x .", "grep -nr x .", "grep -r -n x .", "grep --recursive -n x .",
     "grep --rec -n x .", "grep -n --recursive x .", "grep x . -rn", "grep -n x -r ."),
    ("grep -A3 x a.txt", "grep -A 3 x a.txt", "grep --after-context=3 x a.txt",
     "grep --after-context 3 x a.txt", "grep --after=3 x a.txt"),
    ("grep -in -e x a.txt", "grep -n -i --regexp=x a.txt", "grep -ni --regexp x a.txt"),
    ("grep -c x a.txt b.txt", "grep --count x a.txt b.txt", "grep --cou x a.txt b.txt"),
    ("egrep -rn 'x|y' .", "egrep -nr 'x|y' .", "egrep --line-number -r \"x|y\" ."),
    ("ls -la", "ls -al", "ls -a -l", "ls -l --all", "ls --all -l"),
    ("ls -lR sub", "ls -Rl sub", "ls --recursive -l sub", "ls sub -lR"),
    ("ls -lh -S", "ls -hlS", "ls -S -l --human-readable"),
    ("head -n 20 a.txt", "head -n20 a.txt", "head --lines=20 a.txt", "head --li 20 a.txt"),
    ("tail -n 5 -q a.txt b.txt", "tail -qn5 a.txt b.txt", "tail --quiet --lines 5 a.txt b.txt"),
    ("cat -n -s a.txt", "cat -sn a.txt", "cat --squeeze-blank --number a.txt",
     "cat --squeeze -n a.txt"),
    ("nl -ba a.txt", "nl -b a a.txt", "nl --body-numbering=a a.txt", "nl --bo a a.txt"),
    ("wc -l -w a.txt", "wc -wl a.txt", "wc --words --lines a.txt", "wc -lw 'a.txt'"),
    ("cd sub && grep -rn x . 2>/dev/null | head -5",
     "cd  sub &&  grep -nr 'x' . 2>/dev/null | head -5"),
    # Tools with a grammar but no word on which options commute: spellings, in order.
    ("rm -rf build", "rm -r -f build", "rm --recursive --force build", "rm --recursive -f build"),
]  # fmt: skip

# Each row: two calls that differ, and why.
DIFFERENT = [
    ("grep -n x a.txt", "grep -nv x a.txt", "-v inverts the match"),
    ("ls -l a.txt b.txt", "ls -l b.txt a.txt", "operands keep their order"),
    ("ls -1U a.txt b.txt", "ls -1U b.txt a.txt", "unsorted, operands print in order"),
    ("grep -c x a.txt b.txt", "grep -c x b.txt a.txt", "files are searched in order"),
    ("ls -l -C", "ls -C -l", "the last format wins"),
    ("ls -1 -C", "ls -C -1", "the last layout wins"),
    ("ls -t -S sub", "ls -S -t sub", "the last sort key wins"),
    ("grep -h -H x a.txt", "grep -H -h x a.txt", "the last of -h/-H wins"),
    ("grep -r -d skip x .", "grep -d skip -r x .", "the last of -r/-d wins"),
    ("grep --include=*.txt -r x .", "grep --include='*.txt' -r x .", "a glob in an option"),
    ("grep -n x *.txt", "grep -n x '*.txt'", "a glob against a quoted star"),
    ("ls -l ~", "ls -l '~'", "a tilde expands only unquoted"),
    ("ls -la $D", "ls -al $D", "a word that expands at run time"),
    ("grep -rn x .", "grep -rn x . > out.txt", "a redirect"),
    ("rm --rec -f build", "rm -rf build", "an abbreviation no tool run has checked"),
    ("grep -n x a.txt && ls -l", "grep -n x a.txt || ls -l", "the operator between"),
    ("head -n 2 -c 5 a.txt", "head -c 5 -n 2 a.txt", "the last count wins"),
    ("tail -q -v a.txt b.txt", "tail -v -q a.txt b.txt", "the last of -q/-v wins"),
    ("ls -l -- -a", "ls -l -a", "an operand after --"),
    ("grep -n --bogus x a.txt", "grep --bogus -n x a.txt", "an option no grammar knows"),
    ("time grep -n x a.txt", "grep -n x a.txt", "a keyword before the command"),
    ("sudo ls -la", "ls -la", "a wrapper"),
    ("ls -la", "ls -la; ls -la", "two commands are not one"),
    ("echo $(ls -la)", "echo $(ls -al)", "a substitution keeps its raw words"),
    ("cat <<EOF\nls -la\nEOF\nls -al", "cat <<EOF\nls -al\nEOF\nls -la", "heredoc data"),
    ("grep -e a -e b a.txt", "grep -e b -e a a.txt", "patterns keep their order"),
]


def sig(command: str) -> str:
    return call_signature("Bash", {"command": command}, "command")


@pytest.mark.parametrize("spellings", SAME, ids=[row[0] for row in SAME])
def test_spellings_of_one_call_have_one_signature(spellings: tuple[str, ...]) -> None:
    assert len({sig(c) for c in spellings}) == 1, [canonical_command(c) for c in spellings]


@pytest.mark.parametrize(("a", "b", "why"), DIFFERENT, ids=[row[2] for row in DIFFERENT])
def test_calls_that_may_differ_are_never_merged(a: str, b: str, why: str) -> None:
    assert sig(a) != sig(b), why


@pytest.fixture(scope="module")
def fixture_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    (root / "a.txt").write_text("x one\ny two\nx three\n")
    (root / "b.txt").write_text("nothing\n")
    sub = root / "sub"
    sub.mkdir()
    # Name, size and time orders all differ, so every sort key shows: by name c d e, by size
    # e c d, newest first d c e.
    for name, size, when in (("e.txt", 5000, 1_600_000_000), ("c.txt", 300, 1_650_000_000),
                             ("d.txt", 10, 1_700_000_000)):  # fmt: skip
        path = sub / name
        path.write_text(("x line\n" * size)[:size])
        os.utime(path, (when, when))
    (root / ".hidden").write_text("x hidden\n")
    (root / "tabs.txt").write_text("a\tb\n\n\n\x01 end  \n")  # tabs, blank runs, a control
    return root


def run(command: str, cwd: Path) -> tuple[str, str, int]:
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=20,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC", "HOME": str(cwd)},
        check=False,
    )
    return done.stdout, done.stderr, done.returncode


def test_the_fixture_tools_are_the_real_ones() -> None:
    for tool in ("grep", "egrep", "ls", "bash"):
        assert shutil.which(tool, path="/usr/bin:/bin"), f"{tool} is needed to check spellings"


@pytest.mark.parametrize("spellings", SAME, ids=[row[0] for row in SAME])
def test_the_real_tools_agree_that_the_spellings_are_one_call(
    spellings: tuple[str, ...], fixture_dir: Path, tmp_path: Path
) -> None:
    if spellings[0].startswith("rm "):  # rm changes the tree: each spelling gets its own copy
        outcomes = []
        for i, command in enumerate(spellings):
            copy = tmp_path / str(i)
            shutil.copytree(fixture_dir, copy)
            (copy / "build" / "deep").mkdir(parents=True)
            result = run(command, copy)
            outcomes.append((result, sorted(p.name for p in copy.iterdir())))
        assert all(o == outcomes[0] for o in outcomes)
        return
    outcomes = [run(command, fixture_dir) for command in spellings]
    assert outcomes[0][0], f"{spellings[0]!r} printed nothing: the fixture shows no difference"
    for command, outcome in zip(spellings, outcomes, strict=True):
        assert outcome == outcomes[0], command


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [row for row in DIFFERENT if row[2] in {
        "-v inverts the match", "unsorted, operands print in order", "the last format wins",
        "the last layout wins",
        "the last of -h/-H wins", "the last of -r/-d wins", "files are searched in order",
        "the last sort key wins", "the last count wins", "the last of -q/-v wins",
    }],
)  # fmt: skip
def test_the_real_tools_show_the_pairs_differ(a: str, b: str, why: str, fixture_dir: Path) -> None:
    assert run(a, fixture_dir) != run(b, fixture_dir), why


def test_commands_without_options_keep_their_old_signature() -> None:
    # Stored sessions keep their streaks across the upgrade for these (no option to read).
    for command in ("cargo autopilot issue ready", "git status", "pytest tests", "ls"):
        assert canonical_command(command) is None


def test_the_preview_shows_what_the_agent_wrote() -> None:
    args = {"command": "grep -nr x ."}
    assert preview("Bash", args, "command") == "Bash grep -nr x ."


def test_a_command_over_the_size_cap_keeps_its_raw_words() -> None:
    long = "grep -rn x . " + "a" * 3000
    assert canonical_command(long) is None


_LONG = re.compile(r"(?<![\w-])--[a-z0-9][A-Za-z0-9-]*[A-Za-z0-9]")


def _reader_cases() -> list[tuple[str, Grammar]]:
    return [(name, READERS[name].grammar) for name in READERS]


@pytest.mark.parametrize(("name", "g"), _reader_cases(), ids=list(READERS))
def test_each_reader_knows_every_long_option_its_help_lists(name: str, g: Grammar) -> None:
    done = subprocess.run([name, "--help"], capture_output=True, text=True, timeout=20, check=False)
    listed = set(_LONG.findall(done.stdout + done.stderr))
    assert listed, f"{name} --help printed no long options"
    assert sorted(o for o in listed if o not in g.names) == []


@pytest.mark.parametrize("name", list(READERS))
def test_each_group_names_options_of_its_grammar(name: str) -> None:
    reader = READERS[name]
    known = set(reader.grammar.names.values()) | {"-NUM"}
    for group in reader.groups:
        assert sorted(group - known) == []
    assert sorted(reader.pins - known) == []


# -- the guard ---------------------------------------------------------------------------

SPELT = ["grep -rn TODO src", "grep -nr TODO src", "grep -r -n TODO src",
         "grep --recursive -n TODO src", "grep --rec -n TODO src"]  # fmt: skip


def drive(commands: list[str]) -> tuple[list[tuple[Action, tuple[str, ...]]], Guard]:
    """Run ``commands`` through a guard as a host does, each with the same result."""
    guard = Guard(HARD)
    out: list[tuple[Action, tuple[str, ...]]] = []
    t = 1_700_000_000.0
    for i, command in enumerate(commands):
        t += 2
        call = ToolCall("spelt", "Bash", {"command": command}, f"c{i}", None, t)
        before = guard.before_call(call)
        if not before.allowed:
            out.append((before.action, before.codes))
            continue
        after = guard.after_call(ToolResult(call, "src/a.py:3: TODO\n", 0, False, t + 1))
        decided = after if after.action >= before.action else before
        out.append((decided.action, decided.codes))
    return out, guard


def first(actions: list[tuple[Action, tuple[str, ...]]], at_least: Action) -> int:
    return next(i for i, (a, _) in enumerate(actions) if a >= at_least) + 1


def test_a_loop_spelt_five_ways_is_caught_as_one_repeated_call() -> None:
    same = drive([SPELT[0]] * 12)[0]
    rotated = drive([SPELT[i % len(SPELT)] for i in range(12)])[0]
    assert first(rotated, Action.WARN) == first(same, Action.WARN)
    assert first(rotated, Action.BLOCK) == first(same, Action.BLOCK)
    codes: set[str] = set()
    for action, found in rotated:
        if action >= Action.WARN:
            codes.update(found)
    assert "TL201" in codes  # the no-progress repeat, not a late cycle (TL205)
    assert "TL205" not in codes
    assert [a for a, _ in rotated] == [a for a, _ in same]


def test_two_searches_that_differ_are_two_calls_to_the_guard() -> None:
    commands: list[str] = []
    for _ in range(6):
        commands += ["grep -n TODO src", "grep -nv TODO src"]
    guard = drive(commands)[1]
    state = guard.store.load("spelt")
    assert state is not None
    assert sorted(rec["preview"] for rec in state["sigs"].values()) == [
        "Bash grep -n TODO src",
        "Bash grep -nv TODO src",
    ]


@pytest.mark.parametrize("host", ["claude-code", "gemini"])
def test_real_hook_processes_refuse_a_respelt_loop_when_they_refuse_a_repeated_one(
    host: str, sandbox: tuple[dict[str, str], Path]
) -> None:
    # One `tether hook HOST` process per event, state in SQLite, as the host runs it. Gemini
    # sends no call ids, so its results pair with their calls by signature.
    env, project = sandbox
    env["TETHER_LOOPS__HARD_STOP"] = "true"

    def verdicts(session: str, commands: list[str]) -> list[str]:
        out = []
        for n, command in enumerate(commands, 1):
            out.append(verdict(host, hook(host, pre(host, session, command, project, n), env,
                                          project)))  # fmt: skip
            if out[-1] == "deny":
                break
            done = hook(host, post(host, session, command, "src/a.py:3: TODO", project, n), env,
                        project)  # fmt: skip
            assert done.returncode in (0, 2), done.stderr
        return out

    same = verdicts("same", [SPELT[0]] * 10)
    respelt = verdicts("respelt", [SPELT[i % len(SPELT)] for i in range(10)])
    assert same[-1] == "deny"
    assert respelt == same


# -- soundness, by execution ---------------------------------------------------------------

GREP_OPTIONS = ["-n", "-i", "-v", "-w", "-c", "-o", "-H", "-h", "-l", "-L", "-r", "-s", "-x",
                "-b", "-E", "-F", "-A1", "-B1", "-C1", "-m1", "--no-ignore-case", "-d skip",
                "-d read", "-R", "-a", "-I", "-q", "-Z", "-T", "--color=never", "-y",
                "-2"]  # fmt: skip
LS_OPTIONS = ["-l", "-a", "-A", "-1", "-C", "-x", "-m", "-t", "-S", "-U", "-X", "-v", "-r", "-R",
              "-h", "--si", "-k", "-s", "-i", "-d", "-F", "-p", "--file-type", "-G", "-g", "-o",
              "-n", "-Q", "-N", "-b", "-q", "-L", "-H", "-c", "-u", "--full-time",
              "--format=commas", "--sort=size", "--time=ctime", "-f"]  # fmt: skip
CAT_OPTIONS = ["-n", "-b", "-s", "-E", "-T", "-v", "-A", "-e", "-t", "-u"]
HEAD_OPTIONS = ["-n 2", "-n1", "-c 5", "-c3", "-q", "-v", "-z", "-3", "--lines=4", "--bytes=7"]


def _spell(options: list[str], rng: Any) -> list[str]:
    """Return ``options`` in one of the ways getopt reads the same: clustered or apart."""
    words: list[str] = []
    for option in options:
        flag = re.fullmatch(r"-[A-Za-z]", option) is not None
        if flag and words and rng.random() < 0.5 and re.fullmatch(r"-[A-Za-z0-9]+", words[-1]):
            words[-1] += option[1]  # cluster onto the previous flag
        else:
            words.append(option)
    return words


@pytest.mark.parametrize(("tool", "pool", "operands"), [
    ("grep", GREP_OPTIONS, "x a.txt sub"),
    ("ls", LS_OPTIONS, "a.txt sub"),
    ("cat", CAT_OPTIONS, "a.txt tabs.txt"),
    ("head", HEAD_OPTIONS, "a.txt b.txt"),
    ("tail", HEAD_OPTIONS, "a.txt b.txt"),
])  # fmt: skip
def test_commands_with_one_signature_print_the_same(
    tool: str, pool: list[str], operands: str, fixture_dir: Path
) -> None:
    import random

    rng = random.Random(15)
    by_sig: dict[str, list[tuple[str, tuple[str, str, int]]]] = {}
    for _ in range(120):
        chosen = rng.sample(pool, rng.randint(1, 4))
        base = " ".join(chosen)
        shuffled = chosen[:]
        rng.shuffle(shuffled)
        for options in (chosen, shuffled):
            command = f"{tool} {' '.join(_spell(options, rng))} {operands}"
            by_sig.setdefault(sig(command), []).append((command, run(command, fixture_dir)))
        assert base  # every draw names an option
    merged = [group for group in by_sig.values() if len({c for c, _ in group}) > 1]
    assert len(merged) >= 15, "the draws should give many respellings of one call"
    for group in merged:
        first_command, first_outcome = group[0]
        for command, outcome in group[1:]:
            assert outcome == first_outcome, f"{first_command!r} and {command!r} were merged"


def test_a_command_the_worker_reviews_is_not_parsed_here_for_its_signature(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tether.shell import parse as parse_module

    parsed: list[str] = []
    real = parse_module._parse_command

    def counting(text: str) -> Any:
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(parse_module, "_parse_command", counting)
    guard = Guard(HARD.with_values({"approvals.isolation.threshold": 10}))
    call = ToolCall("iso", "Bash", {"command": "grep -rn TODO src"}, "c1")
    assert guard.before_call(call).allowed
    guard.after_call(ToolResult(call, "src/a.py:3: TODO\n", 0))
    assert parsed == []  # the isolated worker parsed it, in its own process
