"""The git read forms the specs call read-only, as JSONL for the execution oracle.

Run from the repository root:

    .venv/bin/python benchmarks/oracle_git_forms.py > /tmp/forms.jsonl
    .venv/bin/tether verify --jsonl --json < /tmp/forms.jsonl > /tmp/verdicts.jsonl
    grep -c '"changed": false' /tmp/verdicts.jsonl; grep '"changed": true' /tmp/verdicts.jsonl

Prints one ``{"command": …}`` line per form: every option of every git read subcommand spec
(``rules/readonly/vcs_specs.py``) in one spelling (attached or ``=`` value), and every
distinct git command of ``../shared/corpus/real/commands.jsonl`` classified read-only. Each
is checked to be classified read-only first: the oracle must then see no change.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tether.rules import readonly
from tether.rules.readonly.vcs_specs import READS
from tether.shell import parse_command
from tether.shell.options import FLAG, REQUIRED
from tether.shell.specs import grammar_of

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "real" / "commands.jsonl"
if not CORPUS.is_file():  # a worktree beside the main checkout
    CORPUS = Path("/work/shared/corpus/real/commands.jsonl")
OPERANDS = {"remote get-url": " origin"}


def _read_only(command: str) -> bool:
    return readonly.assess(parse_command(command)).read_only


def forms() -> list[str]:
    """Return one read-only form per option of each git read spec, then the corpus's."""
    out = []
    for sub, spec in READS.items():
        g = grammar_of(spec)
        for spelt, canonical in g.names.items():
            if canonical in spec.writes:
                continue
            kind = g.arity[canonical]
            long = spelt.startswith("--")
            if kind == FLAG:
                form = spelt
            elif kind == REQUIRED:
                form = f"{spelt}=v" if long else f"{spelt} v"
            else:
                form = f"{spelt}=v" if long else f"{spelt}v"
            out.append(f"git {sub} {form}{OPERANDS.get(sub, '')}")
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        command = json.loads(line)["command"]
        if "git " in command:
            out.append(command)
    return [c for c in dict.fromkeys(out) if _read_only(c)]


def main() -> int:
    for command in forms():
        sys.stdout.write(json.dumps({"command": command}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
