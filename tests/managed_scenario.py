"""The managed-install scenario, run as root inside a private mount namespace.

``tests/test_managed.py`` runs ``unshare --mount --propagation private PYTHON THIS WORK``.
Here: overlays over /etc, /opt, /var/lib, /var/cache and /run (nothing outside the namespace
changes), two unprivileged users (``agent``, ``agent2``) in the overlay's /etc/passwd, ``tether
install --managed``, the managed daemon started as root (it drops to ``tether``), then every
attack of ``ATTACKS`` run for real as ``agent`` (``setpriv``), with the managed hook probed as
``agent`` before and after. Everything observed goes to ``WORK/results.json``; the test file
asserts on it. Nothing here decides whether an attack failed: it records exit status, output,
file digests and decisions.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

WORK = Path(sys.argv[1])
TETHER = Path(sys.executable).with_name("tether")
AGENT, AGENT2 = 43210, 43211
HOME = WORK / "home"
PROJECT = HOME / "agent" / "project"
PY = "/opt/tether/venv/bin/python"
SITE = f"/opt/tether/venv/lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages"
GUARDED = ["/etc/claude-code", "/etc/codex", "/etc/gemini-cli", "/etc/tether", "/opt/tether"]
STATE = "/var/lib/tether/state/tether"


def run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)


def overlays() -> None:
    for folder in ("/etc", "/opt", "/var/lib", "/var/cache", "/run"):
        key = folder.strip("/").replace("/", "_")
        upper, work = WORK / "ovl" / key / "u", WORK / "ovl" / key / "w"
        upper.mkdir(parents=True)
        work.mkdir(parents=True)
        options = f"lowerdir={folder},upperdir={upper},workdir={work}"
        done = run(["mount", "-t", "overlay", "overlay", "-o", options, folder])
        assert done.returncode == 0, done.stderr


def users() -> None:
    HOME.mkdir(mode=0o755)
    for uid, name in ((AGENT, "agent"), (AGENT2, "agent2")):
        home = HOME / name
        done = run(["useradd", "-u", str(uid), "-U", "-M", "-d", str(home), "-s", "/bin/sh", name])
        assert done.returncode == 0, done.stderr
        home.mkdir(mode=0o700)
        os.chown(home, uid, uid)


def agent_env(name: str = "agent", **extra: str) -> dict[str, str]:
    home = HOME / name
    return {
        "HOME": str(home),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_RUNTIME_DIR": str(home / "run"),
        **extra,
    }


def as_user(
    command: str | list[str], uid: int = AGENT, env: dict[str, str] | None = None, **kw: Any
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` (a shell line, or argv) as ``uid``: no groups, no new privileges."""
    argv = ["/bin/sh", "-c", command] if isinstance(command, str) else command
    name = "agent" if uid == AGENT else "agent2"
    return run(
        [
            "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--no-new-privs", "--", *argv,
        ],
        env=env or agent_env(name),
        cwd=str(PROJECT if uid == AGENT else HOME / name),
        timeout=120,
        **kw,
    )  # fmt: skip


def digest() -> dict[str, str]:
    """Return {path: sha256 of content and mode and owner} under every guarded folder."""
    found: dict[str, str] = {}
    for top in [*GUARDED, "/run/tether"]:
        for folder, _, files in os.walk(top):
            for name in [".", *files]:
                path = os.path.join(folder, name)
                st = os.lstat(path)
                h = hashlib.sha256(f"{st.st_mode}:{st.st_uid}:{st.st_gid}".encode())
                if os.path.isfile(path) and not os.path.islink(path):
                    h.update(Path(path).read_bytes())
                if os.path.islink(path):
                    h.update(os.readlink(path).encode())
                found[os.path.normpath(path)] = h.hexdigest()
    return found


def hook_command(host: str = "claude-code") -> list[str]:
    record = json.loads(Path("/etc/tether/managed.json").read_text())
    return [PY, "-I", "-S", record["hook"], host, "--managed", record["socket"]]


def event(kind: str, session: str, n: int, **fields: Any) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": "/dev/null",
        "cwd": str(PROJECT),
        "permission_mode": "default",
        "hook_event_name": kind,
        "tool_use_id": f"toolu_{session}_{n}",
        **fields,
    }


def hook(
    doc: dict[str, Any], uid: int = AGENT, env: dict[str, str] | None = None
) -> dict[str, Any]:
    done = as_user(hook_command(), uid=uid, env=env, input=json.dumps(doc))
    out = done.stdout.strip()
    try:
        reply = json.loads(out) if out else {}
    except ValueError:
        reply = {"unparsed": out}
    decision = "allow"
    if done.returncode == 2:
        decision = "block"
    elif isinstance(reply, dict):
        decision = reply.get("hookSpecificOutput", {}).get("permissionDecision", "allow")
        if reply.get("continue") is False:
            decision = "halt"
    return {
        "exit": done.returncode,
        "decision": decision,
        "stderr": done.stderr[-300:],
        "reply": out[-400:],
    }


PERSON = "Please fix the failing test in src/app.py, then run it."  # a person's words


PROBES: list[tuple[str, str, dict[str, Any]]] = [
    ("rm -rf /", "Bash", {"command": "rm -rf /"}),
    ("mkfs", "Bash", {"command": "mkfs.ext4 /dev/sdz9"}),
    ("rm hook settings", "Bash", {"command": "rm ~/.claude/settings.json"}),
    (
        "Write managed settings",
        "Write",
        {"file_path": "/etc/claude-code/managed-settings.json", "content": "{}"},
    ),
    ("Write a note", "Write", {"file_path": str(PROJECT / "notes.md"), "content": "x"}),
    ("ls", "Bash", {"command": "ls -la"}),
]


def probe(label: str, env: dict[str, str]) -> dict[str, Any]:
    """Send each probe through the managed hook as ``agent`` with ``env``."""
    return {
        name: hook(
            event("PreToolUse", f"probe-{label}", i, tool_name=tool, tool_input=args), env=env
        )
        for i, (name, tool, args) in enumerate(PROBES)
    }


def hostile() -> dict[str, str]:
    """The agent's own settings, all loosening: a user config, TETHER_* variables, a project
    file (untrusted, and trusted through Tether's API as the agent), and a fake daemon in its
    own runtime folder that answers "allow" to anyone who asks."""
    home = HOME / "agent"
    config = home / ".config" / "tether"
    as_user(f"mkdir -p {config} {home / 'run' / 'tether'} && chmod 700 {home / 'run'}")
    as_user(
        f"printf 'approvals:\\n  mode: \"off\"\\n' > {config / 'config.yaml'} && "
        f"printf 'approvals:\\n  mode: \"off\"\\ntools:\\n  shell:\\n    Write: content\\n' "
        f"> {PROJECT / '.tether.yaml'}"
    )
    trusted = as_user(
        [
            PY, "-I", "-c",
            "import os, tether.config.trust as t; t.trust(os.getcwd() + '/.tether.yaml', "
            "os.environ); print('trusted by the agent')",
        ]
    )  # fmt: skip
    return agent_env(
        TETHER_APPROVALS__MODE="off",
        TETHER_CONFIG=str(config / "config.yaml"),
        TETHER_APPROVALS__DISABLED_RULES='["DG605"]',
        _trusted=trusted.stdout.strip() + trusted.stderr.strip()[-200:],
    )


FAKE_DAEMON = """
import os, socket, sys
path = sys.argv[1]
os.makedirs(os.path.dirname(path), exist_ok=True)
s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen()
while True:
    c, _ = s.accept(); c.recv(1 << 20); c.sendall(b"0 2 0\\n{}"); c.close()
"""


def attacks(daemon_pid: int) -> dict[str, dict[str, Any]]:
    """Run each attack as ``agent``; return its exit status and last line of output."""
    home = HOME / "agent"
    lines = {
        "sort -o managed settings": "sort -o /etc/claude-code/managed-settings.json /dev/null",
        "sed w managed settings": "sed -n 'w /etc/gemini-cli/settings.json' /dev/null",
        "git config -f requirements": "git config -f /etc/codex/requirements.toml core.x y",
        "python open() config": (
            "python3 -c \"open('/etc/tether/config.yaml', 'w').write('approvals: {}')\""
        ),
        "glob path cp": "cp /dev/null /etc/claude-cod?/managed-settings.json",
        "ln -sf managed settings": "ln -sf /dev/null /etc/claude-code/managed-settings.json",
        "rm managed settings": "rm -f /etc/gemini-cli/settings.json",
        "find -exec cp": "find /etc/codex -name '*.toml' -exec cp /dev/null {} \\;",
        "tar x into /etc/tether": (
            f"cd {home} && echo x > config.yaml && tar -cf e.tar config.yaml && "
            "tar -xf e.tar -C /etc/tether"
        ),
        "API uninstall --managed": (
            f"{PY} -I -c \"import sys, tether.cli; sys.exit(tether.cli.main(['uninstall', "
            "'--managed']))\""
        ),
        "API install a user hook": (
            f"{PY} -I -c \"import sys, tether.cli; sys.exit(tether.cli.main(['install', "
            "'claude-code']))\""
        ),
        "ln -sf /bin/true interpreter": "ln -sf /bin/true /opt/tether/venv/bin/python3",
        "replace hook.py": f"cp /dev/null {SITE}/tether/daemon/hook.py",
        "add a .pth": f"echo 'import os' > {SITE}/zz_evil.pth",
        "edit pyvenv.cfg": "sed -i 's/home/x/' /opt/tether/venv/pyvenv.cfg",
        "bind beside the socket": (
            'python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('
            "'/run/tether/evil.sock')\""
        ),
        "rm the socket": "rm -f /run/tether/tether.sock",
        "mv the socket folder": "mv /run/tether /run/tether.old",
        "read the cache key": f"cat {STATE}/cache.key",
        "read the state": f"cat {STATE}/state.db",
        "write the trust records": f"echo '{{}}' > {STATE}/trust.json",
        "SIGSTOP the daemon": f"kill -STOP {daemon_pid}",
        "SIGKILL the daemon": f"kill -KILL {daemon_pid}",
        "stop the daemon over its socket": (
            f"{PY} -I -c \"import sys; sys.path.insert(0, '{SITE}'); "
            "from tether.daemon import hook as w; "
            "r = w.ask('/run/tether/tether.sock', w.request('stop', [], b''), 5); "
            'print(r); sys.exit(0 if r and r[0] == 0 else 1)"'
        ),
    }
    found = {}
    for name, line in lines.items():
        done = as_user(line)
        text = (done.stdout + done.stderr).strip().splitlines()
        found[name] = {"exit": done.returncode, "said": text[-1][-200:] if text else ""}
    return found


def loop_until_halt(session: str, uid: int = AGENT) -> list[str]:
    """Repeat an identical read and its identical result until the guard halts the session."""
    seen = []
    for n in range(16):
        args = {"tool_name": "Bash", "tool_input": {"command": "cat notes.txt"}}
        pre = hook(event("PreToolUse", session, n, **args), uid=uid)
        seen.append(pre["decision"])
        if pre["decision"] == "halt":
            break
        hook(
            event(
                "PostToolUse",
                session,
                n,
                **args,
                tool_response={"stdout": "same", "stderr": "", "interrupted": False},
            ),
            uid=uid,
        )
    return seen


def sessions() -> list[str]:
    db = sqlite3.connect(f"{STATE}/state.db")
    try:
        return sorted(row[0] for row in db.execute("SELECT id FROM sessions"))
    finally:
        db.close()


def main() -> None:
    results: dict[str, Any] = {}
    overlays()
    users()
    PROJECT.mkdir(parents=True)
    (PROJECT / ".git").mkdir()
    for path in (PROJECT, PROJECT / ".git"):
        os.chown(path, AGENT, AGENT)
    installed = run([str(TETHER), "install", "--managed", "--no-start", "--json"])
    assert installed.returncode == 0, installed.stderr
    results["install"] = json.loads(installed.stdout)
    # The administrator's policy: hard stops on, so a loop halts.
    with open("/etc/tether/config.yaml", "a", encoding="utf-8") as handle:
        handle.write("  hard_stop: true\n")
    log = open(WORK / "daemon.log", "w")  # noqa: SIM115
    daemon = subprocess.Popen(
        [PY, "-I", "-m", "tether.daemon.managed"], stdout=log, stderr=log, env={}
    )
    for _ in range(600):
        if os.path.exists("/run/tether/tether.sock"):
            break
        time.sleep(0.1)
    try:
        sock = os.lstat("/run/tether/tether.sock")
        results["socket"] = {
            "owner": sock.st_uid,
            "mode": oct(sock.st_mode & 0o777),
            "folder_owner": os.lstat("/run/tether").st_uid,
            "folder_mode": oct(os.lstat("/run/tether").st_mode & 0o777),
        }
        results["daemon_uid"] = int(
            next(
                line.split()[1]
                for line in Path(f"/proc/{daemon.pid}/status").read_text().splitlines()
                if line.startswith("Uid:")
            )
        )
        results["tether_uid"] = results["install"]["user"]["uid"]
        results["probe_plain_before"] = probe("plain-before", agent_env())
        before = digest()
        env = hostile()
        results["trusted_by_agent"] = env.pop("_trusted")
        fake = subprocess.Popen(
            [
                "setpriv", f"--reuid={AGENT}", f"--regid={AGENT}", "--clear-groups", "--",
                "/usr/bin/python3", "-c", FAKE_DAEMON,
                str(HOME / "agent" / "run" / "tether" / "d-fake.sock"),
            ]
        )  # fmt: skip
        results["attacks"] = attacks(daemon.pid)
        results["probe_hostile_after"] = probe("hostile-after", env)
        fake.kill()
        after = digest()
        results["changed"] = sorted(
            p for p in set(before) | set(after) if before.get(p) != after.get(p)
        )
        results["daemon_alive"] = daemon.poll() is None
        doctor = as_user(["/opt/tether/venv/bin/tether", "doctor", "--json", "--host", "codex"])
        try:
            results["doctor"] = json.loads(doctor.stdout)["checks"]
        except ValueError:
            results["doctor"] = doctor.stdout[-1000:] + doctor.stderr[-1000:]
        # Sessions: each uid's are its own. agent loops until halted; agent2's forged user
        # prompt for the same session id changes nothing of agent's.
        results["halt"] = loop_until_halt("loop")
        args = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
        results["other_uid_call"] = hook(event("PreToolUse", "loop", 98, **args), uid=AGENT2)
        hook(event("UserPromptSubmit", "loop", 99, prompt=PERSON), uid=AGENT2)
        results["after_other_uid_prompt"] = hook(event("PreToolUse", "loop", 100, **args))
        # The agent's own forged user prompt (it can run the hook command itself).
        hook(event("UserPromptSubmit", "loop", 101, prompt=PERSON))
        results["after_own_prompt"] = hook(event("PreToolUse", "loop", 102, **args))
        results["sessions"] = sessions()
    finally:
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(timeout=10)
        except subprocess.TimeoutExpired:
            daemon.kill()
        log.close()
    results["daemon_log"] = (WORK / "daemon.log").read_text()[-2000:]
    (WORK / "results.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
