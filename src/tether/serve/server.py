"""The HTTP face of the sidecar: routes, the bearer token, the body cap and a clean shutdown.

Routes::

    POST /hook/claude-code | /hook/codex | /hook/gemini   host hook JSON in, the hook's reply out
    POST /v1/before_call   ToolCall JSON   -> Decision JSON
    POST /v1/after_call    ToolResult JSON -> Decision JSON
    POST /v1/classify      {"command": …}  -> Classification JSON
    POST /v1/user_message  {"session_id": …, "text": …}  -> {"ok": true} (a new user turn)
    GET  /health           {"status": "ok", "service": "tether"}; with the token, also the
                           version, pid, uptime, store and counters

A hook route always answers 200 with the body the command hook would print, because Claude Code
treats any other status as a non-blocking error and lets the call through: a missing or wrong
token, an over-size or malformed body, a crash or the deadline all become the host's deny. The
full reply (stdout, stderr, exit status, for Codex and Gemini denies that use exit 2) is in the
``X-Tether-Exit-Code`` header and, with ``?envelope=1``, in a JSON envelope. The JSON API
answers errors with the matching 4xx/5xx status and a blocking Decision as the body.

Before any route, ``tether.serve.gate`` refuses what a web page could send (an ``Origin`` or
``Sec-Fetch-Site`` header, a ``Host`` that is not loopback on a loopback server, a ``POST``
that is not ``application/json``): a hook route answers those with the host's deny too.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import signal
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import IO, Any
from urllib.parse import parse_qs, urlsplit

from tether.errors import InputError
from tether.hosts import HOSTS
from tether.hosts.events import Reply
from tether.serve import api, gate
from tether.serve.options import Options, is_loopback
from tether.serve.service import (
    DeadlineExceeded,
    Service,
    failure_decision,
    request_error_decision,
)

HOOK_PREFIX = "/hook/"
API_ROUTES = ("/v1/before_call", "/v1/after_call", "/v1/classify", "/v1/user_message")
IDLE_TIMEOUT = 120.0  # seconds an idle keep-alive connection may stay open
MAX_CONNECTIONS = 512  # open connections, each with its own thread
# Connections beyond MAX_CONNECTIONS are answered (a hook route: the host's deny; anything
# else: 503) by a few overflow threads, each reading the request for at most OVERFLOW_SECONDS.
# Only past OVERFLOW_QUEUE waiting on them is a connection closed unanswered.
OVERFLOW_THREADS = 4
OVERFLOW_QUEUE = 1024
OVERFLOW_SECONDS = 2.0
# Connections the kernel queues before accept(): socketserver's 5 reset or stalled a burst of 8+,
# and Claude Code lets the call run when its HTTP hook's connection is reset.
BACKLOG = 512
JSON = "application/json"


class SidecarServer(ThreadingHTTPServer):
    """A threading HTTP server that drains in-flight requests before it closes."""

    daemon_threads = False  # server_close() joins request threads: in-flight requests finish
    request_queue_size = BACKLOG
    block_on_close = True
    allow_reuse_address = True

    def __init__(self, service: Service, options: Options | None = None) -> None:
        self.service = service
        self.options = options or service.options
        self.closing = threading.Event()
        self._connections: dict[socket.socket, bool] = {}  # socket -> busy with a request
        self._conn_lock = threading.Lock()
        self._overflow: Any = None  # answers connections over the cap (made on first need)
        host = self.options.host.strip("[]")
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.loopback = is_loopback(host)  # then the Host header must name loopback too
        super().__init__((host, self.options.port), Handler)

    def server_bind(self) -> None:
        """Bind without HTTPServer's reverse DNS lookup of the host (slow on some machines)."""
        import socketserver

        socketserver.TCPServer.server_bind(self)
        address = self.server_address
        self.server_name = str(address[0])
        self.server_port = int(address[1])

    @property
    def url(self) -> str:
        """Return the base URL the server answers on."""
        host = self.server_name
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.server_port}"

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve a connection on its own thread, or, beyond MAX_CONNECTIONS, answer it a deny.

        Claude Code lets a call run when its HTTP hook's connection is closed without a reply,
        so a connection over the cap is never just dropped: an overflow thread reads its
        request and answers the host's deny (``overflow.py``).
        """
        with self._conn_lock:
            over = len(self._connections) >= MAX_CONNECTIONS
        if not over:
            super().process_request(request, client_address)
            return
        if self._overflow is None:
            from tether.serve.overflow import Overflow

            self._overflow = Overflow(
                self.service, OVERFLOW_THREADS, OVERFLOW_QUEUE, OVERFLOW_SECONDS, MAX_CONNECTIONS
            )
        if not self._overflow.take(request):
            self.shutdown_request(request)

    def track(self, conn: socket.socket, busy: bool | None) -> None:
        """Record a connection as busy or idle (None: it is gone)."""
        with self._conn_lock:
            if busy is None:
                self._connections.pop(conn, None)
            else:
                self._connections[conn] = busy

    def drain(self) -> None:
        """Stop keep-alive: idle connections are closed now, busy ones after their reply."""
        self.closing.set()
        with self._conn_lock:
            idle = [conn for conn, busy in self._connections.items() if not busy]
        for conn in idle:
            with contextlib.suppress(OSError):  # already closed by the client
                conn.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        """Stop serving (from another thread than serve_forever), finish requests, close."""
        self.shutdown()
        self.drain()
        self.server_close()
        self.service.close()


class Handler(BaseHTTPRequestHandler):
    """One connection: keep-alive HTTP/1.1, every request routed to the service."""

    server: SidecarServer
    protocol_version = "HTTP/1.1"
    # Headers and body go out in one write with Nagle off: otherwise a kept-alive client waits
    # for its delayed ACK (about 40 ms) before the second segment of every reply.
    disable_nagle_algorithm = True
    wbufsize = -1
    timeout = IDLE_TIMEOUT

    def version_string(self) -> str:
        """Return the Server header: the product only (no Python version to fingerprint)."""
        return "tether"

    # -- connection bookkeeping (for a clean shutdown) -----------------------------------------

    def setup(self) -> None:
        super().setup()
        self.server.track(self.connection, False)

    def finish(self) -> None:
        self.server.track(self.connection, None)
        super().finish()

    def parse_request(self) -> bool:
        self.server.track(self.connection, True)
        return super().parse_request()

    def handle_one_request(self) -> None:
        super().handle_one_request()
        self.server.track(self.connection, False)
        if self.server.closing.is_set():
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet per request: a hook service logs nothing on the hot path."""

    # -- routes --------------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path not in ("/health", "/metrics"):
            self._not_found(path)
            return
        refused = self._refused()
        if refused:
            self._json(403, {"error": refused})
        elif path == "/metrics":
            if self._authorised():
                from tether.serve.metrics import CONTENT_TYPE

                self._send(200, self.server.service.metrics.exposition(), CONTENT_TYPE, {})
            else:
                self._json(401, {"error": self._auth_problem()})
        elif self._authorised():
            self._json(200, self.server.service.health())
        else:  # alive, and nothing else: no version, pid or store path before the token
            self._json(200, {"status": "ok", "service": "tether", "token_required": True})

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        path = parts.path
        if path.startswith(HOOK_PREFIX) and path[len(HOOK_PREFIX) :] in HOSTS:
            query = parse_qs(parts.query)
            self._hook(path[len(HOOK_PREFIX) :], query.get("envelope", ["0"])[0] == "1")
        elif path in API_ROUTES:
            self._api(path)
        else:
            self._not_found(path)

    def _refused(self) -> str:
        """Return why this request is refused before routing (browser, foreign Host), or ''."""
        server = self.server
        found = gate.problem(self.headers, self.command, server.server_port, server.loopback)
        if found:
            self.close_connection = True  # the body (if any) is never read
        return found

    def _hook(self, host: str, envelope: bool) -> None:
        service = self.server.service
        # A refused hook request is still answered 200 with the host's deny: a legitimate host
        # behind a wrong URL or header must not read a 4xx as "go ahead" (Claude Code does).
        refused = self._refused()
        if refused:
            self._reply(service.failure(host, refused), envelope)
            return
        if not self._authorised():
            self._reply(service.failure(host, self._auth_problem()), envelope)
            return
        body, problem = self._body()
        if problem:
            self._reply(service.failure(host, problem), envelope)
            return
        self._reply(service.hook(host, body), envelope)

    def _api(self, path: str) -> None:
        service = self.server.service
        refused = self._refused()
        if refused:
            self._api_error(415 if "Content-Type" in refused else 403, refused)
            return
        if not self._authorised():
            self._api_error(401, self._auth_problem())
            return
        body, problem = self._body()
        if problem:
            self._api_error(413 if "larger" in problem else 400, problem)
            return
        try:
            data = api.load_object(body, path)
            result: dict[str, Any]
            if path == "/v1/before_call":
                result = service.before_call(data).to_json()
            elif path == "/v1/after_call":
                result = service.after_call(data).to_json()
            elif path == "/v1/user_message":
                service.user_message(data)
                result = {"ok": True}
            else:
                result = service.classify(data)
        except InputError as exc:
            self._api_error(400, str(exc))
        except DeadlineExceeded as exc:
            self._api_error(503, str(exc))
        except Exception as exc:  # fail closed: the body is a block, the status says why
            from tether.hosts.runner import describe

            self._api_error(500, describe(exc))
        else:
            self._json(200, result)

    # -- helpers -------------------------------------------------------------------------------

    def _authorised(self) -> bool:
        token = self.server.options.token
        if not token:
            return True
        header = self.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(given.strip().encode(), token.encode())

    def _auth_problem(self) -> str:
        if "Authorization" not in self.headers:
            return (
                "the request has no 'Authorization: Bearer <token>' header and this tether "
                "serve requires one; add it to the hook's headers (see docs/serve.md)"
            )
        return "the bearer token does not match the one tether serve was started with"

    def _body(self) -> tuple[bytes, str]:
        """Return the request body, or a problem; on a problem the connection is closed."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True
            return b"", "chunked request bodies are not supported; send a Content-Length"
        raw = self.headers.get("Content-Length")
        try:
            length = int(raw) if raw is not None else -1
        except ValueError:
            length = -1
        if length < 0:
            self.close_connection = True
            return b"", f"expected a Content-Length header with the body's size, got {raw!r}"
        cap = self.server.options.max_body
        if length > cap:
            self.close_connection = True  # the body is never read: the connection is spent
            return b"", f"the request body is larger than {cap} bytes ({length})"
        body = self.rfile.read(length)
        if len(body) != length:
            self.close_connection = True
            return b"", f"the request body ended after {len(body)} of {length} bytes"
        return body, ""

    def _reply(self, reply: Reply, envelope: bool) -> None:
        headers = {"X-Tether-Exit-Code": str(reply.exit_code)}
        if envelope:
            doc = {"exit_code": reply.exit_code, "stdout": reply.stdout, "stderr": reply.stderr}
            self._send(200, json.dumps(doc, ensure_ascii=False).encode(), JSON, headers)
        else:
            self._send(200, reply.stdout.encode("utf-8", "surrogatepass"), JSON, headers)

    def _api_error(self, status: int, cause: str) -> None:
        kind = "request" if status < 500 else "deadline" if status == 503 else "error"
        self.server.service.count_failure(self.path.split("?", 1)[0], kind)
        # 4xx: the client's mistake, which `tether doctor` cannot fix; 5xx: Tether's own.
        decision = request_error_decision(cause) if status < 500 else failure_decision(cause)
        self._json(status, {**decision.to_json(), "error": cause})

    def _not_found(self, path: str) -> None:
        routes = ", ".join([*(HOOK_PREFIX + h for h in HOSTS), *API_ROUTES, "/health"])
        self.close_connection = True  # the body (if any) was not read
        self._json(404, {"error": f"no route {self.command} {path}; routes: {routes}"})

    def _json(self, status: int, doc: dict[str, Any]) -> None:
        self._send(status, json.dumps(doc, ensure_ascii=False).encode(), JSON, {})

    def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        if self.close_connection or self.server.closing.is_set():
            self.close_connection = True
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)  # buffered with the headers; handle_one_request() flushes once


def serve_until_signal(server: SidecarServer, announce: IO[str] | None = None) -> int:
    """Serve until SIGTERM or SIGINT, then finish in-flight requests and close; return 0."""
    out = announce or sys.stderr
    stopping = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        if stopping.is_set():  # a second Ctrl-C: the user will not wait for the drain
            out.write("tether serve: second signal, exiting without draining\n")
            out.flush()
            os._exit(128 + signum)
        stopping.set()
        # shutdown() waits for serve_forever, which runs on this (the main) thread.
        threading.Thread(target=server.shutdown, name="tether-shutdown").start()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    service = server.service
    store = service.health()["store"]
    where = f"{store['backend']} {store['location']}".strip()
    token = "required" if server.options.token else "not required (loopback only)"
    out.write(f"tether serve: listening on {server.url} (store: {where}; token {token})\n")
    out.flush()
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.drain()
        server.server_close()  # joins the request threads: in-flight requests finish
        # A decision stuck past its deadline (a hung Redis) may hold a store's lock: close the
        # stores in a thread and do not wait for it forever.
        closer = threading.Thread(target=service.close, name="tether-close", daemon=True)
        closer.start()
        closer.join(service.deadline + 5.0)
        if closer.is_alive():
            out.write("tether serve: a decision is stuck; exiting without closing the store\n")
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    out.write("tether serve: stopped\n")
    out.flush()
    return 0


__all__ = ["API_ROUTES", "HOOK_PREFIX", "Handler", "SidecarServer", "serve_until_signal"]
