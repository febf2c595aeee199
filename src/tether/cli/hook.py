"""``tether hook HOST``: answer one hook event from a host (JSON on stdin, reply on stdout).

Kept tiny on purpose: it runs once per tool call, so it imports only the runner.
"""

from __future__ import annotations

import argparse

from tether.hosts import HOSTS

EPILOG = """\
Reads one event as JSON on stdin and prints the reply the host honours. Never fails open:
malformed input, a config or store error, a bug or the deadline (hooks.deadline, 15 s) all
become a deny with the cause in the reason. Install with `tether install HOST`.
"""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add the host argument."""
    parser.epilog = EPILOG
    parser.add_argument("host", choices=list(HOSTS), help="the host sending the event")


def run(args: argparse.Namespace, name: str) -> int:
    """Answer the event on stdin; return the exit status the host expects."""
    from tether.hosts.runner import run_hook

    return run_hook(args.host)
