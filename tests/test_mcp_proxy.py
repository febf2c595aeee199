"""``tether mcp-proxy``: a real MCP client talks to the proxy, which talks to a real upstream.

Every test starts ``python -m tether.mcp_proxy -- python tests/data/mcp_upstream.py`` over
stdio (two real subprocesses), with config and state directories in a temporary directory.
The upstream appends every call that really reached it to ``$MCP_UPSTREAM_LOG``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tether.config import DEFAULT_CONFIG
from tether.guard import Guard
from tether.mcp_proxy.proxy import GuardedTools, shell_argument

UPSTREAM = Path(__file__).resolve().parent / "data" / "mcp_upstream.py"
HARD_STOP = ["--set", "loops.hard_stop=true"]


def env_for(tmp: Path) -> dict[str, str]:
    """Keep the user's own config and state out of the test."""
    return {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "XDG_STATE_HOME": str(tmp / "state"),
        "TETHER_CONFIG": "",
        "MCP_UPSTREAM_LOG": str(tmp / "upstream.log"),
    }


@asynccontextmanager
async def connect(tmp: Path, *extra: str, proxy: bool = True) -> AsyncIterator[ClientSession]:
    """Open an MCP client session to the proxy (or straight to the upstream when not proxy)."""
    if proxy:
        args = ["-m", "tether.mcp_proxy", *extra, "--", sys.executable, str(UPSTREAM)]
    else:
        args = [str(UPSTREAM)]
    params = StdioServerParameters(command=sys.executable, args=args, env=env_for(tmp), cwd=tmp)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def drive(tmp: Path, body: Callable[[ClientSession], Awaitable[Any]], *extra: str) -> Any:
    async def main() -> Any:
        async with connect(tmp, *extra) as session:
            return await body(session)

    return asyncio.run(main())


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def reached(tmp: Path) -> list[str]:
    """Return the calls that reached the upstream (its own record)."""
    log = tmp / "upstream.log"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def test_tools_list_is_forwarded_unchanged(tmp_path: Path) -> None:
    async def listing(proxy: bool) -> list[tuple[str, Any]]:
        async with connect(tmp_path, proxy=proxy) as session:
            tools = (await session.list_tools()).tools
            return [(t.name, t.input_schema) for t in tools]

    via_proxy = asyncio.run(listing(True))
    direct = asyncio.run(listing(False))
    assert via_proxy == direct
    assert {name for name, _ in via_proxy} == {"run_command", "run", "read_file", "fail"}


def test_normal_call_passes_through_unchanged(tmp_path: Path) -> None:
    async def body(session: ClientSession) -> types.CallToolResult:
        return await session.call_tool("run_command", {"command": "ls -la"})

    result = drive(tmp_path, body)
    assert result.is_error is False
    assert text(result) == "ran: ls -la"
    assert result.structured_content == {"result": "ran: ls -la"}
    assert reached(tmp_path) == ["run_command ls -la"]


DANGEROUS = ["rm -rf /", "sudo rm -rf /", "/bin/rm -rf / --no-preserve-root", "\\rm -rf /"]


def test_dangerous_commands_are_refused_before_reaching_the_upstream(tmp_path: Path) -> None:
    async def body(session: ClientSession) -> list[types.CallToolResult]:
        results = [await session.call_tool("run_command", {"command": c}) for c in DANGEROUS]
        results.append(await session.call_tool("run_command", {"command": 'echo "rm -rf /"'}))
        return results

    results = drive(tmp_path, body)
    for command, result in zip(DANGEROUS, results, strict=False):
        assert result.is_error is True, command
        assert "DG101" in text(result) and "Tether blocked this call" in text(result), command
    harmless = results[-1]
    assert harmless.is_error is False and text(harmless) == 'ran: echo "rm -rf /"'
    assert reached(tmp_path) == [
        'run_command echo "rm -rf /"'
    ]  # none of the dangerous ones got through


@pytest.mark.parametrize(
    ("extra", "refused"),
    [
        ((), False),  # `cmdline` is not a command argument by name: an unknown tool, not a shell
        (("--set", 'tools.shell={"run": "cmdline"}'), True),  # config says it is one
    ],
)
def test_config_tools_shell_makes_a_tool_shell_like(
    tmp_path: Path, extra: tuple[str, ...], refused: bool
) -> None:
    async def body(session: ClientSession) -> types.CallToolResult:
        return await session.call_tool("run", {"cmdline": "rm -rf /"})

    result = drive(tmp_path, body, *extra)
    assert result.is_error is refused
    assert ("DG101" in text(result)) is refused
    assert reached(tmp_path) == ([] if refused else ["run rm -rf /"])


def test_a_repeated_read_is_warned_blocked_then_the_session_halts(tmp_path: Path) -> None:
    async def body(session: ClientSession) -> dict[str, Any]:
        args = {"path": "notes.txt"}
        first = [await session.call_tool("read_file", args) for _ in range(6)]
        calls = reached(tmp_path)
        rest = [await session.call_tool("read_file", args) for _ in range(4)]
        after_halt = await session.call_tool("run_command", {"command": "ls"})
        return {"first": first, "calls": calls, "rest": rest, "after_halt": after_halt}

    out = drive(tmp_path, body, *HARD_STOP)
    first: list[types.CallToolResult] = out["first"]
    assert text(first[0]) == "the same contents" and len(first[0].content) == 1
    # idempotent_no_progress: warned at 2 identical results (a text block appended) ...
    assert first[1].is_error is False and len(first[1].content) == 2
    assert text(first[1]).startswith("the same contents\n") and "TL201" in text(first[1])
    # ... and refused at the hard stop (5): the sixth call never reached the upstream.
    assert first[5].is_error is True and "TL201" in text(first[5])
    assert out["calls"] == ["read_file notes.txt"] * 5
    halts = [r for r in out["rest"] if "TL208" in text(r)]
    assert halts and all(r.is_error for r in out["rest"])
    refused = out["after_halt"]
    assert refused.is_error is True and "halted this session" in text(refused)
    assert reached(tmp_path) == ["read_file notes.txt"] * 5


def test_upstream_failures_pass_through_and_a_repeated_failure_is_stopped(tmp_path: Path) -> None:
    async def body(session: ClientSession) -> list[types.CallToolResult]:
        return [await session.call_tool("fail", {"reason": "disk on fire"}) for _ in range(6)]

    results = drive(tmp_path, body, *HARD_STOP)
    assert reached(tmp_path) == ["fail disk on fire"] * 5
    assert results[0].is_error is True
    assert text(results[0]) == "Error executing tool fail: disk on fire"
    assert "TL203" in text(results[1]) and text(results[1]).startswith("Error executing")
    assert "TL203" in text(results[5]) and "disk on fire" not in text(results[5])


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"properties": {"command": {"type": "string"}}}, "command"),
        ({"properties": {"cmd": {"type": "string"}}}, "cmd"),
        ({"properties": {"script": {"type": ["string", "null"]}}}, "script"),
        ({"properties": {"argv": {"type": "array"}, "cmd": {"type": "array"}}}, "cmd"),
        ({"properties": {"command": {}}}, "command"),
        ({"properties": {"command": {"type": "integer"}}}, None),
        ({"properties": {"path": {"type": "string"}}}, None),
        ({"properties": "nonsense"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_shell_argument_from_the_input_schema(schema: Any, expected: str | None) -> None:
    assert shell_argument(schema) == expected


def test_learned_shell_tools_leave_config_named_tools_alone() -> None:
    guard = Guard(DEFAULT_CONFIG)
    tools = GuardedTools(guard)
    schema = {"type": "object", "properties": {"command": {"type": "string"}}}
    listing = [
        types.Tool(name="run_command", input_schema=schema),
        types.Tool(name="str_replace_editor", input_schema=schema),  # a write tool: not a shell
        types.Tool(name="exec_command", input_schema=schema),  # built-in: its key is "cmd"
        types.Tool(name="read_file", input_schema={"properties": {"path": {}}}),
    ]
    assert tools.learn(listing) == {"run_command": "command"}
    assert guard.settings.tools.shell["run_command"] == "command"
    assert guard.settings.tools.shell["exec_command"] == "cmd"
    assert "str_replace_editor" not in guard.settings.tools.shell


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "no upstream server given"),
        (["--"], "no upstream server given"),
        (["--", "no-such-mcp-server-xyz"], "not found"),
        (["--set", "loops.hardstop=true", "--", sys.executable, str(UPSTREAM)], "hard_stop"),
    ],
)
def test_bad_invocations_exit_2_with_the_reason(
    tmp_path: Path, argv: list[str], message: str
) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tether.mcp_proxy", *argv],
        capture_output=True,
        text=True,
        env=env_for(tmp_path),
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert proc.stdout == ""
