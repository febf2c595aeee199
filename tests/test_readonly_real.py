"""Real agent commands: the share proven read-only, and the reviewed top 200 writes.

tests/data/readonly_top_writes.jsonl records, for the 200 most frequent commands of
../shared/corpus/real/commands.jsonl that are classified as writes, why each is a true write.
When a rule change makes one of them read-only, or lets another command into the top 200,
this test fails until the review is redone: the review cannot drift silently.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.rules import readonly
from tether.rules.readonly import Tree
from tether.shell import parse_command

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "corpus" / "real" / "commands.jsonl"
REVIEW = ROOT / "tests" / "data" / "readonly_top_writes.jsonl"


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, int, bool]]:
    """Each command's verdict given a clean working tree and home (empty directories): the
    proof a host that passes its cwd gets (without one, ``git -C DIR``/``cd DIR && git`` are
    RW029: tests/test_readonly_tree.py)."""
    assert REAL.is_file(), f"real corpus missing: expected {REAL} (../shared/corpus)"
    clean = tmp_path_factory.mktemp("clean-tree")
    tree = Tree(str(clean), str(clean))
    out = []
    for line in REAL.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        ro = readonly.assess(parse_command(row["command"]), tree).read_only
        out.append((row["command"], int(row["n"]), ro))
    return out


def test_well_over_a_third_is_proven_read_only(verdicts: list[tuple[str, int, bool]]) -> None:
    distinct = sum(ro for _, _, ro in verdicts) / len(verdicts)
    weighted = sum(n for _, n, ro in verdicts if ro) / sum(n for _, n, _ in verdicts)
    assert len(verdicts) >= 30_000
    assert distinct >= 0.45, distinct
    assert weighted >= 0.40, weighted


def test_top_200_writes_match_the_review(verdicts: list[tuple[str, int, bool]]) -> None:
    ordered = sorted(verdicts, key=lambda v: -v[1])  # stable: ties keep the corpus order
    top = [(command, n) for command, n, ro in ordered if not ro][:200]
    review = [json.loads(line) for line in REVIEW.read_text(encoding="utf-8").splitlines()]
    assert [(r["command"], r["n"]) for r in review] == top
    for row in review:
        assert row["review"].startswith("write: ") and len(row["review"]) > 15, row
