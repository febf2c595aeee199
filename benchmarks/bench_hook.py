"""Hook latency: one ``tether hook claude-code`` event end to end as a process, as hosts run it.

Measures wall time from spawn to exit (payload on stdin, reply read) for several events, against
a bare ``python -c pass`` on the same interpreter, and prints a Markdown table of p50/p95.
State goes to a throwaway SQLite file (XDG dirs point at a temporary directory). Bytecode
caching is switched on for the children (``PYTHONDONTWRITEBYTECODE`` removed), as after a normal
``pip install``; one row shows the cost when no ``.pyc`` can be used at all.

    .venv/bin/python benchmarks/bench_hook.py [--runs 60] [--stages] [--importtime]
        [--baseline OLD/src]

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


def payload(event: str, command: str, n: int, cwd: Path) -> str:
    """Return a Claude Code payload for a Bash call."""
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
            "stdout": "[]",
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
            ("malformed JSON (fail closed)", hook, lambda n: "{not json"),
            (
                "PreToolUse `ls -la`, no bytecode cache",
                [sys.executable, "-X", f"pycache_prefix={no_cache}", str(TETHER), *hook[1:]],
                lambda n: payload("PreToolUse", "ls -la", n, project),
            ),
        ]
        envs = [
            {**env, "PYTHONDONTWRITEBYTECODE": "1"} if "no bytecode" in label else env
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


if __name__ == "__main__":
    raise SystemExit(main())
