"""Host adapters: turn a host's hook payload into Tether events and a Decision into its reply.

One small module per host (``claude_code``, ``codex``, ``gemini``), each with the same face:
``parse(payload) -> HookEvent``, ``render(event, decision) -> Reply`` and
``render_failure(event_name, reason) -> Reply`` (the fail-closed deny). ``runner`` reads stdin,
enforces the deadline and dispatches to the guard. Nothing here imports the guard, the config
or a store at module level, so ``tether hook`` stays cheap to start.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# host name on the command line -> adapter module
HOSTS: dict[str, str] = {
    "claude-code": "tether.hosts.claude_code",
    "codex": "tether.hosts.codex",
    "gemini": "tether.hosts.gemini",
}


def adapter(host: str) -> ModuleType:
    """Return the adapter module for ``host`` (a key of ``HOSTS``)."""
    try:
        return importlib.import_module(HOSTS[host])
    except KeyError:
        names = ", ".join(HOSTS)
        raise ValueError(f"unknown host {host!r}: expected one of {names}") from None


__all__ = ["HOSTS", "adapter"]
