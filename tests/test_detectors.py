"""Detectors are pure functions: ``check(window, event, settings)`` in, a finding (or None) out."""

from __future__ import annotations

from typing import Any

import pytest

from tether.errors import ConfigError
from tether.loops import progress
from tether.loops.detectors import (
    BY_KEY,
    Event,
    Window,
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
from tether.loops.records import AgentRounds, Echo, FileState, Session, SigRecord, ToolStreak
from tether.loops.settings import DEFAULT_SETTINGS, LoopSettings, from_config
from tether.loops.state import new_record, new_state
from tether.model import Action, Finding

WARN_ONLY = DEFAULT_SETTINGS
HARD = DEFAULT_SETTINGS.with_(hard_stop=True)
A, W, B, H = Action.ALLOW, Action.WARN, Action.BLOCK, Action.HALT
NO_WINDOW = Window(())


def session(**values: Any) -> Session:
    state = new_state()
    state.update(values)
    return Session(state)


def rec(kind: str, **values: Any) -> SigRecord:
    r = new_record("Bash", kind, "Bash x")
    r.update(values)
    return SigRecord(r)


def ev(before: bool = False, **fields: Any) -> Event:
    fields.setdefault("session", session())
    return Event(before, **fields)


def act(f: Finding | None) -> Action:
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
    ("pause", 40, True, True, A),  # a bare `sleep N` is never a loop of its own
]


@pytest.mark.parametrize(("kind", "same", "before", "hard", "expected"), NO_PROGRESS)
def test_no_progress_ladder(
    kind: str, same: int, before: bool, hard: bool, expected: Action
) -> None:
    s = HARD if hard else WARN_ONLY
    e = ev(before, rec=rec(kind, same=same))
    found = [
        idempotent_no_progress.check(NO_WINDOW, e, s),
        mutating_no_progress.check(NO_WINDOW, e, s),
    ]
    live = [f for f in found if f is not None]
    assert max((f.action for f in live), default=A) == expected
    for f in live:
        assert f.code == ("TL201" if kind in ("read", "tool") else "TL202")
        assert f.count == same


@pytest.mark.parametrize(("same", "expected"), [(10, A), (11, W), (12, B)])
def test_a_rerun_count_the_user_asked_for_is_honoured(same: int, expected: Action) -> None:
    e = ev(True, rec=rec("exec", same=same), session=session(reruns=10))
    assert act(mutating_no_progress.check(NO_WINDOW, e, HARD)) == expected


EXACT = [(1, True, A), (2, False, W), (4, True, W), (5, True, B), (5, False, W)]


@pytest.mark.parametrize(("fails", "before", "expected"), EXACT)
def test_exact_failure_ladder(fails: int, before: bool, expected: Action) -> None:
    e = ev(before, rec=rec("exec", fails=fails), failed=not before)
    assert act(exact_failure.check(NO_WINDOW, e, HARD)) == expected


def test_an_unchanged_failure_across_edits_warns_but_never_blocks() -> None:
    r = rec("exec", fails=1, stubborn=6)
    assert act(exact_failure.check(NO_WINDOW, ev(False, rec=r, failed=True), HARD)) == W
    assert act(exact_failure.check(NO_WINDOW, ev(True, rec=r), HARD)) == A


# tool, count, hard, expected
SAME_TOOL = [
    ("send_message", 2, True, A),
    ("send_message", 3, True, W),
    ("send_message", 8, True, H),
    ("Bash", 8, True, W),  # failure-tolerant: never halted
    ("Bash", 30, True, W),
]


@pytest.mark.parametrize(("tool", "count", "hard", "expected"), SAME_TOOL)
def test_same_tool_failure(tool: str, count: int, hard: bool, expected: Action) -> None:
    e = ev(False, tool=tool, failed=True, streak=ToolStreak([count, "c1"]))
    assert act(same_tool_failure.check(NO_WINDOW, e, HARD if hard else WARN_ONLY)) == expected


def w(*legs: str, kind: str = "read", status: str = "ok") -> list[list[Any]]:
    """A window from leg names: 'a' means signature a with result ra."""
    return [[n, f"c{n}", leg, "r" + leg, kind, status] for n, leg in enumerate(legs)]


CYCLES = [
    (w("a", "b", "a", "b"), (2, 2)),
    (w("a", "b", "a", "b", "a", "b", "a", "b"), (2, 4)),
    (w("x", "a", "b", "c", "a", "b", "c"), (3, 2)),
    (w(*"abcdef" * 2), (6, 2)),
    (w(*"abcdefghijklmnop" * 2), (16, 2)),  # period 16
    (w(*"abcdefghijklmnopq" * 2), (0, 0)),  # 17 is past the longest period looked for
    (w("a", "b", "a", "c"), (0, 0)),
    (w("a", "a", "a", "a"), (0, 0)),  # period 1 belongs to the streak detectors
    (w("a", "b", "a", "b", kind="poll"), (0, 0)),  # a round of polls is a wait
    (w("a", "b", "a", "b", kind="act"), (0, 0)),  # an action lands on every lap
    (w("a", "b", "a", "b", kind="pause"), (0, 0)),  # `sleep N` between checks
    (w("a", "b", "a", "b", status="blocked"), (0, 0)),
]


@pytest.mark.parametrize(("window", "expected"), CYCLES)
def test_cycle_laps(window: list[list[Any]], expected: tuple[int, int]) -> None:
    assert cycle.laps(window) == expected


def test_a_cycle_only_counts_with_identical_results() -> None:
    window = w("a", "b", "a", "b")
    window[-1][3] = "changed"
    assert cycle.laps(window) == (0, 0)


def test_a_leg_whose_output_only_grew_still_repeats() -> None:
    window = w(*"abcabc")
    window[-1][3] = "longer log"
    window[-1].append(1)  # grew: the new output extends the last one
    assert cycle.laps(window) == (3, 2)
    every = w(*"abab")
    for entry in every:
        entry.append(1)
    assert cycle.laps(every) == (0, 0)  # every leg produced more: something is being made


def test_cycle_blocks_only_the_call_that_continues_it() -> None:
    window = w(*"abababab")
    assert act(cycle.check(Window(window, "a"), ev(True), HARD)) == B
    assert act(cycle.check(Window(window, "z"), ev(True), HARD)) == A
    assert act(cycle.check(Window(window), ev(False), HARD)) == W


def test_a_long_cycle_warns_one_lap_later() -> None:
    assert act(cycle.check(Window(w(*"abcdefgh" * 2)), ev(False), HARD)) == A
    assert act(cycle.check(Window(w(*"abcdefgh" * 3)), ev(False), HARD)) == W


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
    e = ev(before, rec=rec("poll", same=same, poll_s=waited))
    assert act(poll_budget.check(NO_WINDOW, e, HARD)) == expected


TURN = [(59, A), (60, W), (61, A), (80, W), (120, W), (121, H)]


@pytest.mark.parametrize(("count", "expected"), TURN)
def test_turn_calls(count: int, expected: Action) -> None:
    assert (
        act(turn_calls.check(NO_WINDOW, ev(True, session=session(turn_calls=count)), HARD))
        == expected
    )


@pytest.mark.parametrize(("identical", "in_a_row", "expected"), [(2, 2, A), (3, 3, W), (1, 3, W)])
def test_monologue(identical: int, in_a_row: int, expected: Action) -> None:
    e = ev(False, session=session(talk=["x", identical, in_a_row]))
    assert act(monologue.check(NO_WINDOW, e, HARD)) == expected


def test_a_third_refusal_of_the_same_call_halts() -> None:
    block = idempotent_no_progress.check(NO_WINDOW, ev(True, rec=rec("read", same=5)), HARD)
    assert block is not None and block.action is B
    for refused, expected in ((1, A), (2, H)):
        e = ev(True, rec=rec("read", same=5, blocked=refused), findings=(block,))
        assert act(repeated_block.check(NO_WINDOW, e, HARD)) == expected


@pytest.mark.parametrize(
    ("returns", "before", "would", "expected"),
    [
        (1, False, False, A),
        (2, False, False, W),
        (3, True, True, B),
        (3, True, False, A),
    ],
)
def test_flip_flop(returns: int, before: bool, would: bool, expected: Action) -> None:
    f = FileState({"returns": returns}, "src/a.py")
    f.would_return = would or not before
    assert act(flip_flop.check(NO_WINDOW, ev(before, file=f), HARD)) == expected


@pytest.mark.parametrize(
    ("passes", "before", "expected"), [(1, False, A), (2, False, W), (4, True, B)]
)
def test_reread_passes(passes: int, before: bool, expected: Action) -> None:
    e = ev(before, rec=rec("read", passes=passes))
    assert act(reread.check(NO_WINDOW, e, HARD)) == expected


@pytest.mark.parametrize(("count", "expected"), [(2, A), (3, W), (30, W)])
def test_same_result_across_arguments_only_warns(count: int, expected: Action) -> None:
    e = ev(False, tool="WebSearch", echo=Echo(["r", count, "c1", "s"]))
    assert act(same_result.check(NO_WINDOW, e, HARD)) == expected


def test_warnings_off_silences_warnings_but_not_blocks() -> None:
    quiet = HARD.with_(warnings=False)
    assert (
        idempotent_no_progress.check(NO_WINDOW, ev(False, rec=rec("read", same=3)), quiet) is None
    )
    e = ev(True, rec=rec("read", same=5))
    assert act(idempotent_no_progress.check(NO_WINDOW, e, quiet)) == B


def test_no_convergence_warns_once_at_15_and_halts_at_25() -> None:
    s = DEFAULT_SETTINGS.with_(progress_enabled=True)
    assert act(no_convergence.check(NO_WINDOW, ev(agent=AgentRounds([14, False])), s)) == A
    assert act(no_convergence.check(NO_WINDOW, ev(agent=AgentRounds([15, False])), s)) == W
    assert act(no_convergence.check(NO_WINDOW, ev(agent=AgentRounds([16, True])), s)) == A
    assert act(no_convergence.check(NO_WINDOW, ev(agent=AgentRounds([25, True])), s)) == H
    # progress that stands: the files reached their state at round 20
    moved = AgentRounds([25, True, 0, {"0": 0, "t1": 20}], tree="t1")
    assert act(no_convergence.check(NO_WINDOW, ev(agent=moved), s)) == A
    # ... and a revert back to round 0's tree takes it back
    reverted = AgentRounds([25, True, 0, {"0": 0, "t1": 20}], tree="0")
    assert act(no_convergence.check(NO_WINDOW, ev(agent=reverted), s)) == H


def test_new_text_is_progress_filler_is_not() -> None:
    agent = AgentRounds([0, False])
    report = "The parser drops the trailing byte when the frame length is a multiple of eight."
    assert progress.absorb(agent, progress.words(report))
    assert not progress.absorb(agent, progress.words(report))  # said before
    assert not progress.absorb(agent, progress.words("Let me keep looking at the next file."))


@pytest.mark.parametrize(
    ("agent_id", "scope", "expected"),
    [("child", "subagents", "child"), (None, "subagents", None), (None, "all", "")],
)
def test_progress_scope(agent_id: str | None, scope: str, expected: str | None) -> None:
    s = DEFAULT_SETTINGS.with_(progress_enabled=True, progress_scope=scope)
    assert progress.watched(agent_id, s) == expected
    assert progress.watched(agent_id, DEFAULT_SETTINGS) is None  # off by default


def test_every_detector_is_pure_and_answers_none_when_nothing_happened() -> None:
    for d in BY_KEY.values():
        for before in (True, False):
            assert d.check(NO_WINDOW, ev(before), HARD) is None, d.key


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
