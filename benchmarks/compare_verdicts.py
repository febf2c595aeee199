"""Dump every judge's verdict on the shared corpora, so a refactor can prove it changed none.

Run: ``.venv/bin/python benchmarks/compare_verdicts.py OUT.jsonl`` before and after a change,
then ``.venv/bin/python benchmarks/compare_verdicts.py --diff BEFORE.jsonl AFTER.jsonl``. Each
line holds one command (from ``../shared/corpus/real/commands.jsonl``, the shell calls of
``real/trajectories/*.jsonl`` and ``peers/commands_*.jsonl`` / ``hermes_commands.jsonl``) with
its read-only verdict (read_only, codes, reason), its danger verdict (level, codes, reason) and
its loop signature's canonical form (``tether.loops.canonical.canonical_command``). ``--diff``
prints the counts of commands compared, of each part that differs (a verdict's read-only flag,
level or codes; a signature) and of verdicts whose reason text alone changed, then the first
few differences.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
if not CORPUS.is_dir():  # a worktree beside the main checkout
    CORPUS = Path("/work/shared/corpus")
SHELL_TOOLS = {"bash", "Bash", "execute_bash", "shell"}
PARTS = ("read_only", "danger", "signature")


def commands() -> Iterator[tuple[str, str]]:
    """Yield ``(source, command)`` for every command of the corpora (duplicates dropped)."""
    seen: set[str] = set()

    def fresh(command: object) -> bool:
        if not isinstance(command, str) or command in seen:
            return False
        seen.add(command)
        return True

    with (CORPUS / "real" / "commands.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            command = json.loads(line)["command"]
            if fresh(command):
                yield "real", command
    for path in sorted((CORPUS / "real" / "trajectories").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            call = json.loads(line)
            if call.get("tool") in SHELL_TOOLS:
                command = call.get("args", {}).get("command")
                if fresh(command):
                    yield "sessions", command
    for path in sorted((CORPUS / "peers").glob("*commands*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            command = json.loads(line).get("command")
            if fresh(command):
                yield "peers", command


def dump(out: Path) -> None:
    """Write one verdict line per command to ``out``."""
    from tether.loops.canonical import canonical_command
    from tether.rules import danger, readonly
    from tether.shell import parse_command

    with out.open("w", encoding="utf-8") as fh:
        for source, command in commands():
            model = parse_command(command)
            ro = readonly.assess(model)
            dg = danger.assess(model)
            row = {
                "source": source,
                "command": command,
                "read_only": [ro.read_only, list(ro.codes), ro.reason],
                "danger": [dg.level.label, list(dg.codes), dg.reason],
                "signature": canonical_command(command),
            }
            fh.write(json.dumps(row) + "\n")


def diff(before: Path, after: Path, show: int = 10) -> int:
    """Print how many commands differ in each part; return 1 when any does."""
    old = [json.loads(line) for line in before.open(encoding="utf-8")]
    new = {row["command"]: row for row in map(json.loads, after.open(encoding="utf-8"))}
    counts = {source: 0 for source in ("real", "sessions", "peers")}
    changed: dict[str, list[str]] = {part: [] for part in PARTS}
    reworded: dict[str, int] = {part: 0 for part in PARTS[:2]}
    missing = 0
    for row in old:
        counts[row["source"]] += 1
        other = new.get(row["command"])
        if other is None:
            missing += 1
            continue
        for part in PARTS:
            if part in reworded and row[part][:2] == other[part][:2]:
                reworded[part] += row[part][2] != other[part][2]  # the same verdict, new words
            elif row[part] != other[part]:
                changed[part].append(row["command"])
    print(json.dumps({"commands": counts, "missing": missing,
                      "differ": {p: len(c) for p, c in changed.items()},
                      "reason_reworded": reworded}))  # fmt: skip
    for part, cmds in changed.items():
        for command in cmds[:show]:
            print(f"{part}: {command[:120]!r}\n  before {old_row(old, command)[part]!r}"
                  f"\n  after  {new[command][part]!r}")  # fmt: skip
    return 1 if missing or any(changed.values()) else 0


def old_row(rows: list[dict[str, object]], command: str) -> dict[str, object]:
    """Return the row of ``command`` in ``rows``."""
    return next(r for r in rows if r["command"] == command)


def main(argv: list[str] | None = None) -> int:
    """Dump verdicts, or compare two dumps."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="OUT, or BEFORE AFTER with --diff")
    parser.add_argument("--diff", action="store_true", help="compare two dumps")
    args = parser.parse_args(argv)
    if args.diff:
        if len(args.files) != 2:
            parser.error("--diff takes BEFORE and AFTER")
        return diff(*args.files)
    dump(args.files[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
