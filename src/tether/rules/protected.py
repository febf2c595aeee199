"""Which paths hold Tether's own guard: host hook settings, its config, state, cache and install.

One predicate for every tool that can touch a file: the shell rules (DG605), the hosts' file
tools and MCP filesystem tools (:mod:`tether.rules.file_tools`). Whole directories are covered
(Tether's config, state and cache directories), so files added later there (trust records, a
cache key) are covered without a new entry. Pure string work over the path's text: nothing is
read from disk. ``environ`` adds the places a user moved things to (``$XDG_*_HOME``,
``$CODEX_HOME``, ``$TETHER_CONFIG``, the real ``$HOME``).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from fnmatch import fnmatchcase

HOOK_SETTINGS = "a host's hook settings"
PROJECT_CONFIG = "Tether's project config"
CONFIG = "Tether's config directory"
STATE = "Tether's state directory (session database, trust records)"
CACHE = "Tether's config cache"
INSTALL = "Tether's installed package"
ANCESTOR = "a directory holding Tether's guard files"

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
)
# Shell spellings of those variables at the start of a word (the rules see `$XDG_…/tether/x`).
_SPELLED = tuple(
    (f"{spelling}/tether", what)
    for name, what in _ENV_DIRS
    for spelling in (f"${name}", f"${{{name}}}")
)
_GLOB = frozenset("*?[")
_HOME_PARENTS = ("home", "users")  # lower-cased: /Users on macOS


def _home_dirs(environ: Mapping[str, str], path: str = "") -> list[str]:
    """Return the homes to look under: ``~``, ``$HOME`` and the home ``path`` itself is in."""
    homes = ["~", "/root"]
    home = environ.get("HOME", "")
    if home.startswith("/") and home.rstrip("/"):
        homes.append(posixpath.normpath(home).lower())
    parts = path.split("/", 3)
    if len(parts) > 2 and parts[0] == "" and parts[1] in _HOME_PARENTS and parts[2]:
        homes.append(f"/{parts[1]}/{parts[2]}")  # someone else's home: /home/dev/.config/…
    return homes


def _roots(environ: Mapping[str, str], path: str = "") -> list[tuple[str, str]]:
    """Return ``(directory, what)`` for Tether's directories under ``environ``, lower-cased."""
    roots: list[tuple[str, str]] = []
    for home in _home_dirs(environ, path):
        roots.extend((f"{home}/{rel}", what) for rel, what in _HOME_DIRS)
    for name, what in _ENV_DIRS:
        value = environ.get(name, "")
        if value.startswith("/"):
            roots.append((posixpath.normpath(value).lower() + "/tether", what))
    codex = environ.get("CODEX_HOME", "")
    if codex.startswith("/"):
        roots.append((posixpath.normpath(codex).lower(), HOOK_SETTINGS))
    return roots


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


def _glob_hits(path: str, environ: Mapping[str, str]) -> str | None:
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
    env = os.environ if environ is None else environ
    norm = _normal(path)
    if not norm or norm in (".", "/", "~"):
        return None
    for spelled, what in _SPELLED:
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
    explicit = env.get("TETHER_CONFIG", "")
    if explicit.startswith("/") and norm == _normal(explicit):
        return CONFIG
    for directory, what in _roots(env, norm):
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
    hit = _glob_hits(norm, env)
    if hit is not None:
        return hit
    if tree:
        return _ancestor(norm, segments, env)
    return None


def _ancestor(norm: str, segments: list[str], environ: Mapping[str, str]) -> str | None:
    if segments[-1] in _HOST_DIRS:
        return ANCESTOR
    for directory, what in _roots(environ, norm):
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
    "PROJECT_CONFIG",
    "STATE",
    "protected",
]
