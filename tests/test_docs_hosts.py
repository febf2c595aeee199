"""docs/hosts.md's table of tested versions is generated from tests/e2e/honours.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

E2E = Path(__file__).resolve().parent / "e2e"


def load(name: str) -> ModuleType:
    """Import ``tests/e2e/NAME.py`` (the e2e folder is not a package)."""
    spec = importlib.util.spec_from_file_location(f"e2e_{name}", E2E / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_version_table_is_current() -> None:
    honours = load("honours")
    doc = honours.DOC.read_text(encoding="utf-8")
    assert honours.BEGIN in doc, f"{honours.DOC}: the generated table's markers are missing"
    assert honours.render(doc) == doc, (
        "docs/hosts.md is stale: run `python tests/e2e/honours.py --write`"
    )


def test_every_pinned_version_has_a_row_and_every_feature_an_answer() -> None:
    honours = load("honours")
    pins = {f"{h} {v}" for h, versions in honours.PINS.items() for v in versions}
    assert set(honours.HONOURS) == pins
    for version, row in honours.HONOURS.items():
        assert set(row) == set(honours.FEATURES), version
