"""Rules that span several keys, checked on the merged config (all layers together).

The loop guard refuses these combinations at runtime (``tether.loops.settings.validate``), and
a hook that refuses its config blocks every call; so ``load_config``, ``check`` and ``set``
refuse them first, naming both keys, their values and the layers they came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tether.config.schema import KEYS
from tether.config.validate import Problem

_FILE_LAYERS = ("user:", "project:", "TETHER_CONFIG:")
DETECTORS = tuple(k.rsplit(".", 1)[1] for k in KEYS if k.startswith("loops.warn_after."))

# (lower key, higher key, strict): the higher key's value must be >= (or >, when strict) the
# lower key's.
ORDERED: tuple[tuple[str, str, bool], ...] = (
    *((f"loops.warn_after.{d}", f"loops.hard_stop_after.{d}", False) for d in DETECTORS),
    ("progress.warn_after", "progress.halt_after", True),
)


def check_constraints(values: Mapping[str, Any], origins: Mapping[str, str]) -> list[Problem]:
    """Return a Problem for every cross-key rule the merged ``values`` break."""
    return [problem for _, _, problem in _broken(values, origins)]


def _broken(
    values: Mapping[str, Any], origins: Mapping[str, str]
) -> list[tuple[str, str, Problem]]:
    problems = []
    for low, high, strict in ORDERED:
        a, b = values.get(low), values.get(high)
        if not isinstance(a, int) or not isinstance(b, int):
            continue
        if b > a or (b == a and not strict):
            continue
        where = {k: origins.get(k, "default") for k in (low, high)}
        # Report it where the upper bound was set, or else where the lower one was.
        source = where[high] if where[high] != "default" else where[low]
        relation = "greater than" if strict else "at least"
        problems.append(
            (
                low,
                high,
                Problem(
                    source.split(":", 1)[1] if source.startswith(_FILE_LAYERS) else source,
                    None,
                    high,
                    f"expected {relation} {low} ({a}, from {where[low]}), got {b} (from "
                    f"{where[high]}); raise {high} or lower {low}",
                ),
            )
        )
    return problems


# Layers in the order they apply: a value from a later layer hides an edit to an earlier one.
_RANK = {"default": 0, "user": 1, "project": 2, "TETHER_CONFIG": 3, "env": 4, "--set": 5}


def check_edit(config: Any, layer: str, path: Path, key: str, value: Any) -> list[Problem]:
    """Return the cross-key rules that writing ``key = value`` to ``path`` would break.

    ``config`` is the effective config before the edit; an edit that a higher layer hides
    changes nothing and breaks nothing.
    """
    if key not in config.values:
        return []
    current = config.origin(key).split(":", 1)[0]
    if _RANK.get(current, 0) > _RANK[layer]:
        return []
    values = {**config.values, key: value}
    origins = {**config.origins, key: f"{layer}:{path}"}
    return [problem for low, high, problem in _broken(values, origins) if key in (low, high)]


__all__ = ["DETECTORS", "ORDERED", "check_constraints", "check_edit"]
