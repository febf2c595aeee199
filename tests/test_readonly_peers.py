"""Peers' read/write vectors: no peer-labelled write is read-only, reads are recalled ≥ 97 %.

Every disagreement with a peer is a decision recorded in tests/data/readonly_divergences.jsonl
(command, peer, the peer's label, and why Tether differs); an entry that no longer differs
fails too, so the list cannot go stale. A peer's write or dangerous label is overruled only by
evidence: the row's ``oracle`` field is what ``tether verify`` saw when it ran the command in
its sandbox, "no change (exit N)", and tests/test_verify_divergences.py runs them all again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.rules import readonly
from tether.rules.readonly import Tree
from tether.shell import parse_command

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
PEERS = (
    "commands_codex",
    "commands_qwen_code",
    "commands_gemini_cli",
    "commands_agentguard_eval",
    "hermes_commands",
)
# Peers whose dangerous/hardline labels are also checked: none of those may be read-only.
DANGER_PEERS = (
    *PEERS,
    "commands_claude_code_safety_net",
    "commands_dcg",
    "commands_hermes_agent",
)
DIVERGENCES = ROOT / "tests" / "data" / "readonly_divergences.jsonl"

Key = tuple[str, str, str]  # (peer, label, command)
LOUD = ("dangerous", "hardline")


# A clean working tree and home (paths holding nothing): peers label `cd ~/repo && git status`
# a read, which is proven when the host gives the tree (RW029 without: test_readonly_tree.py).
_CLEAN = Tree("/nonexistent/tether-clean-tree", "/nonexistent/tether-home")


def _vectors() -> dict[Key, bool]:
    assert CORPUS.is_dir(), f"peer corpus missing: expected {CORPUS} (../shared/corpus)"
    out: dict[Key, bool] = {}
    for peer in DANGER_PEERS:
        labels = ("read", "write", "dangerous", "hardline") if peer in PEERS else LOUD
        for line in (CORPUS / "peers" / f"{peer}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["expect"] in labels:
                key = (peer, row["expect"], row["command"])
                if key not in out:
                    out[key] = readonly.assess(parse_command(row["command"]), _CLEAN).read_only
    return out


def _divergences() -> dict[Key, str]:
    out: dict[Key, str] = {}
    for n, line in enumerate(DIVERGENCES.read_text(encoding="utf-8").splitlines(), start=1):
        row = json.loads(line)
        if row["label"] == "read":
            assert set(row) == {"command", "peer", "label", "reason"}, f"line {n}: {sorted(row)}"
        else:  # overruling a write or dangerous label takes the oracle's evidence
            assert set(row) == {"command", "peer", "label", "reason", "oracle"}, f"line {n}"
            # "no change (exit 0)" is evidence; "no change, but not exercised: exit N" (the
            # command failed before any write it might make) is weaker, and says so.
            assert row["oracle"].startswith("no change"), f"line {n}: {row['oracle']}"
        assert row["peer"] in DANGER_PEERS, f"line {n}: unknown peer"
        assert row["label"] in ("read", "write", *LOUD), f"line {n}: unknown label"
        assert len(row["reason"]) >= 20, f"line {n}: give a real reason"
        key = (row["peer"], row["label"], row["command"])
        assert key not in out, f"line {n}: duplicate divergence"
        out[key] = row["reason"]
    return out


@pytest.fixture(scope="module")
def vectors() -> dict[Key, bool]:
    return _vectors()


@pytest.fixture(scope="module")
def divergences() -> dict[Key, str]:
    return _divergences()


def test_no_peer_write_is_read_only_unless_listed(
    vectors: dict[Key, bool], divergences: dict[Key, str]
) -> None:
    leaks = [k for k, ro in vectors.items() if k[1] == "write" and ro and k not in divergences]
    assert leaks == []


def test_every_missed_peer_read_is_listed(
    vectors: dict[Key, bool], divergences: dict[Key, str]
) -> None:
    misses = [k for k, ro in vectors.items() if k[1] == "read" and not ro and k not in divergences]
    assert misses == []


def test_no_peer_dangerous_command_is_read_only_unless_listed(
    vectors: dict[Key, bool], divergences: dict[Key, str]
) -> None:
    leaks = [k for k, ro in vectors.items() if k[1] in LOUD and ro and k not in divergences]
    assert leaks == []


def test_read_recall_is_at_least_97_percent(vectors: dict[Key, bool]) -> None:
    reads = [ro for k, ro in vectors.items() if k[1] == "read"]
    assert len(reads) >= 100
    assert sum(reads) / len(reads) >= 0.97, f"{sum(reads)} of {len(reads)} reads recalled"


def test_every_divergence_still_diverges(
    vectors: dict[Key, bool], divergences: dict[Key, str]
) -> None:
    stale = []
    for key in divergences:
        assert key in vectors, f"divergence for a vector that does not exist: {key}"
        peer_says_read = key[1] == "read"
        if vectors[key] == peer_says_read:
            stale.append(key)
    assert stale == []
