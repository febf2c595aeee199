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


def test_protecting_a_tool_twice_attaches_each_guardrail_once() -> None:
    @function_tool(tool_input_guardrails=[], tool_output_guardrails=[])
    def shell(command: str) -> str:
        """Run a shell command."""
        return command

    tether = TetherGuardrails(config=DEFAULT_CONFIG)
    tether.protect(shell)
    tether.protect(shell)
    assert shell.tool_input_guardrails == [tether.input]
    assert shell.tool_output_guardrails == [tether.output]
