"""Which paths hold Tether's own guard: host hook settings, its config, state, cache and install.

One predicate for every tool that can touch a file: the shell rules (DG605), the hosts' file
tools and MCP filesystem tools (:mod:`tether.rules.file_tools`). Whole directories are covered
(Tether's config, state and cache directories), so files added later there (trust records, a
cache key) are covered without a new entry. Pure string work over the path's text: nothing is
read from disk. The environment adds the places a user moved things to (``$XDG_*_HOME``,
``$XDG_RUNTIME_DIR``, ``$CODEX_HOME``, ``$TETHER_CONFIG``, the real ``$HOME``), and
:func:`configured` the ones the effective config names (a ``store.path`` anywhere, a Redis
``store.key_prefix``) for the duration of one judgement.

The environment is the one of the event being judged, never a process-wide copy: a Guard
passes it in :class:`Places` (``Guard(environ=…)``; the daemon and the sidecar judge events of
callers with other environments than their own), and only a judgement that names none reads
``os.environ`` as it is at that moment.
"""

from __future__ import annotations

import functools
import os
import posixpath
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from fnmatch import fnmatchcase
from typing import Any, NamedTuple

HOOK_SETTINGS = "a host's hook settings"
PROJECT_CONFIG = "Tether's project config"
CONFIG = "Tether's config directory"
STATE = "Tether's state directory (session database, trust records)"
CACHE = "Tether's config cache"
INSTALL = "Tether's installed package"
ANCESTOR = "a directory holding Tether's guard files"
RUN = "the folder of Tether's daemon socket"

# Files a host reads its hooks from, wherever the project or home is (matched at the path's end).
_HOOK_FILES = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude/managed-settings.json",
    "/etc/claude-code/managed-settings.json",
    ".gemini/settings.json",
    "/etc/gemini-cli/settings.json",
    "/etc/gemini-cli/system-defaults.json",
)
_HOST_DIRS = (".claude", ".gemini")  # their other files (CLAUDE.md, commands/) are not hooks
_CODEX_DIR = ".codex"  # config.toml, hooks.json and whatever else Codex loads: the whole dir
_PROJECT_FILE = ".tether.yaml"
# Home-relative directories that are Tether's, by XDG default.
_HOME_DIRS = (
    (".config/tether", CONFIG),
    (".local/state/tether", STATE),
    (".local/share/tether", STATE),
    (".cache/tether", CACHE),
)
_ENV_DIRS = (
    ("XDG_CONFIG_HOME", CONFIG),
    ("XDG_STATE_HOME", STATE),
    ("XDG_DATA_HOME", STATE),
    ("XDG_CACHE_HOME", CACHE),
    ("XDG_RUNTIME_DIR", RUN),
)
# Shell spellings of those variables at the start of a word (the rules see `$XDG_…/tether/x`).
_SPELLED = tuple(
    (f"{spelling}/tether", what)
    for name, what in _ENV_DIRS
    for spelling in (f"${name}", f"${{{name}}}")
)
_GLOB = frozenset("*?[")
_HOME_PARENTS = ("home", "users")  # lower-cased: /Users on macOS


_ENV_KEYS = ("HOME", *(name for name, _ in _ENV_DIRS), "CODEX_HOME", "TETHER_CONFIG")
# Text every guard path outside the user's relocated directories contains (a cheap first test:
# most operands judged are ordinary files).
MARKERS = ("tether", "claude", "gemini", "codex")
_Snapshot = tuple[str, ...]


class Places(NamedTuple):
    """What one judgement counts as guard places: the config's store files (lower-cased) and
    Redis prefixes, and the judged event's environment (``None``: ``os.environ`` as it is)."""

    files: tuple[str, ...] = ()
    key_prefixes: tuple[str, ...] = ()
    env: tuple[str, ...] | None = None


NO_PLACES = Places()
_SQLITE_SIBLINGS = ("-wal", "-shm", "-journal")


class _Current(threading.local):
    """The guard places in force on one thread (the daemon judges events on several threads,
    each with its own config); the class default answers a thread that set none, without the
    ``AttributeError`` a ``getattr`` default costs on every lookup."""

    places: Places = NO_PLACES


_current = _Current()


def places_of(config: Any, environ: Mapping[str, str] | None = None) -> Places:
    """Return the places ``config`` adds (a ``store.path`` file, a ``store.key_prefix``) and
    the snapshot of ``environ`` the judgement reads (none given: ``os.environ`` as it is)."""
    env = None if environ is None else snapshot(environ)
    if config is None or not hasattr(config, "get"):
        return Places(env=env)
    files: tuple[str, ...] = ()
    raw = str(config.get("store.path") or "")
    if raw and config.get("store.backend") == "sqlite":
        home = _home_dir(environ)
        full = _normal(_expand(raw, home))
        home = _normal(home)
        # Both spellings a command may use: `rm ~/run/x.db` and `rm /home/me/run/x.db`.
        under_home = home not in ("", "/", "~") and _inside(full, home)
        files = (full, "~" + full[len(home) :]) if under_home else (full,)
    prefix = str(config.get("store.key_prefix") or "")
    prefixes = (prefix.lower(),) if prefix and config.get("store.backend") == "redis" else ()
    return Places(files, prefixes, env)


def _home_dir(environ: Mapping[str, str] | None) -> str:
    """Return ``$HOME`` of ``environ`` (of this process as it is now, when None)."""
    if environ is None:
        return os.path.expanduser("~")
    return environ.get("HOME") or os.path.expanduser("~")


def _expand(path: str, home: str) -> str:
    """Return ``path`` with a leading ``~`` or ``~/`` replaced by ``home``."""
    if path == "~" or path.startswith("~/"):
        return home.rstrip("/") + path[1:] if home.rstrip("/") else "/" + path[2:]
    return path


def to_json(places: Places) -> list[Any]:
    """Return ``places`` as JSON lists (for the isolated worker)."""
    env = places.env if places.env is not None else snapshot(os.environ)
    return [list(places.files), list(places.key_prefixes), list(env)]


def from_json(data: Any) -> Places:
    """Return the :class:`Places` :func:`to_json` wrote (missing parts: none)."""
    parts = list(data) if isinstance(data, list | tuple) else []
    files, prefixes, env = (*parts, [], [], None)[:3] if parts else ([], [], None)
    snap = tuple(map(str, env)) if isinstance(env, list) and len(env) == len(_ENV_KEYS) else None
    return Places(tuple(map(str, files or ())), tuple(map(str, prefixes or ())), snap)


@contextmanager
def configured(places: Places) -> Iterator[None]:
    """Count ``places`` as guard places on this thread while the block runs."""
    before = current()
    _current.places = places
    try:
        yield
    finally:
        _current.places = before


def current() -> Places:
    """Return the config's guard places in force on this thread."""
    return _current.places


def _configured_file(norm: str, tree: bool) -> str | None:
    for place in current().files:
        if norm == place or any(norm == place + s for s in _SQLITE_SIBLINGS):
            return STATE
        if tree and place.startswith(norm + "/"):
            return ANCESTOR
    return None


def snapshot(environ: Mapping[str, str]) -> _Snapshot:
    """Return what the guard reads of ``environ`` (the variables that move Tether's files)."""
    return tuple(environ.get(key, "") for key in _ENV_KEYS)


def _in_force(environ: Mapping[str, str] | None = None) -> _Snapshot:
    """Return the environment a judgement reads: ``environ``, else the one in force on this
    thread (the judged event's), else this process's as it is now (never a cached copy)."""
    if environ is not None:
        return snapshot(environ)
    env = _current.places.env
    return env if env is not None else snapshot(os.environ)


@functools.lru_cache(maxsize=64)
def _roots(snap: _Snapshot, other_home: str = "") -> tuple[tuple[str, str], ...]:
    """Return ``(directory, what)`` for Tether's directories, lower-cased.

    Under ``~``, ``/root``, ``$HOME`` and ``other_home`` (the home a path itself is in:
    ``/home/dev/.config/tether`` is dev's config whoever runs the hook), plus the relocated
    ``$XDG_*_HOME/tether`` directories and ``$CODEX_HOME``.
    """
    env = dict(zip(_ENV_KEYS, snap, strict=True))
    homes = ["~", "/root"]
    home = env["HOME"]
    if home.startswith("/") and home.rstrip("/"):
        homes.append(posixpath.normpath(home).lower())
    if other_home:
        homes.append(other_home)
    roots = [(f"{h}/{rel}", what) for h in homes for rel, what in _HOME_DIRS]
    for name, what in _ENV_DIRS:
        value = env[name]
        if value.startswith("/"):
            roots.append((posixpath.normpath(value).lower() + "/tether", what))
    if env["CODEX_HOME"].startswith("/"):
        roots.append((posixpath.normpath(env["CODEX_HOME"]).lower(), HOOK_SETTINGS))
    return tuple(roots)


def _home_of(norm: str) -> str:
    """Return the home directory an absolute path is in (``/home/dev/x`` -> ``/home/dev``)."""
    parts = norm.split("/", 3)
    if len(parts) > 2 and parts[0] == "" and parts[1] in _HOME_PARENTS and parts[2]:
        return f"/{parts[1]}/{parts[2]}"
    return ""


def _normal(path: str) -> str:
    """Return ``path`` lower-cased (case-insensitive file systems) with ``.``/``..`` folded."""
    text = path.strip().lower()
    if text.startswith(("$home/", "${home}/")):
        text = "~/" + text.split("/", 1)[1]
    if not text:
        return ""
    norm = posixpath.normpath(text)
    return "/" + norm.lstrip("/") if norm.startswith("//") else norm


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory + "/")


class _Install(NamedTuple):
    """What the installed hook command runs, lower-cased: files and folders (never changes)."""

    files: tuple[str, ...]  # the interpreter under each of its names, pyvenv.cfg
    trees: tuple[str, ...]  # the folder of the tether package imported (an editable source)
    pth_dirs: tuple[str, ...]  # site-packages folders whose .pth files run at the hook's start
    needles: tuple[str, ...]  # what a command naming any of them contains (the cheap test)


@functools.cache
def install() -> _Install:
    """Return what this installation's hook command (``PYTHON -I -S …/hook.py HOST``) runs.

    Facts of the running installation, not of the environment: the interpreter the command
    names (``ln -sf /bin/true …/bin/python3`` allows every later call) with its siblings
    and the file it resolves to, the venv's ``pyvenv.cfg`` (its ``home`` picks the
    interpreter), the folder the ``tether`` package is imported from (an editable install's
    source), and the site-packages folders whose ``.pth`` files run when the hook answers
    in-process.
    """
    import sys
    import sysconfig

    exe = os.path.abspath(sys.executable) if sys.executable else ""
    files: list[str] = []
    if exe:
        folder = os.path.dirname(exe)
        version = f"{sys.version_info[0]}.{sys.version_info[1]}"
        names = ("python", "python3", f"python{version}", os.path.basename(exe))
        files += [os.path.join(folder, n) for n in names]
        files.append(os.path.realpath(exe))
    if sys.prefix != sys.base_prefix:
        files.append(os.path.join(sys.prefix, "pyvenv.cfg"))
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # …/tether
    pth = {sysconfig.get_paths().get(k, "") for k in ("purelib", "platlib")} - {""}
    low = [_normal(f) for f in dict.fromkeys(files)]
    trees = (_normal(package),)
    dirs = tuple(sorted(_normal(d) for d in pth))
    # A relative spelling ends like the absolute path: its last three parts (.venv/bin/python3).
    tails = ["/".join(p.split("/")[-3:]) for p in low]
    return _Install(tuple(low), trees, dirs, tuple(dict.fromkeys([*low, *trees, *dirs, *tails])))


def _install_hit(norm: str) -> str | None:
    """Return INSTALL when ``norm`` is (or, relative, may be) what the hook command runs."""
    inst = install()
    relative = not norm.startswith(("/", "~", "$"))
    for place in inst.files:
        if norm == place or (relative and norm.count("/") >= 2 and place.endswith("/" + norm)):
            return INSTALL
    # The source by its absolute path only: `src/tether/x.py` is as likely another checkout's
    # (the working directory is not known here) as this installation's.
    for tree in inst.trees:
        if _inside(norm, tree):
            return INSTALL
    for folder in inst.pth_dirs:
        if norm.endswith(".pth") and _inside(norm, folder):
            return INSTALL
    return None


def _glob_hits(path: str) -> str | None:
    """Return what a glob such as ``.claude/*`` or ``~/.config/tether/*.yaml`` may name."""
    parent, _, leaf = path.rpartition("/")
    if not _GLOB & set(leaf) or _GLOB & set(parent):
        return None
    base = parent.rpartition("/")[2]
    if base in _HOST_DIRS:
        for name in ("settings.json", "settings.local.json"):
            if fnmatchcase(name, leaf):
                return HOOK_SETTINGS
    # Bash globs skip dot files unless the pattern starts with a dot: `*` never names it.
    if leaf.startswith(".") and fnmatchcase(_PROJECT_FILE, leaf):
        return PROJECT_CONFIG
    return None


def protected(
    path: str, environ: Mapping[str, str] | None = None, *, tree: bool = False
) -> str | None:
    """Return what guard file or directory ``path`` names (a short description), else None.

    ``tree`` also counts directories that contain guard files (``.claude``, ``~/.config``): for
    recursive deletes, moves and permission changes, which take everything under them along.
    """
    snap = _in_force(environ)
    if _GLOB & set(path):
        for spelled in _glob_spellings(path):
            found = protected(spelled, environ, tree=tree)
            if found is not None:
                return found
    if not tree and not _may_name(path.lower(), snap):
        return None
    norm = _normal(path)
    if not norm or norm in (".", "/", "~"):
        return None
    # Every spelled and root directory below starts with "$", "~" or "/": a relative path
    # (most operands) can be inside none of them, nor be one's parent.
    anchored = norm[0] in "$~/"
    for spelled, what in _SPELLED if anchored else ():
        if _inside(norm, spelled.lower()):
            return what
    leaf = norm.rpartition("/")[2]
    if leaf == _PROJECT_FILE:
        return PROJECT_CONFIG
    if any(norm == f or norm.endswith("/" + f.lstrip("/")) for f in _HOOK_FILES):
        return HOOK_SETTINGS
    segments = norm.split("/")
    if _CODEX_DIR in segments[:-1] or (leaf == _CODEX_DIR and tree):
        return HOOK_SETTINGS
    explicit = snap[-1]  # TETHER_CONFIG
    if explicit.startswith("/") and norm == _normal(explicit):
        return CONFIG
    configured_hit = _configured_file(norm, tree)
    if configured_hit is not None:
        return configured_hit
    roots = _roots(snap, _home_of(norm)) if anchored else ()
    for directory, what in roots:
        if _inside(norm, directory):
            return what
    if "site-packages" in segments or "dist-packages" in segments:
        i = max(i for i, s in enumerate(segments) if s in ("site-packages", "dist-packages"))
        if i + 1 < len(segments) and (
            segments[i + 1] == "tether" or segments[i + 1].startswith("tether-")
        ):
            return INSTALL
    if leaf == "tether" and len(segments) >= 2 and segments[-2] == "bin":
        return INSTALL
    hit = _install_hit(norm) or _glob_hits(norm)
    if hit is not None:
        return hit
    if tree:
        return _ancestor(norm, segments, roots)
    return None


# Names of the files hosts and Tether keep in their directories: what a relative path may be
# when the directory it is resolved in is not known (``cd "$X" && rm settings.json``).
_GUARD_LEAVES = (
    "settings.json", "settings.local.json", "managed-settings.json", "system-defaults.json",
    "config.toml", "hooks.json", "config.yaml", "state.db", "state.db-wal", "state.db-shm",
    "state.db-journal", "trust.json", "cache.key", "serve.token", _PROJECT_FILE,
)  # fmt: skip
# Directories a recursive delete, move or permission change takes guard files along with.
_GUARD_DIRS = (*_HOST_DIRS, _CODEX_DIR, "tether", ".config", ".local", "state")
SOMEWHERE = "a guard file wherever the unknown working directory is (~/.claude, Tether's own…)"


def somewhere(path: str, *, tree: bool = False) -> str | None:
    """Return what relative ``path`` may name when the directory it is in is unknown, else None.

    After ``cd "$X"``, ``cd $(…)`` or ``pushd -`` a relative ``settings.json`` is a host's hook
    settings if ``$X`` is ``~/.claude``: judged by the names hosts and Tether give their files
    (and their configured store file), and with ``tree`` the directories holding them.
    """
    norm = _normal(path)
    if not norm or norm.startswith(("/", "~", "$")):
        return None
    found = protected("~/" + norm, tree=tree) if norm not in (".", "..") else None
    if found is not None:
        return found
    leaf = norm.rpartition("/")[2]
    names = (*_GUARD_LEAVES, *(posixpath.basename(f) for f in current().files))
    if tree:
        names = (*names, *_GUARD_DIRS)
    if leaf in names:
        return SOMEWHERE
    if _GLOB & set(leaf) and any(fnmatchcase(n, leaf) for n in names if _may_glob(n, leaf)):
        return SOMEWHERE
    if tree and leaf in (".", ".."):
        return SOMEWHERE  # the unknown directory itself, or its parent
    return None


# The names a guard path runs through, tried against a globbed segment of a path
# (`~/.cl?ude/settings.json`, `~/.c*/tether/`): bash expands a glob to whichever exists.
_GUARD_SEGMENTS = (
    ".claude", ".gemini", ".codex", ".config", ".local", ".cache", "tether", "state", "share",
    "settings.json", "settings.local.json", "managed-settings.json", "hooks.json",
    "config.toml", "config.yaml", ".tether.yaml",
)  # fmt: skip
_MAX_GLOBBED = 3  # segments with a glob tried per path (at most 16^3 spellings)


def _glob_spellings(path: str) -> Iterator[str]:
    """Yield ``path`` with each globbed segment replaced by a guard name it can match."""
    segments = path.split("/")
    globbed = [i for i, s in enumerate(segments) if _GLOB & set(s)]
    if not globbed or len(globbed) > _MAX_GLOBBED:
        return
    options = []
    for i in globbed:
        names = [n for n in _GUARD_SEGMENTS if _may_glob(n, segments[i])]
        options.append([n for n in names if fnmatchcase(n, segments[i])] or [segments[i]])
    if all(o == [segments[i]] for o, i in zip(options, globbed, strict=True)):
        return
    import itertools  # only for a globbed path that can name a guard file

    for combo in itertools.product(*options):
        spelled = list(segments)
        for i, name in zip(globbed, combo, strict=True):
            spelled[i] = name
        yield "/".join(spelled)


def glob_may_name(text: str) -> bool:
    """Return True when a globbed word of ``text`` can match a guard path's name
    (``~/.cl?ude/…``): the cheap gate's glob counterpart of the marker test."""
    return any(
        _GLOB & set(word) and next(_glob_spellings(word.strip("'\"<>|;&()")), None) is not None
        for word in text.split()
    )


def _may_glob(name: str, pattern: str) -> bool:
    """Return False where bash would skip ``name``: a dot file, for a pattern without a dot."""
    return not name.startswith(".") or pattern.startswith(".")


def may_name_guard_file(text: str, environ: Mapping[str, str] | None = None) -> bool:
    """Return False only when no path in ``text`` can be a guard file (a cheap first test).

    Directories holding guard files (``protected(..., tree=True)``) are not covered by it.
    """
    return _may_name(text.lower(), _in_force(environ))


def _may_name(low: str, snap: _Snapshot) -> bool:
    # Plain `in` tests: this runs on most operands of rm, cp, mv, sed, redirects…
    if "tether" in low or "claude" in low or "gemini" in low or "codex" in low:
        return True
    if ("*" in low or "?" in low or "[" in low) and (
        low.startswith(".") or "/." in low or " ." in low
    ):
        return True  # `.t*`, `x/.*`
    return _relocated(low, snap)


def relocated(*lows: str) -> bool:
    """Return True when a lower-cased text may name this process's relocated Tether files."""
    places = current()
    needles = _relocated_needles(_in_force(), places._replace(env=None))
    return bool(needles) and any(needle in low for needle in needles for low in lows)


@functools.lru_cache(maxsize=64)
def _relocated_needles(snap: _Snapshot, places: Places) -> tuple[str, ...]:
    """Return what ``relocated`` looks for (usually nothing): what ``_relocated`` tests."""
    codex, explicit = snap[-2], snap[-1]
    return (
        *install().needles,
        *((codex.lower().rstrip("/"),) if codex else ()),
        *((posixpath.basename(explicit).lower(),) if explicit else ()),
        *(posixpath.basename(f) for f in places.files),
        *(p.rstrip(":") for p in places.key_prefixes),
    )


def _relocated(low: str, snap: _Snapshot) -> bool:
    """Return True when ``low`` may be under ``$CODEX_HOME`` or be ``$TETHER_CONFIG``."""
    codex, explicit = snap[-2], snap[-1]
    return (
        any(needle in low for needle in install().needles)
        or bool(codex and codex.lower().rstrip("/") in low)
        or bool(explicit and posixpath.basename(explicit).lower() in low)
        or _names_configured(low)
    )


def _names_configured(low: str) -> bool:
    """Return True when ``low`` may name a configured store file or its Redis keys."""
    places = current()
    if places is NO_PLACES:
        return False
    return any(posixpath.basename(f) in low for f in places.files) or any(
        p.rstrip(":") in low for p in places.key_prefixes
    )


def _ancestor(norm: str, segments: list[str], roots: tuple[tuple[str, str], ...]) -> str | None:
    if segments[-1] in _HOST_DIRS:
        return ANCESTOR
    for directory, what in roots:
        # Not the cache's parents: it is derived data, and `rm -rf ~/.cache` is housekeeping.
        if what != CACHE and directory.startswith(norm + "/"):
            return ANCESTOR
    return None


__all__ = [
    "ANCESTOR",
    "CACHE",
    "CONFIG",
    "HOOK_SETTINGS",
    "INSTALL",
    "MARKERS",
    "NO_PLACES",
    "PROJECT_CONFIG",
    "RUN",
    "SOMEWHERE",
    "STATE",
    "Places",
    "configured",
    "current",
    "from_json",
    "install",
    "may_name_guard_file",
    "places_of",
    "protected",
    "relocated",
    "snapshot",
    "somewhere",
    "to_json",
]
