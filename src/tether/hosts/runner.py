"""Run one hook event end to end: read stdin, decide within a deadline, print, never fail open.

Hosts start ``tether hook <host>`` once per event. Whatever goes wrong in here (malformed JSON,
a config error, a locked or corrupt store, a bug, a hang) is turned into the host's deny with
the cause in the reason, because Claude Code, Codex and Gemini CLI all let a call through when a
hook crashes, times out or exits with an unexpected status.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import IO, Any

from tether.hosts import adapter
from tether.hosts.events import FAILED_CLOSED, HookEvent, Kind, Reply
from tether.model import ALLOW, Decision

DEFAULT_DEADLINE = 15.0
# Under the host's timeout whatever any layer says (tether.config.schema.HOOK_DEADLINE_MAX, a
# test keeps the two equal; importing the schema here would cost the watchdog its head start).
MAX_DEADLINE = 25.0
DEADLINE_ENV = "TETHER_HOOKS__DEADLINE"
MAX_INPUT = 32 * 1024 * 1024  # bytes; tool responses can be large, but not unbounded
# (config, environ) -> an open store the caller keeps and closes.
StoreSource = Callable[[Any, Mapping[str, str] | None], Any]


BLOCKING_EXIT = 2  # every host treats exit status 2 as "blocked", the reason on stderr


class _Output:
    """Prints exactly one reply, from the main thread, the watchdog or a signal, first wins."""

    def __init__(self, stdout: IO[str], stderr: IO[str]) -> None:
        self._stdout = stdout
        self._stderr = stderr
        self._lock = threading.Lock()
        self.done = threading.Event()
        self.code = BLOCKING_EXIT  # the status that goes with what was printed

    def emit(self, reply: Reply) -> bool:
        """Print ``reply`` unless another one was printed already; return whether it printed.

        When stdout is gone (the host closed the pipe) the reason goes to stderr with exit
        status 2, which blocks in every host, instead of a crash that lets the call run.
        """
        if not self._lock.acquire(blocking=False):
            return False
        self.code = reply.exit_code
        try:
            if reply.stdout:
                self._stdout.write(reply.stdout)
                self._stdout.flush()
        except (OSError, ValueError):
            self.code = BLOCKING_EXIT
            reply = reply._replace(stderr=reply.stderr or f"{FAILED_CLOSED}: stdout is closed\n")
        with contextlib.suppress(OSError, ValueError):  # nowhere left to say it
            if reply.stderr:
                self._stderr.write(reply.stderr)
                self._stderr.flush()
        self.done.set()
        return True

    def emit_and_exit(self, reply: Reply, exit_now: Callable[[int], None]) -> None:
        """Print ``reply`` (or wait for the one being printed), then end with its status."""
        if not self.emit(reply):
            self.done.wait(5.0)
        exit_now(self.code)


class Watchdog:
    """Fails closed at the deadline: prints the host's deny and ends the process at once."""

    def __init__(self, seconds: float, fire: Callable[[float], None]) -> None:
        self._start = time.monotonic()
        self._seconds = seconds
        self._fire = fire
        self._wake = threading.Event()
        self._done = False
        self._thread = threading.Thread(target=self._run, name="tether-watchdog", daemon=True)
        self._thread.start()

    def set_deadline(self, seconds: float) -> None:
        """Move the deadline to ``seconds`` after the start (config is read after stdin)."""
        self._seconds = seconds
        self._wake.set()

    def stop(self) -> None:
        """Disarm the watchdog."""
        self._done = True
        self._wake.set()

    def _run(self) -> None:
        while not self._done:
            remaining = self._start + self._seconds - time.monotonic()
            if remaining <= 0:
                self._fire(self._seconds)
                return
            self._wake.wait(remaining)
            self._wake.clear()


def initial_deadline(environ: Mapping[str, str]) -> float:
    """Return the deadline to use before the config is loaded (env override, else default)."""
    text = environ.get(DEADLINE_ENV, "")
    try:
        value = float(text) if text else DEFAULT_DEADLINE
    except ValueError:
        return DEFAULT_DEADLINE
    return min(value, MAX_DEADLINE) if value > 0 else DEFAULT_DEADLINE


def run_hook(
    host: str,
    *,
    stdin: IO[bytes] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    environ: Mapping[str, str] | None = None,
    exit_on_deadline: Callable[[int], None] = os._exit,
    hold_signals: bool = False,
    stores: StoreSource | None = None,
    agent_environ: Mapping[str, str] | None = None,
) -> int:
    """Answer one hook event from ``stdin`` for ``host``; return the exit status to use.

    SIGTERM, SIGHUP, SIGINT and SIGPIPE print the host's deny and end the process through
    ``exit_on_deadline`` (see ``tether.hosts.interrupts``). ``hold_signals`` keeps them
    caught after the return, for a caller that exits right away: a signal during its teardown
    then still exits with the printed reply's status rather than 128 + N. ``stores`` gives a
    long-lived process (the daemon) its open stores; by default each event opens the
    configured store and closes it. ``agent_environ`` is the environment of the agent whose
    call is judged, when it is not the one the config and store are read with (the managed
    daemon: the administrator's config, the caller's home and folders).
    """
    from tether.hosts.interrupts import SIGNALS, Interrupts

    ad = adapter(host)
    env = os.environ if environ is None else environ
    out = _Output(stdout or sys.stdout, stderr or sys.stderr)
    seen: dict[str, str | None] = {"event": None}

    def on_deadline(seconds: float) -> None:
        reply = ad.render_failure(seen["event"], f"no decision within the {seconds:g} s deadline")
        if out.emit(reply):
            exit_on_deadline(out.code)

    def on_signal(signum: int) -> None:
        cause = f"the hook process got {SIGNALS[signum]} before it could decide"
        out.emit_and_exit(ad.render_failure(seen["event"], cause), exit_on_deadline)

    interrupts = Interrupts.arm(on_signal)
    watchdog = Watchdog(initial_deadline(env), on_deadline)
    try:
        reply = _answer(ad, stdin or sys.stdin.buffer, env, seen, watchdog, stores, agent_environ)
    except BaseException as exc:  # fail closed on everything, even SystemExit from a library
        reply = ad.render_failure(seen["event"], describe(exc))
    watchdog.stop()
    out.emit(reply)
    if interrupts is not None and not hold_signals:
        interrupts.disarm()
    return out.code


def describe(exc: BaseException) -> str:
    """Return a one-line cause for the reason text: the error's class and message."""
    text = str(exc).strip().replace("\n", " ")
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


def _answer(
    ad: ModuleType,
    stream: IO[bytes],
    environ: Mapping[str, str],
    seen: dict[str, str | None],
    watchdog: Watchdog,
    stores: StoreSource | None = None,
    agent_environ: Mapping[str, str] | None = None,
) -> Reply:
    raw = stream.read(MAX_INPUT + 1)
    if len(raw) > MAX_INPUT:
        raise ValueError(f"hook input is larger than {MAX_INPUT} bytes")
    event = parse_event(ad, raw, seen, "stdin")
    if event.kind is Kind.OTHER:
        other: Reply = ad.render(event, ALLOW)  # nothing to decide: no config, no store
        return other
    from pathlib import Path  # only once there is something to decide: the config needs it

    from tether.config import load_config

    cwd = Path(event.cwd) if event.cwd and os.path.isdir(event.cwd) else None
    config = load_config(cwd=cwd, environ=environ)
    deadline = config.get("hooks.deadline")
    if isinstance(deadline, int | float) and not isinstance(deadline, bool) and deadline > 0:
        watchdog.set_deadline(min(float(deadline), MAX_DEADLINE))
    decision = decide(
        event,
        config,
        unattended=not ad.CAN_ASK,
        environ=environ,
        stores=stores,
        agent_environ=agent_environ,
    )
    return render(ad, event, decision, config, environ)


def render(
    ad: ModuleType, event: HookEvent, decision: Decision, config: Any, environ: Mapping[str, str]
) -> Reply:
    """Return the host's reply to ``event``, with the once-per-session trust notice if due."""
    reply: Reply = ad.render(event, decision)
    if config.ignored:  # an untrusted project file could not loosen the guard: say so once
        from tether.config.core import trust_notice
        from tether.hosts.notice import with_notice

        reply = with_notice(reply, event.session_id, trust_notice(config.ignored), environ)
    receipt = decision.evidence.get("unguarded") if event.kind is Kind.POST else None
    if isinstance(receipt, dict):  # a call ran without a decision: the guard tells this once
        from tether.hosts.notice import with_notice
        from tether.hosts.receipts import notice

        reply = with_notice(reply, event.session_id, notice(receipt, ad.PRE), environ)
    return reply


def parse_event(ad: ModuleType, raw: bytes, seen: dict[str, str | None], source: str) -> HookEvent:
    """Parse a host's JSON payload into a ``HookEvent``, noting its event name in ``seen``."""
    try:
        payload = json.loads(raw)
    except ValueError as exc:
        raise ValueError(f"{source} is not valid JSON ({exc})") from None
    if isinstance(payload, dict) and isinstance(payload.get("hook_event_name"), str):
        seen["event"] = payload["hook_event_name"]
    event: HookEvent = ad.parse(payload)
    return event


def decide(
    event: HookEvent,
    config: Any,
    *,
    unattended: bool,
    environ: Mapping[str, str] | None = None,
    stores: StoreSource | None = None,
    agent_environ: Mapping[str, str] | None = None,
) -> Decision:
    """Feed ``event`` to a Guard backed by the configured store; return its decision."""
    judged = environ if agent_environ is None else agent_environ
    if stores is not None:
        return dispatch(hook_guard(config, stores(config, environ), unattended, judged), event)
    from tether.store.open import open_store

    store = open_store(config, environ=environ)
    try:
        return dispatch(hook_guard(config, store, unattended, judged), event)
    finally:
        store.close()


def hook_guard(
    config: Any, store: Any, unattended: bool, environ: Mapping[str, str] | None = None
) -> Any:
    """Return the Guard a hook event is judged by, over ``store`` (hook processes, sidecar).

    ``environ`` is the environment of the host that sent the event (the daemon and the sidecar
    judge events from processes other than themselves): the self-protection rules read it.
    """
    from tether.guard import Guard

    # A hook host shows the model one message per call and may not stop the agent: hold a
    # warning until the result, and keep refusing calls after a halt until the user speaks.
    return Guard(
        config,
        store,
        unattended=unattended,
        sticky_halt=True,
        hold_warnings=True,
        environ=os.environ if environ is None else environ,
    )


def dispatch(guard: Any, event: HookEvent) -> Decision:
    """Feed ``event`` to ``guard`` and return its decision (ALLOW for events that only inform)."""
    result: object = ALLOW
    if event.kind is Kind.PRE and event.call is not None:
        result = guard.before_call(event.call, cwd=event.cwd)
    elif event.kind is Kind.POST and event.result is not None:
        result = guard.after_call(event.result)
    elif event.kind is Kind.PROMPT:
        guard.user_message(event.session_id, event.text)
    elif event.kind is Kind.SUBAGENT_START and event.agent_id:
        guard.subagent_start(event.session_id, event.agent_id)
    elif event.kind is Kind.ASSISTANT:
        # Monologue warnings reach the user (a Stop hook's "block" would keep the agent
        # talking, so adapters never render one for this kind).
        result = guard.assistant_message(event.session_id, event.text, event.agent_id)
    elif event.kind is Kind.SUBAGENT_STOP and event.agent_id:
        if event.text:  # its last visible message is progress for the sub-agent
            guard.assistant_message(event.session_id, event.text, event.agent_id)
        guard.subagent_stop(event.session_id, event.agent_id)
    if not isinstance(result, Decision):
        raise TypeError(f"the guard returned {type(result).__name__}, not a Decision")
    return result
