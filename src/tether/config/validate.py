"""Check values against the schema: YAML values from files, text from the environment and --set.

Strict on purpose: a setting that is silently ignored or coerced is worse than an error. Booleans
are YAML 1.2 booleans (``true``/``false``) in files, and ``true/false/yes/no`` in text; integers
have ranges; enums have choices; unknown keys are refused with a "did you mean".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tether.config.schema import GROUPS, KEYS, SECTIONS, Key, is_group
from tether.errors import ConfigError

# difflib and json are imported where needed: the hook path may import this module.
_FLOAT_CHARS = frozenset("0123456789+-.eE")
_TRUE = frozenset({"true", "yes"})
_FALSE = frozenset({"false", "no"})


@dataclass(frozen=True, slots=True)
class Problem:
    """One mistake: where (source, line), which key, and what is wrong."""

    source: str
    line: int | None
    key: str
    message: str

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class Leaf:
    """A known leaf key found in a document, with its raw value and line."""

    key: Key
    value: Any
    line: int | None


LineOf = Callable[[Any, Any], "int | None"]


class ConfigProblems(ConfigError):
    """A ConfigError carrying every problem found, so all can be reported at once."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class BadValue(ValueError):
    """A value does not fit its key; the text says what was expected and what was found."""


def suggest(path: str) -> str | None:
    """Return the known key or group closest to ``path``, if any is close enough."""
    import difflib

    known = [*KEYS, *GROUPS, *SECTIONS]
    close = difflib.get_close_matches(path, known, n=1, cutoff=0.6)
    if not close:
        # A right leaf in the wrong place ("loops.exact_failure") is still worth naming.
        leaf = path.rsplit(".", 1)[-1]
        tails = {k.rsplit(".", 1)[-1]: k for k in KEYS}
        near = difflib.get_close_matches(leaf, list(tails), n=1, cutoff=0.8)
        return tails[near[0]] if near else None
    return close[0]


def unknown_key_message(path: str) -> str:
    """Say that ``path`` is not a setting, with a suggestion when one is close."""
    close = suggest(path)
    hint = f" (did you mean '{close}'?)" if close else ""
    return f"unknown key '{shown(path)}'{hint}; 'tether config list' shows every key"


def shown(name: str) -> str:
    """Return ``name`` with control characters escaped, so one message stays one line."""
    return name if name.isprintable() else name.encode("unicode_escape").decode("ascii")


def resolve(path: str) -> tuple[Key, str | None]:
    """Return the key ``path`` names and the entry name, for one entry like ``tools.shell.X``."""
    key = KEYS.get(path)
    if key is not None:
        return key, None
    head, _, name = path.rpartition(".")
    key = KEYS.get(head)
    if key is not None and key.kind == "map" and name:
        return key, name
    return lookup(path), None


def lookup(path: str) -> Key:
    """Return the schema entry for a leaf key, or raise ConfigError naming the closest key."""
    key = KEYS.get(path)
    if key is not None:
        return key
    if is_group(path):
        raise ConfigError(f"'{path}' is a group of settings, not one setting; name a key inside it")
    raise ConfigError(unknown_key_message(path))


def describe(value: Any) -> str:
    """Describe a found value for an error message: its text and its type."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'} (a boolean)"
    if isinstance(value, int):
        return f"{value} (an integer)"
    if isinstance(value, float):
        return f"{value!r} (a number)"
    if isinstance(value, str):
        shown = value if len(value) <= 60 else value[:57] + "..."
        return f"{shown!r} (a string)"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a {type(value).__name__}"


def check_value(key: Key, value: Any) -> Any:
    """Return ``value`` as a plain typed value for ``key`` or raise BadValue."""
    kind = key.kind
    if kind == "bool":
        if isinstance(value, bool):
            return value
        hint = ""
        if isinstance(value, str) and value.lower() in _TRUE | _FALSE | {"on", "off"}:
            hint = "; YAML 1.2 reads it as a string: write true or false"
        raise BadValue(f"expected {key.expected()}, got {describe(value)}{hint}")
    if kind == "int":
        if isinstance(value, int) and not isinstance(value, bool):
            return _in_range(key, int(value))
        raise BadValue(f"expected {key.expected()}, got {describe(value)}")
    if kind == "float":
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value)
            if math.isfinite(number):
                return _in_range(key, number)
        raise BadValue(f"expected {key.expected()}, got {describe(value)}")
    if kind in ("str", "enum"):
        if not isinstance(value, str):
            raise BadValue(f"expected {key.expected()}, got {describe(value)}")
        text = _string(key, str(value))
        if kind == "enum" and text not in key.choices:
            import difflib

            close = difflib.get_close_matches(text, key.choices, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise BadValue(f"expected {key.expected()}, got {describe(value)}{hint}")
        return text
    if kind == "list":
        if not isinstance(value, list | tuple):
            raise BadValue(f"expected {key.expected()}, got {describe(value)}")
        items = []
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise BadValue(f"item {index}: expected a string, got {describe(item)}")
            items.append(_string(key, str(item)))
        return items
    if not isinstance(value, Mapping):
        raise BadValue(f"expected {key.expected()}, got {describe(value)}")
    entries: dict[str, str] = {}
    for name, arg in value.items():
        if not isinstance(name, str) or not name:
            raise BadValue(f"expected tool names as keys, got {describe(name)}")
        if not isinstance(arg, str):
            raise BadValue(
                f"'{shown(name)}': expected a string (an argument name), got {describe(arg)}"
            )
        entries[_string(key, str(name))] = _string(key, str(arg))
    return entries


def _in_range(key: Key, number: Any) -> Any:
    if key.clamp and key.maximum is not None and number > key.maximum:
        return type(number)(key.maximum)
    if (key.minimum is not None and number < key.minimum) or (
        key.maximum is not None and number > key.maximum
    ):
        raise BadValue(f"expected {key.expected()}, got {describe(number)}")
    return number


def _string(key: Key, text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadValue(f"expected {key.expected()}, got text that is not valid Unicode") from None
    return text


def parse_text(key: Key, text: str) -> Any:
    """Return the typed value that ``text`` (from the environment or --set) means for ``key``."""
    kind = key.kind
    raw = text.strip()
    if kind == "bool":
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        raise BadValue(f"expected true, false, yes or no, got {text!r}")
    if kind == "int":
        digits = raw[1:] if raw[:1] in ("+", "-") else raw
        if not (digits.isascii() and digits.isdigit()):
            raise BadValue(f"expected {key.expected()}, got {text!r}")
        return check_value(key, int(raw))
    if kind == "float":
        # float() alone would also take "inf", "nan" and "1_0"; only plain decimals are numbers.
        try:
            if not raw or not set(raw) <= _FLOAT_CHARS:
                raise ValueError(raw)
            number = float(raw)
        except ValueError:
            raise BadValue(f"expected {key.expected()}, got {text!r}") from None
        return check_value(key, number)
    if kind in ("str", "enum"):
        return check_value(key, text)
    if kind == "list":
        if raw.startswith("["):
            return check_value(key, _json(key, raw))
        return check_value(key, [part.strip() for part in raw.split(",") if part.strip()])
    if raw.startswith("{"):
        return check_value(key, _json(key, raw))
    entries: dict[str, str] = {}
    for part in raw.split(","):
        if not part.strip():
            continue
        name, sep, arg = part.partition("=")
        if not sep or not name.strip():
            raise BadValue(f"expected NAME=ARG[,NAME=ARG...] or a JSON object, got {text!r}")
        entries[name.strip()] = arg.strip()
    return check_value(key, entries)


def _json(key: Key, raw: str) -> Any:
    import json

    try:
        return json.loads(raw)
    except ValueError as exc:
        raise BadValue(f"expected {key.expected()} as JSON, got {raw!r} ({exc})") from None


def format_text(key: Key, value: Any) -> str:
    """Return the text that ``parse_text`` turns back into ``value`` (for get and docs)."""
    if key.kind == "bool":
        return "true" if value else "false"
    if key.kind in ("list", "map"):
        import json

        return json.dumps(value, ensure_ascii=False)
    if key.kind == "float":
        return repr(float(value))
    return str(value)


def walk(tree: Any, line_of: LineOf | None = None) -> Iterator[Leaf | Problem]:
    """Yield every leaf of a parsed config document, or a Problem for what is not a known leaf.

    ``line_of(mapping, name)`` returns the 1-based line of a mapping key, if known. Problems carry
    an empty ``source``; the caller fills it in.
    """
    if tree is None:
        return
    if not isinstance(tree, Mapping):
        yield Problem("", 1, "", f"expected a mapping of sections, got {describe(tree)}")
        return
    queue: list[tuple[str, Mapping[Any, Any]]] = [("", tree)]
    while queue:
        prefix, mapping = queue.pop(0)
        for name, value in mapping.items():
            line = line_of(mapping, name) if line_of else None
            if not isinstance(name, str):
                where = prefix.rstrip(".")
                yield Problem("", line, where, f"key {name!r} is not a string")
                continue
            path = prefix + name
            key = KEYS.get(path)
            if key is not None:
                yield Leaf(key, value, line)
            elif is_group(path):
                if value is None:
                    continue  # an empty section never wipes the defaults
                if isinstance(value, Mapping):
                    queue.append((path + ".", value))
                else:
                    yield Problem("", line, path, f"expected a mapping, got {describe(value)}")
            else:
                yield Problem("", line, "", unknown_key_message(path))


def _past_loose_bound(key: Key, value: Any) -> bool:
    if key.kind not in ("int", "float") or isinstance(value, bool):
        return False
    if not isinstance(value, int | float) or (key.kind == "int" and not isinstance(value, int)):
        return False
    if key.loosen == "raise" and key.maximum is not None:
        return value > key.maximum  # inf too; nan compares false and stays an error
    if key.loosen == "lower" and key.minimum is not None:
        return value < key.minimum
    return False


def validate_tree(
    tree: Any,
    source: str,
    line_of: LineOf | None = None,
    lines: dict[str, int] | None = None,
    *,
    untrusted: bool = False,
) -> tuple[dict[str, Any], list[Problem]]:
    """Return the typed leaf values a parsed document sets, and every problem in it.

    ``lines``, when given, receives the line of each leaf key that was found. In an
    ``untrusted`` file, a number past its range in the loosening direction (``hooks.deadline:
    999``) is returned as is, for the trust filter to ignore, rather than refused: a cloned
    repository must not be able to make every hook call fail.
    """
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    for item in walk(tree, line_of):
        if isinstance(item, Problem):
            problems.append(Problem(source, item.line, item.key, item.message))
            continue
        if lines is not None and item.line is not None:
            lines[item.key.path] = item.line
            if item.key.kind == "map" and isinstance(item.value, Mapping) and line_of:
                for name in item.value:  # a mapping's entries have their own lines
                    found = line_of(item.value, name)
                    if found is not None:
                        lines[f"{item.key.path}.{name}"] = found
        try:
            values[item.key.path] = check_value(item.key, item.value)
        except BadValue as exc:
            if untrusted and _past_loose_bound(item.key, item.value):
                values[item.key.path] = item.value
                continue
            problems.append(Problem(source, item.line, item.key.path, str(exc)))
    return values, problems


__all__ = [
    "BadValue",
    "ConfigProblems",
    "Leaf",
    "Problem",
    "check_value",
    "describe",
    "format_text",
    "lookup",
    "parse_text",
    "resolve",
    "suggest",
    "unknown_key_message",
    "validate_tree",
    "walk",
]
