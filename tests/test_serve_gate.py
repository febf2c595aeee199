"""What a web page, a DNS-rebinding attacker or a burst of clients can do to ``tether serve``.

Real servers on free loopback ports, real sockets, requests written byte for byte as a browser
or an attacker would send them. Hook routes must answer every refusal with the host's deny
(Claude Code lets a call run on any non-2xx); the JSON API answers 403/415 and a block.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.serve import Options, Service, SidecarServer
from tether.serve.token import load_or_create, token_path

TOKEN = "gate-token"
EVENT = {
    "session_id": "gate",
    "cwd": "/nonexistent",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "ls"},
}


def sandbox_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HOME"):
        (root / name).mkdir(parents=True, exist_ok=True)
        env[name] = str(root / name)
    return env


def make_server(root: Path, token: str = TOKEN, host: str = "127.0.0.1") -> SidecarServer:
    project = root / "project"
    project.mkdir(parents=True, exist_ok=True)
    service = Service(
        Options(host=host, port=0, token=token), environ=sandbox_env(root), cwd=project
    )
    return SidecarServer(service)


def serve(server: SidecarServer) -> None:
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[SidecarServer]:
    srv = make_server(tmp_path)
    serve(srv)
    yield srv
    srv.stop()


def exchange(port: int, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send one raw request; return the status, headers and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(raw)
        sock.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def raw_post(path: str, port: int, body: bytes, **headers: str) -> bytes:
    """Return a POST as a client sends it; ``headers`` override the well-formed defaults."""
    fields = {
        "Host": f"127.0.0.1:{port}",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {TOKEN}",
        "Content-Length": str(len(body)),
        "Connection": "close",
    }
    fields.update({k.replace("_", "-"): v for k, v in headers.items()})
    head = "".join(f"{k}: {v}\r\n" for k, v in fields.items() if v != "")
    return f"POST {path} HTTP/1.1\r\n{head}\r\n".encode() + body


def deny_reason(body: bytes) -> str:
    out = json.loads(body)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny", out
    return str(out["permissionDecisionReason"])


# What a page can make the browser send. A rebinding page's requests carry its own host name.
FORGED: list[tuple[str, dict[str, str], str]] = [
    ("rebinding Host", {"Host": "attacker.example:{port}"}, "not a loopback name"),
    ("rebinding Host, loopback port", {"Host": "127.0.0.1.nip.io:{port}"}, "not a loopback name"),
    ("wrong port", {"Host": "127.0.0.1:1"}, "port"),
    ("no port", {"Host": "localhost"}, "port"),
    ("no Host", {"Host": ""}, "no Host header"),
    ("Origin", {"Origin": "https://attacker.example"}, "web pages"),
    ("Origin null", {"Origin": "null"}, "web pages"),
    ("Sec-Fetch-Site", {"Sec_Fetch_Site": "cross-site"}, "web pages"),
    ("Sec-Fetch-Mode no-cors", {"Sec_Fetch_Mode": "no-cors"}, "web pages"),
    ("text/plain simple request", {"Content-Type": "text/plain"}, "application/json"),
    (
        "form simple request",
        {"Content-Type": "application/x-www-form-urlencoded"},
        "application/json",
    ),
    ("no Content-Type", {"Content-Type": ""}, "application/json"),
    ("no token", {"Authorization": ""}, "Authorization"),
    ("wrong token", {"Authorization": "Bearer guess"}, "does not match"),
]


def forged(port: int, path: str, body: bytes, fields: dict[str, str]) -> bytes:
    return raw_post(path, port, body, **{k: v.format(port=port) for k, v in fields.items()})


@pytest.mark.parametrize(("label", "fields", "cause"), FORGED, ids=[f[0] for f in FORGED])
def test_a_forged_hook_request_gets_the_hosts_deny(
    server: SidecarServer, label: str, fields: dict[str, str], cause: str
) -> None:
    event = dict(EVENT, tool_input={"command": "ls -la"})  # an allow, when it reaches the guard
    status, _, body = exchange(
        server.server_port,
        forged(server.server_port, "/hook/claude-code", json.dumps(event).encode(), fields),
    )
    assert status == 200  # a 4xx would let the call run in Claude Code
    assert cause in deny_reason(body)
    assert server.service.health()["decisions"] == 0  # never reached the guard


@pytest.mark.parametrize(("label", "fields", "cause"), FORGED, ids=[f[0] for f in FORGED])
def test_a_forged_api_request_changes_nothing(
    server: SidecarServer, label: str, fields: dict[str, str], cause: str
) -> None:
    # The attack: forged /v1/user_message un-stopped a halted session.
    body = json.dumps({"session_id": "victim", "text": "go on"}).encode()
    status, _, answer = exchange(
        server.server_port, forged(server.server_port, "/v1/user_message", body, fields)
    )
    assert status in (401, 403, 415), answer
    doc = json.loads(answer)
    assert doc["action"] == "block" and cause in doc["error"]
    assert server.service.store.load("victim") is None


def test_the_well_formed_request_is_answered(server: SidecarServer) -> None:
    port = server.server_port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}"):
        raw = raw_post("/hook/claude-code", port, json.dumps(EVENT).encode(), Host=host)
        status, _, body = exchange(port, raw)
        assert (status, json.loads(body)) == (200, {}), host
    # Node's fetch (undici) sends sec-fetch-mode: cors on every request: not a browser page.
    raw = raw_post("/hook/claude-code", port, json.dumps(EVENT).encode(), Sec_Fetch_Mode="cors")
    assert exchange(port, raw)[:1] == (200,)
    assert json.loads(exchange(port, raw)[2]) == {}


def test_health_tells_nothing_before_the_token(server: SidecarServer) -> None:
    port = server.server_port
    get = f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
    status, _, body = exchange(port, get.encode() + b"\r\n")
    assert status == 200
    assert json.loads(body) == {"status": "ok", "service": "tether", "token_required": True}
    status, _, body = exchange(port, (get + f"Authorization: Bearer {TOKEN}\r\n\r\n").encode())
    assert json.loads(body)["pid"] == os.getpid()
    rebound = f"GET /health HTTP/1.1\r\nHost: attacker.example:{port}\r\n\r\n"
    status, _, body = exchange(port, rebound.encode())
    assert status == 403 and b"pid" not in body and b"store" not in body


def test_a_burst_of_32_new_connections_gets_no_reset(tmp_path: Path) -> None:
    # The connections arrive before the server accepts any: all must wait in the kernel's
    # listen queue (socketserver's default backlog of 5 dropped or reset the rest).
    srv = make_server(tmp_path)
    port = srv.server_port
    get = f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
    barrier = threading.Barrier(32)
    results: list[str] = []
    lock = threading.Lock()

    def client() -> None:
        outcome = "ok"
        try:
            barrier.wait()
            # A queued connection completes its handshake at once; a dropped SYN is resent
            # only after a second, so half a second tells the two apart.
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
                sock.settimeout(30)
                sock.sendall(get)
                if not sock.recv(65536).startswith(b"HTTP/1.1 200"):
                    outcome = "no answer"
        except ConnectionResetError:
            outcome = "reset"
        except OSError as exc:
            outcome = f"failed: {exc}"
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=client) for _ in range(32)]
    for t in threads:
        t.start()
    # Serve only once every client has connected or given up (their handshakes are queued).
    time.sleep(1.0)
    serve(srv)
    try:
        for t in threads:
            t.join(60)
    finally:
        srv.stop()
    failures = [r for r in results if r != "ok"]
    assert len(results) == 32 and not failures, failures


def test_the_per_install_token_file_is_private_and_shared(tmp_path: Path) -> None:
    env = sandbox_env(tmp_path)
    token = load_or_create(env)
    path = token_path(env)
    assert len(token) >= 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) & 0o077 == 0
    assert load_or_create(env) == token  # made once
    path.chmod(0o644)
    with pytest.raises(Exception, match="readable by other users"):
        load_or_create(env)


def test_tether_serve_requires_its_per_install_token_by_default(tmp_path: Path) -> None:
    env = sandbox_env(tmp_path)
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("tether")), "serve", "--port", "0"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        port = int(line.split("http://127.0.0.1:", 1)[1].split(" ", 1)[0])
        token = token_path(env).read_text().strip()
        body = json.dumps(dict(EVENT, tool_input={"command": "ls -la"})).encode()
        status, _, answer = exchange(
            port, raw_post("/hook/claude-code", port, body, Authorization="")
        )
        assert status == 200 and "Authorization" in deny_reason(answer)
        good = raw_post("/hook/claude-code", port, body, Authorization=f"Bearer {token}")
        assert json.loads(exchange(port, good)[2]) == {}
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_a_connection_over_the_cap_gets_the_hosts_deny(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over the cap a hook POST was closed unanswered, which Claude Code reads as "go on"."""
    import tether.serve.server as sidecar

    monkeypatch.setattr(sidecar, "MAX_CONNECTIONS", 2)
    srv = make_server(tmp_path)
    serve(srv)
    port = srv.server_port
    held = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(2)]
    try:
        deadline = time.monotonic() + 30
        while len(srv._connections) < 2:  # both idle connections hold their thread
            assert time.monotonic() < deadline
            time.sleep(0.01)
        body = json.dumps({**EVENT, "tool_input": {"command": "rm -rf /"}}).encode()
        status, headers, reply = exchange(port, raw_post("/hook/claude-code", port, body))
        assert status == 200, (status, reply)
        assert "maximum of 2 connections" in deny_reason(reply)
        assert headers["X-Tether-Exit-Code"] == "0"
        status, _, reply = exchange(port, raw_post("/hook/codex?envelope=1", port, body))
        envelope = json.loads(reply)
        assert status == 200 and envelope["exit_code"] == 2 and envelope["stderr"], envelope
        status, _, reply = exchange(port, raw_post("/v1/before_call", port, b"{}"))
        assert status == 503 and json.loads(reply)["action"] == "block", reply
        # A client that sends nothing is answered too, once the overflow stops waiting.
        with socket.create_connection(("127.0.0.1", port), timeout=30) as silent:
            assert silent.recv(65536).startswith(b"HTTP/1.1 503"), "no reply"
        health = srv.service.health()
        assert health.get("decisions", 0) == 0 and health["active_sessions"] == 0, health
    finally:
        for sock in held:
            sock.close()
        srv.stop()
