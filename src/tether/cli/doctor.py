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
from typing import TYPE_CHECKING, Any

from tether.hosts import HOSTS

if TYPE_CHECKING:
    from tether.config.core import Config


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the report."""

    area: str
    status: str  # ok | info | warn | fail
    message: str
    fix: str = ""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add --fix, --json and --host."""
    parser.add_argument(
        "--fix",
        action="store_true",
        help="move a corrupt SQLite state file aside; point hook entries whose files are gone "
        "at this installation",
    )
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
    from tether.managed.status import mode_checks

    checks.extend(Check(*row) for row in mode_checks())  # which install; what it protects from
    config = _check_config(cwd, checks, tuple(args.config_overrides or ()))
    _check_store(config, bool(args.fix), checks)
    _check_receipts(config, checks)
    _check_daemon(checks)
    _check_command(checks)
    session = f"tether-doctor-{uuid.uuid4().hex[:12]}"
    for host in args.host or list(HOSTS):
        _check_host(host, cwd, session, checks, bool(args.fix))
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
    if config.ignored:
        from tether.config.core import trust_notice

        names = " ".join(dict.fromkeys(item.source for item in config.ignored))
        checks.append(Check("trust", "warn", trust_notice(config.ignored), f"tether trust {names}"))
    return config


def _check_store(config: Config, fix: bool, checks: list[Check]) -> None:
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


def _check_command(checks: list[Check]) -> None:
    """Say which program `tether` runs: another package ships one too (PyPI's tether-ai)."""
    import shutil
    import sys
    from importlib.metadata import packages_distributions

    sharing = sorted(set(packages_distributions().get("tether", [])) - {"tether"})
    if sharing:
        checks.append(
            Check(
                "command",
                "fail",
                f"the `tether` Python package in {sys.prefix} is also installed by "
                f"{', '.join(sharing)}: one overwrote the other's files",
                f"`pip uninstall {' '.join(sharing)}` here, reinstall Tether, and install "
                f"{sharing[0]} in an environment of its own (`pipx install {sharing[0]}`)",
            )
        )
    ours = Path(sys.executable).with_name("tether")
    found = shutil.which("tether")
    if found is None:
        checks.append(
            Check(
                "command",
                "info",
                f"`tether` is not on PATH; this one is {ours} (the hooks name their files "
                "directly, so they do not need PATH)",
            )
        )
        return
    if _same_file(found, ours):
        checks.append(Check("command", "ok", f"`tether` on PATH is this one ({found})"))
        return
    if _runs_this_cli(found):
        checks.append(
            Check(
                "command",
                "info",
                f"`tether` on PATH ({found}) is another installation of Tether; this one is {ours}",
            )
        )
        return
    checks.append(
        Check(
            "command",
            "warn",
            f"`tether` on PATH ({found}) is not Tether the guard (PyPI's tether-ai, a session "
            "supervisor, installs a `tether` command too): what you type runs that program; "
            "the hooks are not affected (they name this installation's files)",
            f"put {ours.parent} first on PATH, or run this one as `{ours}`",
        )
    )


def _same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _runs_this_cli(path: str) -> bool:
    """Return whether the script at ``path`` is a console script of ``tether.cli:main``."""
    try:
        with open(os.path.realpath(path), "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return b"from tether.cli import main" in head


RECEIPT_DAYS = 7  # sessions this recent count for the report of unguarded calls


def _check_receipts(config: Config, checks: list[Check]) -> None:
    """Warn when recorded sessions have results whose calls never got a guard decision."""
    import time

    from tether.hosts.receipts import sentence, summary
    from tether.store.open import open_store

    try:
        store = open_store(config)
        try:
            since = time.time() - RECEIPT_DAYS * 86400
            tallies = []
            for info in store.sessions():
                if info.updated < since or info.session_id.startswith("tether-doctor-"):
                    continue
                state = store.load(info.session_id)
                tally = state.get("unguarded") if isinstance(state, dict) else None
                if isinstance(tally, dict):
                    tallies.append(tally)
        finally:
            store.close()
    except Exception:  # the store check above reports a store that cannot be read
        return
    total = summary(tallies)
    if total["calls"]:
        checks.append(
            Check(
                "receipts",
                "warn",
                f"{sentence(total)} (sessions of the last {RECEIPT_DAYS} days)",
                "the host checks below say which hook does not run; `tether stats` lists the "
                "tools, `tether session show ID` the sessions",
            )
        )
    else:
        checks.append(
            Check(
                "receipts",
                "ok",
                f"no call ran without a guard decision (sessions of the last {RECEIPT_DAYS} days)",
            )
        )


def _check_daemon(checks: list[Check]) -> None:
    from tether.daemon import probe

    status = probe()
    if status.problem:
        folder = os.path.dirname(status.socket)
        checks.append(
            Check(
                "daemon",
                "warn",
                f"cannot run: {status.problem}; every hook call answers in-process (slower)",
                f"make {folder} a directory of yours with mode 700, or set XDG_RUNTIME_DIR",
            )
        )
    elif status.running and status.info:
        i = status.info
        checks.append(
            Check(
                "daemon",
                "ok",
                f"running: pid {i.get('pid')}, tether {i.get('version')}, "
                f"{i.get('served')} events served ({status.socket})",
            )
        )
    else:
        checks.append(
            Check("daemon", "info", f"not running; the next hook event starts it ({status.socket})")
        )


def _probe(config: Config) -> None:
    from tether.store.open import open_store

    store = open_store(config)
    try:
        store.load("tether-doctor-probe")
    finally:
        store.close()


def _check_host(
    host: str, cwd: Path, session: str, checks: list[Check], fix_it: bool = False
) -> None:
    from tether.errors import InputError
    from tether.hosts import probe, settings, switches

    commands: list[str] = []
    names: set[str] = set()  # Tether's handlers' names and commands (Gemini disables by either)
    in_project = False
    seen: set[Path] = set()
    places = [
        (scope, settings.settings_path(host, scope, cwd=cwd)) for scope in ("user", "project")
    ]
    if host == "claude-code":  # entries a user added by hand to the local project file count too
        places.append(("project", cwd / ".claude" / "settings.local.json"))
    from tether.hosts import plugins

    packages = plugins.installed(host)
    places.extend(("plugin", path) for path in packages)
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
            commands.extend(_http(data, path, checks))
        if not settings.installed_commands(data, host):
            continue
        data = _check_targets(host, scope, path, data, fix_it, checks)
        found = settings.installed_commands(data, host)
        expected = settings.install_events(host)
        missing = [e for e in expected if e not in found]
        status = "warn" if missing else "ok"
        kind = " (plugin)" if scope == "plugin" else ""
        message = f"installed in {path}{kind} ({len(found)} events)"
        fix = ""
        if missing:
            message += f"; missing: {', '.join(missing)}"
            fix = f"run `{_reinstall(host, scope)}` to add them"
        checks.append(Check(host, status, message, fix))
        pre = probe.PRE_EVENT[host]
        if host == "claude-code" and any(h.get("onFailure") != "block" for h in found.get(pre, [])):
            checks.append(
                Check(
                    host,
                    "warn",
                    f"{path}: PreToolUse entry lacks onFailure: block",
                    f"run `{_reinstall(host, scope)}`; Claude Code lets calls through "
                    "when a hook crashes unless it is set",
                )
            )
        for gap in switches.matcher_gaps(host, data, path):
            checks.append(Check(host, gap.status, gap.message, gap.fix))
        for handlers in found.values():
            names.update(str(h.get(k)) for h in handlers for k in ("name", "command") if h.get(k))
        if scope == "project":
            in_project = True
        for handler in found.get(pre, []):
            if handler["command"] not in commands:
                commands.append(str(handler["command"]))
    for problem in plugins.disabled(host, packages):
        checks.append(Check(host, "fail", problem, "enable it again in the host"))
    in_settings = [
        c for c in checks if c.area == host and c.message.startswith("installed in")
        and "(plugin)" not in c.message
    ]  # fmt: skip
    if packages and in_settings:
        checks.append(
            Check(
                host,
                "warn",
                "Tether is installed both as a package and in settings files: both run on every "
                "event (Tether answers a repeated event the same way, but each costs a call)",
                f"keep one: `tether uninstall {host}` for the settings entries, or the host's "
                "own command to remove the package",
            )
        )
    if commands:  # installed: is a setting keeping the host from running the hooks?
        for found_switch in _switches(host, cwd, names, in_project, bool(packages)):
            checks.append(Check(host, found_switch.status, found_switch.message, found_switch.fix))
    if host == "claude-code":
        _claude_version(checks, bool(commands))
    if host == "codex":
        _codex_toml(cwd, checks)
        if commands:
            _codex_trust(cwd, checks)
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
                        _hook_fix(host, command, installed, checks, outcome.verdict),
                    )
                )


def _check_targets(
    host: str, scope: str, path: Path, data: Any, fix_it: bool, checks: list[Check]
) -> Any:
    """Fail on hook entries naming files that are gone; warn on another installation's.

    Return the settings as they are now (``--fix`` points gone entries at this installation).
    """
    from tether.hosts import installed, settings

    broken = installed.broken_entries(data, host)
    if broken and fix_it:
        refreshed = _refresh(host, scope, path, data)
        if refreshed is not None:
            was, why = broken[0]
            done = f"{path}: hooks that ran {was} ({why}) now run this installation's ({refreshed})"
            checks.append(Check(host, "ok", done))
            return settings.read_settings(path)
    for command, why in broken:
        checks.append(
            Check(
                host,
                "fail",
                f"{path}: the hook command `{command}` cannot run: {why}; the host blocks or "
                "lets through every call without Tether judging it (Tether was reinstalled or "
                "moved)",
                f"run `{_reinstall(host, scope)}` (or `tether doctor --fix`): it points "
                "the entries at this installation",
            )
        )
    if broken:
        return data
    others = {
        str(h["command"])
        for handlers in settings.installed_commands(data, host).values()
        for h in handlers
        if not installed.same_installation(str(h["command"]))
    }
    for command in sorted(others):
        checks.append(
            Check(
                host,
                "warn",
                f"{path}: the hook runs another installation of Tether (`{command}`), not this "
                f"one ({installed.this_hook_file()}); its version and config are what the host "
                "gets",
                f"run `{_reinstall(host, scope)}` to use this installation, or run that "
                "installation's `tether doctor`",
            )
        )
    return data


def _reinstall(host: str, scope: str) -> str:
    """Return the command that writes Tether's hooks for ``host`` in ``scope`` again."""
    if scope == "plugin":
        return f"tether plugin {host} --install"
    return f"tether install {host} --{scope}"


def _refresh(host: str, scope: str, path: Path, data: Any) -> str | None:
    """Point Tether's entries in ``path`` at this installation (``tether install``'s refresh)."""
    from tether.hosts import settings

    if scope == "plugin":
        return None  # the host's copy of a package: rebuilt and reinstalled, not edited

    command = settings.default_command(host)
    change = settings.merge(data, host, command, path)
    if not change.changed:
        return None
    settings.write_settings(change)
    if host == "codex":
        from tether.hosts.codex_trust import activate

        activate(None, Path.cwd())  # the new command needs Codex's trust; the trust check says
    return command


def _switches(
    host: str, cwd: Path, names: set[str], in_project: bool, package: bool = False
) -> list[Any]:
    """Return the settings that keep ``host`` from running Tether's hooks (hosts.switches)."""
    from tether.hosts import settings, switches

    env = os.environ
    if host == "claude-code":
        managed = any(
            settings.installed_commands(switches._json(path), host)
            for path in switches.claude_managed_files()
        )
        return switches.claude_code(cwd, env, tether_in_managed=managed)
    if host == "codex":
        return switches.codex(cwd, env, project_hooks=in_project)
    return switches.gemini(cwd, env, tether_names=sorted(names) or ["tether"], extension=package)


def _failed_sample(label: str, expect: str, verdict: str) -> str:
    """Say what a sample should have got and what it got, in words."""
    if verdict == "deny (hook failing)":
        return f"{label} is denied, but only because the hook fails on every call"
    if verdict == "deny (not Tether's answer)":
        return f"{label} is blocked, but not by Tether: the command fails before Tether runs"
    if expect != "deny":
        return f"{label} should run but was {'denied' if verdict == 'deny' else verdict}"
    return f"{label} should be denied but the hook answered {verdict}"


def _hook_fix(
    host: str, command: str, installed: bool, checks: list[Check], verdict: str = ""
) -> str:
    """Point at the real cause: a config or store failure already reported comes first."""
    for area in ("config", "store"):
        if any(c.area == area and c.status == "fail" for c in checks):
            return (
                f"the hook fails because of the {area} problem reported above: fix that first, "
                "then run `tether doctor` again"
            )
    if verdict == "deny (hook failing)":
        # The hook runs and fails closed on every call: reinstalling changes nothing; the
        # cause is in its reply (shown above), possibly in a daemon holding an old state.
        return (
            "the hook runs but fails on every call, for the cause shown above; if it names "
            "something this report says is fine now, run `tether daemon stop` (the next call "
            "starts a fresh daemon) and `tether doctor` again"
        )
    if not installed:
        return f"run `{command}` by hand with a sample event on stdin to see the error"
    return f"run `{command}` by hand with a sample event; reinstall with `tether install {host}`"


def _http(data: Any, path: Path, checks: list[Check]) -> list[str]:
    """Warn about HTTP hook entries left by the retired ``tether install claude-code --http``.

    Returns the commands their fallbacks run, so the samples exercise those too.
    """
    from tether.serve.install import FALLBACK_JOIN, installed_urls, is_fallback

    urls = installed_urls(data)
    if not urls:
        return []
    checks.append(
        Check(
            "claude-code",
            "warn",
            f"{path} still has HTTP hooks posting to {', '.join(urls)} (the retired "
            "`--http` install): Claude Code runs their curl fallback beside them on every "
            "event, and a stalled `tether serve` holds every call for their timeout",
            "run `tether install claude-code` (it replaces them with the command hook)",
        )
    )
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


# The first Claude Code that honours ``onFailure: "block"`` (documented) and, in Tether's e2e
# runs, ``continue: false`` next to a deny: 2.1.197 ignores both, 2.1.332 honours both.
CLAUDE_HONOURS = (2, 1, 295)


def _claude_version(checks: list[Check], installed: bool) -> None:
    """Warn when the installed Claude Code lets a crashed hook's call run and ignores halts.

    Never silent: when the version cannot be read, the report says so and why.
    """
    import re
    import shutil
    import subprocess

    need = ".".join(map(str, CLAUDE_HONOURS))
    stakes = (
        f"Claude Code before {need} lets a call run when the hook cannot start, and ignores "
        "continue: false"
    )
    unknown = "warn" if installed else "info"
    claude = shutil.which("claude")
    if claude is None:
        checks.append(
            Check(
                "claude-code",
                unknown,
                f"cannot check the Claude Code version: `claude` is not on PATH ({stakes})",
                f"put `claude` on PATH and rerun `tether doctor`, or check that `claude "
                f"--version` says {need} or newer",
            )
        )
        return
    try:
        out = subprocess.run(
            [claude, "--version"], capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        out, why = "", f"`{claude} --version` failed ({type(exc).__name__}: {exc})"
    else:
        why = f"`{claude} --version` printed no version ({out.strip()[:80]!r})"
    found = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    if found is None:
        checks.append(
            Check(
                "claude-code",
                unknown,
                f"cannot check the Claude Code version: {why} ({stakes})",
                f"make sure `claude --version` works and says {need} or newer",
            )
        )
        return
    version = tuple(int(g) for g in found.groups())
    if version < CLAUDE_HONOURS:
        shown = ".".join(map(str, version))
        checks.append(
            Check(
                "claude-code",
                "warn",
                f"Claude Code {shown} ({claude}) ignores onFailure: block (a hook that cannot "
                "start lets the call run) and continue: false (a halt does not stop the agent; "
                "Tether refuses its later calls instead)",
                f"update Claude Code to {need} or newer (`claude update`)",
            )
        )
    else:
        checks.append(
            Check(
                "claude-code",
                "ok",
                f"Claude Code {'.'.join(map(str, version))} honours onFailure and continue",
            )
        )


def _codex_trust(cwd: Path, checks: list[Check]) -> None:
    """Fail while Codex would skip one of Tether's hooks (untrusted or modified: no warning)."""
    from tether.hosts import codex_trust

    codex = codex_trust.find_codex()
    if codex is None:
        checks.append(
            Check(
                "codex",
                "warn",
                "cannot tell whether Codex trusts Tether's hooks: `codex` is not on PATH "
                "(Codex skips untrusted hooks silently)",
                "put `codex` on PATH and rerun `tether doctor`",
            )
        )
        return
    try:
        hooks = codex_trust.tether_hooks(codex, cwd)
    except codex_trust.CodexError as exc:
        checks.append(Check("codex", "fail", f"cannot read Codex's hook trust: {exc}", ""))
        return
    skipped = [h for h in hooks if not h.active]
    if not hooks:
        checks.append(
            Check(
                "codex",
                "fail",
                f"`{codex}` does not list Tether's hooks for {cwd}: Codex does not run them",
                f"run `tether install codex`; {codex_trust.MANUAL_STEP}",
            )
        )
    elif skipped:
        names = ", ".join(
            f"{h.event} ({h.status}{'' if h.enabled else ', disabled'})" for h in skipped
        )
        checks.append(
            Check(
                "codex",
                "fail",
                f"Codex skips Tether's hooks without a word: {names}",
                f"run `tether install codex` (it asks Codex to trust them); or "
                f"{codex_trust.MANUAL_STEP}",
            )
        )
    else:
        checks.append(Check("codex", "ok", f"Codex trusts and runs Tether's {len(hooks)} hooks"))


def _forget(config: Config, session: str) -> None:
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
