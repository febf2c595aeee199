"""``tether mcp-proxy``: a stdio MCP server running an upstream server's tool calls through Tether.

The proxy is a transparent JSON-RPC relay (:mod:`tether.mcp_proxy.relay`): everything passes
through untouched except ``tools/call``, which the guard judges first
(:mod:`tether.mcp_proxy.guarded`). It needs no MCP SDK; the core never imports this package.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["DEFAULT_INIT_TIMEOUT", "run_proxy"]

DEFAULT_INIT_TIMEOUT = 10.0  # seconds an upstream may take to answer initialize


def run_proxy(
    upstream: Sequence[str],
    config: Any,
    *,
    session_id: str | None = None,
    init_timeout: float = DEFAULT_INIT_TIMEOUT,
) -> int:
    """Guard ``upstream`` (command and arguments) on this process's stdin/stdout.

    Return 0 when the client closed the session, 2 when the upstream could not start or did
    not answer ``initialize`` in time, 3 when it died mid-session (the cause is on stderr).
    """
    from tether.guard import Guard
    from tether.mcp_proxy.guarded import GuardedTools
    from tether.mcp_proxy.relay import Relay
    from tether.store.open import open_store

    if getattr(config, "ignored", ()):
        # MCP has no message every client shows its user; clients keep a server's stderr in
        # their logs (Claude Code: `claude --debug`, the /mcp screen), so it goes there, once.
        from tether.config.core import trust_notice

        sys.stderr.write(f"tether mcp-proxy: {trust_notice(config.ignored)}\n")
        sys.stderr.flush()
    store = open_store(config)
    try:
        tools = GuardedTools(Guard(config, store, unattended=True), session_id)
        relay = Relay(tools, sys.stdin.buffer, sys.stdout.buffer, init_timeout=init_timeout)
        return relay.run(list(upstream), env=dict(os.environ))
    finally:
        store.close()
