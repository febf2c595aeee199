"""``tether config`` end to end: refused edits leave files byte-identical, comments survive,
``check`` reports every mistake with its line, concurrent edits all land.

The CLI runs as a real subprocess with HOME and the XDG directories inside tmp_path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tether.config import load_config
from tether.config.edit import set_key, unset_key
from tether.config.paths import own_files
from tether.errors import ConfigError

USER_TEXT = """\
# My Tether settings. Keep this header.
loops:
  # Loops only warn unless this is on.
  hard_stop: false   # flip when trusted
  warn_after:
    exact_failure: 3

store:
  backend: sqlite    # hooks share one file
"""


@dataclass
class Env:
    home: Path
    repo: Path
    user_file: Path
    vars: dict[str, str]

    def tether(self, *args: str, cwd: Path | None = None, **extra: str) -> Result:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
        env.update(self.vars, **extra)
        done = subprocess.run(
            [sys.executable, "-m", "tether", *args],
            cwd=cwd or self.repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        return Result(done.returncode, done.stdout, done.stderr)


@dataclass
class Result:
    rc: int
    out: str
    err: str


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    for name in list(os.environ):
        if name.startswith("TETHER_"):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    variables = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(repo)
    user = home / "config" / "tether" / "config.yaml"
    user.parent.mkdir(parents=True)
    user.write_text(USER_TEXT, encoding="utf-8")
    return Env(home, repo, user, variables)


# --- the acceptance examples --------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (
            "loops.hardstop",
            "true",
            "unknown key 'loops.hardstop' (did you mean 'loops.hard_stop'?)",
        ),
        (
            "loops.warn_after.exact_failure",
            "two",
            "loops.warn_after.exact_failure: expected an integer from 1 to 1000000, got 'two'",
        ),
        ("loops.hard_stop", "maybe", "expected true, false, yes or no, got 'maybe'"),
        ("loops.warn_after", "3", "is a group of settings, not one setting"),
        ("approvals.mode", "smart", "expected one of 'manual', 'off'"),
        (
            "tools.shell.Bash",
            "",
            "tools.shell.Bash: 'Bash' is a built-in shell tool and cannot be removed",
        ),
        ("tools.shell.Bash", "cmd", "'Bash' is a built-in shell tool and cannot be remapped"),
        ("tools.shell.my_sh", "script", None),  # valid: adds a shell tool (checked below)
    ],
)
def test_refused_set_names_the_fix_and_leaves_the_file_byte_identical(
    env: Env, key: str, value: str, message: str | None
) -> None:
    before = env.user_file.read_bytes()
    result = env.tether("config", "set", key, value)
    if message is None:
        assert result.rc == 0, result.err
        assert load_config(environ=env.vars).get("tools.shell.my_sh") == "script"
        return
    assert result.rc == 2
    assert message in result.err
    assert f"nothing was written to {env.user_file}" in result.err
    assert env.user_file.read_bytes() == before


def test_valid_set_keeps_comments_order_and_formatting(env: Env) -> None:
    result = env.tether("config", "set", "loops.hard_stop", "yes")
    assert result.rc == 0, result.err
    assert result.out == f"set loops.hard_stop = true in {env.user_file}\n"
    assert env.user_file.read_text() == USER_TEXT.replace(
        "hard_stop: false   # flip", "hard_stop: true    # flip"
    )
    assert env.tether("config", "get", "loops.hard_stop").out == "true\n"


def test_set_adds_new_sections_and_keys_after_the_existing_ones(env: Env) -> None:
    assert env.tether("config", "set", "approvals.deny", "git push*,rm -rf *").rc == 0
    assert env.tether("config", "set", "loops.warn_after.cycle", "3").rc == 0
    # The new key goes before the blank line that separates the sections; the new section
    # goes at the end.
    assert env.user_file.read_text() == USER_TEXT.replace(
        "exact_failure: 3\n", "exact_failure: 3\n    cycle: 3\n"
    ) + ("approvals:\n  deny:\n    - git push*\n    - rm -rf *\n")
    config = load_config(environ=env.vars)
    assert config.get("approvals.deny") == ["git push*", "rm -rf *"]


def test_check_reports_two_mistakes_with_their_lines(env: Env) -> None:
    env.user_file.write_text(
        "# two mistakes below\nloops:\n  hardstop: true\n  warn_after:\n    exact_failure: two\n",
        encoding="utf-8",
    )
    result = env.tether("config", "check")
    assert result.rc == 1
    assert result.err.splitlines() == [
        f"{env.user_file}:3: unknown key 'loops.hardstop' (did you mean 'loops.hard_stop'?); "
        "'tether config list' shows every key",
        f"{env.user_file}:5: loops.warn_after.exact_failure: expected an integer from 1 to "
        "1000000, got 'two' (a string)",
        "2 problems found",
    ]
    as_json = json.loads(env.tether("config", "check", "--json").out)
    assert [(p["line"], p["key"]) for p in as_json["problems"]] == [
        (3, ""),
        (5, "loops.warn_after.exact_failure"),
    ]
    # Every command that loads the config refuses it, naming the same mistakes.
    got = env.tether("config", "get", "loops.window")
    assert got.rc == 2 and f"{env.user_file}:3:" in got.err and f"{env.user_file}:5:" in got.err


def test_check_a_named_file_and_a_clean_setup(env: Env, tmp_path: Path) -> None:
    assert env.tether("config", "check").out == f"ok: user {env.user_file}\n"
    other = tmp_path / "other.yaml"
    other.write_text("store:\n  backend: redis\n  ttl_days: -1\n", encoding="utf-8")
    result = env.tether("config", "check", str(other))
    assert result.rc == 1
    assert f"{other}:3: store.ttl_days: expected an integer from 0 to 3650, got -1" in result.err


def test_set_with_an_invalid_file_refuses_and_lists_its_mistakes(env: Env) -> None:
    env.user_file.write_text("loops:\n  windw: 3\n", encoding="utf-8")
    before = env.user_file.read_bytes()
    result = env.tether("config", "set", "loops.window", "5")
    assert result.rc == 2
    assert "unknown key 'loops.windw' (did you mean 'loops.window'?)" in result.err
    assert env.user_file.read_bytes() == before
    # unset removes the mistake (unknown keys can be removed, never written)
    assert env.tether("config", "unset", "loops.windw").rc == 0
    assert env.user_file.read_text() == "{}\n"


def test_unset_removes_the_key_and_empty_groups(env: Env) -> None:
    result = env.tether("config", "unset", "loops.warn_after.exact_failure")
    assert result.rc == 0 and result.out.startswith("removed loops.warn_after.exact_failure")
    text = env.user_file.read_text()
    assert "warn_after" not in text and "# flip when trusted" in text
    again = env.tether("config", "unset", "loops.warn_after.exact_failure")
    assert again.rc == 0 and "is not set in" in again.out
    wrong = env.tether("config", "unset", "loops.hardstop")
    assert wrong.rc == 2 and "did you mean 'loops.hard_stop'" in wrong.err


def test_set_refuses_a_value_the_merged_config_would_reject(env: Env) -> None:
    before = env.user_file.read_bytes()
    result = env.tether("config", "set", "loops.warn_after.cycle", "5")
    assert result.rc == 2
    assert (
        "loops.hard_stop_after.cycle: expected at least loops.warn_after.cycle (5, from "
        f"user:{env.user_file}), got 4 (from default)" in result.err
    )
    assert env.user_file.read_bytes() == before
    # Raising the hard stop first makes room; a value a higher layer hides breaks nothing.
    assert env.tether("config", "set", "loops.hard_stop_after.cycle", "9").rc == 0
    assert env.tether("config", "set", "loops.warn_after.cycle", "5").rc == 0
    (env.repo / ".tether.yaml").write_text("loops:\n  hard_stop_after:\n    cycle: 6\n")
    assert env.tether("config", "set", "loops.hard_stop_after.cycle", "2").rc == 0


# --- which file set writes ------------------------------------------------------------------


def test_path_and_write_targets(env: Env, tmp_path: Path) -> None:
    out = env.tether("config", "path").out
    assert f"user:          {env.user_file}  (read)" in out
    assert f"set writes:    {env.user_file}" in out
    assert f"trust:         {own_files(env.vars).trust_file}" in out
    result = env.tether("config", "set", "--project", "loops.window", "9")
    assert result.rc == 0
    project = env.repo / ".tether.yaml"
    assert project.read_text() == "loops:\n  window: 9\n"
    # A shorter memory loosens: written, but ignored until the user trusts the file.
    assert f"note: loops.window is ignored: {project} is not trusted" in result.err
    assert f"run `tether trust {project}`" in result.err
    fleet = tmp_path / "fleet.yaml"
    assert env.tether("config", "set", "store.backend", "redis", TETHER_CONFIG=str(fleet)).rc == 0
    assert fleet.read_text() == "store:\n  backend: redis\n"
    assert "backend: sqlite" in env.user_file.read_text()
    data = json.loads(env.tether("config", "path", "--json", TETHER_CONFIG=str(fleet)).out)
    assert data["writes"] == str(fleet)
    assert [(f["layer"], f["read"]) for f in data["files"]] == [
        ("user", False),
        ("project", True),
        ("TETHER_CONFIG", True),
    ]


def test_set_notes_when_a_higher_layer_hides_the_value(env: Env) -> None:
    (env.repo / ".tether.yaml").write_text("loops:\n  window: 9\n", encoding="utf-8")
    result = env.tether("config", "set", "loops.window", "5")
    assert result.rc == 0
    assert f"note: loops.window is overridden by project:{env.repo / '.tether.yaml'}" in result.err


def test_set_writes_through_a_symlink(env: Env, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "tether.yaml"
    real.parent.mkdir()
    real.write_text(USER_TEXT, encoding="utf-8")
    env.user_file.unlink()
    env.user_file.symlink_to(real)
    result = env.tether("config", "set", "loops.window", "7")
    assert (result.rc, result.err) == (0, "")  # no "overridden by" note for its own file
    assert env.user_file.is_symlink()
    assert "window: 7" in real.read_text()


def test_set_keeps_the_file_mode(env: Env) -> None:
    env.user_file.chmod(0o600)
    set_key(env.user_file, "loops.window", "8")
    assert env.user_file.stat().st_mode & 0o777 == 0o600


# --- list and get ---------------------------------------------------------------------------


def test_list_shows_values_and_their_layers(env: Env) -> None:
    result = env.tether("config", "list", "loops", "--set", "loops.window=3")
    lines = {line.split()[0]: line for line in result.out.splitlines()}
    assert lines["loops.hard_stop"].split()[1:] == ["false", f"(user:{env.user_file})"]
    assert lines["loops.window"].split()[1:] == ["3", "(--set)"]
    assert lines["loops.warnings"].split()[1:] == ["true", "(default)"]
    data = json.loads(env.tether("config", "list", "--json").out)
    assert data["tools.shell"]["value"]["exec_command"] == "cmd"
    assert data["loops.warn_after.exact_failure"] == {
        "value": 3,
        "origin": f"user:{env.user_file}",
    }


@pytest.mark.parametrize(
    ("args", "out"),
    [
        (("loops.hard_stop",), "false\n"),
        (("loops.hard_stop", "--json"), "false\n"),
        (("approvals.isolation.deadline",), "10.0\n"),
        (("store.backend", "--json"), '"sqlite"\n'),
        (("tools.shell.exec_command",), "cmd\n"),
        (("approvals.deny", "--json"), "[]\n"),
        (("loops.poll",), "loops.poll.max_count = 60\nloops.poll.max_seconds = 3600\n"),
    ],
)
def test_get(env: Env, args: tuple[str, ...], out: str) -> None:
    result = env.tether("config", "get", *args)
    assert (result.rc, result.out) == (0, out)


def test_get_unknown_key_and_missing_action(env: Env) -> None:
    result = env.tether("config", "get", "loops.hardstop")
    assert result.rc == 2 and "did you mean 'loops.hard_stop'" in result.err
    assert env.tether("config").rc == 2


def test_docs_prints_the_reference(env: Env) -> None:
    result = env.tether("config", "docs")
    assert result.out.startswith("# Configuration reference\n")


# --- concurrency ----------------------------------------------------------------------------

WRITER = """
import sys
from pathlib import Path
from tether.config.edit import set_key
path, n = Path(sys.argv[1]), int(sys.argv[2])
for i in range(5):
    set_key(path, f"approvals.{'allow' if n % 2 else 'deny'}", f"p{n}-{i}")
    set_key(path, "tools.shell.tool%d" % n, "arg%d" % i)
"""


def test_concurrent_edits_all_land(env: Env) -> None:
    processes = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(env.user_file), str(n)])
        for n in range(6)
    ]
    assert [p.wait(timeout=120) for p in processes] == [0] * 6
    shell = load_config(environ=env.vars).get("tools.shell")
    assert {shell[f"tool{n}"] for n in range(6)} == {"arg4"}
    assert "# My Tether settings. Keep this header." in env.user_file.read_text()


# --- library-level edits --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "loops: [1, 2]\n",  # a group that is not a mapping
        "loops:\n  window: [\n",  # broken YAML
        "- a list\n",  # not a mapping at all
    ],
)
def test_edits_refuse_files_they_cannot_read_safely(env: Env, text: str) -> None:
    env.user_file.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError):
        set_key(env.user_file, "loops.window", "5")
    assert env.user_file.read_text() == text


def test_set_creates_missing_directories_and_unset_of_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "new" / "dir" / "config.yaml"
    assert not unset_key(path, "loops.window").written
    edit = set_key(path, "loops.window", "5")
    assert edit.written and path.read_text() == "loops:\n  window: 5\n"
    assert not set_key(path, "loops.window", "5").written  # same value: file untouched


# --- the hook path fails closed ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("loops:\n  hardstop: true\n", "unknown key 'loops.hardstop' (did you mean"),
        ("loops:\n  window: [\n", "invalid YAML"),
        ("approvals:\n  mode: yes\n", "approvals.mode: expected one of 'manual', 'off'"),
    ],
)
def test_a_hook_with_a_broken_config_denies_with_the_error_in_the_reason(
    env: Env, text: str, words: str
) -> None:
    project = env.repo / ".tether.yaml"
    project.write_text(text, encoding="utf-8")
    event = {
        "session_id": "s1",
        "cwd": str(env.repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "tether", "hook", "claude-code"],
        input=json.dumps(event),
        cwd=env.repo,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}, **env.vars},
        capture_output=True,
        text=True,
        timeout=60,
    )
    reply = json.loads(done.stdout)["hookSpecificOutput"]
    assert reply["permissionDecision"] == "deny"
    assert str(project) in reply["permissionDecisionReason"]
    assert words in reply["permissionDecisionReason"]


HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(30)
"""


def test_an_edit_waits_for_the_lock_then_gives_up_leaving_the_file_alone(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tether.config import edit

    monkeypatch.setattr(edit, "LOCK_TIMEOUT", 0.3)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(env.user_file.parent)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        before = env.user_file.read_bytes()
        with pytest.raises(ConfigError, match="another process has held the config lock"):
            set_key(env.user_file, "loops.window", "5")
        assert env.user_file.read_bytes() == before
    finally:
        holder.kill()
        holder.wait()
    assert set_key(env.user_file, "loops.window", "5").written


def test_an_unwritable_target_is_a_config_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot lock for writing"):
        set_key(blocker / "config.yaml", "loops.window", "5")
