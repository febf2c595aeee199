"""Run one command in the sandbox and judge what it did.

``Oracle`` builds the fixture once; each ``run`` gets a fresh overlay over ``/`` (see
``stages``), runs the command with a time limit, and reads the overlay's upper layer. It
never runs a command any other way: when the sandbox cannot be built (not root, no
``unshare``, no overlayfs, a failed check) the verdict is "could not verify", not "no change".
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import IO

from tether.verify import fixture, stages
from tether.verify.diff import Areas, changes
from tether.verify.verdict import Verdict, judge, unverified

DEFAULT_TIMEOUT = 10.0
_OUTPUT_CAP = 64 * 1024  # bytes of stdout/stderr kept per command
_MAP = "0 0 65536\n"  # root and the system users map onto themselves; nothing else exists
_SANDBOX_FAILED = 125
_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_STARTUP = 60.0  # seconds to build the sandbox; generous, since a loaded machine is slow


def sandbox_problem() -> str | None:
    """Return why no sandbox can be built on this machine, or None if one can be tried."""
    if os.geteuid() != 0:
        return "the sandbox needs root (user namespaces and an overlay over /)"
    for tool in ("unshare", "pivot_root", "mount", "umount"):
        if shutil.which(tool) is None:
            return f"'{tool}' (util-linux) is not installed"
    return None


class Oracle:
    """A fixture plus a way to run commands over it in throwaway sandboxes."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, path: str | None = None) -> None:
        self.timeout = timeout
        self._path = path or os.environ.get("PATH") or _PATH
        self._base = Path(tempfile.mkdtemp(prefix="tether-verify-"))
        self._lock = threading.Lock()
        self._count = 0
        try:
            self.fixture = fixture.build(self._base / "fixture")
        except BaseException:
            shutil.rmtree(self._base, ignore_errors=True)
            raise
        self._areas = Areas(str(self.fixture.work), str(self.fixture.home), str(self.fixture.tmp))

    def __enter__(self) -> Oracle:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Remove the fixture and every run directory."""
        shutil.rmtree(self._base, ignore_errors=True)

    def run(self, command: str) -> Verdict:
        """Run ``command`` in a fresh sandbox and return what it changed."""
        problem = sandbox_problem()
        if problem is not None:
            return unverified(command, f"sandbox could not be built: {problem}")
        with self._lock:
            self._count += 1
            run = self._base / "runs" / str(self._count)
        for part in ("upper", "ovlwork", "merged", "shm"):
            (run / part).mkdir(parents=True)
        try:
            return self._run(command, run)
        finally:
            shutil.rmtree(run, ignore_errors=True)

    def _run(self, command: str, run: Path) -> Verdict:
        env = self.fixture.environment(self._path)
        go_r, go_w = _pipe()
        ready_r, ready_w = _pipe()
        argv = [
            "unshare", "--mount", "--propagation", "private", "--",
            "/bin/bash", "-c", stages.STAGE1, "tether-verify",
            str(run), str(go_r), str(ready_w),
            str(self.fixture.work), command, *(f"{k}={v}" for k, v in env.items()),
        ]  # fmt: skip
        started = time.monotonic()
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(go_r, ready_w),
            env={"PATH": _PATH, "STAGE2": stages.STAGE2},
            start_new_session=True,
        )
        os.close(go_r)
        os.close(ready_w)
        out, err = _Drain(proc.stdout), _Drain(proc.stderr)
        timed_out = False
        try:
            ready = _enter(proc, go_w, ready_r, deadline=started + _STARTUP)
            if ready:
                try:
                    proc.wait(timeout=self.timeout)
                except subprocess.TimeoutExpired:
                    timed_out = True
        finally:
            os.close(go_w)
            os.close(ready_r)
            _kill(proc)
        elapsed = time.monotonic() - started
        stderr = err.text()
        if not ready:
            said = [line for line in stderr.splitlines() if line.startswith("tether verify: ")]
            why = said[-1] if said else f"it did not start (stage exit status {proc.returncode})"
            return unverified(command, f"sandbox could not be built: {why}", elapsed)
        found, touched = changes(run / "upper", run / "shm", self._areas)
        exit_code = None if timed_out else proc.returncode
        return judge(
            command, exit_code, out.text(), stderr, found, touched, elapsed,
            timed_out=self.timeout if timed_out else None,
        )  # fmt: skip


def _pipe() -> tuple[int, int]:
    """Return a pipe whose ends are above 9, clear of the stage scripts' fds 3 and 4."""
    r, w = os.pipe()
    hi_r = fcntl.fcntl(r, fcntl.F_DUPFD_CLOEXEC, 10)
    hi_w = fcntl.fcntl(w, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(r)
    os.close(w)
    return hi_r, hi_w


def _enter(proc: subprocess.Popen[bytes], go_w: int, ready_r: int, deadline: float) -> bool:
    """Map the sandbox's user namespace, let stage 2 go on, and wait for it to be ready."""
    own = os.readlink("/proc/self/ns/user")
    while True:
        if proc.poll() is not None or time.monotonic() > deadline:
            return False
        try:
            if os.readlink(f"/proc/{proc.pid}/ns/user") != own:
                break
        except OSError:
            return False
        time.sleep(0.001)
    try:
        for name in ("uid_map", "gid_map"):
            with open(f"/proc/{proc.pid}/{name}", "w") as fh:
                fh.write(_MAP)
        os.write(go_w, b"go\n")
    except OSError:
        return False
    while time.monotonic() < deadline:
        readable, _, _ = select.select([ready_r], [], [], 0.05)
        if readable:
            return os.read(ready_r, 16) == b"ready\n"
        if proc.poll() is not None:
            return False
    return False


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the sandbox (its PID namespace dies with stage 2) and reap it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


class _Drain:
    """Read a pipe to its end in a thread, keeping the first ``_OUTPUT_CAP`` bytes."""

    def __init__(self, stream: IO[bytes] | None) -> None:
        self._kept = bytearray()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[bytes] | None) -> None:
        if stream is None:
            return
        with stream:
            for block in iter(lambda: os.read(stream.fileno(), 65536), b""):
                if len(self._kept) < _OUTPUT_CAP:
                    self._kept += block[: _OUTPUT_CAP - len(self._kept)]

    def text(self) -> str:
        """Return what was kept (waiting briefly for the writer to finish)."""
        self._thread.join(timeout=2.0)
        return self._kept.decode("utf-8", "replace")
