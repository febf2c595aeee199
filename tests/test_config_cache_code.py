"""The config cache's signature covers every module the schema takes its defaults from.

An upgrade that changes a default (the detector thresholds live in ``tether.loops.settings``)
must not be served the old value from ``$XDG_CACHE_HOME/tether/config-*.json``.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from tether.config import cache

SRC = Path(__file__).resolve().parents[1] / "src"


def _tether_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tether.")
    }


def test_the_signature_covers_the_schemas_sources() -> None:
    here = Path(cache.__file__).resolve().parent
    covered = {(here / name).resolve() for name in cache._CODE}
    schema = here / "schema.py"
    for module in _tether_imports(schema):
        path = SRC / (module.replace(".", os.sep) + ".py")
        if path.exists() and not module.startswith("tether.config."):
            assert path.resolve() in covered, f"{module} gives schema defaults; cache misses it"
    assert schema.resolve() in covered
