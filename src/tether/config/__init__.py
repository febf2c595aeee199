"""Tether's configuration: one schema, layered YAML files, typed and validated values.

``load_config()`` returns the effective :class:`Config` for a working directory: built-in
defaults, then the user file (``$XDG_CONFIG_HOME/tether/config.yaml``), the project file
(``.tether.yaml`` found upward from the working directory, up to the repository root), the
file named by ``TETHER_CONFIG`` (which replaces the user file), ``TETHER_<SECTION>__<KEY>``
environment variables and ``--set KEY=VALUE`` overrides. ``Config.get("loops.hard_stop")``
returns a typed value; unknown keys raise :class:`tether.errors.ConfigError` with a "did you
mean". The schema in :mod:`tether.config.schema` is the single source of truth.

This module is on the hook path: it imports no YAML library unless a file must be parsed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tether.config.core import Config
from tether.config.load import load_config

if TYPE_CHECKING:
    DEFAULT_CONFIG: Config

__all__ = ["DEFAULT_CONFIG", "Config", "load_config"]


def __getattr__(name: str) -> Any:
    # Built on first use so that importing this package does not build the defaults.
    if name == "DEFAULT_CONFIG":
        from tether.config.load import default_config

        value = default_config()
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tether.config' has no attribute {name!r}")
