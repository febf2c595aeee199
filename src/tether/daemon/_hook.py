"""The hook command's code: relay the event to the per-user daemon, or answer it here.

``hook.py`` beside this file is what hosts run; it loads this module from its cached bytecode
(Python compiles the script it is started with on every run, never a module it imports) and
calls :func:`run`. Installed as ``PYTHON -I -S …/tether/daemon/hook.py HOST``: isolated,
without ``site``, and importing only what the interpreter's startup already loaded (``sys``,
``posix``) plus the ``_socket`` extension, so a warm call costs about what ``python -c pass``
does. It

1. reads the event from stdin;
2. connects to the daemon's unix socket in a per-user 0700 directory (``$XDG_RUNTIME_DIR/tether``,
   else ``$XDG_STATE_HOME/tether/run``), but only if that directory is the user's own and closed
   to others: a socket planted by someone else is never asked;
3. relays the event and prints the daemon's reply;
4. when no daemon answers (none running, a stale socket, the daemon killed mid-event or
   replaced by newer code), answers the event the way ``tether hook HOST`` does, in a forked
   child (:func:`supervised`), then starts a daemon detached for the next call.

Nothing here fails open: every path ends in the runner's reply or, if even Tether cannot be
imported, in exit status 2 with the cause on stderr, which every host treats as a block. A
child that dies before its reply is out (a SIGSEGV or SIGABRT inside the parser's C code, the
OOM killer) cannot print anything itself, and hosts read a hook that dies by a signal as
"allow": this process, which runs no Tether code, prints the block for it.

The wire format is bytes only (no ``json``: its import costs more than the rest of this
file). Request: ``b"TETHER1 <kind> <header length>\\n"``, a header of NUL-separated fields
(host, cwd, ``deadline=<monotonic seconds>``, then ``KEY=value`` environment entries), then
the payload to EOF. Reply:
``b"<exit> <stdout length> <stderr length>\\n"`` and the two streams; exit -1 means "not me:
answer it yourself" (the daemon's code changed under it).
"""

# No `from __future__ import annotations`: even that is an import (annotations below are
# evaluated at definition, which Python 3.10+ handles).
import _signal  # type: ignore[import-not-found]  # built in, loaded at startup: free
import posix
import sys
import time  # built in, loaded at the interpreter's startup: free

TYPE_CHECKING = False  # typing's own flag costs an import
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn

MAGIC = b"TETHER1"
# The hook's third header field: ``deadline=<CLOCK_MONOTONIC seconds>``, when it stops waiting
# (the clock is the machine's, shared by every process; a stopped process's clock runs on).
DEADLINE_FIELD = b"deadline"
MAX_INPUT = 32 * 1024 * 1024
RETRY_EXIT = -1  # the daemon declines: the client answers in-process
CONNECT_TIMEOUT = 1.0  # seconds to reach a listening daemon (it accepts in microseconds)
REPLY_TIMEOUT = 25.0  # over the runner's deadline (hooks.deadline, 15 s), under the host's 30 s
DEFAULT_DEADLINE = 15.0  # tether.hosts.runner.DEFAULT_DEADLINE: for reading stdin
MAX_DEADLINE = 25.0  # tether.hosts.runner.MAX_DEADLINE
SPAWN_BACKOFF = 10.0  # seconds between two attempts to start a daemon
# Environment entries the daemon needs to see as this call does: configuration and paths.
ENV_PREFIXES = (b"TETHER_", b"XDG_", b"HOME", b"CODEX_HOME", b"CLAUDE_", b"GEMINI_")


# The launcher's path (``hook.py``), as the interpreter was given it: the installation's
# identity (its socket), whoever loaded this module.
LAUNCHER = [__file__.rpartition("/")[0] + "/hook.py"]


def here() -> str:
    """Return the hook command's path (``hook.py``) as the interpreter was given it."""
    return LAUNCHER[0]


def package_root(hook_file: str) -> str:
    """Return the folder holding the ``tether`` package this hook file belongs to."""
    path = hook_file
    for _ in range(3):  # …/ROOT/tether/daemon/hook.py
        path = path.rpartition("/")[0]
    return path or "/"


def install_key(hook_file: str) -> str:
    """Return a short stable hash of this installation (its path and Python version)."""
    text = f"{hook_file}\0{sys.version}".encode("utf-8", "surrogateescape")
    value = 0xCBF29CE484222325  # FNV-1a, 64 bit: no hashlib under -S
    for byte in text:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def socket_dir(environ: dict[bytes, bytes] | None = None) -> str:
    """Return the per-user folder of the daemon's socket."""
    env = posix.environ if environ is None else environ
    runtime = env.get(b"XDG_RUNTIME_DIR", b"").decode("utf-8", "surrogateescape")
    if runtime.startswith("/"):
        return runtime.rstrip("/") + "/tether"
    state = env.get(b"XDG_STATE_HOME", b"").decode("utf-8", "surrogateescape")
    if not state.startswith("/"):
        home = env.get(b"HOME", b"").decode("utf-8", "surrogateescape") or "/"
        state = home.rstrip("/") + "/.local/state"
    return state.rstrip("/") + "/tether/run"


def socket_path(hook_file: str, environ: dict[bytes, bytes] | None = None) -> str:
    """Return the socket of the daemon serving this installation."""
    return f"{socket_dir(environ)}/d-{install_key(hook_file)}.sock"


def dir_problem(folder: str) -> str | None:
    """Return why ``folder`` must not hold our socket (missing, not ours, open to others)."""
    try:
        st = posix.stat(folder)
    except OSError as exc:
        return f"{folder}: {exc.strerror or exc}"
    if st.st_mode & 0o170000 != 0o040000:
        return f"{folder} is not a directory"
    if st.st_uid != posix.getuid():
        return f"{folder} belongs to uid {st.st_uid}, not to you (uid {posix.getuid()})"
    if st.st_mode & 0o077:
        mode = st.st_mode & 0o777
        return f"{folder} has mode {mode:o}; expected 700 (fix: chmod 700 {folder})"
    return None


def request(kind: str, fields: list[bytes], payload: bytes) -> bytes:
    """Return the bytes of one request."""
    header = b"\0".join(fields)
    return b"%s %s %d\n" % (MAGIC, kind.encode(), len(header)) + header + payload


class NotTheDaemon(Exception):
    """The process listening on the socket is not the daemon's uid: its answer is not read."""


def ask(
    path: str, data: bytes, timeout: float = REPLY_TIMEOUT, daemon_uid: int = -1
) -> tuple[int, bytes, bytes] | None:
    """Send ``data`` to the daemon at ``path``; return (exit, stdout, stderr) or None.

    None means nobody answered in full: no socket, a stale one, or a daemon that died or
    declined mid-event. A daemon that answers nothing within ``timeout`` raises TimeoutError.
    With ``daemon_uid`` (a managed install), the listening process's uid is read from the
    kernel (``SO_PEERCRED``) before anything is sent: another uid raises NotTheDaemon.
    """
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        try:
            sock.connect(path)
        except OSError:
            return None
        if daemon_uid >= 0:
            uid = peer_uid(sock)
            if uid != daemon_uid:
                raise NotTheDaemon(f"uid {uid} listens on {path}, not the daemon's {daemon_uid}")
        end = time.monotonic() + timeout  # for the whole reply, however it trickles in
        try:
            # A daemon gone mid-request is a broken pipe (answered here), not SIGPIPE, which
            # catch_signals turns into a block.
            sock.settimeout(timeout)
            sock.sendall(data, getattr(_socket, "MSG_NOSIGNAL", 0))
            sock.shutdown(_socket.SHUT_WR)
            chunks = []
            while True:
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no reply in time")
                sock.settimeout(left)
                chunk = sock.recv(262144)
                if not chunk:
                    break
                chunks.append(chunk)
        except TimeoutError:
            raise
        except OSError:
            return None
    finally:
        sock.close()
    return parse_reply(b"".join(chunks))


def peer_uid(sock: object) -> int:
    """Return the uid of the process at the other end of a unix socket (-1 if unknown)."""
    import _socket

    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        return -1
    try:
        raw = sock.getsockopt(_socket.SOL_SOCKET, option, 12)  # type: ignore[attr-defined]
    except OSError:
        return -1
    return int.from_bytes(raw[4:8], sys.byteorder)  # struct ucred {pid, uid, gid}


def parse_reply(raw: bytes) -> tuple[int, bytes, bytes] | None:
    """Return (exit, stdout, stderr) from a complete reply, else None."""
    head, sep, body = raw.partition(b"\n")
    parts = head.split()
    if not sep or len(parts) != 3:
        return None
    try:
        code, n_out, n_err = (int(p) for p in parts)
    except ValueError:
        return None
    if code == RETRY_EXIT or len(body) != n_out + n_err or n_out < 0 or n_err < 0:
        return None
    return code, body[:n_out], body[n_out:]


# A host's SIGTERM (its shutdown or timeout), SIGHUP, Ctrl-C, SIGPIPE, and every other signal
# whose default action ends a process (SIGQUIT, SIGUSR1/2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF,
# SIGIO, SIGPWR, SIGSYS, the real-time signals …) would end this process with 128 + N and no
# reply, which every host reads as "allow". Until a reply is out they end it with status 2 and
# the cause on stderr (a block everywhere); after, with the reply's own status. Answering
# in-process, the runner's handlers take over (the host's own deny). Not caught: SIGKILL and
# SIGSTOP (no process can), and the hardware faults SIGSEGV, SIGBUS, SIGFPE and SIGILL: a real
# fault returns to the faulting instruction and would spin in a handler instead of ending; the
# work that can fault runs in a supervised child, whose death this process answers.
_FATAL = (
    "SIGHUP", "SIGINT", "SIGQUIT", "SIGTRAP", "SIGABRT", "SIGEMT", "SIGUSR1", "SIGUSR2",
    "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF",
    "SIGPOLL", "SIGIO", "SIGPWR", "SIGLOST", "SIGSYS", "SIGINFO",
)  # fmt: skip


def _fatal_signals() -> dict[int, str]:
    """Return {number: name} of every signal caught (SIGIO wins over its alias SIGPOLL)."""
    found = {getattr(_signal, n): n for n in _FATAL if isinstance(getattr(_signal, n, None), int)}
    low, high = getattr(_signal, "SIGRTMIN", 0), getattr(_signal, "SIGRTMAX", -1)
    for number in range(low, high + 1):
        found[number] = "SIGRTMIN" if number == low else f"SIGRTMIN+{number - low}"
    return found


SIGNALS = _fatal_signals()
_replied = [-1]  # exit status of the reply already printed; -1 while there is none
_child = [0]  # the supervised child answering the event, 0 when there is none


def _on_signal(signum: int, frame: object) -> None:
    if _replied[0] >= 0:
        posix._exit(_replied[0] & 0xFF)
    _kill_child()
    name = SIGNALS.get(signum, f"signal {signum}")
    _deny(f"the hook process got {name} before it could decide")


def _kill_child() -> None:
    if _child[0] > 0:  # it must not print an answer after this process said "blocked"
        try:  # noqa: SIM105  (no contextlib: startup modules only, test_daemon.py)
            posix.kill(_child[0], _signal.SIGKILL)
        except OSError:
            pass


def _deny(cause: str) -> "NoReturn":
    """Say why on stderr and exit 2: a block in every host."""
    try:  # noqa: SIM105  (no contextlib: startup modules only, test_daemon.py)
        posix.write(
            2,
            f"Tether could not check this call, so it is denied (fail closed): {cause}.\n".encode(),
        )
    except OSError:
        pass
    posix._exit(2)


def catch_signals() -> None:
    """Make every signal that would end this process block the call instead."""
    for signum in SIGNALS:
        try:  # noqa: SIM105  (no contextlib: startup modules only, test_daemon.py)
            _signal.signal(signum, _on_signal)
        except (OSError, ValueError):  # one the platform reserves
            pass


def stdin_deadline(environ: "dict[bytes, bytes] | None" = None) -> int:
    """Return the seconds the host has to send the whole event (``tether hook``'s deadline).

    ``TETHER_HOOKS__DEADLINE`` as the runner reads it before the config: 15 s by default,
    at most 25 s, under the 30 s the hosts are told to wait.
    """
    env = posix.environ if environ is None else environ
    try:
        value = float(env.get(b"TETHER_HOOKS__DEADLINE", b"") or DEFAULT_DEADLINE)
    except ValueError:
        value = DEFAULT_DEADLINE
    if value <= 0:
        value = DEFAULT_DEADLINE
    return max(1, int(min(value, MAX_DEADLINE) + 0.999))


def reply_timeout(environ: "dict[bytes, bytes] | None" = None) -> float:
    """Return how long to wait for the daemon's reply.

    ``REPLY_TIMEOUT`` (above any ``hooks.deadline`` a config file may set), or, when
    ``TETHER_HOOKS__DEADLINE`` sets the runner's deadline for this call, 3 s more than it.
    """
    env = posix.environ if environ is None else environ
    if not env.get(b"TETHER_HOOKS__DEADLINE"):
        return REPLY_TIMEOUT
    return min(REPLY_TIMEOUT, stdin_deadline(env) + 3.0)


def _stdin_expired(signum: int, frame: object) -> None:
    if _signal.alarm(0) > 0:  # our alarm is still pending: someone else sent SIGALRM
        _on_signal(signum, frame)
    _deny(f"the host did not finish sending the event within {_stdin_limit[0]} s")


_stdin_limit = [0]


def read_event() -> bytes:
    """Read the event from stdin, at most until the deadline (then the call is denied).

    A host that never closes stdin would otherwise hold this process until the host's own
    timeout, which every host treats as "allow".
    """
    _stdin_limit[0] = stdin_deadline()
    _signal.signal(_signal.SIGALRM, _stdin_expired)
    _signal.alarm(_stdin_limit[0])
    try:
        return sys.stdin.buffer.read(MAX_INPUT + 1)
    finally:
        _signal.alarm(0)
        _signal.signal(_signal.SIGALRM, _on_signal)


def environment() -> list[bytes]:
    """Return the environment entries the daemon should see, as ``KEY=value``."""
    return [k + b"=" + v for k, v in posix.environ.items() if k.startswith(ENV_PREFIXES)]


def main(argv: list[str]) -> int:
    """Answer one hook event for the host named in ``argv[1]``; return the exit status.

    ``HOST --managed SOCKET`` (what ``tether install --managed`` writes into the hosts'
    managed settings) asks only the system daemon on SOCKET: see :func:`managed`.
    """
    host = argv[1] if len(argv) > 1 else ""
    catch_signals()
    payload = read_event()
    if len(argv) > 3 and argv[2] == "--managed":
        return managed(host, payload, argv[3])
    hook_file = here()
    path = socket_path(hook_file)
    folder = path.rpartition("/")[0]
    if len(payload) <= MAX_INPUT and dir_problem(folder) is None:
        try:
            cwd = posix.getcwd().encode("utf-8", "surrogateescape")
        except OSError:
            cwd = b""
        # When this process gives up on the daemon (then it blocks the call): a daemon that
        # reads the event later (it was stopped, or swamped) must not judge and count it.
        waits = reply_timeout()
        gives_up = time.monotonic() + waits
        fields = [host.encode(), cwd, b"%s=%.3f" % (DEADLINE_FIELD, gives_up), *environment()]
        try:
            reply = ask(path, request("hook", fields, payload), waits)
        except TimeoutError:
            sys.stderr.write(
                f"tether: the daemon did not answer within {waits:g} s; "
                "blocking this call (see `tether daemon status`)\n"
            )
            return 2
        if reply is not None:
            code, out, err = reply
            sys.stdout.buffer.write(out)
            sys.stdout.buffer.flush()
            sys.stderr.buffer.write(err)
            sys.stderr.buffer.flush()
            _replied[0] = code
            return code
    return in_process(host, payload, hook_file, path)


# What the managed daemon reads of the caller's environment: where its files are, to judge
# paths. Never TETHER_*: in a managed install the configuration is the administrator's.
MANAGED_ENV_PREFIXES = (b"XDG_", b"HOME", b"CODEX_HOME", b"CLAUDE_", b"GEMINI_")


def managed(host: str, payload: bytes, path: str) -> int:
    """Relay the event to the managed (system) daemon on ``path``; block when that cannot be.

    The socket must sit in a folder only root can change (every folder above it too), and
    the process listening on it must run as the uid that owns the socket file (the daemon's
    own user, which only root could have put there): the kernel says who listens
    (``SO_PEERCRED``), so a process of the user's cannot pose as the daemon. There is no
    in-process answer and no daemon started here: this process runs as the user, who can
    read neither the managed state nor change the managed config. Every failure is a block.
    """
    owner, problem = managed_socket(path)
    if problem is not None:
        _deny(f"the managed Tether daemon's socket cannot be trusted: {problem}")
    if len(payload) > MAX_INPUT:
        _deny(f"the event is larger than {MAX_INPUT} bytes")
    try:
        cwd = posix.getcwd().encode("utf-8", "surrogateescape")
    except OSError:
        cwd = b""
    gives_up = time.monotonic() + REPLY_TIMEOUT
    env = [k + b"=" + v for k, v in posix.environ.items() if k.startswith(MANAGED_ENV_PREFIXES)]
    fields = [host.encode(), cwd, b"%s=%.3f" % (DEADLINE_FIELD, gives_up), *env]
    try:
        reply = ask(path, request("hook", fields, payload), REPLY_TIMEOUT, owner)
    except TimeoutError:
        _deny(f"the managed Tether daemon did not answer within {REPLY_TIMEOUT:g} s")
    except NotTheDaemon as exc:
        _deny(f"not asking the process on the managed socket ({exc})")
    if reply is None:
        _deny(
            f"the managed Tether daemon is not running ({path}); start it: "
            "systemctl start tether (see `tether doctor`)"
        )
    code, out, err = reply
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
    sys.stderr.buffer.write(err)
    sys.stderr.buffer.flush()
    _replied[0] = code
    return code


def managed_socket(path: str) -> "tuple[int, str | None]":
    """Return (the socket file's owner, None), or (-1, why the socket cannot be trusted).

    Every folder from the socket's up to ``/`` must be root's and closed to others' writes
    (a sticky folder such as ``/tmp`` above it is allowed: others cannot rename what is in it);
    the socket's own folder must be closed to others without exception.
    """
    if not path.startswith("/"):
        return -1, f"{path} is not an absolute path"
    folder = path.rpartition("/")[0] or "/"
    current = folder
    while True:
        try:
            st = posix.lstat(current)
        except OSError as exc:
            return -1, f"{current}: {exc.strerror or exc}"
        if st.st_mode & 0o170000 != 0o040000:
            return -1, f"{current} is not a directory"
        if st.st_uid != 0:
            return -1, f"{current} belongs to uid {st.st_uid}, not to root"
        open_to_others = st.st_mode & 0o022
        if open_to_others and (current == folder or not st.st_mode & 0o1000):
            return -1, f"{current} has mode {st.st_mode & 0o7777:o}: others may change it"
        if current == "/":
            break
        current = current.rpartition("/")[0] or "/"
    try:
        st = posix.lstat(path)
    except OSError as exc:
        return -1, f"{path}: {exc.strerror or exc} (is the daemon running? systemctl start tether)"
    if st.st_mode & 0o170000 != 0o140000:
        return -1, f"{path} is not a socket"
    return st.st_uid, None


def in_process(host: str, payload: bytes, hook_file: str, path: str) -> int:
    """Answer the event the way ``tether hook HOST`` does, then start a daemon for next time.

    The answer is worked out in a supervised child (:func:`supervised`): if it dies by a
    signal before its reply is out, this process blocks the call.
    """
    root = package_root(hook_file)

    def answer() -> int:
        return answer_here(host, payload, root)

    def finish(status: int) -> None:
        start_daemon(root, path)
        if "tether" in sys.modules:  # the isolation worker's shutdown
            import atexit

            atexit._run_exitfuncs()

    return supervised(answer, finish)


def answer_here(host: str, payload: bytes, root: str) -> int:
    """Answer the event in this process with the runner; return its exit status."""
    try:
        import io
        import site

        site.main()  # the venv's site-packages and .pth files (editable installs)
        sys.path.insert(0, root)  # this installation's tether, whatever else is on the path
        from tether.hosts.runner import run_hook

        # hold_signals: a signal while the daemon starts exits with the printed reply's status.
        status = run_hook(host, stdin=io.BytesIO(payload), hold_signals=True)
        _replied[0] = status
    except BaseException as exc:  # fail closed: every host blocks on exit status 2
        sys.stderr.write(f"tether: cannot answer the hook event ({type(exc).__name__}: {exc})\n")
        status = 2
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105  (no contextlib: startup modules only, test_daemon.py)
            stream.flush()
        except (OSError, ValueError):
            pass
    return status


def supervised(answer: "Callable[[], int]", finish: "Callable[[int], None]") -> int:
    """Run ``answer`` (print the reply, return its status) in a child; return the status.

    The child tells this process the status once its reply is printed and flushed, then runs
    ``finish(status)`` (start the daemon, exit handlers) and exits. When the child ends without
    saying so (killed by a signal inside C code, or ``answer`` never returned), this process
    prints the block (exit status 2, the cause on stderr) instead: nothing the child's input
    does can turn into a hook that dies without an answer. It also stops waiting after
    ``REPLY_TIMEOUT`` seconds. Where ``fork`` fails, ``answer`` runs here, unsupervised.
    """
    try:
        read_end, write_end = posix.pipe()
        pid = posix.fork()
    except OSError:
        status = answer()
        finish(status)
        return status
    if pid == 0:  # the child: answer, report, tidy up, exit; it never returns from here
        status = 2
        try:
            posix.close(read_end)
            _child[0] = 0
            status = answer()
            posix.write(write_end, b"%d\n" % status)
            posix.close(write_end)
            finish(status)
        finally:
            posix._exit(status & 0xFF)
    posix.close(write_end)
    _child[0] = pid
    _signal.signal(_signal.SIGALRM, _reply_expired)
    _signal.alarm(int(REPLY_TIMEOUT))
    said = b""
    while True:
        chunk = posix.read(read_end, 64)
        if not chunk:
            break
        said += chunk
    posix.close(read_end)
    _, wait_status = posix.waitpid(pid, 0)
    _signal.alarm(0)
    _child[0] = 0
    if said.strip().lstrip(b"-").isdigit():
        _replied[0] = int(said)
        return _replied[0]
    cause = _death(wait_status)
    sys.stderr.write(
        f"Tether could not check this call, so it is denied (fail closed): the process judging "
        f"it {cause} before it could decide.\n"
    )
    return 2


def _reply_expired(signum: int, frame: object) -> None:
    if _signal.alarm(0) > 0:  # our alarm is still pending: someone else sent SIGALRM
        _on_signal(signum, frame)
    if _replied[0] >= 0:
        posix._exit(_replied[0] & 0xFF)
    _kill_child()
    _deny(f"no decision within {REPLY_TIMEOUT:g} s")


def _death(wait_status: int) -> str:
    """Say how a child ended, from its ``waitpid`` status (``was killed by SIGSEGV``)."""
    if posix.WIFSIGNALED(wait_status):
        number = posix.WTERMSIG(wait_status)
        names = {11: "SIGSEGV", 6: "SIGABRT", 9: "SIGKILL", 7: "SIGBUS", 4: "SIGILL", 8: "SIGFPE"}
        return f"was killed by {names.get(number, f'signal {number}')}"
    return f"exited with status {posix.WEXITSTATUS(wait_status)} without a reply"


def start_daemon(root: str, path: str) -> None:
    """Start the daemon detached, unless a start was tried moments ago."""
    folder = path.rpartition("/")[0]
    marker = path + ".start"
    try:
        if dir_problem(folder) is not None:
            make_dir(folder)
            if dir_problem(folder) is not None:
                return  # unusable: `tether daemon status` and the doctor say why
        try:
            if time.time() - posix.stat(marker).st_mtime < SPAWN_BACKOFF:
                return
        except OSError:
            pass
        posix.close(posix.open(marker, posix.O_WRONLY | posix.O_CREAT | posix.O_TRUNC, 0o600))
        posix.utime(marker)
        boot = (
            "import sys; sys.path.insert(0, sys.argv[1]); "
            "from tether.daemon.server import main; raise SystemExit(main(sys.argv[2]))"
        )
        # posix_spawn, not subprocess (~10 ms to import); the child gets /dev/null for the
        # host's pipes and a session of its own, so the host never waits for it.
        null = [(posix.POSIX_SPAWN_OPEN, fd, "/dev/null", posix.O_RDWR, 0) for fd in (0, 1, 2)]
        posix.posix_spawn(
            sys.executable,
            [sys.executable, "-I", "-c", boot, root, path],
            posix.environ,
            file_actions=null,
            setsid=True,
        )
    except (OSError, ValueError):
        pass  # the next call answers in-process again: slower, never wrong


def make_dir(folder: str) -> None:
    """Create ``folder`` (and its parents) for the socket: 0700, the user's own."""
    parts = folder.split("/")
    for i in range(2, len(parts) + 1):
        sub = "/".join(parts[:i])
        try:
            posix.mkdir(sub, 0o700)
        except FileExistsError:
            continue
        except OSError:
            return


def run() -> None:
    """Answer the event of this process's command line and end the process with its status."""
    status = main(sys.argv)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    posix._exit(status & 0xFF)


if __name__ == "__main__":
    run()
