"""OpenAI Agents SDK tool guardrails: every function-tool call checked by one Tether ``Guard``.

    from agents import Agent, function_tool
    from tether.integrations.openai_agents import TetherGuardrails

    tether = TetherGuardrails()

    @function_tool(**tether.tool_kwargs())
    def shell(command: str) -> str: ...

    agent = Agent(name="ops", tools=tether.protect(other_tool, shell))

The input guardrail asks the guard before the tool runs: a refused call (block, or an ask no
one can answer) comes back as ``reject_content(reason)`` so the model reads why and the run goes
on; a halt is ``raise_exception()``, which ends ``Runner.run`` with
``ToolInputGuardrailTripwireTriggered`` (its ``output.output_info`` holds the decision). The
output guardrail records the result; a note (a loop warning) replaces the output with the output
plus the note, and a halt raises ``ToolOutputGuardrailTripwireTriggered``. Hosted tools are not
function tools and are not covered. Requires the ``openai-agents`` extra.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from typing import Any

from agents import (
    FunctionTool,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
    ToolOutputGuardrail,
    ToolOutputGuardrailData,
)

from tether.integrations._core import (
    Checkpoint,
    Verdict,
    learn_shell_tools,
    output_text,
    with_note,
)
from tether.model import ALLOW


class TetherGuardrails:
    """A tool input guardrail and a tool output guardrail sharing one guard and session."""

    def __init__(
        self,
        guard: Any = None,
        *,
        config: Any = None,
        store: Any = None,
        session_id: str | None = None,
        shell_tools: Mapping[str, str] | None = None,
    ) -> None:
        """Use ``guard``, or build an unattended one from ``config`` (loaded when None)."""
        self.checkpoint = Checkpoint.build(guard, config, store, session_id, shell_tools)
        self.guard = self.checkpoint.guard
        self._lock = threading.Lock()
        self._learned: set[str] = set()
        self.input: ToolInputGuardrail[Any] = ToolInputGuardrail(
            guardrail_function=self._check_input, name="tether_input"
        )
        self.output: ToolOutputGuardrail[Any] = ToolOutputGuardrail(
            guardrail_function=self._check_output, name="tether_output"
        )

    def tool_kwargs(self) -> dict[str, Any]:
        """Return the keyword arguments that attach both guardrails in ``@function_tool(...)``."""
        return {"tool_input_guardrails": [self.input], "tool_output_guardrails": [self.output]}

    def protect(self, *tools: Any) -> list[Any]:
        """Attach both guardrails to each function tool (others are returned unchanged)."""
        for tool in tools:
            if not isinstance(tool, FunctionTool):
                continue
            self._learn(tool)
            inputs, outputs = tool.tool_input_guardrails or [], tool.tool_output_guardrails or []
            if self.input not in inputs:  # protecting a tool twice must not check it twice
                tool.tool_input_guardrails = [*inputs, self.input]
            if self.output not in outputs:
                tool.tool_output_guardrails = [*outputs, self.output]
        return list(tools)

    def _learn(self, tool: FunctionTool) -> None:
        """Treat a tool whose schema has a ``command``/``cmd``/``script`` argument as a shell."""
        self._learned.add(tool.name)
        learn_shell_tools(self.guard, {tool.name: tool.params_json_schema})

    # -- the guardrail functions --------------------------------------------------------------

    async def _check_input(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        if ctx.tool_name not in self._learned:
            for tool in getattr(data.agent, "tools", None) or ():
                if isinstance(tool, FunctionTool) and tool.name == ctx.tool_name:
                    self._learn(tool)
        call = self.checkpoint.call(ctx.tool_name, ctx.tool_arguments, ctx.tool_call_id)
        verdict = await asyncio.to_thread(self.checkpoint.before, call)
        info = verdict.decision.to_json()
        if verdict.halted:
            return ToolGuardrailFunctionOutput.raise_exception(output_info=info)
        if verdict.refused:
            return ToolGuardrailFunctionOutput.reject_content(verdict.message, output_info=info)
        with self._lock:
            self.checkpoint.remember(call, verdict)
        return ToolGuardrailFunctionOutput.allow(output_info=info)

    async def _check_output(self, data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        with self._lock:
            pending = self.checkpoint.recall(ctx.tool_call_id)
        if pending is None:  # no input guardrail saw it (attached alone): judge it now
            call = self.checkpoint.call(ctx.tool_name, ctx.tool_arguments, ctx.tool_call_id)
            before = Verdict(ALLOW)
        else:
            call, before = pending
        after = await asyncio.to_thread(self.checkpoint.after, call, data.output)
        info = after.decision.to_json()
        if after.halted:
            return ToolGuardrailFunctionOutput.raise_exception(output_info=info)
        note = after if after.noted else before
        if note.noted:
            # The SDK has no "append": the replacement is the output followed by the note.
            text = with_note(output_text(data.output), note)
            return ToolGuardrailFunctionOutput.reject_content(text, output_info=info)
        return ToolGuardrailFunctionOutput.allow(output_info=info)


__all__ = ["TetherGuardrails"]
