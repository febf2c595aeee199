"""``tether doctor``: check the installed hooks end to end, the config and the state store.

Feeds sample events (``rm -rf /``, ``ls -la``, a malformed event) through each installed hook
command as a real process, the way the host runs it, and reports what a user must fix.
``--fix`` moves a corrupt SQLite state file aside so a fresh one is created.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tether.hosts import HOSTS


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the report."""

    area: str
    status: str  # ok | info | warn | fail
    message: str
    fix: str = ""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add --fix, --json and --host."""
    parser.add_argument("--fix", action="store_true", help="move a corrupt SQLite state file aside")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--host", action="append", choices=list(HOSTS), help="check only this host (repeatable)"
    )
    from tether.cli._common import add_config_arguments

    add_config_arguments(parser)  # the config and store checks; hook processes read their own


def run(args: argparse.Namespace, name: str) -> int:
    """Run every check, print the report; exit 1 when something must be fixed."""
    cwd = Path.cwd()
    checks: list[Check] = []
    config = _check_config(cwd, checks, tuple(args.config_overrides or ()))
    _check_store(config, bool(args.fix), checks)
    session = f"tether-doctor-{uuid.uuid4().hex[:12]}"
    for host in args.host or list(HOSTS):
        _check_host(host, cwd, session, checks)
    _forget(config, session)
    failed = [c for c in checks if c.status == "fail"]
    if args.json:
        report = {"ok": not failed, "checks": [asdict(c) for c in checks]}
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        sys.stdout.write(_human(checks))
    return 1 if failed else 0


def _check_config(cwd: Path, checks: list[Check], overrides: tuple[str, ...] = ()) -> Any:
    from tether.config import DEFAULT_CONFIG, load_config
    from tether.errors import ConfigError

    try:
        config = load_config(cwd=cwd, overrides=overrides)
    except ConfigError as exc:
        checks.append(
            Check(
                "config",
                "fail",
                str(exc),
                "fix the file and key named above; `tether config check` lists every mistake",
            )
        )
        return DEFAULT_CONFIG
    checks.append(Check("config", "ok", "configuration loads"))
    return config


def _check_store(config: Any, fix: bool, checks: list[Check]) -> None:
    from tether.store.open import sqlite_path

    backend = str(config.get("store.backend"))
    if backend == "sqlite":
        where = str(sqlite_path(config))
    else:
        from tether.store.redis_store import redact_url

        where = redact_url(str(config.get("store.url")))
    try:
        _probe(config)
    except Exception as exc:
        cause = f"{type(exc).__name__}: {exc}"
        if backend == "sqlite" and fix:
            from tether.store.sqlite import move_aside

            try:
                moved = move_aside(sqlite_path(config))
                _probe(config)
            except Exception as again:
                checks.append(Check("store", "fail", f"{where}: {cause}; --fix failed: {again}"))
                return
            checks.append(
                Check("store", "ok", f"{where}: was broken ({cause}); moved aside to {moved}")
            )
            return
        hint = (
            "run `tether doctor --fix` to move the broken file aside (its sessions are lost)"
            if backend == "sqlite"
            else "start the Redis server or correct store.url"
            if backend == "redis"
            else "check the store.* settings"
        )
        checks.append(Check("store", "fail", f"{backend} store {where}: {cause}", hint))
        return
    checks.append(Check("store", "ok", f"{backend} store opens: {where}"))


def _probe(config: Any) -> None:
    from tether.store.open import open_store

    store = open_store(config)
    try:
        store.load("tether-doctor-probe")
    finally:
        store.close()


def _check_host(host: str, cwd: Path, session: str, checks: list[Check]) -> None:
    from tether.errors import InputError
    from tether.hosts import probe, settings

    commands: list[str] = []
    seen: set[Path] = set()
    places = [
        (scope, settings.settings_path(host, scope, cwd=cwd)) for scope in ("user", "project")
    ]
    if host == "claude-code":  # entries a user added by hand to the local project file count too
        places.append(("project", cwd / ".claude" / "settings.local.json"))
    for scope, path in places:
        if path.resolve() in seen:
            continue  # run from the home directory: user and project files are the same
        seen.add(path.resolve())
        try:
            data = settings.read_settings(path)
        except InputError as exc:
            checks.append(Check(host, "fail", str(exc), "repair the file, then rerun"))
            continue
        if host == "claude-code":
            commands.extend(_http(data, path, cwd, session, checks))
        found = settings.installed_commands(data, host)
        if not found:
            continue
        expected = settings.install_events(host)
        missing = [e for e in expected if e not in found]
        status = "warn" if missing else "ok"
        message = f"installed in {path} ({len(found)} events)"
        fix = ""
        if missing:
            message += f"; missing: {', '.join(missing)}"
            fix = f"run `tether install {host} --{scope}` to add them"
        checks.append(Check(host, status, message, fix))
        pre = probe.PRE_EVENT[host]
        if host == "claude-code" and any(h.get("onFailure") != "block" for h in found.get(pre, [])):
            checks.append(
                Check(
                    host,
                    "warn",
                    f"{path}: PreToolUse entry lacks onFailure: block",
                    f"run `tether install {host} --{scope}`; Claude Code lets calls through "
                    "when a hook crashes unless it is set",
                )
            )
        for handler in found.get(pre, []):
            if handler["command"] not in commands:
                commands.append(str(handler["command"]))
    if host == "codex":
        _codex_toml(cwd, checks)
    installed = bool(commands)
    if not commands:
        command = settings.default_command(host)
        checks.append(
            Check(
                host,
                "info",
                f"not installed; checking `{command}` instead",
                f"run `tether install {host}` to install it",
            )
        )
        commands = [command]
    for command in commands:
        for sample in probe.samples(host, session, cwd):
            outcome = probe.run_sample(host, command, sample, cwd=cwd)
            want = "denied" if sample.expect == "deny" else "not denied"
            if outcome.ok:
                checks.append(Check(host, "ok", f"{sample.label} is {want} ({outcome.verdict})"))
            else:
                checks.append(
                    Check(
                        host,
                        "fail",
                        f"{_failed_sample(sample.label, sample.expect, outcome.verdict)}: "
                        f"{outcome.detail}",
                        _hook_fix(host, command, installed, checks),
                    )
                )


def _failed_sample(label: str, expect: str, verdict: str) -> str:
    """Say what a sample should have got and what it got, in words."""
    if verdict == "deny (hook failing)":
        return f"{label} is denied, but only because the hook fails on every call"
    if expect != "deny":
        return f"{label} should run but was {'denied' if verdict == 'deny' else verdict}"
    return f"{label} should be denied but the hook answered {verdict}"


def _hook_fix(host: str, command: str, installed: bool, checks: list[Check]) -> str:
    """Point at the real cause: a config or store failure already reported comes first."""
    for area in ("config", "store"):
        if any(c.area == area and c.status == "fail" for c in checks):
            return (
                f"the hook fails because of the {area} problem reported above: fix that first, "
                "then run `tether doctor` again"
            )
    if not installed:
        return f"run `{command}` by hand with a sample event on stdin to see the error"
    return f"run `{command}` by hand with a sample event; reinstall with `tether install {host}`"


def _http(data: Any, path: Path, cwd: Path, session: str, checks: list[Check]) -> list[str]:
    """Check Claude Code HTTP hook entries (``tether install claude-code --http``).

    Returns the commands their fallbacks run, so the samples exercise those too.
    """
    from tether.serve.install import FALLBACK_JOIN, check, installed_urls, is_fallback
    from tether.serve.options import TOKEN_ENV

    if not installed_urls(data):
        return []
    checks.append(Check("claude-code", "ok", f"HTTP hooks (tether serve) installed in {path}"))
    for status, message, fix in check(data, cwd, session, os.environ.get(TOKEN_ENV, "")):
        checks.append(Check("claude-code", status, message, fix))
    fallbacks: list[str] = []
    hooks = data.get("hooks") if isinstance(data, dict) else None
    for group in (hooks or {}).get("PreToolUse", []) if isinstance(hooks, dict) else []:
        for h in group.get("hooks", []) if isinstance(group, dict) else []:
            if is_fallback(h):
                tail = str(h["command"]).partition(FALLBACK_JOIN)[2]
                if tail not in fallbacks:
                    fallbacks.append(tail)
    return fallbacks


def _codex_toml(cwd: Path, checks: list[Check]) -> None:
    """Mention inline [hooks] entries in config.toml, which install does not manage."""
    home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
    for path in (home / "config.toml", cwd / ".codex" / "config.toml"):
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        if "tether hook codex" in text or "-m tether hook codex" in text:
            checks.append(
                Check(
                    "codex",
                    "info",
                    f"{path} also runs `tether hook codex` (inline [hooks]); "
                    "`tether install`/`uninstall` manage hooks.json only",
                )
            )


def _forget(config: Any, session: str) -> None:
    try:
        from tether.store.open import open_store

        store = open_store(config)
        try:
            store.delete(session)
        finally:
            store.close()
    except Exception:  # the store check above already reported any store problem
        return


def _human(checks: list[Check]) -> str:
    marks = {"ok": "ok  ", "info": "info", "warn": "WARN", "fail": "FAIL"}
    lines = []
    for c in checks:
        lines.append(f"{marks[c.status]}  {c.area}: {c.message}")
        if c.fix and c.status != "ok":
            lines.append(f"      fix: {c.fix}")
    failed = sum(c.status == "fail" for c in checks)
    warned = sum(c.status == "warn" for c in checks)
    if failed or warned:
        lines.append(f"{failed} problem(s) to fix, {warned} warning(s)")
    else:
        lines.append("everything checked is working")
    return "\n".join(lines) + "\n"
