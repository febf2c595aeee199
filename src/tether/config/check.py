"""``tether config check``: find every mistake in the config files and overrides at once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tether.config.constraints import check_constraints, check_floors
from tether.config.core import Ignored
from tether.config.load import load_paths
from tether.config.paths import Paths
from tether.config.validate import ConfigProblems, Problem
from tether.config.yamlio import load_file


@dataclass(frozen=True, slots=True)
class Report:
    """What ``check`` looked at (``(layer, path)``), every problem it found, and the settings
    of untrusted project files that were ignored because they loosen the guard."""

    checked: tuple[tuple[str, str], ...]
    problems: tuple[Problem, ...]
    ignored: tuple[Ignored, ...] = ()

    @property
    def ok(self) -> bool:
        """Return True when nothing is wrong."""
        return not self.problems


def check_file(path: Path) -> Report:
    """Check one file on its own (cross-key rules against the defaults for what it omits)."""
    lines: dict[str, int] = {}
    values, problems = load_file(path, lines)
    problems += check_floors(values, f"file:{path}", lines)
    if not problems:
        from tether.config.load import defaults

        merged = {**defaults(), **values}
        problems = check_constraints(merged, dict.fromkeys(values, f"file:{path}"), lines)
    return Report((("file", str(path)),), tuple(problems))


def check_all(paths: Paths, environ: Mapping[str, str], overrides: Sequence[str] = ()) -> Report:
    """Check everything a load would read: the files, the environment overrides and --set.

    It is the load itself (without the cache), so check and load cannot disagree.
    """
    checked = [(layer, str(path)) for layer, path, required in paths.layers()]
    checked = [(layer, path) for layer, path in checked if Path(path).exists() or layer != "user"]
    try:
        config = load_paths(paths, overrides=overrides, environ=environ, use_cache=False)
    except ConfigProblems as exc:
        return Report(tuple(checked), exc.problems)
    return Report(tuple(checked), (), config.ignored)


__all__ = ["Report", "check_all", "check_file"]
