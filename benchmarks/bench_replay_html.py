"""``tether replay --html`` against the text replay, over all 75 real sessions.

Run: ``.venv/bin/python benchmarks/bench_replay_html.py [--rounds N]``. Each round runs the
real command as a process (start-up, loading, the guard, rendering) both ways, alternating so
load on the machine hits both alike; prints the medians, the ratio (the issue's target: the
HTML run within 2x the text run) and the page size.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "real" / "trajectories"


def timed(args: list[str]) -> float:
    """Run ``tether replay ARGS`` once; return the wall-clock seconds."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "tether", "replay", *args],
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    return time.perf_counter() - started


def main() -> None:
    """Time both runs and print a Markdown table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    opts = parser.parse_args()
    files = sorted(CORPUS.glob("*.jsonl"))
    common = [str(CORPUS), "--set", "loops.hard_stop=true"]
    text: list[float] = []
    html: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "all.html"
        for _ in range(opts.rounds):
            text.append(timed(common))
            html.append(timed([*common, "--html", str(page)]))
        size = page.stat().st_size
    t, h = statistics.median(text), statistics.median(html)
    print(f"{len(files)} sessions, {opts.rounds} rounds each way")
    print("| run | median s | min s |")
    print("|---|---|---|")
    print(f"| `tether replay DIR` (text) | {t:.2f} | {min(text):.2f} |")
    print(f"| `tether replay DIR --html OUT` | {h:.2f} | {min(html):.2f} |")
    print(f"ratio html/text: {h / t:.2f}x (target <= 2x); page {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
