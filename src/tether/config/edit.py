"""Change one key in a config file, keeping its comments, order and formatting.

Every edit runs under an exclusive lock on the file's directory, checks the whole resulting
document against the schema, and replaces the file atomically (temp file, fsync, rename). When
anything is wrong nothing is written, so a refused edit leaves the file byte-identical.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.config.layout import dump, new_map, put, to_yaml
from tether.config.validate import (
    BadValue,
    ConfigProblems,
    parse_text,
    resolve,
    validate_tree,
)
from tether.config.yamlio import line_of
from tether.config.yamlio import parse_text as parse_yaml
from tether.errors import ConfigError

LOCK_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class Edit:
    """What an edit did: the file, the key, the new value (None for unset), whether it wrote."""

    path: Path
    key: str
    value: Any
    written: bool


def typed_value(dotted: str, text: str) -> Any:
    """Return the value ``text`` means for ``dotted``, or raise ConfigError saying why not."""
    key, entry = resolve(dotted)
    try:
        if entry is not None:
            return parse_text(key, f"{entry}={text}")[entry]
        return parse_text(key, text)
    except BadValue as exc:
        raise ConfigError(f"{dotted}: {exc}") from None


def set_key(path: Path, dotted: str, text: str) -> Edit:
    """Set ``dotted`` to the value ``text`` means (typed by the schema) in the file ``path``."""
    return set_value(path, dotted, typed_value(dotted, text))


def set_value(path: Path, dotted: str, value: Any) -> Edit:
    """Set ``dotted`` to an already typed ``value`` in the file ``path``."""
    key, entry = resolve(dotted)
    target = _real(path)
    with locked(target.parent, create=True):
        original, document = _read(target)
        parts = key.path.split(".") + ([entry] if entry is not None else [])
        node, depth = document, 0
        while depth < len(parts) - 1 and part_map(node, parts, depth, target):
            node, depth = node[parts[depth]], depth + 1
        # Build whatever is missing below ``node`` as one block, then attach it in one place.
        block = to_yaml(value)
        for part in reversed(parts[depth + 1 :]):
            wrapper = new_map()
            wrapper[part] = block
            block = wrapper
        put(node, parts[depth], block, root=depth == 0)
        text = dump(document)
        _check(target, text, key.path, entry, value)
        if text != original:
            _write(target, text)
    return Edit(target, dotted, value, text != original)


def unset_key(path: Path, dotted: str) -> Edit:
    """Remove ``dotted`` from the file ``path`` (also an unknown key, to clean up mistakes)."""
    target = _real(path)
    if not target.exists():
        resolve(dotted)
        return Edit(target, dotted, None, False)
    with locked(target.parent):
        _, document = _read(target)
        parts = dotted.split(".")
        chain = [document]
        for part in parts[:-1]:
            child = chain[-1].get(part)
            if not hasattr(child, "items"):
                break
            chain.append(child)
        if len(chain) != len(parts) or parts[-1] not in chain[-1]:
            resolve(dotted)  # an unknown key that is not in the file: refuse with a hint
            return Edit(target, dotted, None, False)
        del chain[-1][parts[-1]]
        # Drop groups the removal left empty, innermost first.
        for depth in range(len(chain) - 1, 0, -1):
            if len(chain[depth]) == 0:
                del chain[depth - 1][parts[depth - 1]]
        text = dump(document)
        _write(target, text)
    return Edit(target, dotted, None, True)


def part_map(node: Any, parts: list[str], depth: int, target: Path) -> bool:
    """Return True when ``node`` has a mapping at ``parts[depth]`` to descend into."""
    child = node.get(parts[depth])
    if child is None:
        return False
    if not hasattr(child, "items"):
        where = ".".join(parts[: depth + 1])
        raise ConfigError(f"{target}: {where}: is not a mapping; fix it by hand first")
    return True


def _real(path: Path) -> Path:
    # Write through a symlink (dotfile managers) instead of replacing the link with a file.
    return Path(os.path.realpath(path))


@contextlib.contextmanager
def locked(directory: Path, *, create: bool = False) -> Iterator[None]:
    """Hold an exclusive flock on ``directory`` (so concurrent edits of its files serialise)."""
    import fcntl

    try:
        if create:
            directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(directory, os.O_RDONLY)
    except OSError as exc:
        raise ConfigError(f"{directory}: cannot lock for writing: {exc.strerror or exc}") from None
    try:
        deadline = time.monotonic() + LOCK_TIMEOUT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ConfigError(
                        f"{directory}: another process has held the config lock for "
                        f"{LOCK_TIMEOUT:.0f}s; try again"
                    ) from None
                time.sleep(0.02)
        yield
    finally:
        os.close(fd)


def _read(target: Path) -> tuple[str, Any]:
    """Return the file's text and document; refuse a file that does not parse."""
    try:
        original = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "", new_map()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{target}: cannot read: {exc}") from None
    document, problems = parse_yaml(original, str(target))
    if problems:
        raise ConfigProblems(problems)
    if document is None:
        return original, new_map()
    if not hasattr(document, "items"):
        raise ConfigError(f"{target}: expected a mapping of sections; fix it by hand first")
    return original, document


def _check(target: Path, text: str, path: str, entry: str | None, expected: Any) -> None:
    """Refuse the edit unless the new text is a valid file that reads back the value set."""
    document, problems = parse_yaml(text, str(target))
    values: dict[str, Any] = {}
    lines: dict[str, int] = {}
    if not problems:
        values, problems = validate_tree(document, str(target), line_of, lines)
    if not problems:
        from tether.config.constraints import check_rule_codes

        problems = check_rule_codes(values, dict.fromkeys(values, f"file:{target}"), lines)
    if problems:
        raise ConfigProblems(problems)
    found = values.get(path)
    if entry is not None:
        found = found.get(entry) if isinstance(found, dict) else None
    if found != expected:
        raise ConfigError(f"{target}: {path}: the written value would read back differently")


def _write(target: Path, text: str) -> None:
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise ConfigError(f"{target}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise ConfigError(f"{target}: cannot write: {exc.strerror or exc}") from None
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


__all__ = ["Edit", "locked", "set_key", "set_value", "typed_value", "unset_key"]
