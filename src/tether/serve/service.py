"""What the sidecar does with a request, independent of HTTP: decide within a deadline, fail closed.

A hook event goes through the very functions ``tether hook HOST`` uses (the host adapter's
``parse``, ``render`` and ``render_failure``, the runner's ``describe`` and the same config
loading), so the same payload gets the same reply; only the Guard and its store are shared
across requests instead of being built per process. Stores are opened once per distinct
``store.*`` setting and kept until the service closes; a Guard is kept per (project config,
store, unattended) and rebuilt when that config changes.

Every decision runs in a worker thread the request waits on for at most ``hooks.deadline``
seconds: a hung store or a pathological input becomes the host's deny, never a silent allow.
Calls of one session are serialised (``lock="session"``), or every call (``lock="global"``).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from tether.hosts import adapter
from tether.hosts.events import Kind, Reply, failure_reason
from tether.hosts.runner import (
    DEFAULT_DEADLINE,
    describe,
    dispatch,
    hook_guard,
    parse_event,
    render,
)
from tether.model import ALLOW, Action, Decision
from tether.serve import api
from tether.serve.options import Options
from tether.store import Store

T = TypeVar("T")
FAILURE_CODE = "tether-error"  # the code the hook adapters use for their own fail-closed replies
MAX_GUARDS = 64  # cached guards (one per project config seen); cleared when exceeded
# A project's config is reloaded at most this often (seconds): loading it, even from the JSON
# cache, stats every layer's file, about 0.2 ms that every event would otherwise pay. An edit to
# a config file takes effect within this time.
CONFIG_TTL = 1.0


class DeadlineExceeded(Exception):
    """No decision within the deadline: the request is answered with a deny."""


def failure_decision(cause: str) -> Decision:
    """Return the block the JSON API answers with when it could not decide."""
    return Decision(Action.BLOCK, (FAILURE_CODE,), failure_reason(cause))


def request_error_decision(cause: str) -> Decision:
    """Return the block the JSON API answers a malformed request with (the client's mistake)."""
    return Decision(
        Action.BLOCK,
        (FAILURE_CODE,),
        f"Tether refused this request: {cause}. Fix the request and send it again; "
        "docs/serve.md lists each endpoint's fields.",
    )


class _Locks:
    """One lock per live session (or one for everything), dropped when nobody holds it."""

    def __init__(self, mode: str) -> None:
        self._global = threading.Lock() if mode == "global" else None
        self._table: dict[str, list[Any]] = {}  # session -> [lock, holders and waiters]
        self._guard = threading.Lock()

    @contextmanager
    def hold(self, session_id: str) -> Iterator[None]:
        if self._global is not None:
            with self._global:
                yield
            return
        with self._guard:
            entry = self._table.get(session_id)
            if entry is None:
                entry = self._table[session_id] = [threading.Lock(), 0]
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._guard:
                entry[1] -= 1
                if entry[1] == 0:
                    del self._table[session_id]

    def __len__(self) -> int:
        return len(self._table)


class Service:
    """The shared state of a running sidecar: config, stores, guards, locks and counters."""

    def __init__(
        self,
        options: Options | None = None,
        *,
        environ: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        from tether.config import load_config

        self.options = options or Options()
        self.environ: dict[str, str] = dict(os.environ if environ is None else environ)
        self.cwd = cwd or Path.cwd()
        # Loaded once at start so a broken config stops the service instead of every call.
        self.config = load_config(
            cwd=self.cwd, overrides=self.options.overrides, environ=self.environ
        )
        deadline = self.config.get("hooks.deadline")
        valid = isinstance(deadline, int | float) and not isinstance(deadline, bool)
        self.deadline = float(deadline) if valid and deadline > 0 else DEFAULT_DEADLINE
        self.started = time.time()
        self._clock = time.monotonic()
        self._stores: dict[tuple[Any, ...], Store] = {}
        self._guards: dict[tuple[Any, ...], tuple[Mapping[str, Any], Any]] = {}
        self._configs: dict[Path, tuple[float, Any]] = {}  # cwd -> (loaded at, config)
        self._shared = threading.Lock()  # the store and guard tables
        self._locks = _Locks(self.options.lock)
        self._counts = {"requests": 0, "decisions": 0, "failures": 0, "deadlines": 0}
        self._count_lock = threading.Lock()
        from tether.serve.metrics import Metrics

        self.metrics = Metrics()  # GET /metrics
        self._closed = False
        self.store_backend = str(self.config.get("store.backend"))
        self.store = self._store_for(self.config)
        try:  # read once now: an unreadable file or unreachable Redis stops the service at start
            self.store.load("tether-serve-probe")
        except BaseException:
            self.close()
            raise

    # -- requests ------------------------------------------------------------------------------

    def hook(self, host: str, body: bytes) -> Reply:
        """Answer one hook event for ``host`` exactly as ``tether hook HOST`` would."""
        ad = adapter(host)
        seen: dict[str, str | None] = {"event": None, "route": f"/hook/{host}"}
        self._count("requests")
        try:
            reply = self.within(lambda: self._answer(ad, body, seen))
        except DeadlineExceeded as exc:
            self._count("deadlines")
            self.metrics.failed(f"/hook/{host}", "deadline")
            reply = ad.render_failure(seen["event"], str(exc))
        except BaseException as exc:  # fail closed on everything, as the command hook does
            self._count("failures")
            self.metrics.failed(f"/hook/{host}", "error")
            reply = ad.render_failure(seen["event"], describe(exc))
        else:
            self._count("decisions")
        return reply

    def failure(self, host: str, cause: str) -> Reply:
        """Return ``host``'s fail-closed reply for a request that never reached the guard."""
        self._count("requests")
        self._count("failures")
        reply: Reply = adapter(host).render_failure(None, cause)
        return reply

    def before_call(self, data: Mapping[str, Any]) -> Decision:
        """Decide whether the ToolCall in ``data`` may run (the library's Guard.before_call)."""
        where = "/v1/before_call"
        call = api.tool_call(data, where)
        unattended = api.unattended(data, where)
        return self._run(
            call.session_id,
            lambda: self._guard_for(self.config, None, unattended).before_call(call),
            where,
        )

    def after_call(self, data: Mapping[str, Any]) -> Decision:
        """Record the ToolResult in ``data``; return what the model should know."""
        where = "/v1/after_call"
        result = api.tool_result(data, where)
        unattended = api.unattended(data, where)
        return self._run(
            result.call.session_id,
            lambda: self._guard_for(self.config, None, unattended).after_call(result),
            where,
        )

    def user_message(self, data: Mapping[str, Any]) -> None:
        """Start a new user turn for the session in ``data`` (resets the per-turn call cap)."""
        where = "/v1/user_message"
        session_id, text = api.user_message(data, where)

        def turn() -> Decision:
            self._guard_for(self.config, None, False).user_message(session_id, text)
            return ALLOW

        self._run(session_id, turn)

    def classify(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """Return what ``tether classify --json`` prints for the command in ``data``."""
        from tether.cli.classify import verdict

        text = api.command(data)
        self._count("requests")
        result: dict[str, Any] = self.within(lambda: verdict(text))
        return result

    def health(self) -> dict[str, Any]:
        """Return the service's identity and counters, for ``tether doctor`` and monitors."""
        from importlib.metadata import PackageNotFoundError, version

        try:
            release = version("tether")
        except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
            release = "unknown"
        with self._count_lock:
            counts = dict(self._counts)
        return {
            "status": "ok",
            "service": "tether",
            "version": release,
            "pid": os.getpid(),
            "uptime_s": round(time.monotonic() - self._clock, 3),
            "started": self.started,
            "store": {"backend": self.store_backend, "location": self._location(self.store)},
            "deadline_s": self.deadline,
            "lock": self.options.lock,
            "token_required": bool(self.options.token),
            "active_sessions": len(self._locks),
            **counts,
        }

    def count_failure(self, route: str = "/v1", kind: str = "error") -> None:
        """Count a JSON API request that failed before or during its decision."""
        self._count("failures")
        self.metrics.failed(route, kind)

    # -- machinery -----------------------------------------------------------------------------

    def within(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` in a worker thread; raise DeadlineExceeded if it takes too long."""
        box: list[tuple[bool, Any]] = []
        done = threading.Event()

        def work() -> None:
            try:
                box.append((True, fn()))
            except BaseException as exc:  # handed to the waiting request thread
                box.append((False, exc))
            finally:
                done.set()

        # A daemon thread: one stuck in a hung store must not keep the service from exiting.
        threading.Thread(target=work, name="tether-decide", daemon=True).start()
        if not done.wait(self.deadline):
            raise DeadlineExceeded(f"no decision within the {self.deadline:g} s deadline")
        ok, value = box[0]
        if ok:
            result: T = value
            return result
        raise value

    def _run(self, session_id: str, fn: Callable[[], object], route: str = "") -> Decision:
        self._count("requests")
        started = time.perf_counter()

        def locked() -> object:
            with self._locks.hold(session_id):
                return fn()

        result = self.within(locked)
        if not isinstance(result, Decision):
            raise TypeError(f"the guard returned {type(result).__name__}, not a Decision")
        self._count("decisions")
        if route:
            self.metrics.decided(route, result, time.perf_counter() - started)
        return result

    def _answer(self, ad: ModuleType, body: bytes, seen: dict[str, str | None]) -> Reply:
        # The runner's _answer, minus stdin and the watchdog (the HTTP layer caps the body).
        started = time.perf_counter()
        event = parse_event(ad, body, seen, "the request body")
        if event.kind is Kind.OTHER:
            other: Reply = ad.render(event, ALLOW)  # nothing to decide: no config, no store
            return other
        cwd = Path(event.cwd) if event.cwd and Path(event.cwd).is_dir() else self.cwd
        config = self._config_for(cwd)
        guard = self._guard_for(config, cwd, not ad.CAN_ASK, hook=True)
        with self._locks.hold(event.session_id):
            decision = dispatch(guard, event)
        self.metrics.decided(str(seen["route"]), decision, time.perf_counter() - started)
        return render(ad, event, decision, config, self.environ)

    def _config_for(self, cwd: Path) -> Any:
        """Return the effective config for ``cwd``, as ``tether hook`` loads it, cached briefly."""
        now = time.monotonic()
        with self._shared:
            cached = self._configs.get(cwd)
        if cached is not None and now - cached[0] < CONFIG_TTL:
            return cached[1]
        from tether.config import load_config

        config = load_config(cwd=cwd, overrides=self.options.overrides, environ=self.environ)
        with self._shared:
            if len(self._configs) >= MAX_GUARDS:
                self._configs.clear()
            self._configs[cwd] = (now, config)
        return config

    def _store_for(self, config: Any) -> Store:
        key = self._store_key(config)
        with self._shared:
            store = self._stores.get(key)
            if store is None:
                if self._closed:
                    raise RuntimeError("the service is shutting down")
                from tether.store.open import open_store

                store = self._stores[key] = open_store(config, environ=self.environ)
        return store

    def _store_key(self, config: Any) -> tuple[Any, ...]:
        backend = config.get("store.backend")
        ttl = config.get("store.ttl_days")
        if backend == "sqlite":
            from tether.store.open import sqlite_path

            return ("sqlite", str(sqlite_path(config, self.environ)), ttl)
        if backend == "redis":
            return ("redis", config.get("store.url"), config.get("store.key_prefix"), ttl)
        return (str(backend),)

    def _guard_for(
        self, config: Any, cwd: Path | None, unattended: bool, *, hook: bool = False
    ) -> Any:
        """Return the Guard for ``config``: a hook route's is the one ``tether hook`` builds."""
        store = self._store_for(config)
        key = (str(cwd) if cwd else "", self._store_key(config), unattended, hook)
        values = config.values
        with self._shared:
            cached = self._guards.get(key)
            if cached is not None and cached[0] == values:
                return cached[1]
        if hook:  # a halt sticks until the user speaks; a warning comes once, with the result
            guard = hook_guard(config, store, unattended, self.environ)
        else:  # the JSON API is the library's Guard: its client sees every decision
            from tether.guard import Guard

            guard = Guard(config, store, unattended=unattended, environ=self.environ)
        with self._shared:
            if len(self._guards) >= MAX_GUARDS:
                self._guards.clear()
            self._guards[key] = (values, guard)
        return guard

    @staticmethod
    def _location(store: Store) -> str:
        location = getattr(store, "location", "")
        return str(location) if location else ""

    def _count(self, name: str) -> None:
        with self._count_lock:
            self._counts[name] += 1

    def close(self) -> None:
        """Close every store the service opened (after the server has drained its requests)."""
        with self._shared:
            self._closed = True
            stores = list(self._stores.values())
            self._stores.clear()
            self._guards.clear()
        for store in stores:
            store.close()


__all__ = [
    "FAILURE_CODE",
    "DeadlineExceeded",
    "Service",
    "failure_decision",
    "request_error_decision",
]
