"""One decision, one message: merge loop findings and the approval verdict for a call.

The model gets the strictest action, every code, what repeated, how many times, since which
call, and one piece of advice (the strictest finding's), never a pile of separate notes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tether.loops.detectors import BY_CODE
from tether.model import ALLOW, Action, Decision, Finding

_HEADLINE = {
    Action.WARN: "Tether loop warning",
    Action.ASK: "Tether needs approval",
    Action.BLOCK: "Tether blocked this call",
    Action.HALT: "Tether stopped the agent",
}
_INSTEAD = {code: det.instead for code, det in BY_CODE.items()}
# An approval message's lead that the headline repeats ("Tether needs approval: Needs approval").
_LEAD = {Action.ASK: "needs approval:"}


def _since(f: Finding) -> str:
    since = f.evidence.get("since")
    return f" (since call {since})" if since else ""


def merge(
    findings: Sequence[Finding], approval: Decision | None = None, *, hard_stop: bool = False
) -> Decision:
    """Return one Decision for ``findings`` plus an optional approval decision."""
    live = approval if approval is not None and approval.action > Action.ALLOW else None
    if not findings and live is None:
        return ALLOW
    ordered = sorted(findings, key=lambda f: -int(f.action))
    action = max([f.action for f in ordered] + [live.action if live else Action.ALLOW])
    codes: list[str] = list(live.codes) if live else []
    for f in ordered:
        if f.code not in codes:
            codes.append(f.code)
    # The verdict on this very command comes first; the loop context follows.
    lead = _LEAD.get(action)
    said = live.message.rstrip(".") if live is not None and live.message else ""
    if lead and said.lower().startswith(lead):  # the headline says it already
        said = said[len(lead) :].lstrip()
    parts = [said] if said else []
    parts += [f"{f.message}{_since(f)} [{f.code} {f.name}]" for f in ordered]
    text = f"{_HEADLINE.get(action, 'Tether')}: " + "; ".join(parts) + "."
    if ordered:
        top = ordered[0]
        instead = top.evidence.get("instead") or _INSTEAD.get(top.code, "")
        text += f" Instead: {instead}."
        if top.action is Action.BLOCK:
            text += " Only this exact call is refused; other calls still run."
        elif top.action is Action.HALT:
            text += " Stop here and report to the user."
        elif hard_stop and top.evidence.get("hard_stop_after"):
            text += " Repeating it unchanged will be refused."
    evidence: dict[str, Any] = {
        "findings": [
            {
                "code": f.code,
                "name": f.name,
                "action": f.action.label,
                "count": f.count,
                **{k: v for k, v in f.evidence.items() if v not in (None, "")},
            }
            for f in ordered
        ]
    }
    if live is not None:
        evidence["approval"] = dict(live.evidence)
    return Decision(action, tuple(codes), text, evidence)
