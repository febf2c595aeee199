"""The MCP proxy's wire: a transparent JSON-RPC relay between a client and an upstream server.

MCP over stdio is one JSON-RPC message per line. The relay starts the upstream server, passes
every message through untouched in both directions (initialize, resources, prompts,
completions, logging, progress and list-changed notifications, cancellation, and the server's
own requests such as sampling), and stops only two kinds:

- a client's ``tools/call`` is judged first (:class:`~tether.mcp_proxy.guarded.GuardedTools`):
  a refused call never reaches the upstream and is answered here with an ``isError`` result
  holding the reason; the upstream's answer to an allowed one is recorded and annotated;
- the tool schemas teach the guard which tools are shell-like: the relay lists the upstream's
  tools itself once the session is initialized (and again on ``tools/list_changed``), and a
  ``tools/call`` waits for that listing, so a call is never judged without its tool's schema.

When the upstream fails to start, does not answer ``initialize`` in time, or dies mid-session,
every request still waiting is answered (a ``tools/call`` with an ``isError`` result naming the
cause, anything else with a JSON-RPC error), the cause is printed on stderr in one line and the
relay ends with an exit code that says which (:data:`EXIT_CODES`).
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any

from tether.mcp_proxy.guarded import GuardedTools, error_result, with_output_key
from tether.model import ToolCall

EXIT_OK = 0  # the client closed the session
EXIT_START = 2  # the upstream could not start, exited or stayed silent before initialize
EXIT_LOST = 3  # the upstream died mid-session
EXIT_CODES = {EXIT_OK: "client closed", EXIT_START: "upstream did not start", EXIT_LOST: "lost"}

UPSTREAM_ERROR = -32000  # JSON-RPC server error: the upstream is gone
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603
# The longest message line read, either way (the hook's own input cap); a longer line is
# skipped, never held in memory, and its request, when its id can be read, answered.
MAX_LINE = 32 * 1024 * 1024
_ID_AT_START = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})')


def valid_id(rid: Any) -> bool:
    """Return whether ``rid`` is a request id MCP allows: a string or a number, never null."""
    return isinstance(rid, str | int | float) and not isinstance(rid, bool)


def lines(stream: IO[bytes], limit: int = MAX_LINE) -> Iterator[tuple[bytes | None, bytes]]:
    """Yield each line of ``stream`` (None for one longer than ``limit``) and its first bytes.

    A line over the limit is read on in chunks and dropped, so memory stays bounded whatever
    the peer sends.
    """
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            head = line[:4096]
            while True:
                more = stream.readline(1 << 20)
                if not more or more.endswith(b"\n"):
                    break
            yield None, head
            continue
        yield line, line[:4096]


def id_in(head: bytes) -> Any:
    """Return the request id written near the start of a message, else None (best effort)."""
    found = _ID_AT_START.search(head)
    if found is None:
        return None
    try:
        return json.loads(found.group(1))
    except ValueError:
        return None


class Relay:
    """One client on ``client_in``/``client_out``, one upstream process, one guard."""

    def __init__(
        self,
        tools: GuardedTools,
        client_in: IO[bytes],
        client_out: IO[bytes],
        *,
        init_timeout: float,
        name: str = "tether mcp-proxy",
    ) -> None:
        self.tools = tools
        self.client_in = client_in
        self.client_out = client_out
        self.init_timeout = init_timeout
        self.name = name
        self.upstream: subprocess.Popen[bytes] | None = None
        self._out_lock = threading.Lock()
        self._up_lock = threading.Lock()
        self._lock = threading.Lock()  # guards the maps below
        self._calls: dict[Any, tuple[ToolCall, Any]] = {}  # tools/call id -> call, verdict
        self._lists: set[Any] = set()  # tools/list ids
        self._waiting: dict[Any, str] = {}  # every forwarded client request id -> method
        self._own: dict[str, Callable[[dict[str, Any]], None]] = {}  # the relay's own requests
        self._ids = itertools.count(1)
        self._listed = threading.Event()  # the upstream's tools are known
        self._list_started = False
        self._initialized = threading.Event()
        self._done = threading.Event()
        self._ending = False
        self._exit = EXIT_OK
        self._guard = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tether-mcp-guard")

    # -- running -------------------------------------------------------------------------------

    def run(self, argv: Sequence[str], env: dict[str, str] | None = None) -> int:
        """Start ``argv`` as the upstream and relay until one side ends; return the exit code."""
        try:
            self.upstream = subprocess.Popen(
                list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
            )
        except OSError as exc:
            self._say(f"the upstream MCP server {argv[0]!r} could not start: {exc}")
            return EXIT_START
        for target in (self._read_client, self._read_upstream):
            threading.Thread(target=target, daemon=True).start()
        self._done.wait()
        self._guard.shutdown(wait=True)
        self._stop_upstream()
        return self._exit

    def _finish(self, code: int, cause: str | None) -> None:
        """End the relay once: answer what is waiting, say why, then let ``run`` return."""
        with self._lock:
            if self._ending:
                return
            self._ending = True
            self._exit = code
            waiting, self._waiting = self._waiting, {}
            calls, self._calls = self._calls, {}
        if cause is not None:
            for rid, method in waiting.items():
                if rid in calls:
                    result = self._lost(calls[rid], cause)
                    self._to_client({"jsonrpc": "2.0", "id": rid, "result": result})
                else:
                    error = {
                        "code": UPSTREAM_ERROR,
                        "message": f"{cause} (while answering {method})",
                    }
                    self._to_client({"jsonrpc": "2.0", "id": rid, "error": error})
            self._say(cause)
        self._done.set()

    def _init_expired(self) -> None:
        if not self._initialized.is_set():
            self._finish(
                EXIT_START,
                "the upstream MCP server did not answer initialize within "
                f"{self.init_timeout:g} s (raise it with --init-timeout)",
            )

    def _lost(self, pending: tuple[ToolCall, Any], cause: str) -> dict[str, Any]:
        try:
            return self.tools.failed(pending[0], cause)
        except Exception:  # recording is best effort: the client still gets the cause
            return error_result(cause)

    def _stop_upstream(self) -> None:
        proc = self.upstream
        if proc is None or proc.poll() is not None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()
            proc.wait(timeout=3)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()

    def _exit_cause(self) -> str:
        proc = self.upstream
        try:
            code = proc.wait(timeout=5) if proc is not None else None
        except subprocess.TimeoutExpired:
            code = None
        if code is None:
            how = "closed its output"
        elif code < 0:
            how = f"was killed by signal {-code}"
        else:
            how = f"exited with code {code}"
        when = "mid-session" if self._initialized.is_set() else "before answering initialize"
        return f"the upstream MCP server {how} {when}"

    # -- client -> upstream --------------------------------------------------------------------

    def _read_client(self) -> None:
        for line, head in lines(self.client_in):
            if self._ending:
                return
            if line is None:
                self._refuse(id_in(head), f"the message is longer than {MAX_LINE} bytes")
                continue
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except (ValueError, RecursionError) as exc:  # 100,000-deep nesting too
                error = {"code": PARSE_ERROR, "message": f"not JSON: {type(exc).__name__}"}
                self._to_client({"jsonrpc": "2.0", "id": None, "error": error})
                continue
            for item in message if isinstance(message, list) else [message]:
                try:
                    self._from_client(item)
                except Exception as exc:  # never let one message end the session
                    rid = item.get("id") if isinstance(item, dict) else None
                    self._refuse(rid, f"Tether could not handle it ({type(exc).__name__})")
        self._finish(EXIT_OK, None)  # the client closed the session

    def _refuse(self, rid: Any, why: str, code: int = INVALID_REQUEST) -> None:
        """Answer a request that is not passed on with a JSON-RPC error (id null if unusable)."""
        error = {"code": code, "message": f"Tether refused this request: {why}"}
        self._to_client({"jsonrpc": "2.0", "id": rid if valid_id(rid) else None, "error": error})

    def _from_client(self, message: Any) -> None:
        if not isinstance(message, dict):
            self._refuse(None, "a JSON-RPC message is an object")
            return
        method = message.get("method")
        if method is None:  # an answer to the upstream's own request (sampling, roots …)
            self._to_upstream(message)
            return
        if "id" not in message:  # a notification: no answer is expected
            if method == "tools/call":
                # A call sent as a notification still runs upstream: never pass it unjudged,
                # and there is nobody to tell.
                self._say("refused a tools/call sent without an id (never passed on)")
                return
            self._to_upstream(message)
            if method == "notifications/initialized":
                self._relist()
            return
        rid = message["id"]
        if not valid_id(rid):
            self._refuse(None, f"its id must be a string or a number, got {json.dumps(rid)[:40]}")
            return
        if not isinstance(method, str):
            self._refuse(rid, "its method must be a string")
            return
        with self._lock:
            self._waiting[rid] = method
            if method == "tools/list":
                self._lists.add(rid)
        if method == "initialize":  # the clock for a silent upstream starts now
            timer = threading.Timer(self.init_timeout, self._init_expired)
            timer.daemon = True
            timer.start()
        if method == "tools/call":
            self._guard.submit(self._judged_call, message)
        else:
            self._to_upstream(message)

    def _judged_call(self, message: dict[str, Any]) -> None:
        """Judge a call on a guard thread; any error there refuses it (never passes it on)."""
        try:
            self._judge_call(message)
        except Exception as exc:
            rid = message["id"]
            with self._lock:
                self._waiting.pop(rid, None)
                self._calls.pop(rid, None)
            text = (
                f"Tether could not check this call ({type(exc).__name__}: {exc}), so it is "
                "refused (fail closed)."
            )
            self._to_client({"jsonrpc": "2.0", "id": rid, "result": error_result(text)})

    def _judge_call(self, message: dict[str, Any]) -> None:
        rid = message["id"]
        params = message.get("params")
        if not self._list_started:  # a client that never sent notifications/initialized
            self._relist()
        if self._listed.wait(self.init_timeout):
            verdict = self.tools.before(params if isinstance(params, dict) else {}, f"mcp-{rid}")
        else:  # never judge a call without its tool's schema: fail closed
            verdict = error_result(
                "Tether could not learn the upstream MCP server's tools (tools/list gave no "
                f"answer within {self.init_timeout:g} s), so this call is refused (fail closed)."
            )
        if isinstance(verdict, dict):  # refused: answered here, the upstream never sees it
            with self._lock:
                self._waiting.pop(rid, None)
            self._to_client({"jsonrpc": "2.0", "id": rid, "result": verdict})
            return
        with self._lock:
            if rid not in self._waiting:  # cancelled, or the upstream is gone
                return
            self._calls[rid] = verdict
        self._to_upstream(message)

    # -- upstream -> client --------------------------------------------------------------------

    def _read_upstream(self) -> None:
        proc = self.upstream
        assert proc is not None and proc.stdout is not None
        for line, head in lines(proc.stdout):
            if line is None:
                self._oversized_answer(id_in(head))
                continue
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except (ValueError, RecursionError):
                continue  # not a message: a chatty server's stray output
            for item in message if isinstance(message, list) else [message]:
                try:
                    self._from_upstream(item)
                except Exception as exc:  # one bad message must not end the session
                    self._say(f"dropped a message from the upstream ({type(exc).__name__})")
        code = EXIT_LOST if self._initialized.is_set() else EXIT_START
        self._finish(code, self._exit_cause())

    def _oversized_answer(self, rid: Any) -> None:
        """Answer the request whose reply was too long to read (when its id could be read)."""
        cause = f"the upstream's answer is longer than {MAX_LINE} bytes"
        self._say(f"dropped an answer from the upstream: {cause}")
        if not valid_id(rid):
            return
        with self._lock:
            method = self._waiting.pop(rid, None)
            pending = self._calls.pop(rid, None)
            self._lists.discard(rid)
        if pending is not None:
            self._to_client({"jsonrpc": "2.0", "id": rid, "result": self._lost(pending, cause)})
        elif method is not None:
            error = {"code": INTERNAL_ERROR, "message": f"{cause} (while answering {method})"}
            self._to_client({"jsonrpc": "2.0", "id": rid, "error": error})

    def _from_upstream(self, message: Any) -> None:
        if not isinstance(message, dict) or "method" in message or "id" not in message:
            self._to_client(message)  # the server's own requests and notifications
            if isinstance(message, dict) and message.get("method") == (
                "notifications/tools/list_changed"
            ):
                self._relist()
            return
        rid = message["id"]
        if not valid_id(rid):
            self._to_client(message)  # not an answer to anything the client asked
            return
        with self._lock:
            own = self._own.pop(rid, None) if isinstance(rid, str) else None
        if own is not None:
            own(message)
            return
        with self._lock:
            method = self._waiting.pop(rid, None)
            pending = self._calls.pop(rid, None)
            listing = rid in self._lists
            self._lists.discard(rid)
        if method == "initialize":
            self._initialized.set()
        result = message.get("result")
        if listing and isinstance(result, dict):
            message = {**message, "result": self._learned(result)}
        if pending is not None and isinstance(result, dict):
            self._guard.submit(self._record, message, pending)
            return
        self._to_client(message)

    def _relist(self, cursor: str | None = None) -> None:
        """Ask the upstream for its tools (page by page) and learn them before judging calls."""
        if cursor is None:
            self._list_started = True
            self._listed.clear()
        rid = f"tether-proxy-{next(self._ids)}"
        with self._lock:
            self._own[rid] = self._listing_page
        params = {"cursor": cursor} if cursor else {}
        self._to_upstream({"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": params})

    def _listing_page(self, message: dict[str, Any]) -> None:
        result = message.get("result")
        if isinstance(result, dict):
            self.tools.learn(t for t in result.get("tools") or () if isinstance(t, dict))
            cursor = result.get("nextCursor")
            if isinstance(cursor, str) and cursor:
                self._relist(cursor)
                return
        self._listed.set()  # an error answer too: a server without tools has none to learn

    def _learned(self, result: dict[str, Any]) -> dict[str, Any]:
        listed = [t for t in result.get("tools") or () if isinstance(t, dict)]
        self.tools.learn(listed)
        return {**result, "tools": [with_output_key(t) for t in listed]}

    def _record(self, message: dict[str, Any], pending: tuple[ToolCall, Any]) -> None:
        call, before = pending
        result = self.tools.after(call, before, message["result"])
        self._to_client({**message, "result": result})

    # -- writing -------------------------------------------------------------------------------

    def _to_client(self, message: Any) -> None:
        self._write(self.client_out, self._out_lock, message, on_error=None)

    def _to_upstream(self, message: Any) -> None:
        proc = self.upstream
        if proc is None or proc.stdin is None:
            return
        self._write(proc.stdin, self._up_lock, message, on_error=self._upstream_gone)

    def _upstream_gone(self) -> None:
        code = EXIT_LOST if self._initialized.is_set() else EXIT_START
        self._finish(code, self._exit_cause())

    @staticmethod
    def _write(
        stream: IO[bytes], lock: threading.Lock, message: Any, on_error: Callable[[], None] | None
    ) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        try:
            with lock:
                stream.write(data)
                stream.flush()
        except (OSError, ValueError):  # a closed pipe
            if on_error is not None:
                on_error()

    def _say(self, cause: str) -> None:
        sys.stderr.write(f"{self.name}: {cause}\n")
        sys.stderr.flush()


__all__ = ["EXIT_LOST", "EXIT_OK", "EXIT_START", "Relay"]
