"""Where a path operand points: the root, a system directory, a home, temp, or the workspace."""

from __future__ import annotations

import enum
import fnmatch
import posixpath
import re
from typing import TYPE_CHECKING

from tether.shell.decode import substitution_output
from tether.shell.model import SimpleCommand, Word, command_name

if TYPE_CHECKING:
    from tether.rules.danger._base import Scope


class Place(enum.Enum):
    """Where a path points, from the worst to the most harmless."""

    ROOT = "the root directory"
    SYSTEM_ROOT = "a system directory"
    HOME = "a home directory"
    SYSTEM = "a file under a system directory"
    OUTSIDE = "a path outside the workspace"
    DYNAMIC = "a path only known at run time"
    WORKSPACE_ALL = "the whole working directory"
    TEMP = "a temporary directory"
    WORKSPACE = "a path inside the workspace"


SYSTEM_ROOTS = frozenset(
    {
        "/bin",
        "/boot",
        "/dev",
        "/etc",
        "/home",
        "/lib",
        "/lib32",
        "/lib64",
        "/libx32",
        "/media",
        "/mnt",
        "/opt",
        "/proc",
        "/root",
        "/run",
        "/sbin",
        "/snap",
        "/srv",
        "/sys",
        "/usr",
        "/var",
        "/Applications",
        "/Library",
        "/System",
        "/Users",
        "/Volumes",
        "/private",
        "/usr/bin",
        "/usr/sbin",
        "/usr/lib",
        "/usr/lib64",
        "/usr/local",
        "/usr/share",
        "/usr/include",
        "/var/lib",
        "/private/etc",
        "/private/var",
    }
)


# The system roots the operating system runs from: their files carry a mix of owners and modes
# (setuid binaries, 0600 keys, 1777 temp dirs, service accounts' data) that a recursive chmod or
# chown flattens and nothing records, so it cannot be undone. Mount points and add-on trees
# (/opt, /srv, /mnt, /usr/local …), tmpfs rebuilt at boot (/run, /dev, /proc, /sys) and root's
# own home are left out: a recursive change there is one owner's business, asked about.
OS_ROOTS = SYSTEM_ROOTS - {
    *("/Applications", "/Volumes", "/media", "/mnt", "/opt", "/srv", "/snap"),
    *("/usr/include", "/usr/local", "/usr/share"),
    *("/dev", "/proc", "/run", "/sys", "/root"),
}

# Home directories listed among the system roots: taking other users' access away is privacy.
HOME_ROOTS = frozenset({"/root", "/home", "/Users"})


SYSTEM_PREFIXES = (
    "/etc/",
    "/usr/",
    "/bin/",
    "/sbin/",
    "/lib/",
    "/lib64/",
    "/lib32/",
    "/boot/",
    "/var/lib/",
    "/private/etc/",
    "/private/var/",
    "/System/",
    "/Library/",
    "/sys/",
    "/proc/",
)


TEMP_DIRS = ("/tmp", "/var/tmp", "/private/tmp", "/dev/shm", "/private/var/folders", "/var/folders")
_TEMP_PREFIXES = tuple(f"{d}/" for d in TEMP_DIRS)


HOME_PARENTS = ("/home", "/Users")


_TMPDIR_SPELLINGS = ("${TMPDIR:-/tmp}", "${TMPDIR}", "$TMPDIR")


_HOME_SPELLINGS = ("${HOME}", "$HOME")


def resolve(word: Word, cmd: SimpleCommand, scope: Scope | None = None) -> str | None:
    """Return the path a word names (``$HOME`` as ``~``, ``$TMPDIR`` resolved); None if dynamic."""
    v = word.value
    if v[:1] == "=" and command_name(v) != v:
        v = "/usr/bin/" + v[1:]  # zsh's `=ls` is the path of ls (installed: a system path)
    if v[1:3] == ":/" and v[0].isalpha():
        # A Windows drive as Git Bash, MSYS and Cygwin accept it (``C:/Users/me/.bashrc``):
        # its folders are judged like the root's (``C:/Users/NAME`` is a home).
        v = v[2:]
    if not word.literal and v[:2] == "$(" and v[-1:] == ")":
        printed = substitution_output(v)  # `rm -rf "$(echo /)"`: a static output is the path
        if printed is not None and printed.rstrip("\n") and not printed.rstrip("\n").isspace():
            printed = printed.rstrip("\n")
            if not any(c.isspace() for c in printed):
                return printed
    if "$" in v or "`" in v:
        for spelling in _HOME_SPELLINGS:
            if v.startswith(spelling):
                v = "~" + v[len(spelling) :]
        for spelling in _TMPDIR_SPELLINGS:
            if v.startswith(spelling):
                assigned = _assigned(cmd, "TMPDIR")
                if assigned is None:
                    v = "/tmp" + v[len(spelling) :]
                elif assigned == "" or "$" in assigned or "`" in assigned:
                    return None
                else:
                    v = assigned + v[len(spelling) :]
        if "$" in v or "`" in v:
            return None
    return v


def _assigned(cmd: SimpleCommand, name: str) -> str | None:
    for a in cmd.assignments:
        if a.name == name:
            return a.value.value
    return None


# Where ``~`` may be: a user's home, or root's (agents often run as root), so ``~/..`` is a
# system root or the root directory; a path climbing out of ``~`` is judged at the worse of both.
HOMES = ("/home/user", "/root")


def place(word: Word, cmd: SimpleCommand, scope: Scope | None = None) -> tuple[Place, str]:
    """Classify where a path operand points (and return the normalised path)."""
    path = resolve(word, cmd, scope)
    if path is None or (
        not word.literal and path.startswith(("<", "{")) and path.endswith((">", "}"))
    ):
        return Place.DYNAMIC, word.value
    if not path.startswith(("/", "~")):
        cwd = scope.cwd(cmd) if scope is not None else "."
        if cwd is None:
            return Place.OUTSIDE, path
        if cwd != ".":
            path = posixpath.join(cwd, path)
    if word.glob and any(c in path for c in "*?["):
        worst = _glob_place(path)
        if worst is not None:
            return worst
    return _place_path(path)


def _place_path(path: str) -> tuple[Place, str]:
    if path.startswith("~") and ".." in path.split("/"):
        head = path.split("/", 1)[0]
        if head == "~":  # climbing out of the home: judged as from every home it may be
            rest = path[1:]
            return min((_place_path(home + rest) for home in HOMES), key=_severity)
    if path in ("~", "~/", "~/*", "~/.*") or (
        path.startswith("~/") and posixpath.normpath(path[2:]) in (".", "*")
    ):
        return Place.HOME, path
    if path.startswith("~"):
        head = path.split("/", 1)[0]
        rest = path[len(head) :].strip("/")
        if head != "~" and rest in ("", "*"):
            return Place.HOME, path
        return Place.OUTSIDE, path
    if not path.startswith("/"):
        norm = posixpath.normpath(path)
        if norm == ".." or norm.startswith("../"):
            return Place.OUTSIDE, norm
        if norm in (".", "*", ".*", "./*") or path in ("*", ".*", "./*", "./.*"):
            return Place.WORKSPACE_ALL, norm
        return Place.WORKSPACE, norm
    return _place_absolute(path)


def _place_absolute(path: str) -> tuple[Place, str]:
    glob_all = path.endswith("/*") or path.endswith("/.*")
    base = path[: path.rfind("/")] if glob_all else path
    norm = posixpath.normpath(base) if base else "/"
    if norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    if norm == "/":
        return Place.ROOT, path
    if norm in SYSTEM_ROOTS:
        return Place.SYSTEM_ROOT, norm
    parent, _, leaf = norm.rpartition("/")
    if parent in HOME_PARENTS and leaf and "*" not in leaf:
        return Place.HOME, norm
    if norm in TEMP_DIRS or norm.startswith(_TEMP_PREFIXES):
        return Place.TEMP, norm
    if (norm + "/").startswith(SYSTEM_PREFIXES):
        return Place.SYSTEM, norm
    return Place.OUTSIDE, norm


HARDLINE_PLACES = frozenset({Place.ROOT, Place.SYSTEM_ROOT, Place.HOME})

_ORDER = tuple(Place)  # declared from the worst to the most harmless


def _severity(found: tuple[Place, str]) -> int:
    return _ORDER.index(found[0])


# The directories a glob is evaluated against, without touching the filesystem: a pattern that
# can match one of them is judged as that directory (``/u*`` may be /usr, ``/[e]tc`` is /etc).
_KNOWN_DIRS = tuple(sorted(SYSTEM_ROOTS | set(TEMP_DIRS) | set(HOME_PARENTS)))


def _glob_place(path: str) -> tuple[Place, str] | None:
    """Return the worst known place an absolute glob ``path`` can match, if it can match one."""
    if path.startswith("~"):
        path = HOMES[0] + path[1:] if path.startswith("~/") or path == "~" else path
    if not path.startswith("/"):
        return None
    parts = [p for p in path.split("/") if p]
    trail = parts[-1] if parts else ""
    found: list[tuple[Place, str]] = []
    for known in ("/", *_KNOWN_DIRS, *HOMES):
        segs = [p for p in known.split("/") if p]
        if len(segs) == len(parts) and all(
            fnmatch.fnmatchcase(s, p) for s, p in zip(segs, parts, strict=True)
        ):
            found.append(_place_path(known))
        elif (
            trail in ("*", ".*")
            and len(segs) == len(parts) - 1
            and all(fnmatch.fnmatchcase(s, p) for s, p in zip(segs, parts, strict=False))
        ):
            found.append(_place_path(known.rstrip("/") + "/" + trail))  # every entry of it
    hits = [f for f in found if f[0] in HARDLINE_PLACES or f[0] is Place.SYSTEM]
    return min(hits, key=_severity) if hits else None


def is_home_path(path: str) -> bool:
    """Return True when ``path`` (already resolved) is inside a home directory."""
    return path.startswith("~") or any(path.startswith(p + "/") for p in HOME_PARENTS)


def home_relative(path: str) -> str | None:
    """Return ``path`` relative to a home directory (``~/.ssh/x`` -> ``.ssh/x``), else None."""
    if path.startswith("~/"):
        return path[2:]
    for parent in HOME_PARENTS:
        if path.startswith(parent + "/"):
            parts = path.split("/", 3)
            return parts[3] if len(parts) > 3 else ""
    if path.startswith("/root/"):
        return path[6:]
    return None


_BRACE = re.compile(r"^([^{}$`]*)\{([^{}$`]*,[^{}$`]*)\}([^{}$`]*)$")


def braces(word: Word) -> list[Word]:
    """Expand one simple brace list (``/{bin,etc}`` -> ``/bin``, ``/etc``); else the word."""
    # Expanded whether or not the parser marked the word literal: reading a quoted "{a,b}"
    # as a brace list can only make the verdict stricter.
    m = _BRACE.match(word.value)
    if m is None:
        return [word]
    head, items, tail = m.groups()
    return [Word(f"{head}{item}{tail}") for item in items.split(",")[:32]]
