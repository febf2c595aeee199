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
from typing import TYPE_CHECKING, Any, TypeVar

from tether.loops import detectors as d
from tether.loops import kinds, progress
from tether.loops.fingerprint import (
    CANONICAL_CHARS,
    preview,
    result_fingerprint,
    signature_and_preview,
)
from tether.loops.messages import merge
from tether.loops.records import Session, SigRecord
from tether.loops.settings import LoopSettings, from_config
from tether.loops.state import State, reset_turn, trim
from tether.model import ALLOW, Action, Decision, Finding, ToolCall, ToolResult
from tether.rules.protected import configured, places_of
from tether.store import Store

if TYPE_CHECKING:
    from tether.approval import Review
    from tether.config.core import Config

# Identical calls further apart than this (from the previous result to this call) are a wait.
POLL_GAP_SECONDS = 20.0
# Detectors that judge a call by its earlier results: their warning came with the result already,
# so before the next identical call they only block (one delivery per warning).
_RESULT_DETECTORS = frozenset({"TL201", "TL202", "TL203", "TL206"})
R = TypeVar("R")


class _Prepared:
    """What before_call and after_call both need to know about a call."""

    __slots__ = ("kind", "preview", "review", "sig", "wait")

    def __init__(
        self, sig: str, kind: str, preview: str, wait: float | None, review: Review | None
    ) -> None:
        self.sig, self.kind, self.preview, self.wait, self.review = (
            sig, kind, preview, wait, review,
        )  # fmt: skip


class Guard:
    """Loop detection and command review for every session that shares one store."""

    def __init__(
        self,
        config: Config | None = None,
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
        self._canonical: int | None = None  # see _canonical_chars
        # Guard places the config adds (a store.path anywhere, a Redis key prefix): the rules
        # count them as Tether's own while this guard judges a call.
        self._places = places_of(config)

    def _apply(self, session_id: str, fn: Callable[[Session], R]) -> R:
        """Run ``fn`` on the session's typed state through the store; return what it returned.

        The state is stored packed (see ``loops.state.pack``): typed records keep it so. A store
        may retry the update (Redis, on a concurrent write): the answer is the last run's, the
        one whose state was kept.
        """
        answers: list[R] = []

        def update(state: State | None) -> State:
            session = Session.load(state)
            answers.append(fn(session))
            return session.data  # packed already: a record leaves out its default fields

        self.store.update(session_id, update)
        return answers[-1]

    # -- calls -------------------------------------------------------------------------------

    def _prepare(self, call: ToolCall, *, review: bool) -> _Prepared:
        s = self.settings
        command = kinds.shell_command(call.tool, call.args, s.tools)
        if command is None:
            sig, text = signature_and_preview(call.tool, call.args)
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
        # After the review: the signature reads the command through the parse it just made.
        sig, text = signature_and_preview(
            call.tool,
            call.args,
            s.tools.shell.get(call.tool),
            canonical_chars=self._canonical_chars(),
        )
        wait = kinds.wait_seconds(command)
        if wait is not None:
            kind = kinds.POLL
        elif verdict is not None and verdict.classification is not None:
            kind = kinds.READ if verdict.classification.read_only else kinds.EXEC
        else:
            kind = kinds.EXEC
        return _Prepared(sig, kind, text, wait, verdict)

    def _canonical_chars(self) -> int:
        """Return how long a shell command may be to be read through the option model.

        Never longer than the isolation threshold: a command reviewed in the isolated worker
        is not parsed in this process for its signature either.
        """
        if self._canonical is None:
            from tether.approval.policy import Policy

            threshold = Policy.from_config(self.config).threshold
            self._canonical = min(CANONICAL_CHARS, threshold)
        return self._canonical

    def _review_files(self, call: ToolCall) -> Review | None:
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
        return self._apply(call.session_id, lambda st: self._before(st, call, prep, approval, now))

    def _before(
        self, st: Session, call: ToolCall, prep: _Prepared, approval: Decision | None, now: float
    ) -> Decision:
        s = self.settings
        again = st.pending(call.call_id) if call.call_id else None
        if again is not None and again.sig == prep.sig and again.answered:
            # The same call sent twice (an HTTP hook and its fallback): answer it the same
            # way and count it once.
            return _answer(again.answer)
        if self.sticky_halt and st.halted:
            st.seq += 1
            st.blocks += 1
            return _halted(st.halted)
        if call.call_id and call.call_id in st.done:
            # Its result is in already (a host retrying an abandoned request after the call
            # ran): count nothing again; the approval review above still judged it.
            return approval if approval is not None and approval.action > Action.ALLOW else ALLOW
        st.seq += 1
        seq = st.seq
        cid = call.call_id or f"#{seq}"
        st.calls += 1
        st.turn_calls += 1
        talk = st.talk
        talk.same = talk.total = 0
        rec = st.record(prep.sig)
        if rec is None:
            rec = st.add_record(prep.sig, call.tool, prep.kind, prep.preview)
        rec.last = seq
        kind = prep.kind
        last_t = rec.t
        gap = now - last_t if last_t is not None and now is not None else 0.0
        if kind != kinds.POLL and rec.same > 0 and gap >= POLL_GAP_SECONDS:
            kind = kinds.POLL  # a long gap between identical calls is a wait
        if rec.kind != kind:
            rec.kind = kind
        rec.wait = prep.wait
        findings: list[Finding] = []
        for f in (
            d.turn_calls(st.turn_calls, s, before=True),
            d.exact_failure(rec, s, before=True) if rec.fails else None,
            d.no_progress(rec, s, before=True) if rec.same else None,
            d.poll_budget(rec, s, before=True) if rec.same else None,
            d.cycle(st.window, s, next_sig=prep.sig, sigs=st.sigs()),
        ):
            if f is not None:
                findings.append(f)
        loop_block = any(f.action is Action.BLOCK for f in findings)
        if loop_block and rec.blocked >= 2:
            worst = max(findings, key=lambda f: int(f.action))
            findings.append(d.repeated_block(rec, worst))
        if approval is None or approval.action <= Action.WARN:
            findings = [  # alone, a repeat of what came with the last result
                f for f in findings if f.action >= Action.BLOCK or f.code not in _RESULT_DETECTORS
            ]
        decision = merge(findings, approval, hard_stop=s.hard_stop)
        blocked = decision.action >= Action.BLOCK  # an ask may still run once approved
        if loop_block:
            rec.blocked += 1
            st.finished(seq, cid, prep.sig, "", kind, "blocked")
        warned = decision.action is Action.WARN
        answer = None if decision.action is Action.ALLOW else _keep(decision)
        st.begin(cid, seq, prep.sig, kind, call.tool, now, blocked, warned, answer)
        _count(st, decision)
        _streaks(st, rec, findings)
        if decision.action is Action.HALT:
            st.halted = decision.message
        trim(st.data, s.window)
        if warned and self.hold_warnings:
            return ALLOW  # delivered with the result (see after_call)
        return decision

    def after_call(self, result: ToolResult) -> Decision:
        """Record what came back; warn (or halt) when the call is part of a loop."""
        call = result.call
        res = result_fingerprint(result.output, result.exit_code, result.error)
        failed = bool(result.error) or (result.exit_code is not None and result.exit_code != 0)
        # Without a call id (Gemini CLI), a result pairs with the oldest pending identical call.
        unnamed = None if call.call_id else self._prepare(call, review=False).sig
        outcome = self._apply(
            call.session_id, lambda st: self._after(st, result, res, failed, unnamed, None)
        )
        if isinstance(outcome, Decision):
            return outcome
        # A result without its before_call (not seen, or evicted): classify it outside the
        # store's lock (a fresh parse can take a while), then record it with what was found.
        prep = self._prepare(call, review=True)
        outcome = self._apply(
            call.session_id, lambda st: self._after(st, result, res, failed, unnamed, prep)
        )
        assert isinstance(outcome, Decision)  # with ``prep`` given, a result is always recorded
        return outcome

    def _after(
        self,
        st: Session,
        result: ToolResult,
        res: str,
        failed: bool,
        unnamed: str | None,
        prep: _Prepared | None,
    ) -> Decision | _Unpaired:
        call = result.call
        s = self.settings
        cid: str | None = call.call_id
        if cid and cid in st.done:
            return ALLOW  # the same result sent twice: recorded once
        if unnamed is not None:
            cid = st.oldest_pending(unnamed)
        pend = st.finish(cid) if cid else None
        if pend is not None and pend.blocked:
            return ALLOW  # the call never ran; its refusal was already counted
        wait: float | None
        receipt: dict[str, Any] | None = None
        if pend is None:  # no before_call seen (or it was evicted)
            if prep is None:
                return UNPAIRED  # the state is left as it was: see after_call
            st.seq += 1
            st.calls += 1
            sig, kind, tool = prep.sig, prep.kind, call.tool
            wait = prep.wait
            # No decision was asked for this call before it ran: a hook that did not fire (a
            # matcher gap, a disabled or untrusted hook). Counted, and told once per session.
            receipt = st.note_unguarded(tool, prep.preview)
        else:
            sig, kind, tool = pend.sig, pend.kind, pend.tool
            wait = None
        seq = st.seq
        cid = cid or f"#{seq}"
        rec = st.record(sig)
        if rec is None:
            text = preview(tool, call.args, s.tools.shell.get(tool))
            rec = st.add_record(sig, tool, kind, text)
        rec.last = seq
        rec.kind = kind
        findings: list[Finding] = []
        if kind in NEAR_REPEATS and not _recent(st.window, sig, NEAR_REPEATS[kind]):
            # A read (or unknown tool) run again after other work is a re-check, not a
            # loop: only repeats close together count toward its no-progress streak.
            rec.same = 0
        if wait is None:
            wait = rec.wait
        when = result.time if result.time is not None else time.time()
        landed = _record_result(rec, res, failed, kind, cid, when, wait)
        streak = st.tool_streak(tool)
        if failed:
            if streak is None or (tool in s.tools.failure_tolerant and streak.res != res):
                streak = st.start_tool_streak(tool, cid, res)  # failing differently: routine
            streak.count += 1
        else:
            st.forget_tool(tool)
        if landed:
            st.turn_calls = 0  # the per-turn cap counts calls since the last change
            st.end_tool_streaks(keep=tool)  # edit → rerun: the rerun's earlier failures are history
            st.progress_besides(rec)
        st.finished(seq, cid, sig, res, kind, "fail" if failed else "ok")
        for f in (
            d.exact_failure(rec, s, before=False) if failed else None,
            d.no_progress(rec, s, before=False) if not failed else None,
            d.poll_budget(rec, s, before=False) if not failed else None,
            d.same_tool_failure(tool, streak, s) if failed and streak is not None else None,
            d.cycle(st.window, s, sigs=st.sigs()),
        ):
            if f is not None:
                findings.append(f)
        key = progress.watched(call.agent_id, s)
        if key is not None:
            moved = landed and kind != kinds.READ and not failed
            f = progress.record_round(st.agent(key), moved, s)
            if f is not None:
                findings.append(f)
        decision = merge(findings, hard_stop=s.hard_stop)
        already = pend is not None and bool(pend.warned)
        _count(st, decision, counted_warning=already)
        held = pend.answer if pend is not None else None
        if self.hold_warnings and already and held is not None:
            decision = _with_held(decision, _answer(held))
        _streaks(st, rec, findings)
        if decision.action is Action.HALT:
            st.halted = decision.message
        if call.call_id:
            st.done.append(call.call_id)
        trim(st.data, s.window)
        if receipt is not None:
            evidence = {**decision.evidence, "unguarded": receipt}
            decision = Decision(decision.action, decision.codes, decision.message, evidence)
        return decision

    # -- turns, messages, sub-agents ---------------------------------------------------------

    def user_message(self, session_id: str, text: str = "") -> None:
        """Start a new user turn (a genuine user message, not the guard's own nudges)."""

        def update(st: Session) -> None:
            reset_turn(st.data)
            trim(st.data, self.settings.window)
            st.updated = time.time()

        self._apply(session_id, update)

    def assistant_message(
        self, session_id: str, text: str, agent_id: str | None = None
    ) -> Decision:
        """Record user-visible assistant text: progress for the agent; repeats are a monologue."""
        body = " ".join(text.split())
        if not body:
            return ALLOW
        import hashlib  # only here: keeps OpenSSL's loading off the tool-call path

        digest = hashlib.blake2b(body.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()

        def update(st: Session) -> Decision:
            talk = st.talk
            talk.same = talk.same + 1 if talk.digest == digest else 1
            talk.digest = digest
            talk.total += 1
            key = progress.watched(agent_id, self.settings)
            if key is not None:
                progress.record_round(st.agent(key), True, self.settings)
            f = d.monologue(talk.same, talk.total, self.settings)
            decision = merge([f] if f else [])
            _count(st, decision)
            st.updated = time.time()
            return decision

        return self._apply(session_id, update)

    def subagent_start(self, session_id: str, agent_id: str) -> None:
        """Begin tracking a delegated child's progress."""
        self._agent(session_id, agent_id, start=True)

    def subagent_stop(self, session_id: str, agent_id: str) -> None:
        """Forget a child that has finished."""
        self._agent(session_id, agent_id, start=False)

    def _agent(self, session_id: str, agent_id: str, *, start: bool) -> None:
        def update(st: Session) -> None:
            if start:
                st.start_agent(agent_id)
            else:
                st.stop_agent(agent_id)
            trim(st.data, self.settings.window)
            st.updated = time.time()

        self._apply(session_id, update)


class _Unpaired:
    """The answer of ``_after`` for a result the state has no call for (review it, then retry)."""

    __slots__ = ()


UNPAIRED = _Unpaired()


# How many other calls may stand between two identical calls of a kind for the second to count
# as a repeat: unknown tools only back to back, reads with one other call between (a read-edit
# -read of the same file is progress elsewhere resetting it; read-grep-read is not).
NEAR_REPEATS = {kinds.TOOL: 0, kinds.READ: 1}


def _recent(window: list[Any], sig: str, between: int) -> bool:
    """Return True when ``sig`` is among the last ``between + 1`` calls of ``window``."""
    return any(entry[2] == sig for entry in window[-(between + 1) :])


def _record_result(
    rec: SigRecord,
    res: str,
    failed: bool,
    kind: str,
    cid: str,
    when: float | None,
    wait: float | None,
) -> bool:
    """Update a signature's streaks with one result; return True when it is progress."""
    last = rec.t
    gap = when - last if when is not None and last is not None else None
    rec.t = round(when, 3) if when is not None else None  # stored: milliseconds are plenty
    if failed:
        rec.stubborn = rec.stubborn + 1 if rec.stubborn and rec.res == res else 1
        rec.fails += 1
        if rec.fails == 1:
            rec.fail_since = cid
        rec.same = 0
        rec.res = res
        return False
    rec.stubborn = 0
    was_failing = rec.fails > 0
    new = rec.res != res  # never seen from this call before (whatever reset the streak)
    rec.fails = 0
    if rec.same > 0 and rec.res == res:
        rec.same += 1
        if kind == kinds.POLL:
            rec.poll_s += max(gap or 0.0, wait or 0.0)
    else:
        rec.same = 1
        rec.since = cid
        rec.blocked = 0
        rec.poll_s = 0.0
    rec.res = res
    # Progress: a fail→pass transition, an action, or a write, command or unknown tool producing
    # something this call had not produced before. Reads and bookkeeping never are; writing the
    # same content again is not either.
    if was_failing or kind == kinds.ACT:
        return True
    return kind in (kinds.WRITE, kinds.EXEC, kinds.TOOL) and new


def _keep(decision: Decision) -> list[Any]:
    """Return the JSON-ready part of a decision kept for a call's duplicate or its result."""
    return [int(decision.action), list(decision.codes), decision.message]


def _answer(kept: object) -> Decision:
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


def _count(st: Session, decision: Decision, *, counted_warning: bool = False) -> None:
    if decision.action is Action.WARN and not counted_warning:
        st.warnings += 1
    elif decision.action >= Action.BLOCK:
        st.blocks += 1
    else:
        st.updated = time.time()
        return
    st.count_codes(decision.codes)  # interventions per code, for `tether stats`
    st.updated = time.time()


def _streaks(st: Session, rec: SigRecord, findings: list[Finding]) -> None:
    live: dict[str, int] = {}
    if rec.same >= 2:
        name = (
            "poll" if rec.kind == kinds.POLL
            else "idempotent_no_progress" if rec.kind == kinds.READ
            else "mutating_no_progress"
        )  # fmt: skip
        live[name] = int(rec.same)
    if rec.fails >= 1:
        live["exact_failure"] = int(rec.fails)
    for f in findings:
        name = str(f.evidence.get("detector", f.name))
        live[name] = max(live.get(name, 0), f.count)
    st.streaks = live
