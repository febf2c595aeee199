"""The guard: one decision before each tool call and one after, from session state in a Store.

``before_call`` reviews shell commands (classification and approval policy) and file writes onto
Tether's guard files (rule DG605, whatever the tool), then asks the loop
detectors whether this exact call should still run; ``after_call`` fingerprints the result,
updates the streaks and says what the model should know. Each hook process builds a new Guard:
everything it remembers lives in the store, as one JSON-ready dict per session
(see :mod:`tether.loops.state`), updated atomically.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from tether.loops import detectors as d
from tether.loops import files, kinds, progress
from tether.loops.detectors import Detector, Event, Window
from tether.loops.fingerprint import (
    CANONICAL_CHARS,
    canonical_result,
    preview,
    raw_fingerprint,
    raw_text,
    shorten,
    signature_and_text,
    text_fingerprint,
)
from tether.loops.messages import merge
from tether.loops.records import (
    AgentRounds,
    Echo,
    FileState,
    Pending,
    Session,
    SigRecord,
    ToolStreak,
)
from tether.loops.settings import LoopSettings, from_config
from tether.loops.state import State, reset_turn, trim
from tether.model import ALLOW, Action, Decision, Finding, ToolCall, ToolResult
from tether.rules.protected import configured, places_of
from tether.store import Store

if TYPE_CHECKING:
    from tether.approval import Review
    from tether.config.core import Config
    from tether.rules.readonly.tree import Tree

# Identical calls further apart than this (from the previous result to this call) are a wait.
POLL_GAP_SECONDS = 20.0
# Detectors that judge a call by its earlier results: their warning came with the result already,
# so before the next identical call they only block (one delivery per warning).
_RESULT_DETECTORS = frozenset({"TL201", "TL202", "TL203", "TL206", "TL211", "TL212"})
R = TypeVar("R")


class _Prepared:
    """What before_call and after_call both need to know about a call."""

    __slots__ = ("kind", "review", "sig", "text", "tool", "wait")

    def __init__(
        self, sig: str, kind: str, text: str, wait: float | None, review: Review | None, tool: str
    ) -> None:
        self.sig, self.kind, self.text, self.wait, self.review, self.tool = (
            sig, kind, text, wait, review, tool,
        )  # fmt: skip

    @property
    def preview(self) -> str:
        """Return the call's stored preview (cut and redacted only for a new record)."""
        return shorten(self.tool, self.text)


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
        environ: Mapping[str, str] | None = None,
    ) -> None:
        """``sticky_halt``: after a halt, refuse every call until the user speaks (for hosts that
        cannot stop the agent). ``hold_warnings``: a warning before a call comes back with its
        result instead (for hosts that show the model one hook message per call). ``environ``:
        the environment of the agent whose calls this guard judges (where its home, config and
        state are, for the self-protection rules); by default this process's, read per call.
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
        # Guard places the config adds (a store.path anywhere, a Redis key prefix) and the
        # environment judged: the rules count them as Tether's own while this guard judges.
        self._places = places_of(config, environ)
        # The home a command's working tree is judged with (tether.rules.readonly.tree).
        self._home = (os.environ if environ is None else environ).get("HOME", "")

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

    def _prepare(self, call: ToolCall, *, review: bool, cwd: str | None = None) -> _Prepared:
        s = self.settings
        command = kinds.shell_command(call.tool, call.args, s.tools)
        if command is None:
            sig, text = signature_and_text(call.tool, call.args)
        if command is None and review and call.tool in s.tools.shell:
            # A shell call without a command string cannot be checked: refuse it (fail closed).
            from tether.approval import malformed_shell_call

            key = s.tools.shell[call.tool]
            refused = malformed_shell_call(call.tool, key, call.args)
            return _Prepared(sig, kinds.EXEC, text, None, refused, call.tool)
        if command is None:
            kind = kinds.static_kind(call.tool, call.args, s.tools)
            with configured(self._places):
                files = self._review_files(call.tool, call.args) if review else None
            return _Prepared(sig, kind, text, None, files, call.tool)
        verdict = None
        if review:
            from tether.approval import review as review_command

            with configured(self._places):
                verdict = review_command(
                    command, self.config, unattended=self.unattended, tree=self._tree(cwd)
                )
                # A tool read as a shell is still a tool: its other arguments may name Tether's
                # guard files (a config that lists Write as a shell by its `content`).
                others = {k: v for k, v in call.args.items() if k != s.tools.shell.get(call.tool)}
                files = self._review_files(call.tool, others) if others else None
            if files is not None and files.decision.action > verdict.decision.action:
                verdict = files
        # After the review: the signature reads the command through the parse it just made.
        sig, text = signature_and_text(
            call.tool,
            call.args,
            s.tools.shell.get(call.tool),
            canonical_chars=self._canonical_chars(),
        )
        wait = kinds.pause_seconds(command)
        if wait is not None:
            kind = kinds.PAUSE  # `sleep N` alone: a pause between checks
        elif (wait := kinds.wait_seconds(command)) is not None:
            kind = kinds.POLL
        elif verdict is not None and verdict.classification is not None:
            c = verdict.classification
            # RW029 alone: proven read-only but for the working tree the review was not given
            # (git reads): still a read for the loops, whatever the approval path decides.
            kind = kinds.READ if c.read_only or set(c.codes) == {"RW029"} else kinds.EXEC
        else:
            kind = kinds.EXEC
        return _Prepared(sig, kind, text, wait, verdict, call.tool)

    def _tree(self, cwd: str | None) -> Tree | None:
        """The working tree a host said the call runs in (its absolute cwd), or None."""
        if not cwd or not os.path.isabs(cwd):
            return None
        from tether.rules.readonly.tree import Tree

        return Tree(os.path.normpath(cwd), self._home or cwd)

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

    def _review_files(self, tool: str, args: Mapping[str, Any]) -> Review | None:
        """Review a non-shell call that names Tether's guard files (Write, apply_patch, MCP)."""
        from tether.loops.settings import READ_TOOLS
        from tether.rules.file_tools import guarded_paths

        # The built-in readers only: a config listing `Write` under `tools.read` changes how
        # loops count it, not whether it may rewrite the hooks.
        hits = guarded_paths(tool, args, READ_TOOLS)
        if not hits:
            return None
        from tether.approval.files import review_files

        return review_files(tool, hits, self.config, unattended=self.unattended)

    def before_call(self, call: ToolCall, *, cwd: str | None = None) -> Decision:
        """Decide whether ``call`` may run: approval for shell commands, then loop detectors.

        ``cwd``: the directory the host runs the call in (a hook payload's ``cwd``); given,
        the working tree is checked for what a read-looking command would obey there
        (``git -C vendor/x status``: RW029 without it)."""
        prep = self._prepare(call, review=True, cwd=cwd)
        approval: Decision | None = prep.review.decision if prep.review is not None else None
        now = call.time if call.time is not None else time.time()
        return self._apply(call.session_id, lambda st: self._before(st, call, prep, approval, now))

    def _before(
        self, st: Session, call: ToolCall, prep: _Prepared, approval: Decision | None, now: float
    ) -> Decision:
        early = _early_answer(st, call, prep, approval, self.sticky_halt)
        if early is not None:
            return early
        s = self.settings
        st.seq += 1
        cid = call.call_id or f"#{st.seq}"
        rec, kind = _open_call(st, call, prep, now)
        ev = Event(True, st, rec, call.tool, file=_predicted_file(st, call, kind))
        findings = _run(d.ON_BEFORE, Window(st.window, prep.sig), ev, s)
        if approval is None or approval.action <= Action.WARN:
            findings = [  # alone, a repeat of what came with the last result
                f for f in findings if f.action >= Action.BLOCK or f.code not in _RESULT_DETECTORS
            ]
        decision = merge(findings, approval, hard_stop=s.hard_stop)
        loop_block = any(f.action is Action.BLOCK for f in findings)
        if loop_block:
            rec.blocked += 1
            st.finished(st.seq, cid, prep.sig, "", kind, "blocked")
        warned = decision.action is Action.WARN
        answer = None if decision.action is Action.ALLOW else _keep(decision)
        blocked = decision.action >= Action.BLOCK  # an ask may still run once approved
        st.begin(cid, st.seq, prep.sig, kind, call.tool, now, blocked, warned, answer)
        _settle(st, rec, findings, decision, s)
        if warned and self.hold_warnings:
            return ALLOW  # delivered with the result (see after_call)
        return decision

    def after_call(self, result: ToolResult) -> Decision:
        """Record what came back; warn (or halt) when the call is part of a loop."""
        call = result.call
        seen = _Seen(result)
        # Without a call id (Gemini CLI), a result pairs with the oldest pending identical call.
        unnamed = None if call.call_id else self._prepare(call, review=False).sig
        outcome = self._apply(
            call.session_id, lambda st: self._after(st, result, seen, unnamed, None)
        )
        if isinstance(outcome, Decision):
            return outcome
        # A result without its before_call (not seen, or evicted): classify it outside the
        # store's lock (a fresh parse can take a while), then record it with what was found.
        prep = self._prepare(call, review=True)
        outcome = self._apply(
            call.session_id, lambda st: self._after(st, result, seen, unnamed, prep)
        )
        assert isinstance(outcome, Decision)  # with ``prep`` given, a result is always recorded
        return outcome

    def _after(
        self,
        st: Session,
        result: ToolResult,
        seen: _Seen,
        unnamed: str | None,
        prep: _Prepared | None,
    ) -> Decision | _Unpaired:
        call, s = result.call, self.settings
        paired = _pair(st, call, unnamed, prep)
        if not isinstance(paired, _Paired):
            return paired
        cid, sig, kind, tool, wait, pend = paired
        # No decision was asked for this call before it ran (pend is None: a hook that did not
        # fire, a matcher gap, a disabled or untrusted hook): counted, told once per session.
        receipt = st.note_unguarded(tool, prep.preview) if pend is None and prep else None
        seq = st.seq
        rec = st.record(sig)
        if rec is None:
            rec = st.add_record(sig, tool, kind, preview(tool, call.args, s.tools.shell.get(tool)))
        rec.last, rec.kind = seq, kind
        failed = seen.failed and not (kind == kinds.POLL and seen.timed_out)
        when = result.time if result.time is not None else time.time()
        wait = wait if wait is not None else rec.wait
        ev = _record(st, sig, rec, call, (seen, failed), (kind, cid, when, wait), s)
        findings = _run(d.ON_AFTER, Window(st.window), ev, s)
        decision = merge(findings, hard_stop=s.hard_stop)
        already = pend is not None and bool(pend.warned)
        _count(st, decision, counted_warning=already)
        held = pend.answer if pend is not None else None
        if self.hold_warnings and already and held is not None:
            decision = _with_held(decision, _answer(held))
        _settle(st, rec, findings, decision, s, counted=True)
        if call.call_id:
            st.done.append(call.call_id)
        if receipt is not None:
            evidence = {**decision.evidence, "unguarded": receipt}
            decision = Decision(decision.action, decision.codes, decision.message, evidence)
        return decision

    # -- turns, messages, sub-agents ---------------------------------------------------------

    def user_message(self, session_id: str, text: str = "") -> None:
        """Start a new user turn (a genuine user message, not the guard's own nudges).

        A harness's automatic "continue" is not one: counts, caps and a halt go on. A count the
        user asks to rerun something ("run it 10 times") is honoured for the turn.
        """
        if kinds.is_continue(text):
            return
        reruns = kinds.asked_reruns(text)

        def update(st: Session) -> None:
            reset_turn(st.data)
            st.reruns = reruns
            trim(st.data, self.settings.window)
            st.updated = time.time()

        self._apply(session_id, update)

    def assistant_message(
        self, session_id: str, text: str, agent_id: str | None = None
    ) -> Decision:
        """Record user-visible assistant text: new text is progress; repeats are a monologue."""
        body = " ".join(text.split())
        if not body:
            return ALLOW
        digest = text_fingerprint(body)
        said = progress.words(body)

        def update(st: Session) -> Decision:
            talk = st.talk
            talk.same = talk.same + 1 if talk.digest == digest else 1
            talk.digest = digest
            talk.total += 1
            key = progress.watched(agent_id, self.settings)
            novel = key is not None and progress.absorb(st.agent(key), said)
            agent = _record_round(st, agent_id, self.settings, moved=False, novel=novel)
            ev = Event(False, st, agent=agent)
            findings = _run(d.ON_MESSAGE, Window(st.window), ev, self.settings)
            decision = merge(findings)
            _count(st, decision)
            if any(f.code == "TL210" and f.action is Action.WARN for f in findings):
                assert agent is not None
                agent.warned = True
            if decision.action is Action.HALT:
                from tether.redact import redact

                st.halted = redact(decision.message)  # the message may quote text said
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


class _Paired(NamedTuple):
    """A result matched with its call: id, signature, kind, tool, wait and the pending row."""

    cid: str
    sig: str
    kind: str
    tool: str
    wait: float | None
    pend: Pending | None


class _Seen:
    """What a result says, worked out outside the store's lock (its masking only on demand).

    Every result gets a fast hash of its raw text. Volatile tokens are masked (the expensive
    part) only when a call's raw result differs from its last one, the one case where masking
    can change the answer: equal raw texts are equal results, and a call never seen before has
    nothing to be compared with.
    """

    __slots__ = ("_canon", "applied", "failed", "output", "raw", "suffix", "text", "timed_out")

    def __init__(self, result: ToolResult) -> None:
        self.output = result.output
        self.text = raw_text(result.output)  # never stored
        self.suffix = f"\x00{result.exit_code}\x00{int(bool(result.error))}"
        self.raw = raw_fingerprint(self.text + self.suffix)
        code = result.exit_code
        self.failed = bool(result.error) or (code is not None and code != 0)
        self.timed_out = self.failed and kinds.timed_out(result.output, code)
        self.applied = files.applied(result.output)
        self._canon = ""

    def canonical(self) -> str:
        """Return the fingerprint of the result with volatile tokens masked (computed once)."""
        if not self._canon:
            self._canon = text_fingerprint(canonical_result(self.output) + self.suffix)
        return self._canon

    def against(self, rec: SigRecord) -> tuple[str, bool]:
        """Return (this result's identity, whether it equals the call's last result)."""
        if rec.raw and rec.raw == self.raw:
            return rec.res or self.raw, True
        if rec.res:  # the last result's masked form is known (or a state from before raw hashes)
            canon = self.canonical()
            return canon, canon == rec.res
        if rec.raw:  # it changed, and the last one was never masked: mask this one for next time
            return self.canonical(), False
        return self.raw, False  # the first result: nothing to compare

    def grew_from(self, rec: SigRecord) -> bool:
        """Return True when this result extends the call's last one (an append's growing log)."""
        size = int(rec.size)
        return 0 < size < len(self.text) and rec.raw == raw_fingerprint(
            self.text[:size] + self.suffix
        )


# How many other calls may stand between two identical calls of a kind for the second to count
# as a repeat: unknown tools only back to back, reads with one other call between (a read-edit
# -read of the same file is progress elsewhere resetting it; read-grep-read is not). Reads
# further apart count by pass (TL212).
NEAR_REPEATS = {kinds.TOOL: 0, kinds.READ: 1}
# Kinds whose equal results across different arguments are worth counting (TL213).
_ECHO_KINDS = frozenset({kinds.READ, kinds.TOOL})
_ECHO_MIN = 16  # shorter results ("[]", "No matches") are too common to mean anything
# An unknown tool counts only when its name says it reads (a send's acknowledgements are all
# alike): list_comments, get_issue, search_code, fetch_page …
_READ_LIKE = ("get", "list", "search", "fetch", "read", "query", "find", "view", "show", "lookup")


def _run(
    pipeline: tuple[Detector, ...], window: Window, ev: Event, s: LoopSettings
) -> list[Finding]:
    """Run detectors in order; return their findings, then the post-detectors' (TL208)."""
    findings = [f for det in pipeline if (f := det.check(window, ev, s)) is not None]
    if ev.before and findings:
        post = ev._replace(findings=tuple(findings))
        findings += [f for det in d.ON_POST if (f := det.check(window, post, s)) is not None]
    return findings


def _early_answer(
    st: Session, call: ToolCall, prep: _Prepared, approval: Decision | None, sticky: bool
) -> Decision | None:
    """Answer a call the session has seen already (a duplicate, a halted session, a retry)."""
    again = st.pending(call.call_id) if call.call_id else None
    if again is not None and again.sig == prep.sig and again.answered:
        # The same call sent twice (an HTTP hook and its fallback): answer it the same way and
        # count it once.
        return _answer(again.answer)
    if sticky and st.halted:
        st.seq += 1
        st.blocks += 1
        return _halted(st.halted)
    if call.call_id and call.call_id in st.done:
        # Its result is in already (a host retrying an abandoned request after the call ran):
        # count nothing again; the approval review above still judged it.
        return approval if approval is not None and approval.action > Action.ALLOW else ALLOW
    return None


def _open_call(st: Session, call: ToolCall, prep: _Prepared, now: float) -> tuple[SigRecord, str]:
    """Count a call about to be decided; return its record and its kind for this call."""
    st.calls += 1
    st.turn_calls += 1
    talk = st.talk
    talk.same = talk.total = 0
    rec = st.record(prep.sig)
    if rec is None:
        rec = st.add_record(prep.sig, call.tool, prep.kind, prep.preview)
    rec.last = st.seq
    kind, wait = prep.kind, prep.wait
    paused = float(st.paused)
    if paused and kind in _CHECKS:
        kind, wait = kinds.POLL, max(wait or 0.0, paused)  # a check after `sleep N`: a poll
    if kind != kinds.PAUSE:
        st.paused = 0.0
    last_t = rec.t
    gap = now - last_t if last_t is not None else 0.0
    waited = rec.same > 0 and gap >= POLL_GAP_SECONDS and _recent(st, prep.sig, 1)
    if kind in _CHECKS and waited:
        kind = kinds.POLL  # a long gap between identical calls, nothing else between: a wait
    if rec.kind != kind:
        rec.kind = kind
    rec.wait = wait
    return rec, kind


_CHECKS = frozenset({kinds.READ, kinds.EXEC, kinds.TOOL, kinds.POLL})


def _predicted_file(st: Session, call: ToolCall, kind: str) -> FileState | None:
    """Return the file a write would take back to an earlier content (TL211 before), or None."""
    if kind != kinds.WRITE:
        return None
    for change in files.changes(call.tool, call.args):
        f = st.file(change[0]) if change[0] in st.files() else None
        if f is None:
            continue
        token = files.token_after(f.data, change)[0]
        if token != f.token and token in f.seen:
            f.would_return = True
            return f
    return None


def _pair(
    st: Session, call: ToolCall, unnamed: str | None, prep: _Prepared | None
) -> _Paired | Decision | _Unpaired:
    """Match a result with the call it answers (or say why it is not counted)."""
    cid: str | None = call.call_id
    if cid and cid in st.done:
        return ALLOW  # the same result sent twice: recorded once
    if unnamed is not None:
        cid = st.oldest_pending(unnamed)
    pend = st.finish(cid) if cid else None
    if pend is not None and pend.blocked:
        return ALLOW  # the call never ran; its refusal was already counted
    if pend is not None:
        return _Paired(cid or f"#{st.seq}", pend.sig, pend.kind, pend.tool, None, pend)
    if prep is None:  # no before_call seen (or it was evicted)
        return UNPAIRED  # the state is left as it was: see after_call
    st.seq += 1
    st.calls += 1
    return _Paired(cid or f"#{st.seq}", prep.sig, prep.kind, call.tool, prep.wait, None)


def _record(
    st: Session,
    sig: str,
    rec: SigRecord,
    call: ToolCall,
    outcome: tuple[_Seen, bool],
    how: tuple[str, str, float, float | None],
    s: LoopSettings,
) -> Event:
    """Record one result everywhere it counts; return the event the detectors judge."""
    (seen, failed), (kind, cid, when, wait), tool = outcome, how, call.tool
    if kind in NEAR_REPEATS and not _recent(st, sig, NEAR_REPEATS[kind]):
        rec.same = 0  # a re-check after other work: counted by pass (TL212), not in a row
    ident, unchanged = seen.against(rec)
    grew = not failed and not unchanged and seen.grew_from(rec)
    was_failing = rec.fails > 0
    if kind == kinds.READ and not failed:
        _record_read(st, rec, unchanged)
    landed = _record_result(rec, seen, (ident, unchanged), failed, kind, cid, (when, wait))
    streak = _record_tool_streak(st, tool, seen.raw, cid, failed, s)
    file = None if failed or not seen.applied else _record_files(st, call, kind, landed, s)
    if landed:
        st.turn_calls = 0  # the per-turn cap counts calls since the last change
        st.end_tool_streaks(keep=tool)  # edit → rerun: the rerun's earlier failures are history
        st.progress_besides(rec)
    echo = None if failed else _record_echo(st, tool, sig, kind, seen, cid)
    st.finished(st.seq, cid, sig, ident, kind, "fail" if failed else "ok", grew)
    if kind == kinds.PAUSE:
        st.paused = float(wait or 0.0)
    moved = (was_failing and not failed) or kind == kinds.ACT
    agent = _record_round(st, call.agent_id, s, moved=moved)
    return Event(False, st, rec, tool, failed, streak, agent, file, echo)


def _recent(st: Session, sig: str, between: int) -> bool:
    """Return True when ``sig`` was among the last ``between + 1`` calls before this one."""
    entries = st.window
    return any(entry[2] == sig for entry in entries[len(entries) - between - 1 :])


def _record_read(st: Session, rec: SigRecord, unchanged: bool) -> None:
    """Count a read by pass: unchanged, with mostly unchanged re-reads since its last one."""
    reads, rereads = int(st.reads) + 1, int(st.rereads)
    if unchanged and rec.reads_at:
        between = reads - int(rec.reads_at) - 1
        again = rereads - int(rec.rereads_at)
        rereads += 1
        if between >= 2:
            rec.passes = int(rec.passes) + 1 if again * 2 >= between else 0
    else:
        rec.passes = 0
    st.reads, st.rereads = reads, rereads
    rec.reads_at, rec.rereads_at = reads, rereads


def _record_result(
    rec: SigRecord,
    seen: _Seen,
    compared: tuple[str, bool],
    failed: bool,
    kind: str,
    cid: str,
    timing: tuple[float | None, float | None],
) -> bool:
    """Update a signature's streaks with one result; return True when it is progress."""
    (ident, again), (when, wait), last = compared, timing, rec.t
    gap = when - last if when is not None and last is not None else None
    rec.t = round(when, 3) if when is not None else None  # stored: milliseconds are plenty
    rec.size = len(seen.text)
    rec.raw = seen.raw
    rec.res = seen._canon or (rec.res if again else "")
    if failed:
        # Failures are compared by their canonical output: one that moved (a build timing out
        # further along) starts a new streak instead of replaying the last one.
        rec.stubborn = rec.stubborn + 1 if rec.stubborn and again else 1
        rec.fails = rec.fails + 1 if rec.fails and again else 1
        if rec.fails == 1:
            rec.fail_since = cid
        rec.same = 0
        return False
    rec.stubborn = 0
    was_failing = rec.fails > 0
    rec.fails = 0
    if rec.same > 0 and again:
        rec.same += 1
        if kind == kinds.POLL:
            rec.poll_s += max(gap or 0.0, wait or 0.0)
    else:
        rec.same = 1
        rec.since = cid
        rec.blocked = 0
        rec.poll_s = 0.0
    # Progress: a fail→pass transition, an action, or a write, command or unknown tool producing
    # something this call had not produced before. Reads, pauses and bookkeeping never are;
    # writing the same content again is not either.
    if was_failing or kind == kinds.ACT:
        return True
    return kind in (kinds.WRITE, kinds.EXEC, kinds.TOOL) and not again and bool(ident)


def _record_tool_streak(
    st: Session, tool: str, res: str, cid: str, failed: bool, s: LoopSettings
) -> ToolStreak | None:
    """Count the tool's failures in a row (a failure-tolerant tool's only while identical)."""
    streak = st.tool_streak(tool)
    if not failed:
        st.forget_tool(tool)
        return None
    if streak is None or (tool in s.tools.failure_tolerant and streak.res != res):
        streak = st.start_tool_streak(tool, cid, res)  # failing differently: routine
    streak.count += 1
    return streak


def _record_files(
    st: Session, call: ToolCall, kind: str, landed: bool, s: LoopSettings
) -> FileState | None:
    """Follow file contents: writes and edits by hash, git's reverts, unknown commands' effects."""
    if kind == kinds.WRITE:
        last = None
        for change in files.changes(call.tool, call.args):
            last = _change_file(st, change[0], _after_change(change))
        return last if last is not None and last.would_return else None
    command = kinds.shell_command(call.tool, call.args, s.tools)
    if command is None or kind != kinds.EXEC:
        return None
    back = files.reverted(command)
    if back == files.ALL_FILES:
        for path in list(st.files()):
            _change_file(st, path, lambda f: (files.BASE, files.BASE, {}), counted=False)
        st.tree = "0"  # and whatever unknown commands did to the tree
    elif back:
        for path in back:
            if path in st.files():
                _change_file(st, path, lambda f: (files.BASE, files.BASE, {}), counted=False)
    elif landed:  # an unproven command with a new result: some change, of unknown content
        st.tree = format(int(st.tree, 16) ^ files.mix("\x00exec", str(st.seq)), "x")
    return None


def _after_change(change: files.Change) -> Callable[[FileState], tuple[str, str, dict[str, int]]]:
    return lambda f: files.token_after(f.data, change)


def _change_file(
    st: Session,
    path: str,
    after: Callable[[FileState], tuple[str, str, dict[str, int]]],
    *,
    counted: bool = True,
) -> FileState:
    """Move a file to the token ``after`` gives; note a return to an earlier content."""
    f = st.file(path)
    old = f.token
    token, base, delta = after(f)
    f.base, f.delta, f.last = base, delta, st.seq
    if token == old:
        return f
    if counted and token in f.seen:
        f.returns = int(f.returns) + 1
        f.would_return = True  # read by TL211 after the write: it did go back
    seen = [t for t in f.seen if t != old][-15:]
    f.seen = [*seen, old]
    f.token = token
    st.tree = format(int(st.tree, 16) ^ files.mix(path, old) ^ files.mix(path, token), "x")
    return f


def _record_echo(st: Session, tool: str, sig: str, kind: str, seen: _Seen, cid: str) -> Echo | None:
    """Count calls of ``tool`` with different arguments returning the identical result."""
    if kind not in _ECHO_KINDS or len(seen.text) < _ECHO_MIN:
        return None
    if kind == kinds.TOOL and not any(word in tool.lower() for word in _READ_LIKE):
        return None
    echo = st.echo(tool)
    if echo is None or echo.res != seen.raw:
        st.start_echo(tool, seen.raw, cid, sig)
        return None
    if echo.sig != sig:
        echo.count += 1
        echo.sig = sig
    return echo


def _record_round(
    st: Session, agent_id: str | None, s: LoopSettings, *, moved: bool, novel: bool = False
) -> AgentRounds | None:
    """Count a round of a watched agent; progress is what stands: net file changes, new text."""
    key = progress.watched(agent_id, s)
    if key is None:
        return None
    agent = st.agent(key)
    agent.rounds = int(agent.rounds) + 1
    trees = dict(agent.trees or {"0": 0})
    if st.tree not in trees:
        trees[st.tree] = int(agent.rounds)  # the files reached a state not seen before
        if len(trees) > 32:
            del trees[next(iter(trees))]
        agent.trees = trees
    if moved or novel:
        agent.moved = int(agent.rounds)
    if agent.stalled() == 0:
        agent.warned = False  # a new stretch: it may be warned again
    return agent


def _settle(
    st: Session,
    rec: SigRecord,
    findings: list[Finding],
    decision: Decision,
    s: LoopSettings,
    *,
    counted: bool = False,
) -> None:
    """Keep the session's tallies after a decision: counts, live streaks, halt, bounds."""
    if not counted:
        _count(st, decision)
    _streaks(st, rec, findings)
    for f in findings:
        if f.code == "TL210" and f.action is Action.WARN:
            for key in st.data["agents"]:
                st.agent(key).warned = True  # one warning per stretch; the halt follows
    if decision.action is Action.HALT:
        from tether.redact import redact

        st.halted = redact(decision.message)  # the message may quote the command
    trim(st.data, s.window)


def _keep(decision: Decision) -> list[Any]:
    """Return the JSON-ready part of a decision kept for a call's duplicate or its result.

    The message may quote the command: what the state keeps has its credentials masked.
    """
    from tether.redact import redact

    return [int(decision.action), list(decision.codes), redact(decision.message)]


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
        'replies (a harness\'s automatic "continue" is not a reply). Stop now: do not call more '
        f"tools; report to the user what happened. The halt: {message}",
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
