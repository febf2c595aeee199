"""Nothing a repository or an agent writes loosens the guard: project-file trust and the cache.

The attacks run the way they happen: a cloned repository's ``.tether.yaml``, a shell call
that rewrites the config cache, then the real ``tether hook claude-code`` process answering
Claude Code's payload. HOME and the XDG directories live in tmp_path.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tether.config import load_config
from tether.config.core import Ignored
from tether.config.digest import hmac_sha256_hex, sha256_hex
from tether.config.direction import loosening
from tether.config.paths import own_files
from tether.config.schema import HOOK_DEADLINE_MAX, KEYS, SCHEMA, Key
from tether.config.trust import is_trusted, records, trust
from tether.errors import ConfigError
from tether.guard import Guard
from tether.model import Action, ToolCall

TETHER = Path(sys.executable).with_name("tether")
OLD = time.time() - 60  # files older than the cache's two-second "racy" window


@dataclass
class Box:
    env: dict[str, str]
    home: Path
    repo: Path

    @property
    def project_file(self) -> Path:
        return self.repo / ".tether.yaml"

    @property
    def user_file(self) -> Path:
        return own_files(self.env).user_file


@pytest.fixture
def box(tmp_path: Path) -> Box:
    """A private HOME and XDG dirs, and a cloned repository as the working directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    home = tmp_path / "home"
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        (home / name.lower()).mkdir(parents=True)
        env[name] = str(home / name.lower())
    env["HOME"] = str(home)
    repo = tmp_path / "cloned"
    (repo / ".git").mkdir(parents=True)
    return Box(env, home, repo)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (OLD, OLD))  # old enough to be cached, as a cloned file is
    return path


def hook(box: Box, command: str, session: str = "attack") -> dict[str, Any]:
    """Run the real ``tether hook claude-code`` on a Bash PreToolUse; return its JSON reply."""
    payload = {
        "session_id": session,
        "transcript_path": None,
        "cwd": str(box.repo),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    }
    proc = subprocess.run(
        [str(TETHER), "hook", "claude-code"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=box.env,
        cwd=box.repo,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout)
    assert isinstance(reply, dict)
    return reply


def decision(reply: dict[str, Any]) -> str:
    """Return Claude Code's permission decision: deny, ask, or allow (no decision printed)."""
    return str(reply.get("hookSpecificOutput", {}).get("permissionDecision", "allow"))


def cli(box: Box, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TETHER), *args],
        capture_output=True,
        text=True,
        env=box.env,
        cwd=box.repo,
        timeout=120,
    )


# --- no scope remaps the built-in shell tools ------------------------------------------------

REMAPS = ["tools:\n  shell:\n    Bash: nope\n", "tools:\n  shell:\n    Bash: ''\n"]


@pytest.mark.parametrize("text", REMAPS)
@pytest.mark.parametrize("where", ["untrusted project", "trusted project", "user file"])
def test_a_remapped_shell_tool_never_lets_rm_rf_root_through(
    box: Box, text: str, where: str
) -> None:
    path = write(box.user_file if where == "user file" else box.project_file, text)
    if where == "trusted project":
        trust(path, box.env)
    reply = hook(box, "rm -rf /")
    assert decision(reply) == "deny", reply
    # Twice: the second answer comes from the cache.
    assert decision(hook(box, "rm -rf /")) == "deny"


def test_an_untrusted_file_names_no_shell_tools(box: Box) -> None:
    # Issue 25: `Write: content` made Write a shell, judged by its content alone, so a Write
    # onto the hook settings went through with no notice. An untrusted file names no shells.
    write(box.project_file, "tools:\n  shell:\n    Bash: nope\n    MyShell: script\n")
    config = load_config(cwd=box.repo, environ=box.env)
    assert config.get("tools.shell")["Bash"] == "command"
    assert "MyShell" not in config.get("tools.shell")
    assert [i.key for i in config.ignored] == ["tools.shell.Bash", "tools.shell.MyShell"]
    write(box.project_file, "tools:\n  shell:\n    MyShell: script\n")
    trust(box.project_file, box.env)  # trusted, it names its shells
    assert load_config(cwd=box.repo, environ=box.env).get("tools.shell")["MyShell"] == "script"


def test_a_write_named_a_shell_tool_still_gets_the_file_check(box: Box) -> None:
    write(box.user_file, "tools:\n  shell:\n    Write: content\n")  # the user's own choice
    config = load_config(cwd=box.repo, environ=box.env)
    assert config.get("tools.shell")["Write"] == "content"
    args = {"file_path": f"{box.env['HOME']}/.claude/settings.json", "content": "{}"}
    decision = Guard(config, environ=box.env).before_call(ToolCall("s", "Write", args, "c"))
    assert decision.action is Action.ASK and "DG605" in decision.codes, decision


@pytest.mark.parametrize("text", REMAPS)
def test_a_user_file_remapping_a_builtin_is_refused_with_the_fix(box: Box, text: str) -> None:
    write(box.user_file, text)
    with pytest.raises(ConfigError) as caught:
        load_config(cwd=box.repo, environ=box.env)
    message = str(caught.value)
    assert f"{box.user_file}:3: tools.shell.Bash: 'Bash' is a built-in shell tool" in message
    assert "remove this entry" in message


def test_loop_settings_keep_the_builtins_even_from_a_hand_built_config() -> None:
    from tether.config import DEFAULT_CONFIG
    from tether.loops.settings import SHELL_TOOLS, from_config

    forged = DEFAULT_CONFIG.with_values({"tools.shell": {"Bash": "nope", "Extra": "cmd"}})
    shell = from_config(forged).tools.shell
    assert {name: shell[name] for name in SHELL_TOOLS} == SHELL_TOOLS
    assert shell["Extra"] == "cmd"


# --- an untrusted project file only tightens ------------------------------------------------

LOOSE = "approvals:\n  mode: 'off'\n  allow: ['*']\n"


def test_untrusted_approvals_off_and_allow_everything_still_ask(box: Box) -> None:
    write(box.project_file, LOOSE)
    assert decision(hook(box, "git push --force origin main")) == "ask"
    assert decision(hook(box, "rm -rf /")) == "deny"


def test_trusting_the_file_applies_it_and_editing_it_revokes_the_trust(box: Box) -> None:
    write(box.project_file, LOOSE)
    done = cli(box, "trust")
    assert done.returncode == 0, done.stderr
    assert "now applies: approvals.mode" in done.stdout
    assert decision(hook(box, "git push --force origin main")) == "allow"
    assert decision(hook(box, "rm -rf /")) == "deny"  # the hardline floor holds regardless
    write(box.project_file, LOOSE + "# one more line\n")
    assert decision(hook(box, "git push --force origin main")) == "ask"
    listed = json.loads(cli(box, "trust", "--list", "--json").stdout)
    assert [row["state"] for row in listed] == ["changed"]
    assert cli(box, "trust", "--revoke", str(box.project_file)).returncode == 0
    assert json.loads(cli(box, "trust", "--list", "--json").stdout) == []


def test_tightening_keys_of_an_untrusted_file_apply(box: Box) -> None:
    write(
        box.project_file,
        "approvals:\n  deny: ['curl *']\nloops:\n  hard_stop: true\n  warn_after:\n"
        "    exact_failure: 1\nhooks:\n  deadline: 5\n",
    )
    config = load_config(cwd=box.repo, environ=box.env)
    assert config.ignored == ()
    assert config.get("approvals.deny") == ["curl *"]
    assert config.get("loops.hard_stop") is True
    assert config.get("loops.warn_after.exact_failure") == 1
    assert config.get("hooks.deadline") == 5.0
    assert decision(hook(box, "curl https://example.com")) == "deny"


def test_an_untrusted_deny_list_adds_to_the_users_and_never_drops_it(box: Box) -> None:
    write(box.user_file, "approvals:\n  deny: ['git push*']\n  allow: ['npm *', 'make *']\n")
    write(box.project_file, "approvals:\n  deny: ['curl *']\n  allow: ['make *', '*']\n")
    config = load_config(cwd=box.repo, environ=box.env)
    assert config.get("approvals.deny") == ["git push*", "curl *"]
    assert config.get("approvals.allow") == ["make *"]  # narrower: tightens; '*' is ignored
    reasons = {i.key: i.reason for i in config.ignored}
    assert reasons["approvals.allow"] == "adds '*'"
    assert reasons["approvals.deny"].startswith("removes 'git push*' (kept")


def loosest(key: Key) -> Any:
    """Return the value of ``key`` that loosens it most (the attacker's choice)."""
    how = key.loosen
    if how == "raise":
        return key.maximum if key.kind == "float" else int(key.maximum or 10**6)
    if how == "lower":
        return key.minimum if key.kind == "float" else int(key.minimum or 0)
    if how == "off":
        return False
    if how == "order":
        return key.choices[-1]
    if how == "add":
        return ["*", "DG202"] if "rules" in key.path else ["*"]
    if how == "remove":
        return []
    if how == "remap":
        return {name: "nope" for name in key.default}
    if key.kind == "enum":
        return next(c for c in key.choices if c != key.default)
    if key.kind == "int":
        return int(key.default) + 1
    return "attacker"


def test_no_key_of_an_untrusted_file_loosens_the_defaults(box: Box) -> None:
    # Every key at its loosest, in one file: each effective value is the default or tighter.
    sections: dict[str, dict[str, Any]] = {}
    for key in SCHEMA:
        node = sections
        *parents, leaf = key.path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = loosest(key)
    write(box.project_file, json.dumps(sections))  # JSON is YAML
    config = load_config(cwd=box.repo, environ=box.env)
    for key in SCHEMA:
        assert loosening(key, key.default, config.get(key.path)) is None, key.path
    ignored = {i.key.split(".tools.shell.")[0] for i in config.ignored}
    changed = {k.path for k in SCHEMA if loosening(k, k.default, loosest(k)) is not None}
    assert {k for k in changed if not k.startswith("tools.shell")} <= ignored
    assert {f"tools.shell.{name}" for name in KEYS["tools.shell"].default} <= ignored


def test_every_key_declares_which_way_loosens() -> None:
    undeclared = [k.path for k in SCHEMA if k.loosen == "change" and k.kind in ("int", "bool")]
    assert undeclared == ["serve.port"]  # a port has no "looser" direction: any change counts
    strictest = {k.path: k.choices[0] for k in SCHEMA if k.loosen == "order"}
    assert strictest == {
        "progress.scope": "all",
        "approvals.mode": "manual",
        "approvals.unattended": "block",
    }


# --- hooks.deadline stays under the host's timeout ------------------------------------------


def test_a_project_deadline_past_the_hosts_timeout_is_ignored(box: Box) -> None:
    for value in (500, 999):  # within the old range, and past it
        write(box.project_file, f"hooks:\n  deadline: {value}\n")
        got = cli(box, "config", "get", "hooks.deadline", "--json")
        assert got.returncode == 0, got.stderr
        assert json.loads(got.stdout) == 15.0
        check = json.loads(cli(box, "config", "check", "--json").stdout)
        assert [i["key"] for i in check["ignored"]] == ["hooks.deadline"]


@pytest.mark.parametrize("where", ["user", "env"])
def test_no_scope_sets_a_deadline_past_the_hosts_timeout(box: Box, where: str) -> None:
    """A larger deadline is read as 25 s (docs/hosts.md), never a config error that would deny
    every call; a value that is no number at all still is one."""
    env = dict(box.env)
    if where == "user":
        write(box.user_file, "hooks:\n  deadline: 500\n")
    else:
        env["TETHER_HOOKS__DEADLINE"] = "500"
    assert load_config(cwd=box.repo, environ=env).get("hooks.deadline") == HOOK_DEADLINE_MAX
    if where == "env":
        env["TETHER_HOOKS__DEADLINE"] = "inf"
        with pytest.raises(ConfigError, match=r"expected a number from 0\.1 to 25"):
            load_config(cwd=box.repo, environ=env)


def test_the_hook_deadline_cap_is_under_every_installed_host_timeout() -> None:
    from tether.hosts import runner, settings

    assert runner.MAX_DEADLINE == HOOK_DEADLINE_MAX < settings.HOST_TIMEOUT
    assert runner.initial_deadline({"TETHER_HOOKS__DEADLINE": "500"}) == HOOK_DEADLINE_MAX
    assert runner.initial_deadline({"TETHER_HOOKS__DEADLINE": "inf"}) == HOOK_DEADLINE_MAX


# --- the cache is derived data, never a source of truth -------------------------------------


def cache_entries(box: Box) -> list[Path]:
    return sorted(own_files(box.env).cache_dir.glob("config-*.json"))


def split(data: bytes) -> tuple[bytes, dict[str, Any]]:
    """Return (whatever precedes the JSON body, the body) of a cache entry."""
    if data.startswith(b"{"):
        return b"", json.loads(data)
    head, _, body = data.partition(b"\n")
    return head + b"\n", json.loads(body)


def forge_with_real_key(box: Box, body: bytes) -> bytes:
    key = bytes.fromhex(own_files(box.env).key_file.read_text())
    mac = hmac.new(key, b"tether-config-cache\0" + body, hashlib.sha256).hexdigest()
    return mac.encode() + b"\n" + body


def turn_the_floor_off(body: dict[str, Any]) -> None:
    values = body["payload"]["values"]
    values["tools.shell"]["Bash"] = "nope"
    values["approvals.mode"] = "off"


Tamper = Callable[[Box, Path], None]


def edit_payload(box: Box, entry: Path) -> None:
    head, body = split(entry.read_bytes())
    turn_the_floor_off(body)
    entry.write_bytes(head + json.dumps(body).encode())


def forge_signature(box: Box, entry: Path) -> None:
    _, body = split(entry.read_bytes())
    turn_the_floor_off(body)
    data = json.dumps(body).encode()
    entry.write_bytes(hmac_sha256_hex(b"guessed key", data).encode() + b"\n" + data)


def sign_with_the_stolen_key(box: Box, entry: Path) -> None:
    # An attacker who read the key: only re-validating the payload catches the remap.
    _, body = split(entry.read_bytes())
    body["payload"]["values"]["tools.shell"]["Bash"] = "nope"
    entry.write_bytes(forge_with_real_key(box, json.dumps(body).encode()))


def delete_the_key(box: Box, entry: Path) -> None:
    edit_payload(box, entry)
    own_files(box.env).key_file.unlink()


def plant_with_open_mode(box: Box, entry: Path) -> None:
    sign_stolen_approvals_off(box, entry)
    entry.chmod(0o644)


def sign_stolen_approvals_off(box: Box, entry: Path) -> None:
    _, body = split(entry.read_bytes())
    body["payload"]["values"]["approvals.mode"] = "off"
    entry.write_bytes(forge_with_real_key(box, json.dumps(body).encode()))


def plant_as_another_user(box: Box, entry: Path) -> None:
    sign_stolen_approvals_off(box, entry)
    os.chown(entry, 65534, 65534)


def loosen_the_key_file(box: Box, entry: Path) -> None:
    sign_stolen_approvals_off(box, entry)
    own_files(box.env).key_file.chmod(0o644)


TAMPERS: list[Tamper] = [
    edit_payload,
    forge_signature,
    sign_with_the_stolen_key,
    delete_the_key,
    plant_with_open_mode,
    loosen_the_key_file,
]
if hasattr(os, "chown") and os.geteuid() == 0:
    TAMPERS.append(plant_as_another_user)


@pytest.mark.parametrize("tamper", TAMPERS, ids=lambda t: t.__name__)
def test_a_tampered_cache_is_rebuilt_from_the_files(box: Box, tamper: Tamper) -> None:
    write(box.user_file, "loops:\n  window: 32\n")
    assert decision(hook(box, "git push --force origin main")) == "ask"
    [entry] = cache_entries(box)
    tamper(box, entry)
    assert decision(hook(box, "rm -rf /")) == "deny"
    assert decision(hook(box, "git push --force origin main")) == "ask"
    [entry] = cache_entries(box)
    _, body = split(entry.read_bytes())
    assert body["payload"]["values"]["tools.shell"]["Bash"] == "command"  # rebuilt
    assert body["payload"]["values"]["approvals.mode"] == "manual"
    assert entry.stat().st_mode & 0o777 == 0o600


def test_the_cache_still_spares_the_yaml_parser(box: Box) -> None:
    write(box.user_file, "loops:\n  window: 32\n")
    write(box.project_file, LOOSE)
    first = load_config(cwd=box.repo, environ=box.env)
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from tether.config import load_config\n"
        f"c = load_config(cwd=Path({str(box.repo)!r}))\n"
        "print(json.dumps([c.get('loops.window'), [list(i) for i in c.ignored],"
        " 'ruamel' in ' '.join(sys.modules)]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=box.env, timeout=60
    )
    window, ignored, parsed = json.loads(proc.stdout)
    assert window == 32 and not parsed
    assert [Ignored(*i) for i in ignored] == list(first.ignored)


# --- trust records ----------------------------------------------------------------------------


def test_a_trust_record_written_by_hand_is_not_trust(box: Box) -> None:
    path = write(box.project_file, LOOSE)
    trust(write(box.repo / "other.yaml", "loops:\n  window: 10\n"), box.env)  # makes the key
    store = own_files(box.env).trust_file
    data = json.loads(store.read_text())
    data["files"][str(path)] = {
        "sha256": sha256_hex(path.read_bytes()),
        "trusted_at": "2026-01-01T00:00:00Z",
        "mac": "0" * 64,
    }
    store.write_text(json.dumps(data))
    assert not is_trusted(path, path.read_bytes(), box.env)
    assert decision(hook(box, "git push --force origin main")) == "ask"
    states = {r.path: r.state for r in records(box.env)}
    assert states[str(path)] == "forged"


def test_a_link_to_a_file_trusted_elsewhere_is_not_trusted(box: Box, tmp_path: Path) -> None:
    sandbox_repo = tmp_path / "sandbox"
    (sandbox_repo / ".git").mkdir(parents=True)
    trust(write(sandbox_repo / ".tether.yaml", LOOSE), box.env)  # the user's loose sandbox
    box.project_file.symlink_to(sandbox_repo / ".tether.yaml")  # planted by the agent
    assert decision(hook(box, "git push --force origin main")) == "ask"


def test_a_trust_file_others_can_write_trusts_nothing(box: Box) -> None:
    path = write(box.project_file, LOOSE)
    trust(path, box.env)
    assert is_trusted(path, path.read_bytes(), box.env)
    store = own_files(box.env).trust_file
    assert store.stat().st_mode & 0o777 == 0o600
    store.chmod(0o666)
    assert not is_trusted(path, path.read_bytes(), box.env)


@pytest.mark.parametrize("relative", [True, False])
def test_tether_config_inside_the_repository_needs_trust_too(box: Box, relative: bool) -> None:
    path = write(box.repo / "ci" / "tether.yaml", LOOSE)
    env = {**box.env, "TETHER_CONFIG": "ci/tether.yaml" if relative else str(path)}
    config = load_config(cwd=box.repo, environ=env)
    assert config.get("approvals.mode") == "manual"
    assert {i.key for i in config.ignored} == {"approvals.mode", "approvals.allow"}
    outside = write(box.home / "mine.yaml", LOOSE)
    config = load_config(cwd=box.repo, environ={**box.env, "TETHER_CONFIG": str(outside)})
    assert config.get("approvals.mode") == "off" and config.ignored == ()


def test_trust_refuses_a_file_that_would_not_load(box: Box) -> None:
    write(box.project_file, "tools:\n  shell:\n    Bash: nope\n")
    done = cli(box, "trust")
    assert done.returncode == 1
    assert "tools.shell.Bash: 'Bash' is a built-in shell tool" in done.stderr
    assert records(box.env) == []


# --- the notice reaches the user ------------------------------------------------------------


def test_config_check_names_each_ignored_key_and_the_command(box: Box) -> None:
    write(box.project_file, LOOSE)
    done = cli(box, "config", "check")
    assert done.returncode == 0, done.stderr
    assert f"note: {box.project_file}:2: approvals.mode: ignored: changes it from" in done.stdout
    assert f"`tether trust {box.project_file}`" in done.stdout


def test_doctor_warns_with_the_fix(box: Box) -> None:
    write(box.project_file, LOOSE)
    report = json.loads(cli(box, "doctor", "--json", "--host", "claude-code").stdout)
    [check] = [c for c in report["checks"] if c["area"] == "trust"]
    assert check["status"] == "warn"
    assert check["fix"] == f"tether trust {box.project_file}"


def test_the_user_hears_it_once_per_session(box: Box) -> None:
    write(box.project_file, LOOSE)
    first = hook(box, "ls", session="one")
    assert "tether trust" in first["systemMessage"]
    assert "approvals.mode" in first["systemMessage"]
    assert "systemMessage" not in hook(box, "ls", session="one")
    again = hook(box, "git push --force origin main", session="two")
    assert "tether trust" in again["systemMessage"] and decision(again) == "ask"


def test_the_hook_path_stays_off_openssl_with_an_untrusted_project(box: Box) -> None:
    write(box.project_file, LOOSE)
    for _ in range(2):  # a cache miss, then a hit
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", str(TETHER), "hook", "claude-code"],
            input=json.dumps(
                {
                    "session_id": "lean",
                    "cwd": str(box.repo),
                    "hook_event_name": "PreToolUse",
                    "tool_name": "Bash",
                    "tool_input": {"command": "ls"},
                }
            ),
            capture_output=True,
            text=True,
            env=box.env,
            timeout=60,
        )
        modules = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()[1:]}
        assert "tether.rules.danger" in modules
        assert not {"hashlib", "_hashlib", "hmac"} & modules


def test_the_built_in_hmac_matches_the_standard_library() -> None:
    for key in (b"", b"k", b"k" * 64, b"k" * 65, os.urandom(32)):
        for message in (b"", b"x" * 1000):
            expected = hmac.new(key, message, hashlib.sha256).hexdigest()
            assert hmac_sha256_hex(key, message) == expected
    assert sha256_hex(b"abc") == hashlib.sha256(b"abc").hexdigest()


@pytest.mark.parametrize(
    ("host", "event", "tool"),
    [("codex", "PreToolUse", "Bash"), ("gemini", "BeforeTool", "run_shell_command")],
)
def test_codex_and_gemini_users_hear_it_once_too(
    box: Box, host: str, event: str, tool: str
) -> None:
    write(box.project_file, LOOSE)
    payload = {
        "session_id": f"{host}-session",
        "cwd": str(box.repo),
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": {"command": "ls"},
    }
    replies = []
    for _ in range(2):
        proc = subprocess.run(
            [str(TETHER), "hook", host],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=box.env,
            cwd=box.repo,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        replies.append(json.loads(proc.stdout or "{}"))
    assert "tether trust" in replies[0]["systemMessage"]
    assert "systemMessage" not in replies[1]


def test_own_files_name_the_files_the_modules_really_use(box: Box) -> None:
    from tether.store.open import default_path

    write(box.project_file, LOOSE)
    hook(box, "ls", session="files")
    trust(box.project_file, box.env)
    files = own_files(box.env)
    assert files.project_file_names == (".tether.yaml",)
    assert files.key_file.is_file() and files.trust_file.is_file()
    assert [p.parent for p in cache_entries(box)] == [files.cache_dir]
    assert files.state_db == default_path(box.env) and files.state_db.is_file()
    assert [p.parent for p in files.notices_dir.iterdir()] == [files.notices_dir]
    for path in (files.key_file, files.trust_file, *cache_entries(box)):
        assert path.stat().st_mode & 0o777 == 0o600, path


def test_trust_says_what_to_do_when_there_is_no_project_file(box: Box) -> None:
    done = cli(box, "trust")
    assert done.returncode == 2
    assert f"no .tether.yaml found from {box.repo}" in done.stderr
    assert "give the file's path" in done.stderr
    missing = cli(box, "trust", "--revoke", str(box.project_file))
    assert missing.returncode == 1 and "was not trusted" in missing.stdout


def test_a_limit_of_no_limit_is_the_strictest_retention() -> None:
    """``store.ttl_days: 0`` keeps sessions forever: from a project file it tightens."""
    from tether.config.direction import loosening
    from tether.config.schema import SCHEMA

    ttl = next(k for k in SCHEMA if k.path == "store.ttl_days")
    assert loosening(ttl, 7, 0) is None  # forever is stricter than a week
    assert loosening(ttl, 7, 30) is None
    assert loosening(ttl, 7, 1) == "lowers it from 7 to 1"
    assert loosening(ttl, 0, 30) == "lowers it from 0 to 30"  # from forever to a month


def test_a_nested_untrusted_file_cannot_drop_the_trusted_root_files_denies(box: Box) -> None:
    # Issue 25: the loader read only the nearest .tether.yaml, so an untrusted one in a
    # sub-directory replaced the trusted root file: its deny rules were gone there.
    write(box.project_file, "approvals:\n  deny:\n    - 'terraform destroy*'\n")
    trust(box.project_file, box.env)
    nested = write(box.repo / "sub" / "dir" / ".tether.yaml", "approvals:\n  deny: []\n")
    here = nested.parent
    config = load_config(cwd=here, environ=box.env)
    assert "terraform destroy*" in config.get("approvals.deny"), config.get("approvals.deny")
    assert [i.key for i in config.ignored] == ["approvals.deny"]
    decision = Guard(config, environ=box.env).before_call(
        ToolCall("s", "Bash", {"command": "terraform destroy -auto-approve"}, "c")
    )
    assert decision.action >= Action.ASK, decision
    # The nested file still tightens on top of the root's, and is trusted on its own.
    write(nested, "approvals:\n  deny:\n    - 'kubectl delete*'\n")
    deny = load_config(cwd=here, environ=box.env).get("approvals.deny")
    assert {"terraform destroy*", "kubectl delete*"} <= set(deny), deny
