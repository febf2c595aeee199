"""Whether an installed hook command can run, and whether it runs this installation of Tether.

A hook command names files: ``PYTHON -I -S …/tether/daemon/hook.py HOST`` (what ``tether
install`` writes) an interpreter and a hook file, ``…/tether hook HOST`` a script. Reinstalling
Tether another way (``pip install .``, then ``pip install -e .``) removes the hook file the
settings still name: the host then runs a command that exits 2 with Python's "can't open file",
which every host reads as a block, on every call. ``tether doctor`` fails on it with the file
and setting to fix, and the daemon, when it starts, points such entries of its own interpreter
back at this installation (:func:`heal`), the way ``tether install`` refreshes a moved one.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any, NamedTuple

from tether.hosts import settings


class Target(NamedTuple):
    """The files one hook command runs."""

    program: str  # the interpreter or the ``tether`` script, as written
    hook_file: str | None  # …/tether/daemon/hook.py for the daemon form, else None


def target(command: str) -> Target | None:
    """Return what ``command`` runs, or None when it is not one of Tether's forms."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    i = 0
    while i < len(words) and (
        ("=" in words[i] and not words[i].startswith("-")) or words[i] == "env"
    ):
        i += 1
    if i >= len(words):
        return None
    program, rest = words[i], words[i + 1 :]
    name = os.path.basename(program)
    if name.startswith("python"):
        script = [w for w in rest if not w.startswith("-")][:1]
        if script and Path(script[0]).parts[-3:] == ("tether", "daemon", "hook.py"):
            return Target(program, script[0])
        return Target(program, None)  # python -m tether hook HOST
    if name in settings.WRAPPERS:  # nice, timeout …: the hook is among the arguments
        for j, word in enumerate(rest):
            base = os.path.basename(word)
            if base == "tether" or base.startswith("python"):
                inner = target(shlex.join(rest[j:]))
                if inner is not None:
                    return inner
    return Target(program, None)


def _runnable(program: str) -> bool:
    if "/" in program:
        return os.path.isfile(program) and os.access(program, os.X_OK)
    return shutil.which(program) is not None


def problem(command: str) -> str | None:
    """Return why ``command`` cannot run (a file it names is gone), or None."""
    found = target(command)
    if found is None:
        return None
    if not _runnable(found.program):
        where = "" if "/" in found.program else " on PATH"
        return f"`{found.program}` does not exist{where}"
    if found.hook_file is not None and not os.path.isfile(found.hook_file):
        return f"{found.hook_file} does not exist"
    return None


def this_hook_file() -> str:
    """Return this installation's hook file (what ``tether install`` writes by default)."""
    from tether.daemon import hook

    return hook.__file__


def same_installation(command: str) -> bool:
    """Return whether ``command`` runs this installation's hook (or its ``tether`` script)."""
    found = target(command)
    if found is None:
        return False
    if found.hook_file is not None:
        return _same(found.hook_file, this_hook_file()) and _same(found.program, sys.executable)
    script = Path(sys.executable).with_name("tether")
    program = found.program if "/" in found.program else shutil.which(found.program) or ""
    return _same(program, str(script)) or _same(program, sys.executable)


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def broken_entries(data: Any, host: str) -> list[tuple[str, str]]:
    """Return (command, problem) for each of Tether's handlers in ``data`` that cannot run."""
    out: list[tuple[str, str]] = []
    for handlers in settings.installed_commands(data, host).values():
        for h in handlers:
            command = str(h["command"])
            why = problem(command)
            if why is not None and (command, why) not in out:
                out.append((command, why))
    return out


def heal(environ: dict[str, str] | None = None, cwd: Path | None = None) -> list[str]:
    """Point user-level entries whose hook file is gone, and whose interpreter is this one, at
    this installation; return one line per file changed.

    This is the reinstall case (``pip install .`` then ``pip install -e .`` in the same
    environment): nothing but the hook file's place changed. Codex is left alone: a changed
    command loses the trust Codex keeps for it (``tether doctor`` says what to run). A backup
    is written, as ``tether install`` does.
    """
    done: list[str] = []
    for host in ("claude-code", "gemini"):
        path = settings.settings_path(host, "user", cwd=cwd, environ=environ)
        try:
            data = settings.read_settings(path)
        except Exception:  # an unreadable file is the doctor's to report
            continue
        stale = [
            command
            for command, _ in broken_entries(data, host)
            if (found := target(command)) is not None
            and found.hook_file is not None
            and _same(found.program, sys.executable)
        ]
        if not stale:
            continue
        change = settings.merge(data, host, settings.default_command(host), path)
        if change.changed:
            settings.write_settings(change)
            done.append(f"{path}: {host} hooks pointed at {this_hook_file()} ({stale[0]} was gone)")
    return done


__all__ = ["Target", "broken_entries", "heal", "problem", "same_installation", "target"]
