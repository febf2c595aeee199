"""A word bash splits before a wrapper's or runner's command hides which word is the command.

Bash splits an unquoted ``$x``, ``$(…)``, backticks, a glob or a brace into zero, one or many
words, and ``"$@"`` / ``"${a[@]}"`` into many even quoted. ``timeout $T ls`` with
``T="5 touch pwned"`` runs ``timeout 5 touch pwned ls``; ``U="root rm -rf"; sudo -u $U ls ~``
runs ``rm -rf ls ~``. The parser marks such words (``Word.split``, checked here against real
bash), wrapper peeling stops at one that comes before the command word (the command word is
then the split word: computed at run time for every judge), runners mark their payload
dynamic, and the danger catalogue peels again with a known value, and judges what runs when
the word is one word or none, so no visible hardline becomes an ask.

The generator below puts a split word in every value and operand position before the command
of every wrapper, shell and runner in ``tether.shell.programs``; ``tests/test_verify_found.py``
keeps the writes the oracle confirmed behind the read-only verdicts this used to give.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

from tether import classify_command
from tether.rules import danger
from tether.rules.base import Danger
from tether.shell import parse_command
from tether.shell.options import REQUIRED, Grammar
from tether.shell.programs import RUNNERS, SHELLS, WRAPPERS

# --- the parser's mark, against bash ----------------------------------------------------------

# (spelling, whether bash may make it other than one word)
SPELLINGS = [
    ("$X", True),
    ("${X}", True),
    ("${X:-d}", True),
    ('"$X"', False),
    ('"${X}"', False),
    ("$(echo p q)", True),
    ("`echo p q`", True),
    ('"$(echo p q)"', False),
    ("$@", True),
    ("$*", True),
    ('"$@"', True),
    ('"${@:1}"', True),
    ('"$*"', False),
    ('"${a[@]}"', True),
    ('"${!a[@]}"', True),
    ('"${a[*]}"', False),
    ('"${#a[@]}"', False),
    ("pre$X", True),
    ('"pre"$X', True),
    ('"x$@y"', True),
    ("$((1+2))", False),
    ("<(true)", False),
    ("{p,q}", True),
    ("*.py", True),
    ("'$X'", False),
    ("$'p q'", False),
    ("plain", False),
]
# Every splitting spelling gives two or more words here (none gives one by chance).
_SETUP = "X='p q'; set -- 'a b' c; a=(1 '2 3'); n() { echo $#; }; "


@pytest.mark.parametrize(("spelling", "splits"), SPELLINGS)
def test_split_marks_the_words_bash_may_split(spelling: str, splits: bool, tmp_path: Path) -> None:
    bash = shutil.which("bash")
    assert bash is not None, "bash is needed to count the words it makes (apt-get install bash)"
    (tmp_path / "a.py").touch()
    (tmp_path / "b.py").touch()
    done = subprocess.run(
        [bash, "-c", _SETUP + "n " + spelling],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=5,
        check=True,
    )
    words = int(done.stdout)
    model = parse_command("n " + spelling)
    word = model.commands[0].argv[1]
    assert word.split is splits, (spelling, word)
    assert (words != 1) is splits, f"bash made {words} word(s) of {spelling}"


def test_an_assignment_value_does_not_split() -> None:
    (cmd,) = parse_command("X=$Y ls").commands
    assert not cmd.assignments[0].value.split


# --- the generator: a split word in every position before the command -------------------------


class Case(NamedTuple):
    """One command shape: ``{}`` is the position of the split word."""

    words: tuple[str, ...]
    # The slot is a word of its own: a known value ``fill + " rm -rf"`` is peeled again.
    fill: str | None
    # The slot holds an option's value or an operand that, as one word, leaves the command.
    keeps: bool = True

    def spell(self, split: str, command: str) -> str:
        """Return the command line with ``split`` in the slot and ``command`` after it."""
        return " ".join(w.replace("{}", split) for w in self.words) + " " + command


def _value_options(g: Grammar, skip: frozenset[str]) -> list[tuple[str | None, str | None]]:
    """Return (short, long) spellings of every option of ``g`` that takes a value."""
    out = []
    for canonical, kind in g.arity.items():
        if kind != REQUIRED or canonical in skip:
            continue
        spelt = [s for s, c in g.names.items() if c == canonical]
        short = next((s for s in spelt if not s.startswith("--")), None)
        long = next((s for s in spelt if s.startswith("--")), None)
        out.append((short, long))
    return out


def _slots(
    head: tuple[str, ...],
    g: Grammar,
    skip: frozenset[str],
    positionals: int,
    commands: frozenset[str] = frozenset(),
) -> list[Case]:
    """Return every option-value and positional slot before the command, after ``head``.

    ``commands``: options whose value is itself a command line (``env -S``): a slot that asks,
    but no value there leaves the words after it the command.
    """
    pos = ("1",) * positionals
    fill = " ".join(("1", *pos))
    cases = []
    for short, long in _value_options(g, skip):
        keeps = g.canon(short or long or "") not in commands
        for spelt in (short, long):
            if spelt is not None:
                cases.append(Case((*head, spelt, "{}", *pos), fill if keeps else None, keeps))
        if short is not None:
            cases.append(Case((*head, short + "{}", *pos), None, keeps))
        if long is not None:
            cases.append(Case((*head, long + "={}", *pos), None, keeps))
    for j in range(positionals):
        rest = ("1",) * (positionals - j - 1)
        cases.append(Case((*head, *("1",) * j, "{}", *rest), " ".join(("1", *rest))))
    return cases


def _wrapper_cases() -> dict[str, Case]:
    out: dict[str, Case] = {}
    for name in WRAPPERS:
        spec = WRAPPERS[name]
        strings = frozenset({"--split-string"}) if name == "env" else frozenset()
        cases = _slots((name,), spec.grammar, spec.terminal, spec.positionals, strings)
        pos = ("1",) * spec.positionals
        cases.append(Case((name, *pos, "{}"), "", keeps=False))  # the command word itself
        if spec.assignments:
            cases.append(Case((name, "A={}"), None, keeps=False))
        for case in cases:
            out[" ".join(case.words)] = case
    return out


WRAPPER_CASES = _wrapper_cases()
# ``$(echo x)`` is not among them: what it prints is known (the danger catalogue reads it).
SPLITS = ("$X", "$(cat f)", '"$@"', "${X}", "`cat f`", '"${a[@]}"')


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("shape", sorted(WRAPPER_CASES))
def test_wrapper_split_word_is_never_read_only(shape: str, split: str) -> None:
    command = WRAPPER_CASES[shape].spell(split, "ls")
    assert not classify_command(command).read_only, command


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("shape", sorted(WRAPPER_CASES))
def test_wrapper_split_word_asks_at_least(shape: str, split: str) -> None:
    case = WRAPPER_CASES[shape]
    # With ``X="1 … rm -rf"`` bash runs ``rm -rf … ls ~``: the command is not known here.
    command = case.spell(split, "ls ~")
    assert danger.assess(parse_command(command)).level >= Danger.ASK, command
    assert danger.assess(parse_command(case.spell("1", "ls ~"))).level is Danger.NONE


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("shape", sorted(s for s, c in WRAPPER_CASES.items() if c.keeps))
def test_wrapper_split_word_keeps_the_hardline_behind_it(shape: str, split: str) -> None:
    # Read as one word (or as none), the split word leaves ``rm -rf ~`` the command.
    command = WRAPPER_CASES[shape].spell(split, "rm -rf ~")
    assert danger.assess(parse_command(command)).level is Danger.HARDLINE, command


@pytest.mark.parametrize("how", ["assigned", "printed"])
@pytest.mark.parametrize("shape", sorted(s for s, c in WRAPPER_CASES.items() if c.fill is not None))
def test_wrapper_split_word_of_a_known_value_is_peeled_again(shape: str, how: str) -> None:
    case = WRAPPER_CASES[shape]
    assert case.fill is not None
    value = f"{case.fill} rm -rf".strip()
    if how == "assigned":
        command = f'X="{value}"; ' + case.spell("$X", "ls ~")
    else:
        command = case.spell(f"$(echo {value})", "ls ~")
    assert danger.assess(parse_command(command)).level is Danger.HARDLINE, command


@pytest.mark.parametrize("shape", sorted(s for s, c in WRAPPER_CASES.items() if c.keeps))
def test_wrapper_quoted_word_is_one_word(shape: str) -> None:
    # ``"$X"`` is exactly one word: the command behind it is found as before.
    case = WRAPPER_CASES[shape]
    (cmd,) = parse_command(case.spell('"$X"', "ls ~")).commands
    assert [w.value for w in cmd.argv[:2]] == ["ls", "~"], cmd  # xargs adds its input
    hardline = case.spell('"$X"', "rm -rf ~")
    assert danger.assess(parse_command(hardline)).level is Danger.HARDLINE, hardline


# The read-only verdicts the old peeling gave: each wrote when bash split the word (the oracle
# runs them with such a value: tests/test_verify_found.py).
READ_ONLY_BEFORE = [
    "timeout $T ls",
    "timeout -s KILL $T ls",
    'timeout "$@" ls',
    "chrt -o $P ls",
    "taskset $M ls",
    "watch -t -n 1 ls $D",
    'watch ls "$D"',
    "stdbuf -o L timeout $T ls",
]


@pytest.mark.parametrize("command", READ_ONLY_BEFORE)
def test_what_was_read_only_is_not(command: str) -> None:
    assert not classify_command(command).read_only


# --- shells: a split word among the options or where the script is named ----------------------


def _shell_cases() -> dict[str, Case]:
    out: dict[str, Case] = {}
    for name in SHELLS:
        for case in _slots((name,), SHELLS[name], frozenset(), 0):
            case = case._replace(words=(*case.words, "-c"), fill=None)
            out[" ".join(case.words)] = case
        out[f"{name} {{}}"] = Case((name, "{}"), None, keeps=False)  # the script operand
    return out


SHELL_CASES = _shell_cases()


@pytest.mark.parametrize("split", SPLITS[:3])
@pytest.mark.parametrize("shape", sorted(SHELL_CASES))
def test_shell_split_word_asks_and_keeps_the_hardline(shape: str, split: str) -> None:
    case = SHELL_CASES[shape]
    payload = "'ls ~'" if case.keeps else "ls ~"
    command = case.spell(split, payload)
    assert not classify_command(command).read_only, command
    assert danger.assess(parse_command(command)).level >= Danger.ASK, command
    if case.keeps:
        hardline = case.spell(split, "'rm -rf ~'")
        assert danger.assess(parse_command(hardline)).level is Danger.HARDLINE, hardline


# --- runners: su -c, chroot, docker exec, kubectl exec … --------------------------------------


def _runner_cases() -> dict[str, Case]:
    out: dict[str, Case] = {}
    for name in RUNNERS:
        spec = RUNNERS[name]
        head = (name, spec.subcommand) if spec.subcommand else (name,)
        cases = _slots(head, spec.grammar, spec.payload, spec.positionals)
        if spec.subcommand:
            cases.append(Case((name, "{}"), None, keeps=False))  # where the subcommand is
        for case in cases:
            words = (*case.words, "-c") if spec.payload else case.words
            if any(w.partition("=")[0] in spec.pairs for w in case.words):
                # bwrap --bind SRC DEST: whether the next word is DEST or the command depends
                # on how many words the value is; at least ask (a split value: hardline too,
                # tests/test_shell_options.py::test_runner_bypasses_are_hardline).
                case = case._replace(keeps=False)
            out[" ".join(words)] = case._replace(words=words)
        if spec.payload:
            out[f"{name} {{}} -c"] = Case((name, "{}", "-c"), None)
    return out


RUNNER_CASES = _runner_cases()


def _payload(shape: str, command: str) -> str:
    return f"'{command}'" if shape.endswith(" -c") else command


@pytest.mark.parametrize("split", SPLITS[:3])
@pytest.mark.parametrize("shape", sorted(RUNNER_CASES))
def test_runner_split_word_asks_at_least(shape: str, split: str) -> None:
    case = RUNNER_CASES[shape]
    command = case.spell(split, _payload(shape, "ls ~"))
    assert not classify_command(command).read_only, command
    assert danger.assess(parse_command(command)).level >= Danger.ASK, command
    literal = case.spell("1", _payload(shape, "ls ~"))
    assert danger.assess(parse_command(literal)).level is Danger.NONE, literal


@pytest.mark.parametrize("split", [*SPLITS[:3], '"$X"'])
@pytest.mark.parametrize("shape", sorted(s for s, c in RUNNER_CASES.items() if c.keeps))
def test_runner_split_word_keeps_the_hardline_behind_it(shape: str, split: str) -> None:
    command = RUNNER_CASES[shape].spell(split, _payload(shape, "rm -rf /"))
    assert danger.assess(parse_command(command)).level is Danger.HARDLINE, command


# --- where the word cannot move the command ---------------------------------------------------

AFTER_THE_COMMAND = [
    "timeout 5 ls $X",
    "sudo ls $X",
    "nice -n 5 cat $F",
    'timeout "$T" ls',
    "env A=1 ls $X",
    "watch -x ls $X",
    "chroot /r ls $X",
    "docker exec c ls $X",
    "bash -c 'ls' $X",
]


@pytest.mark.parametrize("command", AFTER_THE_COMMAND)
def test_a_split_word_after_the_command_word_moves_nothing(command: str) -> None:
    (cmd,) = parse_command(command).commands
    assert cmd.argv[0].literal, cmd
    assert danger.assess(parse_command(command)).level is Danger.NONE


# --- env and sudo: a NAME=value operand whose value expands is still an assignment ------------


@pytest.mark.parametrize("wrapper", ["env", "sudo", "env -i", "sudo -E"])
def test_an_assignment_with_a_quoted_expansion_is_peeled(wrapper: str) -> None:
    # ``env A="$X" rm -rf /`` deletes / whatever $X holds (it was an ask: 'A=$X' was taken for
    # the command word); unquoted, ``A=$X`` splits, and the readings keep the hardline.
    for value in ('"$X"', '"$(cat f)"', "$X", "$(cat f)"):
        command = f"{wrapper} A={value} rm -rf /"
        assert danger.assess(parse_command(command)).level is Danger.HARDLINE, command
        assert not classify_command(f"{wrapper} A={value} ls").read_only


# The cases of the report that found this class, each checked in bash by the lead.
FOUND = [
    ('S="KILL 5 rm -rf"; timeout -s $S 1 ls ~', Danger.HARDLINE),  # was none
    ('U="root rm -rf"; sudo -u $U ls ~', Danger.HARDLINE),  # was none
    ('X="-u root rm -rf"; sudo $X ~', Danger.HARDLINE),  # was none: -u was taken as the command
    ('X="rm -rf"; $X ~', Danger.HARDLINE),  # unchanged
    ("timeout -s $S 1 ls ~", Danger.ASK),  # was none
    ("sudo -u $U ls ~", Danger.ASK),  # was none
    ("timeout $T rm -rf ~", Danger.HARDLINE),  # unchanged: as one word, rm is the command
    ("$SUDO rm -rf /", Danger.HARDLINE),  # was an ask: as no word, rm -rf / runs
    ("chroot $R ls ~", Danger.ASK),  # was none
    ("bash -o $X -c ls", Danger.ASK),  # was none
    ("bash -o $X -c 'rm -rf /'", Danger.HARDLINE),
]


@pytest.mark.parametrize(("command", "level"), FOUND)
def test_the_found_cases(command: str, level: Danger) -> None:
    assert danger.assess(parse_command(command)).level is level, command


# ssh and docker run: the remote or container command after a word bash splits.
REMOTE = [
    ("ssh $H ls ~", Danger.ASK),  # H='h rm -rf ~' runs rm there
    ("ssh -p $P h ls ~", Danger.ASK),
    ("ssh -o $O h ls ~", Danger.ASK),
    ("ssh $H rm -rf /", Danger.HARDLINE),
    ('ssh "$H" ls ~', Danger.NONE),
    ("ssh h ls ~", Danger.NONE),
    ("docker run $IMG ls ~", Danger.ASK),
    ("docker run -e $E img ls ~", Danger.ASK),
    ("podman run --name $N img ls ~", Danger.ASK),
    ("docker run $IMG rm -rf /", Danger.HARDLINE),
    ('docker run "$IMG" ls ~', Danger.NONE),
    ("docker run img ls $X", Danger.NONE),
]


@pytest.mark.parametrize(("command", "level"), REMOTE)
def test_a_split_word_before_a_remote_or_container_command(command: str, level: Danger) -> None:
    assert danger.assess(parse_command(command)).level is level, command


REMOTE_PWD = [
    ("docker run -v $PWD:/src img make", Danger.NONE),  # the everyday bind mount
    ("docker run -v ${PWD}:/src img make", Danger.NONE),
    ("docker run -v $PWD/$X:/src img make", Danger.ASK),  # $X may hold the command
    ("docker run -v $PWDX:/src img make", Danger.ASK),  # another variable
]


@pytest.mark.parametrize(("command", "level"), REMOTE_PWD)
def test_a_bind_mount_of_the_working_directory_is_not_a_split(command: str, level: Danger) -> None:
    assert danger.assess(parse_command(command)).level is level, command
