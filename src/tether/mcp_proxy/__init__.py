"""``tether mcp-proxy``: a stdio MCP server running an upstream server's tool calls through Tether.

See :mod:`tether.mcp_proxy.proxy` for what is forwarded and how calls are judged. Requires the
``mcp`` extra; the core never imports this package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["run_proxy"]


def run_proxy(upstream: Sequence[str], config: Any, *, session_id: str | None = None) -> int:
    """Guard ``upstream`` (command and arguments) on this process's stdin/stdout; return 0."""
    import anyio

    from tether.guard import Guard
    from tether.mcp_proxy.proxy import GuardedTools, serve, upstream_parameters
    from tether.store.open import open_store

    store = open_store(config)
    try:
        tools = GuardedTools(Guard(config, store, unattended=True), session_id)
        anyio.run(serve, upstream_parameters(list(upstream)), tools)
    finally:
        store.close()
    return 0
