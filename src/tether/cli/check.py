"""``tether check COMMAND…``: the whole decision the guard would make for a shell command.

``tether classify`` says what a command *is* (read-only? dangerous?). ``tether check`` says
what the guard *does* with it under your configuration: the approval mode, your allow and deny
globs, the unattended setting, the floors nothing lifts. It runs the same ``Guard.before_call``
a hook runs, on a fresh session, so loop history plays no part.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from tether.cli._common import add_config_arguments, config_from_args

if TYPE_CHECKING:
    from tether.config.core import Config

EPILOG = """\
Exit status: 0 when every command would run (allow or warn), 1 when any would be asked about,
blocked or halted, 2 on a usage or configuration error.

examples:
  tether check 'git push --force origin main'
  tether check --unattended 'git push --force origin main'     # as in CI or `claude -p`
  tether check --host codex 'rm -rf ../other'                  # Codex cannot ask: asks block
  TETHER_APPROVALS__DENY='ls*' tether check 'ls -la'           # blocked by the deny glob
  tether check --set approvals.mode=off --json 'rm -rf /'      # still blocked: a floor
"""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add the check options."""
    from tether.hosts import HOSTS

    parser.epilog = EPILOG
    parser.add_argument("commands", nargs="+", metavar="COMMAND", help="a shell command line")
    parser.add_argument(
        "--unattended",
        action="store_true",
        help="decide as for a run no human watches (approvals.unattended applies to asks)",
    )
    parser.add_argument(
        "--host",
        choices=list(HOSTS),
        help="decide as this host's hook would (its shell tool; unattended when it cannot ask)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (one object per command)")
    add_config_arguments(parser)


def check(
    command: str, config: Config | None, *, unattended: bool, tool: str = ""
) -> dict[str, Any]:
    """Return the guard's decision for ``command`` with the settings that shaped it."""
    from tether.approval import review
    from tether.approval.policy import Policy
    from tether.guard import Guard
    from tether.model import ToolCall

    guard = Guard(config, unattended=unattended)
    shells = guard.settings.tools.shell
    tool = tool if tool in shells else next(iter(shells), "Bash")
    decision = guard.before_call(
        ToolCall("tether-check", tool, {shells.get(tool, "command"): command})
    )
    policy = Policy.from_config(config)
    approval = review(command, config, unattended=unattended)
    classification = approval.classification
    matched = {k: approval.decision.evidence.get(k) for k in ("deny", "allow")}
    return {
        "command": command,
        "action": decision.action.label,
        "codes": list(decision.codes),
        "message": decision.message,
        "evidence": dict(decision.evidence),
        "classification": classification.to_json() if classification is not None else None,
        "settings": {
            "tool": tool,
            "unattended": unattended,
            "approvals.mode": policy.mode,
            "approvals.unattended": policy.unattended,
            "approvals.allow": list(policy.allow),
            "approvals.deny": list(policy.deny),
        },
        "matched": matched,
    }


def render(result: dict[str, Any]) -> str:
    """Return the human-readable decision: what the guard does, why, and under which settings."""
    from tether.cli._common import named_codes, shown_command

    lines = [f"{result['action'].upper()}: {shown_command(result['command'])}"]
    named = named_codes(result["codes"])
    if named:
        lines.append(f"  codes: {', '.join(named)}   (tether rules CODE explains one)")
    if result["message"]:
        lines.append(f"  message: {result['message']}")
    c = result["classification"]
    if c is not None:
        what = "read-only" if c["read_only"] else "not read-only"
        danger = "" if c["danger"] == "none" else f", danger {c['danger']}"
        lines.append(f"  command: {what}{danger} — {c['danger_reason'] or c['reason']}")
    s = result["settings"]
    who = "unattended (no human can answer)" if s["unattended"] else "attended (asks reach a human)"
    lines.append(
        f"  settings: approvals.mode={s['approvals.mode']}, "
        f"approvals.unattended={s['approvals.unattended']}, {who}, tool {s['tool']}"
    )
    for key in ("deny", "allow"):
        globs = s[f"approvals.{key}"]
        if globs:
            hit = result["matched"].get(key)
            note = f" (matched {hit!r})" if hit else " (none matched)"
            lines.append(f"  approvals.{key}: {', '.join(globs)}{note}")
    return "\n".join(lines)


def run(args: argparse.Namespace, name: str) -> int:
    """Print the decision for every command; exit 1 when any would not simply run."""
    config = config_from_args(args)
    unattended = bool(args.unattended)
    tool = ""
    if args.host:
        from tether.hosts import adapter
        from tether.hosts.probe import SHELL_TOOL

        unattended = unattended or not adapter(args.host).CAN_ASK
        tool = SHELL_TOOL[args.host]
    results = [check(c, config, unattended=unattended, tool=tool) for c in args.commands]
    if args.json:
        payload: Any = results[0] if len(results) == 1 else results
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write("\n\n".join(render(r) for r in results) + "\n")
    return 0 if all(r["action"] in ("allow", "warn") for r in results) else 1
