"""OpenAI Agents SDK: real ``Runner`` runs (run_sync and async run) with a scripted ``Model``.

The model emits one scripted function call per turn and records the tool outputs it was given,
so each test checks what the model actually read after Tether's guardrails ran.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from agents import (
    Agent,
    Model,
    ModelResponse,
    RunConfig,
    Runner,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailTripwireTriggered,
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

FINAL = "done"


class ScriptedModel(Model):
    """One scripted function call per turn, then a final answer; remembers tool outputs seen."""

    def __init__(self, script: list[tuple[str, dict[str, Any]]]) -> None:
        self.script = script
        self.turns = 0
        self.outputs: list[str] = []  # every function_call_output the model was shown, in order

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kw: Any
    ) -> Any:
        if isinstance(input, list):
            self.outputs = [
                str(item["output"])
                for item in input
                if isinstance(item, dict) and item.get("type") == "function_call_output"
            ]
        turn = self.turns
        self.turns += 1
        if turn < len(self.script):
            name, args = self.script[turn]
            item: Any = ResponseFunctionToolCall(
                type="function_call",
                name=name,
                arguments=json.dumps(args),
                call_id=f"c{turn}",
                id=f"fc{turn}",
                status="completed",
            )
        else:
            text = ResponseOutputText(type="output_text", text=FINAL, annotations=[])
            item = ResponseOutputMessage(
                type="message", id="m", role="assistant", status="completed", content=[text]
            )
        return ModelResponse(output=[item], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the tests run without streaming")


def make_agent(
    script: list[tuple[str, dict[str, Any]]], **config: Any
) -> tuple[Agent[Any], ScriptedModel, list[str]]:
    ran: list[str] = []

    @function_tool
    def shell(command: str) -> str:
        """Run a shell command."""
        ran.append(command)
        return f"ran: {command}"

    @function_tool
    def run_command(command: str) -> str:
        """Run a command (its `command` argument makes it a shell tool)."""
        ran.append(command)
        return f"ran: {command}"

    @function_tool
    def read_file(path: str) -> str:
        """Read a file."""
        ran.append(f"read {path}")
        return "the same contents"

    tether = TetherGuardrails(
        config=DEFAULT_CONFIG.with_values(config) if config else DEFAULT_CONFIG
    )
    model = ScriptedModel(script)
    agent: Agent[Any] = Agent(
        name="ops", model=model, tools=tether.protect(shell, run_command, read_file)
    )
    return agent, model, ran


def run(agent: Agent[Any], mode: str) -> Any:
    cfg = RunConfig(tracing_disabled=True)
    if mode == "sync":
        return Runner.run_sync(agent, "go", run_config=cfg, max_turns=30)
    return asyncio.run(Runner.run(agent, "go", run_config=cfg, max_turns=30))


MODES = ["sync", "async"]


@pytest.mark.parametrize("mode", MODES)
def test_normal_call_passes_through_unchanged(mode: str) -> None:
    agent, model, ran = make_agent([("shell", {"command": "ls -la"})])
    result = run(agent, mode)
    assert result.final_output == FINAL
    assert ran == ["ls -la"]
    assert model.outputs == ["ran: ls -la"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["shell", "run_command"])
@pytest.mark.parametrize("command", ["rm -rf /", "sudo rm -rf /", "command rm -rf /"])
def test_dangerous_command_is_rejected_and_the_model_reads_why(
    mode: str, name: str, command: str
) -> None:
    script = [(name, {"command": command}), (name, {"command": "pwd"})]
    agent, model, ran = make_agent(script)
    result = run(agent, mode)
    assert result.final_output == FINAL  # reject_content: the run goes on
    assert ran == ["pwd"]
    refused, after = model.outputs
    assert "DG101" in refused and "Tether blocked this call" in refused
    assert after == "ran: pwd"


@pytest.mark.parametrize("mode", MODES)
def test_repeated_read_is_warned_then_rejected_then_halted(mode: str) -> None:
    agent, model, ran = make_agent(
        [("read_file", {"path": "notes.txt"})] * 12, **{"loops.hard_stop": True}
    )
    with pytest.raises(ToolInputGuardrailTripwireTriggered) as caught:
        run(agent, mode)
    # idempotent_no_progress: warn at 2 identical results, hard stop at 5, halt after repeats.
    assert len(ran) == 5
    assert model.outputs[0] == "the same contents"
    assert model.outputs[1].startswith("the same contents\n\n") and "TL201" in model.outputs[1]
    blocked = model.outputs[5]
    assert "TL201" in blocked and "the same contents" not in blocked
    info = caught.value.output.output_info
    assert info["action"] == "halt" and "TL208" in info["codes"]
    assert model.turns < 12


def test_halt_after_the_call_raises_the_output_tripwire() -> None:
    """A halt decided on the result (sub-agent progress cap) raises from the output guardrail."""
    cfg = {
        "progress.enabled": True,
        "progress.scope": "all",
        "progress.warn_after": 1,
        "progress.halt_after": 2,
    }
    agent, _, ran = make_agent([("read_file", {"path": f"f{i}"}) for i in range(5)], **cfg)
    with pytest.raises(ToolOutputGuardrailTripwireTriggered) as caught:
        run(agent, "sync")
    assert caught.value.output.output_info["action"] == "halt"
    assert len(ran) == 2


def test_without_guardrails_the_same_loop_runs_to_the_end() -> None:
    """Control: the scripted model really would loop twelve times if nothing stopped it."""
    ran: list[str] = []

    @function_tool
    def read_file(path: str) -> str:
        """Read a file."""
        ran.append(path)
        return "the same contents"

    agent: Agent[Any] = Agent(
        name="ops", model=ScriptedModel([("read_file", {"path": "n"})] * 12), tools=[read_file]
    )
    assert run(agent, "sync").final_output == FINAL
    assert len(ran) == 12


def test_protect_returns_guarded_copies_and_never_stacks() -> None:
    @function_tool(tool_input_guardrails=[], tool_output_guardrails=[])
    def shell(command: str) -> str:
        """Run a shell command."""
        return command

    first, second = TetherGuardrails(config=DEFAULT_CONFIG), TetherGuardrails(config=DEFAULT_CONFIG)
    (a,) = first.protect(shell)
    (again,) = first.protect(a)
    (b,) = second.protect(a)
    assert shell.tool_input_guardrails == [] and shell.tool_output_guardrails == []
    assert a is not shell and a.tool_input_guardrails == [first.input]
    assert again.tool_input_guardrails == [first.input]
    assert again.tool_output_guardrails == [first.output]
    assert b.tool_input_guardrails == [second.input]  # replaced, not stacked
    assert b.tool_output_guardrails == [second.output]


def test_a_module_level_tool_protected_per_request_is_judged_by_that_request_only() -> None:
    ran: list[str] = []

    @function_tool
    def read_file(path: str) -> str:
        """Read a file."""
        ran.append(path)
        return "the same contents"

    cfg = DEFAULT_CONFIG.with_values({"loops.hard_stop": True})
    for request in range(3):  # each request: its own guardrails over the same module-level tool
        tether = TetherGuardrails(config=cfg, session_id=f"request-{request}")
        model = ScriptedModel([("read_file", {"path": "n"})] * 3)
        agent: Agent[Any] = Agent(name="ops", model=model, tools=tether.protect(read_file))
        assert run(agent, "sync").final_output == FINAL
        assert "TL201" not in model.outputs[0]  # no earlier request's history judges this one
    assert len(ran) == 9
    assert read_file.tool_input_guardrails in (None, [])


def _conversation(tether: TetherGuardrails, script: list[Any], mode: str, group: str | None) -> Any:
    model = (StreamingScriptedModel if mode == "stream" else ScriptedModel)(script)
    agent: Agent[Any] = Agent(name="ops", model=model, tools=tether.protect(*TOOLS))
    cfg = RunConfig(tracing_disabled=True, group_id=group)
    if mode == "sync":
        return Runner.run_sync(agent, "next", run_config=cfg, max_turns=60)
    if mode == "async":
        return asyncio.run(Runner.run(agent, "next", run_config=cfg, max_turns=60))

    async def streamed() -> Any:
        result = Runner.run_streamed(agent, "next", run_config=cfg, max_turns=60)
        async for _ in result.stream_events():
            pass
        return result

    return asyncio.run(streamed())


@function_tool
def read_file(path: str) -> str:
    """Read a file."""
    READS.append(path)
    return "the same contents"


READS: list[str] = []
TOOLS = [read_file]


class StreamingScriptedModel(ScriptedModel):
    """The scripted model, also answering ``run_streamed`` (one completed response per turn)."""

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        from openai.types.responses import Response, ResponseCompletedEvent

        answer = await self.get_response(*args[:2])
        response = Response(
            id="r", created_at=0, model="scripted", object="response", output=answer.output,
            parallel_tool_calls=False, tool_choice="auto", tools=[],
        )  # fmt: skip
        yield ResponseCompletedEvent(
            type="response.completed", response=response, sequence_number=0
        )


@pytest.mark.parametrize("mode", [*MODES, "stream"])
@pytest.mark.parametrize("group", ["chat-1", None])
def test_each_run_is_a_new_user_turn(mode: str, group: str | None) -> None:
    """Three runs of 45 distinct reads on one guardrails object: the per-turn cap counts each."""
    READS.clear()
    tether = TetherGuardrails(config=DEFAULT_CONFIG.with_values({"loops.hard_stop": True}))
    for turn in range(3):
        script = [("read_file", {"path": f"t{turn}-{i}"}) for i in range(45)]
        assert _conversation(tether, script, mode, group).final_output == FINAL
    assert len(READS) == 135
    if group:
        state = tether.guard.store.load(f"openai-agents:{group}")
        assert state is not None and state["turn"] == 3


def test_runs_without_a_group_id_are_separate_sessions() -> None:
    READS.clear()
    tether = TetherGuardrails(config=DEFAULT_CONFIG.with_values({"loops.hard_stop": True}))
    with pytest.raises(ToolInputGuardrailTripwireTriggered):
        _conversation(tether, [("read_file", {"path": "n"})] * 12, "sync", None)
    assert (
        _conversation(tether, [("read_file", {"path": "n"})] * 2, "sync", None).final_output
        == FINAL
    )


def test_a_halted_conversation_goes_on_at_the_next_run() -> None:
    READS.clear()
    tether = TetherGuardrails(config=DEFAULT_CONFIG.with_values({"loops.hard_stop": True}))
    with pytest.raises(ToolInputGuardrailTripwireTriggered):
        _conversation(tether, [("read_file", {"path": "n"})] * 12, "sync", "g")
    before = len(READS)
    assert _conversation(tether, [("read_file", {"path": "n"})], "sync", "g").final_output == FINAL
    assert len(READS) == before + 1
