"""How many danger checks run per simple command, over the real corpus.

Run from the repository root (the real corpus is read from ../shared/corpus):

    .venv/bin/python benchmarks/count_checks.py [--top N]

``PYTHONPATH=OTHER/src`` counts another checkout the same way (the "before" of a change).
Every distinct command of the corpus is parsed and each of its simple commands is dispatched
as the danger catalogue dispatches it (its program's checks, then those its shape calls for:
redirects, wrappers, a computed command word; the self-protection checks dropped when the
input names nothing of Tether's). Prints the mean and the distribution of checks per simple
command, and the checks that run on the largest share of simple commands.
"""

from __future__ import annotations

import inspect
import json
import sys
from collections import Counter
from pathlib import Path

from tether.rules import danger
from tether.rules.danger import secrets, self_protection
from tether.rules.danger._base import Budget, Scope, name_of
from tether.shell import parse_command

CORPUS = (
    Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "real" / "commands.jsonl"
)


def _name(check: object) -> str:
    module = getattr(check, "__module__", "?").rpartition(".")[2]
    return f"{module}.{getattr(check, '__qualname__', repr(check))}"


def main(argv: list[str]) -> None:
    top = int(argv[argv.index("--top") + 1]) if "--top" in argv else 12
    with CORPUS.open(encoding="utf-8") as fh:
        commands = sorted({json.loads(line)["command"] for line in fh})
    # Newer checkouts dispatch the metadata check only for inputs that may name a host.
    gated = "metadata" in inspect.signature(danger._checks_of).parameters
    per_command: list[int] = []
    share: Counter[str] = Counter()
    for text in commands:
        model = parse_command(text)
        scope = Scope(model, 0, Budget())
        concerns = self_protection.concerns(scope)
        for cmd in model.commands:
            if gated:
                metadata = secrets.may_name_metadata(model)
                checks, quiet = danger._checks_of(cmd, name_of(cmd), metadata)
            else:
                checks, quiet = danger._checks_of(cmd, name_of(cmd))
            run = checks if concerns else quiet
            per_command.append(len(run))
            share.update({_name(c) for c in run})
    n = len(per_command)
    mean = sum(per_command) / n
    ordered = sorted(per_command)
    print(f"checkout: {Path(danger.__file__).resolve().parents[3]}")
    print(f"distinct commands: {len(commands):,}; simple commands judged: {n:,}")
    print(f"checks per simple command: mean {mean:.2f}, median {ordered[n // 2]}, "
          f"p99 {ordered[int(0.99 * n)]}, max {ordered[-1]}")  # fmt: skip
    everywhere = [c for c, k in share.items() if k >= 0.25 * n]
    print(f"checks on >= 25% of simple commands: {len(everywhere)} of {len(share)} seen")
    print()
    print("| check | simple commands it runs on |")
    print("|---|---:|")
    for check, k in share.most_common(top):
        print(f"| `{check}` | {100 * k / n:.1f}% |")


if __name__ == "__main__":
    main(sys.argv[1:])
