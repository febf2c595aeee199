"""Pydantic AI capability: every tool call of an ``Agent`` run through one Tether ``Guard``.

    from pydantic_ai import Agent
    from tether.integrations.pydantic_ai import TetherCapability

    agent = Agent(model, tools=[...], capabilities=[TetherCapability()])

``before_tool_execute`` asks the guard: a refused call (block, or an ask no one can answer)
raises ``SkipToolExecution(reason)``, so the tool never runs and the model reads Tether's reason
as the tool result. ``after_tool_execute`` records the result and appends any warning to what
the model reads (a non-text result is rendered as JSON first). A tool that raises is recorded
as a failure (for the repeated-failure detectors) and the error goes on as before, with the
warning added to a ``ModelRetry``'s prompt. A halt
raises :class:`tether.errors.HaltError` out of ``agent.run``. One Tether session per
conversation (``ctx.conversation_id``, else the run) unless ``session_id`` is given. Each run
(``run``, ``run_sync``, ``run_stream``, ``iter``) that brings a user prompt is a new user turn,
so the per-turn caps count one turn and a halted conversation goes on at the next prompt.
Requires the ``pydantic-ai`` extra.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic_ai import RunContext, SkipToolExecution
from pydantic_ai.capabilities import AbstractCapability, WrapToolExecuteHandler
from pydantic_ai.exceptions import ToolRetryError
from pydantic_ai.messages import ToolCallPart, ToolReturn
from pydantic_ai.tools import ToolDefinition

from tether.errors import HaltError
from tether.integrations._core import (
    Checkpoint,
    Verdict,
    learn_shell_tools,
    output_text,
    with_note,
)
from tether.model import ToolCall


class TetherCapability(AbstractCapability[Any]):
    """Guard every tool call of a Pydantic AI agent with one Tether ``Guard``."""

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

    async def before_run(self, ctx: RunContext[Any]) -> None:
        """Start a new user turn when the run brings a user prompt."""
        prompt = ctx.prompt
        if prompt is None:
            return
        text = prompt if isinstance(prompt, str) else str(prompt)
        await asyncio.to_thread(self.checkpoint.user_turn, self._session(ctx), text)

    async def before_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: Any,
    ) -> Any:
        """Ask the guard; skip the tool with Tether's reason when the call is refused."""
        if tool_def.name not in self._learned:
            self._learned.add(tool_def.name)  # a `command: str` argument makes it a shell tool
            learn_shell_tools(self.guard, {tool_def.name: tool_def.parameters_json_schema})
        tc = self._call(ctx, call, args)
        verdict = await asyncio.to_thread(self.checkpoint.before, tc)
        if verdict.halted:
            raise HaltError(verdict.message, verdict.decision)
        if verdict.refused:
            raise SkipToolExecution(verdict.message)
        with self._lock:
            self.checkpoint.remember(tc, verdict)
        return args

    async def after_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: Any,
        result: Any,
    ) -> Any:
        """Record the result; append the guard's note for the model; halt when told to."""
        pending = self._take(call)
        if pending is None:
            return result
        tc, before = pending
        after = await asyncio.to_thread(self.checkpoint.after, tc, result)
        if after.halted:
            raise HaltError(after.message, after.decision)
        note = after if after.noted else before
        if not note.noted:
            return result
        if isinstance(result, ToolReturn):  # keep its extra content and metadata
            return replace(result, return_value=with_note(output_text(result.return_value), note))
        return with_note(output_text(result), note)

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: Any,
        handler: WrapToolExecuteHandler,
    ) -> Any:
        """Record a tool that raised (ModelRetry, ToolFailed or an error) as a failed call."""
        try:
            return await handler(args)
        except SkipToolExecution:
            raise
        except Exception as exc:
            pending = self._take(call)
            if pending is None:
                raise
            retry = _retry_prompt(exc)
            text = retry if retry is not None else f"{type(exc).__name__}: {exc}"
            after = await asyncio.to_thread(self.checkpoint.after, pending[0], text, True)
            if after.halted:
                raise HaltError(after.message, after.decision) from exc
            if after.noted and retry is not None and isinstance(exc, ToolRetryError):
                # The retry prompt is what the model reads: the warning goes with it.
                exc.tool_retry = replace(exc.tool_retry, content=with_note(retry, after))
            raise

    # -- translation -------------------------------------------------------------------------

    def _call(self, ctx: RunContext[Any], call: ToolCallPart, args: Any) -> ToolCall:
        return self.checkpoint.call(
            call.tool_name, args if args is not None else call.args, call.tool_call_id,
            session_id=self._session(ctx),
        )  # fmt: skip

    def _session(self, ctx: RunContext[Any]) -> str:
        if self._fixed_session:
            return self.checkpoint.session_id
        run = ctx.conversation_id or ctx.run_id
        return f"pydantic-ai:{run}" if run else self.checkpoint.session_id

    def _take(self, call: ToolCallPart) -> tuple[ToolCall, Verdict] | None:
        with self._lock:
            return self.checkpoint.recall(call.tool_call_id)


def _retry_prompt(exc: Exception) -> str | None:
    """Return the text of the retry prompt a ``ModelRetry`` from the tool became, if any."""
    part = exc.tool_retry if isinstance(exc, ToolRetryError) else None
    content = getattr(part, "content", None)
    return content if isinstance(content, str) else None


__all__ = ["TetherCapability"]
