"""Pydantic AI: real ``Agent`` runs (run_sync and async run) with a scripted ``FunctionModel``.

The model function emits one scripted tool call per turn and records the tool returns it was
shown, so each test checks what the model actually read after Tether's capability ran.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturn,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tether.config import DEFAULT_CONFIG
from tether.errors import HaltError
from tether.integrations.pydantic_ai import TetherCapability
from tether.model import Decision

FINAL = "done"


class Script:
    """A FunctionModel body: one scripted call per turn, then text; keeps what it was shown."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        self.calls = calls
        self.turns = 0
        self.returns: list[str] = []  # every tool return / retry prompt the model read

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.returns = [
            str(part.content)
            for m in messages
            if isinstance(m, ModelRequest)
            for part in m.parts
            if isinstance(part, ToolReturnPart | RetryPromptPart)
        ]
        turn = self.turns
        self.turns += 1
        if turn < len(self.calls):
            name, args = self.calls[turn]
            return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"c{turn}")])
        return ModelResponse(parts=[TextPart(FINAL)])


def make_agent(
    calls: list[tuple[str, dict[str, Any]]], **config: Any
) -> tuple[Agent[None, str], Script, list[str]]:
    ran: list[str] = []
    script = Script(calls)
    cap = TetherCapability(config=DEFAULT_CONFIG.with_values(config) if config else DEFAULT_CONFIG)
    agent: Agent[None, str] = Agent(FunctionModel(script), capabilities=[cap])

    @agent.tool_plain
    def shell(command: str) -> str:
        """Run a shell command."""
        ran.append(command)
        return f"ran: {command}"

    @agent.tool_plain
    def run_command(command: str) -> str:
        """Run a command (its `command` argument makes it a shell tool)."""
        ran.append(command)
        return f"ran: {command}"

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file."""
        ran.append(f"read {path}")
        return "the same contents"

    @agent.tool_plain
    def status() -> ToolReturn:
        """Report status with extra content for the model."""
        ran.append("status")
        return ToolReturn(return_value="all quiet", content="extra context", metadata={"n": 1})

    @agent.tool_plain(retries=20)
    def flaky(path: str) -> str:
        """Fail the same way every time."""
        ran.append(f"flaky {path}")
        raise ModelRetry("no such file")

    return agent, script, ran


def run(agent: Agent[None, str], mode: str) -> Any:
    if mode == "sync":
        return agent.run_sync("go")
    return asyncio.run(agent.run("go"))


MODES = ["sync", "async"]


@pytest.mark.parametrize("mode", MODES)
def test_normal_call_passes_through_unchanged(mode: str) -> None:
    agent, script, ran = make_agent([("shell", {"command": "ls -la"})])
    assert run(agent, mode).output == FINAL
    assert ran == ["ls -la"]
    assert script.returns == ["ran: ls -la"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["shell", "run_command"])
@pytest.mark.parametrize("command", ["rm -rf /", "sudo rm -rf /", "r''m -rf /"])
def test_dangerous_command_is_skipped_and_the_model_reads_why(
    mode: str, name: str, command: str
) -> None:
    agent, script, ran = make_agent([(name, {"command": command}), (name, {"command": "pwd"})])
    assert run(agent, mode).output == FINAL
    assert ran == ["pwd"]
    refused, after = script.returns
    assert "DG101" in refused and "Tether blocked this call" in refused
    assert after == "ran: pwd"


@pytest.mark.parametrize("mode", MODES)
def test_repeated_read_is_warned_then_skipped_then_halted(mode: str) -> None:
    agent, script, ran = make_agent(
        [("read_file", {"path": "notes.txt"})] * 12, **{"loops.hard_stop": True}
    )
    with pytest.raises(HaltError) as caught:
        run(agent, mode)
    # idempotent_no_progress: warn at 2 identical results, hard stop at 5, halt after repeats.
    assert len(ran) == 5
    assert script.returns[0] == "the same contents"
    assert script.returns[1].startswith("the same contents\n\n") and "TL201" in script.returns[1]
    blocked = script.returns[5]
    assert "TL201" in blocked and "the same contents" not in blocked
    decision = caught.value.decision
    assert isinstance(decision, Decision) and "TL208" in decision.codes
    assert script.turns < 12


def test_a_tool_failing_the_same_way_is_stopped() -> None:
    """ModelRetry from the tool is recorded as a failure: exact_failure stops the repeats."""
    agent, script, ran = make_agent([("flaky", {"path": "x"})] * 12, **{"loops.hard_stop": True})
    with pytest.raises(HaltError):
        run(agent, "sync")
    # exact_failure: hard stop at 5 identical failures.
    assert ran == ["flaky x"] * 5
    assert "no such file" in script.returns[0]
    assert script.returns[0] == "no such file"
    # The failure warnings reach the model with the retry prompt (warn at 2 identical failures).
    assert script.returns[1].startswith("no such file\n\n") and "TL203" in script.returns[1]
    assert "TL203" in script.returns[5] and "Tether blocked this call" in script.returns[5]


def test_without_the_capability_the_same_loop_runs_to_the_end() -> None:
    """Control: the scripted model really would loop twelve times if nothing stopped it."""
    ran: list[str] = []
    agent: Agent[None, str] = Agent(FunctionModel(Script([("read_file", {"path": "n"})] * 12)))

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file."""
        ran.append(path)
        return "the same contents"

    assert agent.run_sync("go").output == FINAL
    assert len(ran) == 12


@pytest.mark.parametrize("unattended", ["block", "ask"])
def test_an_ask_tier_command_is_refused_since_no_human_can_answer(unattended: str) -> None:
    """approvals.unattended=ask leaves an "ask"; inside a run no one can answer, so it refuses."""
    calls = [("shell", {"command": "git push --force origin main"})]
    agent, script, ran = make_agent(calls, **{"approvals.unattended": unattended})
    assert run(agent, "sync").output == FINAL
    assert ran == []
    (refused,) = script.returns
    assert "DG202" in refused and "approval" in refused


def test_a_structured_tool_return_keeps_its_extra_content_when_warned() -> None:
    agent, script, ran = make_agent([("status", {})] * 3)
    result = run(agent, "sync")
    assert ran == ["status"] * 3
    assert script.returns[:2] == ["all quiet"] * 2  # an unknown tool is warned at its third
    assert script.returns[2].startswith("all quiet\n\n") and "TL201" in script.returns[2]
    sent = [str(m) for m in result.all_messages()]
    assert sum("extra context" in m for m in sent) >= 3  # the extra content still reaches it


def _chat(cap: TetherCapability, calls: list[Any], mode: str, history: Any = None) -> Any:
    """One user turn: a new prompt, the scripted calls, an answer; returns the run result."""
    script = Script(calls)
    model = FunctionModel(script, stream_function=_streamed(script))
    agent: Agent[None, str] = Agent(model, capabilities=[cap])

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file."""
        READS.append(path)
        return "the same contents"

    if mode == "sync":
        return agent.run_sync("next", message_history=history)
    if mode == "async":
        return asyncio.run(agent.run("next", message_history=history))

    async def streamed() -> Any:
        async with agent.run_stream("next", message_history=history) as result:
            await result.get_output()
        return result

    return asyncio.run(streamed())


READS: list[str] = []


def _streamed(script: Script) -> Any:
    """The script as a FunctionModel stream function: the same turns, sent as stream chunks."""
    import json

    from pydantic_ai.models.function import DeltaToolCall

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
        response = script(messages, info)
        for part in response.parts:
            if isinstance(part, ToolCallPart):
                args = json.dumps(part.args_as_dict())
                yield {0: DeltaToolCall(part.tool_name, args, tool_call_id=part.tool_call_id)}
            elif isinstance(part, TextPart):
                yield part.content

    return stream


@pytest.mark.parametrize("mode", [*MODES, "stream"])
def test_each_run_with_a_prompt_is_a_new_user_turn(mode: str) -> None:
    """A conversation of three prompts with 45 distinct reads each: the per-turn cap counts each."""
    READS.clear()
    cap = TetherCapability(config=DEFAULT_CONFIG.with_values({"loops.hard_stop": True}))
    history = None
    for turn in range(3):
        result = _chat(
            cap, [("read_file", {"path": f"t{turn}-{i}"}) for i in range(45)], mode, history
        )
        history = result.all_messages()
    assert len(READS) == 135


def test_runs_without_history_are_separate_sessions_and_a_halt_clears_at_the_next_prompt() -> None:
    READS.clear()
    cap = TetherCapability(config=DEFAULT_CONFIG.with_values({"loops.hard_stop": True}))
    with pytest.raises(HaltError):
        _chat(cap, [("read_file", {"path": "n"})] * 12, "sync")
    assert _chat(cap, [("read_file", {"path": "n"})] * 2, "sync").output == FINAL
    fixed = TetherCapability(
        config=DEFAULT_CONFIG.with_values({"loops.hard_stop": True}), session_id="one"
    )
    with pytest.raises(HaltError):
        _chat(fixed, [("read_file", {"path": "n"})] * 12, "sync")
    before = len(READS)
    assert _chat(fixed, [("read_file", {"path": "n"})], "sync").output == FINAL  # a new turn
    assert len(READS) == before + 1
