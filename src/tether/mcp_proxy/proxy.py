"""The guard proxy: an MCP stdio server that forwards tools to an upstream server through Tether.

The proxy starts the upstream server as a subprocess (stdio), answers ``tools/list`` with the
upstream's list, and runs every ``tools/call`` through the guard: ``before_call`` first (a
refused call never reaches the upstream and comes back as ``CallToolResult(is_error=True)``
holding the reason, so the model reads it), then ``after_call`` with what the upstream returned
(a warning is appended to the result as one more text block). A tool is shell-like, so its
command is classified by the danger and read-only catalogues, when config ``tools.shell`` names
it or its input schema has a ``command``, ``cmd`` or ``script`` argument. After a halt every
later call is refused: the session must not go on without a human (restart the proxy).

Built on the mcp 2.x low-level ``Server`` (callbacks in the constructor; 1.x code does not
run on 2.x). Resources, prompts, sampling and list-changed notifications are not forwarded.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.to_thread
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from tether.integrations._core import (
    COMMAND_ARGS,
    Checkpoint,
    Verdict,
    learn_shell_tools,
    output_text,
    shell_argument,
    with_note,
)

NAME = "tether-mcp-proxy"

Context = ServerRequestContext[dict[str, Any], Any]


def result_text(result: types.CallToolResult) -> str:
    """Return what a tool result says, as the text the guard fingerprints."""
    parts: list[str] = []
    for block in result.content:
        if isinstance(block, types.TextContent):
            parts.append(block.text)
        else:  # images, audio, resources: their serialised form still identifies them
            parts.append(output_text(block.model_dump(mode="json")))
    if not parts and result.structured_content is not None:
        parts.append(output_text(result.structured_content))
    return "\n".join(parts)


def error_result(text: str) -> types.CallToolResult:
    """Return the MCP tool result that carries a refusal the model can read."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


class GuardedTools:
    """The guard side of the proxy: learns shell-like tools, decides, remembers a halt."""

    def __init__(self, guard: Any, session_id: str | None = None) -> None:
        self.guard = guard
        self.checkpoint = Checkpoint(guard, session_id)
        self.halted: str | None = None

    def learn(self, tools: Iterable[types.Tool]) -> dict[str, str]:
        """Treat tools whose schema names a command argument as shells; return the new ones."""
        return learn_shell_tools(self.guard, {tool.name: tool.input_schema for tool in tools})

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any],
        forward: Callable[[], Awaitable[types.CallToolResult]],
        request_id: str = "",
    ) -> types.CallToolResult:
        """Run one tools/call through the guard, forwarding it when allowed."""
        if self.halted is not None:
            return error_result(
                f"{self.halted}\n\nTether halted this session earlier; every call is refused "
                "until a human restarts the MCP proxy."
            )
        call = self.checkpoint.call(name, dict(arguments), request_id)
        before: Verdict = await anyio.to_thread.run_sync(self.checkpoint.before, call)
        if before.refused:
            if before.halted:
                self.halted = before.message
            return error_result(before.message)
        try:
            result = await forward()
        except Exception as exc:
            text = f"{type(exc).__name__}: {exc}"
            await anyio.to_thread.run_sync(self.checkpoint.after, call, text, True)
            raise
        after: Verdict = await anyio.to_thread.run_sync(
            self.checkpoint.after, call, result_text(result), bool(result.is_error)
        )
        if after.halted:
            self.halted = after.message
        note = after if after.noted else before
        if not note.noted:
            return result
        text = with_note("", note)
        block = types.TextContent(type="text", text=text)
        return result.model_copy(update={"content": [*result.content, block]})


def build_server(upstream: StdioServerParameters, tools: GuardedTools) -> Server[dict[str, Any]]:
    """Return the proxy server: upstream started in its lifespan, tools through the guard."""

    @asynccontextmanager
    async def lifespan(_: Server[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        async with stdio_client(upstream) as (read, write), ClientSession(read, write) as up:
            await up.initialize()
            params: types.PaginatedRequestParams | None = None
            while True:  # learn every schema before the first call arrives
                listing = await up.list_tools(params=params)
                tools.learn(listing.tools)
                if not listing.next_cursor:
                    break
                params = types.PaginatedRequestParams(cursor=listing.next_cursor)
            yield {"up": up}

    async def list_tools(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        up: ClientSession = ctx.lifespan_context["up"]
        listing = await up.list_tools(params=params)
        tools.learn(listing.tools)
        return listing

    async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        up: ClientSession = ctx.lifespan_context["up"]
        arguments = dict(params.arguments or {})

        async def forward() -> types.CallToolResult:
            return await up.call_tool(params.name, arguments)

        rid = "" if ctx.request_id is None else f"mcp-{ctx.request_id}"
        return await tools.call(params.name, arguments, forward, rid)

    return Server(NAME, lifespan=lifespan, on_list_tools=list_tools, on_call_tool=call_tool)


def upstream_parameters(argv: list[str]) -> StdioServerParameters:
    """Return how to start the upstream server: ``argv`` with this process's environment."""
    return StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))


async def serve(upstream: StdioServerParameters, tools: GuardedTools) -> None:
    """Serve MCP on this process's stdin/stdout until the client disconnects."""
    server = build_server(upstream, tools)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


__all__ = [
    "COMMAND_ARGS",
    "GuardedTools",
    "build_server",
    "error_result",
    "result_text",
    "serve",
    "shell_argument",
    "upstream_parameters",
]
