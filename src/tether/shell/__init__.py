"""Shell parsing: a tree-sitter-bash parse turned into a flat ``CommandModel``."""

from tether.shell.model import (
    Assignment,
    CommandModel,
    Redirect,
    SimpleCommand,
    Word,
    Wrapper,
)
from tether.shell.parse import MAX_INPUT_CHARS, parse_command

__all__ = [
    "MAX_INPUT_CHARS",
    "Assignment",
    "CommandModel",
    "Redirect",
    "SimpleCommand",
    "Word",
    "Wrapper",
    "parse_command",
]
