"""``tether hook HOST``: answer one hook event from a host (JSON on stdin, reply on stdout).

Kept tiny on purpose: it runs once per tool call, so it imports only the runner.
"""

from __future__ import annotations

import argparse
import sys

from tether.hosts import HOSTS

EPILOG = """\
Reads one event as JSON on stdin and prints the reply the host honours. Never fails open:
malformed input, a config or store error, a bug or the deadline (hooks.deadline, 15 s) all
become a deny with the cause in the reason. Install with `tether install HOST`.
"""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add the host argument."""
    from tether.cli._common import add_config_arguments

    parser.epilog = EPILOG
    parser.add_argument("host", choices=list(HOSTS), help="the host sending the event")
    add_config_arguments(parser)


def run(args: argparse.Namespace, name: str) -> int:
    """Answer the event on stdin; return the exit status the host expects."""
    import os

    from tether.hosts.runner import run_hook

    # `--set K=V` is the top config layer, just above TETHER_* variables, and both take the
    # same value syntax: for this process, a --set becomes the variable that names its key
    # (the plain `tether hook HOST` that hosts run never gets here, see tether.cli.main).
    for item in args.config_overrides:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            problem = f"--set {item!r}: expected KEY=VALUE, e.g. --set loops.hard_stop=true"
            sys.stderr.write(f"tether {name}: {problem}\n")
            return 2
        os.environ["TETHER_" + key.strip().upper().replace(".", "__")] = value
    return run_hook(args.host)
