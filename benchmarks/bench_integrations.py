"""What Tether adds to a tool call in the framework integrations and through the MCP proxy.

Run: ``.venv/bin/python benchmarks/bench_integrations.py`` (``--quick`` for a smoke run).
Prints a Markdown table for docs/benchmarks.md.

- MCP: a real client calls ``run_command`` (distinct ``echo N`` commands, so every call is
  classified and none is a loop) on the upstream test server directly and through
  ``tether mcp-proxy`` (SQLite store in a temporary directory), alternating the two sessions
  call by call so machine load hits both alike; per-call round trip p50/p99.
- Frameworks: a scripted model makes N distinct shell calls in one agent run: bare, with a
  no-op hook of the same kind (the framework's own cost of having a hook), and with Tether
  (memory store); wall time per tool call of the whole run.
Timings are wall-clock on whatever machine runs this; compare runs on the same machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT / "tests" / "data" / "mcp_upstream.py"


def pct(values: list[float], p: float) -> float:
    """Return the p-th percentile (0-100) of ``values``."""
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


# -- MCP ---------------------------------------------------------------------------------------


@asynccontextmanager
async def mcp_session(tmp: Path, proxy: bool, *extra: str) -> AsyncIterator[Any]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    args = [str(UPSTREAM)]
    if proxy:
        args = ["-m", "tether.mcp_proxy", *extra, "--", sys.executable, *args]
    env = {**os.environ, "XDG_STATE_HOME": str(tmp / "state"), "XDG_CONFIG_HOME": str(tmp)}
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=tmp)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def bench_mcp(n: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {
        "direct": [],
        "proxy, SQLite store": [],
        "proxy, memory store": [],
    }
    memory = ("--set", "store.backend=memory")
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        async with (
            mcp_session(t, False) as direct,
            mcp_session(t, True) as sqlite,
            mcp_session(t, True, *memory) as mem,
        ):
            sessions = dict(zip(times, (direct, sqlite, mem), strict=True))
            for i in range(n + 10):
                for name, session in sessions.items():
                    start = time.perf_counter()
                    result = await session.call_tool("run_command", {"command": f"echo {i}"})
                    elapsed = time.perf_counter() - start
                    assert not result.is_error, result
                    if i >= 10:  # warm-up: imports, first classification, SQLite file creation
                        times[name].append(elapsed)
    return times


def bench_checkpoint(n: int) -> list[float]:
    """What every in-process integration adds per call: translate, before_call, after_call."""
    from tether.config import DEFAULT_CONFIG
    from tether.integrations._core import Checkpoint, build_guard

    checkpoint = Checkpoint(build_guard(config=DEFAULT_CONFIG))
    times: list[float] = []
    for i in range(n + 20):
        start = time.perf_counter()
        call = checkpoint.call("shell", {"command": f"echo {i}"}, f"c{i}")
        checkpoint.before(call)
        checkpoint.after(call, f"{i}\n")
        if i >= 20:
            times.append(time.perf_counter() - start)
    return times


# -- frameworks --------------------------------------------------------------------------------


def script(n: int) -> list[tuple[str, dict[str, Any]]]:
    return [("shell", {"command": f"echo {i}"}) for i in range(n)]


def run_langchain(n: int, mode: str) -> float:
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import tool

    from tether.config import DEFAULT_CONFIG
    from tether.integrations.langchain import TetherMiddleware

    calls = script(n)

    class Scripted(BaseChatModel):
        turn: int = 0

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> ChatResult:  # fmt: skip
            i = self.turn
            self.turn += 1
            if i < len(calls):
                name, args = calls[i]
                msg = AIMessage(
                    content="", tool_calls=[{"name": name, "args": args, "id": f"c{i}"}]
                )
            else:
                msg = AIMessage(content="done")
            return ChatResult(generations=[ChatGeneration(message=msg)])

    @tool
    def shell(command: str) -> str:
        """Run a shell command."""
        return f"ran: {command}"

    class Noop(AgentMiddleware):  # the cost of having any tool-call middleware
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    middleware: list[Any] = {
        "bare": [],
        "noop": [Noop()],
        "tether": [TetherMiddleware(config=DEFAULT_CONFIG)],
    }[mode]
    agent = create_agent(Scripted(), tools=[shell], middleware=middleware)
    start = time.perf_counter()
    agent.invoke({"messages": [{"role": "user", "content": "go"}]}, {"recursion_limit": 4 * n + 10})
    return time.perf_counter() - start


def run_openai_agents(n: int, mode: str) -> float:
    from agents import (
        Agent,
        Model,
        ModelResponse,
        RunConfig,
        Runner,
        ToolGuardrailFunctionOutput,
        ToolInputGuardrail,
        ToolOutputGuardrail,
        Usage,
        function_tool,
    )
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    from tether.config import DEFAULT_CONFIG
    from tether.integrations.openai_agents import TetherGuardrails

    calls = script(n)

    class Scripted(Model):
        turn = 0

        async def get_response(self, *args: Any, **kwargs: Any) -> Any:
            i = self.turn
            self.turn += 1
            if i < len(calls):
                name, a = calls[i]
                item: Any = ResponseFunctionToolCall(
                    type="function_call", name=name, arguments=json.dumps(a), call_id=f"c{i}"
                )
            else:
                text = ResponseOutputText(type="output_text", text="done", annotations=[])
                item = ResponseOutputMessage(
                    type="message", id="m", role="assistant", status="completed", content=[text]
                )
            return ModelResponse(output=[item], usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    @function_tool
    def shell(command: str) -> str:
        """Run a shell command."""
        return f"ran: {command}"

    tools: list[Any] = [shell]
    if mode == "tether":
        tools = TetherGuardrails(config=DEFAULT_CONFIG).protect(shell)
    elif mode == "noop":
        shell.tool_input_guardrails = [
            ToolInputGuardrail(guardrail_function=lambda d: ToolGuardrailFunctionOutput.allow())
        ]
        shell.tool_output_guardrails = [
            ToolOutputGuardrail(guardrail_function=lambda d: ToolGuardrailFunctionOutput.allow())
        ]
    agent: Agent[Any] = Agent(name="bench", model=Scripted(), tools=tools)
    start = time.perf_counter()
    Runner.run_sync(agent, "go", run_config=RunConfig(tracing_disabled=True), max_turns=n + 5)
    return time.perf_counter() - start


def run_pydantic_ai(n: int, mode: str) -> float:
    from pydantic_ai import Agent
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.usage import UsageLimits

    from tether.config import DEFAULT_CONFIG
    from tether.integrations.pydantic_ai import TetherCapability

    calls = script(n)
    turn = [0]

    def model(messages: Any, info: Any) -> ModelResponse:
        i = turn[0]
        turn[0] += 1
        if i < len(calls):
            name, args = calls[i]
            return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"c{i}")])
        return ModelResponse(parts=[TextPart("done")])

    class Noop(AbstractCapability[Any]):
        async def before_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any,
                                      args: Any) -> Any:  # fmt: skip
            return args

    caps: list[Any] = {
        "bare": [],
        "noop": [Noop()],
        "tether": [TetherCapability(config=DEFAULT_CONFIG)],
    }[mode]
    agent: Agent[None, str] = Agent(FunctionModel(model), capabilities=caps)

    @agent.tool_plain
    def shell(command: str) -> str:
        """Run a shell command."""
        return f"ran: {command}"

    start = time.perf_counter()
    agent.run_sync("go", usage_limits=UsageLimits(request_limit=n + 10))
    return time.perf_counter() - start


FRAMEWORKS = {
    "LangChain 1.x (`invoke`)": run_langchain,
    "OpenAI Agents SDK (`run_sync`)": run_openai_agents,
    "Pydantic AI (`run_sync`)": run_pydantic_ai,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few calls, for a smoke run")
    args = parser.parse_args()
    n_mcp, n_fw, rounds = (20, 10, 1) if args.quick else (300, 50, 5)

    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs\n")
    times = asyncio.run(bench_mcp(n_mcp))
    print(f"MCP tools/call round trip, {n_mcp} calls each, alternating:\n")
    print("| path | p50 ms | p99 ms | mean ms |")
    print("|---|---:|---:|---:|")
    for name, values in times.items():
        ms = [v * 1000 for v in values]
        print(f"| {name} | {pct(ms, 50):.2f} | {pct(ms, 99):.2f} | {statistics.fmean(ms):.2f} |")
    overhead = pct(times["proxy, SQLite store"], 50) - pct(times["direct"], 50)
    print(f"\nproxy overhead at p50 (SQLite store): {overhead * 1000:.2f} ms per call\n")

    us = [v * 1e6 for v in bench_checkpoint(n_mcp * 10)]
    print("In-process guard step (translate + before_call + after_call, memory store, distinct")
    print(f"shell commands), {len(us)} calls: p50 {pct(us, 50):.0f} us, p99 {pct(us, 99):.0f} us\n")

    print(f"Framework runs: {n_fw} distinct shell calls per run, best of {rounds} runs, ms per")
    print("tool call of the whole run: bare, with a no-op hook of the same kind, with Tether:\n")
    print("| framework | bare | no-op hook | Tether | Tether minus no-op |")
    print("|---|---:|---:|---:|---:|")
    modes = ("bare", "noop", "tether")
    for label, fn in FRAMEWORKS.items():
        for mode in modes:
            fn(3, mode)  # warm-up: imports and first classification
        runs: dict[str, list[float]] = {mode: [] for mode in modes}
        for _ in range(rounds):  # interleaved, so load changes hit every mode alike
            for mode in modes:
                runs[mode].append(fn(n_fw, mode) / n_fw * 1000)
        ms = {mode: min(values) for mode, values in runs.items()}
        print(
            f"| {label} | {ms['bare']:.2f} | {ms['noop']:.2f} | {ms['tether']:.2f} | "
            f"{ms['tether'] - ms['noop']:.2f} |"
        )


if __name__ == "__main__":
    main()
