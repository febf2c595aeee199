"""The per-user daemon and the builtins-only hook entry that talks to it.

``hook.py`` is the command hosts run (``PYTHON -I -S …/tether/daemon/hook.py HOST``); it
relays each event over a unix socket to ``server.py``, which keeps the classifier warm, or
answers in-process and starts a daemon when none answers. This module holds what the CLI and
the doctor need: where the socket is, whether a daemon answers, how to stop it.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from typing import Any

from tether.daemon import hook as wire

__all__ = ["DaemonStatus", "hook_command", "probe", "stop"]


@dataclass(frozen=True, slots=True)
class DaemonStatus:
    """What ``tether daemon status`` reports."""

    socket: str
    running: bool
    problem: str | None = None  # why the socket directory is unusable, if it is
    info: dict[str, Any] | None = None  # the daemon's own report when it answered


def _environ() -> dict[bytes, bytes]:
    return {k.encode(): v.encode() for k, v in os.environ.items()}


def socket_path() -> str:
    """Return the socket of this installation's daemon, for the current environment."""
    return wire.socket_path(wire.__file__, _environ())


def hook_command(host: str) -> str:
    """Return the command line a host should run for ``host``'s hook events."""
    return f"{shlex.quote(sys.executable)} -I -S {shlex.quote(wire.__file__)} {host}"


def probe(timeout: float = 2.0) -> DaemonStatus:
    """Ask this installation's daemon for its status."""
    path = socket_path()
    folder = os.path.dirname(path)
    if not os.path.exists(folder):
        return DaemonStatus(path, False)
    problem = wire.dir_problem(folder)
    if problem is not None:
        return DaemonStatus(path, False, problem)
    reply = wire.ask(path, wire.request("status", [], b""), timeout)
    if reply is None or reply[0] != 0:
        return DaemonStatus(path, False)
    try:
        info = json.loads(reply[1])
    except ValueError:
        return DaemonStatus(path, False)
    return DaemonStatus(path, True, None, info if isinstance(info, dict) else None)


def stop(timeout: float = 5.0) -> bool:
    """Ask the daemon to stop; return whether one was running."""
    status = probe()
    if not status.running:
        return False
    wire.ask(status.socket, wire.request("stop", [], b""), timeout)
    return True
