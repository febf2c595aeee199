"""The ``Config`` value: effective settings by dotted key, and the layer each came from."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DEFAULT_LAYER = "default"


@dataclass(frozen=True, slots=True)
class Config:
    """Effective settings: ``values`` maps every dotted leaf key to its typed value.

    ``origins`` names the layer each value came from (``default``, ``user:PATH``,
    ``project:PATH``, ``TETHER_CONFIG:PATH``, ``env:NAME``, ``--set``); ``files`` lists the
    config files that were read, as ``(layer, path)``.
    """

    values: Mapping[str, Any]
    origins: Mapping[str, str] = field(default_factory=dict)
    files: tuple[tuple[str, str], ...] = ()

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
        return Config(merged, origins, self.files)


def _nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for path, value in flat.items():
        node = tree
        *parents, leaf = path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = copy.deepcopy(value)
    return tree


__all__ = ["DEFAULT_LAYER", "Config"]
