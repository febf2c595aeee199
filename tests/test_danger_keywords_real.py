"""Shell spellings that run a command the parser did not see, run in the real shells.

tree-sitter-bash knows none of `coproc` (bash 4+), zsh's `repeat N`, its precommand modifiers
`noglob`, `nocorrect` and `-`, or zsh's `=NAME` expansion (a word that starts with an
unquoted `=` becomes the path of the command NAME), so `coproc rm -rf /` and `=rm -rf /` were
judged danger none; so were a trap's action, a `mapfile -C` callback, an alias's value, a
script a shell or `source` reads from its own stdin (`bash /dev/stdin <<< …`), and a `$(…)` in
an array subscript bash evaluates even when quoted (`test -v 'a[$(…)]'`, `read 'a[$(…)]'`).
Hosts run agent commands in the user's shell, which is zsh on macOS.
Each form here first deletes a scratch directory in the real shell (so it is evidence), then
the same form around `rm -rf /` must be hardline.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.rules import danger
from tether.rules.base import Danger
from tether.shell import parse_command

# (shell, form): "{cmd}" is replaced by the command the form runs.
FORMS = [
    ("bash", "coproc {cmd}"),
    ("bash", "coproc X {{ {cmd}; }}"),
    ("bash", "coproc {{ {cmd}; }}"),
    ("bash", "sudo -n true 2>/dev/null; coproc {cmd}"),
    ("zsh", "coproc {cmd}"),
    ("zsh", "repeat 1 {cmd}"),
    ("zsh", "repeat 1 {{ {cmd}; }}"),
    ("zsh", "noglob {cmd}"),
    ("zsh", "nocorrect {cmd}"),
    ("zsh", "true; - {cmd}"),  # (a -c script that starts with - is read as options)
    ("zsh", "nocorrect noglob {cmd}"),  # nocorrect only counts first
    ("zsh", "={cmd}"),
    ("zsh", "timeout 5 ={cmd}"),
    # Builtins that keep a command and run it later (tether.shell.payloads._builtins).
    ("bash", "trap '{cmd}' EXIT"),
    ("zsh", "trap -- '{cmd}' EXIT"),
    ("bash", "echo line > lines; mapfile -C '{cmd}' -c 1 arr < lines"),
    ("bash", "readarray -t -C '{cmd}' -c 1 arr <<< line"),
    ("bash", "shopt -s expand_aliases\nalias x='{cmd}'\nx"),
    # A script read from the shell's own stdin (STDIN_SCRIPTS).
    ("bash", 'source /dev/stdin <<< "{cmd}"'),
    ("bash", '. /dev/fd/0 <<< "{cmd}"'),
    ("zsh", 'source /dev/stdin <<< "{cmd}"'),
    ("bash", 'bash /dev/stdin <<< "{cmd}"'),
    ("bash", "sh /proc/self/fd/0 <<EOF\n{cmd}\nEOF"),
    ("bash", 'echo "{cmd}" | source /dev/stdin'),
    ("bash", "cat <<EOF | sh /dev/fd/0\n{cmd}\nEOF"),
    # An array subscript is evaluated, quoted or not, wherever bash reads a variable name or
    # an arithmetic expression (the parser walks each as a substitution).
    ("bash", "test -v 'a[$({cmd})]'"),
    ("bash", "[[ 'a[$({cmd})]' -eq 0 ]]"),
    ("bash", "printf -v 'a[$({cmd})]' %s x"),
    ("bash", "read 'a[$({cmd})]' <<< x"),
    ("bash", "declare 'a[$({cmd})]=1'"),
    ("bash", "f() {{ local 'a[$({cmd})]=1'; }}; f"),
    ("bash", "a=(1); unset 'a[$({cmd})]'"),
    ("bash", "let 'a[$({cmd})]=1'"),
    ("bash", "a[$({cmd})]=1"),
    ("bash", "echo $(( 'a[$({cmd})]' ))"),
    ("bash", "(( 'a[$({cmd})]' ))"),
    # A variable holding such a subscript runs it wherever its value is evaluated.
    ("bash", "X='a[$({cmd})]'; [[ X -eq 0 ]]"),
    ("bash", "X='a[$({cmd})]'; echo $((X))"),
    ("bash", "X='a[$({cmd})]'; echo ${{!X}}"),
    ("bash", "declare -n r='a[$({cmd})]'; echo $r"),
]


def _shell(name: str) -> str:
    found = shutil.which(name)
    assert found is not None, f"{name} is needed (Debian package {name}; .ci/run installs it)"
    return found


def _run(shell: str, script: str, where: Path, path: str | None = None) -> None:
    env = {"PATH": path or os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(where)}
    subprocess.run(
        [_shell(shell), "-c", f"{script}; wait"],
        cwd=where,
        env=env,
        capture_output=True,
        timeout=20,
        check=False,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(("shell", "form"), FORMS)
def test_the_form_runs_its_command_and_is_hardline_around_rm_rf_root(
    shell: str, form: str, tmp_path: Path
) -> None:
    victim = tmp_path / "victim"
    (victim / "sub").mkdir(parents=True)
    _run(shell, form.format(cmd="rm -r victim"), tmp_path)
    assert not victim.exists(), f"{shell} -c {form!r} did not run rm: not evidence"
    verdict = danger.assess(parse_command(form.format(cmd="rm -rf /")))
    assert verdict.level is Danger.HARDLINE and "DG101" in verdict.codes, verdict


def test_zsh_equals_word_names_a_command_path_a_write_lands_on(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "tool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    path = f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}"
    _run("zsh", "echo replaced > =tool", tmp_path, path)
    assert tool.read_text() == "replaced\n", "zsh no longer expands =tool: not evidence"
    for command in ("echo x > =ls", "cp payload =ls", "tee =sudo < payload"):
        verdict = danger.assess(parse_command(command))
        assert verdict.level >= Danger.ASK and "DG409" in verdict.codes, (command, verdict)
