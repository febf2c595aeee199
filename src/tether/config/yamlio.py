"""Read config files with ruamel.yaml (YAML 1.2), keeping line numbers for error messages.

Imported only on a cache miss, by ``tether config`` and by ``check``: ruamel.yaml costs tens of
milliseconds to import, more than the whole cached load.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tether.config.validate import Problem, validate_tree


def new_yaml() -> Any:
    """Return a round-trip YAML instance configured the way Tether reads and writes files."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 100
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def line_of(mapping: Any, name: Any) -> int | None:
    """Return the 1-based line of ``name`` in a round-trip mapping, if ruamel recorded it."""
    try:
        return int(mapping.lc.key(name)[0]) + 1
    except (AttributeError, KeyError, TypeError, IndexError):
        return None


def parse_text(text: str, source: str) -> tuple[Any, list[Problem]]:
    """Parse YAML text into a round-trip document; return it and any syntax problem."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.reader import ReaderError

    try:
        return new_yaml().load(text), []
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = " ".join(str(exc.problem or exc.context or "invalid YAML").split())
        return None, [Problem(source, line, "", f"invalid YAML: {what}")]
    except ReaderError as exc:
        line = text[: exc.position].count("\n") + 1
        code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1])
        what = f"character U+{code:04X} is not allowed; write it as an escape in double quotes"
        return None, [Problem(source, line, "", f"invalid YAML: {what}")]
    except YAMLError as exc:
        return None, [Problem(source, None, "", f"invalid YAML: {' '.join(str(exc).split())}")]


def read_document(path: Path, data: bytes | None = None) -> tuple[str | None, Any, list[Problem]]:
    """Read (unless ``data`` is its content) and parse one file; never raises."""
    source = str(path)
    try:
        if data is None:
            data = path.read_bytes()
    except FileNotFoundError:
        return None, None, [Problem(source, None, "", "file not found")]
    except OSError as exc:
        return None, None, [Problem(source, None, "", f"cannot read: {exc.strerror or exc}")]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, None, [Problem(source, line, "", "not UTF-8 text")]
    document, problems = parse_text(text, source)
    return text, document, problems


def load_file(
    path: Path,
    lines: dict[str, int] | None = None,
    data: bytes | None = None,
    *,
    untrusted: bool = False,
) -> tuple[dict[str, Any], list[Problem]]:
    """Return the typed leaf values one file sets, and every problem in it.

    ``lines``, when given, receives the line of each leaf key the file sets; ``data``, when
    given, is the file's content already read; ``untrusted``: see ``validate_tree``.
    """
    _, document, problems = read_document(path, data)
    if problems:
        return {}, problems
    return validate_tree(document, str(path), line_of, lines, untrusted=untrusted)


__all__ = ["line_of", "load_file", "new_yaml", "parse_text", "read_document"]
