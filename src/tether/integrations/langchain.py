"""LangChain v1 agent middleware: every tool call of a ``create_agent`` run through Tether.

    from langchain.agents import create_agent
    from tether.integrations.langchain import TetherMiddleware

    agent = create_agent(model, tools=[...], middleware=[TetherMiddleware()])

``wrap_tool_call`` (and ``awrap_tool_call`` for ``ainvoke``/``astream``, which LangChain needs
as a separate method) asks the guard before the tool runs: a refused call never runs and the
model gets a ``ToolMessage(status="error")`` holding Tether's reason. After the tool ran, the
result is recorded and any warning is appended to what the model reads. A halt ends the run the
LangChain way: the tool message is written, then ``before_model`` jumps to the end with an
``AIMessage`` saying why.

Each ``invoke``/``ainvoke``/``stream`` that brings a new user message starts a new user turn
(``Guard.user_message``), so the per-turn caps count one turn, and a halted run goes on when the
human speaks again. The session is the LangGraph ``thread_id`` when there is one, else a fresh
one for each run: two users of one agent object never share a session unless they share a
thread. Requires the ``langchain`` extra (``pip install tether[langchain]``).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import AgentMiddleware, AgentState, hook_config
from langchain.agents.middleware.types import ToolCallRequest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.runtime import Runtime
from langgraph.types import Command

from tether.integrations._core import (
    Checkpoint,
    Verdict,
    learn_shell_tools,
    with_note,
)
from tether.model import ToolCall

Result = ToolMessage | Command[Any]
HALT_KEY = "tether_halt"
SESSION_KEY = "tether_session"


def _latest(old: str | None, new: str | None) -> str | None:
    """Reduce halt writes: parallel tool calls may each halt in the same step."""
    return new


class TetherState(AgentState[Any]):
    """The agent state plus the run's Tether session and the halt message for ``before_model``."""

    tether_halt: NotRequired[Annotated[str | None, _latest]]
    tether_session: NotRequired[str | None]


class TetherMiddleware(AgentMiddleware[TetherState, Any, Any]):
    """Guard every tool call of a LangChain agent with one Tether ``Guard``."""

    state_schema = TetherState

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
        super().__init__()
        self.checkpoint = Checkpoint.build(guard, config, store, session_id, shell_tools)
        self.guard = self.checkpoint.guard
        self._fixed_session = session_id is not None
        self._learned: set[str] = set()

    # -- tool calls --------------------------------------------------------------------------

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Result]
    ) -> Result:
        """Ask the guard, run the tool unless refused, record the result."""
        call = self._call(request)
        verdict = self.checkpoint.before(call)
        if verdict.refused:
            return _refusal(call, verdict)
        try:
            result = handler(request)
        except Exception as exc:
            self.checkpoint.after(call, f"{type(exc).__name__}: {exc}", error=True)
            raise
        return _annotate(result, self.checkpoint.after(call, *_outcome(result)), verdict)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[Result]],
    ) -> Result:
        """Ask the guard (off the event loop), run the tool unless refused, record the result."""
        call = self._call(request)
        verdict = await asyncio.to_thread(self.checkpoint.before, call)
        if verdict.refused:
            return _refusal(call, verdict)
        try:
            result = await handler(request)
        except Exception as exc:
            text = f"{type(exc).__name__}: {exc}"
            await asyncio.to_thread(self.checkpoint.after, call, text, error=True)
            raise
        output, error = _outcome(result)
        after = await asyncio.to_thread(self.checkpoint.after, call, output, error=error)
        return _annotate(result, after, verdict)

    # -- ending a halted run -----------------------------------------------------------------

    def before_agent(self, state: TetherState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Pick the run's session; a new user message is a new turn and clears an earlier halt."""
        session = self._run_session()
        text = _new_user_text(state)
        if text is not None:
            self.checkpoint.user_turn(session, text)
        return {SESSION_KEY: session, HALT_KEY: None}

    async def abefore_agent(
        self, state: TetherState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """Pick the session and start the user turn (async runs, off the event loop)."""
        session = self._run_session()
        text = _new_user_text(state)
        if text is not None:
            await asyncio.to_thread(self.checkpoint.user_turn, session, text)
        return {SESSION_KEY: session, HALT_KEY: None}

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: TetherState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """End the run when a tool call was halted, instead of asking the model again."""
        text = state.get(HALT_KEY)
        if not isinstance(text, str) or not text:
            return None
        return {"jump_to": "end", "messages": [AIMessage(content=text)]}

    @hook_config(can_jump_to=["end"])
    async def abefore_model(
        self, state: TetherState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """End a halted run (async runs)."""
        return self.before_model(state, runtime)

    # -- translation -------------------------------------------------------------------------

    def _call(self, request: ToolCallRequest) -> ToolCall:
        tc = request.tool_call
        name = str(tc.get("name") or "")
        if name not in self._learned and request.tool is not None:
            self._learned.add(name)  # a `command: str` argument makes it a shell tool
            try:
                props = request.tool.args
            except Exception:  # a tool without a usable schema is simply not a shell
                props = {}
            learn_shell_tools(self.guard, {name: {"properties": props}})
        session = None
        if not self._fixed_session:
            state: Any = getattr(request, "state", None)
            chosen = state.get(SESSION_KEY) if isinstance(state, Mapping) else None
            if isinstance(chosen, str) and chosen:
                session = chosen
            else:  # no before_agent ran (a bare ToolNode): the thread's session, else ours
                thread = _thread_id()
                session = f"langchain:{thread}" if thread else None
        return self.checkpoint.call(
            name, tc.get("args") or {}, str(tc.get("id") or ""), session_id=session
        )

    def _run_session(self) -> str:
        """Return the session of the run being started: fixed, the thread's, or a fresh one."""
        if self._fixed_session:
            return self.checkpoint.session_id
        thread = _thread_id()
        return f"langchain:{thread}" if thread else f"langchain:run-{uuid.uuid4().hex[:12]}"


def _thread_id() -> str | None:
    """Return the running graph's ``thread_id`` (one Tether session per thread), if any."""
    from langgraph.config import get_config

    try:
        config: Any = get_config()
    except RuntimeError:  # not inside a runnable context
        return None
    configurable = config.get("configurable") if isinstance(config, Mapping) else None
    if isinstance(configurable, Mapping) and configurable.get("thread_id"):
        return str(configurable["thread_id"])
    return None


def _new_user_text(state: Mapping[str, Any]) -> str | None:
    """Return the text of the user message this run starts with, or None when there is none."""
    messages = state.get("messages") or ()
    last = messages[-1] if messages else None
    if not isinstance(last, HumanMessage):
        return None
    content = last.content
    return content if isinstance(content, str) else str(content)


def _refusal(call: ToolCall, verdict: Verdict) -> Result:
    message = ToolMessage(
        content=verdict.message, tool_call_id=call.call_id, name=call.tool, status="error"
    )
    return _halting(message, verdict) if verdict.halted else message


def _halting(message: ToolMessage, verdict: Verdict) -> Command[Any]:
    return Command(update={"messages": [message], HALT_KEY: verdict.message})


def _outcome(result: Result) -> tuple[Any, bool]:
    """Return (output, failed) of what the tool produced."""
    if isinstance(result, ToolMessage):
        return result.content, result.status == "error"
    update = result.update
    messages = update.get("messages") if isinstance(update, Mapping) else None
    tool_messages = [m for m in messages or () if isinstance(m, ToolMessage)]
    if tool_messages:
        m = tool_messages[-1]
        return m.content, m.status == "error"
    return repr(update), False


def _annotate(result: Result, after: Verdict, before: Verdict) -> Result:
    """Append the guard's note to the tool message: the result's, else the call's warning."""
    note = after if after.noted else before
    if isinstance(result, Command):
        if not after.halted:
            return result
        update = dict(result.update) if isinstance(result.update, Mapping) else {}
        update[HALT_KEY] = after.message
        return Command(graph=result.graph, update=update, resume=result.resume, goto=result.goto)
    if not note.noted:
        return result
    content: Any = result.content
    if isinstance(content, str):
        content = with_note(content, note)
    else:  # a list of content blocks: add the note as one more text block
        content = [*content, {"type": "text", "text": note.message}]
    annotated = result.model_copy(update={"content": content})
    return _halting(annotated, after) if after.halted else annotated


__all__ = ["TetherMiddleware", "TetherState"]
