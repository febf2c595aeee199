"""The threat model, tested: every attack class of issue 25 in a user install and a managed one.

A user install guards against careless and common forms with rules; it is not a boundary
against code running as the user. A managed install (``tether install --managed``) is: the
hooks, the code they run, the config, the trust records and the state are root's or the
daemon user's, and the kernel refuses the user's writes.

``ATTACKS`` is the table of docs/trust.md ("Attacks and what stops them"; a test keeps the two
equal). For each attack: the user install's decision, measured here through the Guard with the
agent's environment, and what happens in a managed install, measured by
``tests/managed_scenario.py``: a real managed install in a private mount namespace (overlays
over /etc, /opt, /var/lib, /var/cache and /run: nothing outside changes), the managed daemon
running as its own user, and every attack run for real as a second, unprivileged uid, with
the managed hook's decisions checked before and after (the agent's own loosening config,
``TETHER_*`` variables, a project file it trusted through Tether's API and a fake daemon in
its runtime folder all in place).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tether import Guard, ToolCall
from tether.model import Action

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = Path(__file__).with_name("managed_scenario.py")
TRUST_MD = ROOT / "docs" / "trust.md"
ENV = {"HOME": "/home/dev", "XDG_RUNTIME_DIR": "/run/user/1000", "PATH": "/usr/bin:/bin"}
REFUSED = "refused by the kernel"


class Attack(NamedTuple):
    """One row of the attack table."""

    klass: str
    attack: str
    user_call: tuple[str, dict[str, Any]] | None  # judged by the Guard in a user install
    user: str  # the user install's decision, or what happens
    managed_key: str | None  # the attack of tests/managed_scenario.py run as the second uid
    managed: str
    test: str  # where it is shown, besides this file


def _bash(command: str) -> tuple[str, dict[str, Any]]:
    return "Bash", {"command": command}


WRITES = "writes onto the hook settings or Tether's files"
REPLACES = "replacing what the hook command runs"
POSING = "posing as the daemon, forging its inputs"
CONFIG = "configuration"
FAULTS = "faults"
MCP = "MCP proxy framing"
SECRETS = "secrets"
SAME = "the same call, two answers"

ATTACKS: list[Attack] = [
    Attack(WRITES, "`sort -o` onto the settings", _bash("sort -o ~/.claude/settings.json x"),
           "ask (DG605)", "sort -o managed settings", REFUSED, "test_self_protection.py"),
    Attack(WRITES, "sed `w`", _bash("sed -n 'w /home/dev/.gemini/settings.json' x"),
           "ask (DG605)", "sed w managed settings", REFUSED, "test_self_protection.py"),
    Attack(WRITES, "`git config -f FILE`", _bash("git config -f ~/.codex/config.toml a.b c"),
           "ask (DG605)", "git config -f requirements", REFUSED, "test_self_protection.py"),
    Attack(WRITES, "a path built by a glob", _bash("cp /dev/null ~/.cl?ude/settings.json"),
           "ask (DG605)", "glob path cp", REFUSED, "test_self_protection.py"),
    Attack(WRITES, "`find -exec cp`",
           _bash("find /tmp -name x -exec cp /dev/null /home/dev/.claude/settings.json \\;"),
           "ask (DG605)", "find -exec cp", REFUSED, ""),
    Attack(WRITES, "`tar x` into the folder", _bash("tar xf evil.tar -C ~/.config/tether"),
           "ask (DG605)", "tar x into /etc/tether", REFUSED, ""),
    Attack(WRITES, "Python code that writes the file, path split",
           _bash("python3 -c \"p='~/.cla'+'ude/settings.json'; open(p,'w')\""),
           "allow", "python open() config", REFUSED, ""),
    Attack(WRITES, "`ln -sf /dev/null` onto the settings",
           _bash("ln -sf /dev/null ~/.claude/settings.json"),
           "ask (DG605)", "ln -sf managed settings", REFUSED, "test_self_protection.py"),
    Attack(WRITES, "the Write tool onto the settings",
           ("Write", {"file_path": "/home/dev/.claude/settings.json", "content": "{}"}),
           "ask (DG605)", "rm managed settings", REFUSED, "test_self_protection.py"),
    Attack(WRITES, "Tether's API: `tether.cli.main(['uninstall', …])`",
           _bash("python3 -c \"import tether.cli; tether.cli.main(['uninstall', 'codex'])\""),
           "ask (DG604)", "API uninstall --managed",
           "refused: only root uninstalls a managed install", "test_self_protection_install.py"),
    Attack(WRITES, "Tether's API: `tether.config.trust.trust(…)`",
           _bash("python3 -c \"from tether.config.trust import trust; trust('.tether.yaml', {})\""),
           "ask (DG604)", None,
           "no effect: the daemon reads only root's trust records", "test_managed.py"),
    Attack(WRITES, "a user hook installed beside Tether's", _bash("tether install claude-code"),
           "ask (DG604)", "API install a user hook",
           "no effect: managed hooks only (allowManagedHooksOnly, allow_managed_hooks_only)",
           "test_managed.py"),
    Attack(REPLACES, "`ln -sf /bin/true …/bin/python3`",
           _bash(f"ln -sf /bin/true {sys.executable}"),
           "ask (DG605)", "ln -sf /bin/true interpreter", REFUSED,
           "test_self_protection_install.py"),
    Attack(REPLACES, "a rewritten `hook.py` (an editable install's source)",
           _bash(f"cp /dev/null {Path(__file__).parents[1] / 'src/tether/daemon/hook.py'}"),
           "ask (DG605)", "replace hook.py", REFUSED, "test_self_protection_install.py"),
    Attack(REPLACES, "a `.pth` file in the venv", None, "ask (DG605)", "add a .pth", REFUSED,
           "test_self_protection_install.py"),
    Attack(POSING, "binding the daemon's socket path",
           _bash("python3 -c \"import socket; socket.socket(socket.AF_UNIX)"
                 ".bind('/run/user/1000/tether/d-1.sock')\""),
           "ask (DG605)", "bind beside the socket", REFUSED, "test_self_protection_install.py"),
    Attack(POSING, "a fake daemon in the user's `$XDG_RUNTIME_DIR`", None,
           "not held against code running as you", None,
           "no effect: the managed hook asks only the socket in /run/tether, and only the uid "
           "that owns it (SO_PEERCRED)", "test_managed.py"),
    Attack(POSING, "removing or moving the socket", _bash("rm -f /run/user/1000/tether/d-1.sock"),
           "ask (DG605)", "rm the socket", REFUSED, ""),
    Attack(POSING, "stopping the daemon (SIGSTOP, SIGKILL, the stop request)",
           _bash("kill -STOP $(pgrep -f tether.daemon)"), "ask (DG606)", "SIGSTOP the daemon",
           "refused: another uid's process; only root stops it", "test_daemon.py"),
    Attack(POSING, "re-signing the config cache with the readable key",
           _bash("cat ~/.local/state/tether/cache.key"), "allow: not held against code "
           "running as you", "read the cache key", REFUSED, ""),
    Attack(POSING, "a forged user prompt from another uid", None, "refused (SO_PEERCRED)",
           None, "no effect: each uid's sessions are its own", "test_daemon.py"),
    Attack(POSING, "a forged user prompt from the agent's own uid (lifts its halt)", None,
           "not held", None,
           "not held: the agent can run the hook command itself as its host does",
           "test_managed.py"),
    Attack(POSING, "a POST with the sidecar's token",
           _bash("curl -s -X POST localhost:8765/v1/user_message -d '{}'"),
           "ask (DG604); not held against code running as you", None,
           "the sidecar is not part of a managed install", "test_serve_gate.py"),
    Attack(CONFIG, "an untrusted project file adding `Write: content` to `tools.shell`", None,
           "ignored", None, "ignored", "test_trust.py"),
    Attack(CONFIG, "a nested untrusted `.tether.yaml` dropping the root file's denies", None,
           "ignored", None, "ignored", "test_trust.py"),
    Attack(CONFIG, "the user's own config file and `TETHER_*` variables turning approvals off",
           None, "applies (they are the user's)", None,
           "ignored: only /etc/tether/config.yaml", "test_managed.py"),
    Attack(CONFIG, "the trust records and cache key written", None, "ask (DG605)",
           "write the trust records", REFUSED, "test_self_protection.py"),
    Attack(FAULTS, "the host never closes stdin", None, "deny at the deadline", None,
           "deny at the deadline", "test_hook_signals.py"),
    Attack(FAULTS, "SIGQUIT, SIGUSR1/2, SIGALRM, SIGXCPU, … to the hook", None, "deny", None,
           "deny", "test_hook_signals.py"),
    Attack(FAULTS, "events queued behind a stopped daemon", None, "not counted", None,
           "the agent cannot stop it", "test_daemon.py"),
    Attack(FAULTS, "the sidecar over its connection cap", None, "deny", None,
           "the sidecar is not part of a managed install", "test_serve_gate.py"),
    Attack(FAULTS, "Gemini's `dir_path`", None, "judged in that directory", None,
           "judged in that directory", "test_hosts.py"),
    Attack(MCP, "null or missing ids, bad ids, 100k-deep and 200 MB lines, unlisted tools, "
           "shell-like tools under other names", None, "judged or refused; the session lives",
           None, "the same (the proxy runs as the user)", "test_mcp_framing.py"),
    Attack(SECRETS, "credentials in the state database", None, "redacted (16 shapes)",
           "read the state", "redacted, and the state is unreadable to users",
           "test_redact_property.py"),
    Attack(SAME, "the daemon and an in-process hook on one event and environment", None,
           "identical", None, "one daemon, the caller's environment judged",
           "test_daemon_equivalence.py"),
]  # fmt: skip


def render_table() -> str:
    """Return the attack table of docs/trust.md."""
    lines = [
        "| class | attack | user install | managed install | shown by |",
        "|---|---|---|---|---|",
    ]
    for a in ATTACKS:
        shown = ", ".join(
            f"`tests/{t}`" for t in dict.fromkeys(["test_managed.py", *filter(None, [a.test])])
        )
        lines.append(f"| {a.klass} | {a.attack} | {a.user} | {a.managed} | {shown} |")
    return "\n".join(lines)


def _decision(tool: str, args: dict[str, Any]) -> str:
    d = Guard(environ=ENV).before_call(ToolCall("s", tool, args, "c"))
    if d.action is Action.ALLOW:
        return "allow"
    rules = [c for c in d.codes if c.startswith("DG")]
    return f"{d.action.name.lower()} ({', '.join(rules)})"


@pytest.mark.parametrize("attack", [a for a in ATTACKS if a.user_call], ids=lambda a: a.attack[:50])
def test_the_user_install_decides_as_the_table_says(attack: Attack) -> None:
    assert attack.user_call is not None
    said = _decision(*attack.user_call)
    assert attack.user.startswith(said), (attack.attack, said)


def test_the_attack_table_in_trust_md_is_current() -> None:
    text = TRUST_MD.read_text(encoding="utf-8")
    start, end = "<!-- attack table: tests/test_managed.py -->", "<!-- end of attack table -->"
    assert start in text and end in text, "docs/trust.md lost its attack table markers"
    shown = text.split(start, 1)[1].split(end, 1)[0].strip()
    assert shown == render_table(), "docs/trust.md is stale: paste render_table()'s output"


# -- the managed install, attacked by a second uid ------------------------------------------


def _why_not() -> str | None:
    if os.geteuid() != 0:
        return "the managed install test needs root (CI runs as root)"
    for tool in ("unshare", "setpriv", "useradd", "mount"):
        if shutil.which(tool) is None:
            return f"{tool} is missing (util-linux, passwd)"
    return None


@pytest.fixture(scope="module")
def scenario() -> Iterator[dict[str, Any]]:
    problem = _why_not()
    if problem is not None:
        pytest.fail(problem)
    work = Path(tempfile.mkdtemp(prefix="tether-managed-", dir="/tmp"))
    os.chmod(work, 0o755)  # the second uid's home is inside
    try:
        done = subprocess.run(
            [
                "unshare", "--mount", "--propagation", "private",
                sys.executable, str(SCENARIO), str(work),
            ],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        yield json.loads((work / "results.json").read_text())
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_the_daemon_runs_as_its_own_user_on_a_root_owned_socket(scenario: dict[str, Any]) -> None:
    assert scenario["daemon_uid"] == scenario["tether_uid"] != 0
    sock = scenario["socket"]
    assert sock == {
        "owner": scenario["tether_uid"],
        "mode": "0o666",
        "folder_owner": 0,
        "folder_mode": "0o755",
    }


@pytest.mark.parametrize(
    "attack", [a for a in ATTACKS if a.managed_key], ids=lambda a: a.attack[:50]
)
def test_every_attack_by_a_second_uid_fails_or_changes_nothing(
    scenario: dict[str, Any], attack: Attack
) -> None:
    done = scenario["attacks"][attack.managed_key]
    said = done["said"]
    refused = ("Permission denied", "Operation not permitted", "as root", "only root")
    if attack.managed.startswith("no effect"):  # the agent's own file: written, and unread
        assert done["exit"] == 0, done
    elif attack.managed_key == "find -exec cp":  # find itself exits 0; its cp was refused
        assert "Permission denied" in said, done
    elif attack.managed_key == "tar x into /etc/tether":
        assert done["exit"] != 0, done
    else:
        assert done["exit"] != 0 and any(r in said for r in refused), done


def test_the_attacks_changed_nothing_root_or_the_daemon_owns(scenario: dict[str, Any]) -> None:
    # Every file under the hosts' managed settings, /etc/tether, /opt/tether and /run/tether:
    # content, mode and owner as before the attacks; the daemon still running.
    assert scenario["changed"] == []
    assert scenario["daemon_alive"] is True
    assert scenario["trusted_by_agent"] == "trusted by the agent"  # the API wrote its own file


EXPECTED = {
    "rm -rf /": "deny",
    "mkfs": "deny",
    "rm hook settings": "ask",
    "Write managed settings": "ask",
    "Write a note": "allow",
    "ls": "allow",
}


def test_every_later_decision_is_intact(scenario: dict[str, Any]) -> None:
    # Before: the agent's plain environment. After: its own config (approvals off), TETHER_*
    # variables (approvals off, DG605 disabled), a project file with approvals off and
    # `Write: content` that it trusted through Tether's API, a fake daemon answering "allow"
    # in its runtime folder. None of it reaches the managed daemon.
    for label in ("probe_plain_before", "probe_hostile_after"):
        got = {name: r["decision"] for name, r in scenario[label].items()}
        assert got == EXPECTED, (label, got)


def test_each_uid_has_its_own_sessions(scenario: dict[str, Any]) -> None:
    assert scenario["halt"][-1] == "halt", scenario["halt"]
    # Another uid's call and forged user prompt under the same session id are its own
    # session's: the halt stays in place.
    assert scenario["other_uid_call"]["decision"] == "allow"
    assert scenario["after_other_uid_prompt"]["decision"] == "halt"
    assert all(s.startswith(("uid43210/", "uid43211/")) for s in scenario["sessions"])
    assert "uid43211/loop" in scenario["sessions"] and "uid43210/loop" in scenario["sessions"]
    # The agent's own uid can: it runs the hook command as its host does (docs/trust.md).
    assert scenario["after_own_prompt"]["decision"] == "allow"


def test_the_doctor_says_managed_and_what_it_protects_against(scenario: dict[str, Any]) -> None:
    from tether.managed import PROTECTS

    assert not isinstance(scenario["doctor"], str), scenario["doctor"]
    first = [c["area"] for c in scenario["doctor"]].index("config")  # the mode rows come first
    mode_rows = scenario["doctor"][:first]
    rows = {c["area"]: c for c in mode_rows}
    assert rows["mode"]["status"] == "ok" and rows["mode"]["message"] == PROTECTS["managed"]
    assert rows["managed daemon"]["status"] == "ok", rows["managed daemon"]
    assert f"uid {scenario['tether_uid']}" in rows["managed daemon"]["message"]
    statuses = [(c["area"], c["status"]) for c in mode_rows if c["area"] in HOSTS_ROWS]
    assert statuses == [
        ("claude-code", "ok"),
        ("codex", "ok"),
        ("gemini", "ok"),
        ("gemini", "warn"),  # no managed-only switch in Gemini CLI: docs/trust.md
    ], statuses


HOSTS_ROWS = ("claude-code", "codex", "gemini")


# -- the managed hook believes only the socket's owner, in a folder only root can change ----


def _managed_hook(path: str) -> subprocess.CompletedProcess[str]:
    from tether.daemon import hook as wire

    doc = {
        "session_id": "m",
        "cwd": "/",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    return subprocess.run(
        [sys.executable, "-I", "-S", wire.__file__, "claude-code", "--managed", path],
        input=json.dumps(doc),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _listen(path: str, owner: int) -> Any:
    import socket

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    os.chown(path, owner, owner)
    sock.listen()
    return sock


@pytest.mark.parametrize(
    ("folder_owner", "folder_mode", "socket_owner", "cause"),
    [
        (43210, 0o755, 43210, "belongs to uid 43210, not to root"),  # a user's own folder
        (0, 0o777, 43210, "others may change it"),  # a folder anyone may write
        (0, 0o755, 43210, "uid 0 listens"),  # root listens, the socket says 43210: not believed
    ],
)
def test_the_managed_hook_blocks_a_socket_it_cannot_trust(
    folder_owner: int, folder_mode: int, socket_owner: int, cause: str
) -> None:
    problem = _why_not()
    if problem is not None:
        pytest.fail(problem)
    work = Path(tempfile.mkdtemp(prefix="tether-managed-sock-", dir="/tmp"))
    try:
        os.chmod(work, 0o755)
        folder = work / "run"
        folder.mkdir()
        path = str(folder / "tether.sock")
        listener = _listen(path, socket_owner)
        os.chown(folder, folder_owner, folder_owner)
        os.chmod(folder, folder_mode)
        try:
            done = _managed_hook(path)
        finally:
            listener.close()
        assert done.returncode == 2 and cause in done.stderr, done  # a block on every host
        assert done.stdout == ""
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_the_managed_hook_blocks_when_no_daemon_answers() -> None:
    done = _managed_hook("/run/tether-test-none/tether.sock")
    assert done.returncode == 2 and "denied (fail closed)" in done.stderr, done
