"""Answer connections beyond ``tether serve``'s cap: a deny for a hook, 503 for anything else.

A connection over the cap used to be closed unread. Claude Code reads a closed or reset HTTP
hook connection as a non-blocking error and lets the call run, so an attacker (or a burst)
holding the cap's connections open turned every later call into an allow. Here a few threads
read each such request (for at most a couple of seconds: a client that sends nothing in that
time gets its answer anyway) and answer what a refusal gets: status 200 and the host's deny on
a hook route (``?envelope=1`` honoured), 503 and a blocking decision elsewhere. Nothing is
judged or recorded.
"""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tether.hosts import HOSTS

MAX_HEAD = 65536  # bytes of request line and headers read


class Overflow:
    """A bounded queue of connections and the threads that answer them."""

    def __init__(self, service: Any, threads: int, depth: int, seconds: float, cap: int) -> None:
        self.service = service
        self.seconds = seconds
        self.cause = (
            f"tether serve is answering its maximum of {cap} connections, so this call could "
            "not be checked"
        )
        self._queue: queue.Queue[socket.socket] = queue.Queue(maxsize=depth)
        for n in range(threads):
            threading.Thread(target=self._run, name=f"tether-overflow-{n}", daemon=True).start()

    def take(self, conn: socket.socket) -> bool:
        """Queue ``conn`` for an answer; return False when the queue is full."""
        try:
            self._queue.put_nowait(conn)
        except queue.Full:
            return False
        return True

    def _run(self) -> None:
        while True:
            conn = self._queue.get()
            try:
                self.answer(conn)
            except Exception:
                pass
            finally:
                with contextlib.suppress(OSError):
                    conn.close()

    def answer(self, conn: socket.socket) -> None:
        """Read the request (bounded in size and time) and send the refusal."""
        end = time.monotonic() + self.seconds
        head, rest = _read_head(conn, end)
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split()
        target = parts[1] if len(parts) >= 2 else "/"
        url = urlsplit(target)
        host = url.path[len("/hook/") :] if url.path.startswith("/hook/") else ""
        _drain_body(conn, head, rest, end)
        if host in HOSTS:
            reply = self.service.failure(host, self.cause)
            if parse_qs(url.query).get("envelope", ["0"])[0] == "1":
                doc = {"exit_code": reply.exit_code, "stdout": reply.stdout, "stderr": reply.stderr}
                body = json.dumps(doc, ensure_ascii=False).encode()
            else:
                body = reply.stdout.encode("utf-8", "surrogatepass")
            _send(conn, 200, body, {"X-Tether-Exit-Code": str(reply.exit_code)})
            return
        from tether.serve.service import failure_decision

        doc = {**failure_decision(self.cause).to_json(), "error": self.cause}
        _send(conn, 503, json.dumps(doc, ensure_ascii=False).encode(), {})


def _read_head(conn: socket.socket, end: float) -> tuple[bytes, bytes]:
    """Return the request head (to the blank line) and what arrived after it."""
    data = b""
    while b"\r\n\r\n" not in data and len(data) < MAX_HEAD:
        left = end - time.monotonic()
        if left <= 0:
            break
        conn.settimeout(left)
        try:
            chunk = conn.recv(8192)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _drain_body(conn: socket.socket, head: bytes, rest: bytes, end: float) -> None:
    """Read the body the head announces (until the time runs out): closing a socket with
    unread data resets the connection, and the client may lose the reply with it."""
    length = 0
    for raw in head.split(b"\r\n")[1:]:
        name, _, value = raw.partition(b":")
        if name.strip().lower() == b"content-length":
            with contextlib.suppress(ValueError):
                length = int(value.strip())
    left_to_read = max(0, length - len(rest))
    while left_to_read > 0:
        left = end - time.monotonic()
        if left <= 0:
            return
        conn.settimeout(left)
        try:
            chunk = conn.recv(min(left_to_read, 262144))
        except OSError:
            return
        if not chunk:
            return
        left_to_read -= len(chunk)


def _send(conn: socket.socket, status: int, body: bytes, headers: dict[str, str]) -> None:
    reason = {200: "OK", 503: "Service Unavailable"}[status]
    lines = [
        f"HTTP/1.1 {status} {reason}",
        "Server: tether",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    conn.settimeout(5.0)
    conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_WR)
    with contextlib.suppress(OSError):  # let the reply go out before the close
        conn.settimeout(0.2)
        while conn.recv(65536):
            pass


__all__ = ["Overflow"]
