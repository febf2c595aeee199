"""The ``Config`` value: effective settings by dotted key, and the layer each came from."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

DEFAULT_LAYER = "default"


class Ignored(NamedTuple):
    """A key an untrusted project file set that was not applied because it loosens the guard."""

    source: str  # the file
    line: int | None
    key: str  # dotted, or ``tools.shell.NAME`` for one entry
    reason: str  # what the value would have done, e.g. "raises it from 15 to 999"

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: {self.key}: ignored: {self.reason}"


def trust_notice(ignored: tuple[Ignored, ...]) -> str:
    """Return the one notice for what untrusted project files could not apply ('' if none)."""
    if not ignored:
        return ""
    files = list(dict.fromkeys(item.source for item in ignored))
    keys = ", ".join(dict.fromkeys(item.key for item in ignored))
    count = len(ignored)
    what = "the untrusted project file" if len(files) == 1 else "the untrusted project files"
    command = " and ".join(f"`tether trust {name}`" for name in files)
    return (
        f"Tether ignored {count} setting{'s' if count != 1 else ''} in {what} "
        f"{', '.join(files)} that would loosen the guard ({keys}); its tightening settings "
        f"apply. Review the file, then run {command} to apply it in full."
    )


@dataclass(frozen=True, slots=True)
class Config:
    """Effective settings: ``values`` maps every dotted leaf key to its typed value.

    ``origins`` names the layer each value came from (``default``, ``user:PATH``,
    ``project:PATH``, ``TETHER_CONFIG:PATH``, ``env:NAME``, ``--set``); ``files`` lists the
    config files that were read, as ``(layer, path)``. ``ignored`` lists what untrusted
    project files set but could not apply, because it loosens the guard; ``untrusted`` names
    those files (``tether trust PATH`` applies them in full).
    """

    values: Mapping[str, Any]
    origins: Mapping[str, str] = field(default_factory=dict)
    files: tuple[tuple[str, str], ...] = ()
    ignored: tuple[Ignored, ...] = ()
    untrusted: tuple[str, ...] = ()

    def get(self, key: str) -> Any:
        """Return the value of a dotted key; a section or group returns a nested dict."""
        if key in self.values:
            return copy.deepcopy(self.values[key])
        prefix = key + "."
        inner = {k[len(prefix) :]: v for k, v in self.values.items() if k.startswith(prefix)}
        if inner:
            return _nest(inner)
        # One entry of a mapping setting, e.g. ``tools.shell.Bash``.
        head, _, name = key.rpartition(".")
        entries = self.values.get(head)
        if isinstance(entries, Mapping) and name in entries:
            return entries[name]
        from tether.config.validate import lookup

        lookup(key)  # raises ConfigError with a "did you mean"
        raise AssertionError(key)  # pragma: no cover - lookup raised for anything not a value

    def section(self, name: str) -> dict[str, Any]:
        """Return one top-level section as a nested dict (a fresh copy)."""
        if "." in name or not any(k.startswith(name + ".") for k in self.values):
            from tether.config.validate import unknown_key_message
            from tether.errors import ConfigError

            raise ConfigError(f"no config section '{name}': " + unknown_key_message(name))
        value = self.get(name)
        assert isinstance(value, dict)
        return value

    def origin(self, key: str) -> str:
        """Return the layer a leaf key's value came from."""
        if key not in self.values:
            self.get(key)  # raises for unknown keys
        return self.origins.get(key, DEFAULT_LAYER)

    def to_dict(self) -> dict[str, Any]:
        """Return every setting as one nested dict."""
        return _nest(self.values)

    def with_values(self, values: Mapping[str, Any], layer: str = "--set") -> Config:
        """Return a copy with some leaf keys replaced, each checked against the schema."""
        from tether.config.validate import BadValue, ConfigProblems, Problem, check_value, lookup

        merged = dict(self.values)
        origins = dict(self.origins)
        problems = []
        for path, value in values.items():
            key = lookup(path)
            try:
                merged[path] = check_value(key, value)
            except BadValue as exc:
                problems.append(Problem(layer, None, path, str(exc)))
            origins[path] = layer
        if problems:
            raise ConfigProblems(problems)
        return Config(merged, origins, self.files, self.ignored, self.untrusted)


def _nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for path, value in flat.items():
        node = tree
        *parents, leaf = path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = copy.deepcopy(value)
    return tree


__all__ = ["DEFAULT_LAYER", "Config", "Ignored", "trust_notice"]
