"""Readers that tested option words by hand now read them with the one getopt engine.

Each table holds the spellings the real program takes (bash's builtins, the shells' ``-c``,
python's ``-m``) and what a judge must read from them; the hand readers these replace got the
rows marked "was wrong" wrong (``pushd +1`` rotated to an unknown directory was taken for
``./+1``; ``["bash", "-xc", SCRIPT]`` was not seen as the script).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tether.classify import classify_command
from tether.loops.kinds import shell_command
from tether.loops.settings import ToolKinds

# --- the loop guard: Codex's ["bash", "-lc", SCRIPT] in every spelling of the shell ------------

SCRIPTS = [
    (["bash", "-lc", "ls -la"], "ls -la"),
    (["bash", "-xc", "ls -la"], "ls -la"),  # was wrong: the whole argv, shell-quoted
    (["sh", "-ec", "ls -la"], "ls -la"),  # was wrong
    (["bash", "--norc", "-c", "ls -la"], "ls -la"),  # was wrong
    (["bash", "-o", "pipefail", "-c", "ls -la"], "ls -la"),  # was wrong
    (["/usr/bin/zsh", "-c", "ls -la"], "ls -la"),  # was wrong
    (["bash", "-c", "--", "ls -la"], "ls -la"),  # was wrong
    (["bash", "-c", "ls -la", "name"], "ls -la"),
    (["bash", "script.sh", "-c"], "bash script.sh -c"),  # a script, then its arguments
    (["bash", "-l", "script.sh"], "bash -l script.sh"),
    (["python3", "-c", "print(1)"], "python3 -c 'print(1)'"),
]


@pytest.mark.parametrize(("argv", "text"), SCRIPTS, ids=[" ".join(a) for a, _ in SCRIPTS])
def test_a_shell_argv_is_read_with_the_shells_grammar(argv: list[str], text: str) -> None:
    assert shell_command("exec_command", {"cmd": argv}, ToolKinds()) == text


RUN = [(a, t) for a, t in SCRIPTS[:8] if a[0] in ("bash", "sh")]  # the shells installed here


@pytest.mark.parametrize(("argv", "text"), RUN, ids=[" ".join(a) for a, _ in RUN])
def test_the_shell_runs_the_script_we_read(argv: list[str], text: str, tmp_path: Path) -> None:
    probe = [("touch ran" if a == text else a) for a in argv]
    subprocess.run(probe, cwd=tmp_path, timeout=20, check=False, capture_output=True)
    assert (tmp_path / "ran").exists(), probe


# --- the directory later commands run in: cd's and pushd's own options -----------------------

CWD = [
    ("cd -P /etc && rm -rf *", "DG101"),
    ("cd -LP /etc && rm -rf *", "DG101"),
    ("cd -- /etc && rm -rf *", "DG101"),
    ("cd -e -@ /etc && rm -rf *", "DG101"),
    ("cd ~ && rm -rf *", "DG101"),
    ("cd && rm -rf *", "DG101"),
    ("pushd /etc && rm -rf *", "DG101"),
    ("pushd +1 && rm -rf *", "DG102"),  # was wrong (none): the stack rotates somewhere unknown
    ("pushd -1 && rm -rf *", "DG102"),
    ("pushd -n /etc && rm -rf *", "DG102"),  # was wrong (DG101): -n only adds /etc to the stack
    ("cd -- -x && rm -rf *", None),  # was wrong (DG101): enters ./-x, not home
    ("cd build && rm -rf *", None),
]


@pytest.mark.parametrize(("command", "code"), CWD, ids=[c for c, _ in CWD])
def test_cd_and_pushd_are_read_with_their_grammar(command: str, code: str | None) -> None:
    codes = classify_command(command).danger_codes
    if code is None:
        assert not {"DG101", "DG102", "DG307"} & set(codes), codes
    else:
        assert code in codes, codes


# --- PowerShell: its own options (-Command takes the rest), then Remove-Item's parameters ------

POWERSHELL = [
    ('pwsh -Command "Remove-Item -Recurse -Force /home/me/proj"', True),  # was wrong (missed)
    ('powershell -NoProfile -Command "rm -r -fo C:\\Users\\me"', True),  # was wrong (missed)
    ("pwsh -nop -c 'Get-ChildItem x | Remove-Item -Rec'", True),  # was wrong (missed)
    ("pwsh -c Remove-Item -Recurse -Force build", True),
    ("pwsh -c ri -r build", True),
    ("powershell Remove-Item build -Recurse", True),
    ("pwsh -c 'Remove-Item -Recurse:$false build'", False),  # was wrong (flagged)
    ("pwsh -c Get-ChildItem -Recurse", False),
    ("pwsh -c 'Remove-Item build; Get-ChildItem -Recurse'", False),
]


@pytest.mark.parametrize(("command", "flagged"), POWERSHELL, ids=[c for c, _ in POWERSHELL])
def test_powershell_remove_item_recurse(command: str, flagged: bool) -> None:
    for wrapped in (command, f"sudo {command}", f"timeout 5 {command}"):
        assert ("DG107" in classify_command(wrapped).danger_codes) is flagged, wrapped


def test_powershell_command_ends_its_options() -> None:
    # -Recurse after -Command is the cmdlet's, never PowerShell's -e (EncodedCommand) cluster.
    assert "DG303" not in classify_command("pwsh -c Get-ChildItem -Recurse").danger_codes
    assert "DG303" in classify_command("pwsh -NoProfile -enc ZQBjAGgAbwA=").danger_codes


# --- issue 13's readings: bun's global options, sqlite3's two-word options -----------------------

READINGS = [
    ("bun --cwd pkg publish", "DG505"),  # was wrong (missed): --cwd's value taken for the verb
    ("bun --cwd=pkg publish", "DG505"),
    ("sudo bun --cwd pkg publish", "DG505"),
    ("bun publish", "DG505"),
    ("bun publish --dry-run", None),
    ("bun --cwd pkg publish --dry-run", None),
    # was wrong (no DG605): the second word of -lookaside was taken for the database
    ("sqlite3 -lookaside 64 8 ~/.local/state/tether/state.db 'DELETE FROM sessions'", "DG605"),
    ("sqlite3 --pagecache 64 8 ~/.local/state/tether/state.db 'DELETE FROM sessions'", "DG605"),
    ("sqlite3 -lookaside 64 8 notes.db 'DELETE FROM t'", None),
]


@pytest.mark.parametrize(("command", "code"), READINGS, ids=[c for c, _ in READINGS])
def test_global_and_two_word_options(command: str, code: str | None) -> None:
    for wrapped in (command, f"timeout 5 {command}", f"env A=1 {command}"):
        codes = classify_command(wrapped).danger_codes
        assert (code in codes) if code else not {"DG505", "DG605"} & set(codes), (wrapped, codes)


def test_the_real_sqlite3_takes_two_words_for_lookaside(tmp_path: Path) -> None:
    import shutil

    if shutil.which("sqlite3") is None:
        pytest.fail("sqlite3 is not installed (.ci/run installs it)")
    subprocess.run(["sqlite3", "-lookaside", "64", "8", "db.sqlite", "create table t(x)"],
                   cwd=tmp_path, capture_output=True, timeout=20, check=False)  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db.sqlite"]


# --- git --config-env: a setting whose value comes from a variable set beside it --------------

CONFIG_ENV = [
    ("FOO='!{c}' git --config-env=alias.st=FOO st", True),  # was wrong (missed)
    ("FOO='!{c}' git --config-env alias.st=FOO st", True),  # was wrong (missed)
    ("env FOO='!{c}' git --config-env=alias.st=FOO st", True),  # was wrong (missed)
    ("FOO='!{c}' git --config-env=alias.st=FOO log", False),  # the alias is not the verb
    ("FOO='!{c}' git --config-env=alias.st=BAR st", False),  # another variable (unset)
]


@pytest.mark.parametrize(("template", "runs"), CONFIG_ENV, ids=[t for t, _ in CONFIG_ENV])
def test_git_config_env_alias(template: str, runs: bool, tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, capture_output=True)
    probe = template.format(c="touch ran")
    subprocess.run(
        ["bash", "-c", probe], cwd=tmp_path, capture_output=True, timeout=20, check=False
    )
    assert (tmp_path / "ran").exists() is runs, probe  # what the real git 2.39 does
    judged = template.format(c="rm -rf /")
    assert ("DG101" in classify_command(judged).danger_codes) is runs, judged
