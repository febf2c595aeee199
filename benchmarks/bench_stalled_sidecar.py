"""What a stalled ``tether serve`` does to Claude Code after ``tether install claude-code --http``.

The real Claude Code (the e2e suite's pinned binaries) runs ``--calls`` distinct harmless shell
calls against the e2e suite's fake model, with a real ``tether serve`` stopped by SIGSTOP (it
holds its port, accepts nothing, answers nothing: a hung sidecar). Reported per version: the
wall seconds per tool call, whether every call ran, and, after the sidecar is let go
(SIGCONT) and has drained what was queued, how many calls the store counted for the session.

    .venv/bin/python benchmarks/bench_stalled_sidecar.py [--calls 2] [--version 2.1.332]
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "e2e"))

from harness import TETHER, Host, binary


def free_port() -> int:
    """Return a free loopback port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int) -> None:
    """Wait until something accepts connections on ``port``."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"tether serve did not listen on {port}")


def counted(h: Host) -> int:
    """Return the calls the store counted over all sessions."""
    proc = h.tether("session", "list", "--json")
    rows = json.loads(proc.stdout or "[]")
    return sum(int(r.get("calls", 0)) for r in rows)


def measure(version: str, calls: int) -> dict[str, object]:
    """Run one stalled-sidecar session on Claude Code ``version``; return what it showed."""
    root = Path(tempfile.mkdtemp(prefix="tether-bench-stall-"))
    serve: subprocess.Popen[bytes] | None = None
    try:
        h = Host("claude-code", version, root)
        port = free_port()
        serve = subprocess.Popen(
            [str(TETHER), "serve", "--port", str(port)],
            env=h.env,
            cwd=h.project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_listening(port)
        installed = h.tether(
            "install", "claude-code", "--http", "--url", f"http://127.0.0.1:{port}"
        )
        serve.send_signal(signal.SIGSTOP)
        commands = [f"echo stall-{n} > ran-{n}" for n in range(calls)]
        start = time.perf_counter()
        h.run(commands, install=None)
        took = time.perf_counter() - start
        ran = sum((h.project / f"ran-{n}").exists() for n in range(calls))
        serve.send_signal(signal.SIGCONT)
        time.sleep(3)  # let the sidecar drain what it had queued
        return {
            "version": version,
            "install_exit": installed.returncode,
            "calls": calls,
            "ran": ran,
            "s_per_call": round(took / calls, 2),
            "counted": counted(h),
        }
    finally:
        if serve is not None:
            serve.send_signal(signal.SIGCONT)
            serve.terminate()
            serve.wait()
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2)
    parser.add_argument("--version", action="append", help="Claude Code version (repeatable)")
    args = parser.parse_args()
    for version in args.version or ["2.1.197", "2.1.332"]:
        if not binary("claude-code", version).is_file():
            raise SystemExit(f"{binary('claude-code', version)} is missing: run .ci/run first")
        print(json.dumps(measure(version, args.calls)), flush=True)


if __name__ == "__main__":
    main()
