"""Count the CPU instructions the classifier spends on real commands: a figure load cannot move.

On a shared machine wall and CPU times of the same code vary by 20-40% from run to run; the
instructions executed do not (they vary by under 0.5%). This runs each checkout's ``src``
under valgrind's callgrind, collecting only inside the timed loop, over the first N distinct
commands of ../shared/corpus/real/commands.jsonl, after a warm-up on other commands. The
parser's time budget is lifted so that valgrind's slowness cannot change what is parsed.

    .venv/bin/python benchmarks/count_instructions.py SRC [SRC …] [--what parse|ro|full] [-n N]

``parse`` is ``parse_command``; ``ro`` adds ``readonly.assess``; ``full`` is
``classify_command``. Prints millions of instructions per SRC (needs ``valgrind``; about
half a minute per 1,000 commands).

``--chars 30-60`` measures only commands of that many characters (the corpus's median band:
what a p50 is made of). ``--cache`` also simulates the caches and the branch predictor
(``--cache-sim=yes --branch-sim=yes``, about twice as slow) and prints instruction- and
data-cache misses and branch mispredictions: at equal instructions, these are what a larger
code path per command costs.

``--out DIR`` keeps each checkout's callgrind file (``DIR/<n>.callgrind``, n counting the
checkouts given) for ``callgrind_annotate --show=Ir,I1mr,D1mr,D1mw,Bcm FILE``, which says
which C functions the instructions and misses went to.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from _checkout import checkout_env  # benchmarks/_checkout.py, beside this script

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real" / "commands.jsonl"
WARM_FROM = 10_000  # warm-up commands come from here on, never from the measured ones


def child(what: str, n: int, chars: str = "") -> None:
    """Run the measured loop inside ``divmod``, the one function callgrind collects in."""
    import tether.shell.parse as parse_module
    from tether.classify import classify_command
    from tether.rules import readonly
    from tether.shell import parse_command

    parse_module.PARSE_BUDGET = 1e9
    with CORPUS.open(encoding="utf-8") as fh:
        distinct = list(dict.fromkeys(json.loads(line)["command"] for line in fh))
    if chars:
        low, high = (int(x) for x in chars.split("-"))
        band = [c for c in distinct if low <= len(c) <= high]
        commands, warm = band[:n], band[n : n + 500]
        if not commands:
            raise SystemExit(f"no distinct real command has {low} to {high} characters")
    else:
        commands, warm = distinct[:n], distinct[WARM_FROM : WARM_FROM + 500]
    fn = {
        "parse": parse_command,
        "ro": lambda text: readonly.assess(parse_command(text)),
        "full": classify_command,
    }[what]
    for text in warm:
        fn(text)

    class Loop:
        def __rdivmod__(self, other: object) -> tuple[int, int]:
            for text in commands:
                fn(text)
            return (0, 0)

    divmod(0, Loop())


_EVENTS = {"Ir": "instructions", "I1mr": "I-cache misses", "D1mr": "D-cache read misses",
           "D1mw": "D-cache write misses", "Bcm": "mispredicted branches",
           "Bim": "mispredicted indirect jumps"}  # fmt: skip


def count(
    src: str, what: str, n: int, chars: str = "", cache: bool = False, out: str = "/dev/null"
) -> dict[str, float]:
    """Return the millions of each event one checkout spends in the loop (Ir alone by default)."""
    sim = ["--cache-sim=yes", "--branch-sim=yes"] if cache else []
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *sim,
            "--collect-atstart=no", "--toggle-collect=builtin_divmod*",
            sys.executable, __file__, "--child", what, str(n), chars]  # fmt: skip
    env = checkout_env(src)
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the measured run failed for {src}:\n{done.stderr[-2000:]}")
    events = re.search(r"Events\s*:\s*([\w ]+)", done.stderr)
    found = re.search(r"Collected :\s*([\d ]+)", done.stderr)
    if found is None or events is None:
        raise SystemExit(f"callgrind printed no count for {src}:\n{done.stderr[-2000:]}")
    names, counts = events.group(1).split(), [int(v) for v in found.group(1).split()]
    values = dict(zip(names, counts, strict=True))
    return {k: values[k] / 1e6 for k in _EVENTS if k in values}


def main() -> int:
    """Parse the arguments and print one count per checkout."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", nargs="*", help="a checkout's src directory (default: ./src)")
    parser.add_argument("--what", choices=("parse", "ro", "full"), default="parse")
    parser.add_argument("-n", type=int, default=1000, help="distinct real commands to run")
    parser.add_argument(
        "--chars", default="", metavar="MIN-MAX", help="only commands of MIN to MAX characters"
    )
    parser.add_argument(
        "--cache", action="store_true", help="also count cache misses and mispredicted branches"
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="keep each checkout's callgrind file in DIR (for callgrind_annotate)",
    )
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return 0
    low, _, high = args.chars.partition("-")
    if args.chars and not (low.isdigit() and high.isdigit() and int(low) <= int(high)):
        parser.error(
            f"--chars: expected MIN-MAX with MIN <= MAX, such as 30-60, got {args.chars!r}"
        )
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    band = f", {args.chars} characters" if args.chars else ""
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
    for i, src in enumerate(args.src or ["src"], 1):
        out = str(Path(args.out) / f"{i}.callgrind") if args.out else "/dev/null"
        counts = count(src, args.what, args.n, args.chars, args.cache, out)
        shown = ", ".join(f"{v:.2f} M {_EVENTS[k]}" for k, v in counts.items() if k != "Ir")
        print(f"{src}: {counts['Ir']:.1f} M instructions ({args.what}, {args.n:,} commands"
              f"{band}){'; ' + shown if shown else ''}")  # fmt: skip
        if args.out:
            print(f"  callgrind file: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
