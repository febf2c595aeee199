"""Detectors are pure functions: a slice of state and thresholds in, a finding (or None) out."""

from __future__ import annotations

from typing import Any

import pytest

from tether.errors import ConfigError
from tether.loops import detectors as d
from tether.loops import progress
from tether.loops.records import AgentRounds, SigRecord, ToolStreak
from tether.loops.settings import DEFAULT_SETTINGS, LoopSettings, from_config
from tether.loops.state import new_record
from tether.model import Action

WARN_ONLY = DEFAULT_SETTINGS
HARD = DEFAULT_SETTINGS.with_(hard_stop=True)
A, W, B, H = Action.ALLOW, Action.WARN, Action.BLOCK, Action.HALT


def rec(kind: str, **values: Any) -> SigRecord:
    r = new_record("Bash", kind, "Bash x")
    r.update(values)
    return SigRecord(r)


def act(f: Any) -> Action:
    return A if f is None else f.action


# kind, same, before?, hard?, expected
NO_PROGRESS = [
    ("read", 1, False, True, A),
    ("read", 2, False, True, W),
    ("read", 4, True, True, W),
    ("read", 5, True, True, B),
    ("read", 5, False, True, W),  # after a call: the block comes before the next one
    ("read", 9, True, False, W),  # hard_stop off: warnings only
    ("tool", 2, False, True, A),  # unknown tools warn one later (queue polls, status tools)
    ("tool", 3, False, True, W),
    ("tool", 5, True, True, B),  # ... and block at the idempotent threshold
    ("exec", 3, False, True, A),
    ("exec", 4, False, True, W),
    ("exec", 5, True, True, W),
    ("exec", 6, True, True, B),
    ("write", 6, True, True, B),
    ("poll", 40, True, True, A),  # polls have their own budget
]


@pytest.mark.parametrize(("kind", "same", "before", "hard", "expected"), NO_PROGRESS)
def test_no_progress_ladder(
    kind: str, same: int, before: bool, hard: bool, expected: Action
) -> None:
    s = HARD if hard else WARN_ONLY
    f = d.no_progress(rec(kind, same=same), s, before=before)
    assert act(f) == expected
    if f is not None:
        assert f.code == ("TL201" if kind in ("read", "tool") else "TL202")
        assert f.count == same


EXACT = [(1, True, A), (2, False, W), (4, True, W), (5, True, B), (5, False, W)]


@pytest.mark.parametrize(("fails", "before", "expected"), EXACT)
def test_exact_failure_ladder(fails: int, before: bool, expected: Action) -> None:
    assert act(d.exact_failure(rec("exec", fails=fails), HARD, before=before)) == expected


def test_an_unchanged_failure_across_edits_warns_but_never_blocks() -> None:
    r = rec("exec", fails=1, stubborn=6)
    assert act(d.exact_failure(r, HARD, before=False)) == W
    assert act(d.exact_failure(r, HARD, before=True)) == A


# tool, count, hard, expected
SAME_TOOL = [
    ("send_message", 2, True, A),
    ("send_message", 3, True, W),
    ("send_message", 8, True, H),
    ("send_message", 8, False, W),
    ("Bash", 8, True, W),  # failure-tolerant: never halted
    ("Bash", 30, True, W),
]


@pytest.mark.parametrize(("tool", "count", "hard", "expected"), SAME_TOOL)
def test_same_tool_failure(tool: str, count: int, hard: bool, expected: Action) -> None:
    s = HARD if hard else WARN_ONLY
    assert act(d.same_tool_failure(tool, ToolStreak([count, "c1"]), s)) == expected


def w(*legs: str, kind: str = "read", status: str = "ok") -> list[list[Any]]:
    """A window from leg names: 'a' means signature a with result ra."""
    return [[n, f"c{n}", leg, "r" + leg, kind, status] for n, leg in enumerate(legs)]


CYCLES = [
    (w("a", "b", "a", "b"), (2, 2)),
    (w("a", "b", "a", "b", "a", "b", "a", "b"), (2, 4)),
    (w("x", "a", "b", "c", "a", "b", "c"), (3, 2)),
    (w("a", "b", "c", "d", "e", "f", "a", "b", "c", "d", "e", "f"), (6, 2)),
    (w("a", "b", "a", "c"), (0, 0)),
    (w("a", "a", "a", "a"), (0, 0)),  # period 1 belongs to the streak detectors
    (w("a", "b", "a", "b", kind="poll"), (0, 0)),  # a round of polls is a wait
    (w("a", "b", "a", "b", kind="act"), (0, 0)),  # an action lands on every lap
    (w("a", "b", "a", "b", status="blocked"), (0, 0)),
]


@pytest.mark.parametrize(("window", "expected"), CYCLES)
def test_cycle_laps(window: list[list[Any]], expected: tuple[int, int]) -> None:
    assert d.cycle_laps(window) == expected


def test_a_cycle_only_counts_with_identical_results() -> None:
    window = w("a", "b", "a", "b")
    window[-1][3] = "changed"
    assert d.cycle_laps(window) == (0, 0)


def test_cycle_blocks_only_the_call_that_continues_it() -> None:
    window = w(*"abababab")
    assert act(d.cycle(window, HARD, next_sig="a")) == B
    assert act(d.cycle(window, HARD, next_sig="z")) == A
    assert act(d.cycle(window, HARD)) == W


# same, seconds waited, before, expected
POLLS = [
    (9, 0.0, False, A),
    (10, 0.0, False, W),
    (5, 600.0, False, W),
    (60, 0, True, B),
    (20, 3600.0, True, B),
    (59, 3599.0, True, W),
]


@pytest.mark.parametrize(("same", "waited", "before", "expected"), POLLS)
def test_poll_budget(same: int, waited: float, before: bool, expected: Action) -> None:
    r = rec("poll", same=same, poll_s=waited)
    assert act(d.poll_budget(r, HARD, before=before)) == expected


TURN = [(59, A), (60, W), (61, A), (80, W), (120, W), (121, H)]


@pytest.mark.parametrize(("count", "expected"), TURN)
def test_turn_calls(count: int, expected: Action) -> None:
    assert act(d.turn_calls(count, HARD, before=True)) == expected


@pytest.mark.parametrize(("identical", "in_a_row", "expected"), [(2, 2, A), (3, 3, W), (1, 3, W)])
def test_monologue(identical: int, in_a_row: int, expected: Action) -> None:
    assert act(d.monologue(identical, in_a_row, HARD)) == expected


def test_warnings_off_silences_warnings_but_not_blocks() -> None:
    quiet = HARD.with_(warnings=False)
    assert d.no_progress(rec("read", same=3), quiet, before=False) is None
    assert act(d.no_progress(rec("read", same=5), quiet, before=True)) == B


def test_progress_warns_once_at_15_and_halts_at_25() -> None:
    s = DEFAULT_SETTINGS.with_(progress_enabled=True)
    row: list[Any] = [0, False]
    agent = AgentRounds(row)
    actions = [act(progress.record_round(agent, False, s)) for _ in range(25)]
    assert actions[:14] == [A] * 14
    assert actions[14] == W
    assert actions[15:24] == [A] * 9
    assert actions[24] == H
    assert progress.record_round(agent, True, s) is None
    assert row == [0, False]


@pytest.mark.parametrize(
    ("agent_id", "scope", "expected"),
    [("child", "subagents", "child"), (None, "subagents", None), (None, "all", "")],
)
def test_progress_scope(agent_id: str | None, scope: str, expected: str | None) -> None:
    s = DEFAULT_SETTINGS.with_(progress_enabled=True, progress_scope=scope)
    assert progress.watched(agent_id, s) == expected
    assert progress.watched(agent_id, DEFAULT_SETTINGS) is None  # off by default


BAD = [
    {"progress_warn_after": 25, "progress_halt_after": 25},
    {"progress_warn_after": 0},
    {"window": 1},
    {"hard_stop_after": {**DEFAULT_SETTINGS.hard_stop_after, "cycle": 1}},
    {"progress_scope": "everyone"},
]


@pytest.mark.parametrize("changes", BAD)
def test_invalid_settings_are_refused_with_the_key_named(changes: dict[str, Any]) -> None:
    with pytest.raises(ConfigError) as err:
        DEFAULT_SETTINGS.with_(**changes)
    assert "loops." in str(err.value) or "progress." in str(err.value)


def test_settings_come_from_config() -> None:
    from tether.config import DEFAULT_CONFIG

    cfg = DEFAULT_CONFIG.with_values(
        {
            "loops.hard_stop": True,
            "loops.warn_after.cycle": 3,
            "tools.read": ["my_lookup"],
            "tools.shell": {"run": "script"},
        }
    )
    s = from_config(cfg)
    assert isinstance(s, LoopSettings)
    assert s.hard_stop and s.warn("cycle") == 3
    assert "my_lookup" in s.tools.read and "Read" in s.tools.read  # config adds, never removes
    assert s.tools.shell["run"] == "script" and "run" in s.tools.failure_tolerant
    assert from_config(None) == DEFAULT_SETTINGS
