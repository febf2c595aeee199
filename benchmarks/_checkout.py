"""Run a benchmark's child process on another checkout's ``src`` directory.

The comparison scripts (compare_danger, compare_parse, count_instructions) judge the same
inputs with two checkouts. A directory without the package would silently fall back to the
installed Tether and report "0 differ": refuse it instead.
"""

from __future__ import annotations

import os
from pathlib import Path


def checkout_env(src: str) -> dict[str, str]:
    """Return the environment that makes a child import Tether from ``src``, or exit."""
    where = Path(src).resolve()
    if not (where / "tether" / "__init__.py").is_file():
        raise SystemExit(
            f"{src}: no tether package there (expected {where / 'tether' / '__init__.py'});"
            " give a checkout's src directory, e.g. ../old/src"
        )
    return {**os.environ, "PYTHONPATH": str(where)}
