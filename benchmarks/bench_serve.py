"""Sidecar latency: one hook decision through ``tether serve`` against the command hook process.

Starts ``tether serve`` as a real process (SQLite store in a temporary XDG state directory) and,
in the same run, sends the same Claude Code events three ways, interleaved event by event:

* ``tether hook claude-code`` as a new process per event (what a command hook costs);
* HTTP POST to ``/hook/claude-code`` on one kept-alive connection (what an HTTP hook costs);
* HTTP POST on a new connection per event (a client that does not keep connections alive).

Then it measures guard-call serialisation (``--lock session`` against ``--lock global``) with
several client threads, each driving its own session. Prints Markdown tables.

    .venv/bin/python benchmarks/bench_serve.py [--hook-runs 30] [--http-runs 400] [--threads 4]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

TETHER = Path(sys.executable).with_name("tether")
TOKEN = "bench-token"  # tether serve requires a token; the bench sets its own (TETHER_SERVE_TOKEN)
AUTH = {"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"}
ANNOUNCE = re.compile(r"listening on http://(\S+):(\d+) ")


def payload(event: str, command: str, n: int, cwd: Path, session: str = "bench") -> bytes:
    """Return a Claude Code payload for a Bash call."""
    data: dict[str, object] = {
        "session_id": session,
        "transcript_path": "/tmp/bench.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "bench"},
        "tool_use_id": f"toolu_{n:06d}",
    }
    if event == "PostToolUse":
        data["tool_response"] = {"stdout": "[]", "stderr": "", "interrupted": False}
    return json.dumps(data).encode()


def pct(values: list[float], q: float) -> float:
    """Return the q-th percentile (0..100) in milliseconds (nearest rank)."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index] * 1000


def start_server(env: dict[str, str], cwd: Path, *args: str) -> tuple[subprocess.Popen[str], int]:
    """Start ``tether serve --port 0 ARGS``; return the process and its port."""
    proc = subprocess.Popen(
        [str(TETHER), "serve", "--port", "0", *args],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
    )
    assert proc.stderr is not None
    match = ANNOUNCE.search(proc.stderr.readline())
    if match is None:
        proc.kill()
        raise SystemExit("tether serve did not start")
    return proc, int(match.group(2))


def stop_server(proc: subprocess.Popen[str]) -> None:
    """SIGTERM the server and wait for it."""
    proc.terminate()
    proc.communicate(timeout=30)


def hook_process(body: bytes, env: dict[str, str], cwd: Path) -> float:
    """Return the seconds one ``tether hook claude-code`` process took."""
    start = time.perf_counter()
    proc = subprocess.run(
        [str(TETHER), "hook", "claude-code"], input=body, capture_output=True, env=env, cwd=cwd
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"tether hook exited {proc.returncode}: {proc.stderr!r}")
    return elapsed


def curl_forward(body: bytes, port: int) -> float:
    """Return the seconds a ``curl`` process posting the event took (a command-hook forwarder)."""
    start = time.perf_counter()
    proc = subprocess.run(
        [
            "curl",
            "-sS",
            "-H",
            "Content-Type: application/json",
            "-H",
            f"Authorization: Bearer {TOKEN}",
            "--data-binary",
            "@-",
            f"http://127.0.0.1:{port}/hook/claude-code",
        ],
        input=body,
        capture_output=True,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"curl exited {proc.returncode}: {proc.stderr!r}")
    return elapsed


def fallback_check(port: int, env: dict[str, str], cwd: Path) -> float:
    """Return the seconds the ``--http`` fallback handler takes while the service is up."""
    from tether.serve.install import fallback_command

    command = fallback_command(f"http://127.0.0.1:{port}", f"{TETHER} hook claude-code")
    start = time.perf_counter()
    proc = subprocess.run(command, shell=True, input=b"{}", capture_output=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0 or proc.stdout:
        raise SystemExit(f"the fallback ran the hook: {proc.stdout!r} {proc.stderr!r}")
    return elapsed


def post(conn: http.client.HTTPConnection, body: bytes) -> bytes:
    """Send one hook event on ``conn``; return the reply body."""
    conn.request("POST", "/hook/claude-code", body, AUTH)
    resp = conn.getresponse()
    data = resp.read()
    if resp.status != 200:
        raise SystemExit(f"HTTP {resp.status}: {data!r}")
    return data


def fresh(port: int, body: bytes) -> bytes:
    """Send one hook event on a new connection, then close it."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        return post(conn, body)
    finally:
        conn.close()


def timed(fn: Callable[[], object]) -> float:
    """Return the seconds ``fn`` took."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def latency(args: argparse.Namespace, env: dict[str, str], project: Path) -> None:
    """Print the command hook against the sidecar, same events, interleaved."""
    proc, port = start_server(env, project)
    keep = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    curl = shutil.which("curl")
    events = [
        ("PreToolUse `ls -la` (allow)", "PreToolUse", "ls -la"),
        ("PreToolUse `rm -rf /` (deny)", "PreToolUse", "rm -rf /"),
        ("PostToolUse `gh api …` -> `[]`", "PostToolUse", "gh api repos/o/r/pulls/1/reviews"),
    ]
    rows = []
    checks: list[float] = []
    try:
        for label, event, command in events:
            samples: dict[str, list[float]] = {"hook": [], "keep": [], "new": [], "curl": []}
            for n in range(5):  # warm up: .pyc files, the config cache, the SQLite file
                hook_process(payload(event, command, n, project), env, project)
                post(keep, payload(event, command, n, project))
            for n in range(args.http_runs):
                body = payload(event, command, n, project)
                if n < args.hook_runs:  # the same event through the process, same moment
                    samples["hook"].append(hook_process(body, env, project))
                    if curl:
                        samples["curl"].append(curl_forward(body, port))
                        checks.append(fallback_check(port, env, project))
                samples["keep"].append(timed(partial(post, keep, body)))
                samples["new"].append(timed(partial(fresh, port, body)))
            rows.append((label, samples))
    finally:
        keep.close()
        stop_server(proc)
    print(
        "| event | command hook p50 / p99 ms | serve, kept-alive p50 / p99 ms "
        "| serve, new connection p50 / p99 ms | curl → serve p50 / p99 ms | speed-up (p50) |"
    )
    print("|---|---|---|---|---|---|")
    for label, s in rows:
        curl_cell = f"{pct(s['curl'], 50):.1f} / {pct(s['curl'], 99):.1f}" if s["curl"] else "n/a"
        print(
            f"| {label} | {pct(s['hook'], 50):.1f} / {pct(s['hook'], 99):.1f} "
            f"| {pct(s['keep'], 50):.2f} / {pct(s['keep'], 99):.2f} "
            f"| {pct(s['new'], 50):.2f} / {pct(s['new'], 99):.2f} | {curl_cell} "
            f"| {pct(s['hook'], 50) / pct(s['keep'], 50):.0f}× |"
        )
    if checks:
        print(
            f"\n`tether install claude-code --http` fallback handler while the service is up "
            f"(`sh` + `curl /health`, runs beside the HTTP handler): p50 {pct(checks, 50):.1f} ms, "
            f"p99 {pct(checks, 99):.1f} ms over {len(checks)} runs"
        )


def client(port: int, session: str, runs: int, project: Path, out: list[float]) -> None:
    """Drive one session on one kept-alive connection; append each event's latency to ``out``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    mine = []
    for n in range(runs):
        event = "PreToolUse" if n % 2 == 0 else "PostToolUse"
        body = payload(event, f"cat file{n // 2 % 7}", n // 2, project, session)
        start = time.perf_counter()
        post(conn, body)
        mine.append(time.perf_counter() - start)
    conn.close()
    out.extend(mine)  # list.extend is atomic under the GIL


def in_process(args: argparse.Namespace, env: dict[str, str], project: Path) -> None:
    """Print the same events through ``Service.hook`` directly: the decision without HTTP."""
    from tether.hosts import adapter
    from tether.serve import Options, Service

    claude = adapter("claude-code")
    service = Service(Options(port=0), environ=env, cwd=project)
    events = [("PreToolUse", "ls -la"), ("PreToolUse", "rm -rf /"), ("PostToolUse", "gh api x")]
    samples: list[float] = []
    inline: list[float] = []
    try:
        for n in range(args.http_runs):
            for event, command in events:
                body = payload(event, command, n, project, "in-process")
                samples.append(timed(partial(service.hook, "claude-code", body)))
                seen: dict[str, str | None] = {"event": None}
                inline.append(timed(partial(service._answer, claude, body, seen)))
    finally:
        service.close()
    print(
        f"\nThe same events through `Service.hook` in-process (no HTTP): p50 "
        f"{pct(samples, 50):.2f} ms, p99 {pct(samples, 99):.2f} ms; of which the deadline "
        f"thread costs p50 {pct(samples, 50) - pct(inline, 50):.2f} ms "
        f"(the decision alone: p50 {pct(inline, 50):.2f} ms, p99 {pct(inline, 99):.2f} ms)"
    )


def contention(args: argparse.Namespace, env: dict[str, str], project: Path) -> None:
    """Print p50/p99 and throughput with several clients, per-session against global locking."""
    print()
    print("| lock | clients | events | p50 ms | p99 ms | events/s |")
    print("|---|---|---|---|---|---|")
    for lock in ("session", "global"):
        proc, port = start_server(env, project, "--lock", lock)
        samples: list[float] = []
        try:
            threads = [
                threading.Thread(
                    target=client,
                    args=(port, f"{lock}-{k}", args.contention_runs, project, samples),
                )
                for k in range(args.threads)
            ]
            start = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - start
        finally:
            stop_server(proc)
        print(
            f"| {lock} | {args.threads} | {len(samples)} | {pct(samples, 50):.2f} "
            f"| {pct(samples, 99):.2f} | {len(samples) / wall:.0f} |"
        )


def main() -> int:
    """Run the benchmark and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hook-runs", type=int, default=30, help="command hook runs per event")
    parser.add_argument("--http-runs", type=int, default=400, help="HTTP runs per event")
    parser.add_argument("--threads", type=int, default=4, help="clients in the contention run")
    parser.add_argument("--contention-runs", type=int, default=200, help="events per client")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
        for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
            (root / name).mkdir()
            env[name] = str(root / name)
        env["HOME"] = str(root)
        env["TETHER_SERVE_TOKEN"] = TOKEN
        project = root / "project"
        project.mkdir()
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(
            f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores "
            f"(load average {load:.1f}); SQLite store; {args.hook_runs} command-hook runs and "
            f"{args.http_runs} HTTP runs per event after 5 warm-up runs, interleaved\n"
        )
        latency(args, env, project)
        in_process(args, env, project)
        contention(args, env, project)
    return 0


if __name__ == "__main__":
    sys.exit(main())
