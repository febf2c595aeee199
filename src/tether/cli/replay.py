"""``tether replay FILE…``: run recorded sessions through the whole guard and show where it
stepped in and why.

Formats are sniffed per file (Tether trajectories, Claude Code transcripts, OpenAI chat
message lists). Each file gets a fresh in-memory session, so files never influence each other.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from tether.cli._common import add_config_arguments, config_from_args

if TYPE_CHECKING:
    from tether.config.core import Config

_COLOUR = {"warn": "33", "ask": "35", "block": "31", "halt": "1;31"}


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Declare the replay options."""
    parser.description = (
        "Run recorded agent sessions through the guard (classification, approvals, loop "
        "detectors) and show every intervention. After a block the replay goes on with the "
        "next recorded call, so one file shows them all; after a halt the calls up to the next "
        "user message are shown as 'after halt' (a guarded agent would not have made them). "
        "A file that cannot be read is reported and the others still run; the exit status is "
        "2 when any file failed. Calls are numbered from 1."
    )
    parser.epilog = (
        "examples:\n"
        "  tether replay examples/loop.jsonl --set loops.hard_stop=true\n"
        "  tether replay ~/.claude/projects/*/SESSION.jsonl --jsonl\n"
        "  tether replay traces/ --set progress.enabled=true --json     # every *.jsonl/*.json\n"
        "  tether replay examples/loop.jsonl --html report.html         # a page to look at\n"
        "  cat session.jsonl | tether replay -"
    )
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="recorded sessions; a directory is walked for *.jsonl and *.json; - reads stdin",
    )
    out = parser.add_mutually_exclusive_group()
    out.add_argument(
        "--jsonl",
        action="store_true",
        help="one JSON object per tool call (call, i, tool, action, codes, message), then a "
        "summary",
    )
    out.add_argument("--json", action="store_true", help="one JSON document with everything")
    parser.add_argument(
        "--html",
        metavar="OUT.html",
        help="also write one self-contained HTML page of the sessions (timeline, chart, filters)",
    )
    add_config_arguments(parser)


def expand(paths: list[str]) -> list[str]:
    """Return the files to replay: directories walked for *.jsonl/*.json, sorted; ``-`` kept."""
    from pathlib import Path

    files: list[str] = []
    for given in paths:
        p = Path(given)
        if given != "-" and p.is_dir():
            found = sorted(
                f for f in p.rglob("*") if f.suffix in (".jsonl", ".json") and f.is_file()
            )
            files.extend(str(f) for f in found)
        else:
            files.append(given)
    return files


def _load(path: str) -> Any:
    from tether.replay import load, parse

    if path == "-":
        data = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
        return parse(data, "<stdin>", "stdin")
    return load(path)


def warm_up(config: Config | None) -> None:
    """Load what first calls load (parser, catalogues, masks) so per-call cost excludes it."""
    from tether.guard import Guard
    from tether.model import ToolCall, ToolResult

    guard = Guard(config)
    shells = list(guard.settings.tools.shell.items())[:1]
    calls: list[tuple[str, dict[str, str], str, int | None]] = [
        ("Read", {"file_path": "a.py"}, "x = 1\n", None)
    ]
    calls += [("Edit", {"file_path": "a.py", "old_string": "1", "new_string": "2"}, "ok", None)]
    for tool, key in shells:
        calls += [
            (tool, {key: "ls -la | grep x > /dev/null"}, "", 0),
            (tool, {key: "pytest -q 2>&1 && git push origin main"}, "1 failed in 0.2s", 1),
        ]
    for n in range(3):
        for tool, args, output, code in calls:
            call = ToolCall("tether-warm-up", tool, args, f"#{n}")
            guard.before_call(call)
            guard.after_call(ToolResult(call, output=output, exit_code=code))


def run(args: argparse.Namespace, name: str) -> int:
    """Replay every file; print the timeline, JSONL or JSON; exit 2 if any file failed."""
    from tether.errors import TetherError
    from tether.guard import Guard
    from tether.replay import replay

    config = config_from_args(args)
    files = expand(args.files)
    if not files:
        sys.stderr.write(f"tether replay: no *.jsonl or *.json files in {', '.join(args.files)}\n")
        return 2
    many = len(files) > 1
    show_progress = many and sys.stderr.isatty()
    outcomes = []
    failed: list[dict[str, str]] = []
    out = sys.stdout
    colour = out.isatty()
    warm_up(config)
    for n, path in enumerate(files, 1):
        if show_progress:
            _progress(sys.stderr, n, len(files), path)
        try:
            session = _load(path)
            outcome = replay(session, Guard(config))
        except (TetherError, OSError, UnicodeError) as exc:
            problem = str(exc)
        except Exception as exc:  # a bug: say so loudly, but the other files still run
            problem = f"{path}: internal error while replaying ({type(exc).__name__}: {exc})"
        else:
            problem = ""
        if problem:
            if show_progress:
                sys.stderr.write("\r\x1b[K")
            sys.stderr.write(f"tether replay: {problem}; skipped\n")
            failed.append({"file": path, "error": problem})
            continue
        outcomes.append(outcome)
        if args.jsonl:
            for step in outcome.steps:
                line = step.to_json()
                if many:
                    line = {"file": session.path, **line}
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
        elif not args.json:
            if show_progress:
                sys.stderr.write("\r\x1b[K")  # clear the bar before the timeline writes
                sys.stderr.flush()
            quiet = all(step.result == "allow" for step in outcome.steps)
            if not (many and quiet):  # over many files, show only those with interventions
                _timeline(out, outcome, colour)
    if show_progress:
        sys.stderr.write("\r\x1b[K")
    total = totals([o.summary() for o in outcomes], failed)
    if args.html:
        from tether.loops.settings import from_config
        from tether.report.html import write_report

        write_report(args.html, outcomes, total, from_config(config).tools.shell)
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
    if args.html:
        sys.stderr.write(f"tether replay: wrote {args.html}\n")
    return 2 if failed else 0


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
            first, last = run[1], run[-1]
            codes = " ".join(dict.fromkeys(c for step in run for c in step.codes))
            span = f"#{first.number}" if first is last else f"#{first.number}–#{last.number}"
            more = len(run) - 1
            out.write(
                f"  {'':>5}  {'':<5}  … the same {last.result} on {more} more "
                f"call{'s' if more > 1 else ''} ({span}, {codes})\n"
            )
        run.clear()

    prev_after = False
    for pos, step in enumerate(outcome.steps):
        if step.after_halt:
            if not prev_after:
                flush()
                _after_halt(out, outcome.steps, pos)
            prev_after = True
            continue
        prev_after = False
        label = step.result
        if label == "allow":
            flush()
            continue
        if run and run[-1].codes[:1] == step.codes[:1] and run[-1].action == step.action:
            run.append(step)
            continue
        flush()
        run.append(step)
        tag = _paint(f"{label.upper():<5}", label, colour)
        out.write(f"  #{step.number:<4} {tag}  {' '.join(step.codes):<12} {step.preview}\n")
        out.write(_wrap(step.message))
    flush()
    counts = ", ".join(f"{summary[a]} {a}" for a in ("warn", "ask", "block", "halt") if summary[a])
    if summary["after_halt"]:
        counts += f"; {summary['after_halt']} after halt (not run)"
    out.write(f"  = {counts or 'no interventions'}\n\n")


def _after_halt(out: TextIO, steps: list[Any], pos: int) -> None:
    """Print one line for the stretch of calls after a halt, up to the next user message."""
    end = pos
    while end + 1 < len(steps) and steps[end + 1].after_halt:
        end += 1
    first, last, n = steps[pos], steps[end], end - pos + 1
    span = f"#{first.number}" if n == 1 else f"#{first.number}–#{last.number}"
    out.write(
        f"  {'':>5}  {'':<5}  … {n} call{'s' if n > 1 else ''} after the halt ({span}): a "
        "guarded agent stops here until a human writes\n"
    )


def _wrap(text: str, limit: int = 600) -> str:
    import textwrap

    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    pad = " " * 15
    return textwrap.fill(text, width=100, initial_indent=pad, subsequent_indent=pad) + "\n"


def totals(summaries: list[dict[str, Any]], failed: list[dict[str, str]]) -> dict[str, Any]:
    """Return the summary over every file replayed (and the ones that failed to load)."""
    calls = sum(s["calls"] for s in summaries)
    seconds = sum(s["seconds"] for s in summaries)
    total: dict[str, Any] = {
        "files": len(summaries),
        "calls": calls,
        **{a: sum(s[a] for s in summaries) for a in ("allow", "warn", "ask", "block", "halt")},
        "after_halt": sum(s["after_halt"] for s in summaries),
        "files_blocked": sum(1 for s in summaries if s["first_block"] is not None),
        "files_halted": sum(1 for s in summaries if s["first_halt"] is not None),
        "seconds": round(seconds, 3),
        "us_per_call": round(seconds / calls * 1e6, 1) if calls else 0.0,
        "files_failed": len(failed),
    }
    if failed:
        total["failed"] = failed
    if len(summaries) > 1:
        total["per_file"] = [
            {
                k: s[k]
                for k in ("file", "calls", "warn", "block", "halt", "after_halt", "first_block")
            }
            for s in summaries
        ]
    return total


def _footer(out: TextIO, total: dict[str, Any], many: bool) -> None:
    out.write(
        f"summary: {total['files']} file(s), {total['calls']} calls: {total['allow']} allowed, "
        f"{total['warn']} warned, {total['ask']} asked, {total['block']} blocked, "
        f"{total['halt']} halted"
    )
    if total["after_halt"]:
        out.write(f", {total['after_halt']} after a halt (not run)")
    if many:
        out.write(f"; {total['files_blocked']} file(s) with a block")
    if total["files_failed"]:
        out.write(f"; {total['files_failed']} file(s) could not be read (see above)")
    out.write(f" ({total['us_per_call']} µs per call)\n")
