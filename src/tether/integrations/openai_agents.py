"""OpenAI Agents SDK tool guardrails: every function-tool call checked by one Tether ``Guard``.

    from agents import Agent, function_tool
    from tether.integrations.openai_agents import TetherGuardrails

    tether = TetherGuardrails()

    @function_tool(**tether.tool_kwargs())
    def shell(command: str) -> str: ...

    agent = Agent(name="ops", tools=tether.protect(other_tool, shell))

``protect`` returns guarded copies and leaves the tools it was given untouched, so a module-level
tool can be protected once per request by a per-request ``TetherGuardrails`` (say, one per
conversation) without collecting guardrails: a copy carries exactly one Tether input and one
Tether output guardrail, the protecting instance's.

Each ``Runner.run``/``run_sync``/``run_streamed`` is a new user turn. The session is the
``session_id`` given here, else the run's ``RunConfig.group_id`` (the SDK's id for a
conversation thread) when it is set, else a fresh one for each run, so two users of one agent
never share a session silently.

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
import dataclasses
import threading
import uuid
import weakref
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
        self._fixed_session = session_id is not None
        self._lock = threading.Lock()
        self._learned: set[str] = set()
        # The runs seen so far, by the identity of the run's Usage object (one per Runner.run,
        # shared by every tool call of that run): id -> (weak reference, session id).
        self._runs: dict[int, tuple[weakref.ref[Any], str]] = {}
        self.input: ToolInputGuardrail[Any] = ToolInputGuardrail(
            guardrail_function=self._check_input, name=INPUT_NAME
        )
        self.output: ToolOutputGuardrail[Any] = ToolOutputGuardrail(
            guardrail_function=self._check_output, name=OUTPUT_NAME
        )

    def tool_kwargs(self) -> dict[str, Any]:
        """Return the keyword arguments that attach both guardrails in ``@function_tool(...)``."""
        return {"tool_input_guardrails": [self.input], "tool_output_guardrails": [self.output]}

    def protect(self, *tools: Any) -> list[Any]:
        """Return each function tool as a copy guarded by this instance (others unchanged).

        The tools given are not modified. Tether guardrails an earlier ``protect`` attached are
        replaced, never stacked: a copy is judged by exactly one guard and session.
        """
        guarded: list[Any] = []
        for tool in tools:
            if not isinstance(tool, FunctionTool):
                guarded.append(tool)
                continue
            self._learn(tool)
            inputs = [g for g in tool.tool_input_guardrails or () if g.name != INPUT_NAME]
            outputs = [g for g in tool.tool_output_guardrails or () if g.name != OUTPUT_NAME]
            guarded.append(
                dataclasses.replace(
                    tool,
                    tool_input_guardrails=[*inputs, self.input],
                    tool_output_guardrails=[*outputs, self.output],
                )
            )
        return guarded

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
        session = await self._session(ctx)
        call = self.checkpoint.call(
            ctx.tool_name, ctx.tool_arguments, ctx.tool_call_id, session_id=session
        )
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
            session = await self._session(ctx)
            call = self.checkpoint.call(
                ctx.tool_name, ctx.tool_arguments, ctx.tool_call_id, session_id=session
            )
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

    # -- runs, turns and sessions -------------------------------------------------------------

    async def _session(self, ctx: Any) -> str:
        """Return the session of the run this tool call belongs to; a new run is a user turn."""
        run = getattr(ctx, "usage", None)
        if run is None:  # not a Runner run: the instance's own session
            return self.checkpoint.session_id
        key = id(run)
        with self._lock:
            seen = self._runs.get(key)
            if seen is not None and seen[0]() is run:
                return seen[1]
            session = self._new_session(ctx)
            self._runs[key] = (weakref.ref(run, self._forget(key)), session)
        await asyncio.to_thread(self.checkpoint.user_turn, session, _user_text(ctx))
        return session

    def _new_session(self, ctx: Any) -> str:
        if self._fixed_session:
            return self.checkpoint.session_id
        group = getattr(getattr(ctx, "run_config", None), "group_id", None)
        if group:
            return f"openai-agents:{group}"
        return f"openai-agents:run-{uuid.uuid4().hex[:12]}"

    def _forget(self, key: int) -> Any:
        def forget(ref: weakref.ref[Any]) -> None:
            with self._lock:
                if self._runs.get(key, (None,))[0] is ref:
                    del self._runs[key]

        return forget


INPUT_NAME = "tether_input"
OUTPUT_NAME = "tether_output"


def _user_text(ctx: Any) -> str:
    """Return the last user message of the run's input, as text ("" when there is none)."""
    for item in reversed(getattr(ctx, "turn_input", None) or ()):
        if isinstance(item, Mapping) and item.get("role") == "user":
            content = item.get("content")
            return content if isinstance(content, str) else str(content)
    return ""


__all__ = ["TetherGuardrails"]
