"""The per-session state dict the guard keeps in a ``Store``: JSON-ready and bounded.

Layout (every key always present, so stores and ``tether session show`` can rely on it)::

    calls       int    tool calls recorded (after_call) plus calls blocked before running
    warnings    int    calls warned about (before or after running, counted once per call)
    blocks      int    decisions that blocked or halted
    streaks     dict   detector name -> its current count (only the live ones)
    updated     float  epoch seconds of the last change
    v           int    layout version
    seq         int    sequence number of the last call seen by before_call
    turn        int    user turns seen
    turn_calls  int    calls in the current user turn
    window      list   the last ``loops.window`` finished calls, oldest first:
                       [seq, call_id, sig, res, kind, status, grew]   status: ok | fail |
                       blocked | turn; grew: 1 when the result extends this call's last one
    sigs        dict   signature -> record (see ``new_record``), at most ``loops.window`` of them
    tools       dict   tool name -> [consecutive failures, call id of the first]
    pending     dict   call id -> [seq, sig, kind, tool, time, blocked, warned, answer]  begun,
                       not done; answer: [action, codes, message] given before it ran (or None)
    done        list   ids of the last finished calls (a host that sends a result twice)
    halted      str    the halt message while the session is halted (until the user speaks)
    agents      dict   agent id -> [rounds without progress, warned]   (sub-agent progress)
    talk        list   [hash of the last assistant text, identical in a row, texts in a row]
  optional (absent while at their default):
    files       dict   path -> content record (see ``records.FileState``), at most 64
    echo        dict   tool -> [result, distinct calls in a row with it, first call id, last sig]
    reruns      int    a rerun count the user asked for in this turn ("run it 10 times")
    paused      float  seconds the last call slept when it was a bare `sleep N`
    reads, rereads int read results, and unchanged re-reads among them (reread passes)
    tree        str    hash of the files' net changes, for sub-agent progress ("0": none)
    codes       dict   code -> interventions, for `tether stats`

Everything is lists, dicts, strings and numbers, so SQLite and Redis persist it as JSON between
hook processes; sizes are capped by the window, so a 10,000-call session stays small.

The guard reads and changes it through the typed records of :mod:`tether.loops.records`.
"""

from __future__ import annotations

from typing import Any

State = dict[str, Any]
VERSION = 1
MAX_PENDING = 64
MAX_AGENTS = 64

# Window entry fields.
W_SEQ, W_ID, W_SIG, W_RES, W_KIND, W_STATUS = range(6)
# Pending entry fields.
P_SEQ, P_SIG, P_KIND, P_TOOL, P_TIME, P_BLOCKED, P_WARNED, P_ANSWER = range(8)
MAX_DONE = 16


def new_state() -> State:
    """Return an empty session state."""
    return {
        "calls": 0,
        "warnings": 0,
        "blocks": 0,
        "streaks": {},
        "updated": 0.0,
        "v": VERSION,
        "seq": 0,
        "turn": 0,
        "turn_calls": 0,
        "window": [],
        "sigs": {},
        "tools": {},
        "pending": {},
        "agents": {},
        "talk": ["", 0, 0],
        "done": [],
        "halted": "",
    }


def coerce(state: State | None) -> State:
    """Return ``state`` with every key present (old or foreign states are repaired, not trusted).

    Records stored packed (see ``pack``) get their default fields back.
    """
    state = repair(state)
    _unpack(state["sigs"])
    return state


def repair(state: State | None) -> State:
    """Return ``state`` with every top-level key present; its records stay as they are."""
    if (
        isinstance(state, dict)
        and state.get("v") == VERSION
        and state.keys() >= _TEMPLATE_KEYS
        and isinstance(state["sigs"], dict)
    ):
        return state  # the fast path: our own layout, every key there
    if not isinstance(state, dict) or state.get("v") != VERSION:
        fresh = new_state()
        if isinstance(state, dict):  # keep the user-visible counters across a layout change
            for key in ("calls", "warnings", "blocks"):
                if isinstance(state.get(key), int):
                    fresh[key] = state[key]
            if isinstance(state.get("halted"), str):  # and a halt, above all (fail closed)
                fresh["halted"] = state["halted"]
        return fresh
    template = new_state()
    for key, value in template.items():
        if not isinstance(state.get(key), type(value)) and not (
            key == "updated" and isinstance(state.get(key), (int, float))
        ):
            state[key] = value
    return state


_TEMPLATE_KEYS = frozenset(new_state())


def pack(state: State) -> State:
    """Drop the record fields that hold their default (most of them, most of the time).

    A record is ~350 bytes of JSON in full and most of it is zeros, empty strings and nulls;
    the stored state shrinks by about a quarter, and SQLite's cost per call follows the size.
    ``coerce`` puts the defaults back, and a state stored in full (before this) loads as is.
    """
    for rec in state["sigs"].values():
        if isinstance(rec, dict):
            for key, default in _SPARSE:
                if key in rec:
                    value = rec[key]
                    if value is default or (type(value) is type(default) and value == default):
                        del rec[key]
    return state


def _unpack(sigs: dict[str, Any]) -> None:
    for rec in sigs.values():
        if isinstance(rec, dict) and len(rec) < _RECORD_FIELDS:
            for key, default in _SPARSE:
                if key not in rec:
                    rec[key] = default


def new_record(tool: str, kind: str, preview: str) -> dict[str, Any]:
    """Return a fresh per-signature record."""
    return {
        "tool": tool,
        "kind": kind,
        "preview": preview,
        "res": "",  # fingerprint of the last result
        "same": 0,  # identical successful results in a row (the no-progress streak)
        "since": "",  # call id where that streak began
        "fails": 0,  # failures since progress (exact failure replay)
        "fail_since": "",
        "stubborn": 0,  # identical failures in a row, even across changes elsewhere
        "blocked": 0,  # times this exact call was refused since its streak began
        "poll_t0": None,  # time the stable poll streak began
        "poll_s": 0.0,  # seconds the streak waited, known from the trace or `sleep N`
        "wait": None,  # seconds this call sleeps by itself (`sleep 30 && …`), if it does
        "last": 0,  # seq of the last use, for eviction
        "t": None,  # time of the last result
    }


_SPARSE = tuple(
    (k, v) for k, v in new_record("", "", "").items() if k not in ("tool", "kind", "preview")
)
_RECORD_FIELDS = len(new_record("", "", ""))
# The streak fields a new turn (or progress elsewhere) resets.
_TURN_FIELDS = ("same", "fails", "stubborn", "blocked", "poll_t0", "poll_s", "passes")
MAX_FILES = 64


def trim(state: State, window: int) -> None:
    """Cap the window, the signature table and the pending map (amortised O(1) per call)."""
    win = state["window"]
    if len(win) > window:
        del win[: len(win) - window]
    sigs: dict[str, Any] = state["sigs"]
    # Evict in batches (down to the window once a quarter over it): one sort per window/4 calls.
    if len(sigs) > window + max(1, window // 4):
        # dict.get: reading every record's age must not mark each as changed (store.parts)
        by_age = sorted(sigs, key=lambda s: dict.get(sigs, s, {}).get("last", 0))
        for sig in by_age[: len(sigs) - window]:
            del sigs[sig]
    pending: dict[str, Any] = state["pending"]
    if len(pending) > MAX_PENDING:
        by_age = sorted(pending, key=lambda c: dict.get(pending, c, [0])[P_SEQ])
        for cid in by_age[: len(pending) - MAX_PENDING]:
            del pending[cid]
    done: list[Any] = state["done"]
    if len(done) > MAX_DONE:
        del done[: len(done) - MAX_DONE]
    files: dict[str, Any] | None = state.get("files")
    if files is not None and len(files) > MAX_FILES + MAX_FILES // 4:
        by_age = sorted(files, key=lambda p: dict.get(files, p, {}).get("last", 0))
        for path in by_age[: len(files) - MAX_FILES]:
            del files[path]
    agents: dict[str, Any] = state["agents"]
    if len(agents) > MAX_AGENTS:
        for aid in list(agents)[: len(agents) - MAX_AGENTS]:
            del agents[aid]


def reset_turn(state: State) -> None:
    """Start a new user turn: counters and streaks restart, history stays for evidence."""
    state["turn"] += 1
    state["turn_calls"] = 0
    state["tools"] = {}
    state["streaks"] = {}
    state["talk"] = ["", 0, 0]
    state["halted"] = ""
    state.pop("reruns", None)
    state.pop("echo", None)
    for rec in state.get("files", {}).values():
        rec.pop("returns", None)
    for rec in state["sigs"].values():
        for key in _TURN_FIELDS:
            rec.pop(key, None)  # back to the default, which a packed record leaves out
    # A cycle must be rebuilt inside the new turn: mark the boundary in the window.
    state["window"].append([state["seq"], "", "", "", "turn", "turn"])
    for agent in state["agents"].values():
        agent[0] = 0
        agent[1] = False
