"""Fingerprints: what counts as the same call and the same result, and what never does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.loops.fingerprint import (
    call_signature,
    canonical_args,
    canonical_result,
    result_fingerprint,
)

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
TRAJECTORIES = CORPUS / "real" / "trajectories"
if not TRAJECTORIES.is_dir():
    raise RuntimeError(f"corpus missing: expected {TRAJECTORIES}")

SAME_CALLS = [
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
    ({"command": "ls -la", "description": "List"}, {"command": "ls -la", "description": "Look"}),
    ({"command": "ls  -la "}, {"command": "ls -la"}),
    ({"path": "x", "thought": "maybe"}, {"path": "x", "thought": "surely"}),
]
DIFFERENT_CALLS = [
    ({"a": 1}, {"a": 2}),
    ({"command": "ls -la"}, {"command": "ls -l"}),
    ({"command": "echo 'a  b'"}, {"command": "echo 'a b'"}),  # quoted runs are content
    ({"path": "x"}, {"path": "x", "limit": 10}),
]


@pytest.mark.parametrize(("a", "b"), SAME_CALLS)
def test_calls_that_are_the_same(a: dict[str, object], b: dict[str, object]) -> None:
    assert call_signature("Bash", a, "command") == call_signature("Bash", b, "command")


@pytest.mark.parametrize(("a", "b"), DIFFERENT_CALLS)
def test_calls_that_differ(a: dict[str, object], b: dict[str, object]) -> None:
    assert call_signature("Bash", a, "command") != call_signature("Bash", b, "command")


def test_the_tool_name_is_part_of_the_signature() -> None:
    assert call_signature("Read", {"path": "x"}) != call_signature("Grep", {"path": "x"})


def test_canonical_args_is_sorted_compact_json() -> None:
    assert canonical_args({"b": 1, "a": " x ", "description": "d"}) == '{"a":"x","b":1}'


SAME_RESULTS = [
    ("Finished `dev` profile in 0.20s", "Finished `dev` profile in 0.18s"),
    ("3 passed in 0.12s", "3 passed in 1.03s"),
    ("real\t0m1.234s", "real\t0m2.001s"),
    ("took 1.5 seconds", "took 12 seconds"),
    ("\x1b[31mred\x1b[0m text", "red text"),
    ("started 2025-12-23T01:42:05Z", "started 2025-12-24T11:02:59.123+01:00"),
    ("at 12:01:33 build", "at 23:59:01 build"),
    ("id f47ac10b-58cc-4372-a567-0e02b2c3d479", "id 9b2d6c1e-0a1b-4c2d-8e3f-123456789abc"),
    ("<object at 0x7f3a2b1c>", "<object at 0x55d0aa01>"),
    ("wrote /tmp/tmpab12cd_x/out.txt", "wrote /tmp/tmpzz99qq_y/out.txt"),
    (
        "Command still running (session sess-0, pid 1000)",
        "Command still running (session s-9, pid 77)",
    ),
    ("spin \u280b\rspin \u2819\rdone", "done"),
    ('{"b": 1, "a": [1, 2]}', '{"a":[1,2],"b":1}'),
    (
        '{"ok": true, "runId": "run_1", "durationMs": 5}',
        '{"ok": true, "runId": "run_2", "durationMs": 9}',
    ),
    ('{"receipt": {"platformMessageId": "p_1"}}', '{"receipt": {"platformMessageId": "p_2"}}'),
    (
        '{"n": 1, "createdAt": "x", "updated_at": "y"}',
        '{"n": 1, "createdAt": "z", "updated_at": "w"}',
    ),
    ('{"n": 1, "startTime": 5, "elapsed_ms": 2}', '{"n": 1, "startTime": 6, "elapsed_ms": 3}'),
    ("epoch 1766451725", "epoch 1766452000"),
]
DIFFERENT_RESULTS = [
    ("3 failed, 2 passed", "2 failed, 3 passed"),
    ("error at line 42", "error at line 43"),
    ("No ready issues available", "Issue #802 is ready"),
    ("[]", '[{"state": "APPROVED"}]'),
    ('{"id": 3}', '{"id": 4}'),
    # Keys that only end or start like a timing are data: GitHub search's `items`, pytest's
    # `tests`, a `format`, `params`, a `tsconfig` path.
    ('{"total_count": 1, "items": [{"n": 1}]}', '{"total_count": 1, "items": [{"n": 2}]}'),
    ('{"tests": [{"outcome": "failed"}]}', '{"tests": [{"outcome": "passed"}]}'),
    ('{"format": "json"}', '{"format": "yaml"}'),
    ('{"params": {"a": 1}}', '{"params": {"a": 2}}'),
    ('{"tsconfig": "a.json"}', '{"tsconfig": "b.json"}'),
    ("version 1.2.3", "version 1.2.4"),
    ("", "\n"),
    (None, ""),
]


@pytest.mark.parametrize(("a", "b"), SAME_RESULTS)
def test_volatile_tokens_are_masked(a: str, b: str) -> None:
    assert result_fingerprint(a) == result_fingerprint(b), (
        canonical_result(a),
        canonical_result(b),
    )


@pytest.mark.parametrize(("a", "b"), DIFFERENT_RESULTS)
def test_real_changes_are_never_hidden(a: str | None, b: str) -> None:
    assert result_fingerprint(a) != result_fingerprint(b)


def test_exit_code_and_error_flag_are_part_of_the_result() -> None:
    assert result_fingerprint("x", 0) != result_fingerprint("x", 1)
    assert result_fingerprint("x", None, False) != result_fingerprint("x", None, True)


@pytest.mark.parametrize(
    "output",
    ["lone surrogate \ud800 here", b"\xff\xfe bytes", {"k": "\udfff"}, [1, {"a": None}], 3.5],
)
def test_odd_outputs_never_crash(output: object) -> None:
    assert len(result_fingerprint(output)) == 16


def test_deeply_nested_json_is_hashed_without_recursion() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert result_fingerprint(deep) != result_fingerprint("[]")


def test_a_megabyte_result_still_sees_a_change_in_the_middle() -> None:
    body = "".join(f"line {n}: ok\n" for n in range(80_000))
    changed = body[:500_000] + "X" + body[500_001:]
    assert len(body) > 1_000_000
    assert result_fingerprint(body) != result_fingerprint(changed)
    # …while a timing line at the end (the usual place) is still masked.
    assert result_fingerprint(body + "done in 0.5s") == result_fingerprint(body + "done in 9.1s")


def test_the_286_loop_results_all_fingerprint_alike() -> None:
    path = TRAJECTORIES / "claudecode_openagents_20251223_014205-call-issue-ready-now-to.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    loop = [r for r in rows if 149 <= r["i"] < 149 + 286]
    assert all(r["args"]["command"] == "cargo autopilot issue ready" for r in loop)
    raw = {r["result"] for r in loop}
    prints = {result_fingerprint(r["result"]) for r in loop}
    assert len(raw) > 1  # byte comparison sees many different results…
    assert len(prints) == 1  # …the masked fingerprint sees one


def _big_json(n: int, **envelope: object) -> dict[str, object]:
    items = [{"id": i, "title": f"issue {i}", "labels": [{"name": "bug"}]} for i in range(n)]
    return {**envelope, "items": items}


def test_a_big_json_result_loses_its_envelope_timings_and_key_order() -> None:
    a = json.dumps(_big_json(3000, ok=True, durationMs=5, requestId="r-1"))
    b = json.dumps(_big_json(3000, requestId="r-2", durationMs=917, ok=True), separators=(",", ":"))
    assert 100_000 < len(a) < 256 * 1024
    assert result_fingerprint(a) == result_fingerprint(b)


def test_a_big_json_result_still_shows_a_change_in_its_middle() -> None:
    data = _big_json(3000)
    a = json.dumps(data)
    data["items"][1500]["title"] = "issue 1500, reopened"
    assert result_fingerprint(a) != result_fingerprint(json.dumps(data))


def test_volatile_keys_deep_in_a_small_result_are_dropped() -> None:
    a = {"runs": [{"name": "lint", "steps": [{"ok": True, "elapsed": 1.5}]}]}
    b = {"runs": [{"name": "lint", "steps": [{"ok": True, "elapsed": 9.25}]}]}
    assert result_fingerprint(json.dumps(a)) == result_fingerprint(json.dumps(b))
    assert result_fingerprint(a) == result_fingerprint(b), "structured output too"
    assert a["runs"][0]["steps"][0]["elapsed"] == 1.5, "the caller's object is not changed"
