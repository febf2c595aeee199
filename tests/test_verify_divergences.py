"""The evidence behind every overruled peer label: each listed write or dangerous vector that
Tether calls read-only runs in the execution oracle and must change nothing, exactly as the
row's ``oracle`` field records (tests/data/readonly_divergences.jsonl)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tether import classify_command
from tether.verify import Oracle, sandbox_problem

ROWS = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "readonly_divergences.jsonl")
    .read_text(encoding="utf-8")
    .splitlines()
]
OVERRULED = [r for r in ROWS if r["label"] != "read"]


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    assert sandbox_problem() is None, f"the oracle tests need a sandbox: {sandbox_problem()}"
    with Oracle(timeout=10) as o:
        yield o


def test_the_overruled_rows_are_all_there() -> None:
    # 62 write and 13 dangerous rows were overruled; `cat -l file.txt` and `ls -z` no longer
    # are (an option the spec does not list is refused now, as the peer said). Four qwen
    # `find . -PRIMARY -delete` rows (-delete is the primary's value, by the one find reading)
    # and `command -pvV -- git reset --hard` (a lookup) joined them, and so did `echo $(pwd)`
    # and `echo $(cat $(ls))` when a substitution became proven by its inner commands. Round 3
    # (one sed/awk reader, shell start-up options): six rows Tether now refuses as the peers
    # did (`bash -lc …` x4, `zsh << END`, `sed -n xp`) left; 13 qwen `write` labels the real
    # tools show only read joined (8 awk programs, 3 `git branch --list`, 2 `sed -e…install`).
    assert len(OVERRULED) == 62 + 13 - 2 + 4 + 1 + 2 - 6 + 13
    assert all(classify_command(r["command"]).read_only for r in OVERRULED)


@pytest.mark.parametrize("row", OVERRULED, ids=lambda r: f"{r['peer']}:{r['command'][:40]}")
def test_overruled_write_changes_nothing(oracle: Oracle, row: dict[str, Any]) -> None:
    verdict = oracle.run(row["command"])
    assert verdict.changed is False, verdict
    assert verdict.reason == row["oracle"], (verdict.reason, verdict.stderr[-300:])
