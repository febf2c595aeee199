"""Test operands that bash evaluates as arithmetic: proven read-only only when they are numbers.

`[[ A -eq B ]]` evaluates A and B as arithmetic expressions, and `-v NAME` evaluates a
subscript in NAME. A variable whose value is `a[$(cmd)]` then runs cmd, so `[[ X -eq 0 ]]` is
a write whenever X was set to such a value earlier (an `export` in a shell that persists
between tool calls, a sourced `.envrc`). Every case here runs in real bash with each variable
it names poisoned that way: a read-only verdict must leave nothing behind, and each refused
form must really run the poisoned command (otherwise it is not evidence).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.rules import readonly
from tether.shell import parse_command

BASH = shutil.which("bash")
# Each variable a case may name holds an array reference whose subscript creates a file.
NAMES = ("X", "n", "i", "NAME")


def _poisoned_run(command: str, where: Path) -> list[str]:
    """Run ``command`` in bash inside ``where`` with every name poisoned; return new files."""
    assert BASH is not None, "bash is needed (Debian package bash)"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(where)}
    # No space in the value: an unquoted $NAME must not split before it is evaluated.
    env.update({name: f"a[$(>ran_{name})]" for name in NAMES})
    before = set(os.listdir(where))
    subprocess.run(
        [BASH, "-c", f"a=(1 2); {command}"],
        cwd=where,
        env=env,
        capture_output=True,
        timeout=10,
        check=False,
    )
    return sorted(set(os.listdir(where)) - before)


def _read_only(command: str) -> bool:
    return readonly.assess(parse_command(command)).read_only


RUNS = [
    "[[ X -eq 0 ]]",
    "[[ $n -gt 1 ]]",
    '[[ "$n" -le 1 ]]',
    "[[ 1 -eq 1 && 2 -ne $n ]]",
    "[[ ${#a[i]} -gt 0 ]]",
    "[[ -v a[i] ]]",
    '[ -v "$NAME" ]',
    "test -v $NAME",
    "[[ -v $X ]]",
    "if [[ $X -ne 0 ]]; then echo big; fi",
    "[[ ${a[i]} == 1 ]]",
    '[ "${a[n]}" = 1 ]',
    "[[ ${X@P} ]]",
]
SAFE = [
    "[[ $? -eq 0 ]]",
    "[[ 1 -lt 2 ]]",
    "[[ -v HOME ]]",
    '[ "$n" -eq 1 ]',
    "test $X -gt 1",
    '[[ "$#" -gt 1 && ${#a[@]} -lt 2 ]]',
    "[[ $n == 0 ]]",
    "[[ -n $X ]]",
]


@pytest.mark.parametrize("command", RUNS)
def test_an_evaluated_operand_runs_the_poisoned_command_and_is_refused(
    command: str, tmp_path: Path
) -> None:
    assert _poisoned_run(command, tmp_path), f"{command!r} no longer runs anything: not evidence"
    verdict = readonly.assess(parse_command(command))
    assert not verdict.read_only and "RW027" in verdict.codes, verdict


@pytest.mark.parametrize("command", SAFE)
def test_a_number_operand_stays_read_only_and_runs_nothing(command: str, tmp_path: Path) -> None:
    assert _read_only(command), command
    assert _poisoned_run(command, tmp_path) == []


_NUMBERS = ("0", "-3", "42", "$?", '"$#"', "$$", "${#a[@]}")
_EVALUATED = ("X", "$n", '"$i"', "${#a[i]}", "a[i]", "${a[i]}", '"${a[n]}"', "${X@P}", "${n:-1}")
_OPERANDS = st.sampled_from((*_NUMBERS, *_EVALUATED))
_TESTS = st.one_of(
    st.tuples(
        _OPERANDS,
        st.sampled_from(["-eq", "-ne", "-lt", "-le", "-gt", "-ge", "==", "!="]),
        _OPERANDS,
    ).map(lambda t: f"[[ {t[0]} {t[1]} {t[2]} ]]"),
    _OPERANDS.map(lambda o: f"[[ -v {o} ]]"),
    _OPERANDS.map(lambda o: f'[ -v "{o}" ]'),
    st.tuples(_OPERANDS, _OPERANDS).map(lambda t: f"[[ {t[0]} -eq 1 && 2 -lt {t[1]} ]]"),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command=_TESTS)
def test_generated_test_proven_read_only_runs_nothing(command: str, tmp_path: Path) -> None:
    if _read_only(command):
        where = tmp_path / str(abs(hash(command)))
        where.mkdir(exist_ok=True)
        assert _poisoned_run(command, where) == [], command
