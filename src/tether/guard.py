"""The guard: one decision before each tool call and one after, from session state in a Store.

``before_call`` reviews shell commands (classification and approval policy) and file writes onto
Tether's guard files (rule DG605, whatever the tool), then asks the loop
detectors whether this exact call should still run; ``after_call`` fingerprints the result,
updates the streaks and says what the model should know. Each hook process builds a new Guard:
everything it remembers lives in the store, as one JSON-ready dict per session
(see :mod:`tether.loops.state`), updated atomically.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tether.loops import detectors as d
from tether.loops import kinds, progress
from tether.loops.fingerprint import preview, result_fingerprint, signature_and_preview
from tether.loops.messages import merge
from tether.loops.settings import LoopSettings, from_config
from tether.loops.state import (
    P_ANSWER,
    P_BLOCKED,
    P_KIND,
    P_SEQ,
    P_SIG,
    P_TOOL,
    P_WARNED,
    State,
    coerce,
    new_record,
    pack,
    reset_turn,
    trim,
)
from tether.model import ALLOW, Action, Decision, Finding, ToolCall, ToolResult
from tether.rules.protected import configured, places_of
from tether.store import Store

# Identical calls further apart than this (from the previous result to this call) are a wait.
POLL_GAP_SECONDS = 20.0
# Detectors that judge a call by its earlier results: their warning came with the result already,
# so before the next identical call they only block (one delivery per warning).
_RESULT_DETECTORS = frozenset({"TL201", "TL202", "TL203", "TL206"})


class _Prepared:
    """What before_call and after_call both need to know about a call."""

    __slots__ = ("kind", "preview", "review", "sig", "wait")

    def __init__(self, sig: str, kind: str, preview: str, wait: float | None, review: Any) -> None:
        self.sig, self.kind, self.preview, self.wait, self.review = (
            sig, kind, preview, wait, review,
        )  # fmt: skip


class Guard:
    """Loop detection and command review for every session that shares one store."""

    def __init__(
        self,
        config: Any = None,
        store: Store | None = None,
        *,
        unattended: bool = False,
        sticky_halt: bool = False,
        hold_warnings: bool = False,
    ) -> None:
        """``sticky_halt``: after a halt, refuse every call until the user speaks (for hosts that
        cannot stop the agent). ``hold_warnings``: a warning before a call comes back with its
        result instead (for hosts that show the model one hook message per call).
        """
        if store is None:
            from tether.store.memory import MemoryStore

            store = MemoryStore()
        self.config = config
        self.store = store
        self.unattended = unattended
        self.sticky_halt = sticky_halt
        self.hold_warnings = hold_warnings
        self.settings: LoopSettings = from_config(config)
        # Guard places the config adds (a store.path anywhere, a Redis key prefix): the rules
        # count them as Tether's own while this guard judges a call.
        self._places = places_of(config)

    def _update(self, session_id: str, fn: Callable[[State | None], State]) -> None:
        """Apply ``fn`` through the store, storing the state packed (see ``loops.state.pack``)."""
        self.store.update(session_id, lambda state: pack(fn(state)))

    # -- calls -------------------------------------------------------------------------------

    def _prepare(self, call: ToolCall, *, review: bool) -> _Prepared:
        s = self.settings
        command = kinds.shell_command(call.tool, call.args, s.tools)
        shell_key = s.tools.shell.get(call.tool) if command is not None else None
        sig, text = signature_and_preview(call.tool, call.args, shell_key)
        if command is None and review and call.tool in s.tools.shell:
            # A shell call without a command string cannot be checked: refuse it (fail closed).
            from tether.approval import malformed_shell_call

            key = s.tools.shell[call.tool]
            refused = malformed_shell_call(call.tool, key, call.args)
            return _Prepared(sig, kinds.EXEC, text, None, refused)
        if command is None:
            kind = kinds.static_kind(call.tool, call.args, s.tools)
            with configured(self._places):
                files = self._review_files(call) if review else None
            return _Prepared(sig, kind, text, None, files)
        verdict = None
        if review:
            from tether.approval import review as review_command

            with configured(self._places):
                verdict = review_command(command, self.config, unattended=self.unattended)
        wait = kinds.wait_seconds(command)
        if wait is not None:
            kind = kinds.POLL
        elif verdict is not None and verdict.classification is not None:
            kind = kinds.READ if verdict.classification.read_only else kinds.EXEC
        else:
            kind = kinds.EXEC
        return _Prepared(sig, kind, text, wait, verdict)

    def _review_files(self, call: ToolCall) -> Any:
        """Review a non-shell call that names Tether's guard files (Write, apply_patch, MCP)."""
        from tether.loops.settings import READ_TOOLS
        from tether.rules.file_tools import guarded_paths

        # The built-in readers only: a config listing `Write` under `tools.read` changes how
        # loops count it, not whether it may rewrite the hooks.
        hits = guarded_paths(call.tool, call.args, READ_TOOLS)
        if not hits:
            return None
        from tether.approval.files import review_files

        return review_files(call.tool, hits, self.config, unattended=self.unattended)

    def before_call(self, call: ToolCall) -> Decision:
        """Decide whether ``call`` may run: approval for shell commands, then loop detectors."""
        prep = self._prepare(call, review=True)
        approval: Decision | None = prep.review.decision if prep.review is not None else None
        now = call.time if call.time is not None else time.time()
        out: list[Decision] = []

        def update(state: State | None) -> State:
            st = coerce(state)
            s = self.settings
            again = st["pending"].get(call.call_id) if call.call_id else None
            if again is not None and again[P_SIG] == prep.sig and len(again) > P_ANSWER:
                # The same call sent twice (an HTTP hook and its fallback): answer it the same
                # way and count it once.
                out.append(_answer(again[P_ANSWER]))
                return st
            if self.sticky_halt and st["halted"]:
                st["seq"] += 1
                st["blocks"] += 1
                out.append(_halted(st["halted"]))
                return st
            st["seq"] += 1
            seq = st["seq"]
            cid = call.call_id or f"#{seq}"
            st["calls"] += 1
            st["turn_calls"] += 1
            st["talk"][1] = st["talk"][2] = 0
            rec = st["sigs"].get(prep.sig)
            if rec is None:
                rec = st["sigs"][prep.sig] = new_record(call.tool, prep.kind, prep.preview)
            rec["last"] = seq
            kind = prep.kind
            gap = now - rec["t"] if rec["t"] is not None and now is not None else 0.0
            if kind != kinds.POLL and rec["same"] > 0 and gap >= POLL_GAP_SECONDS:
                kind = kinds.POLL  # a long gap between identical calls is a wait
            if rec["kind"] != kind:
                rec["kind"] = kind
            rec["wait"] = prep.wait
            findings: list[Finding] = []
            for f in (
                d.turn_calls(st["turn_calls"], s, before=True),
                d.exact_failure(rec, s, before=True) if rec["fails"] else None,
                d.no_progress(rec, s, before=True) if rec["same"] else None,
                d.poll_budget(rec, s, before=True) if rec["same"] else None,
                d.cycle(st["window"], s, next_sig=prep.sig, sigs=st["sigs"]),
            ):
                if f is not None:
                    findings.append(f)
            loop_block = any(f.action is Action.BLOCK for f in findings)
            if loop_block and rec["blocked"] >= 2:
                worst = max(findings, key=lambda f: int(f.action))
                findings.append(d.repeated_block(rec, worst))
            if approval is None or approval.action <= Action.WARN:
                findings = [  # alone, a repeat of what came with the last result
                    f
                    for f in findings
                    if f.action >= Action.BLOCK or f.code not in _RESULT_DETECTORS
                ]
            decision = merge(findings, approval, hard_stop=s.hard_stop)
            blocked = decision.action >= Action.BLOCK  # an ask may still run once approved
            if loop_block:
                rec["blocked"] += 1
                st["window"].append([seq, cid, prep.sig, "", kind, "blocked"])
            warned = decision.action is Action.WARN
            answer = None if decision.action is Action.ALLOW else _keep(decision)
            st["pending"][cid] = [seq, prep.sig, kind, call.tool, now, blocked, warned, answer]
            _count(st, decision)
            _streaks(st, rec, findings)
            if decision.action is Action.HALT:
                st["halted"] = decision.message
            trim(st, s.window)
            if warned and self.hold_warnings:
                decision = ALLOW  # delivered with the result (see after_call)
            out.append(decision)
            return st

        self._update(call.session_id, update)
        return out[-1]  # a store may retry the update: the last run is the one kept

    def after_call(self, result: ToolResult) -> Decision:
        """Record what came back; warn (or halt) when the call is part of a loop."""
        call = result.call
        res = result_fingerprint(result.output, result.exit_code, result.error)
        failed = bool(result.error) or (result.exit_code is not None and result.exit_code != 0)
        out: list[Decision | None] = []
        prep: list[_Prepared] = []
        # Without a call id (Gemini CLI), a result pairs with the oldest pending identical call.
        unnamed = None if call.call_id else self._prepare(call, review=False).sig

        def update(state: State | None) -> State:
            st = coerce(state)
            s = self.settings
            cid: str | None = call.call_id
            if cid and cid in st["done"]:
                out.append(ALLOW)  # the same result sent twice: recorded once
                return st
            if unnamed is not None:
                cid = _oldest(st["pending"], unnamed)
            pend = st["pending"].pop(cid, None) if cid else None
            if pend is not None and pend[P_BLOCKED]:
                out.append(ALLOW)  # the call never ran; its refusal was already counted
                return st
            if pend is None:  # no before_call seen (or it was evicted)
                if not prep:
                    # Classify outside the store's lock (a fresh parse can take a while), then
                    # come back: see the second update below.
                    out.append(None)
                    return st
                p = prep[0]
                st["seq"] += 1
                st["calls"] += 1
                sig, kind, tool = p.sig, p.kind, call.tool
                wait = p.wait
            else:
                sig, kind, tool = pend[P_SIG], pend[P_KIND], pend[P_TOOL]
                wait = None
            seq = st["seq"]
            cid = cid or f"#{seq}"
            rec = st["sigs"].get(sig)
            if rec is None:
                text = preview(tool, call.args, self.settings.tools.shell.get(tool))
                rec = st["sigs"][sig] = new_record(tool, kind, text)
            rec["last"] = seq
            rec["kind"] = kind
            findings: list[Finding] = []
            window = st["window"]
            if kind in NEAR_REPEATS and not _recent(window, sig, NEAR_REPEATS[kind]):
                # A read (or unknown tool) run again after other work is a re-check, not a
                # loop: only repeats close together count toward its no-progress streak.
                rec["same"] = 0
            if wait is None:
                wait = rec.get("wait")
            when = result.time if result.time is not None else time.time()
            landed = _record_result(rec, res, failed, kind, cid, when, wait)
            tools: dict[str, Any] = st["tools"]
            if failed:
                streak = tools.setdefault(tool, [0, cid, res])
                if tool in s.tools.failure_tolerant and streak[2:] != [res]:
                    streak[:] = [0, cid, res]  # failing differently: routine for a shell
                streak[0] += 1
            else:
                tools.pop(tool, None)
            if landed:
                st["turn_calls"] = 0  # the per-turn cap counts calls since the last change
                for name in [t for t in tools if t != tool]:
                    del tools[name]  # edit → rerun: the rerun's earlier failures are history
                for other in st["sigs"].values():
                    if other is not rec:
                        other["fails"] = other["same"] = other["blocked"] = 0
            st["window"].append([seq, cid, sig, res, kind, "fail" if failed else "ok"])
            for f in (
                d.exact_failure(rec, s, before=False) if failed else None,
                d.no_progress(rec, s, before=False) if not failed else None,
                d.poll_budget(rec, s, before=False) if not failed else None,
                d.same_tool_failure(tool, tools[tool], s) if failed else None,
                d.cycle(st["window"], s, sigs=st["sigs"]),
            ):
                if f is not None:
                    findings.append(f)
            key = progress.watched(call.agent_id, s)
            if key is not None:
                agent = st["agents"].setdefault(key, [0, False])
                moved = landed and kind != kinds.READ and not failed
                f = progress.record_round(agent, moved, s)
                if f is not None:
                    findings.append(f)
            decision = merge(findings, hard_stop=s.hard_stop)
            already = pend is not None and len(pend) > P_WARNED and bool(pend[P_WARNED])
            _count(st, decision, counted_warning=already)
            held = pend[P_ANSWER] if pend is not None and len(pend) > P_ANSWER else None
            if self.hold_warnings and already and held is not None:
                decision = _with_held(decision, _answer(held))
            _streaks(st, rec, findings)
            if decision.action is Action.HALT:
                st["halted"] = decision.message
            if call.call_id:
                st["done"].append(call.call_id)
            trim(st, s.window)
            out.append(decision)
            return st

        self._update(call.session_id, update)
        if out[-1] is None:  # a result without its before_call: classify, then record it
            prep.append(self._prepare(call, review=True))
            self._update(call.session_id, update)
        decision = out[-1]  # a store may retry the update: the last run is the one kept
        assert decision is not None
        return decision

    # -- turns, messages, sub-agents ---------------------------------------------------------

    def user_message(self, session_id: str, text: str = "") -> None:
        """Start a new user turn (a genuine user message, not the guard's own nudges)."""

        def update(state: State | None) -> State:
            st = coerce(state)
            reset_turn(st)
            trim(st, self.settings.window)
            st["updated"] = time.time()
            return st

        self._update(session_id, update)

    def assistant_message(
        self, session_id: str, text: str, agent_id: str | None = None
    ) -> Decision:
        """Record user-visible assistant text: progress for the agent; repeats are a monologue."""
        body = " ".join(text.split())
        if not body:
            return ALLOW
        import hashlib  # only here: keeps OpenSSL's loading off the tool-call path

        digest = hashlib.blake2b(body.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
        out: list[Decision] = []

        def update(state: State | None) -> State:
            st = coerce(state)
            talk = st["talk"]
            talk[1] = talk[1] + 1 if talk[0] == digest else 1
            talk[0] = digest
            talk[2] += 1
            key = progress.watched(agent_id, self.settings)
            if key is not None:
                progress.record_round(st["agents"].setdefault(key, [0, False]), True, self.settings)
            f = d.monologue(talk[1], talk[2], self.settings)
            decision = merge([f] if f else [])
            _count(st, decision)
            st["updated"] = time.time()
            out.append(decision)
            return st

        self._update(session_id, update)
        return out[-1]  # a store may retry the update: the last run is the one kept

    def subagent_start(self, session_id: str, agent_id: str) -> None:
        """Begin tracking a delegated child's progress."""
        self._agent(session_id, agent_id, start=True)

    def subagent_stop(self, session_id: str, agent_id: str) -> None:
        """Forget a child that has finished."""
        self._agent(session_id, agent_id, start=False)

    def _agent(self, session_id: str, agent_id: str, *, start: bool) -> None:
        def update(state: State | None) -> State:
            st = coerce(state)
            if start:
                st["agents"][agent_id] = [0, False]
            else:
                st["agents"].pop(agent_id, None)
            trim(st, self.settings.window)
            st["updated"] = time.time()
            return st

        self._update(session_id, update)


# How many other calls may stand between two identical calls of a kind for the second to count
# as a repeat: unknown tools only back to back, reads with one other call between (a read-edit
# -read of the same file is progress elsewhere resetting it; read-grep-read is not).
NEAR_REPEATS = {kinds.TOOL: 0, kinds.READ: 1}


def _recent(window: list[Any], sig: str, between: int) -> bool:
    """Return True when ``sig`` is among the last ``between + 1`` calls of ``window``."""
    return any(entry[2] == sig for entry in window[-(between + 1) :])


def _record_result(
    rec: dict[str, Any],
    res: str,
    failed: bool,
    kind: str,
    cid: str,
    when: float | None,
    wait: float | None,
) -> bool:
    """Update a signature's streaks with one result; return True when it is progress."""
    gap = when - rec["t"] if when is not None and rec["t"] is not None else None
    rec["t"] = round(when, 3) if when is not None else None  # stored: milliseconds are plenty
    if failed:
        rec["stubborn"] = rec["stubborn"] + 1 if rec["stubborn"] and rec["res"] == res else 1
        rec["fails"] += 1
        if rec["fails"] == 1:
            rec["fail_since"] = cid
        rec["same"] = 0
        rec["res"] = res
        return False
    rec["stubborn"] = 0
    was_failing = rec["fails"] > 0
    new = rec["res"] != res  # never seen from this call before (whatever reset the streak)
    rec["fails"] = 0
    if rec["same"] > 0 and rec["res"] == res:
        rec["same"] += 1
        if kind == kinds.POLL:
            rec["poll_s"] += max(gap or 0.0, wait or 0.0)
    else:
        rec["same"] = 1
        rec["since"] = cid
        rec["blocked"] = 0
        rec["poll_s"] = 0.0
    rec["res"] = res
    # Progress: a fail→pass transition, an action, or a write, command or unknown tool producing
    # something this call had not produced before. Reads and bookkeeping never are; writing the
    # same content again is not either.
    if was_failing or kind == kinds.ACT:
        return True
    return kind in (kinds.WRITE, kinds.EXEC, kinds.TOOL) and new


def _keep(decision: Decision) -> list[Any]:
    """Return the JSON-ready part of a decision kept for a call's duplicate or its result."""
    return [int(decision.action), list(decision.codes), decision.message]


def _answer(kept: Any) -> Decision:
    """Return the decision given to a call before (ALLOW when nothing was kept)."""
    if not isinstance(kept, list) or len(kept) != 3:
        return ALLOW
    return Decision(Action(kept[0]), tuple(kept[1]), str(kept[2]))


def _with_held(decision: Decision, held: Decision) -> Decision:
    """Return ``decision`` with the warning held back before the call, as one message."""
    if decision.action is Action.ALLOW:
        return held
    codes = tuple(dict.fromkeys(decision.codes + held.codes))
    return Decision(decision.action, codes, f"{decision.message} {held.message}", decision.evidence)


def _halted(message: str) -> Decision:
    """Return the refusal of every call after a halt, until the user speaks."""
    return Decision(
        Action.HALT,
        (),
        "Tether halted this session earlier and refuses every tool call until the user "
        f"replies. Stop now: do not call more tools; report to the user what happened. The halt: "
        f"{message}",
    )


def _oldest(pending: dict[str, Any], sig: str) -> str | None:
    """Return the id of the oldest pending call with signature ``sig`` (FIFO pairing)."""
    best: str | None = None
    for cid, entry in pending.items():
        if (
            entry[P_SIG] == sig
            and cid.startswith("#")
            and (best is None or entry[P_SEQ] < pending[best][P_SEQ])
        ):
            best = cid
    return best


def _count(st: State, decision: Decision, *, counted_warning: bool = False) -> None:
    if decision.action is Action.WARN and not counted_warning:
        st["warnings"] += 1
    elif decision.action >= Action.BLOCK:
        st["blocks"] += 1
    else:
        st["updated"] = time.time()
        return
    # Interventions per code, for `tether stats` (bounded: one entry per code there is).
    tally = st.get("codes")
    if not isinstance(tally, dict):
        tally = st["codes"] = {}
    for code in decision.codes:
        tally[code] = int(tally.get(code, 0)) + 1
    st["updated"] = time.time()


def _streaks(st: State, rec: dict[str, Any], findings: list[Finding]) -> None:
    live: dict[str, int] = {}
    if rec["same"] >= 2:
        name = (
            "poll" if rec["kind"] == kinds.POLL
            else "idempotent_no_progress" if rec["kind"] == kinds.READ
            else "mutating_no_progress"
        )  # fmt: skip
        live[name] = int(rec["same"])
    if rec["fails"] >= 1:
        live["exact_failure"] = int(rec["fails"])
    for f in findings:
        name = str(f.evidence.get("detector", f.name))
        live[name] = max(live.get(name, 0), f.count)
    st["streaks"] = live
