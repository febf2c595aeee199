"""``tether install --managed`` / ``tether uninstall --managed``: the CLI face of the managed
install (:mod:`tether.managed.install`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tether.hosts import HOSTS


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add --managed (and, for install, --python and --no-start)."""
    parser.add_argument(
        "--managed",
        action="store_true",
        help="as root: put Tether where your processes cannot change it (the hosts' managed "
        "settings, a root-owned venv under /opt/tether, a daemon of its own user, config in "
        "/etc/tether, state in /var/lib/tether); see docs/trust.md",
    )
    if name == "install":
        parser.add_argument(
            "--python",
            metavar="PATH",
            help="with --managed: the root-owned interpreter of the managed venv (default: "
            "this Python if every user can run it, else /usr/bin/pythonX.Y)",
        )
        parser.add_argument(
            "--no-start",
            action="store_true",
            help="with --managed: do not start the daemon through systemd",
        )


def run(args: argparse.Namespace, name: str) -> int:
    """Install or uninstall the managed parts for the named host (or every host)."""
    from tether.managed import install as managed

    hosts = [args.host] if args.host else list(HOSTS)
    if name == "install":
        report = managed.install(hosts, python=args.python, root=Path("/"), start=not args.no_start)
    else:
        report = managed.uninstall(hosts, root=Path("/"))
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return 0
    lines = []
    for host, change in report["hosts"].items():
        verb = "added to" if name == "install" else "removed from"
        done = verb if change["changed"] else ("already in" if name == "install" else "not in")
        lines.append(f"{host}: Tether's managed hooks {done} {change['path']}")
    if name == "install":
        code = report["code"]
        lines.append(f"code: {code['venv']} on {code['python']} (root's)")
        lines.append(f"daemon user: {report['user']['name']} (uid {report['user']['uid']})")
        lines.append(f"daemon: {report['daemon']}")
        lines.append("check it end to end with: tether doctor (as a user)")
    else:
        lines.append(report["note"])
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


__all__ = ["add_arguments", "run"]
