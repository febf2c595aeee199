"""Load through the per-user daemon: N clients for S seconds, errors and lost updates counted.

Starts a real daemon (the way the installed hook does: the first event answers in-process and
starts it), then runs ``--clients`` threads for ``--seconds``, each sending what the installed
hook sends (``tether.daemon.hook.ask``: one connection per event, the caller's environment in
the header): a PreToolUse and its PostToolUse for a distinct read-only command, round after
round. Half the clients share one session (one agent's parallel tool calls, the worst case for
the store); the others each have their own. Afterwards the store is read: every PreToolUse the
daemon answered must be one call recorded (lost updates = answered - recorded).

An error is an event with no complete reply, a reply of another exit status than 0, or a
decision other than allow for these harmless commands.

    .venv/bin/python benchmarks/bench_daemon_load.py [--clients 32] [--seconds 60]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tether.daemon import hook as wire

TETHER = Path(sys.executable).with_name("tether")


def event(kind: str, session: str, n: int, cwd: str) -> bytes:
    doc: dict[str, object] = {
        "session_id": session,
        "transcript_path": "/tmp/load.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": kind,
        "tool_name": "Bash",
        "tool_input": {"command": f"echo {session}-{n}"},
        "tool_use_id": f"toolu_{session}_{n}",
    }
    if kind == "PostToolUse":
        doc["tool_response"] = {"stdout": f"{session}-{n}\n", "stderr": "", "interrupted": False}
    return json.dumps(doc).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tether-load-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TETHER_", "XDG_"))}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        (tmp / name.lower()).mkdir()
        env[name] = str(tmp / name.lower())
    (tmp / "run").mkdir(mode=0o700)
    env["XDG_RUNTIME_DIR"] = str(tmp / "run")
    env["HOME"] = str(tmp)
    env["TETHER_DAEMON_IDLE"] = "600"
    cwd = str(tmp)
    envb = {k.encode(): v.encode() for k, v in env.items()}
    path = wire.socket_path(wire.__file__, envb)
    first = subprocess.run(
        [sys.executable, "-I", "-S", wire.__file__, "claude-code"],
        input=event("PreToolUse", "warmup", 0, cwd),
        capture_output=True,
        env=env,
        cwd=cwd,
        check=False,
    )
    assert first.returncode == 0, first.stderr
    deadline = time.monotonic() + 60
    status = None
    while status is None and time.monotonic() < deadline:
        status = wire.ask(path, wire.request("status", [], b""), 5)
        time.sleep(0.1)
    assert status is not None, "no daemon"
    pid = int(json.loads(status[1])["pid"])
    fields_env = [k + b"=" + v for k, v in envb.items() if k.startswith(wire.ENV_PREFIXES)]

    answered: dict[str, int] = {}
    errors: list[str] = []
    latencies: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + args.seconds

    def client(i: int) -> None:
        session = "shared" if i % 2 == 0 else f"own-{i}"
        n = 0
        while time.monotonic() < stop:
            n += 1
            key = f"{i}-{n}"
            for kind in ("PreToolUse", "PostToolUse"):
                start = time.perf_counter()
                gives_up = time.monotonic() + wire.REPLY_TIMEOUT
                fields = [b"claude-code", cwd.encode(), b"deadline=%.3f" % gives_up, *fields_env]
                try:
                    reply = wire.ask(
                        path, wire.request("hook", fields, event(kind, session, n * 1000 + i, cwd))
                    )
                except TimeoutError:
                    reply = None
                took = time.perf_counter() - start
                with lock:
                    latencies.append(took)
                    if reply is None or reply[0] != 0:
                        errors.append(f"{key} {kind}: {reply!r}"[:200])
                        continue
                    if kind == "PreToolUse":
                        out = json.loads(reply[1] or b"{}")
                        if out.get("hookSpecificOutput", {}).get("permissionDecision"):
                            errors.append(f"{key}: {out}"[:200])
                        answered[session] = answered.get(session, 0) + 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
    begin = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - begin
    recorded = {}
    for session in answered:
        shown = subprocess.run(
            [str(TETHER), "session", "show", session, "--json"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        recorded[session] = int(json.loads(shown.stdout)["state"]["calls"])
    os.kill(pid, signal.SIGTERM)
    lost = sum(answered[s] - recorded.get(s, 0) for s in answered)
    events = len(latencies)
    latencies.sort()
    print("| clients | seconds | events | events/s | p50 ms | p99 ms | errors | lost updates |")
    print("|---|---|---|---|---|---|---|---|")
    print(
        f"| {args.clients} | {elapsed:.0f} | {events} | {events / elapsed:.0f} | "
        f"{latencies[events // 2] * 1000:.1f} | {latencies[int(events * 0.99)] * 1000:.1f} | "
        f"{len(errors)} | {lost} |"
    )
    for line in errors[:5]:
        print("error:", line)
    return 0 if not errors and lost == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
