"""LangChain v1: real ``create_agent`` runs (sync and async) with a scripted chat model.

The model is a small ``BaseChatModel`` that emits scripted tool calls and records what it was
shown, so each test checks what the model actually read after Tether intervened.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import tool

from tether.config import DEFAULT_CONFIG
from tether.errors import StoreError
from tether.integrations.langchain import TetherMiddleware
from tether.model import Action, Decision

FINAL = "done"


class ScriptedChat(BaseChatModel):
    """Emits one scripted tool call per turn, then a final answer; remembers every prompt."""

    script: list[tuple[str, dict[str, Any]]]
    seen: list[list[BaseMessage]]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[Any, AIMessage]:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        turn = len(self.seen)
        self.seen.append(list(messages))
        if turn < len(self.script):
            name, args = self.script[turn]
            msg = AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"c{turn}"}])
        else:
            msg = AIMessage(content=FINAL)
        return ChatResult(generations=[ChatGeneration(message=msg)])


RAN: list[tuple[str, str]] = []


@tool
def shell(command: str) -> str:
    """Run a shell command."""
    RAN.append(("shell", command))
    return f"ran: {command}"


@tool
def run_command(command: str) -> str:
    """Run a command (not a built-in shell name: its `command` argument makes it one)."""
    RAN.append(("run_command", command))
    return f"ran: {command}"


@tool
def read_file(path: str) -> str:
    """Read a file."""
    RAN.append(("read_file", path))
    return "the same contents"


def run(
    script: list[tuple[str, dict[str, Any]]], mode: str, **config: Any
) -> tuple[list[Any], ScriptedChat]:
    """Run one agent over ``script``; return the final message list and the model."""
    RAN.clear()
    model = ScriptedChat(script=script, seen=[])
    guard = TetherMiddleware(
        config=DEFAULT_CONFIG.with_values(config) if config else DEFAULT_CONFIG
    )
    agent = create_agent(model, tools=[shell, run_command, read_file], middleware=[guard])
    state = {"messages": [{"role": "user", "content": "go"}]}
    out = agent.invoke(state) if mode == "sync" else asyncio.run(agent.ainvoke(state))
    messages: list[Any] = out["messages"]
    return messages, model


def tool_messages(messages: list[Any]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


MODES = ["sync", "async"]


@pytest.mark.parametrize("mode", MODES)
def test_normal_call_passes_through_unchanged(mode: str) -> None:
    messages, _ = run([("shell", {"command": "ls -la"})], mode)
    (reply,) = tool_messages(messages)
    assert reply.content == "ran: ls -la"
    assert reply.status == "success"
    assert RAN == [("shell", "ls -la")]
    assert messages[-1].content == FINAL


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["shell", "run_command"])
@pytest.mark.parametrize(
    "command", ["rm -rf /", "sudo rm -rf /", "/bin/rm -rf / --no-preserve-root"]
)
def test_dangerous_command_is_refused_and_the_model_reads_why(
    mode: str, name: str, command: str
) -> None:
    script = [(name, {"command": command}), (name, {"command": "pwd"})]
    messages, model = run(script, mode)
    refused, after = tool_messages(messages)
    assert refused.status == "error"
    assert "DG101" in refused.content and "Tether blocked this call" in refused.content
    assert [(name, "pwd")] == RAN  # the dangerous one never ran; the run went on
    assert after.content == "ran: pwd"
    shown = [m for m in model.seen[1] if isinstance(m, ToolMessage)]
    assert shown and "DG101" in str(shown[-1].content)


@pytest.mark.parametrize("mode", MODES)
def test_repeated_read_is_warned_then_blocked_then_the_run_halts(mode: str) -> None:
    script = [("read_file", {"path": "notes.txt"})] * 12
    messages, model = run(script, mode, **{"loops.hard_stop": True})
    replies = tool_messages(messages)
    # idempotent_no_progress: warn at 2 identical results, hard stop at 5.
    assert len(RAN) == 5
    assert replies[0].content == "the same contents"
    assert replies[1].content.startswith("the same contents\n\n")
    assert "TL201" in replies[1].content and replies[1].status == "success"
    blocked = replies[5]
    assert blocked.status == "error" and "TL201" in blocked.content
    assert "the same contents" not in blocked.content
    # Blocked again and again, the guard halts: the run ends without asking the model again.
    last = messages[-1]
    assert isinstance(last, AIMessage) and "TL208" in str(last.content)
    assert last.content != FINAL
    assert len(model.seen) == len(replies) < len(script)


def test_without_the_middleware_the_same_loop_runs_to_the_end() -> None:
    """Control: the scripted model really would loop twelve times if nothing stopped it."""
    RAN.clear()
    model = ScriptedChat(script=[("read_file", {"path": "notes.txt"})] * 12, seen=[])
    agent = create_agent(model, tools=[shell, read_file])
    agent.invoke({"messages": [{"role": "user", "content": "go"}]})
    assert len(RAN) == 12


class BrokenGuard:
    """A guard whose store is unreachable: every decision raises, as a real StoreError would."""

    def __init__(self) -> None:
        from tether.guard import Guard

        self.settings = Guard().settings

    def before_call(self, call: Any) -> Any:
        raise StoreError("state.db: database is locked (after 5.0 s)")

    def after_call(self, result: Any) -> Any:
        raise StoreError("state.db: database is locked (after 5.0 s)")


@pytest.mark.parametrize("mode", MODES)
def test_a_failing_guard_refuses_the_call_fail_closed(mode: str) -> None:
    RAN.clear()
    model = ScriptedChat(script=[("shell", {"command": "ls"})], seen=[])
    agent = create_agent(model, tools=[shell], middleware=[TetherMiddleware(BrokenGuard())])
    state = {"messages": [{"role": "user", "content": "go"}]}
    out = agent.invoke(state) if mode == "sync" else asyncio.run(agent.ainvoke(state))
    (reply,) = tool_messages(out["messages"])
    assert RAN == []
    assert reply.status == "error"
    assert "fail closed" in reply.content and "database is locked" in reply.content


def test_importing_tether_imports_no_framework() -> None:
    """The integrations are optional extras: the core, CLI and hook path never import them."""
    code = (
        "import sys, tether, tether.guard, tether.integrations, tether.integrations._core, "
        "tether.cli, tether.cli.mcp_proxy, tether.hosts.runner\n"
        "from tether import ToolCall, classify_command\n"
        "classify_command('ls -la')\n"
        "names = ('langchain', 'langchain_core', 'langgraph', 'agents', 'pydantic_ai', 'mcp',"
        " 'openai')\n"
        "print(sorted(n for n in names if n in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert proc.stdout.strip() == "[]"


class HaltingGuard:
    """A guard that halts every call: drives the parallel-halt path deterministically."""

    def __init__(self) -> None:
        from tether.guard import Guard

        self.settings = Guard().settings

    def before_call(self, call: Any) -> Decision:
        return Decision(Action.HALT, ("TL208",), "Tether halted the agent: stop now.")

    def after_call(self, result: Any) -> Decision:
        return Decision()


class ParallelChat(ScriptedChat):
    """Asks for two tool calls at once, every turn."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        turn = len(self.seen)
        self.seen.append(list(messages))
        calls = [
            {"name": "read_file", "args": {"path": p}, "id": f"c{turn}{p}"} for p in ("a", "b")
        ]
        return ChatResult(generations=[ChatGeneration(message=AIMessage("", tool_calls=calls))])


@pytest.mark.parametrize("mode", MODES)
def test_parallel_calls_halting_in_one_step_end_the_run_once(mode: str) -> None:
    RAN.clear()
    model = ParallelChat(script=[], seen=[])
    agent = create_agent(model, tools=[read_file], middleware=[TetherMiddleware(HaltingGuard())])
    state = {"messages": [{"role": "user", "content": "go"}]}
    out = agent.invoke(state) if mode == "sync" else asyncio.run(agent.ainvoke(state))
    replies = tool_messages(out["messages"])
    assert [r.status for r in replies] == ["error", "error"]
    assert RAN == [] and len(model.seen) == 1
    last = out["messages"][-1]
    assert isinstance(last, AIMessage) and "stop now" in str(last.content)


def test_each_langgraph_thread_is_its_own_session() -> None:
    """With a checkpointer, the thread_id keys Tether's session: one thread's loop is its own."""
    from langgraph.checkpoint.memory import InMemorySaver

    RAN.clear()
    middleware = TetherMiddleware(config=DEFAULT_CONFIG.with_values({"loops.hard_stop": True}))
    model = ScriptedChat(script=[("read_file", {"path": "notes.txt"})] * 6, seen=[])
    agent = create_agent(
        model, tools=[read_file], middleware=[middleware], checkpointer=InMemorySaver()
    )
    looped = agent.invoke(
        {"messages": [{"role": "user", "content": "go"}]}, {"configurable": {"thread_id": "a"}}
    )
    assert tool_messages(looped["messages"])[-1].status == "error"  # the sixth read: refused
    model.script = [("read_file", {"path": "notes.txt"})]
    model.seen = []
    fresh = agent.invoke(
        {"messages": [{"role": "user", "content": "go"}]}, {"configurable": {"thread_id": "b"}}
    )
    (reply,) = tool_messages(fresh["messages"])
    assert reply.status == "success" and reply.content == "the same contents"
    assert len(RAN) == 6


def _chat_turn(agent: Any, model: ScriptedChat, script: list[Any], mode: str, **kw: Any) -> Any:
    """One user turn of a chat: a new user message, the model's scripted calls, an answer."""
    model.script, model.seen = script, []
    state = {"messages": [{"role": "user", "content": "next"}]}
    if mode == "sync":
        return agent.invoke(state, **kw)
    if mode == "async":
        return asyncio.run(agent.ainvoke(state, **kw))
    chunks = list(agent.stream(state, stream_mode="values", **kw))
    return chunks[-1]


@pytest.mark.parametrize("mode", [*MODES, "stream"])
def test_each_invoke_with_a_user_message_is_a_new_turn(mode: str) -> None:
    """Three user turns of 50 distinct reads on one thread: the per-turn cap counts each turn."""
    from langgraph.checkpoint.memory import InMemorySaver

    RAN.clear()
    middleware = TetherMiddleware(config=DEFAULT_CONFIG.with_values({"loops.hard_stop": True}))
    model = ScriptedChat(script=[], seen=[])
    agent = create_agent(
        model, tools=[read_file], middleware=[middleware], checkpointer=InMemorySaver()
    )
    thread = {"configurable": {"thread_id": f"chat-{mode}"}}
    for turn in range(3):
        script = [("read_file", {"path": f"t{turn}-{i}.txt"}) for i in range(50)]
        out = _chat_turn(agent, model, script, mode, config=thread)
        assert out["messages"][-1].content == FINAL, f"turn {turn + 1} was stopped"
    assert len(RAN) == 150
    state = middleware.guard.store.load("langchain:chat-" + mode)
    assert state is not None and state["turn"] == 3


@pytest.mark.parametrize("mode", MODES)
def test_a_halted_thread_goes_on_at_the_next_user_message(mode: str) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    RAN.clear()
    middleware = TetherMiddleware(config=DEFAULT_CONFIG.with_values({"loops.hard_stop": True}))
    model = ScriptedChat(script=[], seen=[])
    agent = create_agent(
        model, tools=[read_file], middleware=[middleware], checkpointer=InMemorySaver()
    )
    thread = {"configurable": {"thread_id": "halted"}}
    halted = _chat_turn(agent, model, [("read_file", {"path": "n.txt"})] * 12, mode, config=thread)
    assert "TL208" in str(halted["messages"][-1].content)
    ran_before = len(RAN)
    resumed = _chat_turn(agent, model, [("read_file", {"path": "n.txt"})], mode, config=thread)
    reply = tool_messages(resumed["messages"])[-1]
    assert reply.status == "success" and reply.content == "the same contents"
    assert resumed["messages"][-1].content == FINAL
    assert len(RAN) == ran_before + 1


def test_without_a_thread_id_each_run_is_its_own_session() -> None:
    """One agent object serving two users without thread ids: one user's loop is not the other's."""
    RAN.clear()
    middleware = TetherMiddleware(config=DEFAULT_CONFIG.with_values({"loops.hard_stop": True}))
    model = ScriptedChat(script=[], seen=[])
    agent = create_agent(model, tools=[read_file], middleware=[middleware])
    first = _chat_turn(agent, model, [("read_file", {"path": "n.txt"})] * 12, "sync")
    assert "TL208" in str(first["messages"][-1].content)
    second = _chat_turn(agent, model, [("read_file", {"path": "n.txt"})] * 3, "sync")
    assert [m.status for m in tool_messages(second["messages"])] == ["success"] * 3
    assert "TL201" not in str(tool_messages(second["messages"])[0].content)
