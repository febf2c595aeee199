"""A small real MCP server (mcp 2.x ``MCPServer`` over stdio) for the guard-proxy tests.

``run_command`` is shell-like (its schema names a ``command`` argument) but only echoes: nothing
is ever executed, even if a dangerous command got through. ``read_file`` always returns the same
text (the loop the guard must stop). Every call that really reaches this server is appended to
the file named by ``MCP_UPSTREAM_LOG`` (so the test also sees the proxy pass its environment).
"""

from __future__ import annotations

import os

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("tether-test-upstream")


def reached(line: str) -> None:
    """Record one call that reached this server."""
    log = os.environ.get("MCP_UPSTREAM_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(line + "\n")


@server.tool()
def run_command(command: str) -> str:
    """Run a shell command (this test server only echoes it)."""
    reached(f"run_command {command}")
    return f"ran: {command}"


@server.tool()
def run(cmdline: str) -> str:
    """Run a command line (shell-like only when config ``tools.shell`` says so; echoes)."""
    reached(f"run {cmdline}")
    return f"ran: {cmdline}"


@server.tool()
def run_in_console(text: str) -> str:
    """Execute a shell command in the terminal (echoes; shell-like by what it says it does)."""
    reached(f"run_in_console {text}")
    return f"ran: {text}"


@server.tool()
def exec_in(workdir: str, line: str) -> str:
    """Run a shell command in a directory (two string arguments: which is the command?)."""
    reached(f"exec_in {workdir} {line}")
    return f"ran: {line}"


@server.tool()
def read_file(path: str) -> str:
    """Read a file (always the same contents)."""
    reached(f"read_file {path}")
    return "the same contents"


@server.tool()
def fail(reason: str) -> str:
    """Fail with ``reason``."""
    reached(f"fail {reason}")
    raise ToolError(reason)


@server.tool()
def die(code: int) -> str:
    """Exit the server process at once (an upstream that dies mid-session)."""
    reached(f"die {code}")
    os._exit(code)


@server.tool()
async def slow_count(n: int, ctx: Context) -> str:
    """Report progress and log while counting to ``n`` (notifications through the proxy)."""
    reached(f"slow_count {n}")
    for i in range(n):
        await ctx.report_progress(i + 1, n, f"step {i + 1}")
    await ctx.info(f"counted to {n}")
    return f"counted {n}"


@server.resource("notes://today", name="today", mime_type="text/plain")
def today() -> str:
    """Today's notes (a resource the proxy must forward)."""
    return "buy milk"


@server.prompt()
def review(topic: str) -> str:
    """A prompt the proxy must forward."""
    return f"Please review {topic}."


if __name__ == "__main__":
    server.run("stdio")
