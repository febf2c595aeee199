"""``tether trust [PATH]``, ``--list``, ``--revoke PATH``: project files that may loosen."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

EPILOG = """\
A project file (.tether.yaml, found upward from the working directory to the repository root)
is written by whoever wrote the repository, and an agent working in it can write it too. Until
you trust it, it may only tighten the guard: settings that would loosen it (approvals.mode: off,
allow globs, higher thresholds, a longer hooks.deadline, another store, ...) are ignored, and
`tether config check` lists them. Review the file, then trust its exact content:

  tether trust                      # the project file of the current directory
  tether trust path/to/.tether.yaml
  tether trust --list               # every record: trusted, changed (revoked), missing, forged
  tether trust --revoke PATH

Trust is recorded by SHA-256 in $XDG_STATE_HOME/tether/trust.json (mode 0600): any change to
the file revokes it; trust it again after reviewing the change.
"""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add PATH, --list, --revoke and --json."""
    parser.epilog = EPILOG
    parser.add_argument(
        "path", nargs="?", type=Path, metavar="PATH", help="the file (default: the project file)"
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--list", action="store_true", help="list the trust records")
    mode.add_argument("--revoke", action="store_true", help="forget the record of PATH")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")


def run(args: argparse.Namespace, name: str) -> int:
    """Trust, list or revoke; return the exit status."""
    from tether.config import trust

    environ = os.environ
    if args.list:
        rows = trust.records(environ)
        if args.json:
            print(json.dumps([row._asdict() for row in rows], indent=2))
        elif not rows:
            print("no trusted project files")
        for row in rows if not args.json else ():
            print(f"{row.state:<8} {row.path}  (sha256 {row.sha256[:12]}, {row.trusted_at})")
        return 0
    path = args.path or _project_file()
    if path is None:
        sys.stderr.write(
            f"tether {name}: no .tether.yaml found from {Path.cwd()} up to the repository root; "
            "give the file's path\n"
        )
        return 2
    if args.revoke:
        found = trust.revoke(path, environ)
        if args.json:
            print(json.dumps({"path": trust.location(path), "revoked": found}))
        else:
            print(f"revoked {trust.location(path)}" if found else f"{path} was not trusted")
        return 0 if found else 1
    if not path.is_file():
        sys.stderr.write(f"tether {name}: {path}: no such file\n")
        return 2
    pending = _ignored(path)
    try:
        record = trust.trust(path, environ)
    except OSError as exc:
        sys.stderr.write(f"tether {name}: {exc}\n")
        return 2
    broken = _broken(path)
    if broken:
        trust.revoke(path, environ)  # a trusted file that cannot load would deny every call
        sys.stderr.write(
            f"tether {name}: not trusted: with {path} applied in full the config does not "
            f"load:\n{broken}\nfix the file, then run `tether trust` again\n"
        )
        return 1
    if args.json:
        print(json.dumps({**record._asdict(), "now_applies": pending}, indent=2))
        return 0
    print(f"trusted {record.path} (sha256 {record.sha256[:12]})")
    for item in pending:
        print(f"  now applies: {item}")
    print("any change to the file revokes this; `tether trust --list` shows every record")
    return 0


def _project_file() -> Path | None:
    from tether.config.paths import discover

    return discover(None, os.environ).project


def _broken(path: Path) -> str:
    from tether.config import load_config
    from tether.errors import ConfigError

    try:
        load_config(cwd=path.parent, use_cache=False)
    except ConfigError as exc:
        return str(exc)
    return ""


def _ignored(path: Path) -> list[Any]:
    """Return what the untrusted file sets that is ignored now (it applies once trusted)."""
    from tether.config import load_config
    from tether.errors import ConfigError

    try:
        config = load_config(cwd=path.parent, use_cache=False)
    except ConfigError:
        return []
    target = os.path.abspath(path)
    return [f"{i.key} ({i.reason})" for i in config.ignored if os.path.abspath(i.source) == target]
