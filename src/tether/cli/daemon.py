"""``tether daemon status|stop|run``: the per-user daemon that answers hook events warm."""

from __future__ import annotations

import argparse
import json
import sys
import time

EPILOG = """\
The hook command that `tether install` writes (PYTHON -I -S …/tether/daemon/hook.py HOST)
relays each event to this daemon over a unix socket in $XDG_RUNTIME_DIR/tether (else
$XDG_STATE_HOME/tether/run), and starts it when none answers; you never need to start it by
hand. It exits after 15 idle minutes (TETHER_DAEMON_IDLE seconds), and as soon as Tether's
code on disk changes. All state is in the store: stopping or killing it loses nothing. It
answers your uid only (other uids get a refusal, a block), and at most 64 connections at once
(TETHER_DAEMON_MAX_CONNECTIONS); one more is answered by its own hook process.

actions:
  status    running? its pid, version and events served (exit 1 when it cannot run here)
  stop      stop it; the next hook event answers in-process and starts a new one
  run       run it in the foreground until it is stopped or idle (for debugging, or a
            service manager); the hook starts it detached on its own otherwise

examples:
  tether daemon status
  tether daemon status --json
  tether daemon stop
  TETHER_DAEMON_IDLE=60 tether daemon run
"""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add the action and --json."""
    parser.epilog = EPILOG
    parser.add_argument(
        "action", choices=("status", "stop", "run"), help="status, stop or run (see below)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace, name: str) -> int:
    """Report on, stop or run (in the foreground) this installation's daemon."""
    import tether.daemon as daemon

    if args.action == "run":
        from tether.daemon.server import main

        return main(daemon.socket_path())
    if args.action == "stop":
        was = daemon.stop()
        for _ in range(50):  # wait for the socket to go, so a script can rely on it
            if not daemon.probe().running:
                break
            time.sleep(0.1)
        _print(args.json, {"stopped": was}, "stopped" if was else "no daemon was running")
        return 0
    status = daemon.probe()
    data = {
        "running": status.running,
        "socket": status.socket,
        "problem": status.problem,
        **(status.info or {}),
    }
    if status.problem:
        text = f"daemon cannot run: {status.problem}"
    elif status.running and status.info:
        i = status.info
        text = (
            f"running: pid {i.get('pid')}, tether {i.get('version')}, "
            f"{i.get('served')} events served, socket {status.socket}"
        )
        if i.get("refused") or i.get("busy"):
            text += (
                f"; {i.get('refused', 0)} connections of other uids refused, "
                f"{i.get('busy', 0)} over the connection cap answered by their hook"
            )
        if i.get("expired"):
            text += (
                f"; {i.get('expired')} events read after their hook stopped waiting "
                "(blocked by the hook, never judged or counted)"
            )
    else:
        text = f"not running (the next hook event starts it); socket {status.socket}"
    _print(args.json, data, text)
    return 1 if status.problem else 0


def _print(as_json: bool, data: dict[str, object], text: str) -> None:
    sys.stdout.write((json.dumps(data, indent=2) if as_json else text) + "\n")
