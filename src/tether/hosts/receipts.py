"""Coverage receipts: a tool result whose call never reached Tether, said in words.

Every result a host reports after a call (PostToolUse, AfterTool) is paired with the decision
Tether gave before the call. A result with nothing to pair with means the call ran without a
guard decision: the pre-call hook did not fire for it (a matcher that does not name the tool, a
hook switched off or not trusted). The guard counts these per session (``unguarded`` in the
session state); the hook tells the user once per session (``systemMessage``), and ``tether
stats`` and ``tether doctor`` add them up across sessions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tether.quoting import quote

CAUSE = (
    "the pre-call hook ({pre}) does not run for {tools}: its matcher does not name the tool, or "
    "the hook is switched off or not trusted"
)


def _tools(tools: Mapping[str, Any]) -> str:
    return ", ".join(f"{name} ×{n}" if int(n) > 1 else name for name, n in tools.items())


def notice(receipt: Mapping[str, Any], pre: str) -> str:
    """Return the once-per-session notice for the user about one session's unguarded calls."""
    n = int(receipt.get("n", 0))
    tools = receipt.get("tools") or {}
    names = ", ".join(tools) if isinstance(tools, Mapping) else "some tools"
    calls = "1 tool call" if n == 1 else f"{n} tool calls"
    first = str(receipt.get("first", ""))
    shown = f" (first: {quote(first, 120)})" if first else ""
    return (
        f"Tether: {calls} in this session ran without a guard decision{shown}: the host "
        "reported the result, but never asked Tether before running it. Likely cause: "
        + CAUSE.format(pre=pre, tools=names)
        + ". Run `tether doctor`."
    )


def summary(tallies: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Add up sessions' ``unguarded`` tallies: calls, sessions, calls per tool."""
    calls = sessions = 0
    per_tool: dict[str, int] = {}
    for tally in tallies:
        n = tally.get("n")
        if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
            continue
        calls += n
        sessions += 1
        tools = tally.get("tools")
        for name, count in tools.items() if isinstance(tools, Mapping) else ():
            if isinstance(count, int) and not isinstance(count, bool):
                per_tool[str(name)] = per_tool.get(str(name), 0) + count
    ordered = dict(sorted(per_tool.items(), key=lambda item: (-item[1], item[0])))
    return {"calls": calls, "sessions": sessions, "tools": ordered}


def sentence(total: Mapping[str, Any]) -> str:
    """Return the doctor's and stats' line: "N calls ran without a guard decision: …"."""
    calls, sessions = int(total["calls"]), int(total["sessions"])
    noun = "call" if calls == 1 else "calls"
    where = "1 session" if sessions == 1 else f"{sessions} sessions"
    tools = total["tools"]
    return (
        f"{calls} {noun} ran without a guard decision ({where}): {_tools(tools)}; likely cause: "
        + CAUSE.format(pre="PreToolUse / BeforeTool", tools=", ".join(tools) or "them")
    )


__all__ = ["notice", "sentence", "summary"]
