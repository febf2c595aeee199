"""The long run of the sed/awk differential test: generated scripts vs the real tools.

    .venv/bin/python benchmarks/bench_embedded_differential.py [--examples N] [--seed N]

Draws N sed scripts and N awk programs (default 2,000 each) from tests/embedded_differential.py,
runs each with every installed GNU sed / BusyBox sed and gawk / mawk / BusyBox awk in a
throwaway directory, and prints per tool: scripts run, accepted, ones that made a file,
missed effects (the reader did not foresee a file the tool made: unsound) and extra ones (a
file foreseen that the tool accepting the script did not make). The CI profile is
tests/test_embedded_differential.py (120 of each).
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests import embedded_differential as diff


def draw(strategy: object, n: int, seed_value: int) -> list[str]:
    out: list[str] = []

    @seed(seed_value)
    @settings(max_examples=n, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(strategy)
    def collect(text: str) -> None:
        out.append(text)

    collect()
    return out


def run(kind: str, scripts: list[str]) -> list[str]:
    tools = diff.sed_tools() if kind == "sed" else diff.awk_tools()
    compare = diff.sed_compare if kind == "sed" else diff.awk_compare
    counts: dict[str, collections.Counter[str]] = {n: collections.Counter() for n in tools}
    bad: list[str] = []
    start = time.monotonic()
    for script in scripts:
        for name, argv in tools.items():
            found = compare(argv, script)
            c = counts[name]
            c["run"] += 1
            c["accepted"] += found.tool.accepted
            c["made"] += bool(found.tool.made)
            c["missed"] += bool(found.missed)
            strict = kind == "awk" or name == "gnu sed"  # the sed reader models GNU sed
            c["extra"] += bool(found.extra) and strict
            if found.missed or (found.extra and strict):
                bad.append(f"{name}: {script!r} missed={sorted(found.missed)} "
                           f"extra={sorted(found.extra)}")  # fmt: skip
    took = time.monotonic() - start
    print(f"{kind}: {len(scripts)} scripts in {took:.0f} s")
    for name, c in counts.items():
        print(f"  {name:12} run {c['run']:5}  accepted {c['accepted']:5}  made a file "
              f"{c['made']:5}  missed {c['missed']}  extra {c['extra']}")  # fmt: skip
    return bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args()
    bad = run("sed", draw(diff.sed_scripts(), args.examples, args.seed))
    bad += run("awk", draw(diff.awk_programs(), args.examples, args.seed))
    for line in bad:
        print("DISAGREEMENT", line)
    print(f"disagreements: {len(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
