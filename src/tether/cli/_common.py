"""Options every subcommand shares: ``--set KEY=VALUE`` config overrides."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tether.config import Config


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the repeatable ``--set KEY=VALUE`` option (overrides every config file)."""
    parser.add_argument(
        "--set",
        dest="config_overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one config setting for this run, e.g. --set loops.hard_stop=true "
        "(repeatable; see 'tether config list')",
    )


def config_from_args(args: argparse.Namespace) -> Config:
    """Load the effective config for the current directory with the ``--set`` overrides."""
    from tether.config import load_config

    return load_config(overrides=tuple(getattr(args, "config_overrides", None) or ()))


__all__ = ["add_config_arguments", "config_from_args"]


def shown_command(command: str, cap: int = 200) -> str:
    """Return ``command`` as a report line shows it: capped with an ellipsis."""
    return command if len(command) <= cap else command[: cap - 3] + "..."


def named_codes(codes: list[str]) -> list[str]:
    """Return each decision code with its rule's name (``DG101 rm-recursive-root``)."""
    from tether.rules import explain

    named = []
    for code in codes:
        entry = explain(code)
        named.append(f"{code} {entry.name}" if entry else code)
    return named
