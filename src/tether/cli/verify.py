"""``tether verify``: run commands in a sandbox and report whether they changed anything.

Each COMMAND argument is one command line; ``--jsonl`` reads them from stdin instead (one
per line, a JSON string or an object with a ``command`` key). ``--trace`` also records
every process the command started and every destructive filesystem operation. Exit status:
0 when every command ran to a successful end and changed nothing, 1 when any changed
something, 3 when none changed but some could not be verified or were not exercised, 2 for
bad usage or input.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tether.errors import InputError

if TYPE_CHECKING:
    from tether.verify import Verdict

EPILOG = """\
How it works: a fresh fixture (a small git repository with files, /home/tether/work; HOME
is /home/tether) is the working directory. Each command runs over an overlay of the whole
root filesystem, in new mount, PID, network (loopback only), IPC and UTS namespaces and a
pids cgroup, as the unprivileged user 'tether' (a uid no host account has) with no
capabilities and no_new_privs, its own /proc (/proc/sys read-only), a minimal /dev, fresh
/tmp and /run, and a pseudo-terminal for stdout and stderr (stdin is /dev/null). Every
write it can make -- the fixture, HOME, the git object store, /tmp, /dev/shm, /var/tmp --
lands in the overlay's upper layer and is compared with the original: created, modified
(size or SHA-256), deleted, replaced, mode, owner, symlink target, mtime. The host is never
written; what the user may not write (/etc, /usr, devices) fails as it would for any user.

"changed" is true (with the paths), false, or null: could not verify, because the sandbox
could not be built (needs root, util-linux and overlayfs on Linux), the command hit the time
limit, a program or Python module it needs is not installed, or it needed the network.
"exercised" is true only when the command exited 0: a command that failed most likely
stopped before the write it would make, so "no change" from it is not evidence. A git index
refreshed with the same entries is listed with effects ["cache"], not as a change.

--trace runs the command under strace -f and adds "trace": every process started (pid,
argv, cwd, environment) and every destructive operation (unlink, rmdir, rename, truncate,
chmod, chown, mknod, mount, kill, an open for writing of a device or /proc/sys, any write
the sandbox refused), each with its absolute paths and result (0 or the errno): what the
command tried, whether or not the sandbox let it. Needs strace.

exit status: 0 nothing changed, 1 something changed, 3 some could not be verified or were
not exercised, 2 usage.

examples:
  tether verify 'git status' 'sort -o out.txt f.txt'
  tether verify --json 'git log --oneline -3'
  tether verify --trace --json 'd=/; rm -rf --no-preserve-root "$d"' | jq '.trace.processes[].argv'
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
    parser.add_argument(
        "--trace",
        action="store_true",
        help="record every process started and every destructive operation (strace -f)",
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
    if args.trace and shutil.which("strace") is None:
        raise InputError("--trace needs strace, which is not installed (apt-get install strace)")
    commands = _from_stdin() if args.jsonl else iter(args.commands)
    seen = {True: 0, False: 0, None: 0}
    with Oracle(timeout=args.timeout) as oracle:
        for command in commands:
            verdict = oracle.run(command, trace=args.trace)
            seen[verdict.changed if verdict.changed or verdict.exercised else None] += 1
            if args.json or args.jsonl:
                sys.stdout.write(json.dumps(verdict.to_json()) + "\n")
            else:
                _print(verdict)
            sys.stdout.flush()
    if seen[True]:
        return 1
    return 3 if seen[None] else 0


def _print(verdict: Verdict) -> None:
    label = {True: "CHANGED", False: "no change", None: "NOT VERIFIED"}[verdict.changed]
    if verdict.changed is False and not verdict.exercised:
        label = "NOT EXERCISED"
    sys.stdout.write(f"{label:<13} {verdict.command}\n  {verdict.reason}\n")
    for change in verdict.changes[:20]:
        detail = f"  {change.detail}" if change.detail else ""
        sys.stdout.write(f"    {change.kind:<9} {change.path}{detail}\n")
    if verdict.trace is None:
        return
    for p in verdict.trace.processes[:50]:
        sys.stdout.write(f"    exec      {shlex.join(p.argv)}   (cwd {p.cwd})\n")
    for op in verdict.trace.operations[:50]:
        sys.stdout.write(f"    {op.call:<9} {' '.join(op.paths)}  = {op.result}\n")
