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


def child(what: str, n: int) -> None:
    """Run the measured loop inside ``divmod``, the one function callgrind collects in."""
    import tether.shell.parse as parse_module
    from tether.classify import classify_command
    from tether.rules import readonly
    from tether.shell import parse_command

    parse_module.PARSE_BUDGET = 1e9
    with CORPUS.open(encoding="utf-8") as fh:
        distinct = list(dict.fromkeys(json.loads(line)["command"] for line in fh))
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


def count(src: str, what: str, n: int) -> float:
    """Return the millions of instructions one checkout spends in the loop."""
    argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
            "--collect-atstart=no", "--toggle-collect=builtin_divmod*",
            sys.executable, __file__, "--child", what, str(n)]  # fmt: skip
    env = checkout_env(src)
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no count for {src}:\n{done.stderr[-2000:]}")
    return int(found.group(1)) / 1e6


def main() -> int:
    """Parse the arguments and print one count per checkout."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", nargs="*", help="a checkout's src directory (default: ./src)")
    parser.add_argument("--what", choices=("parse", "ro", "full"), default="parse")
    parser.add_argument("-n", type=int, default=1000, help="distinct real commands to run")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return 0
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    for src in args.src or ["src"]:
        print(f"{src}: {count(src, args.what, args.n):.1f} M instructions ({args.what}, "
              f"{args.n:,} commands)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
