"""Where config files live: the user file, the project file, ``TETHER_CONFIG``, and the files
Tether derives from them (the cache, the trust records, the cache's key).

``own_files(environ)`` lists every one of them for rules that guard Tether's own files.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

PROJECT_FILE = ".tether.yaml"
PROJECT_FILES = (PROJECT_FILE,)  # every per-repository file the loader reads
USER_FILE = ("tether", "config.yaml")
TRUST_FILE = "trust.json"
KEY_FILE = "cache.key"


@dataclass(frozen=True, slots=True)
class Paths:
    """The config files one load considers, lowest layer first."""

    user: Path
    explicit: Path | None
    project: Path | None
    project_root: Path
    # The project root is a real repository (it holds .git or the project file), and
    # TETHER_CONFIG was a relative path (so the event's working directory chose the file).
    repository: bool = False
    explicit_relative: bool = False
    # Project files of enclosing directories up to the root, outermost first: each one is a
    # layer below ``project`` (a nested file cannot shadow its repository's trusted file).
    outer: tuple[Path, ...] = ()

    def layers(self) -> list[tuple[str, Path, bool]]:
        """Return ``(layer, path, required)`` for each file layer, lowest first."""
        layers: list[tuple[str, Path, bool]] = []
        if self.explicit is None:
            layers.append(("user", self.user, False))
        for path in self.outer:
            layers.append(("project", path, True))
        if self.project is not None:
            layers.append(("project", self.project, True))
        if self.explicit is not None:
            layers.append(("TETHER_CONFIG", self.explicit, True))
        return layers

    def scoped(self, layer: str, path: Path) -> bool:
        """Return whether a layer's file belongs to the project, so it needs the user's trust.

        The project file does; so does a ``TETHER_CONFIG`` file inside the repository or named
        by a relative path: the environment is the user's (the agent cannot change the hook
        process's), but the content of a file in the repository is not.
        """
        if layer == "project":
            return True
        if layer != "TETHER_CONFIG":
            return False
        if self.explicit_relative:
            return True
        if not self.repository:
            return False
        root = os.path.realpath(self.project_root)
        return os.path.realpath(path).startswith(root.rstrip(os.sep) + os.sep)

    def write_target(self, project: bool = False) -> Path:
        """Return the file ``tether config set`` writes."""
        if project:
            return self.project or self.project_root / PROJECT_FILE
        return self.explicit or self.user


def _base_dir(environ: Mapping[str, str], variable: str, fallback: str) -> Path:
    value = environ.get(variable, "")
    # The XDG spec says relative paths are invalid and must be ignored.
    if value and os.path.isabs(value):
        return Path(value)
    home = environ.get("HOME") or os.path.expanduser("~")
    return Path(home) / fallback


def user_file(environ: Mapping[str, str]) -> Path:
    """Return ``$XDG_CONFIG_HOME/tether/config.yaml`` (default ``~/.config``)."""
    return _base_dir(environ, "XDG_CONFIG_HOME", ".config").joinpath(*USER_FILE)


def cache_dir(environ: Mapping[str, str]) -> Path:
    """Return ``$XDG_CACHE_HOME/tether`` (default ``~/.cache``)."""
    return _base_dir(environ, "XDG_CACHE_HOME", ".cache") / "tether"


def state_dir(environ: Mapping[str, str]) -> Path:
    """Return ``$XDG_STATE_HOME/tether`` (default ``~/.local/state``): state.db, trust, key."""
    return _base_dir(environ, "XDG_STATE_HOME", ".local/state") / "tether"


def trust_file(environ: Mapping[str, str]) -> Path:
    """Return the file recording which project files the user trusts (by content hash)."""
    return state_dir(environ) / TRUST_FILE


def key_file(environ: Mapping[str, str]) -> Path:
    """Return the per-user secret that authenticates config cache entries and trust records."""
    return state_dir(environ) / KEY_FILE


@dataclass(frozen=True, slots=True)
class OwnFiles:
    """Tether's own configuration files and derived state, for rules guarding them."""

    user_file: Path
    project_file_names: tuple[str, ...]
    cache_dir: Path
    state_dir: Path
    trust_file: Path
    key_file: Path
    state_db: Path  # the default SQLite store; ``store.path`` may name another
    notices_dir: Path  # markers of the sessions told about ignored project settings


def own_files(environ: Mapping[str, str]) -> OwnFiles:
    """Return where Tether keeps its config, cache, trust records and key under ``environ``.

    ``TETHER_CONFIG`` (when set) names one more config file, and ``store.path`` (when set)
    another state database. The names and fields are a stable interface for self-protection
    rules.
    """
    return OwnFiles(
        user_file(environ),
        PROJECT_FILES,
        cache_dir(environ),
        state_dir(environ),
        trust_file(environ),
        key_file(environ),
        state_dir(environ) / "state.db",
        state_dir(environ) / "notices",
    )


def find_project(cwd: Path) -> tuple[Path | None, Path]:
    """Return the project file nearest to ``cwd`` (upward) and the project root.

    The walk stops at the first directory containing ``.git`` (the repository root) or at the
    filesystem root, so a checkout never picks up a ``.tether.yaml`` from outside itself. The
    root is where ``set --project`` creates the file when there is none.
    """
    found, root = project_files(cwd)
    return (found[-1] if found else None), root


def project_files(cwd: Path) -> tuple[list[Path], Path]:
    """Return every project file from the root down to ``cwd`` (outermost first), and the root.

    The root is the directory holding ``.git``; outside a repository, the outermost directory
    with a project file (else ``cwd``). Every file found is a layer: a nested ``.tether.yaml``
    adds to its repository's file and is judged against it, never replaces it.
    """
    directory = cwd
    found: list[Path] = []
    while True:
        candidate = directory / PROJECT_FILE
        if candidate.is_file():
            found.append(candidate)
        if (directory / ".git").exists():
            return found[::-1], directory
        parent = directory.parent
        if parent == directory:
            return found[::-1], (found[-1].parent if found else cwd)
        directory = parent


def discover(cwd: Path | None, environ: Mapping[str, str]) -> Paths:
    """Return the config files that apply in ``cwd`` under ``environ``."""
    here = Path(cwd) if cwd is not None else Path.cwd()
    if not here.is_absolute():
        here = Path.cwd() / here
    explicit_text = environ.get("TETHER_CONFIG", "")
    explicit = None
    relative = False
    if explicit_text:
        if explicit_text == "~" or explicit_text.startswith("~/"):
            # Expand with the HOME being used (tests and hooks pass their own environment).
            home = environ.get("HOME") or os.path.expanduser("~")
            explicit_text = home + explicit_text[1:]
        explicit = Path(explicit_text)
        relative = not explicit.is_absolute()
        if relative:
            explicit = here / explicit
    found, root = project_files(here)
    project = found[-1] if found else None
    repository = project is not None or (root / ".git").exists()
    return Paths(
        user_file(environ), explicit, project, root, repository, relative, tuple(found[:-1])
    )


__all__ = [
    "PROJECT_FILE",
    "PROJECT_FILES",
    "OwnFiles",
    "Paths",
    "cache_dir",
    "discover",
    "find_project",
    "key_file",
    "own_files",
    "project_files",
    "state_dir",
    "trust_file",
    "user_file",
]
