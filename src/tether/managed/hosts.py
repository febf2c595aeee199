"""Tether's hooks in each host's managed settings, which users can read but not change.

* Claude Code reads ``/etc/claude-code/managed-settings.json`` (Linux; the "policySettings"
  source) above every other source. Its hooks run whatever the user's ``disableAllHooks`` says,
  and ``"allowManagedHooksOnly": true`` (honoured from managed settings only) keeps user and
  project hooks, which could rewrite a call's input after Tether judged it, from running.
  Checked in the 2.1.197 and 2.1.332 binaries.
* Codex reads ``/etc/codex/requirements.toml``: hooks there are managed (trusted by policy, no
  ``/hooks`` review) and ``allow_managed_hooks_only = true``, honoured only there, skips the
  user's and the project's hooks (openai/codex docs/config.md). ``[features] hooks = true``
  there pins the feature: in Codex 0.171 a user's ``[features] hooks = false`` otherwise
  turns the managed hooks off as well (tests/e2e/test_e2e_managed.py).
* Gemini CLI reads ``/etc/gemini-cli/settings.json`` as its system settings, above user and
  workspace settings. It has no managed-only switch: ``hooksConfig.disabled`` merges as a
  union across scopes, so a user or workspace file that lists the hook's name disables it.
  docs/trust.md says so; ``tether doctor`` reports it.

Each file is merged, never overwritten: other settings stay, a timestamped backup comes first,
and the file is left root's, mode 0644.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tether.hosts import settings
from tether.managed import HOST_FILES

_BEGIN = "# >>> tether: managed hooks (tether install --managed; removed by uninstall --managed)"
_END = "# <<< tether"
_ONLY = "allow_managed_hooks_only = true  # tether"


def target(host: str, root: Path) -> Path:
    """Return where ``host``'s managed settings are written under ``root``."""
    return root / HOST_FILES[host].lstrip("/")


def install(host: str, command: str, root: Path) -> dict[str, Any]:
    """Put Tether's hooks into ``host``'s managed settings; return what changed."""
    path = target(host, root)
    if host == "codex":
        return _codex(path, command)
    current = settings.read_settings(path)
    change = settings.merge(current, host, command, path)
    after = dict(change.after)
    if host == "claude-code":
        after["allowManagedHooksOnly"] = True
    else:  # gemini: hooks on, whatever a lower scope says (system settings win)
        hooks_config = dict(after.get("hooksConfig") or {})
        hooks_config["enabled"] = True
        after["hooksConfig"] = hooks_config
    change = settings.Change(change.path, change.before, after, change.events)
    backup = settings.write_settings(change) if change.changed else None
    _publish(path)
    return {"path": str(path), "changed": change.changed, "backup": str(backup or "") or None}


def remove(host: str, root: Path) -> dict[str, Any]:
    """Take Tether's hooks out of ``host``'s managed settings; return what changed."""
    path = target(host, root)
    if not path.exists():
        return {"path": str(path), "changed": False}
    if host == "codex":
        text = path.read_text(encoding="utf-8")
        kept = _without_block(text)
        if kept != text:
            _write(path, kept)
        return {"path": str(path), "changed": kept != text}
    current = settings.read_settings(path)
    change = settings.remove(current, host, path)
    after = dict(change.after)
    if host == "claude-code" and after.get("allowManagedHooksOnly") is True:
        del after["allowManagedHooksOnly"]  # set by install; a policy of its own otherwise
    change = settings.Change(change.path, change.before, after, change.events)
    if change.changed:
        settings.write_settings(change)
        _publish(path)
    return {"path": str(path), "changed": change.changed}


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(str(value))  # a TOML basic string: the same escapes


def codex_block(command: str, features: bool = True) -> str:
    """Return the TOML tables of Tether's managed Codex hooks (and ``[features] hooks = true``:
    without it a user's ``[features] hooks = false`` turns managed hooks off too, Codex 0.171)."""
    lines = [_BEGIN]
    if features:
        lines += ["[features]", "hooks = true"]
    for event, matcher in settings.install_events("codex").items():
        lines.append(f"[[hooks.{event}]]")
        if matcher is not None:
            lines.append(f"matcher = {_toml(matcher)}")
        lines.append(f"[[hooks.{event}.hooks]]")
        for key, value in settings.handler("codex", event, command).items():
            lines.append(f"{key} = {_toml(value)}")
    lines.append(_END)
    return "\n".join(lines) + "\n"


def _without_block(text: str) -> str:
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    inside = False
    for line in lines:
        stripped = line.rstrip("\n")
        if stripped == _BEGIN:
            inside = True
            continue
        if inside:
            inside = stripped != _END
            continue
        if stripped == _ONLY:
            continue
        out.append(line)
    return "".join(out)


def _codex(path: Path, command: str) -> dict[str, Any]:
    import tomllib

    from tether.errors import InputError

    before = path.read_text(encoding="utf-8") if path.exists() else ""
    base = _without_block(before)
    try:
        existing = tomllib.loads(base)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML ({exc}); fix it, then install again") from None
    if "hooks" in existing:
        raise InputError(
            f"{path} has its own [hooks]: Tether adds its managed hooks to no one else's "
            "tables; merge them by hand or remove them, then install again"
        )
    head = "" if existing.get("allow_managed_hooks_only") is True else _ONLY + "\n"
    features = existing.get("features")
    if isinstance(features, dict) and features.get("hooks") is False:
        raise InputError(f"{path} turns Codex's hooks off ([features] hooks = false)")
    pin = not isinstance(features, dict)  # a [features] table of its own: add nothing to it
    block = codex_block(command, features=pin)
    text = head + base + ("\n" if base and not base.endswith("\n") else "") + block
    parsed = tomllib.loads(text)
    assert parsed.get("allow_managed_hooks_only") is True and "hooks" in parsed, parsed
    changed = text != before
    backup = None
    if changed:
        backup = _backup(path) if before else None
        _write(path, text)
    _publish(path)
    return {"path": str(path), "changed": changed, "backup": str(backup) if backup else None}


def _backup(path: Path) -> Path:
    import shutil
    import time

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    backup = path.with_name(f"{path.name}.tether-backup-{stamp}")
    shutil.copy2(path, backup)
    return backup


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tether-tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _publish(path: Path) -> None:
    """Leave the file and its folder root's, readable by every user, writable by none."""
    for item, mode in ((path.parent, 0o755), (path, 0o644)):
        if item.exists():
            os.chown(item, 0, 0)
            os.chmod(item, mode)


__all__ = ["codex_block", "install", "remove", "target"]
