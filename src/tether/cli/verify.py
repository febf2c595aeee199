"""``tether verify``: run commands in a sandbox and report whether they changed anything.

Each COMMAND argument is one command line; ``--jsonl`` reads them from stdin instead (one
per line, a JSON string or an object with a ``command`` key). Exit status: 0 when every
command ran and changed nothing, 1 when any changed something, 3 when none changed but some
could not be verified, 2 for bad usage or input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator

from tether.errors import InputError

EPILOG = """\
How it works: a fresh fixture (a small git repository with files; HOME, XDG dirs and TMPDIR
beside it) is the working directory. Each command runs as root inside new user, mount, PID,
network (loopback only) and IPC namespaces, over an overlay of the whole root filesystem, so
every write anywhere -- /etc, HOME, the git object store, /dev/shm -- lands in the overlay's
upper layer and is compared with the original: created, modified (size or SHA-256), deleted,
replaced, mode, owner, symlink target, mtime. The host is never written.

"changed" is true (with the paths), false (ran to its end, nothing changed), or null: could
not verify, because the sandbox could not be built (needs root, util-linux and overlayfs on
Linux), the command hit the time limit, a program it runs is not installed (exit 127), or it
needed the network. A command is never run outside the sandbox.

exit status: 0 nothing changed, 1 something changed, 3 some could not be verified, 2 usage.

examples:
  tether verify 'git status' 'sort -o out.txt f.txt'
  tether verify --json 'git log --oneline -3'
  tether classify --jsonl < cmds.jsonl | jq -c 'select(.read_only)' | tether verify --jsonl
"""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add the verify options."""
    parser.epilog = EPILOG
    parser.add_argument("commands", nargs="*", metavar="COMMAND", help="a shell command line")
    parser.add_argument("--json", action="store_true", help="print one JSON object per command")
    parser.add_argument(
        "--jsonl", action="store_true", help="read commands from stdin, one JSON line each"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="time limit per command (default 10); a command still running is not verified",
    )


def _from_stdin() -> Iterator[str]:
    for n, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"stdin line {n}: not valid JSON ({exc.msg})") from None
        if isinstance(value, dict):
            value = value.get("command")
        if not isinstance(value, str):
            raise InputError(f"stdin line {n}: expected a string or an object with 'command'")
        yield value


def run(args: argparse.Namespace, name: str) -> int:
    """Verify each command; print a verdict per command."""
    from tether.verify import Oracle

    if args.jsonl and args.commands:
        raise InputError("give commands as arguments or --jsonl on stdin, not both")
    if not args.jsonl and not args.commands:
        raise InputError("no command given (see 'tether verify --help')")
    if args.timeout <= 0:
        raise InputError(f"--timeout: expected a number of seconds > 0, got {args.timeout:g}")
    commands = _from_stdin() if args.jsonl else iter(args.commands)
    seen = {True: 0, False: 0, None: 0}
    with Oracle(timeout=args.timeout) as oracle:
        for command in commands:
            verdict = oracle.run(command)
            seen[verdict.changed] += 1
            if args.json or args.jsonl:
                sys.stdout.write(json.dumps(verdict.to_json()) + "\n")
            else:
                label = {True: "CHANGED", False: "no change", None: "NOT VERIFIED"}
                sys.stdout.write(f"{label[verdict.changed]:<12} {command}\n  {verdict.reason}\n")
                for change in verdict.changes[:20]:
                    detail = f"  {change.detail}" if change.detail else ""
                    sys.stdout.write(f"    {change.kind:<8} {change.path}{detail}\n")
            sys.stdout.flush()
    if seen[True]:
        return 1
    return 3 if seen[None] else 0
