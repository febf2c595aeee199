"""The daemon and an in-process hook give the same reply to the same event and environment.

The daemon is one long-lived process started with *its own* environment; every event it answers
carries the environment of the hook that relayed it. Before issue 25, ``rules/protected.py``
cached the process environment forever, so a DG605 check read the daemon's home and XDG
folders instead of the caller's: ``rm /elsewhere/config/tether/config.yaml`` (the caller's
``$XDG_CONFIG_HOME``) asked in-process and was allowed through the daemon.

Here a real daemon is started with an environment that shares nothing with the caller's, and a
real Python process whose own environment is the caller's answers the same events in-process
(``run_hook`` with no environment given, as the installed hook's in-process path does). Every
row of the self-protection matrix, plus rows that name only the caller's relocated folders,
must get the same bytes and exit status from both.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tether.daemon.hook as wire
from test_self_protection import MATRIX

HOOK = Path(wire.__file__)

# The caller's own places, absent from the daemon's environment.
RELOCATED: list[tuple[str, str]] = [
    ("Bash", "rm /elsewhere/config/tether/config.yaml"),
    ("Bash", "rm -rf /elsewhere/state/tether"),
    ("Bash", "echo x > /elsewhere/cache/tether/config-1.json"),
    ("Bash", "rm /srv/codex-home/hooks.json"),
    ("Bash", "rm -rf /run/user/4242/tether"),
    ("Bash", "ln -sf /bin/true /elsewhere/state/tether/run/d-x.sock"),
    ("Bash", "cp /dev/null {team}"),  # $TETHER_CONFIG
    ("Bash", "rm /home/caller/.claude/settings.json"),
    ("Write", "/elsewhere/config/tether/config.yaml"),
    ("Write", "/srv/codex-home/config.toml"),
    ("Bash", "rm /home/daemon/.config/tether/config.yaml"),  # another home: still guarded
    ("Bash", "rm /elsewhere/config/notes.txt"),  # a neighbour: allowed by both
]


def _caller_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TETHER_", "XDG_"))}
    env.update(
        {
            "HOME": "/home/caller",
            "XDG_CONFIG_HOME": "/elsewhere/config",
            "XDG_CACHE_HOME": "/elsewhere/cache",
            "XDG_STATE_HOME": "/elsewhere/state",
            "XDG_RUNTIME_DIR": "/run/user/4242",
            "CODEX_HOME": "/srv/codex-home",
            "TETHER_CONFIG": str(_team(tmp)),
            # Where both answers keep their state: the store lies outside every folder above.
            "TETHER_STORE__PATH": str(tmp / "state.db"),
        }
    )
    return env


def _team(tmp: Path) -> Path:
    path = tmp / "team" / "tether.yaml"
    if not path.exists():
        path.parent.mkdir()
        path.write_text("loops:\n  warnings: true\n", encoding="utf-8")
    return path


def _daemon_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TETHER_", "XDG_"))}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        (tmp / "daemon" / name.lower()).mkdir(parents=True)
        env[name] = str(tmp / "daemon" / name.lower())
    env["HOME"] = "/home/daemon"
    env["TETHER_DAEMON_IDLE"] = "120"
    return env


def _payloads(session: str, tmp: Path) -> list[dict[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for tool, args, _, _ in MATRIX:
        rows.append((tool, {"command": args} if isinstance(args, str) else args))
    for tool, spelled in RELOCATED:
        text = spelled.format(team=_team(tmp))
        rows.append((tool, {"command": text} if tool == "Bash" else {"file_path": text}))
    return [
        {
            "session_id": f"{session}-{i}",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": "/home/caller/project",
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": f"toolu_{i:04d}",
        }
        for i, (tool, tool_input) in enumerate(rows)
    ]


IN_PROCESS = """
import io, json, sys
from tether.hosts.runner import run_hook
answers = []
for line in sys.stdin:
    out, err = io.StringIO(), io.StringIO()
    code = run_hook("claude-code", stdin=io.BytesIO(line.encode()), stdout=out, stderr=err)
    answers.append([code, out.getvalue(), err.getvalue()])
json.dump(answers, sys.stdout)
"""


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """Start a daemon whose own environment shares nothing with the caller's."""
    caller = _caller_env(tmp_path)
    # The socket of the caller's environment, in a private folder of this test.
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    path = f"{runtime}/d-equivalence.sock"
    boot = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "from tether.daemon.server import main; raise SystemExit(main(sys.argv[2]))"
    )
    root = wire.package_root(str(HOOK))
    proc = subprocess.Popen(
        [sys.executable, "-I", "-c", boot, root, path],
        env=_daemon_env(tmp_path),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while wire.ask(path, wire.request("status", [], b""), 5) is None:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the daemon did not start"
            time.sleep(0.1)
        yield path, caller
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def test_the_daemon_and_an_in_process_hook_answer_alike(
    daemon: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    path, caller = daemon
    fields_env = [
        f"{k}={v}".encode() for k, v in caller.items() if k.encode().startswith(wire.ENV_PREFIXES)
    ]
    relayed = []
    for doc in _payloads("d", tmp_path):
        data = wire.request("hook", [b"claude-code", b"/", *fields_env], json.dumps(doc).encode())
        reply = wire.ask(path, data, 60)
        assert reply is not None, doc
        relayed.append([reply[0], reply[1].decode(), reply[2].decode()])
    lines = "".join(json.dumps(doc) + "\n" for doc in _payloads("p", tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", IN_PROCESS],
        input=lines,
        capture_output=True,
        text=True,
        env=caller,
        cwd="/",
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    local = json.loads(done.stdout)
    assert len(local) == len(relayed) == len(MATRIX) + len(RELOCATED)
    differ = [
        (doc["tool_name"], doc["tool_input"], here, there)
        for doc, here, there in zip(_payloads("x", tmp_path), local, relayed, strict=True)
        if here != there
    ]
    assert not differ, differ[:5]
    # The rows that name only the caller's folders are guarded, not merely equal.
    asked = [json.loads(out or "{}") for _, out, _ in local[len(MATRIX) :]]
    decisions = [a.get("hookSpecificOutput", {}).get("permissionDecision") for a in asked]
    assert decisions == [*["ask"] * (len(RELOCATED) - 1), None], decisions
