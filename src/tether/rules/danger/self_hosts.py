"""DG610: starting a host CLI (claude, codex, gemini) with Tether's hooks switched off.

A nested agent started by the agent runs its own tool calls; if it loads no hooks, none of them
reach Tether. The hooks are off when the nested run is told to skip them (Claude Code
``--bare``, ``--safe-mode``, ``--restricted``, ``--settings`` with ``disableAllHooks`` or a
``hooks`` table, ``--setting-sources`` without the user and project files; Codex
``-c features.hooks=false``, ``--disable hooks``, ``--ignore-user-config`` (its hook trust lives
in config.toml), ``codex features disable hooks``) or pointed at another home, where the
installed hook settings are not (``HOME=``, ``CODEX_HOME=``, …). Each CLI's options are read
with its own grammar (``tether.shell.agents``): ``-chooks…``, ``--config=…`` and every other
spelling the real CLI takes are one option.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tether.rules.danger._base import Hit, Scope, name_of
from tether.shell.model import SimpleCommand
from tether.shell.options import Parsed, parse
from tether.shell.programs import WRAPPERS

CODE = "DG610"
HOSTS = frozenset({"claude", "codex", "gemini"})
# Variables that move where a host looks for its settings.
# CLAUDE_CODE_SIMPLE=1 is what `claude --bare` sets, CLAUDE_CODE_SAFE_MODE=1 `--safe-mode`: hooks
# skipped (Claude Code 2.1 --help).
_HOMES = frozenset(
    {"HOME", "CODEX_HOME", "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME",
     "GEMINI_CLI_SYSTEM_SETTINGS_PATH", "CLAUDE_CODE_SIMPLE", "CLAUDE_CODE_SAFE_MODE"}
)  # fmt: skip
# Claude Code's switches that skip the hooks of the user's and project's settings files.
_CLAUDE_OFF = {
    "--bare": "--bare (skips hooks)",
    "--safe-mode": "--safe-mode (hooks disabled)",
    "--restricted": "--restricted (ignores the user and project settings files)",
}
# TOML escapes in a Codex ``-c`` key or value (``features."ho\u006bs"=false``).
_TOML_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})")


def _toml_text(value: str) -> str:
    """Return ``value`` with TOML's unicode escapes decoded, lower-cased."""
    if "\\" not in value:
        return value.lower()
    return _TOML_ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), value).lower()


def _claude_off(parsed: Parsed) -> str | None:
    for option, value in parsed.options:
        if option in _CLAUDE_OFF:
            return _CLAUDE_OFF[option]
        low = (value or "").lower()
        if option == "--settings" and "hook" in low:
            return f"--settings {(value or '')[:60]}"
        if option == "--setting-sources" and not ("user" in low and "project" in low):
            return f"--setting-sources {value}"
    return None


def _codex_off(parsed: Parsed) -> str | None:
    for option, value in parsed.options:
        if option == "--ignore-user-config":
            return "--ignore-user-config (its hook trust lives in config.toml)"
        text = _toml_text(value or "")
        if option in ("--config", "--disable") and "hook" in text:
            return f"{option} {text[:60]}"
    words = [w.value for w in parsed.operands[:3]]
    if words[:2] == ["features", "disable"] and any("hook" in w.lower() for w in words[2:]):
        return "features disable " + " ".join(words[2:])  # written to config.toml for good
    return None


def _moved(cmd: SimpleCommand) -> str | None:
    """Return a variable that moves the host's settings, set by a prefix or a wrapper."""
    for a in cmd.assignments:
        if a.name in _HOMES:
            return a.name
    for wrapper in cmd.wrappers:
        wrapping = WRAPPERS.get(wrapper.name)
        if wrapping is None or not wrapping.assignments:
            continue
        for w in parse(wrapping.grammar, wrapper.args).operands:  # env's/sudo's NAME=value
            name = w.value.partition("=")[0]
            if "=" in w.value and name in _HOMES:
                return name
    return None


def check_host_hooks_off(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag a nested claude/codex/gemini run that skips or relocates its hook settings."""
    name = name_of(cmd)
    if name not in HOSTS:
        return
    moved = _moved(cmd)
    if moved is not None:
        yield Hit(CODE, f"{name} with {moved}=… (its hook settings live elsewhere)")
        return
    if name == "gemini":
        return  # no option of Gemini CLI 0.61 skips its hooks
    parsed = scope.options(name, cmd.args)  # tether.shell.agents' grammar of the CLI
    off = _claude_off(parsed) if name == "claude" else _codex_off(parsed)
    if off is not None:
        yield Hit(CODE, f"{name} {off}")


CHECKS = {n: check_host_hooks_off for n in HOSTS}
