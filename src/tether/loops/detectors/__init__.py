"""The loop detectors: one module each, run by the guard as a pipeline.

Each module declares its ``DETECTOR`` (code, name, config key, defaults, the text of its
`tether rules` entry and docs row) and its pure ``check``. ``ALL`` is the pipeline in the order
the guard runs it; the config schema, `tether rules`, docs/loops.md and the replay report all
read these declarations (see ``_base``).
"""

from __future__ import annotations

from tether.loops.detectors import (
    cycle,
    exact_failure,
    flip_flop,
    idempotent_no_progress,
    monologue,
    mutating_no_progress,
    no_convergence,
    poll_budget,
    repeated_block,
    reread,
    same_result,
    same_tool_failure,
    turn_calls,
)
from tether.loops.detectors._base import (
    AFTER,
    BEFORE,
    MESSAGE,
    POST,
    Detector,
    Event,
    Window,
    finding,
    ladder,
)

ALL: tuple[Detector, ...] = tuple(
    m.DETECTOR
    for m in (
        turn_calls,
        exact_failure,
        idempotent_no_progress,
        mutating_no_progress,
        poll_budget,
        same_tool_failure,
        cycle,
        flip_flop,
        reread,
        same_result,
        no_convergence,
        monologue,
        repeated_block,
    )
)
BY_KEY: dict[str, Detector] = {d.key: d for d in ALL}
BY_CODE: dict[str, Detector] = {d.code: d for d in ALL}
# The pipelines, in declaration order.
ON_BEFORE = tuple(d for d in ALL if BEFORE in d.phases)
ON_AFTER = tuple(d for d in ALL if AFTER in d.phases)
ON_MESSAGE = tuple(d for d in ALL if MESSAGE in d.phases)
ON_POST = tuple(d for d in ALL if POST in d.phases)
# Detectors with thresholds under loops.warn_after.* / loops.hard_stop_after.*.
THRESHOLDS: tuple[Detector, ...] = tuple(d for d in ALL if d.warn_after is not None)

TABLE_HEAD = "| code | name | fires when | warn | hard stop |\n|---|---|---|---|---|"


def docs_table() -> str:
    """Return the detector table of docs/loops.md, from the declarations (a test compares)."""
    rows = [TABLE_HEAD]
    for d in sorted(ALL, key=lambda d: d.code):
        rows.append(f"| {d.code} | {d.name} | {d.fires} | {d.warn_text} | {d.stop_text} |")
    return "\n".join(rows)


__all__ = [
    "ALL",
    "BY_CODE",
    "BY_KEY",
    "MESSAGE",
    "ON_AFTER",
    "ON_BEFORE",
    "ON_MESSAGE",
    "ON_POST",
    "THRESHOLDS",
    "Detector",
    "Event",
    "Window",
    "docs_table",
    "finding",
    "ladder",
]
