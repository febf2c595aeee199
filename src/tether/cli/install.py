"""``tether install HOST`` / ``tether uninstall HOST``: add or remove Tether's hook entries.

The settings file is merged, never overwritten: other hooks and settings stay as they are, a
timestamped backup is written next to it before any change, and installing twice is a no-op.
Uninstall removes exactly the entries whose command runs ``tether hook HOST``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tether.hosts import HOSTS

NOTES = {
    "claude-code": "Claude Code reads the hooks at start: restart running sessions. "
    "'onFailure: block' needs Claude Code 2.1.295 or newer; Tether denies on its own "
    "errors anyway.",
    "codex": "Codex reads the hooks at start: restart running sessions. Project hooks load "
    'only in projects Codex trusts ([projects."PATH"] trust_level = "trusted"). Codex '
    "older than 0.124 also needs '[features] hooks = true' in config.toml; '[features] hooks = "
    "false' turns them off (`tether doctor` names it).",
    "gemini": "Gemini CLI reads the hooks at start: restart running sessions. In a folder it "
    "does not trust, an interactive session runs no hooks from settings files (`tether plugin "
    "gemini --install` installs them as an extension, which runs there); `tether doctor` "
    "checks folder trust and hooksConfig.",
}


INSTALL_EPILOG = """\
The settings file is merged, never overwritten (a timestamped backup is written first), and a
second install changes nothing. Codex runs a hook only once it is trusted: `tether install
codex` asks the installed `codex` to trust exactly Tether's hooks. Check the result end to end
with `tether doctor`.

examples:
  tether install claude-code
  tether install codex --project
  tether install gemini --dry-run
  tether install claude-code --command 'TETHER_LOOPS__HARD_STOP=true tether hook claude-code'
"""

UNINSTALL_EPILOG = """\
Only the entries whose command runs Tether's hook for HOST are removed; other hooks and
settings stay as they are (a timestamped backup is written first). For Codex, the trust
entries Codex keeps for exactly those hooks are forgotten too, by the installed `codex`.

examples:
  tether uninstall claude-code
  tether uninstall codex --project --dry-run
"""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add the host, scope, --dry-run and --json options (install and uninstall differ)."""
    install = name == "install"
    parser.epilog = INSTALL_EPILOG if install else UNINSTALL_EPILOG
    parser.add_argument(
        "host",
        nargs="?",
        choices=list(HOSTS),
        help="the host to add Tether's hooks to (with --managed: all three when none is named)"
        if install
        else "the host to remove Tether's hooks from (with --managed: all three by default)",
    )
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument(
        "--user",
        dest="scope",
        action="store_const",
        const="user",
        help="your user settings "
        "(the default): ~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json",
    )
    scope.add_argument(
        "--project",
        dest="scope",
        action="store_const",
        const="project",
        help="this project's settings: .claude/settings.json, .codex/hooks.json, "
        ".gemini/settings.json under the current directory",
    )
    parser.set_defaults(scope="user", http=False, url=None, command=None)
    parser.add_argument(
        "--dry-run", action="store_true", help="show what would change; write nothing"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    if install:
        parser.add_argument(
            "--command",
            help="the hook command to register (default: this installation's hook, "
            "PYTHON -I -S …/tether/daemon/hook.py HOST)",
        )
        parser.add_argument(
            "--http",
            action="store_true",
            help="claude-code only, retired: installs the command hook (which relays to "
            "Tether's daemon and fails closed) and says why (docs/hosts.md#http-hooks)",
        )
        parser.add_argument("--url", help="with --http: ignored (the option is retired)")
    from tether.managed.cli import add_arguments as add_managed

    add_managed(parser, name)
    parser.add_argument(
        "--codex",
        metavar="PATH",
        help="codex only: the Codex executable asked to trust the hooks it must run "
        "(default: `codex` on PATH); without one the hooks are written inactive"
        if install
        else "codex only: the Codex executable asked to forget the trust of Tether's hooks "
        "(default: `codex` on PATH); without one their trust entries stay in config.toml",
    )


def run(args: argparse.Namespace, name: str) -> int:
    """Merge Tether's entries into (or out of) the host's settings; return the exit status."""
    from tether.hosts import settings

    if args.managed:
        from tether.managed.cli import run as run_managed

        return run_managed(args, name)
    if args.host is None:
        from tether.errors import InputError

        raise InputError(f"name the host: tether {name} {{{','.join(HOSTS)}}}")

    path = settings.settings_path(args.host, args.scope, cwd=Path.cwd())
    current = settings.read_settings(path)
    if (args.http or args.url) and (args.host != "claude-code" or name != "install"):
        from tether.errors import InputError

        raise InputError("--http and --url apply to `tether install claude-code` only")
    if name == "install":
        command = args.command or settings.default_command(args.host)
        if not settings.is_tether_command(command, args.host):
            from tether.errors import InputError

            hook = settings.default_command(args.host)
            wrappers = ", ".join(sorted(settings.WRAPPERS))
            raise InputError(
                f"--command {command!r} does not run Tether's hook for {args.host} in a form "
                "Tether recognises, so install, uninstall, the doctor and Codex's trust could "
                f"not tell the entry is Tether's. Give the hook itself (`{hook}` or `tether "
                f"hook {args.host}`), optionally after VAR=value, env, or one of {wrappers}; "
                "anything else (a wrapper script) cannot be managed by Tether: add it to the "
                "settings by hand (for Codex, trust it in /hooks)"
            )
        change = settings.merge(current, args.host, command, path)
    else:
        command = None
        change = settings.remove(current, args.host, path)
    http: dict[str, Any] | None = None
    note = ""
    if args.host == "claude-code":
        # Old HTTP entries for the sidecar (the retired --http) are taken out by every install
        # and uninstall, so they never run beside the command hook.
        from tether.serve.install import adjust

        change, http, note = adjust(change, http=bool(args.http or args.url))
    written: list[Path | None] = [None]

    def write() -> None:
        if change.changed and not args.dry_run:
            written[0] = settings.write_settings(change)

    forgotten: dict[str, Any] | None = None
    if args.host == "codex" and name == "uninstall" and not args.dry_run and change.changed:
        from tether.hosts.codex_trust import deactivate

        # Codex is asked which hooks are Tether's before they go, to forget exactly their trust.
        forgotten = deactivate(args.codex, Path.cwd(), path, write)
    else:
        write()
    backup = written[0]
    report: dict[str, Any] = {
        "action": name,
        "host": args.host,
        "scope": args.scope,
        "path": str(path),
        "changed": change.changed,
        "events": list(change.events),
        "backup": str(backup) if backup else None,
        "dry_run": bool(args.dry_run),
        "command": command,
    }
    if http is not None:
        report["http"] = http
    if forgotten is not None:
        report["codex"] = forgotten
    status = 0
    if args.host == "codex" and name == "install" and not args.dry_run:
        from tether.hosts.codex_trust import activate

        report["codex"] = activate(args.codex, Path.cwd())
        status = 0 if report["codex"]["active"] else 1
    if note:  # the retired --http: say so on stderr, whether or not anything changed
        sys.stderr.write(f"tether install: {note}\n")
    if args.json:
        if args.dry_run:
            report["hooks"] = change.after.get("hooks", {})
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return status
    sys.stdout.write(_human(report, change.after.get("hooks", {})))
    if "codex" in report:
        sys.stdout.write(report["codex"]["message"] + "\n")
    return status


def _human(report: dict[str, Any], hooks: Any) -> str:
    verb = "install" if report["action"] == "install" else "uninstall"
    path, host = report["path"], report["host"]
    lines: list[str] = []
    if not report["changed"]:
        done = "already installed" if verb == "install" else "nothing of Tether's found"
        lines.append(f"{host}: {done} in {path}; nothing to change")
    elif report["dry_run"]:
        lines.append(
            f"{host}: would {verb} Tether's hooks ({', '.join(report['events'])}) "
            f"in {path}; dry run, nothing written. Resulting 'hooks':"
        )
        lines.append(json.dumps(hooks, indent=2))
    else:
        did = "added Tether's hooks to" if verb == "install" else "removed Tether's hooks from"
        lines.append(f"{host}: {did} {path} ({', '.join(report['events'])})")
        if report["backup"]:
            lines.append(f"backup of the previous file: {report['backup']}")
    if verb == "install" and report["changed"]:
        lines.append(f"command: {report['command']}")
        lines.append(NOTES[host])
        lines.append("check it end to end with: tether doctor")
    return "\n".join(lines) + "\n"
