"""The Guard end to end: state in a store, turn boundaries, the ladder, merged messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tether.config import DEFAULT_CONFIG
from tether.guard import Guard
from tether.loops.messages import merge
from tether.model import Action, Decision, Finding, ToolCall, ToolResult
from tether.store.memory import MemoryStore
from tether.store.sqlite import SQLiteStore

HARD = DEFAULT_CONFIG.with_values({"loops.hard_stop": True})
PROGRESS = DEFAULT_CONFIG.with_values({"loops.hard_stop": True, "progress.enabled": True})
GH = "gh api repos/acme/widget/pulls/42/reviews 2>&1"


class Session:
    """Feeds calls to a guard the way a host does: before, run, after."""

    def __init__(self, guard: Guard, sid: str = "s1") -> None:
        self.guard, self.sid, self.n, self.t = guard, sid, 0, 1_700_000_000.0

    def call(
        self,
        tool: str,
        args: dict[str, Any],
        output: Any = "ok",
        code: int | None = None,
        agent: str | None = None,
        gap: float = 2.0,
    ) -> Action:
        self.n += 1
        self.t += gap
        call = ToolCall(self.sid, tool, args, f"call_{self.n}", agent, self.t)
        before = self.guard.before_call(call)
        if not before.allowed:
            return before.action
        after = self.guard.after_call(ToolResult(call, output, code, bool(code), self.t + 1))
        return max(before.action, after.action)

    def state(self) -> dict[str, Any]:
        loaded = self.guard.store.load(self.sid)
        assert loaded is not None
        return loaded


def test_state_keys_are_always_there_and_json_ready() -> None:
    s = Session(Guard())
    s.call("Read", {"file_path": "a"})
    state = s.state()
    for key, kind in [("calls", int), ("warnings", int), ("blocks", int), ("streaks", dict)]:
        assert isinstance(state[key], kind)
    assert isinstance(state["updated"], float)
    assert json.loads(json.dumps(state)) == state


def test_state_stays_small_however_long_the_session() -> None:
    s = Session(Guard())
    for n in range(3000):
        s.call("Bash", {"command": f"cat file_{n}.txt"}, "x" * 1000)
    state = s.state()
    assert state["calls"] == 3000
    assert len(state["window"]) <= 64 and len(state["sigs"]) <= 64 + 16
    assert len(json.dumps(state)) < 60_000


def test_a_read_only_shell_loop_warns_then_blocks_then_halts() -> None:
    s = Session(Guard(HARD))
    actions = [s.call("Bash", {"command": GH}, "[]", 0) for _ in range(9)]
    assert actions == [Action.ALLOW] + [Action.WARN] * 4 + [Action.BLOCK] * 2 + [Action.HALT] * 2
    state = s.state()
    assert state["blocks"] == 4 and state["warnings"] == 4
    assert state["streaks"]["idempotent_no_progress"] == 5


def test_only_the_exact_call_is_refused() -> None:
    s = Session(Guard(HARD))
    for _ in range(6):
        s.call("Bash", {"command": GH}, "[]", 0)
    assert s.call("Bash", {"command": "gh pr view 42"}, "open", 0) == Action.ALLOW


def test_without_hard_stop_nothing_is_ever_blocked() -> None:
    s = Session(Guard())
    actions = {s.call("Bash", {"command": GH}, "[]", 0) for _ in range(40)}
    assert actions == {Action.ALLOW, Action.WARN}


def test_a_user_turn_restarts_the_counts() -> None:
    s = Session(Guard(HARD))
    for _ in range(4):
        s.call("Read", {"file_path": "a"}, "same")
    s.guard.user_message("s1", "try again")
    assert s.call("Read", {"file_path": "a"}, "same") == Action.ALLOW
    assert s.state()["turn"] == 1


def test_a_changed_result_restarts_the_streak() -> None:
    s = Session(Guard(HARD))
    outputs = ["[]"] * 4 + ['[{"state": "APPROVED"}]'] + ["[]"] * 4
    assert max(s.call("Bash", {"command": GH}, o, 0) for o in outputs) == Action.WARN


def test_state_persists_in_sqlite_across_guards(tmp_path: Path) -> None:
    """Each hook process builds a new Guard; the store alone must carry the streak."""
    path = tmp_path / "state.db"
    actions = []
    for n in range(7):
        store = SQLiteStore(path)
        try:
            session = Session(Guard(HARD, store))
            session.n = n  # ids go on: a host never reuses one (a repeated id is a duplicate)
            actions.append(session.call("Bash", {"command": GH}, "[]", 0))
        finally:
            store.close()
    # A fresh Guard per call, but the state keeps the streak: call 6 is blocked.
    assert actions[:5] == [Action.ALLOW] + [Action.WARN] * 4
    assert actions[5] == Action.BLOCK


def test_a_dangerous_command_is_refused_by_the_approval_policy() -> None:
    s = Session(Guard(HARD, unattended=True))
    call = ToolCall("s1", "Bash", {"command": "rm -rf /"}, "x1")
    decision = s.guard.before_call(call)
    assert decision.action >= Action.BLOCK and decision.codes
    # The host might still report a result for it: it must not count as a run.
    assert s.guard.after_call(ToolResult(call, "", 0)).action == Action.ALLOW
    assert s.state()["blocks"] == 1


def test_findings_and_approval_merge_into_one_message() -> None:
    finding = Finding("TL201", "idempotent-no-progress", Action.BLOCK, "`x` repeated", 5)
    approval = Decision(Action.ASK, ("DG101",), "Needs approval: deletes files.")
    merged = merge([finding], approval)
    assert merged.action == Action.BLOCK
    assert merged.codes == ("DG101", "TL201")
    assert "Needs approval" in merged.message and "TL201" in merged.message
    assert merged.message.count("Instead:") == 1
    assert [f["code"] for f in merged.evidence["findings"]] == ["TL201"]


def test_after_call_alone_still_counts() -> None:
    g = Guard(HARD)
    for n in range(3):
        call = ToolCall("s2", "Read", {"file_path": "a"}, f"c{n}")
        last = g.after_call(ToolResult(call, "same"))
    assert last.action == Action.WARN
    state = g.store.load("s2")
    assert state is not None and state["calls"] == 3


def test_identical_calls_a_minute_apart_are_a_wait_not_a_loop() -> None:
    s = Session(Guard(HARD))
    actions = [
        s.call("Bash", {"command": "gh pr checks 42"}, "pending", 0, gap=60) for _ in range(12)
    ]
    assert max(actions) < Action.BLOCK


def test_repeated_identical_messages_are_a_monologue() -> None:
    g = Guard()
    actions = [g.assistant_message("s3", "I will now fix it.").action for _ in range(3)]
    assert actions == [Action.ALLOW, Action.ALLOW, Action.WARN]
    Session(g, "s3").call("Read", {"file_path": "a"})
    assert g.assistant_message("s3", "I will now fix it.").action == Action.ALLOW


def test_a_subagent_that_only_reads_is_warned_then_halted() -> None:
    s = Session(Guard(PROGRESS))
    s.guard.subagent_start("s1", "child")
    actions = [
        s.call("Read", {"file_path": f"f{n}"}, f"content {n}", agent="child") for n in range(25)
    ]
    assert actions[13] == Action.ALLOW and actions[14] == Action.WARN
    assert actions[24] == Action.HALT
    codes = s.guard.after_call(
        ToolResult(ToolCall("s1", "Read", {"file_path": "g"}, "z", "child"), "more")
    ).codes
    assert "TL210" in codes


FINDINGS = [
    "The parser drops the trailing byte when the frame length is a multiple of eight.",
    "Config loading happens twice: settings.py caches nothing between worker restarts.",
    "Retries ignore the backoff jitter because the scheduler rounds delays to seconds.",
    "Three endpoints share one mutable default dictionary, which leaks headers across requests.",
]


def test_new_text_or_a_write_is_progress_for_a_subagent() -> None:
    s = Session(Guard(PROGRESS))
    for n in range(40):
        if n % 10 == 9:
            s.guard.assistant_message("s1", FINDINGS[n // 10], agent_id="child")
        action = s.call("Read", {"file_path": f"f{n}"}, f"c{n}", agent="child")
        assert action < Action.WARN, n
    for n in range(14):
        s.call("Read", {"file_path": f"g{n}"}, f"d{n}", agent="child")
    assert (
        s.call(
            "Edit", {"file_path": "x", "old_string": "a", "new_string": "b"}, "ok", agent="child"
        )
        == Action.ALLOW
    )
    assert s.call("Read", {"file_path": "h"}, "e", agent="child") == Action.ALLOW


def test_filler_or_repeated_text_is_not_progress_for_a_subagent() -> None:
    s = Session(Guard(PROGRESS))
    fillers = ["Let me keep looking.", "Now checking the next file.", "Found 3 things so far."]
    actions = []  # one per round: a call or a message
    for n in range(20):
        if n % 3 == 2:
            text = fillers[(n // 3) % 3]
            actions.append(s.guard.assistant_message("s1", text, agent_id="child").action)
        actions.append(s.call("Read", {"file_path": f"f{n}"}, f"c{n}", agent="child"))
    assert actions.index(Action.WARN) == 14  # the 15th round: the fillers said nothing new


def _edit_then_maybe_revert(revert: bool) -> list[Action]:
    # approvals off: `git checkout -- f` discards work, which would otherwise ask a human first.
    s = Session(Guard(PROGRESS.with_values({"approvals.mode": "off"})))
    edit = {"file_path": "src/a.py", "old_string": "x = 1", "new_string": "x = 2"}
    actions = []
    for n in range(24):
        if n == 10:
            done = "The file src/a.py has been updated."
            actions.append(s.call("Edit", edit, done, agent="child"))
        elif n == 12 and revert:
            cmd = {"command": "git checkout -- src/a.py"}
            actions.append(s.call("Bash", cmd, "Updated 1 path from the index", 0, agent="child"))
        else:
            actions.append(s.call("Read", {"file_path": f"f{n}"}, f"c{n}", agent="child"))
    return actions


def test_a_write_a_later_git_checkout_reverts_is_no_progress_for_a_subagent() -> None:
    reverted = _edit_then_maybe_revert(True)
    assert Action.WARN in reverted and reverted.index(Action.WARN) == 14  # as if never written
    assert Action.WARN not in _edit_then_maybe_revert(False)  # the kept edit restarted the count


def test_progress_is_off_by_default_and_scoped_to_subagents() -> None:
    off = Session(Guard(HARD))
    main = Session(Guard(PROGRESS))
    for n in range(30):
        assert off.call("Read", {"file_path": f"f{n}"}, f"c{n}", agent="child") == Action.ALLOW
        assert main.call("Read", {"file_path": f"f{n}"}, f"c{n}") == Action.ALLOW


def test_subagent_stop_forgets_the_child() -> None:
    g = Guard(PROGRESS)
    g.subagent_start("s4", "kid")
    state = g.store.load("s4")
    assert state is not None and "kid" in state["agents"]
    g.subagent_stop("s4", "kid")
    state = g.store.load("s4")
    assert state is not None and "kid" not in state["agents"]


@pytest.mark.parametrize("store", [MemoryStore()])
def test_the_default_store_is_in_memory(store: MemoryStore) -> None:
    assert isinstance(Guard().store, MemoryStore)
    assert Guard(store=store).store is store


def test_a_wait_is_budgeted_by_the_seconds_it_sleeps() -> None:
    """No timestamps (a replay): `sleep 120 && …` still counts 120 s per poll toward 3600 s."""
    cfg = DEFAULT_CONFIG.with_values({"loops.hard_stop": True, "loops.poll.max_count": 1000})
    g = Guard(cfg)
    actions = []
    for n in range(40):
        call = ToolCall("s5", "Bash", {"command": "sleep 120 && gh run view 7"}, f"p{n}")
        before = g.before_call(call)
        actions.append(before.action)
        if before.allowed:
            after = g.after_call(ToolResult(call, "in progress", 0))
            actions[-1] = max(before.action, after.action)
    first_block = actions.index(Action.BLOCK) + 1
    assert 30 <= first_block <= 32  # 3600 s / 120 s = 30 identical polls after the first
    assert Action.WARN in actions[:first_block]


def test_an_asked_call_that_ran_is_still_recorded() -> None:
    g = Guard(HARD)
    actions = []
    for n in range(3):
        call = ToolCall("s6", "Bash", {"command": "git push --force origin main"}, f"k{n}")
        before = g.before_call(call)
        assert before.action == Action.ASK and "TL" not in "".join(before.codes[:1])
        actions.append(g.after_call(ToolResult(call, "! [rejected] (fetch first)", 1)).action)
    assert actions == [Action.ALLOW, Action.WARN, Action.WARN]  # exact failure replay
    state = g.store.load("s6")
    assert state is not None and state["calls"] == 3 and state["blocks"] == 0


def test_an_approval_verdict_and_a_loop_finding_make_one_decision() -> None:
    g = Guard(HARD)
    for n in range(3):
        call = ToolCall("s7", "Bash", {"command": "git push --force origin main"}, f"k{n}")
        decision = g.before_call(call)
        g.after_call(ToolResult(call, "! [rejected] (fetch first)", 1))
    assert decision.action == Action.ASK
    assert decision.codes[-1] == "TL203" and any(c.startswith("DG") for c in decision.codes)
    assert decision.message.index("git push") < decision.message.index("TL203")


# --- no classification inside the store's write lock ------------------------------------------


class LockWatchingStore(MemoryStore):
    """A MemoryStore that says whether an update (the write lock, in SQLite) is in progress."""

    def __init__(self) -> None:
        super().__init__()
        self.updating = False

    def update(self, session_id: str, fn: Any) -> Any:
        def inside(state: Any) -> Any:
            self.updating = True
            try:
                return fn(state)
            finally:
                self.updating = False

        return super().update(session_id, inside)


@pytest.mark.parametrize("seen_before", [True, False])
def test_shell_commands_are_classified_outside_the_store_update(
    seen_before: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With 8 hook processes on 2 cores, classifying inside SQLite's BEGIN IMMEDIATE made the
    # others wait past the busy timeout and fail closed: every review must happen outside.
    import tether.approval

    store = LockWatchingStore()
    real = tether.approval.review
    reviews: list[bool] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        reviews.append(store.updating)
        return real(*args, **kwargs)

    monkeypatch.setattr(tether.approval, "review", watched)
    guard = Guard(HARD, store)
    call = ToolCall("s-lock", "Bash", {"command": "git status && ls -la"}, "c1", None, 1.0)
    if seen_before:
        assert guard.before_call(call).action is Action.ALLOW
    guard.after_call(ToolResult(call, "clean", 0, False, 2.0))
    assert reviews == [False]  # classified exactly once, and not while the update ran
    state = store.load("s-lock")
    assert state is not None and state["calls"] == 1


def test_a_before_call_retried_after_its_result_counts_nothing_and_is_still_reviewed() -> None:
    # A host retrying an abandoned PreToolUse after the call ran (same tool_use_id): on the old
    # guard it was counted as a new call and stayed pending forever.
    g = Guard(HARD)
    call = ToolCall("s9", "Bash", {"command": "ls -la"}, "toolu_1")
    assert g.before_call(call).allowed
    g.after_call(ToolResult(call, "a b c", 0))
    assert g.before_call(call).action is Action.ALLOW
    state = g.store.load("s9")
    assert state is not None and state["calls"] == 1 and state["pending"] == {}
    # The id already finished, yet a dangerous command sent under it is still judged.
    bad = ToolCall("s9", "Bash", {"command": "git push --force origin main"}, "toolu_1")
    assert g.before_call(bad).action is Action.ASK
