"""Sidecar under a burst: 32 new connections at once, each posting one hook event.

Starts ``tether serve`` as a real process (SQLite store in a temporary XDG state directory),
then for each round releases 32 client threads together; each opens a new connection, posts a
Claude Code PreToolUse and reads the reply. Counts resets and other failures (a reset HTTP hook
lets the call run in Claude Code) and prints the latency percentiles. ``--backlog N`` starts
the same server with another listen backlog, for comparison with socketserver's default of 5.

    .venv/bin/python benchmarks/bench_serve_burst.py [--rounds 20] [--clients 32] [--backlog 5]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ANNOUNCE = re.compile(r"listening on http://(\S+):(\d+) ")
TOKEN = "burst-token"
SERVE = (
    "import sys; from tether.serve import server; server.SidecarServer.request_queue_size = {n}; "
    "from tether.cli import main; sys.exit(main(['serve', '--port', '0']))"
)


def start(env: dict[str, str], cwd: Path, backlog: int | None) -> tuple[subprocess.Popen[str], int]:
    code = ["-c", SERVE.format(n=backlog)] if backlog else ["-m", "tether.serve", "--port", "0"]
    proc = subprocess.Popen(
        [sys.executable, *code], stderr=subprocess.PIPE, text=True, env=env, cwd=cwd
    )
    assert proc.stderr is not None
    match = ANNOUNCE.search(proc.stderr.readline())
    if match is None:
        proc.kill()
        raise SystemExit("tether serve did not start")
    return proc, int(match.group(2))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))] * 1000


def event(session: str, cwd: Path) -> bytes:
    """Return a PreToolUse of an allowed call (a session of its own: no loop warning)."""
    doc = {
        "session_id": session,
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},
    }
    return json.dumps(doc).encode()


def burst(port: int, clients: int, cwd: Path, times: list[float], failures: list[str]) -> None:
    barrier = threading.Barrier(clients)
    lock = threading.Lock()
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"}

    def one() -> None:
        body = event(f"burst-{threading.get_ident()}-{time.monotonic_ns()}", cwd)
        barrier.wait()
        start = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            conn.request("POST", "/hook/claude-code", body, headers)
            resp = conn.getresponse()
            data = resp.read()
            outcome = "" if resp.status == 200 and json.loads(data) == {} else f"bad {data!r}"
        except ConnectionResetError:
            outcome = "reset"
        except OSError as exc:
            outcome = type(exc).__name__
        finally:
            conn.close()
        elapsed = time.perf_counter() - start
        with lock:
            times.append(elapsed)
            if outcome:
                failures.append(outcome)

    threads = [threading.Thread(target=one) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--backlog", type=int, help="listen backlog (default: tether serve's)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
        for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HOME"):
            (root / name).mkdir()
            env[name] = str(root / name)
        env["TETHER_SERVE_TOKEN"] = TOKEN
        proc, port = start(env, root, args.backlog)
        times: list[float] = []
        failures: list[str] = []
        try:
            burst(port, args.clients, root, [], [])  # warm-up
            for _ in range(args.rounds):
                burst(port, args.clients, root, times, failures)
        finally:
            proc.terminate()
            proc.communicate(timeout=30)
    load = os.getloadavg()[0]
    backlog = args.backlog or "default (512)"
    print(
        f"Python {platform.python_version()}, {os.cpu_count()} cores, load {load:.1f}; "
        f"backlog {backlog}; {args.rounds} bursts of {args.clients} new connections\n"
    )
    print("| requests | resets | other failures | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|")
    resets = failures.count("reset")
    print(
        f"| {len(times)} | {resets} | {len(failures) - resets} | {pct(times, 50):.1f} | "
        f"{pct(times, 99):.1f} | {max(times) * 1000:.1f} |"
    )
    kinds = sorted(set(failures))
    if kinds:
        print("\nfailures: " + ", ".join(f"{failures.count(k)} {k[:80]}" for k in kinds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
