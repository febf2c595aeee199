"""Hook latency: one ``tether hook claude-code`` event end to end as a process, as hosts run it.

Measures wall time from spawn to exit (payload on stdin, reply read) for several events, against
a bare ``python -c pass`` on the same interpreter, and prints a Markdown table of p50/p95.
State goes to a throwaway SQLite file (XDG dirs point at a temporary directory). Bytecode
caching is switched on for the children (``PYTHONDONTWRITEBYTECODE`` removed), as after a normal
``pip install``; one row shows the cost when no ``.pyc`` can be used at all.

    .venv/bin/python benchmarks/bench_hook.py [--runs 60] [--stages] [--importtime]
        [--baseline OLD/src] [--daemon]

Rows marked "daemon" run the command ``tether install`` writes (``python -I -S …/hook.py``)
against a warm daemon; "in-process" runs it with the daemon out of reach (its socket folder
unusable), which is what a call costs when no daemon answers. ``--daemon`` adds the first-call
and daemon-start figures and a burst of 32 simultaneous connections to a warm daemon.

``--baseline`` adds rows for the same hook events run from another source tree (e.g. an older
commit's ``src`` from ``git archive``) on ``PYTHONPATH``, in the same round-robin, so a
before/after comparison sees the same machine load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

TETHER = Path(sys.executable).with_name("tether")
HOOK_PY = Path(__file__).resolve().parents[1] / "src" / "tether" / "daemon" / "hook.py"


def payload(event: str, command: str, n: int, cwd: Path, result_size: int = 2) -> str:
    """Return a Claude Code payload for a Bash call (a PostToolUse result of ``result_size``)."""
    data: dict[str, object] = {
        "session_id": "bench-session",
        "transcript_path": "/tmp/bench.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "bench"},
        "tool_use_id": f"toolu_{n:06d}",
    }
    if event == "PostToolUse":
        data["tool_response"] = {
            "stdout": "[]" if result_size <= 2 else ("x" * 63 + "\n") * (result_size // 64),
            "stderr": "",
            "interrupted": False,
            "isImage": False,
        }
    return json.dumps(data)


def timed(argv: list[str], stdin: str, env: dict[str, str], cwd: Path) -> float:
    """Return the seconds one process took from spawn to exit."""
    start = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 2):
        raise SystemExit(f"{argv} exited {proc.returncode}: {proc.stderr}")
    return elapsed


# One fresh process per round: how long each stage of a PreToolUse `ls -la` takes.
STAGES = """
import json, sys, time
t = [time.perf_counter()]
import tether.cli
t.append(time.perf_counter())
from tether.hosts import runner
t.append(time.perf_counter())
from tether.config import load_config
config = load_config()
t.append(time.perf_counter())
from tether.store.open import open_store
store = open_store(config)
t.append(time.perf_counter())
import tether.approval, tether.guard
t.append(time.perf_counter())
from tether.model import ToolCall
tether.guard.Guard(config, store).before_call(ToolCall("b", "Bash", {"command": "ls -la"}, "t"))
store.close()
t.append(time.perf_counter())
print(json.dumps([b - a for a, b in zip(t, t[1:])]))
"""
STAGE_NAMES = [
    "import tether.cli (dispatcher, tether.errors)",
    "import tether.hosts.runner (adapters, tether.model)",
    "load_config (cached)",
    "open_store (sqlite)",
    "import tether.guard + tether.approval (classifier, rule catalogues, tree-sitter)",
    "Guard.before_call (parse, classify, one SQLite transaction)",
]


def pct(values: list[float], q: float) -> float:
    """Return the q-th percentile (0..100) in milliseconds."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index] * 1000


def main() -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument(
        "--stages",
        action="store_true",
        help="also time the stages of a hook in fresh processes (min and p50)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a source tree (its src/ folder) to time the same events from, for comparison",
    )
    parser.add_argument(
        "--importtime",
        action="store_true",
        help="also print the slowest imports of one hook process",
    )
    parser.add_argument(
        "--daemon",
        action="store_true",
        help="also measure the first call, the daemon's start and a burst of 32 connections",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("TETHER_") and k != "PYTHONDONTWRITEBYTECODE"
        }
        no_cache = root / "empty-pycache"
        for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
            (root / name).mkdir()
            env[name] = str(root / name)
        env["HOME"] = str(root)
        project = root / "project"
        project.mkdir()
        hook = [str(TETHER), "hook", "claude-code"]
        fast = [sys.executable, "-I", "-S", str(HOOK_PY), "claude-code"]
        (root / "run").mkdir(mode=0o700)
        (root / "closed" / "tether").mkdir(mode=0o755, parents=True)  # never used: not private
        warm_env = {**env, "XDG_RUNTIME_DIR": str(root / "run"), "TETHER_DAEMON_IDLE": "3600"}
        cold_env = {**env, "XDG_RUNTIME_DIR": str(root / "closed")}
        post4k = "gh api repos/o/r/pulls/1/reviews"
        cases: list[tuple[str, list[str], Callable[[int], str]]] = [
            ("bare `python -c pass`", [sys.executable, "-c", "pass"], lambda n: ""),
            (
                "PreToolUse `ls -la` (allow)",
                hook,
                lambda n: payload("PreToolUse", "ls -la", n, project),
            ),
            (
                "PreToolUse `rm -rf /` (deny)",
                hook,
                lambda n: payload("PreToolUse", "rm -rf /", n, project),
            ),
            (
                "PostToolUse `gh api …` -> `[]`",
                hook,
                lambda n: payload("PostToolUse", "gh api repos/o/r/pulls/1/reviews", n, project),
            ),
            (
                "PostToolUse, 4 KB result",
                hook,
                lambda n: payload("PostToolUse", post4k, n, project, 4096),
            ),
            ("malformed JSON (fail closed)", hook, lambda n: "{not json"),
            (
                "daemon: PreToolUse `ls -la` (allow)",
                fast,
                lambda n: payload("PreToolUse", "ls -la", n, project),
            ),
            (
                "daemon: PreToolUse `rm -rf /` (deny)",
                fast,
                lambda n: payload("PreToolUse", "rm -rf /", n, project),
            ),
            (
                "daemon: PostToolUse, 4 KB result",
                fast,
                lambda n: payload("PostToolUse", post4k, n, project, 4096),
            ),
            (
                "in-process (no daemon): PreToolUse `ls -la`",
                fast,
                lambda n: payload("PreToolUse", "ls -la", n, project),
            ),
            (
                "in-process (no daemon): PostToolUse, 4 KB result",
                fast,
                lambda n: payload("PostToolUse", post4k, n, project, 4096),
            ),
            (
                "PreToolUse `ls -la`, no bytecode cache",
                [sys.executable, "-X", f"pycache_prefix={no_cache}", str(TETHER), *hook[1:]],
                lambda n: payload("PreToolUse", "ls -la", n, project),
            ),
        ]
        envs = [
            {**env, "PYTHONDONTWRITEBYTECODE": "1"}
            if "no bytecode" in label
            else warm_env
            if label.startswith("daemon")
            else cold_env
            if label.startswith("in-process")
            else env
            for label, _, _ in cases
        ]
        if args.baseline is not None:
            old = {**env, "PYTHONPATH": str(args.baseline.resolve())}
            for label, argv, make in list(cases[1:4]):
                cases.append((f"baseline: {label}", argv, make))
                envs.append(old)
        for n in range(5):  # warm up: .pyc files, config cache, the SQLite file
            for (_, argv, make), run_env in zip(cases, envs, strict=True):
                timed(argv, make(n), run_env, project)
        # Round-robin, so that every case sees the same background load on a shared machine.
        times: list[list[float]] = [[] for _ in cases]
        for n in range(args.runs):
            for i, ((_, argv, make), run_env) in enumerate(zip(cases, envs, strict=True)):
                times[i].append(timed(argv, make(n), run_env, project))
        results = [(label, times[i]) for i, (label, _, _) in enumerate(cases)]
        base = statistics.median(results[0][1]) * 1000
        print(
            f"Python {platform.python_version()} on {platform.machine()}, "
            f"{os.cpu_count()} cores, {args.runs} round-robin rounds after 5 warm-up rounds\n"
        )
        print("| process | p50 ms | p95 ms | p50 / bare python |")
        print("|---|---|---|---|")
        for label, samples in results:
            p50 = pct(samples, 50)
            print(f"| {label} | {p50:.1f} | {pct(samples, 95):.1f} | {p50 / base:.2f}× |")
        daemon_pid = _daemon_pid(warm_env)
        if daemon_pid:
            os.kill(daemon_pid, 9)
        if args.daemon:
            print()
            _first_calls(env, root, project)
            _burst(warm_env, project)
        if args.stages:
            rounds = []
            for _ in range(args.runs):
                proc = subprocess.run(
                    [sys.executable, "-c", STAGES],
                    capture_output=True,
                    text=True,
                    env=env,
                    cwd=project,
                    check=True,
                )
                rounds.append(json.loads(proc.stdout))
            print("\n| stage of a PreToolUse `ls -la` | min ms | p50 ms |")
            print("|---|---|---|")
            for i, stage in enumerate(STAGE_NAMES):
                column = [r[i] for r in rounds]
                print(f"| {stage} | {min(column) * 1000:.1f} | {pct(column, 50):.1f} |")
        if args.importtime:
            proc = subprocess.run(
                [sys.executable, "-X", "importtime", str(TETHER), *hook[1:]],
                input=payload("PreToolUse", "ls -la", 0, project),
                capture_output=True,
                text=True,
                env=env,
                cwd=project,
            )
            rows = []
            for line in proc.stderr.splitlines():
                if line.startswith("import time:") and "|" in line:
                    parts = [p.strip() for p in line[len("import time:") :].split("|")]
                    if parts[0].isdigit():
                        rows.append((int(parts[1]), parts[2]))
            print("\nslowest imports (cumulative µs) in one hook process:")
            for cumulative, name in sorted(rows, reverse=True)[:15]:
                print(f"  {cumulative:>8}  {name}")
    return 0


def _daemon_pid(env: dict[str, str]) -> int | None:
    sys.path.insert(0, str(HOOK_PY.parents[2]))
    from tether.daemon import hook as wire

    envb = {k.encode(): v.encode() for k, v in env.items()}
    reply = wire.ask(wire.socket_path(str(HOOK_PY), envb), wire.request("status", [], b""), 5)
    if reply is None:
        return None
    return int(json.loads(reply[1])["pid"])


def _first_calls(env: dict[str, str], root: Path, project: Path, rounds: int = 5) -> None:
    """Time a first call (no daemon: answers in-process, starts one) and the daemon's start."""
    first: list[float] = []
    start: list[float] = []
    for i in range(rounds):
        run = root / f"first-{i}"
        run.mkdir(mode=0o700)
        fenv = {**env, "XDG_RUNTIME_DIR": str(run), "TETHER_DAEMON_IDLE": "60"}
        t0 = time.perf_counter()
        timed(
            [sys.executable, "-I", "-S", str(HOOK_PY), "claude-code"],
            payload("PreToolUse", "ls -la", 0, project),
            fenv,
            project,
        )
        first.append(time.perf_counter() - t0)
        pid = None
        while pid is None and time.perf_counter() - t0 < 60:
            pid = _daemon_pid(fenv)
        start.append(time.perf_counter() - t0)
        if pid:
            os.kill(pid, 9)
    print("| no daemon yet | p50 ms | max ms |")
    print("|---|---|---|")
    print(
        f"| first call (answers in-process, starts the daemon) | {pct(first, 50):.1f} | "
        f"{max(first) * 1000:.1f} |"
    )
    print(
        f"| spawn to daemon answering (warm classifier) | {pct(start, 50):.1f} | "
        f"{max(start) * 1000:.1f} |"
    )


def _burst_round(path: str, kind: str, n: int, r: int, project: Path) -> tuple[list[float], int]:
    """Open ``n`` connections at once; return their latencies and how many failed."""
    import threading

    from tether.daemon import hook as wire

    barrier = threading.Barrier(n)
    lock = threading.Lock()
    latencies: list[float] = []
    failures = [0]

    def one(i: int) -> None:
        body = payload("PreToolUse", f"ls -la dir{i}", r * n + i, project).encode()
        if kind == "hook":
            data = wire.request(kind, [b"claude-code", str(project).encode()], body)
        else:
            data = wire.request(kind, [], b"")
        barrier.wait()
        t0 = time.perf_counter()
        try:
            reply = wire.ask(path, data, 30)
        except OSError:
            reply = None
        elapsed = time.perf_counter() - t0
        with lock:
            latencies.append(elapsed)
            failures[0] += reply is None

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, failures[0]


def _burst(env: dict[str, str], project: Path, n: int = 32, rounds: int = 5) -> None:
    """Open ``n`` connections at once to a warm daemon, ``rounds`` times; count failures."""
    from tether.daemon import hook as wire

    envb = {k.encode(): v.encode() for k, v in env.items()}
    path = wire.socket_path(str(HOOK_PY), envb)
    timed(
        [sys.executable, "-I", "-S", str(HOOK_PY), "claude-code"],
        payload("PreToolUse", "ls", 0, project),
        env,
        project,
    )
    while _daemon_pid(env) is None:
        time.sleep(0.05)
    for kind in ("status", "hook"):
        latencies: list[float] = []
        failures = 0
        for r in range(rounds):
            lat, failed = _burst_round(path, kind, n, r, project)
            latencies += lat
            failures += failed
        label = "status (connection only)" if kind == "status" else "PreToolUse `ls -la …`"
        print(
            f"\nburst of {n} simultaneous connections x {rounds}, {label}: "
            f"{failures} failed or reset; p50 {pct(latencies, 50):.1f} ms, "
            f"p99 {pct(latencies, 99):.1f} ms, max {max(latencies) * 1000:.1f} ms"
        )
    pid = _daemon_pid(env)
    if pid:
        os.kill(pid, 9)


if __name__ == "__main__":
    raise SystemExit(main())
