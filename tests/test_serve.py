"""``tether serve`` over real HTTP: same replies as the command hook, the JSON API, fail closed.

Each test starts a real ``SidecarServer`` on a free loopback port in a thread, backed by a real
SQLite file in a private XDG state directory, and talks to it with urllib. The command hook it
is compared with runs as real ``tether hook HOST`` processes against their own SQLite file.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tether.hosts import HOSTS, adapter
from tether.hosts.events import Reply
from tether.serve import Options, Service, SidecarServer
from tether.store.sqlite import SQLiteStore

TETHER = Path(sys.executable).with_name("tether")
DATA = Path(__file__).resolve().parent / "data" / "hosts"
PRE = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
POST = {"claude-code": "PostToolUse", "codex": "PostToolUse", "gemini": "AfterTool"}
SHELL = {"claude-code": "Bash", "codex": "Bash", "gemini": "run_shell_command"}


def sandbox_env(root: Path) -> dict[str, str]:
    """Return an environment whose XDG dirs and HOME are private directories under ``root``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HOME"):
        path = root / name.lower()
        path.mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    return env


@dataclass
class Sidecar:
    """A running server, its environment and project directory."""

    server: SidecarServer
    env: dict[str, str]
    project: Path

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def state_db(self) -> Path:
        return Path(self.env["XDG_STATE_HOME"]) / "tether" / "state.db"


@dataclass
class Response:
    """What came back: status, headers and body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def start(root: Path, options: Options | None = None, **env: str) -> Sidecar:
    """Start a server on a free loopback port for a sandbox under ``root``."""
    environ = sandbox_env(root)
    environ.update(env)
    project = root / "project"
    project.mkdir(exist_ok=True)
    service = Service(options or Options(port=0), environ=environ, cwd=project)
    server = SidecarServer(service)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return Sidecar(server, environ, project)


@pytest.fixture
def sidecar(tmp_path: Path) -> Iterator[Sidecar]:
    """A server with default options (loopback, no token)."""
    running = start(tmp_path / "serve")
    yield running
    running.server.stop()


def request(
    url: str, body: bytes | str | None = None, headers: dict[str, str] | None = None
) -> Response:
    """Send one request (POST when there is a body); return the response, errors included."""
    data = body.encode() if isinstance(body, str) else body
    sent = {"Content-Type": "application/json"} if data is not None else {}
    req = urllib.request.Request(url, data=data, headers={**sent, **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return Response(resp.status, dict(resp.headers), resp.read())
    except urllib.error.HTTPError as exc:
        return Response(exc.code, dict(exc.headers), exc.read())


def hook_http(sc: Sidecar, host: str, payload: str | bytes, **headers: str) -> Reply:
    """Post a hook event with ``?envelope=1``; return the full reply (stdout, stderr, exit)."""
    resp = request(f"{sc.url}/hook/{host}?envelope=1", payload, headers)
    assert resp.status == 200, resp.body
    doc = resp.json()
    assert resp.headers["X-Tether-Exit-Code"] == str(doc["exit_code"])
    return Reply(doc["stdout"], doc["stderr"], doc["exit_code"])


def hook_process(host: str, payload: str, env: dict[str, str], cwd: Path) -> Reply:
    """Run ``tether hook HOST`` once as a real process; return its reply."""
    proc = subprocess.run(
        [str(TETHER), "hook", host],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )
    return Reply(proc.stdout, proc.stderr, proc.returncode)


def shell_event(
    host: str, session: str, command: str, cwd: Path, n: int, output: Any = None
) -> str:
    """Return a pre-call (or, with ``output``, post-call) event in ``host``'s shape."""
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": None,
        "cwd": str(cwd),
        "hook_event_name": PRE[host] if output is None else POST[host],
        "tool_name": SHELL[host],
        "tool_input": {"command": command},
    }
    if host != "gemini":
        payload.update({"tool_use_id": f"toolu_{n:04d}", "permission_mode": "default"})
    if output is not None:
        payload["tool_response"] = {
            "claude-code": {"stdout": output, "stderr": "", "interrupted": False},
            "codex": output,
            "gemini": {"llmContent": output, "returnDisplay": output},
        }[host]
    return json.dumps(payload)


# --- the same reply as the command hook --------------------------------------------------------


@pytest.mark.parametrize("host", list(HOSTS))
def test_golden_payloads_get_the_command_hooks_reply(host: str, tmp_path: Path) -> None:
    sc = start(tmp_path / "serve")
    try:
        hook_env = sandbox_env(tmp_path / "hook")
        cases = sorted(p for p in (DATA / host).glob("*.json") if not p.name.startswith("_"))
        assert len(cases) >= 5
        for path in cases:  # in order, in one session each file names: state carries over
            payload = dict(json.loads(path.read_text())["payload"])
            payload["cwd"] = str(sc.project)  # both sides read the same (empty) project config
            text = json.dumps(payload)
            expected = hook_process(host, text, hook_env, sc.project)
            if host == "claude-code":  # Claude Code's HTTP hook reads the raw body
                raw = request(f"{sc.url}/hook/{host}", text)
                assert raw.status == 200
                assert raw.headers["X-Tether-Exit-Code"] == "0" == str(expected.exit_code)
                assert expected.stderr == ""
                assert raw.body.decode() == expected.stdout, path.name
            else:
                assert hook_http(sc, host, text) == expected, path.name
    finally:
        sc.server.stop()


@pytest.mark.parametrize("host", list(HOSTS))
def test_a_loop_is_stopped_the_same_way_through_http(host: str, tmp_path: Path) -> None:
    # With loops.hard_stop on, the repeated read-only call is refused, not only warned about.
    sc = start(tmp_path / "serve", TETHER_LOOPS__HARD_STOP="true")
    try:
        hook_env = {**sandbox_env(tmp_path / "hook"), "TETHER_LOOPS__HARD_STOP": "true"}
        command = "gh api repos/o/r/pulls/1/reviews"
        verdicts = []
        for n in range(8):
            for output in (None, "[]"):
                text = shell_event(host, "loop", command, sc.project, n, output)
                expected = hook_process(host, text, hook_env, sc.project)
                got = hook_http(sc, host, text)
                assert got == expected, (n, output)
                verdicts.append(adapter(host).verdict(got))
        assert verdicts[0] == "allow"
        assert "warn" in verdicts, verdicts
        assert verdicts[-2] == "deny", verdicts  # the last pre-call is refused
    finally:
        sc.server.stop()


PROMPT = {"claude-code": "UserPromptSubmit", "codex": "UserPromptSubmit", "gemini": "BeforeAgent"}


def prompt_event(host: str, session: str, cwd: Path) -> str:
    """Return the user's prompt event in ``host``'s shape."""
    payload = {"session_id": session, "cwd": str(cwd), "hook_event_name": PROMPT[host]}
    return json.dumps({**payload, "prompt": "try something else"})


@pytest.mark.parametrize("host", list(HOSTS))
def test_a_halt_sticks_and_a_warning_comes_once_through_http(host: str, tmp_path: Path) -> None:
    """The sidecar's Guard is the hook's: sticky halt, warnings held for the result."""
    env = {"TETHER_LOOPS__HARD_STOP": "true", "TETHER_LOOPS__WARN_AFTER__TURN_CALLS": "3"}
    sc = start(tmp_path / "serve", **env)
    try:
        hook_env = {**sandbox_env(tmp_path / "hook"), **env}
        ad = adapter(host)
        events: list[tuple[str, str]] = []  # (label, payload)
        for n in range(8):  # the same read, same result: warned, refused, then halted
            events.append((f"pre{n}", shell_event(host, "halt", "cat same.txt", sc.project, n)))
            events.append(
                (f"post{n}", shell_event(host, "halt", "cat same.txt", sc.project, n, "[]"))
            )
        events.append(("other", shell_event(host, "halt", "echo other", sc.project, 8)))
        events.append(("prompt", prompt_event(host, "halt", sc.project)))
        events.append(("again", shell_event(host, "halt", "echo other", sc.project, 9)))
        for n in range(3):  # distinct calls: the third reaches the turn cap (a pre-call warning)
            events.append((f"turn-pre{n}", shell_event(host, "turn", f"echo {n}", sc.project, n)))
            events.append(
                (f"turn-post{n}", shell_event(host, "turn", f"echo {n}", sc.project, n, str(n)))
            )
        got: dict[str, Reply] = {}
        for label, text in events:
            expected = hook_process(host, text, hook_env, sc.project)
            got[label] = hook_http(sc, host, text)
            assert got[label] == expected, label
        # After the halt, another call is refused until the user speaks, then allowed.
        assert ad.verdict(got["pre7"]) == "deny"
        assert ad.verdict(got["other"]) == "deny", got["other"]
        assert "TL208" in got["other"].stdout + got["other"].stderr
        assert ad.verdict(got["again"]) == "allow", got["again"]
        # The turn-cap warning: not before the call, once with its result.
        assert ad.verdict(got["turn-pre2"]) == "allow" and "turn" not in got["turn-pre2"].stdout
        post = got["turn-post2"]
        assert "TL" in post.stdout + post.stderr and "calls" in post.stdout + post.stderr, post
    finally:
        sc.server.stop()


@pytest.mark.parametrize("host", list(HOSTS))
def test_the_untrusted_project_notice_reaches_the_user_once_through_http(
    host: str, tmp_path: Path
) -> None:
    sc = start(tmp_path / "serve")
    try:
        repo = tmp_path / "cloned"
        (repo / ".git").mkdir(parents=True)
        (repo / ".tether.yaml").write_text("approvals:\n  mode: 'off'\n  allow: ['*']\n")
        replies = [hook_http(sc, host, shell_event(host, "told", "ls", repo, n)) for n in range(2)]
        first = json.loads(replies[0].stdout)
        assert "tether trust" in first["systemMessage"], replies[0]
        assert "approvals.mode" in first["systemMessage"]
        assert "systemMessage" not in json.loads(replies[1].stdout or "{}"), replies[1]
        other = hook_http(sc, host, shell_event(host, "another", "ls", repo, 3))
        assert "tether trust" in json.loads(other.stdout)["systemMessage"]
    finally:
        sc.server.stop()


DANGEROUS = [
    ("rm -rf /", "deny"),
    ("sudo rm -rf / --no-preserve-root", "deny"),
    ("ls -la", "allow"),
    ('echo "rm -rf /"', "allow"),
]


@pytest.mark.parametrize(("command", "expected"), DANGEROUS)
@pytest.mark.parametrize("host", list(HOSTS))
def test_shell_verdicts_per_host(sidecar: Sidecar, host: str, command: str, expected: str) -> None:
    reply = hook_http(sidecar, host, shell_event(host, f"v-{host}", command, sidecar.project, 1))
    assert adapter(host).verdict(reply) == expected


# --- the JSON API ------------------------------------------------------------------------------

API_CASES = [
    ({"session_id": "a", "tool": "Bash", "args": {"command": "rm -rf /"}}, "block", "DG101"),
    ({"session_id": "a", "tool": "Bash", "args": {"command": "ls -la"}}, "allow", None),
    ({"session_id": "a", "tool": "Read", "args": {"file_path": "/etc/hosts"}}, "allow", None),
]


@pytest.mark.parametrize(("call", "action", "code"), API_CASES)
def test_before_call_answers_a_decision(
    sidecar: Sidecar, call: dict[str, Any], action: str, code: str | None
) -> None:
    resp = request(f"{sidecar.url}/v1/before_call", json.dumps(call))
    assert resp.status == 200
    decision = resp.json()
    assert set(decision) == {"action", "codes", "message", "evidence"}
    assert decision["action"] == action
    if code:
        assert code in decision["codes"]


def test_after_call_records_results_until_the_loop_is_flagged(sidecar: Sidecar) -> None:
    call = {"session_id": "api-loop", "tool": "Bash", "args": {"command": "gh api repos/o/r"}}
    actions = []
    for n in range(6):
        this = {**call, "call_id": f"c{n}"}
        before = request(f"{sidecar.url}/v1/before_call", json.dumps(this)).json()
        after = request(
            f"{sidecar.url}/v1/after_call",
            json.dumps({"call": this, "output": "[]", "exit_code": 0}),
        )
        assert after.status == 200
        actions.append((before["action"], after.json()["action"]))
    assert actions[0] == ("allow", "allow")
    assert any(a != "allow" for pair in actions for a in pair), actions
    stored = SQLiteStore(sidecar.state_db)
    state = stored.load("api-loop")
    stored.close()
    assert state is not None and state["calls"] == 6


def test_classify_answers_what_the_cli_prints(sidecar: Sidecar) -> None:
    resp = request(f"{sidecar.url}/v1/classify", json.dumps({"command": "git push --force"}))
    assert resp.status == 200
    cli = subprocess.run(
        [str(TETHER), "classify", "--json", "git push --force"],
        capture_output=True,
        text=True,
        env=sidecar.env,
        timeout=60,
    )
    assert resp.json() == json.loads(cli.stdout)


API_ERRORS = [
    ("/v1/before_call", "{not json", 400, "not valid JSON"),
    ("/v1/before_call", "[1]", 400, "expected a JSON object"),
    ("/v1/before_call", '{"tool": "Bash"}', 400, "session_id"),
    ("/v1/before_call", '{"session_id": "s", "tool": "Bash", "args": []}', 400, "args"),
    ("/v1/after_call", '{"call": {"session_id": "s"}}', 400, "tool"),
    ("/v1/after_call", '{"call": {"session_id": "s", "tool": "T"}, "error": 1}', 400, "error"),
    ("/v1/classify", '{"command": 3}', 400, "command"),
]


@pytest.mark.parametrize(("path", "body", "status", "cause"), API_ERRORS)
def test_api_errors_are_blocks_with_a_status(
    sidecar: Sidecar, path: str, body: str, status: int, cause: str
) -> None:
    resp = request(sidecar.url + path, body)
    assert resp.status == status
    doc = resp.json()
    assert doc["action"] == "block"
    assert doc["codes"] == ["tether-error"]
    assert cause in doc["error"]


def test_unknown_routes_are_404(sidecar: Sidecar) -> None:
    assert request(f"{sidecar.url}/hook/cursor", "{}").status == 404
    assert request(f"{sidecar.url}/v1/nothing", "{}").status == 404
    assert request(f"{sidecar.url}/hook/claude-code").status == 404  # GET


def test_health_reports_version_uptime_and_store(sidecar: Sidecar) -> None:
    request(
        f"{sidecar.url}/hook/claude-code", shell_event("claude-code", "h", "ls", sidecar.project, 1)
    )
    resp = request(f"{sidecar.url}/health")
    assert resp.status == 200
    doc = resp.json()
    assert doc["status"] == "ok"
    assert doc["version"]
    assert doc["uptime_s"] >= 0
    assert doc["store"] == {"backend": "sqlite", "location": str(sidecar.state_db)}
    assert doc["decisions"] == 1
    assert doc["token_required"] is False


# --- fail closed -------------------------------------------------------------------------------

BAD_HOOK_BODIES = [
    ("not json", b"{not json", "not valid JSON"),
    ("empty body", b"", "not valid JSON"),
    ("json array", b"[1, 2]", "expected a JSON object"),
    ("invalid utf-8", b'{"session_id": "\xff\xfe"}', "not valid JSON"),
    ("nested 100k deep", b"[" * 100_000 + b"]" * 100_000, "RecursionError"),
]


@pytest.mark.parametrize("host", list(HOSTS))
@pytest.mark.parametrize(
    ("label", "body", "cause"), BAD_HOOK_BODIES, ids=[b[0] for b in BAD_HOOK_BODIES]
)
def test_malformed_hook_bodies_are_denied_with_their_cause(
    sidecar: Sidecar, host: str, label: str, body: bytes, cause: str
) -> None:
    reply = hook_http(sidecar, host, body)
    assert adapter(host).verdict(reply) == "deny"
    assert cause in reply.stdout + reply.stderr


def test_over_size_bodies_are_denied_unread(tmp_path: Path) -> None:
    sc = start(tmp_path, Options(port=0, max_body=4096))
    try:
        big = json.dumps({"pad": "x" * 5000})
        reply = hook_http(sc, "claude-code", big)
        assert adapter("claude-code").verdict(reply) == "deny"
        assert "larger than 4096 bytes" in reply.stdout
        resp = request(f"{sc.url}/v1/before_call", big)
        assert resp.status == 413
        assert resp.json()["action"] == "block"
    finally:
        sc.server.stop()


def test_a_hung_store_is_denied_at_the_deadline(tmp_path: Path) -> None:
    sc = start(tmp_path, TETHER_HOOKS__DEADLINE="0.5")
    try:
        first = shell_event("claude-code", "hang", "ls", sc.project, 1)
        assert adapter("claude-code").verdict(hook_http(sc, "claude-code", first)) == "allow"
        holder = sqlite3.connect(sc.state_db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            reply = hook_http(
                sc, "claude-code", shell_event("claude-code", "hang", "ls", sc.project, 2)
            )
            assert adapter("claude-code").verdict(reply) == "deny"
            assert "no decision within the 0.5 s deadline" in reply.stdout
            resp = request(
                f"{sc.url}/v1/before_call", json.dumps({"session_id": "x", "tool": "Bash"})
            )
            assert resp.status == 503
            assert resp.json()["action"] == "block"
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert request(f"{sc.url}/health").json()["deadlines"] == 1
    finally:
        sc.server.stop()


# --- the token ---------------------------------------------------------------------------------


def test_a_token_is_required_on_every_request_once_set(tmp_path: Path) -> None:
    sc = start(tmp_path, Options(port=0, token="s3cret-token"))
    good = {"Authorization": "Bearer s3cret-token"}
    event = shell_event("claude-code", "tok", "ls -la", sc.project, 1)
    try:
        # Without the token /health says it is alive and nothing else (no version, pid, store).
        alive = {"status": "ok", "service": "tether", "token_required": True}
        assert request(f"{sc.url}/health").json() == alive
        assert request(f"{sc.url}/health", headers={"Authorization": "Bearer nope"}).json() == alive
        assert (
            request(f"{sc.url}/health", headers={"Authorization": "s3cret-token"}).json() == alive
        )
        health = request(f"{sc.url}/health", headers=good)
        assert health.json()["pid"] == os.getpid()
        assert health.status == 200
        assert health.json()["token_required"] is True
        for headers, cause in (
            ({}, "no 'Authorization"),
            ({"Authorization": "Bearer x"}, "does not match"),
        ):
            reply = hook_http(sc, "claude-code", event, **headers)
            assert adapter("claude-code").verdict(reply) == "deny"  # 200 + deny: never fail open
            assert cause in reply.stdout
        assert (
            adapter("claude-code").verdict(hook_http(sc, "claude-code", event, **good)) == "allow"
        )
        api = request(f"{sc.url}/v1/classify", '{"command": "ls"}')
        assert api.status == 401
        assert request(f"{sc.url}/v1/classify", '{"command": "ls"}', good).status == 200
    finally:
        sc.server.stop()


# --- concurrency -------------------------------------------------------------------------------


@pytest.mark.parametrize("lock", ["session", "global"])
def test_concurrent_events_of_one_session_lose_no_update(tmp_path: Path, lock: str) -> None:
    sc = start(tmp_path, Options(port=0, lock=lock))
    errors: list[str] = []

    def client(k: int) -> None:
        for n in range(25):
            text = shell_event("claude-code", "busy", f"echo {k}-{n}", sc.project, k * 100 + n)
            reply = hook_http(sc, "claude-code", text)
            if adapter("claude-code").verdict(reply) == "deny":
                errors.append(reply.stdout)

    try:
        threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        stored = SQLiteStore(sc.state_db)
        state = stored.load("busy")
        stored.close()
        assert state is not None and state["calls"] == 200
    finally:
        sc.server.stop()


# --- a Redis store, as a fleet would use ---------------------------------------------------------


def test_a_redis_backed_sidecar_shares_state_with_hook_processes(
    tmp_path: Path, redis_server: str
) -> None:
    prefix = f"tether-serve-{tmp_path.name}:"
    redis_env = {
        "TETHER_STORE__BACKEND": "redis",
        "TETHER_STORE__URL": redis_server,
        "TETHER_STORE__KEY_PREFIX": prefix,
    }
    sc = start(tmp_path / "serve", **redis_env)
    try:
        health = request(f"{sc.url}/health").json()
        assert health["store"]["backend"] == "redis"
        hook_env = {**sandbox_env(tmp_path / "hook"), **redis_env}
        # One session, events alternating between the service and hook processes: one history.
        for n in range(3):
            via = hook_http if n % 2 == 0 else None
            text = shell_event("claude-code", "fleet", "gh api repos/o/r", sc.project, n)
            done = shell_event("claude-code", "fleet", "gh api repos/o/r", sc.project, n, "[]")
            for payload in (text, done):
                if via is not None:
                    via(sc, "claude-code", payload)
                else:
                    hook_process("claude-code", payload, hook_env, sc.project)
        shown = subprocess.run(
            [str(TETHER), "session", "show", "fleet", "--json"],
            capture_output=True,
            text=True,
            env=hook_env,
            timeout=60,
        )
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["state"]["calls"] == 3
    finally:
        sc.server.stop()


def test_connections_beyond_the_cap_are_answered_then_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    from tether.serve import server as server_module

    monkeypatch.setattr(server_module, "MAX_CONNECTIONS", 2)
    sc = start(tmp_path)
    host, port = "127.0.0.1", sc.server.server_port
    held = [socket.create_connection((host, port), timeout=10) for _ in range(2)]
    try:
        # Both held connections are tracked once their handler threads start.
        for conn in held:
            conn.sendall(f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            assert conn.recv(65536).startswith(b"HTTP/1.1 200")
        with socket.create_connection((host, port), timeout=10) as extra:
            extra.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            # Refused with an answer (a hook would get its host's deny), then closed.
            assert extra.recv(65536).startswith(b"HTTP/1.1 503")
        held.pop().close()
        for _ in range(100):  # the closed connection's thread notices and untracks it
            with socket.create_connection((host, port), timeout=10) as again:
                head = f"GET /health HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n"
                again.sendall(head.encode() + b"\r\n")
                if again.recv(65536).startswith(b"HTTP/1.1 200"):
                    break
            time.sleep(0.05)
        else:
            pytest.fail("a connection slot never came free")
    finally:
        for conn in held:
            conn.close()
        sc.server.stop()


# --- the project's config, read per event as the hook reads it ---------------------------------


def test_project_config_edits_apply_and_a_broken_file_fails_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tether.serve import service as service_module

    monkeypatch.setattr(service_module, "CONFIG_TTL", 0.0)  # reload for every event
    sc = start(tmp_path)
    config = sc.project / ".tether.yaml"
    claude = adapter("claude-code")
    try:
        event = shell_event("claude-code", "cfg", "ls -la", sc.project, 1)
        assert claude.verdict(hook_http(sc, "claude-code", event)) == "allow"
        config.write_text('approvals:\n  deny: ["ls *"]\n')
        reply = hook_http(
            sc, "claude-code", shell_event("claude-code", "cfg", "ls -la", sc.project, 2)
        )
        assert claude.verdict(reply) == "deny"
        other = sc.project.parent / "elsewhere"
        other.mkdir()  # another project without that file is not affected
        assert (
            claude.verdict(
                hook_http(sc, "claude-code", shell_event("claude-code", "o", "ls -la", other, 3))
            )
            == "allow"
        )
        config.write_text("loops:\n  hard_stop: maybe\n")
        reply = hook_http(
            sc, "claude-code", shell_event("claude-code", "cfg", "ls -la", sc.project, 4)
        )
        assert claude.verdict(reply) == "deny"
        assert "loops.hard_stop" in reply.stdout
    finally:
        sc.server.stop()


def test_user_message_starts_a_new_turn(tmp_path: Path) -> None:
    sc = start(tmp_path, TETHER_LOOPS__WARN_AFTER__TURN_CALLS="3")
    try:

        def call(n: int) -> str:
            doc = {"session_id": "turns", "tool": "Bash", "args": {"command": f"echo {n}"}}
            resp = request(f"{sc.url}/v1/before_call", json.dumps({**doc, "call_id": f"c{n}"}))
            return str(resp.json()["action"])

        actions = [call(n) for n in range(4)]
        assert actions == ["allow", "allow", "warn", "warn"]  # the third call reaches the cap
        resp = request(f"{sc.url}/v1/user_message", '{"session_id": "turns", "text": "go on"}')
        assert resp.status == 200 and resp.json() == {"ok": True}
        assert call(4) == "allow"  # a genuine user turn resets the cap
        bad = request(f"{sc.url}/v1/user_message", '{"text": "no session"}')
        assert bad.status == 400 and "session_id" in bad.json()["error"]
    finally:
        sc.server.stop()
