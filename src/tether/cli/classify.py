"""``tether classify``: say whether shell commands are read-only or dangerous, and why.

Each COMMAND argument is one command line (quote it: ``tether classify 'ls -la'``).
``--jsonl`` reads commands from stdin instead, one per line, each a JSON string or an object
with a ``command`` key, and writes one JSON object per input line, in order. A line that is
empty, not valid UTF-8 or not valid JSON is reported on stderr with its line number and still
gets an object (not read-only, code RW014, an ``error`` field); processing continues and the
exit status is 2 at the end. Otherwise the exit status is 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable
from typing import Any

INVALID_INPUT = "RW014"

EPILOG = """\
Each COMMAND is one command line: quote it (tether classify 'ls -la').
With --jsonl, a line that is empty, not valid UTF-8 or not JSON is reported on stderr with
its number, still gets an object (read_only false, code RW014, an "error" field), and
processing continues; the exit status is then 2.

examples:
  tether classify 'ls -la' 'git diff > patch.txt'
  tether classify --json 'gh api repos/o/r/pulls/1/reviews 2>&1'
  printf '%s\\n' '"ls"' '{"command": "rm -rf /"}' | tether classify --jsonl
"""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add the classify options."""
    parser.epilog = EPILOG
    parser.add_argument("commands", nargs="*", metavar="COMMAND", help="a shell command line")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--json", action="store_true", help="print JSON (one object per command)")
    mode.add_argument(
        "--jsonl",
        action="store_true",
        help="read JSON lines from stdin; write one JSON object per line",
    )


def verdict(command: str) -> dict[str, Any]:
    """Return the JSON verdict for one command; never raise (failures are not read-only)."""
    try:
        command.encode("utf-8")
    except UnicodeEncodeError:
        return _invalid(_printable(command), "the command is not valid UTF-8")
    try:
        from tether.classify import classify_command
        from tether.rules.readonly.tree import Tree

        # The working tree is the directory tether classify runs in: `git -C vendor/x status`
        # is checked there (the JSON's "checked" lists what was looked at).
        here = os.getcwd()
        return classify_command(command, Tree(here, os.environ.get("HOME", here))).to_json()
    except Exception as exc:  # fail closed: a crash is never a read-only verdict
        return _invalid(command, f"internal error while classifying: {type(exc).__name__}")


def _printable(text: str) -> str:
    """Return ``text`` with undecodable bytes (lone surrogates) replaced by U+FFFD."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "replace")
    return raw.decode("utf-8", "replace")


def _invalid(command: str | None, why: str) -> dict[str, Any]:
    return {
        "command": command,
        "read_only": False,
        "danger": "none",
        "codes": [INVALID_INPUT],
        "reason": why,
        "danger_reason": "",
        "instead": "",
        "error": why,
    }


def _line_command(raw: bytes, number: int) -> tuple[str | None, str | None]:
    """Return ``(command, error)`` for one stdin line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"line {number}: not valid UTF-8 (byte {exc.start + 1}); skipped"
    stripped = text.strip()
    if not stripped:
        return None, f"line {number}: empty line (expected a JSON string or an object)"
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError as exc:
        return None, f"line {number}: not valid JSON ({exc.msg} at column {exc.colno})"
    if isinstance(value, dict):
        value = value.get("command")
        if not isinstance(value, str):
            return None, f"line {number}: expected an object with a string 'command' key"
    if not isinstance(value, str):
        return None, f"line {number}: expected a JSON string or an object with 'command'"
    return value, None


def _lines(stream: Iterable[bytes]) -> Iterable[bytes]:
    for raw in stream:
        yield raw[:-1] if raw.endswith(b"\n") else raw


def run_jsonl(stdin: Iterable[bytes], out: Any, err: Any) -> int:
    """Classify JSON lines from ``stdin``; return 2 if any line was invalid, else 0."""
    status = 0
    for number, raw in enumerate(_lines(stdin), start=1):
        command, error = _line_command(raw, number)
        if error is not None:
            err.write(f"tether classify: {error}\n")
            result = _invalid(command, error)
            status = 2
        else:
            result = verdict(command or "")
        result["line"] = number
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
    return status


def render(result: dict[str, Any]) -> str:
    """Return the human-readable verdict: what it is, and which part decided it."""
    from tether.cli._common import named_codes, shown_command

    command = result["command"] if result["command"] is not None else "<invalid input>"
    head = "read-only" if result["read_only"] else "NOT read-only"
    lines = [f"{head}: {shown_command(command)}"]
    named = named_codes(result["codes"])
    if named:
        lines.append(f"  rules: {', '.join(named)}")
    lines.append(f"  why: {result['reason']}")
    if result.get("danger", "none") != "none":
        lines.append(f"  danger: {result['danger']} — {result.get('danger_reason', '')}")
    if result.get("instead"):
        lines.append(f"  instead: {result['instead']}")
    return "\n".join(lines)


def run(args: argparse.Namespace, name: str) -> int:
    """Classify the given commands (or stdin lines with --jsonl) and print verdicts."""
    if args.jsonl:
        if args.commands:
            sys.stderr.write("tether classify: --jsonl reads stdin; give no COMMAND arguments\n")
            return 2
        return run_jsonl(sys.stdin.buffer, sys.stdout, sys.stderr)
    if not args.commands:
        sys.stderr.write(
            "tether classify: expected at least one COMMAND (or --jsonl to read stdin); "
            "example: tether classify 'ls -la'\n"
        )
        return 2
    results = [verdict(c) for c in args.commands]
    if args.json:
        payload: Any = results[0] if len(results) == 1 else results
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write("\n\n".join(render(r) for r in results) + "\n")
    return 0
