"""Load the effective config: defaults, files, environment, then ``--set``, merged by key.

Layers, lowest first: built-in defaults; the user file (skipped when ``TETHER_CONFIG`` is
set); the project file; the ``TETHER_CONFIG`` file; ``TETHER_<SECTION>__<KEY>`` environment
variables; ``--set KEY=VALUE``. Values merge per leaf key, so a partial or empty section never
wipes the defaults; mapping settings (``tools.shell``) merge entry by entry.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tether.config.core import DEFAULT_LAYER, Config, Ignored
from tether.config.paths import Paths, discover
from tether.errors import ConfigError

ENV_PREFIX = "TETHER_"


def defaults() -> dict[str, Any]:
    """Return every key's built-in default as a fresh flat dict."""
    import copy

    from tether.config.schema import SCHEMA

    return {key.path: copy.deepcopy(key.default) for key in SCHEMA}


def merge(
    values: dict[str, Any], origins: dict[str, str], layer: Mapping[str, Any], label: str
) -> None:
    """Apply one layer's leaf values on top of ``values`` (mappings merge entry by entry)."""
    for path, value in layer.items():
        current = values.get(path)
        if isinstance(value, dict) and isinstance(current, dict):
            merged = {**current, **value}
            # An empty argument name removes a built-in shell tool.
            values[path] = {k: v for k, v in merged.items() if v}
        else:
            values[path] = value
        origins[path] = label


def _read_files(paths: Paths, environ: Mapping[str, str]) -> dict[str, Any]:
    from tether.config.constraints import check_floors
    from tether.config.validate import ConfigProblems, Problem
    from tether.config.yamlio import load_file

    values = defaults()
    origins: dict[str, str] = {}
    problems: list[Problem] = []
    files: list[list[str]] = []
    lines: dict[str, int] = {}  # the line of each key in the file its value came from
    ignored: list[list[Any]] = []
    untrusted: list[str] = []
    for layer, path, required in paths.layers():
        if not required and not path.exists():
            continue
        found_lines: dict[str, int] = {}
        content = _read(path)
        # Only the tightening part of an untrusted project file applies (tether.config.trust).
        limited = paths.scoped(layer, path) and content is not None
        limited = limited and not _trusted(path, content or b"", environ)
        found, errors = load_file(path, found_lines, content, untrusted=limited)
        lines.update(found_lines)
        problems += errors
        if limited and not errors and found:
            found, dropped = _tightening(values, found)
            for key, why in dropped:  # a mapping entry without a line of its own: its mapping's
                line = found_lines.get(key, found_lines.get(key.rpartition(".")[0]))
                ignored.append([str(path), line, key, why])
            if dropped:
                untrusted.append(str(path))
        problems += check_floors(found, f"{layer}:{path}", found_lines)
        merge(values, origins, found, f"{layer}:{path}")
        files.append([layer, str(path)])
    if not problems:
        from tether.config.constraints import check_constraints

        problems = check_constraints(values, origins, lines)
    if problems:
        raise ConfigProblems(problems)
    return {
        "values": values,
        "origins": origins,
        "files": files,
        "ignored": ignored,
        "untrusted": untrusted,
    }


def _trusted(path: Path, content: bytes, environ: Mapping[str, str]) -> bool:
    from tether.config.trust import is_trusted

    return is_trusted(path, content, environ)


def _read(path: Path) -> bytes | None:
    # One read serves both the trust hash and the parse: what is trusted is what is applied.
    try:
        return path.read_bytes()
    except OSError:
        return None  # load_file reports it


def _tightening(
    values: Mapping[str, Any], found: Mapping[str, Any]
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Return the part of an untrusted layer that applies, and what was ignored (key, why)."""
    from tether.config.direction import tighten_only
    from tether.config.schema import KEYS

    applied: dict[str, Any] = {}
    dropped: list[tuple[str, str]] = []
    for path, value in found.items():
        kept, why = tighten_only(KEYS[path], values.get(path), value)
        dropped += why
        if kept is not None:
            applied[path] = kept
    return applied, dropped


def env_overrides(environ: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """Return ``(variable, dotted key, text)`` for each ``TETHER_<SECTION>__<KEY>`` variable."""
    found = []
    for name in sorted(environ):
        if name.startswith(ENV_PREFIX) and "__" in name:
            path = name[len(ENV_PREFIX) :].lower().replace("__", ".")
            found.append((name, path, environ[name]))
    return found


def apply_texts(
    values: dict[str, Any], origins: dict[str, str], items: Iterable[tuple[str, str, str]]
) -> None:
    """Apply ``(label, dotted key, text)`` overrides typed by the schema; raise on any error."""
    from tether.config.validate import BadValue, ConfigProblems, Problem, parse_text, resolve

    problems = []
    for label, path, text in items:
        try:
            key, entry = resolve(path)
        except ConfigError as exc:
            problems.append(Problem(label, None, "", str(exc)))
            continue
        if entry is not None and label.startswith("env:"):
            # Variable names are upper-cased by convention, so they cannot carry a tool
            # name's case; the whole-mapping form can.
            hint = f"set {label[4:].rsplit('__', 1)[0]}='NAME=ARG,...' instead"
            problems.append(Problem(label, None, key.path, f"one entry cannot be set here; {hint}"))
            continue
        try:
            value = parse_text(key, f"{entry}={text}" if entry is not None else text)
        except BadValue as exc:
            problems.append(Problem(label, None, path, str(exc)))
            continue
        from tether.config.constraints import check_floors

        problems += check_floors({key.path: value}, label)
        merge(values, origins, {key.path: value}, label)
    if problems:
        raise ConfigProblems(problems)


def _text_problems(texts: list[tuple[str, str, str]]) -> list[Any]:
    from tether.config.validate import ConfigProblems

    try:
        apply_texts(defaults(), {}, texts)
    except ConfigProblems as exc:
        return list(exc.problems)
    return []


def split_override(text: str) -> tuple[str, str]:
    """Split ``KEY=VALUE`` from --set; raise ConfigError when there is no '='."""
    path, sep, value = text.partition("=")
    if not sep or not path.strip():
        raise ConfigError(f"--set {text!r}: expected KEY=VALUE, e.g. --set loops.hard_stop=true")
    return path.strip(), value


def load_config(
    *,
    cwd: Path | None = None,
    overrides: Sequence[str] = (),
    environ: Mapping[str, str] | None = None,
    use_cache: bool = True,
) -> Config:
    """Load the effective config for ``cwd``; raise ConfigError describing every mistake."""
    env = os.environ if environ is None else environ
    paths = discover(cwd, env)
    return load_paths(paths, overrides=overrides, environ=env, use_cache=use_cache)


def load_paths(
    paths: Paths,
    *,
    overrides: Sequence[str] = (),
    environ: Mapping[str, str],
    use_cache: bool = True,
) -> Config:
    """Load the effective config from already discovered ``paths``."""
    # On the hook path (a fresh cache, no overrides) nothing below imports the validator.
    texts = [(f"env:{name}", path, text) for name, path, text in env_overrides(environ)]
    malformed: list[str] = []
    for item in overrides:
        try:
            texts.append(("--set", *split_override(item)))
        except ConfigError as exc:
            malformed.append(str(exc))
    try:
        if use_cache:
            from tether.config.cache import cached

            payload = cached(paths, environ, lambda: _read_files(paths, environ))
        else:
            payload = _read_files(paths, environ)
    except ConfigError as exc:
        # Report the overrides' mistakes along with the files', not one batch per run.
        from tether.config.validate import ConfigProblems

        found = [*getattr(exc, "problems", ()), *_problems(malformed), *_text_problems(texts)]
        raise ConfigProblems(found) from None
    values: dict[str, Any] = payload["values"]
    origins: dict[str, str] = payload["origins"]
    if texts or malformed:
        from tether.config.constraints import check_constraints
        from tether.config.validate import ConfigProblems

        problems = _problems(malformed)
        try:
            apply_texts(values, origins, texts)
        except ConfigProblems as exc:
            problems += exc.problems
        if not problems:
            problems = check_constraints(values, origins)
        if problems:
            raise ConfigProblems(problems)
    files = tuple((layer, path) for layer, path in payload["files"])
    ignored = tuple(Ignored(*item) for item in payload.get("ignored", ()))
    return Config(values, origins, files, ignored, tuple(payload.get("untrusted", ())))


def _problems(malformed: list[str]) -> list[Any]:
    from tether.config.validate import Problem

    return [Problem("--set", None, "", message) for message in malformed]


def default_config() -> Config:
    """Return a Config of pure defaults (no files, no environment)."""
    return Config(defaults(), {}, ())


__all__ = [
    "DEFAULT_LAYER",
    "apply_texts",
    "default_config",
    "defaults",
    "env_overrides",
    "load_config",
    "load_paths",
    "merge",
    "split_override",
]
