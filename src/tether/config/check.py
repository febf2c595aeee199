"""``tether config check``: find every mistake in the config files and overrides at once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tether.config.load import apply_texts, defaults, env_overrides, split_override
from tether.config.paths import Paths
from tether.config.validate import ConfigProblems, Problem
from tether.config.yamlio import load_file
from tether.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Report:
    """What ``check`` looked at (``(layer, path)``) and every problem it found."""

    checked: tuple[tuple[str, str], ...]
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        """Return True when nothing is wrong."""
        return not self.problems


def check_file(path: Path) -> Report:
    """Check one file against the schema."""
    _, problems = load_file(path)
    return Report((("file", str(path)),), tuple(problems))


def check_all(paths: Paths, environ: Mapping[str, str], overrides: Sequence[str] = ()) -> Report:
    """Check every file the load would read, the environment overrides and ``--set``."""
    checked: list[tuple[str, str]] = []
    problems: list[Problem] = []
    for layer, path, required in paths.layers():
        if not required and not path.exists():
            continue
        checked.append((layer, str(path)))
        problems += load_file(path)[1]
    texts = [(f"env:{name}", key, text) for name, key, text in env_overrides(environ)]
    for item in overrides:
        try:
            texts.append(("--set", *split_override(item)))
        except ConfigError as exc:
            problems.append(Problem("--set", None, "", str(exc)))
    if texts:
        checked.append(("overrides", f"{len(texts)} from the environment and --set"))
    try:
        apply_texts(defaults(), {}, texts)  # reports every bad override, not just the first
    except ConfigProblems as exc:
        problems += exc.problems
    return Report(tuple(checked), tuple(problems))


__all__ = ["Report", "check_all", "check_file"]
