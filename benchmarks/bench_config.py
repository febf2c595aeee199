"""Config load cost in a fresh process (user + project file), cached and uncached, and its share
of a hook call.

Each variant is a new interpreter, as a hook runs: ``python -c pass`` (the floor), ``import
tether``, ``load_config()`` with a warm cache (no YAML parser imported), ``load_config()``
without the cache (ruamel.yaml imported and both files parsed and validated), and one
``tether hook claude-code`` PreToolUse event with the same files. HOME and the XDG directories
point at a temporary directory; the files are back-dated past the cache's racy window.

    .venv/bin/python benchmarks/bench_config.py [--runs 40]

Prints a Markdown table (median and p90 wall time, spawn to exit) for docs/benchmarks.md.
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
from pathlib import Path

USER = """\
# my defaults
loops:
  hard_stop: true
  warn_after:
    exact_failure: 3
approvals:
  deny: ["git push --force*", "rm -rf /*"]
tools:
  shell:
    my_shell: cmd
"""
PROJECT = """\
loops:
  window: 128
store:
  backend: sqlite
"""

LOAD = "from tether.config import load_config; load_config({})"


def timed(argv: list[str], env: dict[str, str], cwd: Path, stdin: str = "") -> float:
    """Return the seconds one process took from spawn to exit."""
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv} exited {done.returncode}: {done.stderr}")
    return elapsed


def stats(samples: list[float]) -> tuple[float, float]:
    """Return (median, p90) in milliseconds."""
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p90 * 1000


def setup(root: Path) -> tuple[dict[str, str], Path]:
    """Create HOME, XDG dirs, a user file and a repository with a project file."""
    home = root / "home"
    repo = root / "repo"
    (repo / ".git").mkdir(parents=True)
    user = home / "config" / "tether" / "config.yaml"
    user.parent.mkdir(parents=True)
    user.write_text(USER, encoding="utf-8")
    (repo / ".tether.yaml").write_text(PROJECT, encoding="utf-8")
    then = time.time() - 60
    for path in (user, repo / ".tether.yaml"):
        os.utime(path, (then, then))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    # Installed code runs from .pyc files; without them every run would recompile whatever
    # changed since they were last written, and that would be the figure measured.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_STATE_HOME=str(home / "state"),
    )
    return env, repo


def hook_payload(repo: Path, n: int) -> str:
    """Return a Claude Code PreToolUse payload for a read-only Bash call."""
    return json.dumps(
        {
            "session_id": "bench-config",
            "transcript_path": "/tmp/bench.jsonl",
            "cwd": str(repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git status", "description": "bench"},
            "tool_use_id": f"toolu_{n:06d}",
        }
    )


MARGINAL = """
import time
import json, pathlib, dataclasses, tether.model  # what any hook imports anyway
start = time.perf_counter()
from tether.config import load_config
load_config({})
print((time.perf_counter() - start) * 1000)
"""


def marginal(repo: Path, env: dict[str, str], runs: int, args: str) -> float:
    """Return the median ms a fresh process spends importing tether.config and loading."""
    out = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", MARGINAL.format(args)],
            capture_output=True,
            text=True,
            env=env,
            cwd=repo,
        )
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        out.append(float(done.stdout))
    return statistics.median(out)


def in_process(repo: Path, env: dict[str, str], runs: int) -> tuple[float, float]:
    """Return the median in-process load time (ms), cached and uncached."""
    code = f"""
import os, sys, time, statistics, json
from pathlib import Path
from tether.config import load_config
repo = Path({str(repo)!r})
load_config(cwd=repo)
def t(**kw):
    out = []
    for _ in range({runs}):
        s = time.perf_counter(); load_config(cwd=repo, **kw); out.append(time.perf_counter() - s)
    return statistics.median(out) * 1000
print(json.dumps([t(), t(use_cache=False)]))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=repo
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    cached, uncached = json.loads(done.stdout)
    return cached, uncached


def main() -> int:
    """Run the benchmark and print the results table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    python = sys.executable
    tether = str(Path(python).with_name("tether"))
    with tempfile.TemporaryDirectory() as tmp:
        env, repo = setup(Path(tmp))
        # Warm the cache, the .pyc files and the OS page cache once.
        timed([python, "-c", LOAD.format("")], env, repo)
        timed([python, "-c", LOAD.format("use_cache=False")], env, repo)
        timed([tether, "hook", "claude-code"], env, repo, hook_payload(repo, 0))
        variants: list[tuple[str, list[str], str]] = [
            ("`python -c pass`", [python, "-c", "pass"], ""),
            ("`import tether`", [python, "-c", "import tether"], ""),
            (
                "hook's own imports (json, pathlib, dataclasses, tether.model)",
                [python, "-c", "import json, pathlib, dataclasses, tether.model"],
                "",
            ),
            ("`load_config()`, cache warm", [python, "-c", LOAD.format("")], ""),
            (
                "`load_config()`, no cache (ruamel.yaml)",
                [python, "-c", LOAD.format("use_cache=False")],
                "",
            ),
            ("`tether hook claude-code` PreToolUse", [tether, "hook", "claude-code"], "hook"),
        ]
        samples: dict[str, list[float]] = {name: [] for name, _, _ in variants}
        for n in range(args.runs):
            # Interleave the variants so drift on a shared machine hits them all alike.
            for name, argv, stdin in variants:
                text = hook_payload(repo, n) if stdin else ""
                samples[name].append(timed(argv, env, repo, text))
        cached_ms, uncached_ms = in_process(repo, env, 200)
        fresh_cached = marginal(repo, env, args.runs, "")
        fresh_uncached = marginal(repo, env, args.runs, "use_cache=False")

    rows = {name: stats(values) for name, values in samples.items()}
    floor = rows["`python -c pass`"][0]
    load = os.getloadavg()[0]
    print(
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"load average {load:.1f}; {args.runs} runs each, user + project file; wall time from "
        "spawn to exit.\n"
    )
    print("| variant | median ms | p90 ms | over `python -c pass` |")
    print("|---|---|---|---|")
    for name, (median, p90) in rows.items():
        print(f"| {name} | {median:.1f} | {p90:.1f} | {median - floor:+.1f} |")
    hook = rows["`tether hook claude-code` PreToolUse"][0]
    print()
    print(
        f"Timed inside a fresh process, after the imports every hook needs anyway (json, "
        f"pathlib, dataclasses, tether.model): `import tether.config` + `load_config()` takes "
        f"{fresh_cached:.1f} ms with a warm cache and {fresh_uncached:.1f} ms without one "
        f"(ruamel.yaml import + parse + validate)."
    )
    print(
        f"Share of one hook call ({hook:.0f} ms median): {100 * fresh_cached / hook:.1f}% "
        f"cached, {100 * fresh_uncached / hook:.1f}% uncached."
    )
    print(f"Already-imported `load_config()`: {cached_ms:.2f} ms cached, {uncached_ms:.2f} ms not.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
