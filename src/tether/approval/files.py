"""The approval decision for a non-shell tool call that would change Tether's guard files.

A Write/Edit, apply_patch or MCP ``write_file`` onto a host's hook settings or Tether's config,
state or cache is rule DG605, exactly as the shell form is: the same policy decides (ask; block
when unattended; ``approvals.mode: off`` or a disabled DG605 lets it run), with the same codes
and advice, so the model reads one story whatever tool it used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tether.approval import Review
from tether.approval.policy import Evaluation, Policy, decide
from tether.classify import Classification
from tether.rules import get_rule
from tether.rules.base import Danger

if TYPE_CHECKING:
    from tether.config.core import Config

CODE = "DG605"
_SHOWN = 3  # paths quoted in the reason
_PATH_CHARS = 160


def _quote(path: str) -> str:
    text = path if len(path) <= _PATH_CHARS else path[:_PATH_CHARS] + "…"
    return repr(text)  # one line: newlines, controls and bidi marks come out escaped


def review_files(
    tool: str,
    hits: Sequence[tuple[str, str]],
    config: Config | None = None,
    *,
    unattended: bool = False,
) -> Review:
    """Return the review of ``tool`` changing the guard files in ``hits`` (path, what)."""
    rule = get_rule(CODE)
    assert rule is not None
    shown = "; ".join(f"{_quote(path)} ({what})" for path, what in hits[:_SHOWN])
    more = f" and {len(hits) - _SHOWN} more" if len(hits) > _SHOWN else ""
    classification = Classification(
        command=f"{tool} {hits[0][0]}",
        read_only=False,
        codes=(),
        reason="",
        danger=Danger.ASK,
        danger_codes=(CODE,),
        danger_reason=f"{CODE} {rule.name}: {tool} changes {shown}{more}",
        instead=rule.instead,
    )
    decision = decide(Evaluation(classification), Policy.from_config(config), unattended=unattended)
    return Review(classification, decision)


__all__ = ["review_files"]
