"""``tether plugin HOST``: Tether as the host's own package (plugin or extension).

Builds a Claude Code plugin (in a one-plugin marketplace), a Codex plugin (likewise) or a Gemini
CLI extension whose hooks are exactly the entries ``tether install HOST`` writes, then says
(or, with ``--install``, runs) the host's own commands that install it.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tether.hosts import HOSTS

EPILOG = """\
The package is built for this installation (its hook command names this Python and this
Tether's hook.py), by default in $XDG_DATA_HOME/tether/plugins/HOST. Install either the
package or the settings entries (`tether install`), not both: both would run on every event.

examples:
  tether plugin claude-code          # builds it and prints the two `claude plugin` commands
  tether plugin codex --install      # `codex plugin marketplace add`, `add`, then the trust
  tether plugin gemini --install     # `gemini extensions install DIR --consent`
  tether plugin codex --trust        # installed by hand: have Codex trust its hooks
"""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add the host, --out, --install, --trust, --exe and --json."""
    parser.epilog = EPILOG
    parser.add_argument("host", choices=list(HOSTS), help="the host to build the package for")
    parser.add_argument("--out", metavar="DIR", help="where to build it (replaced if it exists)")
    parser.add_argument(
        "--install", action="store_true", help="run the host's commands that install it"
    )
    parser.add_argument(
        "--trust",
        action="store_true",
        help="codex only: have Codex trust Tether's hooks (those of an installed plugin too)",
    )
    parser.add_argument(
        "--exe",
        metavar="PATH",
        help="the host's executable (default: claude, codex or gemini on PATH)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace, name: str) -> int:
    """Build (and maybe install) the package; return the exit status."""
    from tether.errors import InputError
    from tether.hosts import plugins

    if args.trust and args.host != "codex":
        raise InputError("--trust applies to codex only (the other hosts trust what they install)")
    report: dict[str, Any] = {"host": args.host}
    status = 0
    if args.trust and not args.install:
        return _trust(args, report)
    out = Path(args.out).resolve() if args.out else plugins.default_dir(args.host)
    built = plugins.build(args.host, out)
    exe = args.exe or shutil.which(built.commands[0][0])
    report.update(
        {
            "root": str(built.root),
            "hooks_file": str(built.hooks_file),
            "commands": [shlex.join(c) for c in built.commands],
            "installed": False,
        }
    )
    if args.install:
        if exe is None:
            raise InputError(
                f"`{built.commands[0][0]}` is not on PATH; pass --exe PATH, or run the "
                "commands above yourself"
            )
        for command in built.commands:
            if command[0] == "tether":
                continue  # the trust step, below
            argv = [exe, *command[1:]]
            env = dict(os.environ)
            if args.host == "gemini":
                # Gemini CLI asks whether to trust the folder an extension is installed from;
                # that folder is the one Tether just wrote, holding only its hooks.
                env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL
            )
            if done.returncode != 0 and "already" not in (done.stdout + done.stderr).lower():
                raise InputError(
                    f"`{shlex.join(argv)}` failed (exit {done.returncode}): "
                    f"{(done.stderr or done.stdout).strip()[:500]}"
                )
        report["installed"] = True
        if args.host == "codex":
            from tether.hosts.codex_trust import activate

            report["codex"] = activate(exe, Path.cwd())
            status = 0 if report["codex"]["active"] else 1
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return status
    lines = [f"{args.host}: built Tether's package in {built.root} (hooks: {built.hooks_file})"]
    if report["installed"]:
        lines.append(f"installed with: {'; '.join(report['commands'])}")
        if "codex" in report:
            lines.append(report["codex"]["message"])
    else:
        lines.append("install it with:")
        lines.extend(f"  {c}" for c in report["commands"])
    lines.append("then check it end to end with: tether doctor")
    sys.stdout.write("\n".join(lines) + "\n")
    return status


def _trust(args: argparse.Namespace, report: dict[str, Any]) -> int:
    from tether.hosts.codex_trust import activate

    report["codex"] = activate(args.exe, Path.cwd())
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        sys.stdout.write(report["codex"]["message"] + "\n")
    return 0 if report["codex"]["active"] else 1
