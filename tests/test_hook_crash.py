"""A hook process that dies inside C code (a parser crash) still blocks the call: fail closed.

A process killed by SIGSEGV or SIGABRT prints nothing and exits 128 + N, which Codex, Gemini CLI
and older Claude Code read as "allow". tree-sitter-bash really did this: its scanner calls
``isdigit``/``isalpha`` on code points over 255 (an out-of-bounds table read), so
``echo {\\U0010fffd`` killed the parsing process in most runs (benchmarks/fuzz_parse.py found
it). The parser now stands such characters in before tree-sitter sees them, and the process
the host starts never parses anyway: it forks the one that does and prints the block when that
one dies without a reply. Both hook entries are checked as real processes: ``tether hook HOST``
and the installed builtins-only forwarder (``python -I -S …/daemon/hook.py HOST``), answering
in-process and behind a daemon that is killed mid-event.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import tether.daemon.hook as wire

TETHER = Path(sys.executable).with_name("tether")
FORWARDER = [sys.executable, "-I", "-S", str(Path(wire.__file__)), "claude-code"]
ENTRIES = {"tether hook": [str(TETHER), "hook", "claude-code"], "forwarder": FORWARDER}
# Each killed tree-sitter-bash in 30-80% of fresh processes (the fuzzer's finds, minimised);
# `rm -rf /` makes "allow" wrong either way.
CRASHERS = ["echo {\U0010fffd", "{\U0008b9da", "{\U00064d50", "git st@{0\U00064d50"]
RUNS = 3


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A private HOME, XDG dirs and a daemon socket folder; daemons started here are stopped."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TETHER_", "XDG_"))}
    # Short names: a unix socket's path must stay under 108 bytes.
    for name, short in (("XDG_STATE_HOME", "s"), ("XDG_CONFIG_HOME", "c"), ("XDG_CACHE_HOME", "k"),
                        ("HOME", "h"), ("XDG_RUNTIME_DIR", "r")):  # fmt: skip
        (tmp_path / short).mkdir(mode=0o700)
        env[name] = str(tmp_path / short)
    env["TETHER_HOOKS__DEADLINE"] = "20"
    env["TETHER_DAEMON_IDLE"] = "60"
    (tmp_path / "project").mkdir()
    yield env
    for pid in _daemons(env):
        os.kill(pid, signal.SIGKILL)


def _daemons(env: dict[str, str]) -> list[int]:
    """Return the pids of daemons serving sockets under this test's runtime folder."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(env["XDG_RUNTIME_DIR"].encode() in a for a in argv) and b"-c" in argv:
            found.append(int(proc.name))
    return found


def _no_daemon(env: dict[str, str]) -> None:
    """Make the socket folder one the forwarder refuses (open to others): no daemon, ever."""
    folder = Path(env["XDG_RUNTIME_DIR"]) / "tether"
    folder.mkdir()
    folder.chmod(0o755)


def _payload(command: str, cwd: str) -> bytes:
    return json.dumps(
        {
            "session_id": "crash",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": cwd,
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "toolu_crash",
        }
    ).encode()


def _blocked(code: int, out: bytes, err: bytes) -> bool:
    """Return whether Claude Code blocks the call on this reply (what any host would)."""
    if code == 2:
        return bool(err.strip())
    assert code == 0, f"exit {code} and no reply: the host lets the call run ({err[-300:]!r})"
    reply = json.loads(out)
    return bool(reply.get("hookSpecificOutput", {}).get("permissionDecision") == "deny")


@pytest.mark.parametrize("entry", list(ENTRIES))
def test_the_inputs_that_crashed_the_parser_get_a_real_decision(
    entry: str, env: dict[str, str]
) -> None:
    cwd = str(Path(env["HOME"]).parent / "project")
    if entry == "forwarder":
        _no_daemon(env)  # every call answers in-process, in a fresh process
    for crasher in CRASHERS:
        for _ in range(RUNS):
            done = subprocess.run(
                ENTRIES[entry],
                input=_payload(f"rm -rf /; {crasher}", cwd),
                capture_output=True,
                env=env,
                cwd=cwd,
                timeout=60,
                check=False,
            )
            assert _blocked(done.returncode, done.stdout, done.stderr), done
            # Judged, not merely failed closed: the parser survived and saw the `rm -rf /`.
            assert done.returncode == 0 and b"DG101" in done.stdout, (crasher, done)


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [int(c) for c in task.read_text().split()]
        except OSError:
            continue
    return found


def _holding(db: Path, pids: Callable[[], list[int]]) -> int | None:
    """Return the first of ``pids()`` that has ``db`` open."""
    for pid in pids():
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
            if any(os.readlink(fd) == str(db) for fd in fds):
                return pid
        except OSError:
            continue
    return None


def _wait_for(check: Callable[[], int | None], what: str) -> int:
    end = time.monotonic() + 30
    while time.monotonic() < end:
        found = check()
        if found is not None:
            return found
        time.sleep(0.01)
    pytest.fail(f"timed out waiting until {what}")


def _locked_store(env: dict[str, str], cwd: str) -> tuple[Path, sqlite3.Connection]:
    first = subprocess.run(
        [str(TETHER), "hook", "claude-code"],
        input=_payload("ls", cwd),
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=60,
        check=False,
    )
    assert first.returncode == 0, first
    db = Path(env["XDG_STATE_HOME"]) / "tether" / "state.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # the judging process now waits in SQLite's busy handler
    return db, holder


@pytest.mark.parametrize("entry", list(ENTRIES))
def test_the_judging_process_killed_by_sigsegv_is_a_block(entry: str, env: dict[str, str]) -> None:
    cwd = str(Path(env["HOME"]).parent / "project")
    _no_daemon(env)
    db, holder = _locked_store(env, cwd)
    try:
        proc = subprocess.Popen(
            ENTRIES[entry],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
        )
        assert proc.stdin is not None
        proc.stdin.write(_payload("ls", cwd))
        proc.stdin.close()
        judge = _wait_for(
            lambda: _holding(db, lambda: [proc.pid, *_children(proc.pid)]), "the store is opened"
        )
        os.kill(judge, signal.SIGSEGV)
        proc.stdin = None  # closed above: communicate() only reads
        out, err = proc.communicate(timeout=60)
    finally:
        holder.rollback()
        holder.close()
    assert proc.returncode == 2, (proc.returncode, out, err)
    assert b"denied (fail closed)" in err and b"killed by SIGSEGV" in err, err


def test_a_daemon_then_its_fallback_crashing_is_a_block(env: dict[str, str]) -> None:
    cwd = str(Path(env["HOME"]).parent / "project")
    db, holder = _locked_store(env, cwd)
    holder.rollback()
    warm = subprocess.run(FORWARDER, input=_payload("ls", cwd), capture_output=True, env=env,
                          cwd=cwd, timeout=60, check=False)  # fmt: skip
    assert warm.returncode == 0, warm
    daemon = _wait_for(lambda: next(iter(_daemons(env)), None), "a daemon is started")

    def served() -> int | None:  # the daemon keeps the store open once it answered an event
        subprocess.run(FORWARDER, input=_payload("ls", cwd), capture_output=True, env=env,
                       cwd=cwd, timeout=60, check=False)  # fmt: skip
        return _holding(db, lambda: [daemon])

    _wait_for(served, "the daemon answers an event")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        proc = subprocess.Popen(
            FORWARDER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, cwd=cwd,
        )  # fmt: skip
        assert proc.stdin is not None
        proc.stdin.write(_payload("ls", cwd))
        proc.stdin.close()
        time.sleep(0.5)  # the daemon is judging: waiting on the locked store
        assert proc.poll() is None
        os.kill(daemon, signal.SIGSEGV)
        # The forwarder answers it itself now, in a child that hits the same lock: crash it too.
        judge = _wait_for(lambda: _holding(db, lambda: _children(proc.pid)), "the retry starts")
        os.kill(judge, signal.SIGSEGV)
        proc.stdin = None  # closed above: communicate() only reads
        out, err = proc.communicate(timeout=60)
    finally:
        holder.rollback()
        holder.close()
    assert proc.returncode == 2, (proc.returncode, out, err)
    assert b"killed by SIGSEGV" in err, err
