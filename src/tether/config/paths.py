"""Where config files live: the user file, the project file and ``TETHER_CONFIG``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

PROJECT_FILE = ".tether.yaml"
USER_FILE = ("tether", "config.yaml")


@dataclass(frozen=True, slots=True)
class Paths:
    """The config files one load considers, lowest layer first."""

    user: Path
    explicit: Path | None
    project: Path | None
    project_root: Path

    def layers(self) -> list[tuple[str, Path, bool]]:
        """Return ``(layer, path, required)`` for each file layer, lowest first."""
        layers: list[tuple[str, Path, bool]] = []
        if self.explicit is None:
            layers.append(("user", self.user, False))
        if self.project is not None:
            layers.append(("project", self.project, True))
        if self.explicit is not None:
            layers.append(("TETHER_CONFIG", self.explicit, True))
        return layers

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


def find_project(cwd: Path) -> tuple[Path | None, Path]:
    """Return the project file found upward from ``cwd`` and the project root.

    The walk stops at the first directory containing ``.git`` (the repository root) or at the
    filesystem root, so a checkout never picks up a ``.tether.yaml`` from outside itself. The
    root is where ``set --project`` creates the file when there is none.
    """
    directory = cwd
    while True:
        candidate = directory / PROJECT_FILE
        if candidate.is_file():
            return candidate, directory
        if (directory / ".git").exists():
            return None, directory
        parent = directory.parent
        if parent == directory:
            return None, cwd
        directory = parent


def discover(cwd: Path | None, environ: Mapping[str, str]) -> Paths:
    """Return the config files that apply in ``cwd`` under ``environ``."""
    here = Path(cwd) if cwd is not None else Path.cwd()
    if not here.is_absolute():
        here = Path.cwd() / here
    explicit_text = environ.get("TETHER_CONFIG", "")
    explicit = None
    if explicit_text:
        if explicit_text == "~" or explicit_text.startswith("~/"):
            # Expand with the HOME being used (tests and hooks pass their own environment).
            home = environ.get("HOME") or os.path.expanduser("~")
            explicit_text = home + explicit_text[1:]
        explicit = Path(explicit_text)
        if not explicit.is_absolute():
            explicit = here / explicit
    project, root = find_project(here)
    return Paths(user_file(environ), explicit, project, root)


__all__ = ["PROJECT_FILE", "Paths", "cache_dir", "discover", "find_project", "user_file"]
