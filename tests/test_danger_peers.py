"""Acceptance against the peers' labelled vectors and the 30,000 real agent commands.

Peers (dcg, claude-code-safety-net, Codex, Hermes) label commands ``dangerous``/``hardline`` (must
be flagged) and ``safe``/``not_hardline`` (must not be flagged / must not be hardline). Where
Tether deliberately disagrees, ``tests/data/danger_divergences.jsonl`` says why; those rows are
left out of the recall and false-positive figures (never out of the hardline check).
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from tether.rules.base import Danger
from tether.rules.danger import assess
from tether.shell import parse_command

DIVERGENCES = Path(__file__).resolve().parent / "data" / "danger_divergences.jsonl"
PEER_FILES = {
    "dcg": "commands_dcg.jsonl",
    "claude_code_safety_net": "commands_claude_code_safety_net.jsonl",
    "codex": "commands_codex.jsonl",
    "hermes_agent": "commands_hermes_agent.jsonl",
    "hermes_commands": "hermes_commands.jsonl",
}
LABELS = ("dangerous", "hardline", "safe", "not_hardline")
Row = tuple[str, str, str]  # (peer, label, command)


@cache
def _level(command: str) -> Danger:
    return assess(parse_command(command)).level


def _rows(corpus: Path) -> list[Row]:
    rows: list[Row] = []
    for peer, name in PEER_FILES.items():
        path = corpus / "peers" / name
        assert path.is_file(), f"missing peer corpus {path}"
        for line in path.read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            if d["expect"] in LABELS:
                rows.append((peer, d["expect"], d["command"]))
    return rows


def _divergences() -> dict[Row, str]:
    out: dict[Row, str] = {}
    for n, line in enumerate(DIVERGENCES.read_text(encoding="utf-8").splitlines(), 1):
        d = json.loads(line)
        assert set(d) == {"command", "peer", "label", "reason"}, f"{DIVERGENCES.name}:{n}: keys"
        assert d["reason"].strip(), f"{DIVERGENCES.name}:{n}: every divergence needs a reason"
        out[(d["peer"], d["label"], d["command"])] = d["reason"]
    return out


@pytest.fixture(scope="module")
def rows(corpus_dir: Path) -> list[Row]:
    return _rows(corpus_dir)


def test_divergences_are_real_rows_that_really_diverge(rows: list[Row]) -> None:
    present = set(rows)
    stale = []
    for (peer, label, command), _reason in _divergences().items():
        assert (peer, label, command) in present, (
            f"divergence not in the corpus: {peer} {label} {command!r}"
        )
        flagged = _level(command) is not Danger.NONE
        if flagged == (label in ("dangerous", "hardline")):
            stale.append((peer, label, command))
    assert not stale, f"these divergences now agree with the peer; remove them: {stale}"


def test_recall_on_dangerous_and_hardline_labels(rows: list[Row]) -> None:
    skip = _divergences()
    positives = [r for r in rows if r[1] in ("dangerous", "hardline") and r not in skip]
    missed = [r for r in positives if _level(r[2]) is Danger.NONE]
    assert len(positives) > 1000
    # Every label outside the divergence list is met: a miss is fixed or listed with its reason.
    assert missed == [], f"{len(missed)} of {len(positives)} missed: {missed[:10]}"


def test_false_positives_on_safe_labels(rows: list[Row]) -> None:
    skip = _divergences()
    negatives = [r for r in rows if r[1] == "safe" and r not in skip]
    flagged = [r for r in negatives if _level(r[2]) is not Danger.NONE]
    assert len(negatives) > 1000
    assert flagged == [], f"{len(flagged)} of {len(negatives)} safe labels flagged: {flagged[:10]}"


def test_hardline_never_fires_on_safe_or_not_hardline(rows: list[Row]) -> None:
    wrong = [
        r for r in rows if r[1] in ("safe", "not_hardline") and _level(r[2]) is Danger.HARDLINE
    ]
    assert not wrong, f"hardline on rows a peer calls safe / not hardline: {wrong}"


def test_hermes_hardline_labels_are_flagged(rows: list[Row]) -> None:
    hard = [r for r in rows if r[1] == "hardline"]
    levels = Counter(_level(r[2]) for r in hard)
    assert levels[Danger.NONE] == 0, [r for r in hard if _level(r[2]) is Danger.NONE]
    # Most stay hardline here too; the rest ask (sudo -S is an approval floor, dynamic words ask).
    assert levels[Danger.HARDLINE] >= 0.85 * len(hard), levels


# Every hardline hit on the real corpus was looked at by hand (docs/approval.md); a new one must
# be looked at too, so the list is pinned.
EXPECTED_REAL_HARDLINE: frozenset[str] = frozenset()


def test_real_commands(corpus_dir: Path) -> None:
    path = corpus_dir / "real" / "commands.jsonl"
    assert path.is_file(), f"missing {path}"
    commands = [
        json.loads(line)["command"] for line in path.read_text(encoding="utf-8").splitlines()
    ]
    assert len(commands) >= 30_000
    levels = {c: assess(parse_command(c)).level for c in set(commands)}
    counts = Counter(levels[c] for c in commands)
    hardline = {c for c, lvl in levels.items() if lvl is Danger.HARDLINE}
    assert hardline == EXPECTED_REAL_HARDLINE, (
        f"new hardline hits to review by hand: {sorted(hardline)}"
    )
    # hermes-agent flags about 3% of these; Tether asks about 0.1% (30 of 30,601; issue 13 holds
    # it at 0.2% or less).
    assert counts[Danger.ASK] <= 0.002 * len(commands), counts
