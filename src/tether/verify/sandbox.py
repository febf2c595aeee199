"""Run one command in the sandbox and judge what it did.

``Oracle`` builds the seed and fixture once; each ``run`` gets a fresh overlay over ``/``
(see ``stages``) whose upper layer starts as a copy of the seed, runs the command with a
time limit (``trace=True``: under ``strace -f``), and reads the overlay's upper layer. It
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

from tether.errors import FixtureError
from tether.verify import fixture, seed, stages, trace
from tether.verify.diff import Areas, Change, changes
from tether.verify.verdict import Verdict, judge, unverified

DEFAULT_TIMEOUT = 10.0
_OUTPUT_CAP = 64 * 1024  # bytes of stdout/stderr kept per command
_PIDS = Path("/sys/fs/cgroup/pids")  # cgroup v1 pids controller, where there is one
_PIDS_MAX = 256  # processes per sandbox: a fork bomb stops here
_SANDBOX_FAILED = 125
_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_STARTUP = 60.0  # seconds to build the sandbox; generous, since a loaded machine is slow


def sandbox_problem() -> str | None:
    """Return why no sandbox can be built on this machine, or None if one can be tried."""
    if os.geteuid() != 0:
        return "the sandbox needs root (user namespaces and an overlay over /)"
    for tool in ("unshare", "pivot_root", "mount", "umount", "setpriv", "script"):
        if shutil.which(tool) is None:
            return f"'{tool}' (util-linux) is not installed"
    return None


class Oracle:
    """A fixture plus a way to run commands over it in throwaway sandboxes."""

    def __init__(
        self, timeout: float = DEFAULT_TIMEOUT, path: str | None = None, stubs: tuple[str, ...] = ()
    ) -> None:
        """``stubs`` names programs to provide as do-nothing stubs where none is installed
        (on PATH after the real ones), so that a traced run shows their argv."""
        self.timeout = timeout
        self._path = path or os.environ.get("PATH") or _PATH
        self._base = Path(tempfile.mkdtemp(prefix="tether-verify-"))
        self._lock = threading.Lock()
        self._count = 0
        self._seed = self._base / "seed"
        self._problem: str | None = None
        try:
            os.chmod(self._base, 0o755)
            self.fixture = seed.build(self._seed, fixture.UID)
            missing = [n for n in stubs if shutil.which(n, path=self._path) is None]
            if missing:
                self._path += ":" + seed.stubs(self._seed, missing)
            self._seeded = seed.snapshot(self._seed)
        except FixtureError:
            shutil.rmtree(self._base, ignore_errors=True)
            raise
        except OSError as exc:  # not root enough: every run says so, none runs
            self._problem = f"cannot build the seed: {exc.strerror} ({exc.filename})"
            self.fixture = fixture.Fixture(self._seed, fixture.WORK, fixture.HOME, fixture.TMP)
            self._seeded = {}
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

    def run(
        self,
        command: str,
        files: dict[str, str] | None = None,
        trace: bool = False,
        halt: bool = False,
    ) -> Verdict:
        """Run ``command`` in a fresh sandbox and return what it changed.

        ``files`` adds text files to the working directory first (relative path -> content:
        the operands a command reads, so that it reaches its write); ``trace`` records every
        process it starts and every destructive filesystem operation (``Verdict.trace``);
        ``halt`` (with ``trace``) kills each process at its first destructive syscall."""
        problem = sandbox_problem() or self._problem
        if problem is not None:
            return unverified(command, f"sandbox could not be built: {problem}")
        with self._lock:
            self._count += 1
            run = self._base / "runs" / str(self._count)
        for part in ("ovlwork", "merged", "trace"):
            (run / part).mkdir(parents=True)
        os.chmod(run / "trace", 0o700)
        cgroup = _cgroup(f"{os.getpid()}-{id(self)}-{self._count}")
        try:
            subprocess.run(["cp", "-a", str(self._seed), str(run / "upper")], check=True)
            seeded = self._seeded
            if files:
                seeded = {**seeded, **self._add(run / "upper", files)}
            return self._run(
                command, run, seeded, cgroup, ("halt" if halt else "trace") if trace else ""
            )
        finally:
            _release(cgroup)
            shutil.rmtree(run, ignore_errors=True)

    def _add(self, upper: Path, files: dict[str, str]) -> dict[str, seed.Sig]:
        """Write operand files into the upper layer's working directory; return their sigs."""
        added: dict[str, seed.Sig] = {}
        work = self.fixture.work
        for rel, text in files.items():
            where = os.path.normpath(work / rel)
            if not where.startswith(str(work) + "/"):
                continue  # only inside the working directory
            host = upper / where.lstrip("/")
            if os.path.lexists(host):
                continue
            parents = [p for p in host.parents if not p.exists()]
            host.parent.mkdir(parents=True, exist_ok=True)
            host.write_text(text)
            for p in [*parents, host]:
                os.chown(p, fixture.UID, fixture.UID)
                inner = "/" + str(p.relative_to(upper))
                added[inner] = seed.sig(p, os.lstat(p))
        return added

    def _run(
        self, command: str, run: Path, seeded: dict[str, seed.Sig], cgroup: Path | None,
        mode: str,
    ) -> Verdict:  # fmt: skip
        env = self.fixture.environment(self._path)
        go_r, go_w = _pipe()
        ready_r, ready_w = _pipe()
        argv = [
            "unshare", "--mount", "--propagation", "private", "--",
            "/bin/bash", "-c", stages.STAGE1, "tether-verify",
            str(run), str(go_r), str(ready_w), str(cgroup or ""),
            str(self.fixture.work), command, mode or "plain",
            *(f"{k}={v}" for k, v in env.items()),
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
            _kill(proc, cgroup)
        elapsed = time.monotonic() - started
        stderr = err.text()
        if not ready:
            said = [line for line in stderr.splitlines() if line.startswith("tether verify: ")]
            why = said[-1] if said else f"it did not start (stage exit status {proc.returncode})"
            return unverified(command, f"sandbox could not be built: {why}", elapsed)
        upper = run / "upper"
        found, touched = changes(upper, seeded, self._areas, skip=(seed.TRACE_DIR,))
        found = [self._refreshed(upper, c) for c in found]
        exit_code = None if timed_out else proc.returncode
        record = trace.read(run / "trace", str(self.fixture.work)) if mode else None
        return judge(
            command, exit_code, out.text(), stderr, found, touched, elapsed,
            timed_out=self.timeout if timed_out else None, trace=record,
        )  # fmt: skip

    def _refreshed(self, upper: Path, change: Change) -> Change:
        """Call a rewritten git index with the same entries what it is: a refreshed cache."""
        index = str(self.fixture.work / ".git" / "index")
        if change.path != index or change.kind not in ("modified", "mtime"):
            return change
        git_dir = self._seed / index.lstrip("/")[: -len("/index")]
        before = _ls_files(self._seed / index.lstrip("/"), git_dir)
        if before is not None and before == _ls_files(upper / index.lstrip("/"), git_dir):
            return change._replace(kind="refreshed", detail="same entries, new stat data")
        return change


def _ls_files(index: Path, git_dir: Path) -> str | None:
    """Return ``git ls-files --stage`` of an index file, or None if git cannot read it."""
    try:
        out = subprocess.run(
            ["git", "-c", "safe.directory=*", "ls-files", "--stage"],
            env={"PATH": _PATH, "GIT_INDEX_FILE": str(index), "GIT_DIR": str(git_dir)},
            capture_output=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.decode("utf-8", "replace")


def _cgroup(name: str) -> Path | None:
    """Create a pids cgroup for one run, or return None where there is none to use."""
    where = _PIDS / "tether-verify" / name
    try:
        where.mkdir(parents=True)
        (where / "pids.max").write_text(f"{_PIDS_MAX}\n")
    except OSError:
        return None
    return where


def _release(cgroup: Path | None) -> None:
    """Kill whatever is left in a run's cgroup and remove it."""
    if cgroup is None:
        return
    for _ in range(50):
        try:
            pids = (cgroup / "cgroup.procs").read_text().split()
        except OSError:
            return
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(int(pid), signal.SIGKILL)
        time.sleep(0.02)
    with contextlib.suppress(OSError):
        cgroup.rmdir()


def _pipe() -> tuple[int, int]:
    """Return a pipe whose ends are above 9, clear of the stage scripts' fds 3 and 4."""
    r, w = os.pipe()
    hi_r = fcntl.fcntl(r, fcntl.F_DUPFD_CLOEXEC, 10)
    hi_w = fcntl.fcntl(w, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(r)
    os.close(w)
    return hi_r, hi_w


def _enter(proc: subprocess.Popen[bytes], go_w: int, ready_r: int, deadline: float) -> bool:
    """Wait for the sandbox to say it is ready (every check passed)."""
    del go_w  # kept open until the end: stage 1 holds its other end
    while time.monotonic() < deadline:
        exited = proc.poll() is not None  # before looking: "ready" may come just before exit
        readable, _, _ = select.select([ready_r], [], [], 0.05)
        if readable:
            return os.read(ready_r, 16) == b"ready\n"
        if exited:
            return False
    return False


def _kill(proc: subprocess.Popen[bytes], cgroup: Path | None) -> None:
    """Kill the sandbox (its PID namespace dies with stage 2) and reap it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    _release(cgroup)


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
