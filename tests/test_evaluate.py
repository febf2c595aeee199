"""The evaluator: what bash runs after it evaluates the line is what every judge reads.

Each row of ``DISGUISES`` is a form bash runs destructively (the target is a system path or a
disk), with the verdict main gave it at 7d64a62 (before the evaluator) and the verdict now;
classes as in issue 23 (1 parse errors, 2 expansions, 3 filesystem state made earlier in the
line, 4 operands fed by loops and pipes, 7 device names from variables or substitutions).
"""

from __future__ import annotations

import pytest

from tether.classify import classify_command
from tether.rules.base import Danger
from tether.shell import evaluate, parse_command
from tether.shell.parse import MAX_PIPES, _get_parser
from tether.shell.pipes import pipe_operators

# (class, command, verdict on main at 7d64a62, verdict now, the code that decides it)
DISGUISES = [
    (1, "{sh,-c,'rm -rf /'}", "none", "hardline", "DG101"),
    (1, "{rm,-rf,/usr}", "none", "hardline", "DG101"),
    (1, '{sh,-c,"rm -rf /usr"}', "none", "hardline", "DG101"),
    (2, 'd=/usr; rm -rf "$d"', "ask", "hardline", "DG101"),
    (2, 'a=(rm -rf /usr); "${a[@]}"', "ask", "hardline", "DG101"),
    (2, "IFS=,; x=rm,-rf,/usr; $x", "none", "hardline", "DG101"),
    (2, 'x=/usr/bin; rm -rf "${x%/*}"', "ask", "hardline", "DG101"),
    (2, 'rm -rf "${UNSET_TETHER_X:-/}"', "ask", "hardline", "DG101"),
    (2, 'x=/usr/bin; rm -rf "${x/bin/}"', "ask", "hardline", "DG101"),
    (2, 'x=a/usr; rm -rf "/${x##*/}"', "ask", "hardline", "DG101"),
    (2, 'set -- /usr; rm -rf "$1"', "ask", "hardline", "DG101"),
    (2, "sh -c 'rm -rf \"$1\"' _ /usr", "ask", "hardline", "DG101"),
    (2, "bash -c 'rm -rf \"$0\"' /usr", "ask", "hardline", "DG101"),
    (2, 'printf -v d /usr; rm -rf "$d"', "ask", "hardline", "DG101"),
    (2, 'read d <<< /usr; rm -rf "$d"', "ask", "hardline", "DG101"),
    (2, 'declare d=/usr; rm -rf "$d"', "ask", "hardline", "DG101"),
    (2, 'export d=/usr; rm -rf "$d"', "ask", "hardline", "DG101"),
    (2, 'f() { local d=/usr; rm -rf "$d"; }; f', "ask", "hardline", "DG101"),
    (2, 'f() { rm -rf "$1"; }; f /usr', "ask", "hardline", "DG101"),
    (2, "x='rm -rf /usr'; eval \"$x\"", "ask", "hardline", "DG101"),
    (2, 'a=(/usr /tmp); rm -rf "${a[$((1-1))]}"', "ask", "hardline", "DG101"),
    (2, 'x=USR; rm -rf "/${x,,}"', "ask", "hardline", "DG101"),
    (2, "{rm,-rf,/}", "none", "hardline", "DG101"),
    (2, 'd=$(dirname /usr/bin); rm -rf "$d"', "ask", "hardline", "DG101"),
    (3, "ln -s /usr e; rm -rf e/", "none", "hardline", "DG101"),
    (3, "ln -s / r; rm -rf r/usr", "none", "hardline", "DG101"),
    (3, "cd ~; cd ..; rm -rf *", "ask", "hardline", "DG101"),
    (3, "rm -rf /proc/self/root/usr", "ask", "hardline", "DG101"),
    (3, "rm -rf /proc/1/root/usr", "ask", "hardline", "DG101"),
    (4, 'for x in /*; do rm -rf "$x"; done', "ask", "hardline", "DG101"),
    (4, 'for x in /usr /etc; do rm -rf "$x"; done', "ask", "hardline", "DG101"),
    (4, "xargs rm -rf <<< /usr", "ask", "hardline", "DG101"),
    (4, "echo /usr > l; xargs -a l rm -rf", "ask", "hardline", "DG101"),
    (4, "echo /usr > l; xargs rm -rf < l", "ask", "hardline", "DG101"),
    (4, "printf /usr | xargs -I{} sh -c 'rm -rf {}'", "ask", "hardline", "DG101"),
    (7, "d=sda; dd if=/dev/zero of=/dev/$d", "none", "hardline", "DG401"),
    (7, "dd if=/dev/zero of=/dev/$(lsblk -dno NAME | head -1)", "none", "ask", "DG420"),
    (7, "dd if=/dev/zero of=$DISK", "none", "ask", "DG420"),
    (7, "d=sda; cat /dev/zero > /dev/$d", "none", "hardline", "DG401"),
    (7, 'd=/dev/sda; wipefs -a "$d"', "ask", "hardline", "DG401"),
    (7, "cat /dev/zero > /dev/$DEV", "none", "ask", "DG420"),
]


@pytest.mark.parametrize(("klass", "command", "before", "now", "code"), DISGUISES)
def test_disguises_are_judged_as_bash_runs_them(
    klass: int, command: str, before: str, now: str, code: str
) -> None:
    verdict = classify_command(command)
    assert verdict.danger.label == now, (command, verdict.danger_codes)
    assert code in verdict.danger_codes
    assert Danger[now.upper()] > Danger[before.upper()]  # each row was weaker on main


def test_every_class_has_rows() -> None:
    assert {row[0] for row in DISGUISES} == {1, 2, 3, 4, 7}


# Evaluation must not make harmless commands dangerous: the values say where they point.
HARMLESS = [
    'for f in *.txt; do cat "$f"; done',
    "cd /tmp && rm -rf x",
    "ln -s /usr/bin/python3 py && ./py -V",
    'set -- a b; echo "$@"',
    "{ ls; }",
    "ls {a,b}",
    "cat > notes.md <<'EOF'\n| a | b |\n|---|---|\nEOF",
    "d=sdb1; ls /dev/$d",
]


@pytest.mark.parametrize("command", HARMLESS)
def test_harmless_values_stay_harmless(command: str) -> None:
    assert classify_command(command).danger is Danger.NONE


# A destructive program on a value the line says is harmless: still the ask main gave it (the
# original's operand is only known at run time to the judges that read the text), never more.
HARMLESS_VALUES = [
    'd=build; rm -rf "$d"',
    'rm -rf "${OUT:-build}"',
    'x=/tmp/a/b; rm -rf "${x%/*}"',
    "echo /tmp/x | xargs rm -rf",
    'f() { rm -rf "$1"; }; f build',
]


@pytest.mark.parametrize("command", HARMLESS_VALUES)
def test_harmless_values_are_not_hardline(command: str) -> None:
    verdict = classify_command(command)
    assert verdict.danger is Danger.ASK and verdict.danger_codes == ("DG102",), verdict


READINGS = [
    ('d=/usr; rm -rf "$d"', "rm -rf /usr"),
    ("a=(x y); printf '%s\\n' \"${a[@]}\"", "printf '%s\\n' x y"),
    ("IFS=,; x=a,b; ls $x", "ls a b"),
    ("echo {1..3}", "echo 1 2 3"),
    ("x=/a/b/c; ls ${x##*/} ${x%/*} ${x/b/z} ${#x}", "ls c /a/b /a/z/c 6"),
    ("ls $((2*3+1))", "ls 7"),
    ("cd ~; cd ..; ls", "cd ~'/..'"),
    ("ls $X", None),  # nothing the line says: no reading
]


@pytest.mark.parametrize(("command", "expected"), READINGS)
def test_readings(command: str, expected: str | None) -> None:
    src = command.encode()
    root = _get_parser().parse(src).root_node
    got = evaluate.reading(root, src, strict=True)
    if expected is None:
        assert got is None
    else:
        assert got is not None and expected in got.text, got


@pytest.mark.parametrize(
    ("command", "resolved"),
    [
        ("cmd=ls; $cmd -la", True),
        ("$(echo ls) -la", True),
        ("rm${IFS}-rf${IFS}/tmp/x", True),
        ("if true; then x=ls; fi; $x -la", False),  # x may be the environment's
        ("true && x=ls; $x -la", False),
        ("$CMD -la", False),
    ],
)
def test_a_command_word_the_line_says_is_resolved(command: str, resolved: bool) -> None:
    model = parse_command(command)
    original = next(c for c in model.commands if c.argv and not c.argv[0].literal)
    assert original.resolved is resolved
    assert ("DG306" in classify_command(command).danger_codes) is not resolved


def test_evaluated_commands_are_marked() -> None:
    model = parse_command('d=/usr; rm -rf "$d"')
    evaluated = [c for c in model.commands if c.evaluated]
    assert [w.value for w in evaluated[0].argv] == ["rm", "-rf", "/usr"]
    assert all(not c.evaluated for c in model.commands[:2])


def test_markers_in_the_input_are_not_evaluated() -> None:
    src = 'd=/usr; rm -rf "$d\ue002"'.encode()
    assert evaluate.reading(_get_parser().parse(src).root_node, src) is None


@pytest.mark.parametrize(
    "command",
    [
        "x=a; " + "x=$x$x; " * 40 + "ls $x",  # doubling past the value cap
        "echo " + "{a,b}" * 20,  # 2**20 words
        "f() { f; }; f",  # recursion
        "eval " * 50 + "ls",
        "echo " + "${x:-" * 300 + "y" + "}" * 300,
    ],
)
def test_caps_bound_the_work(command: str) -> None:
    src = command.encode()
    evaluate.reading(_get_parser().parse(src).root_node, src, strict=True)  # returns, bounded


# --- the pipe cap counts operators, not text ----------------------------------------------


def test_a_long_markdown_note_in_a_heredoc_passes_the_pipe_cap() -> None:
    table = "| a | b | c |\n|---|---|---|\n" + "| x | y | z |\n" * 7500
    command = "cat > notes.md <<'EOF'\n" + table + "EOF"
    assert len(command) > 100_000 and command.count("|") > 20 * MAX_PIPES
    model = parse_command(command)
    assert model.unprovable is None, model.unprovable
    assert classify_command(command).danger is Danger.NONE


@pytest.mark.parametrize(
    ("text", "pipes"),
    [
        ("a | b || c |& d", 2),
        ("echo 'a|b' \"c|d\" # e|f", 0),
        ('echo "$(a | b)"', 1),
        ("cat <<E\n$(a|b)\nplain|x\nE\nx|y", 2),
        ("cat <<'E'\n$(a|b)\nE\n", 0),
        ("true" + " | true" * 600, 600),
    ],
)
def test_pipe_operators(text: str, pipes: int) -> None:
    assert pipe_operators(text) == pipes


def test_a_real_long_pipeline_still_hits_the_cap() -> None:
    assert parse_command("true" + " | true" * (MAX_PIPES + 1)).unprovable is not None
