"""``tether serve`` as a real process: the loopback-only default, the token, a clean SIGTERM.

Each test starts ``tether serve`` (or ``python -m tether.serve``) with private XDG directories,
reads the address it announces on stderr, and talks to it over real sockets.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tether.errors import InputError
from tether.serve import Options, check_bind, is_loopback

TETHER = Path(sys.executable).with_name("tether")
ANNOUNCE = re.compile(r"listening on http://(\S+):(\d+) ")


def sandbox_env(root: Path) -> dict[str, str]:
    """Return an environment whose XDG dirs and HOME are private directories under ``root``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HOME"):
        path = root / name.lower()
        path.mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    return env


@dataclass
class Served:
    """A running ``tether serve`` process and where it listens."""

    proc: subprocess.Popen[str]
    host: str
    port: int
    env: dict[str, str]

    def stop(self) -> tuple[int, str]:
        """Send SIGTERM; return the exit status and the rest of stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.wait()

    def wait(self) -> tuple[int, str]:
        """Wait for the process to end; return the exit status and the rest of stderr."""
        _, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, err


def serve(root: Path, *args: str, env: dict[str, str] | None = None) -> Served:
    """Start ``tether serve --port 0 ARGS`` and wait for its announcement."""
    environ = env or sandbox_env(root)
    proc = subprocess.Popen(
        [str(TETHER), "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environ,
        cwd=root,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    match = ANNOUNCE.search(line)
    if match is None:
        proc.kill()
        rest = proc.communicate(timeout=30)[1]
        pytest.fail(f"tether serve did not start: {line}{rest}")
    return Served(proc, match.group(1), int(match.group(2)), environ)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """A default ``tether serve`` process."""
    running = serve(tmp_path)
    yield running
    if running.proc.poll() is None:
        running.proc.kill()
        running.proc.communicate(timeout=30)


def token_of(env: dict[str, str]) -> str:
    """Return the per-install token ``tether serve`` made in the sandbox's state directory."""
    return (Path(env["XDG_STATE_HOME"]) / "tether" / "serve.token").read_text().strip()


def ready(raw: bytes, port: int, token: str = "") -> bytes:
    """Fill in the placeholder ``Host: x`` with the server's own address (and the token)."""
    head = f"Host: 127.0.0.1:{port}\r\n" + (f"Authorization: Bearer {token}\r\n" if token else "")
    return raw.replace(b"Host: x\r\n", head.encode(), 1)


def http(port: int, raw: bytes, host: str = "127.0.0.1", token: str = "") -> bytes:
    """Send raw bytes on a new connection; return everything the server sends back."""
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(ready(raw, port, token))
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def post(path: str, body: bytes, *, close: bool = True, headers: str = "") -> bytes:
    """Return a raw HTTP/1.1 POST request."""
    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    head += f"Content-Length: {len(body)}\r\n{headers}"
    head += "Connection: close\r\n" if close else ""
    return head.encode() + b"\r\n" + body


# --- the loopback-only default -----------------------------------------------------------------

LOOPBACK = [
    ("127.0.0.1", True),
    ("127.4.5.6", True),
    ("::1", True),
    ("[::1]", True),
    ("localhost", True),
    ("0.0.0.0", False),
    ("::", False),
    ("10.1.2.3", False),
    ("192.168.0.10", False),
    ("8.8.8.8", False),
]


@pytest.mark.parametrize(("host", "loopback"), LOOPBACK)
def test_which_addresses_count_as_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@pytest.mark.parametrize(("host", "loopback"), LOOPBACK)
def test_non_loopback_binds_need_a_token(host: str, loopback: bool) -> None:
    check_bind(Options(host=host, token="t0ken"))  # with a token every address is allowed
    if loopback:
        check_bind(Options(host=host))
    else:
        with pytest.raises(InputError, match="not a loopback address"):
            check_bind(Options(host=host))


def test_serve_refuses_0_0_0_0_without_a_token(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(TETHER), "serve", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        env=sandbox_env(tmp_path),
        timeout=60,
    )
    assert proc.returncode == 2
    assert "refusing to listen on '0.0.0.0'" in proc.stderr
    assert "not a loopback address" in proc.stderr
    assert "TETHER_SERVE_TOKEN" in proc.stderr
    assert "listening" not in proc.stderr


def test_serve_binds_0_0_0_0_with_a_token_and_requires_it(tmp_path: Path) -> None:
    env = {**sandbox_env(tmp_path), "TETHER_SERVE_TOKEN": "tok-123"}
    running = serve(tmp_path, "--host", "0.0.0.0", env=env)
    try:
        assert running.host == "0.0.0.0"
        get = b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        alive = http(running.port, get + b"\r\n")
        assert json.loads(alive.split(b"\r\n\r\n", 1)[1]) == {
            "status": "ok",
            "service": "tether",
            "token_required": True,
        }
        ok = http(running.port, get + b"Authorization: Bearer tok-123\r\n\r\n")
        assert ok.startswith(b"HTTP/1.1 200")
        assert json.loads(ok.split(b"\r\n\r\n", 1)[1])["token_required"] is True
    finally:
        status, err = running.stop()
    assert status == 0, err


def test_bad_port_and_busy_port_are_clear_errors(tmp_path: Path, served: Served) -> None:
    env = sandbox_env(tmp_path / "other")
    busy = subprocess.run(
        [str(TETHER), "serve", "--port", str(served.port)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert busy.returncode == 2
    assert f"cannot listen on 127.0.0.1:{served.port}" in busy.stderr
    bad = subprocess.run(
        [str(TETHER), "serve", "--port", "70000"], capture_output=True, text=True, env=env
    )
    assert bad.returncode == 2
    assert "expected an integer from 0 to 65535" in bad.stderr


# --- a clean shutdown --------------------------------------------------------------------------


def test_sigterm_finishes_the_request_in_flight_and_closes_the_store(served: Served) -> None:
    event = {
        "session_id": "inflight",
        "cwd": "/nonexistent",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"},
        "tool_use_id": "t1",
    }
    body = json.dumps(event).encode()
    idle = socket.create_connection(("127.0.0.1", served.port), timeout=30)  # keep-alive, idle
    with socket.create_connection(("127.0.0.1", served.port), timeout=30) as sock:
        request = ready(post("/hook/claude-code", body), served.port, token_of(served.env))
        sock.sendall(request[:-10])  # the request is in flight: headers and part of the body
        time.sleep(0.3)
        served.proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        sock.sendall(request[-10:])
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200")
    reply = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert reply["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "DG101" in reply["hookSpecificOutput"]["permissionDecisionReason"]
    status, err = served.wait()
    idle.close()
    assert status == 0, err
    assert "tether serve: stopped" in err
    session = subprocess.run(
        [str(TETHER), "session", "show", "inflight", "--json"],
        capture_output=True,
        text=True,
        env=served.env,
        timeout=60,
    )
    assert session.returncode == 0, session.stderr
    assert json.loads(session.stdout)["state"]["calls"] == 1


def test_sigint_stops_it_too(served: Served) -> None:
    served.proc.send_signal(signal.SIGINT)
    status, err = served.wait()
    assert status == 0, err
    assert "tether serve: stopped" in err


def test_a_second_signal_exits_without_waiting_for_the_request_in_flight(served: Served) -> None:
    with socket.create_connection(("127.0.0.1", served.port), timeout=30) as sock:
        raw = post("/hook/claude-code", b'{"session_id": "s"}')
        request = ready(raw, served.port, token_of(served.env))
        sock.sendall(request[:-5])  # never finished
        time.sleep(0.3)
        served.proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        assert served.proc.poll() is None  # still draining: the request is in flight
        served.proc.send_signal(signal.SIGTERM)
        status, err = served.wait()
    assert status == 128 + signal.SIGTERM
    assert "second signal, exiting without draining" in err


def test_python_dash_m_runs_the_same_service(tmp_path: Path) -> None:
    env = sandbox_env(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tether.serve", "--port", "0"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    match = ANNOUNCE.search(proc.stderr.readline())
    assert match, "python -m tether.serve did not announce its address"
    try:
        raw = post("/v1/classify", b'{"command": "rm -rf /"}')
        answer = http(int(match.group(2)), raw, token=token_of(env))
        doc = json.loads(answer.split(b"\r\n\r\n", 1)[1])
        assert doc["danger"] == "hardline"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    assert proc.returncode == 0


# --- bodies the server cannot read -------------------------------------------------------------

RAW_BODIES = [
    (
        "no Content-Length",
        b"POST /hook/claude-code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n{}",
        "Content-Length",
    ),
    (
        "chunked",
        b"POST /hook/claude-code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
        b"2\r\n{}\r\n0\r\n\r\n",
        "chunked",
    ),
    (
        "cut short",
        b"POST /hook/claude-code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"a": 1}',
        "ended after 8 of 100 bytes",
    ),
]


@pytest.mark.parametrize(("label", "raw", "cause"), RAW_BODIES, ids=[r[0] for r in RAW_BODIES])
def test_unreadable_hook_bodies_are_denied(
    served: Served, label: str, raw: bytes, cause: str
) -> None:
    with socket.create_connection(("127.0.0.1", served.port), timeout=30) as sock:
        sock.sendall(ready(raw, served.port, token_of(served.env)))
        sock.shutdown(socket.SHUT_WR)  # the client is done sending: a short body stays short
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200")
    head, body = answer.split(b"\r\n\r\n", 1)
    assert b"Connection: close" in head
    out = json.loads(body)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert cause in out["permissionDecisionReason"]


def test_an_unreadable_store_stops_the_service_at_start(tmp_path: Path) -> None:
    env = sandbox_env(tmp_path)
    state = Path(env["XDG_STATE_HOME"]) / "tether" / "state.db"
    state.parent.mkdir(parents=True)
    state.write_bytes(b"this is not a database, just some text " * 100)
    proc = subprocess.run(
        [str(TETHER), "serve", "--port", "0"], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 2
    assert str(state) in proc.stderr
    assert "tether doctor --fix" in proc.stderr
    assert "listening" not in proc.stderr
