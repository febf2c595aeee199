"""``tether stats`` over a real SQLite store written by real ``tether hook`` processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TETHER = Path(sys.executable).with_name("tether")
LOOP = "gh api repos/o/r/pulls/1/reviews 2>&1"


@pytest.fixture
def sandbox(tmp_path: Path) -> tuple[dict[str, str], Path]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        (tmp_path / name).mkdir()
        env[name] = str(tmp_path / name)
    env["HOME"] = str(tmp_path)
    (tmp_path / "project").mkdir()
    return env, tmp_path / "project"


def hook(env: dict[str, str], cwd: Path, payload: dict[str, Any]) -> None:
    proc = subprocess.run(
        [str(TETHER), "hook", "claude-code"],
        input=json.dumps({"cwd": str(cwd), "permission_mode": "default", **payload}),
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )
    assert proc.returncode in (0, 2), proc.stderr


def bash(env: dict[str, str], cwd: Path, session: str, command: str, n: int) -> None:
    base = {"session_id": session, "tool_name": "Bash", "tool_input": {"command": command}}
    hook(env, cwd, {**base, "hook_event_name": "PreToolUse", "tool_use_id": f"t{n}"})
    response = {"stdout": "[]", "stderr": "", "interrupted": False, "isImage": False}
    hook(
        env,
        cwd,
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_use_id": f"t{n}",
            "tool_response": response,
        },
    )


def stats(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TETHER), "stats", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=60
    )


def test_stats_over_sessions_written_by_hooks(sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    for n in range(5):
        bash(env, project, "looping", LOOP, n)
    bash(env, project, "looping", "rm -rf /", 9)
    bash(env, project, "quiet", "ls -la", 0)
    proc = stats(env, project, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["sessions"] == 2 and doc["calls"] == 7
    codes = {row["code"]: row["count"] for row in doc["codes"]}
    assert codes["TA104"] == 1 and codes["DG101"] == 1
    assert codes["TL201"] >= 3  # the read-only loop, warned from its second repeat
    assert doc["interventions"] == sum(s["interventions"] for s in doc["top_sessions"])
    assert [s["session"] for s in doc["top_sessions"]] == ["looping"]
    top = doc["top_repeats"][0]
    assert top["session"] == "looping" and LOOP in top["call"] and top["same_result"] >= 4

    text = stats(env, project).stdout
    assert (
        "interventions per code:" in text and "TL201" in text and "idempotent-no-progress" in text
    )
    assert "looping" in text and "gh api" in text


def test_an_empty_store_says_so(sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    proc = stats(env, project)
    assert proc.returncode == 0 and "no sessions recorded yet" in proc.stdout


def test_a_bad_top_is_a_usage_error(sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    proc = stats(env, project, "--top", "0")
    assert proc.returncode == 2 and "--top" in proc.stderr


def test_stats_over_a_redis_fleet_store(
    sandbox: tuple[dict[str, str], Path], redis_server: str, redis_prefix: str
) -> None:
    from tether import Guard, ToolCall, ToolResult
    from tether.store.redis_store import RedisStore

    store = RedisStore(redis_server, key_prefix=redis_prefix, ttl_days=7)
    try:
        for host in ("worker-1", "worker-2"):
            guard = Guard(store=store)
            for n in range(4 if host == "worker-1" else 1):
                call = ToolCall(host, "Read", {"file_path": "a.py"}, f"c{n}")
                guard.before_call(call)
                guard.after_call(ToolResult(call, output="same"))
    finally:
        store.close()
    env, project = sandbox
    sets = ["--set", "store.backend=redis", "--set", f"store.url={redis_server}"]
    proc = stats(env, project, "--json", *sets, "--set", f"store.key_prefix={redis_prefix}")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["sessions"] == 2 and doc["calls"] == 5
    assert [s["session"] for s in doc["top_sessions"]] == ["worker-1"]
    assert {r["code"] for r in doc["codes"]} == {"TL201"}
