"""Turn a signal that would end a hook process into the host's deny, printed before it exits.

A host that sends SIGTERM, SIGHUP or SIGINT to a hook (its own shutdown, a closed terminal,
Ctrl-C), a SIGPIPE, or any other signal whose default action ends a process (SIGQUIT,
SIGUSR1/2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS, the real-time
signals: the list in :data:`tether.daemon.hook.SIGNALS`) would otherwise get no reply and a
status of 128 + N, which Claude Code, Codex and Gemini CLI all treat as a non-blocking error:
the call runs. While a ``Interrupts`` is armed those signals instead make a thread call
``fire(signum)``, which prints the host's deny and ends the process with the status the host
treats as blocking. The hardware faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL) keep their default:
see ``tether.daemon.hook``.

The signal is seen by a thread reading the interpreter's wakeup file descriptor, not by the
Python-level handler: that handler only runs on the main thread between bytecodes, so a main
thread inside SQLite's busy wait or a long C call would delay the deny by seconds. SIGKILL
cannot be caught; docs/hosts.md says what each host does then.

Uses the ``_signal`` C module: ``signal`` builds three enums at import (~0.6 ms a hook call).
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # the C module has no stub; see the docstring
import contextlib
import os
import threading
from collections.abc import Callable
from typing import Any

from tether.cli import _hook_entry

# One list for both hook entries: daemon/hook.py's, loaded without the daemon package (json,
# dataclasses) the way `tether hook` loads it.
SIGNALS: dict[int, str] = _hook_entry().SIGNALS


def _ignore(signum: int, frame: object) -> None:
    """Do nothing on the main thread: the wakeup thread answers."""


class Interrupts:
    """While armed, every signal in ``SIGNALS`` calls ``fire(signum)`` on a thread."""

    def __init__(self, fire: Callable[[int], None]) -> None:
        self._fire = fire
        self._previous: dict[int, Any] = {}
        self._old_fd = -1
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        self._old_fd = _signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        for signum in SIGNALS:
            with contextlib.suppress(OSError, ValueError):  # one the platform reserves
                self._previous[signum] = _signal.signal(signum, _ignore)
        self._thread = threading.Thread(target=self._run, name="tether-signals", daemon=True)
        self._thread.start()

    @classmethod
    def arm(cls, fire: Callable[[int], None]) -> Interrupts | None:
        """Return an armed ``Interrupts``, or None off the main thread (where none can be set)."""
        if threading.current_thread() is not threading.main_thread():
            return None
        return cls(fire)

    def _run(self) -> None:
        while True:
            try:
                data = os.read(self._read, 64)
            except OSError:  # closed by disarm()
                return
            if not data:
                return
            for signum in data:
                if signum in SIGNALS:
                    self._fire(signum)
                    return

    def disarm(self) -> None:
        """Restore the previous handlers and wakeup fd; stop the thread."""
        with contextlib.suppress(ValueError, OSError):
            _signal.set_wakeup_fd(self._old_fd)
        for signum, handler in self._previous.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                _signal.signal(signum, handler)
        os.close(self._write)  # the thread reads end of file and returns
        self._thread.join(1.0)
        os.close(self._read)


__all__ = ["SIGNALS", "Interrupts"]
