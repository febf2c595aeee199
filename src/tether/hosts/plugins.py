"""Tether as each host's own kind of package: a Claude Code plugin, a Codex plugin, a Gemini
CLI extension, each with its hooks built from the very entries ``tether install`` writes.

The hook command names this installation's interpreter and ``hook.py``, so the package is
built on the user's machine (``tether plugin HOST``) rather than shipped: a package in the
repository could only run ``tether`` from PATH. The hosts then install it their own way:

* Claude Code: a marketplace (``.claude-plugin/marketplace.json``) with one plugin
  (``tether/.claude-plugin/plugin.json`` and ``tether/hooks/hooks.json``);
  ``claude plugin marketplace add DIR`` then ``claude plugin install tether@tether``.
* Codex (0.117 and newer): a marketplace (``.agents/plugins/marketplace.json``) with one plugin
  (``tether/.codex-plugin/plugin.json`` and ``tether/hooks/hooks.json``);
  ``codex plugin marketplace add DIR`` then ``codex plugin add tether@tether``. Codex asks
  for trust of a plugin's hooks as of any other: ``tether plugin codex --trust`` gives it.
* Gemini CLI: an extension (``gemini-extension.json`` and ``hooks/hooks.json``);
  ``gemini extensions install DIR --consent``. An extension's hooks also run in a folder
  Gemini CLI does not trust, where hooks from settings files do not.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from tether.hosts import adapter, settings

NAME = "tether"  # the plugin's, the extension's and the marketplace's name
DESCRIPTION = (
    "Tether guardrails: blocks dangerous shell commands, stops loops, fails closed "
    "(the hooks `tether install` writes)"
)


class Built(NamedTuple):
    """A package written to disk and how the host installs it."""

    host: str
    root: Path  # what the host is given (a marketplace or an extension folder)
    hooks_file: Path
    commands: tuple[tuple[str, ...], ...]  # the host's own commands, in order


def default_dir(host: str, environ: Mapping[str, str] | None = None) -> Path:
    """Return where ``tether plugin HOST`` builds the package: ``$XDG_DATA_HOME/tether/…``."""
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    data = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else home / ".local" / "share"
    return data / "tether" / "plugins" / host


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tether")
    except PackageNotFoundError:
        return "0.0.0"


def hooks_table(host: str, command: str | None = None) -> dict[str, Any]:
    """Return the ``hooks`` table ``tether install HOST`` writes into an empty settings file."""
    change = settings.merge({}, host, command or settings.default_command(host), Path("-"))
    table: dict[str, Any] = change.after["hooks"]
    return table


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def build(host: str, out: Path, command: str | None = None) -> Built:
    """Write ``host``'s package for this installation to ``out`` (replaced); say how to install."""
    if out.exists():
        shutil.rmtree(out)
    version = _version()
    commands: tuple[tuple[str, ...], ...]
    hooks = {"description": DESCRIPTION, "hooks": hooks_table(host, command)}
    meta = {"name": NAME, "version": version, "description": DESCRIPTION}
    if host == "claude-code":
        plugin = out / NAME
        _write(
            out / ".claude-plugin" / "marketplace.json",
            {
                "name": NAME,
                "owner": {"name": "Tether"},
                "plugins": [{**meta, "source": f"./{NAME}"}],
            },
        )
        _write(plugin / ".claude-plugin" / "plugin.json", meta)
        _write(plugin / "hooks" / "hooks.json", hooks)
        commands = (
            ("claude", "plugin", "marketplace", "add", str(out)),
            ("claude", "plugin", "install", f"{NAME}@{NAME}"),
        )
        return Built(host, out, plugin / "hooks" / "hooks.json", commands)
    if host == "codex":
        plugin = out / NAME
        _write(
            out / ".agents" / "plugins" / "marketplace.json",
            {
                "name": NAME,
                "interface": {"displayName": "Tether"},
                "plugins": [
                    {
                        "name": NAME,
                        "source": {"source": "local", "path": f"./{NAME}"},
                        "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
                        "category": "Coding",
                    }
                ],
            },
        )
        _write(plugin / ".codex-plugin" / "plugin.json", meta)
        _write(plugin / "hooks" / "hooks.json", hooks)
        commands = (
            ("codex", "plugin", "marketplace", "add", str(out)),
            ("codex", "plugin", "add", f"{NAME}@{NAME}"),
            ("tether", "plugin", "codex", "--trust"),
        )
        return Built(host, out, plugin / "hooks" / "hooks.json", commands)
    if host == "gemini":
        _write(out / "gemini-extension.json", meta)
        _write(out / "hooks" / "hooks.json", {"hooks": hooks["hooks"]})
        commands = (("gemini", "extensions", "install", str(out), "--consent"),)
        return Built(host, out, out / "hooks" / "hooks.json", commands)
    adapter(host)  # the "unknown host" error
    raise AssertionError(host)


def installed(host: str, environ: Mapping[str, str] | None = None) -> list[Path]:
    """Return the hooks files of Tether's packages the host has installed (its own copies)."""
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if host == "claude-code":
        base = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
        pattern = base / "plugins" / "cache"
        found = sorted(pattern.glob("*/*/*/hooks/hooks.json"))
    elif host == "codex":
        base = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
        found = sorted((base / "plugins" / "cache").glob("*/*/*/hooks/hooks.json"))
    else:
        found = sorted((home / ".gemini" / "extensions").glob("*/hooks/hooks.json"))
    ours = []
    for path in found:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and settings.installed_commands(data, host):
            ours.append(path)
    return ours


def disabled(
    host: str, hooks_files: list[Path], environ: Mapping[str, str] | None = None
) -> list[str]:
    """Return, for each installed package of Tether the host has switched off, what says so."""
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    out: list[str] = []
    for hooks_file in hooks_files:
        if host == "gemini":
            continue  # enablement is per workspace (extension-enablement.json): not read here
        # …/cache/<marketplace>/<plugin>/<version>/hooks/hooks.json
        marketplace, plugin = hooks_file.parts[-5], hooks_file.parts[-4]
        ident = f"{plugin}@{marketplace}"
        if host == "claude-code":
            base = (
                Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
            )
            where = base / "settings.json"
            try:
                data = json.loads(where.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            enabled = data.get("enabledPlugins") if isinstance(data, dict) else None
            if isinstance(enabled, dict) and enabled.get(ident) is False:
                out.append(
                    f'"enabledPlugins": {{"{ident}": false}} in {where}: its hooks never run'
                )
        else:
            import tomllib

            base = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
            where = base / "config.toml"
            try:
                config = tomllib.loads(where.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            entry = config.get("plugins", {}).get(ident)
            if isinstance(entry, dict) and entry.get("enabled") is False:
                out.append(f'[plugins."{ident}"] enabled = false in {where}: its hooks never run')
    return out


__all__ = ["Built", "build", "default_dir", "disabled", "hooks_table", "installed"]
