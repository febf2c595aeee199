"""The seed: what every sandbox's upper layer starts with, and a snapshot to compare against.

The sandbox's root is an overlay whose lower layer is the host's root filesystem. Before each
run the seed is copied into the (empty) upper layer: ``/tmp``, ``/run``, ``/home`` and
``/dev`` as *opaque* directories (the host's contents are hidden, so the command gets its own
fresh ``/tmp`` and ``/run``, a minimal ``/dev`` and no other user's home), the fixture as
``/home/tether`` owned by the sandbox user, and ``/etc/passwd`` and ``/etc/group`` naming
that user. Everything the command writes, in those places too, lands in the upper layer;
``snapshot`` records the seed's own entries so that the diff tells the command's writes from
what the seed put there.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path
from typing import NamedTuple

from tether.verify import fixture

OPAQUE = "trusted.overlay.opaque"
# Fresh directories: opaque in the upper layer, so nothing of the host's shows through.
FRESH = ("/tmp", "/run", "/home", "/dev")
# Device files bind-mounted from the host over empty files of the seed's /dev.
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
TRACE_DIR = "/run/tether-trace"  # a host directory bind-mounted here for strace's output
# The shell ``script`` starts on the terminal: the command's stdout and stderr are the
# terminal, its stdin is /dev/null (as under an agent's harness; a terminal on stdin would
# answer every prompt, rm's included, with end-of-file).
SHELL = "/run/tether-shell"
_SHELL_TEXT = '#!/bin/bash\nSHELL=/bin/bash exec /bin/bash "$@" </dev/null\n'


class Sig(NamedTuple):
    """What the diff compares of one path: type, mode, owner, size, content, target, mtime."""

    fmt: int
    mode: int
    uid: int
    gid: int
    size: int
    digest: str
    target: str
    mtime_ns: int


def sig(path: str | Path, st: os.stat_result) -> Sig:
    """Return the signature of a path whose lstat is ``st``."""
    digest = target = ""
    if stat.S_ISREG(st.st_mode):
        digest = sha256(path)
    elif stat.S_ISLNK(st.st_mode):
        target = os.readlink(path)
    return Sig(
        stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, st.st_size,
        digest, target, st.st_mtime_ns,
    )  # fmt: skip


def sha256(path: str | Path) -> str:
    """Return the SHA-256 of a file's content."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _mkdir(path: Path, mode: int, like: str | None = None, opaque: bool = False) -> None:
    path.mkdir(parents=True, exist_ok=True)
    if like is not None:  # a directory that shadows the host's: same mode and owner
        st = os.stat(like)
        os.chown(path, st.st_uid, st.st_gid)
        mode = stat.S_IMODE(st.st_mode)
    os.chmod(path, mode)
    if opaque:
        os.setxattr(path, OPAQUE, b"y")


def build(top: Path, host_uid: int) -> fixture.Fixture:
    """Build the seed in ``top`` (an empty directory); the sandbox user is ``host_uid``."""
    _mkdir(top / "tmp", 0o1777, opaque=True)
    _mkdir(top / "run", 0o755, opaque=True)
    _mkdir(top / TRACE_DIR.lstrip("/"), 0o700)
    shell = top / SHELL.lstrip("/")
    shell.write_text(_SHELL_TEXT)
    shell.chmod(0o755)
    _mkdir(top / "home", 0o755, opaque=True)
    dev = top / "dev"
    _mkdir(dev, 0o755, opaque=True)
    for name in DEVICES:
        (dev / name).touch(0o666)
    _mkdir(dev / "shm", 0o1777)
    _mkdir(dev / "pts", 0o755)
    for name, target in (
        ("ptmx", "pts/ptmx"), ("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"),
    ):  # fmt: skip
        os.symlink(target, dev / name)
    _mkdir(top / "etc", 0o755, like="/etc")
    home = str(fixture.HOME)
    for name, line in (
        ("passwd", f"{fixture.USER}:x:{fixture.UID}:{fixture.UID}:Tether:{home}:/bin/bash\n"),
        ("group", f"{fixture.USER}:x:{fixture.UID}:\n"),
    ):
        shutil.copy2(f"/etc/{name}", top / "etc" / name)
        with open(top / "etc" / name, "a") as fh:
            fh.write(line)
    return fixture.build(top / home.lstrip("/"), host_uid)


def snapshot(top: Path) -> dict[str, Sig]:
    """Return the signature of every entry of the seed, by its path inside the sandbox."""
    out: dict[str, Sig] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            out["/" + os.path.relpath(full, top)] = sig(full, os.lstat(full))
    return out


STUBS = "/run/tether-stubs"


def stubs(top: Path, names: list[str]) -> str:
    """Add do-nothing programs to the seed (exit 0); return the directory to put on PATH."""
    where = top / STUBS.lstrip("/")
    where.mkdir(parents=True, exist_ok=True)
    for name in names:
        if "/" in name or name in (".", ".."):
            continue
        (where / name).write_text("#!/bin/sh\nexit 0\n")
        (where / name).chmod(0o755)
    return STUBS
