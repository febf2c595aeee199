"""``tether replay FILE…``: run recorded sessions through the whole guard and show where it
stepped in and why.

Formats are sniffed per file (Tether trajectories, Claude Code transcripts, OpenAI chat
message lists). Each file gets a fresh in-memory session, so files never influence each other.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from tether.cli._common import add_config_arguments, config_from_args

_COLOUR = {"warn": "33", "ask": "35", "block": "31", "halt": "1;31"}


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Declare the replay options."""
    parser.description = (
        "Run recorded agent sessions through the guard (classification, approvals, loop "
        "detectors) and show every intervention. After a block the replay goes on with the "
        "next recorded call, so one file shows them all."
    )
    parser.epilog = (
        "examples:\n"
        "  tether replay examples/loop.jsonl --set loops.hard_stop=true\n"
        "  tether replay ~/.claude/projects/*/SESSION.jsonl --jsonl\n"
        "  tether replay traces/*.jsonl --set progress.enabled=true --json"
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="recorded sessions")
    out = parser.add_mutually_exclusive_group()
    out.add_argument(
        "--jsonl",
        action="store_true",
        help="one JSON object per tool call (i, tool, action, codes, message), then a summary",
    )
    out.add_argument("--json", action="store_true", help="one JSON document with everything")
    add_config_arguments(parser)


def run(args: argparse.Namespace, name: str) -> int:
    """Replay every file; print the timeline, JSONL or JSON; return 0 (2 on bad input)."""
    from tether.guard import Guard
    from tether.replay import load, replay

    config = config_from_args(args)
    many = len(args.files) > 1
    show_progress = many and sys.stderr.isatty()
    outcomes = []
    out = sys.stdout
    colour = out.isatty()
    for n, path in enumerate(args.files, 1):
        if show_progress:
            _progress(sys.stderr, n, len(args.files), path)
        session = load(path)
        outcome = replay(session, Guard(config))
        outcomes.append(outcome)
        if args.jsonl:
            for step in outcome.steps:
                line = step.to_json()
                if many:
                    line = {"file": path, **line}
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
        elif not args.json:
            if show_progress:
                sys.stderr.write("\r\x1b[K")  # clear the bar before the timeline writes
                sys.stderr.flush()
            quiet = all(step.action.label == "allow" for step in outcome.steps)
            if not (many and quiet):  # over many files, show only those with interventions
                _timeline(out, outcome, colour)
    if show_progress:
        sys.stderr.write("\r\x1b[K")
    total = _totals([o.summary() for o in outcomes])
    if args.jsonl:
        out.write(json.dumps({"summary": total}, ensure_ascii=False) + "\n")
    elif args.json:
        doc = {
            "files": [{**o.summary(), "steps": [s.to_json() for s in o.steps]} for o in outcomes],
            "summary": total,
        }
        out.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    else:
        _footer(out, total, many)
    return 0


def _progress(err: TextIO, n: int, total: int, path: str) -> None:
    width = 24
    done = int(width * (n - 1) / total)
    bar = "#" * done + "-" * (width - done)
    err.write(f"\r\x1b[K[{bar}] {n}/{total} {path[-50:]}")
    err.flush()


def _paint(text: str, label: str, colour: bool) -> str:
    code = _COLOUR.get(label)
    return f"\x1b[{code}m{text}\x1b[0m" if colour and code else text


def _timeline(out: TextIO, outcome: Any, colour: bool) -> None:
    summary = outcome.summary()
    out.write(f"{summary['file']}  ({summary['format']}, {summary['calls']} calls)\n")
    run: list[Any] = []

    def flush() -> None:
        if len(run) > 1:
            first, last = run[0], run[-1]
            label = last.action.label
            out.write(
                f"  {'':>5}  {'':<5}  … the same {label} on {len(run) - 1} more calls "
                f"(#{first.index + 1}–#{last.index}, {last.codes[0]})\n"
            )
        run.clear()

    for step in outcome.steps:
        label = step.action.label
        if label == "allow":
            flush()
            continue
        if run and run[-1].codes[:1] == step.codes[:1] and run[-1].action == step.action:
            run.append(step)
            continue
        flush()
        run.append(step)
        tag = _paint(f"{label.upper():<5}", label, colour)
        out.write(f"  #{step.index:<4} {tag}  {' '.join(step.codes):<12} {step.preview}\n")
        out.write(_wrap(step.message))
    flush()
    counts = ", ".join(f"{summary[a]} {a}" for a in ("warn", "ask", "block", "halt") if summary[a])
    out.write(f"  = {counts or 'no interventions'}\n\n")


def _wrap(text: str, limit: int = 600) -> str:
    import textwrap

    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    pad = " " * 15
    return textwrap.fill(text, width=100, initial_indent=pad, subsequent_indent=pad) + "\n"


def _totals(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    calls = sum(s["calls"] for s in summaries)
    seconds = sum(s["seconds"] for s in summaries)
    total: dict[str, Any] = {
        "files": len(summaries),
        "calls": calls,
        **{a: sum(s[a] for s in summaries) for a in ("allow", "warn", "ask", "block", "halt")},
        "files_blocked": sum(1 for s in summaries if s["first_block"] is not None),
        "files_halted": sum(1 for s in summaries if s["first_halt"] is not None),
        "seconds": round(seconds, 3),
        "us_per_call": round(seconds / calls * 1e6, 1) if calls else 0.0,
    }
    if len(summaries) > 1:
        total["per_file"] = [
            {k: s[k] for k in ("file", "calls", "warn", "block", "halt", "first_block")}
            for s in summaries
        ]
    return total


def _footer(out: TextIO, total: dict[str, Any], many: bool) -> None:
    out.write(
        f"summary: {total['files']} file(s), {total['calls']} calls: {total['allow']} allowed, "
        f"{total['warn']} warned, {total['ask']} asked, {total['block']} blocked, "
        f"{total['halt']} halted"
    )
    if many:
        out.write(f"; {total['files_blocked']} file(s) with a block")
    out.write(f" ({total['us_per_call']} µs per call)\n")
