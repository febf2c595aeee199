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
from tether.integrations._core import shell_argument
from tether.mcp_proxy.guarded import GuardedTools

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
    names = {name for name, _ in via_proxy}
    assert names == {
        "run_command",
        "run",
        "run_in_console",
        "exec_in",
        "read_file",
        "fail",
        "die",
        "slow_count",
    }


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
        ((), True),  # `cmdline` names a command argument (it was forwarded unjudged, issue 25)
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
        {"name": "run_command", "inputSchema": schema},
        {"name": "str_replace_editor", "inputSchema": schema},  # a write tool: not a shell
        {"name": "exec_command", "inputSchema": schema},  # built-in: its key is "cmd"
        {"name": "read_file", "inputSchema": {"properties": {"path": {}}}},
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


def test_resources_and_prompts_are_forwarded_as_the_upstream_gives_them(tmp_path: Path) -> None:
    async def everything(proxy: bool) -> dict[str, Any]:
        async with connect(tmp_path, proxy=proxy) as session:
            resources = await session.list_resources()
            read = await session.read_resource("notes://today")
            prompts = await session.list_prompts()
            prompt = await session.get_prompt("review", {"topic": "the proxy"})
            return {
                "resources": [(r.uri, r.name) for r in resources.resources],
                "read": [c.model_dump() for c in read.contents],
                "prompts": [p.name for p in prompts.prompts],
                "prompt": [m.model_dump() for m in prompt.messages],
            }

    via_proxy, direct = asyncio.run(everything(True)), asyncio.run(everything(False))
    assert via_proxy == direct
    assert via_proxy["resources"] == [("notes://today", "today")]
    assert via_proxy["prompts"] == ["review"]
    assert "the proxy" in str(via_proxy["prompt"])


def test_progress_and_logging_notifications_reach_the_client(tmp_path: Path) -> None:
    progress: list[tuple[float, float | None, str | None]] = []
    logged: list[Any] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logged.append(params.data)

    async def main() -> types.CallToolResult:
        args = ["-m", "tether.mcp_proxy", "--", sys.executable, str(UPSTREAM)]
        params = StdioServerParameters(
            command=sys.executable, args=args, env=env_for(tmp_path), cwd=tmp_path
        )
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, logging_callback=on_log) as session,
        ):
            await session.initialize()
            return await session.call_tool("slow_count", {"n": 3}, progress_callback=on_progress)

    result = asyncio.run(main())
    assert text(result) == "counted 3"
    assert [p[0] for p in progress] == [1, 2, 3]
    assert any("counted to 3" in str(entry) for entry in logged)


def test_warnings_reach_clients_that_read_only_structured_content(tmp_path: Path) -> None:
    async def body(session: ClientSession) -> list[types.CallToolResult]:
        return [await session.call_tool("read_file", {"path": "n"}) for _ in range(2)]

    first, second = drive(tmp_path, body)
    assert first.structured_content == {"result": "the same contents"}
    assert second.structured_content is not None
    note = second.structured_content["tether"]
    assert note["action"] == "warn" and "TL201" in note["codes"] and "TL201" in note["message"]
    assert second.structured_content["result"] == "the same contents"


def _raw_proxy(
    tmp: Path, upstream: list[str], *extra: str, lines: list[dict[str, Any]], wait: float = 30
) -> subprocess.CompletedProcess[str]:
    """Run the proxy with a raw JSON-RPC client that sends ``lines`` and then waits."""
    import json

    feed = "".join(json.dumps(m) + "\n" for m in lines)
    # Keep stdin open after the messages (a real client waits for answers), closed at the end.
    script = (
        "import sys, time, subprocess\n"
        "p = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE)\n"
        "p.stdin.write(sys.argv[1].encode()); p.stdin.flush()\n"
        f"deadline = time.time() + {wait}\n"
        "while p.poll() is None and time.time() < deadline: time.sleep(0.05)\n"
        "p.stdin.close(); sys.exit(p.wait())\n"
    )
    cmd = [sys.executable, "-m", "tether.mcp_proxy", *extra, "--", *upstream]
    return subprocess.run(
        [sys.executable, "-c", script, feed, *cmd],
        capture_output=True, text=True, env=env_for(tmp), cwd=tmp, timeout=wait + 30,
    )  # fmt: skip


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-test-client", "version": "0"},
    },
}


def _replies(proc: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    import json

    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def test_an_upstream_that_exits_at_start_gives_one_line_and_exit_2(tmp_path: Path) -> None:
    upstream = [sys.executable, "-c", "import sys; sys.exit(3)"]
    proc = _raw_proxy(tmp_path, upstream, lines=[INIT])
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "exited with code 3 before answering initialize" in line
    assert "Traceback" not in proc.stderr
    for reply in _replies(proc):  # the initialize, if it was read in time, gets the cause
        assert reply["id"] == 1 and "exited with code 3" in reply["error"]["message"]


def test_an_upstream_that_never_answers_initialize_times_out(tmp_path: Path) -> None:
    upstream = [sys.executable, "-c", "import time; time.sleep(120)"]
    proc = _raw_proxy(tmp_path, upstream, "--init-timeout", "1", lines=[INIT])
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "did not answer initialize within 1 s" in line
    (reply,) = _replies(proc)
    assert reply["id"] == 1 and "did not answer initialize" in reply["error"]["message"]


def test_an_upstream_that_dies_mid_session_answers_the_call_in_flight(tmp_path: Path) -> None:
    calls = [
        INIT,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "die", "arguments": {"code": 7}},
        },
    ]
    proc = _raw_proxy(tmp_path, [sys.executable, str(UPSTREAM)], lines=calls)
    assert proc.returncode == 3, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "exited with code 7 mid-session" in line
    replies = {r["id"]: r for r in _replies(proc)}
    died = replies[2]["result"]
    assert died["isError"] is True and "exited with code 7" in died["content"][0]["text"]
    assert reached(tmp_path) == ["die 7"]


def test_a_closed_output_schema_admits_the_structured_note() -> None:
    from tether.mcp_proxy.guarded import with_output_key

    closed = {"type": "object", "properties": {"a": {}}, "additionalProperties": False}
    open_ = {"type": "object", "properties": {"a": {}}}
    assert with_output_key({"name": "t", "outputSchema": closed})["outputSchema"]["properties"] == {
        "a": {},
        "tether": {"type": "object"},
    }
    assert with_output_key({"name": "t", "outputSchema": open_}) == {
        "name": "t",
        "outputSchema": open_,
    }


# The npm reference filesystem server, installed by .ci/run (pinned) into this cache directory.
MCP_FS = Path(
    os.environ.get(
        "TETHER_MCP_FS_SERVER",
        Path.home() / ".cache/tether-e2e/mcp-fs/node_modules/.bin/mcp-server-filesystem",
    )
)


def test_a_real_npm_mcp_server_works_through_the_proxy(tmp_path: Path) -> None:
    """The reference filesystem server (Node.js, npm): listing, reads, writes and a loop."""
    assert MCP_FS.exists(), f"{MCP_FS} is missing: .ci/run installs it (npm, pinned)"
    work = tmp_path / "files"
    work.mkdir()
    (work / "notes.txt").write_text("hello\n", encoding="utf-8")

    async def main() -> dict[str, Any]:
        args = ["-m", "tether.mcp_proxy", *HARD_STOP, "--", str(MCP_FS), str(work)]
        params = StdioServerParameters(
            command=sys.executable, args=args, env=env_for(tmp_path), cwd=tmp_path
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            names = {t.name for t in (await s.list_tools()).tools}
            path = str(work / "notes.txt")
            reads = [await s.call_tool("read_text_file", {"path": path}) for _ in range(6)]
            wrote = await s.call_tool(
                "write_file", {"path": str(work / "out.txt"), "content": "written"}
            )
            return {"names": names, "reads": reads, "wrote": wrote}

    out = asyncio.run(main())
    assert {"read_text_file", "write_file", "list_directory"} <= out["names"]
    reads: list[types.CallToolResult] = out["reads"]
    assert "hello" in text(reads[0]) and not reads[0].is_error
    assert "TL201" in text(reads[1]) and not reads[1].is_error  # the same result: warned
    assert reads[5].is_error and "TL201" in text(reads[5])  # the hard stop: refused
    assert not out["wrote"].is_error
    assert (work / "out.txt").read_text(encoding="utf-8") == "written"


def test_an_untrusted_project_file_is_told_once_on_stderr(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".tether.yaml").write_text("approvals:\n  mode: 'off'\n  allow: ['*']\n")
    proc = _raw_proxy(tmp_path, [sys.executable, str(UPSTREAM)], lines=[INIT], wait=3)
    told = [line for line in proc.stderr.splitlines() if "tether trust" in line]
    assert len(told) == 1, proc.stderr
    assert told[0].startswith("tether mcp-proxy: ") and "approvals.mode" in told[0]
