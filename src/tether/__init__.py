"""Tether: guardrails for LLM agents' tool calls.

The public API is imported lazily so that ``import tether`` stays cheap on the hook path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tether.classify import Classification, classify_command
    from tether.config import Config, load_config
    from tether.errors import ConfigError, InputError, StoreError, TetherError, WorkerError
    from tether.guard import Guard
    from tether.model import Action, Decision, Finding, ToolCall, ToolResult
    from tether.shell import CommandModel, parse_command

_EXPORTS = {
    "Action": "tether.model",
    "Classification": "tether.classify",
    "CommandModel": "tether.shell",
    "Config": "tether.config",
    "ConfigError": "tether.errors",
    "Decision": "tether.model",
    "Finding": "tether.model",
    "Guard": "tether.guard",
    "InputError": "tether.errors",
    "StoreError": "tether.errors",
    "TetherError": "tether.errors",
    "ToolCall": "tether.model",
    "ToolResult": "tether.model",
    "WorkerError": "tether.errors",
    "classify_command": "tether.classify",
    "load_config": "tether.config",
    "parse_command": "tether.shell",
}

__all__ = [
    "Action",
    "Classification",
    "CommandModel",
    "Config",
    "ConfigError",
    "Decision",
    "Finding",
    "Guard",
    "InputError",
    "StoreError",
    "TetherError",
    "ToolCall",
    "ToolResult",
    "WorkerError",
    "classify_command",
    "load_config",
    "parse_command",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tether' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
