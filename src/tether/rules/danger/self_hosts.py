"""DG610: starting a host CLI (claude, codex, gemini) with Tether's hooks switched off.

A nested agent started by the agent runs its own tool calls; if it loads no hooks, none of them
reach Tether. The hooks are off when the nested run is told to skip them (Claude Code
``--settings`` with ``disableAllHooks`` or a ``hooks`` table, ``--setting-sources`` without the
user and project files; Codex ``-c features.hooks=false``, ``--disable hooks``) or pointed at
another home, where the installed hook settings are not (``HOME=``, ``CODEX_HOME=``, …).
"""

from __future__ import annotations

from collections.abc import Iterator

from tether.rules.danger._base import Hit, Scope, name_of
from tether.shell.model import SimpleCommand

CODE = "DG610"
HOSTS = frozenset({"claude", "codex", "gemini"})
# Variables that move where a host looks for its settings.
# CLAUDE_CODE_SIMPLE=1 is what `claude --bare` sets: hooks skipped (Claude Code 2.1 --help).
_HOMES = frozenset(
    {"HOME", "CODEX_HOME", "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME",
     "GEMINI_CLI_SYSTEM_SETTINGS_PATH", "CLAUDE_CODE_SIMPLE"}
)  # fmt: skip


def _options(cmd: SimpleCommand) -> list[tuple[str, str]]:
    """Return ``(option, value)`` pairs, for ``--opt value`` and ``--opt=value`` alike."""
    vals = [w.value for w in cmd.args]
    pairs: list[tuple[str, str]] = []
    for i, v in enumerate(vals):
        if v.startswith("--") and "=" in v:
            name, _, value = v.partition("=")
            pairs.append((name, value))
        elif v.startswith("-"):
            pairs.append((v, vals[i + 1] if i + 1 < len(vals) else ""))
    return pairs


def _hooks_off(name: str, pairs: list[tuple[str, str]]) -> str | None:
    for option, value in pairs:
        low = value.lower()
        if name == "claude":
            if option == "--bare":  # "Minimal mode: skip hooks" (Claude Code 2.1 --help)
                return "--bare"
            if option == "--settings" and "hook" in low:
                return f"--settings {value[:60]}"
            if option == "--setting-sources" and not ("user" in low and "project" in low):
                return f"--setting-sources {value}"
        elif name == "codex":
            if option in ("-c", "--config") and "hook" in low:
                return f"{option} {value[:60]}"
            if option == "--disable" and "hook" in low:
                return f"--disable {value}"
    return None


def check_host_hooks_off(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag a nested claude/codex/gemini run that skips or relocates its hook settings."""
    name = name_of(cmd)
    if name not in HOSTS:
        return
    moved = [a.name for a in cmd.assignments if a.name in _HOMES]
    for wrapper in cmd.wrappers:
        if wrapper.name == "env":
            moved += [w.value.split("=", 1)[0] for w in wrapper.args if "=" in w.value]
    moved = [m for m in moved if m in _HOMES]
    if moved:
        yield Hit(CODE, f"{name} with {moved[0]}=… (its hook settings live elsewhere)")
        return
    off = _hooks_off(name, _options(cmd))
    if off is not None:
        yield Hit(CODE, f"{name} {off}")


CHECKS = {n: check_host_hooks_off for n in HOSTS}
