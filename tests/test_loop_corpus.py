"""The loop guard against the peers' own test vectors and real recorded sessions.

Peer scenarios (``../shared/corpus/peers/loop_scenarios.jsonl`` and
``hermes_loop_scenarios.jsonl``) run through a real Guard with ``loops.hard_stop`` on: at least
95% of ``should_flag`` scenarios must be flagged (warn or stronger) and no ``should_not_flag``
scenario may be blocked. Every scenario we flag differently from the peer is listed, with a
reason, in ``tests/data/loop_divergences.json``; the list must match exactly, so a change in
behaviour is a decision, not an accident.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tether.config import DEFAULT_CONFIG
from tether.guard import Guard
from tether.model import Action, ToolCall, ToolResult
from tether.replay import load, replay
from tether.replay.formats import split_result

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
PEERS = CORPUS / "peers"
TRAJECTORIES = CORPUS / "real" / "trajectories"
DIVERGENCES = json.loads((ROOT / "tests" / "data" / "loop_divergences.json").read_text())

if not PEERS.is_dir() or not TRAJECTORIES.is_dir():  # fail loudly: CI lays shared/ beside us
    raise RuntimeError(f"corpus missing: expected {PEERS} and {TRAJECTORIES}")

# Peer tools that are shells under another name: telling the guard so is ordinary config.
SCENARIO_SHELLS = {"cmd": "command", "exec": "command", "terminal": "command"}


def _config(**values: Any) -> Any:
    shell = dict(DEFAULT_CONFIG.get("tools.shell"))
    shell.update(SCENARIO_SHELLS)
    return DEFAULT_CONFIG.with_values({"tools.shell": shell, **values})


HARD = _config(**{"loops.hard_stop": True})


def _peer_config(peer: Mapping[str, Any] | None) -> Any:
    """Translate a peer's explicit setting when Tether has the same knob, else use defaults.

    Only LangChain's call caps qualify: ``run_limit``/``thread_limit`` N trip on call N+1,
    which is ``loops.warn_after.turn_calls`` = ``hard_stop_after.turn_calls`` = N+1 here.
    Roo's ``limit: 0`` (detection off) is ``loops.hard_stop: false``. Every other scenario
    runs on Tether's defaults with hard stops on.
    """
    peer = peer or {}
    if peer.get("limit") == 0:  # Roo's "0 = unlimited": the user switched blocking off
        return _config(**{"loops.hard_stop": False})
    limits = [v for k, v in peer.items() if k in ("run_limit", "thread_limit")]
    if not limits:
        return HARD
    n = min(limits) + 1
    return _config(
        **{
            "loops.hard_stop": True,
            "loops.warn_after.turn_calls": n,
            "loops.hard_stop_after.turn_calls": n,
        }
    )


def _scenarios() -> Iterator[dict[str, Any]]:
    for line in (PEERS / "loop_scenarios.jsonl").read_text().splitlines():
        obj = json.loads(line)
        yield {
            "name": obj["name"],
            "kind": obj["kind"],
            "events": obj["events"],
            "config": _peer_config(obj.get("peer_config")),
        }
    for line in (PEERS / "hermes_loop_scenarios.jsonl").read_text().splitlines():
        obj = json.loads(line)
        name = "hermes:" + obj["name"]
        yield {
            "name": name,
            "kind": "out_of_scope" if name in DIVERGENCES["out_of_scope"] else hermes_kind(obj),
            "events": obj["calls"],
            "config": HARD,
        }


# Hermes's scenarios carry no label, only what its test asserts (`expect`): a warning, notice,
# result stub, block or halt at some call means hermes flags it; "every call allows", "no
# halt", "no notice" (and nothing positive) means it does not.
_FLAGS = re.compile(
    r"(?<![a-z_])(?:warns?|block|halt|notices?|stub)(?![a-z_])|halt_decision code|should_halt=true"
)
_NEGATED = re.compile(r"\b(?:no|never|nor|not|none)\b")
_ALL_ALLOWED = re.compile(r"\bevery\b[^;]*\ballows?\b")


def hermes_kind(scenario: Mapping[str, Any]) -> str:
    """Return should_flag / should_not_flag as hermes's own expectation text states it."""
    text = str(scenario["expect"]).lower()
    if _ALL_ALLOWED.search(text):
        return "should_not_flag"
    for clause in re.split(r"[;():]", text):
        for m in _FLAGS.finditer(clause):
            negated = _NEGATED.search(clause[: m.start()]) or clause[m.end() :].startswith(" none")
            if not negated or " until " in clause:  # "no notice until the 3rd call"
                return "should_flag"
    return "should_not_flag"


SCENARIOS = list(_scenarios())


def run_events(events: list[Mapping[str, Any]], config: Any = HARD) -> list[Action]:
    """Drive a Guard through scenario events; return every decision's action, in order."""
    guard = Guard(config)
    sid = "scenario"
    actions: list[Action] = []
    for n, ev in enumerate(events):
        tool = ev.get("tool")
        api = str(ev.get("api", "before_call+after_call"))
        if tool == "__user_message__" or api == "reset_for_turn":
            guard.user_message(sid, str(ev.get("args", {}).get("text", "")))
            continue
        if tool in ("__agent_message__", "__assistant_text__"):
            actions.append(guard.assistant_message(sid, str(ev["args"].get("text", ""))).action)
            continue
        if tool in ("__condensation__", "__observation__") or not isinstance(tool, str):
            continue
        call = ToolCall(sid, tool, dict(ev.get("args") or {}), f"c{n}")
        if "before_call" in api:
            before = guard.before_call(call)
            actions.append(before.action)
            if not before.allowed:
                continue
        if "after_call" in api or "observe_call" in api or "before_call" not in api:
            output, code = split_result(ev.get("result"))
            exit_code = ev.get("exit_code", code)
            failed = bool(ev.get("error") or ev.get("failed"))
            result = ToolResult(
                call, output, exit_code if isinstance(exit_code, int) else None, failed
            )
            actions.append(guard.after_call(result).action)
    return actions


def _outcomes() -> dict[str, Action]:
    return {
        s["name"]: max(run_events(s["events"], s["config"]) or [Action.ALLOW]) for s in SCENARIOS
    }


OUTCOMES = _outcomes()
SHOULD_FLAG = [s["name"] for s in SCENARIOS if s["kind"] == "should_flag"]
SHOULD_NOT = [s["name"] for s in SCENARIOS if s["kind"] == "should_not_flag"]


def test_scenario_corpus_is_all_there() -> None:
    assert len(SCENARIOS) == 86 + 36
    assert len(SHOULD_FLAG) >= 60


@pytest.mark.parametrize(
    ("expect", "kind"),
    [
        ("after_call #1 allow; #2 warn repeated_exact_failure_warning", "should_flag"),
        ("halt_decision None after calls 1-4; after call #5 halt_decision code=x", "should_flag"),
        ("no notice until the 3rd call after reset_for_turn", "should_flag"),
        ("no halt; observe_call notices only (from the 3rd identical call)", "should_flag"),
        (
            "every before_call allows (...); PR adds a separate warn 4 / block 12 track",
            "should_not_flag",
        ),
        (
            "no decision ever should_halt; halt_decision None; final before_call allows",
            "should_not_flag",
        ),
        ("notices None for calls 1-2; no halt", "should_not_flag"),
    ],
)
def test_hermes_labels_are_read_from_its_own_expectations(expect: str, kind: str) -> None:
    assert hermes_kind({"expect": expect}) == kind


def test_at_least_95_percent_of_should_flag_scenarios_are_flagged() -> None:
    missed = sorted(n for n in SHOULD_FLAG if OUTCOMES[n] < Action.WARN)
    rate = 1 - len(missed) / len(SHOULD_FLAG)
    assert rate >= 0.95, (rate, missed)
    assert missed == sorted(DIVERGENCES["not_flagged"]), "update tests/data/loop_divergences.json"


@pytest.mark.parametrize("name", SHOULD_NOT)
def test_should_not_flag_scenario_is_never_blocked(name: str) -> None:
    assert OUTCOMES[name] < Action.BLOCK


def test_divergences_of_should_not_flag_scenarios_are_listed() -> None:
    warned = sorted(n for n in SHOULD_NOT if OUTCOMES[n] == Action.WARN)
    assert warned == sorted(DIVERGENCES["warned_not_blocked"]), "update loop_divergences.json"


def test_every_divergence_has_a_reason() -> None:
    for section in ("not_flagged", "warned_not_blocked", "out_of_scope"):
        for name, reason in DIVERGENCES[section].items():
            assert len(reason) > 20, (section, name)


# -- real sessions ---------------------------------------------------------------------------

LOOP_FILE = "claudecode_openagents_20251223_014205-call-issue-ready-now-to.jsonl"
LOOP_START = 149  # index of call 150, the first of 286 `cargo autopilot issue ready` in a row


def _meta(path: Path) -> dict[str, Any]:
    with path.open() as fh:
        return dict(json.loads(fh.readline())["meta"])


ALL_SESSIONS = sorted(TRAJECTORIES.glob("*.jsonl"))
PROTECTED = [
    p.name
    for p in ALL_SESSIONS
    if _meta(p).get("resolved") is True
    or (p.name.startswith("claudecode_openagents_") and p.name != LOOP_FILE)
]


def test_the_real_corpus_is_all_there() -> None:
    assert len(ALL_SESSIONS) == 75
    assert len(PROTECTED) == 14 + 19


def test_the_286_call_loop_is_blocked_by_its_7th_call() -> None:
    """OpenHands' StuckDetector stops it at call 156 (the 7th of the loop): so does Tether."""
    outcome = replay(load(TRAJECTORIES / LOOP_FILE), Guard(HARD))
    first = outcome.first(Action.BLOCK)
    assert first is not None
    assert LOOP_START < first.index <= LOOP_START + 6, first.index
    assert "TL202" in first.codes  # mutating no-progress: cargo runs code nobody can prove
    before = [s for s in outcome.steps if s.index < LOOP_START]
    assert all(s.action < Action.BLOCK for s in before)


# The productive sessions that get a warning, and why each is fair: at most 3 of the 33.
WARNED_PRODUCTIVE = {
    "claudecode_openagents_20251222_235400-call-issue-ready-now-to.jsonl": "TL201: the same "
    "10 lines of main.rs read twice back to back",
    "claudecode_openagents_20251223_004836-call-issue-ready-now-to.jsonl": "TL204: Edit failed "
    "three times running (the old string never matched) before the agent changed approach",
    "gemini3pro__sympy__sympy-15976.jsonl": "TL202: the same no-op `sed -i` run four times in "
    "a row",
}


def test_at_most_3_productive_sessions_are_warned_and_each_is_listed() -> None:
    warned = {
        name
        for name in PROTECTED
        if any(
            s.action == Action.WARN for s in replay(load(TRAJECTORIES / name), Guard(HARD)).steps
        )
    }
    assert warned == set(WARNED_PRODUCTIVE)
    assert len(warned) <= 3


def test_the_74_other_sessions_draw_at_most_9_warnings() -> None:
    """Issue 27: 9 warnings over the non-loop sessions before it; new detectors add none."""
    warnings = {
        path.name: sum(1 for s in replay(load(path), Guard(HARD)).steps if s.action == Action.WARN)
        for path in ALL_SESSIONS
        if path.name != LOOP_FILE
    }
    assert sum(warnings.values()) <= 9, {k: v for k, v in warnings.items() if v}


@pytest.mark.parametrize("name", PROTECTED)
def test_resolved_and_other_openagents_sessions_are_never_blocked(name: str) -> None:
    outcome = replay(load(TRAJECTORIES / name), Guard(HARD))
    stopped = [
        (s.index, s.action.label, s.codes) for s in outcome.steps if s.action >= Action.BLOCK
    ]
    assert stopped == []


# -- synthetic sessions ----------------------------------------------------------------------


def _drive(
    calls: list[tuple[str, dict[str, Any], Any, int | None]], gap: float = 5.0
) -> list[Action]:
    """Run (tool, args, output, exit code) calls with ``gap`` seconds between them."""
    guard = Guard(HARD)
    actions: list[Action] = []
    t = 1_700_000_000.0
    for n, (tool, args, output, code) in enumerate(calls):
        call = ToolCall("synthetic", tool, args, f"call_{n}", None, t)
        before = guard.before_call(call)
        action = before.action
        t += gap
        if before.allowed:
            result = ToolResult(call, output, code, bool(code), t)
            action = max(action, guard.after_call(result).action)
        actions.append(action)
        t += 1.0
    return actions


def test_a_517_call_gh_api_reviews_loop_is_blocked_by_call_11() -> None:
    command = "gh api repos/acme/widget/pulls/42/reviews 2>&1"
    actions = _drive([("Bash", {"command": command}, "[]", 0)] * 517, gap=4.3)
    first_block = next(n for n, a in enumerate(actions, 1) if a >= Action.BLOCK)
    assert first_block <= 11
    assert all(a < Action.BLOCK for a in actions[: first_block - 1])


def test_a_20_poll_ci_wait_with_stable_output_is_never_blocked() -> None:
    command = "sleep 30 && gh run view 9876543 --repo acme/widget"
    output = "* main CI · 9876543\nTriggered via push\n\nJOBS\n* test (ubuntu) in progress"
    actions = _drive([("Bash", {"command": command}, output, 0)] * 20, gap=31.0)
    assert max(actions) < Action.BLOCK


def test_30_distinct_reads_are_never_flagged() -> None:
    calls: list[tuple[str, dict[str, Any], Any, int | None]] = []
    for n in range(10):
        calls.append(("Read", {"file_path": f"src/module_{n}.py"}, "def f(): pass\n", None))
        calls.append(
            ("Bash", {"command": f"sed -n '1,40p' src/module_{n}.py"}, "def f(): pass\n", 0)
        )
        calls.append(
            ("Grep", {"pattern": "TODO", "path": f"src/module_{n}.py"}, "No matches", None)
        )
    actions = _drive(calls)
    assert set(actions) == {Action.ALLOW}


def test_an_edit_rerun_loop_with_changing_output_is_never_blocked() -> None:
    calls: list[tuple[str, dict[str, Any], Any, int | None]] = []
    for n in range(25):
        edit = {"file_path": "src/cart.py", "old_string": f"v{n}", "new_string": f"v{n + 1}"}
        calls.append(("Edit", edit, "The file src/cart.py has been updated.", None))
        failed = 25 - n
        out = f"{failed} failed, {n} passed in 0.{n:02d}s" if failed else "26 passed in 0.4s"
        calls.append(("Bash", {"command": "pytest -q tests/"}, out, 1 if failed else 0))
    actions = _drive(calls)
    assert max(actions) < Action.BLOCK
