"""What ``tether doctor`` says about the install mode: which one, what it protects against, and
for a managed install whether each part is in place (the daemon, its socket, the hooks)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tether.managed import HOST_FILES, PROTECTS, Record, read_record

Row = tuple[str, str, str, str]  # area, status (ok|info|warn|fail), message, fix ("": none)


def mode_checks(root: str = "/", home: str | None = None) -> list[Row]:
    """Return the doctor's rows for the install mode."""
    record = read_record(root)
    if record is None:
        return [
            (
                "mode",
                "info",
                PROTECTS["user"],
                "for a boundary the agent cannot cross: sudo tether install --managed "
                "(docs/trust.md)",
            )
        ]
    rows: list[Row] = [("mode", "ok", PROTECTS["managed"], "")]
    rows.append(_daemon(record))
    for host in record.hosts:
        rows.append(_hooks(host, record, root))
    if "gemini" in record.hosts:
        rows.append(_gemini_switch(home or os.path.expanduser("~")))
    return rows


def _daemon(record: Record) -> Row:
    from tether.daemon import hook as wire

    owner, problem = wire.managed_socket(record.socket)
    if problem is not None:
        return ("managed daemon", "fail", problem, "systemctl start tether (as root)")
    try:
        reply = wire.ask(record.socket, wire.request("status", [], b""), 5.0, owner)
    except (TimeoutError, wire.NotTheDaemon) as exc:
        return ("managed daemon", "fail", str(exc), "systemctl restart tether (as root)")
    if reply is None or reply[0] != 0:
        return ("managed daemon", "fail", f"no answer on {record.socket}", "systemctl start tether")
    info = json.loads(reply[1])
    return (
        "managed daemon",
        "ok",
        f"running as uid {info.get('uid')} (pid {info.get('pid')}), the socket's owner; "
        f"{info.get('served')} events served",
        "",
    )


def _hooks(host: str, record: Record, root: str) -> Row:
    path = Path(root) / HOST_FILES[host].lstrip("/")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return (host, "fail", f"{path}: {exc.strerror}", "sudo tether install --managed")
    st = path.stat()
    if st.st_uid != 0 or st.st_mode & 0o022:
        return (host, "fail", f"{path} can be changed by others than root", f"chmod 644 {path}")
    if record.command(host) not in text.replace("\\/", "/"):
        return (
            host,
            "fail",
            f"Tether's managed hooks are not in {path}",
            "sudo tether install --managed",
        )
    only = {"claude-code": '"allowManagedHooksOnly": true', "codex": "allow_managed_hooks_only"}
    if host in only and only[host] not in text:
        return (host, "warn", f"{path} lets user and project hooks run beside Tether's", "")
    return (host, "ok", f"managed hooks in {path}", "")


def _gemini_switch(home: str) -> Row:
    path = Path(home) / ".gemini" / "settings.json"
    disabled: Any = None
    try:
        disabled = json.loads(path.read_text(encoding="utf-8")).get("hooksConfig", {})
        disabled = disabled.get("disabled") if isinstance(disabled, dict) else None
    except (OSError, ValueError, AttributeError):
        disabled = None
    if isinstance(disabled, list) and any("tether" in str(d) for d in disabled):
        return (
            "gemini",
            "fail",
            f"{path} lists Tether's hook in hooksConfig.disabled: Gemini CLI merges that list "
            "across scopes, so it turns the managed hook off",
            f"remove it from {path}",
        )
    return (
        "gemini",
        "warn",
        "Gemini CLI has no managed-hooks-only switch: a user's or a workspace's "
        "hooksConfig.disabled naming Tether's hook turns it off (docs/trust.md)",
        "",
    )


__all__ = ["mode_checks"]
