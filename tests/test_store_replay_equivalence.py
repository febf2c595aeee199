"""Every decision over the 75 real sessions is the same whichever store keeps the state.

The SQLite and Redis stores write only what a call changed and reuse the state they last wrote
(a second model of the state, kept in parts): replaying every real session (5,613 calls, hard
stops on) through a memory store and through two SQLite and two Redis store objects taking
turns (two hook processes, so copies go stale and are caught up) must give identical decisions,
codes and messages, call by call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tether.config import DEFAULT_CONFIG
from tether.guard import Guard
from tether.model import Decision, ToolCall, ToolResult
from tether.replay.formats import split_result
from tether.store.memory import MemoryStore
from tether.store.redis_store import RedisStore
from tether.store.sqlite import SQLiteStore

HARD = DEFAULT_CONFIG.with_values({"loops.hard_stop": True})  # the corpus tests' configuration


def _sessions(corpus: Path) -> list[list[tuple[str, dict[str, Any], Any, int | None]]]:
    sessions = []
    for path in sorted((corpus / "real" / "trajectories").glob("*.jsonl")):
        calls = []
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "meta" in row or not isinstance(row.get("tool"), str):
                continue
            output, code = split_result(row.get("result"))
            exit_code = row.get("exit_code", code)
            code = exit_code if isinstance(exit_code, int) else None
            calls.append((row["tool"], dict(row.get("args") or {}), output, code))
        sessions.append(calls)
    return sessions


def _said(d: Decision) -> tuple[Any, ...]:
    return d.action, d.codes, d.message


def _decisions(guards: list[Guard], corpus: Path) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for n, calls in enumerate(_sessions(corpus)):
        for i, (tool, args, output, code) in enumerate(calls):
            guard = guards[(i // 5) % len(guards)]
            call = ToolCall(f"s{n}", tool, args, f"c{i}", None, 1_700_000_000.0 + 3 * i)
            before = guard.before_call(call)
            out.append(_said(before))
            if before.allowed:
                result = ToolResult(call, output, code, bool(code), 1_700_000_001.0 + 3 * i)
                out.append(_said(guards[(i // 3) % len(guards)].after_call(result)))
    return out


def test_sqlite_and_redis_decide_every_real_call_as_memory_does(
    tmp_path: Path, corpus_dir: Path, redis_server: str, redis_prefix: str
) -> None:
    expected = _decisions([Guard(HARD, MemoryStore())], corpus_dir)
    assert len(expected) > 10_000
    assert sum(1 for action, _, _ in expected if action.name != "ALLOW") >= 10
    path = tmp_path / "state.db"
    sqlite = [SQLiteStore(path), SQLiteStore(path)]
    assert _decisions([Guard(HARD, s) for s in sqlite], corpus_dir) == expected
    redis = [RedisStore(redis_server, key_prefix=redis_prefix) for _ in range(2)]
    assert _decisions([Guard(HARD, s) for s in redis], corpus_dir) == expected
    for store in (*sqlite, *redis):
        store.close()
