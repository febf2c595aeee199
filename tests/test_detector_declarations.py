"""Each detector is declared once, and everything that describes it reads that declaration.

The config schema (keys, defaults, help), `tether rules` (and docs/rules.md), the detector
table in docs/loops.md and the replay report's glossary must all say what the detector's own
module declares; and no function in guard.py or loops/ is longer than 60 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tether.config.schema import KEYS
from tether.loops.detectors import ALL, BY_CODE, ON_AFTER, ON_BEFORE, ON_MESSAGE, docs_table
from tether.model import Action
from tether.rules import explain

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "tether"


@pytest.mark.parametrize("d", ALL, ids=lambda d: d.code)
def test_the_config_schema_reads_the_declaration(d: object) -> None:
    from tether.loops.detectors import Detector

    assert isinstance(d, Detector)
    warn, stop = f"loops.warn_after.{d.key}", f"loops.hard_stop_after.{d.key}"
    if d.warn_after is None:
        assert warn not in KEYS and stop not in KEYS
        return
    assert KEYS[warn].default == d.warn_after and d.what in KEYS[warn].help
    if d.hard_stop_after is None:
        assert stop not in KEYS
    else:
        assert KEYS[stop].default == d.hard_stop_after and d.what in KEYS[stop].help


@pytest.mark.parametrize("d", ALL, ids=lambda d: d.code)
def test_tether_rules_reads_the_declaration(d: object) -> None:
    from tether.loops.detectors import Detector

    assert isinstance(d, Detector)
    entry = explain(d.code)
    assert entry is not None
    assert (entry.name, entry.summary, entry.instead, entry.match) == (
        d.name,
        d.summary,
        d.instead,
        d.examples,
    )
    assert entry.why.startswith(d.why)
    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert f"\n## {d.code}\n" in doc and d.summary in doc


def test_the_docs_table_is_the_declarations() -> None:
    text = (ROOT / "docs" / "loops.md").read_text(encoding="utf-8")
    assert docs_table() in text, "regenerate the table with tether.loops.detectors.docs_table()"


def test_the_replay_report_explains_codes_from_the_declaration() -> None:
    from tether.model import Decision
    from tether.replay.run import Outcome, Step
    from tether.report.html import _glossary

    d = BY_CODE["TL211"]
    step = Step(0, "Edit", "Edit x", Decision(Action.WARN, (d.code,), "m"), None)
    page = _glossary([Outcome(None, [step])])  # type: ignore[arg-type]
    assert d.summary in page and d.instead in page


def test_the_guard_runs_every_declared_detector() -> None:
    assert set(ON_BEFORE) | set(ON_AFTER) | set(ON_MESSAGE) | {BY_CODE["TL208"]} == set(ALL)
    assert len({d.code for d in ALL}) == len({d.key for d in ALL}) == len(ALL)


def _long_functions(path: Path, limit: int = 60) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1})"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > limit
    ]


def test_no_function_in_the_guard_or_the_loops_is_over_60_lines() -> None:
    paths = [SRC / "guard.py", *sorted((SRC / "loops").rglob("*.py"))]
    long = [entry for path in paths for entry in _long_functions(path)]
    assert long == []
