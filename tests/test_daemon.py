"""The builtins-only hook and the per-user daemon, as real processes on a real unix socket.

Each test gets its own XDG_RUNTIME_DIR, so its daemons are its own; every daemon a test starts
is stopped at the end by its pid. Nothing here is timed: the benchmarks measure speed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import tether.daemon.hook as wire

HOOK = Path(wire.__file__)
TETHER = Path(sys.executable).with_name("tether")


class Sandbox:
    """A private environment (runtime, state, config dirs) and the daemons started in it."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.runtime = tmp / "run"
        self.runtime.mkdir(mode=0o700)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("TETHER_", "XDG_"))}
        for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
            (tmp / name.lower()).mkdir()
            self.env[name] = str(tmp / name.lower())
        self.env["XDG_RUNTIME_DIR"] = str(self.runtime)
        self.env["HOME"] = str(tmp / "home")
        (tmp / "home").mkdir()
        self.env["TETHER_DAEMON_IDLE"] = "120"
        self.project = tmp / "project"
        self.project.mkdir()
        self.pids: set[int] = set()

    def socket(self, hook: Path = HOOK) -> str:
        envb = {k.encode(): v.encode() for k, v in self.env.items()}
        return wire.socket_path(str(hook), envb)

    def run(self, payload: str, hook: Path = HOOK) -> subprocess.CompletedProcess[str]:
        """Run the installed hook command once, as a host does."""
        return subprocess.run(
            [sys.executable, "-I", "-S", str(hook), "claude-code"],
            input=payload,
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.project,
            timeout=120,
        )

    def status(self, hook: Path = HOOK) -> dict[str, object] | None:
        reply = wire.ask(self.socket(hook), wire.request("status", [], b""), 10)
        if reply is None or reply[0] != 0:
            return None
        info: dict[str, object] = json.loads(reply[1])
        self.pids.add(int(str(info["pid"])))
        return info

    def wait_for_daemon(self, hook: Path = HOOK, not_pid: int | None = None) -> dict[str, object]:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            info = self.status(hook)
            if info is not None and info["pid"] != not_pid:
                return info
            time.sleep(0.1)
        raise AssertionError(f"no daemon answered on {self.socket(hook)}")

    def stop_all(self) -> None:
        """Kill every daemon this sandbox started: those seen, and any serving a socket here."""
        mark = str(self.tmp).encode()
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                argv = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"-c" in argv and any(a.startswith(mark) and a.endswith(b".sock") for a in argv):
                self.pids.add(int(proc.name))
        for pid in self.pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Sandbox]:
    sandbox = Sandbox(tmp_path)
    yield sandbox
    sandbox.stop_all()


def payload(command: str, n: int = 0, session: str = "daemon-test") -> str:
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": "/tmp/t.jsonl",
            "cwd": "/tmp",
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": f"toolu_{n:04d}",
        }
    )


def decision(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout)
    if reply == {}:
        return "allow"  # Claude Code's plain allow: nothing to say
    return str(reply["hookSpecificOutput"]["permissionDecision"])


DANGER = payload("rm -rf /")


def test_the_first_call_answers_itself_and_starts_the_daemon(box: Sandbox) -> None:
    assert decision(box.run(DANGER)) == "deny"
    info = box.wait_for_daemon()
    assert info["served"] == 0
    assert decision(box.run(payload("rm -rf /", 1))) == "deny"
    assert decision(box.run(payload("ls -la", 2))) == "allow"
    assert box.status() is not None and box.status()["served"] == 2
    folder = Path(box.socket()).parent
    assert folder.stat().st_mode & 0o777 == 0o700
    assert Path(box.socket()).stat().st_mode & 0o777 == 0o600


def test_loop_state_is_shared_between_the_daemon_and_in_process_calls(box: Sandbox) -> None:
    box.run(payload("ls", 0))  # in-process; starts the daemon
    box.wait_for_daemon()
    for n in range(1, 4):
        box.run(payload("ls", n))
    state = subprocess.run(
        [str(TETHER), "session", "show", "daemon-test", "--json"],
        capture_output=True,
        text=True,
        env=box.env,
        timeout=60,
    )
    assert state.returncode == 0, state.stderr
    assert '"calls": 4' in state.stdout, "every call, wherever it was answered, is in the store"


def test_a_daemon_killed_mid_event_still_gets_an_answer(box: Sandbox) -> None:
    box.run(payload("ls"))
    pid = int(str(box.wait_for_daemon()["pid"]))
    os.kill(pid, signal.SIGSTOP)  # it accepts into the backlog but never answers
    client = subprocess.Popen(
        [sys.executable, "-I", "-S", str(HOOK), "claude-code"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=box.env,
        cwd=box.project,
    )
    assert client.stdin is not None
    client.stdin.write(payload("rm -rf /", 7))
    client.stdin.close()
    time.sleep(1.0)  # the client is waiting on the stopped daemon
    assert client.poll() is None
    os.kill(pid, signal.SIGKILL)
    client.stdin = None  # closed above: communicate() only reads
    out, err = client.communicate(timeout=120)
    done = subprocess.CompletedProcess(client.args, client.returncode, out, err)
    assert decision(done) == "deny", "answered in-process, and the answer is still a deny"
    box.wait_for_daemon(not_pid=pid)  # and a fresh daemon took over


def test_a_stale_socket_file_is_replaced(box: Sandbox) -> None:
    path = box.socket()
    Path(path).parent.mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(path)
    dead.close()  # the file stays, nobody listens: a daemon killed with -9
    assert Path(path).exists()
    assert decision(box.run(DANGER)) == "deny"
    box.wait_for_daemon()
    assert decision(box.run(payload("ls", 1))) == "allow"


def _serve(path: str, answer: Callable[[socket.socket], None]) -> socket.socket:
    """Listen on ``path`` and hand every connection to ``answer`` on a thread of its own."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)

    def loop() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            answer(conn)

    threading.Thread(target=loop, daemon=True).start()
    return server


def _fake_daemon(path: str, accepted: list[int]) -> socket.socket:
    """Listen on ``path`` and answer every request with an allow (what an attacker would do)."""

    def allow(conn: socket.socket) -> None:
        accepted.append(1)
        conn.recv(1 << 20)
        conn.sendall(b"0 2 0\n{}")
        conn.close()

    return _serve(path, allow)


def test_a_socket_directory_open_to_others_is_never_used(box: Sandbox) -> None:
    path = box.socket()
    folder = Path(path).parent
    folder.mkdir(mode=0o700)
    accepted: list[int] = []
    server = _fake_daemon(path, accepted)
    try:
        folder.chmod(0o755)  # anyone could have put that socket there
        assert decision(box.run(DANGER)) == "deny"
        assert accepted == [], "the hook never spoke to a socket in a folder open to others"
        status = subprocess.run(
            [str(TETHER), "daemon", "status"],
            capture_output=True,
            text=True,
            env=box.env,
            timeout=60,
        )
        assert status.returncode == 1
        assert f"{folder} has mode 755; expected 700 (fix: chmod 700 {folder})" in status.stdout
        folder.chmod(0o700)  # the same fake, now in a private folder: it is trusted
        assert box.run(DANGER).stdout == "{}"
        assert accepted == [1]
    finally:
        server.close()


def _second_install(tmp: Path) -> Path:
    """Copy the tether package elsewhere: another installation with its own hook file."""
    source = HOOK.parents[1]
    target = tmp / "other-install" / "tether"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target / "daemon" / "hook.py"


def test_two_installations_run_side_by_side(box: Sandbox) -> None:
    other = _second_install(box.tmp)
    assert box.socket(other) != box.socket()
    box.run(payload("ls"))
    box.run(payload("ls", 1), hook=other)
    mine, theirs = box.wait_for_daemon(), box.wait_for_daemon(other)
    assert mine["pid"] != theirs["pid"]
    assert theirs["root"] == str(other.parents[2])
    assert mine["root"] == str(HOOK.parents[2])
    assert decision(box.run(payload("rm -rf /", 2), hook=other)) == "deny"
    assert decision(box.run(payload("rm -rf /", 3))) == "deny"


def test_new_code_on_disk_replaces_the_daemon(box: Sandbox) -> None:
    other = _second_install(box.tmp)
    box.run(payload("ls"), hook=other)
    old = int(str(box.wait_for_daemon(other)["pid"]))
    module = other.parents[1] / "guard.py"
    module.write_text(module.read_text() + "\n# upgraded\n")
    time.sleep(1.1)  # the daemon looks at its files at most once a second
    assert decision(box.run(payload("rm -rf /", 1), hook=other)) == "deny"
    new = box.wait_for_daemon(other, not_pid=old)
    assert new["pid"] != old
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(old, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the daemon running the old code did not exit")


def test_daemon_status_and_stop(box: Sandbox) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(TETHER), "daemon", *args],
            capture_output=True,
            text=True,
            env=box.env,
            timeout=60,
        )

    idle = cli("status", "--json")
    assert idle.returncode == 0 and json.loads(idle.stdout)["running"] is False
    box.run(payload("ls"))
    pid = box.wait_for_daemon()["pid"]
    running = json.loads(cli("status", "--json").stdout)
    assert running["running"] is True and running["pid"] == pid
    assert cli("stop").stdout.strip() == "stopped"
    assert json.loads(cli("status", "--json").stdout)["running"] is False


def _imported(argv: list[str], box: Sandbox, stdin: str = "") -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-X", "importtime", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=box.env,
        cwd=box.project,
        timeout=60,
    )
    lines = [line for line in proc.stderr.splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines[1:]}


def test_a_warm_hook_imports_nothing_beyond_the_interpreters_startup(box: Sandbox) -> None:
    box.run(payload("ls"))
    box.wait_for_daemon()
    startup = _imported(["-c", "pass"], box)
    warm = _imported([str(HOOK), "claude-code"], box, payload("ls", 1))
    assert warm - startup == {"_socket"}, warm - startup


def test_the_daemon_reads_an_edited_config_on_the_next_event(box: Sandbox) -> None:
    box.run(payload("ls"))
    box.wait_for_daemon()
    assert decision(box.run(payload("ls -la", 1))) == "allow"
    edit = subprocess.run(
        [str(TETHER), "config", "set", "approvals.deny", '["ls *"]'],
        capture_output=True,
        text=True,
        env=box.env,
        cwd=box.project,
        timeout=60,
    )
    assert edit.returncode == 0, edit.stderr
    assert decision(box.run(payload("ls -la", 2))) == "deny"
    assert box.status()["served"] == 2


NOBODY = 65534


def _as_nobody(box: Sandbox, request: bytes) -> subprocess.CompletedProcess[str]:
    """Send ``request`` to the daemon from a process of uid nobody that can pass the folder.

    ``CAP_DAC_OVERRIDE`` gets it through the 0700 folder and the 0600 socket, as root or a
    compromised privileged process would; only the daemon's check of the peer's uid is left.
    """
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import hook; "
        "print(repr(hook.ask(sys.argv[2], bytes.fromhex(sys.argv[3]), 20)))"
    )
    caps = "+dac_override,+dac_read_search"
    return subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
         f"--inh-caps={caps}", f"--ambient-caps={caps}",
         sys.executable, "-I", "-S", "-c", script, str(HOOK.parent), box.socket(),
         request.hex()],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_a_caller_of_another_uid_is_refused_never_answered(box: Sandbox) -> None:
    """Needs root (setpriv to uid nobody with capabilities), as the e2e and verify suites do."""
    assert os.getuid() == 0, "run as root: this test starts a process of uid nobody"
    assert decision(box.run(payload("ls"))) == "allow"
    box.wait_for_daemon()
    fields = [b"claude-code", str(box.project).encode()]
    for request in (
        wire.request("hook", fields, payload("ls", 1, session="intruder").encode()),
        wire.request("status", [], b""),
        wire.request("stop", [], b""),
    ):
        proc = _as_nobody(box, request)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("(2, b'', b'tether daemon: refused a connection from uid "
                                      f"{NOBODY}"), proc.stdout  # fmt: skip
        assert "answers uid 0 only" in proc.stdout
    info = box.wait_for_daemon()  # still running: the stop was refused too
    assert info["refused"] == 3 and info["served"] == 0, info  # the first: in-process
    sessions = subprocess.run(
        [str(TETHER), "session", "list", "--json"],
        capture_output=True, text=True, env=box.env, timeout=60,
    )  # fmt: skip
    assert "intruder" not in sessions.stdout


def test_connections_beyond_the_cap_are_answered_by_their_client(box: Sandbox) -> None:
    box.env["TETHER_DAEMON_MAX_CONNECTIONS"] = "2"
    assert decision(box.run(payload("ls"))) == "allow"
    box.wait_for_daemon()
    held = []
    try:
        while len(held) < 2:  # two callers that never finish their request hold both slots
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(box.socket())
            sock.settimeout(0.5)
            try:  # turned away (the last status call's slot not yet free): a reply, then EOF
                sock.recv(64)
            except TimeoutError:
                held.append(sock)  # no answer: it holds a slot
            else:
                sock.close()
        assert box.status() is None  # a third connection is handed back at once
        proc = box.run(DANGER)  # the hook answers it itself: still a deny, never an allow
        assert decision(proc) == "deny"
    finally:
        for sock in held:
            sock.close()
    info = box.wait_for_daemon()  # the slots are free again
    assert info["busy"] >= 2, info
    shown = subprocess.run(
        [str(TETHER), "daemon", "status"], capture_output=True, text=True, env=box.env, timeout=60
    )
    assert f"{info['busy']} over the connection cap answered by their hook" in shown.stdout
    assert decision(box.run(payload("ls", 2))) == "allow"
    assert box.wait_for_daemon()["served"] == 1


def test_a_daemon_that_hangs_up_mid_request_gets_the_event_answered_in_process(
    box: Sandbox,
) -> None:
    """Writing to a closed socket is a broken pipe, not SIGPIPE (which the hook makes a block)."""
    path = box.socket()
    Path(path).parent.mkdir(mode=0o700)
    server = _serve(path, socket.socket.close)  # a daemon killed the moment it accepted
    try:
        big = payload("rm -rf / # " + "x" * 4_000_000)  # more than a socket buffer holds
        proc = box.run(big)
        assert decision(proc) == "deny", proc.stderr  # the runner's own deny, exit 0
    finally:
        server.close()


def test_a_burst_beyond_the_cap_is_denied_every_time(box: Sandbox) -> None:
    box.env["TETHER_DAEMON_MAX_CONNECTIONS"] = "1"
    assert decision(box.run(payload("ls"))) == "allow"
    box.wait_for_daemon()
    procs = [
        subprocess.Popen(
            [sys.executable, "-I", "-S", str(HOOK), "claude-code"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=box.env,
            cwd=box.project,
        )
        for _ in range(8)
    ]
    for n, proc in enumerate(procs):
        assert proc.stdin is not None
        proc.stdin.write(payload("rm -rf /", n + 1, session=f"burst-{n}"))
        proc.stdin.close()
    for proc in procs:
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()
        done = subprocess.CompletedProcess(proc.args, proc.wait(timeout=120), out, err)
        assert decision(done) == "deny", err


def test_events_the_hook_gave_up_on_are_never_counted(box: Sandbox) -> None:
    """Events queued behind a stopped daemon were judged and counted after SIGCONT (issue 25)."""
    box.env["TETHER_HOOKS__DEADLINE"] = "2"  # the hook waits 2 + 3 s for the daemon
    assert decision(box.run(payload("ls", session="before"))) == "allow"  # starts the daemon
    pid = int(str(box.wait_for_daemon()["pid"]))
    assert decision(box.run(payload("ls", 99, session="before"))) == "allow"  # the daemon's
    os.kill(pid, signal.SIGSTOP)
    try:
        procs = [
            subprocess.Popen(
                [sys.executable, "-I", "-S", str(HOOK), "claude-code"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=box.env,
                cwd=box.project,
            )
            for _ in range(8)
        ]
        for n, proc in enumerate(procs):
            assert proc.stdin is not None
            proc.stdin.write(payload("ls", n + 1, session="queued"))
            proc.stdin.close()
        for proc in procs:
            assert proc.stdout is not None and proc.stderr is not None
            out, err = proc.stdout.read(), proc.stderr.read()
            assert proc.wait(timeout=120) == 2, (out, err)  # a block in every host
            assert "did not answer" in err, err
    finally:
        os.kill(pid, signal.SIGCONT)

    def queued() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(TETHER), "session", "show", "queued", "--json"],
            capture_output=True,
            text=True,
            env=box.env,
            timeout=60,
        )

    # The daemon reads the 8 queued events now: wait until it has dealt with them one way
    # (turned away, counted as expired) or the other (judged: the session appears).
    deadline = time.monotonic() + 60
    while (info := box.wait_for_daemon()).get("expired") != 8:
        if queued().returncode == 0:
            break
        assert time.monotonic() < deadline, info
        time.sleep(0.2)
    state = queued()
    assert state.returncode == 2 and "no session 'queued'" in state.stderr, state.stdout
    assert info["served"] == 1, info  # only the event before the stop was judged


def _tether(box: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TETHER), *args], capture_output=True, text=True, env=box.env, cwd=box.project,
        timeout=120,
    )  # fmt: skip


def test_doctor_fix_heals_a_corrupt_store_while_the_daemon_runs(box: Sandbox) -> None:
    """The daemon keeps its store open; --fix moves the file aside under it.

    Before, the daemon kept its connection to the moved file and every call in every session
    was denied until `tether daemon stop`, while the doctor said the store was fixed.
    """
    from tether.store.sqlite import SQLiteStore

    db = Path(box.env["XDG_STATE_HOME"]) / "tether" / "state.db"
    store = SQLiteStore(db)
    for n in range(50):
        store.update(f"s{n}", lambda _: {"calls": 1, "pad": "x" * 2000})
    store.close()  # the last connection checkpoints the WAL into the file
    with db.open("r+b") as handle:  # the header stays, the table pages are garbage
        handle.seek(4096)
        handle.write(b"definitely not sqlite " * (db.stat().st_size // 22))
    box.run(payload("ls", 0))  # answered in-process; starts the daemon
    pid = box.wait_for_daemon()["pid"]
    broken = box.run(payload("ls", 1))
    assert "StoreError" in broken.stdout, broken.stdout  # the daemon's answer: denied
    fixed = _tether(box, "doctor", "--fix", "--json", "--host", "claude-code")
    store_checks = [c for c in json.loads(fixed.stdout)["checks"] if c["area"] == "store"]
    assert "moved aside" in store_checks[0]["message"], store_checks
    assert decision(box.run(payload("ls", 2))) == "allow"
    assert box.status() is not None and box.status()["pid"] == pid  # the same daemon, healed
    assert fixed.returncode == 0, fixed.stdout  # and the doctor's own samples passed


def test_the_daemon_reopens_a_store_file_replaced_under_it(box: Sandbox) -> None:
    """A state file replaced (restored from a backup, moved aside) is the one read next."""
    box.run(payload("ls", 0, session="old"))
    box.wait_for_daemon()
    box.run(payload("ls", 1, session="old"))
    db = Path(box.env["XDG_STATE_HOME"]) / "tether" / "state.db"
    aside = db.with_name("state.db.aside")
    db.rename(aside)
    for side in ("-wal", "-shm"):
        db.with_name(db.name + side).unlink(missing_ok=True)
    assert decision(box.run(payload("ls", 2, session="new"))) == "allow"
    listed = json.loads(_tether(box, "session", "list", "--json").stdout)
    assert [s["session_id"] for s in listed] == ["new"], listed  # written to the new file


def test_a_daemon_start_points_entries_whose_hook_file_is_gone_back_here(box: Sandbox) -> None:
    """`pip install .`, `tether install`, `pip install -e .`: the settings name a hook file that
    is gone; the next daemon of this environment points them at its own (with a backup)."""
    gone = box.tmp / "site-packages" / "tether" / "daemon" / "hook.py"
    stale = f"{sys.executable} -I -S {gone} claude-code"
    other = "echo someone-elses-hook"
    settings = Path(box.env["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": stale}]},
        {"matcher": "*", "hooks": [{"type": "command", "command": other}]},
    ]}}))  # fmt: skip
    box.run(payload("ls"))  # starts this installation's daemon
    box.wait_for_daemon()
    deadline = time.monotonic() + 30
    while stale in settings.read_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    groups = json.loads(settings.read_text())["hooks"]["PreToolUse"]
    assert groups[0]["matcher"] == "Bash"  # refreshed in place, as `tether install` does
    assert groups[0]["hooks"][0]["command"] == f"{sys.executable} -I -S {HOOK} claude-code"
    assert groups[1]["hooks"][0]["command"] == other
    assert list(settings.parent.glob("settings.json.tether-backup-*"))
