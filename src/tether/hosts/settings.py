"""Where each host keeps its hook settings, and how Tether's entries are merged in and out.

Tether's entries are recognised by their command string alone (``… tether hook HOST``,
``… -m tether hook HOST`` or ``PYTHON -I -S …/tether/daemon/hook.py HOST``), so ``uninstall``
removes exactly what ``install`` added and never touches anyone else's hooks. Installing twice
changes nothing the second time.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.errors import InputError
from tether.hosts import adapter

HOST_TIMEOUT = 30  # seconds the host waits; the hook's own deadline (hooks.deadline) is 15 s


@dataclass(frozen=True, slots=True)
class Change:
    """The result of merging Tether's entries into (or out of) one settings file."""

    path: Path
    before: dict[str, Any]
    after: dict[str, Any]
    events: tuple[str, ...]  # events whose entries were added, updated or removed

    @property
    def changed(self) -> bool:
        """Return whether the file's content would change."""
        return self.before != self.after


def settings_path(
    host: str, scope: str, *, cwd: Path | None = None, environ: Mapping[str, str] | None = None
) -> Path:
    """Return the settings file ``host`` reads hooks from, for scope "user" or "project"."""
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    project = cwd or Path.cwd()
    if host == "claude-code":
        return (home if scope == "user" else project) / ".claude" / "settings.json"
    if host == "codex":
        base = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
        return (base if scope == "user" else project / ".codex") / "hooks.json"
    if host == "gemini":
        return (home if scope == "user" else project) / ".gemini" / "settings.json"
    adapter(host)  # raises the "unknown host" error
    raise AssertionError(host)


def default_command(host: str) -> str:
    """Return the command line hosts should run: this installation's builtins-only hook.

    ``PYTHON -I -S …/tether/daemon/hook.py HOST`` relays the event to the per-user daemon
    (or answers it in-process), at about the cost of ``python -c pass``; the interpreter and the
    file are this installation's, so it works from any venv without activating it.
    """
    from tether.daemon import hook_command

    return hook_command(host)


def legacy_command(host: str) -> str:
    """Return ``tether hook HOST`` for this installation (no daemon; every call cold)."""
    script = Path(sys.executable).with_name("tether")
    found = str(script) if script.is_file() else shutil.which("tether")
    if found:
        return f"{shlex.quote(found)} hook {host}"
    return f"{shlex.quote(sys.executable)} -m tether hook {host}"


def is_tether_command(command: object, host: str) -> bool:
    """Return whether ``command`` runs ``tether hook HOST`` (any path, script or ``-m``)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    # Skip leading VAR=value assignments and an ``env`` wrapper: the program comes next.
    i = 0
    while i < len(words) and (
        ("=" in words[i] and not words[i].startswith("-")) or words[i] == "env"
    ):
        i += 1
    program, rest = words[i : i + 1], words[i + 1 :]
    if not program:
        return False
    name = os.path.basename(program[0])
    if name == "tether":
        args = rest
    elif name.startswith("python") and rest[:2] == ["-m", "tether"]:
        args = rest[2:]
    elif name.startswith("python"):  # PYTHON -I -S …/tether/daemon/hook.py HOST
        script = [w for w in rest if not w.startswith("-")][:2]
        return len(script) == 2 and _is_daemon_hook(script[0]) and script[1] == host
    elif name in WRAPPERS:
        # A program that only runs its arguments (`nice -n 5 …/tether hook codex`, `timeout
        # 20 PYTHON -I -S …/hook.py codex`): Tether's if the hook is among them. Any other
        # program could do more than run Tether (another guard that calls it), so its entry
        # stays someone else's.
        return _wraps_hook(rest, host)
    else:
        return False
    return args[:2] == ["hook", host]


# Programs that run the command in their arguments and nothing else.
WRAPPERS = frozenset({"nice", "ionice", "timeout", "nohup", "chrt", "taskset", "stdbuf", "setsid"})


def _wraps_hook(words: list[str], host: str) -> bool:
    """Return whether ``words`` hold Tether's hook for ``host`` as a program and its arguments."""
    for i, word in enumerate(words):
        after = words[i + 1 :]
        if os.path.basename(word) == "tether" and after[:2] == ["hook", host]:
            return True
        if word == "-m" and after[:3] == ["tether", "hook", host]:
            return True
        if _is_daemon_hook(word) and after[:1] == [host]:
            return True
    return False


def _is_daemon_hook(path: str) -> bool:
    return Path(path).parts[-3:] == ("tether", "daemon", "hook.py")


def handler(host: str, event: str, command: str) -> dict[str, Any]:
    """Return the hook handler Tether installs for ``event``."""
    if host == "gemini":
        return {
            "type": "command",
            "command": command,
            "name": "tether",
            "timeout": HOST_TIMEOUT * 1000,  # Gemini CLI counts milliseconds
            "description": "Tether guardrails: loop detection and shell command safety",
        }
    entry: dict[str, Any] = {"type": "command", "command": command, "timeout": HOST_TIMEOUT}
    if host == "claude-code" and event == "PreToolUse":
        entry["onFailure"] = "block"  # Claude Code >= 2.1.295: a crashed hook blocks the call
    return entry


def install_events(host: str) -> dict[str, str | None]:
    """Return the events Tether registers for ``host``, each with its matcher (None: no matcher)."""
    events: dict[str, str | None] = adapter(host).INSTALL_EVENTS
    return events


def read_settings(path: Path) -> dict[str, Any]:
    """Return the JSON object in ``path`` ({} when the file does not exist)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(
            f"{path}: not valid JSON ({exc}); fix the file or move it aside, nothing was changed"
        ) from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object at the top, found {type(data).__name__}")
    return data


def _hooks_table(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InputError(f"{path}: 'hooks' must be an object, found {type(hooks).__name__}")
    return hooks


def _strip(groups: list[Any], host: str) -> tuple[list[Any], bool]:
    """Return ``groups`` without Tether's handlers for ``host`` and whether any were removed."""
    kept: list[Any] = []
    removed = False
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list):
            kept.append(group)
            continue
        others = [
            h
            for h in inner
            if not (isinstance(h, dict) and is_tether_command(h.get("command"), host))
        ]
        if len(others) == len(inner):
            kept.append(group)
            continue
        removed = True
        if others:
            kept.append({**group, "hooks": others})
    return kept, removed


def _is_ours(entry: object, host: str) -> bool:
    return isinstance(entry, dict) and is_tether_command(entry.get("command"), host)


def merge(settings: Mapping[str, Any], host: str, command: str, path: Path) -> Change:
    """Return ``settings`` with Tether's entries for ``host`` added or refreshed in place."""
    before = copy.deepcopy(dict(settings))
    after = copy.deepcopy(before)
    hooks = _hooks_table(after, path)
    touched: list[str] = []
    for event, matcher in install_events(host).items():
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise InputError(
                f"{path}: 'hooks.{event}' must be a list, found {type(groups).__name__}"
            )
        wanted = handler(host, event, command)
        first = next(
            (
                (gi, hi)
                for gi, g in enumerate(groups)
                if isinstance(g, dict) and isinstance(g.get("hooks"), list)
                for hi, h in enumerate(g["hooks"])
                if _is_ours(h, host)
            ),
            None,
        )
        if first is None:
            group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
            hooks[event] = [*groups, {**group, "hooks": [wanted]}]
            touched.append(event)
            continue
        # Refresh the first entry where it stands (a user's matcher edits and other handlers in
        # its group stay), and drop any duplicates elsewhere.
        gi, hi = first
        old = groups[gi]["hooks"][hi]
        groups[gi]["hooks"][hi] = _SENTINEL
        kept, removed = _strip(groups, host)
        for g in kept:
            inner = g.get("hooks") if isinstance(g, dict) else None
            if isinstance(inner, list) and _SENTINEL in inner:
                inner[inner.index(_SENTINEL)] = wanted
        hooks[event] = kept
        if removed or old != wanted:
            touched.append(event)
    return Change(path, before, after, tuple(touched))


# Stands in for Tether's first entry while duplicates are stripped, so it keeps its place.
_SENTINEL: dict[str, Any] = {"command": "\x00tether-placeholder"}


def remove(settings: Mapping[str, Any], host: str, path: Path) -> Change:
    """Return ``settings`` without any of Tether's entries for ``host``; others stay as they are."""
    before = copy.deepcopy(dict(settings))
    after = copy.deepcopy(before)
    hooks = after.get("hooks")
    touched: list[str] = []
    if isinstance(hooks, dict):
        for event in list(hooks):
            groups = hooks[event]
            if not isinstance(groups, list):
                continue
            kept, removed = _strip(groups, host)
            if not removed:
                continue
            touched.append(event)
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
        if touched and not hooks:
            del after["hooks"]
    return Change(path, before, after, tuple(touched))


def installed_commands(settings: Mapping[str, Any], host: str) -> dict[str, list[dict[str, Any]]]:
    """Return Tether's handlers for ``host`` in ``settings``, by event."""
    found: dict[str, list[dict[str, Any]]] = {}
    hooks = settings.get("hooks")
    if not isinstance(hooks, Mapping):
        return found
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            inner = group.get("hooks") if isinstance(group, dict) else None
            for h in inner if isinstance(inner, list) else []:
                if isinstance(h, dict) and is_tether_command(h.get("command"), host):
                    found.setdefault(str(event), []).append(h)
    return found


def write_settings(change: Change) -> Path | None:
    """Write ``change.after`` atomically, after a timestamped backup; return the backup path."""
    # A symlinked settings file (dotfiles) is written through, not replaced by a regular file.
    path = change.path.resolve() if change.path.is_symlink() else change.path
    backup: Path | None = None
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        backup = path.with_name(f"{path.name}.tether-backup-{stamp}")
        n = 1
        while backup.exists():
            backup = path.with_name(f"{path.name}.tether-backup-{stamp}-{n}")
            n += 1
        shutil.copy2(path, backup)
    text = json.dumps(change.after, indent=2, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        if backup is not None:
            shutil.copymode(backup, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return backup
