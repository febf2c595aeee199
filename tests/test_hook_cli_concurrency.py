"""No lost updates through the hook: concurrent hook processes of one session, real SQLite file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tether.config import load_config
from tether.store.open import open_store

TETHER = Path(sys.executable).with_name("tether")
WORKERS, EVENTS = 8, 25


def _event(name: str, session: str, n: int, cwd: Path) -> str:
    payload = {
        "session_id": session,
        "transcript_path": "/t.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": name,
        "tool_name": "Bash",
        "tool_input": {"command": f"cat file{n % 7}.txt"},
        "tool_response": {
            "stdout": f"line {n}",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
        },
        "tool_use_id": f"toolu_{n:05d}",
    }
    if name == "PreToolUse":
        del payload["tool_response"]
    return json.dumps(payload)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("backend", "events"),
    [
        ("sqlite", ("PostToolUse",)),
        ("sqlite", ("PreToolUse", "PostToolUse")),
        ("redis", ("PostToolUse",)),
    ],
    ids=["sqlite-post-only", "sqlite-pre-then-post", "redis-post-only"],
)
def test_concurrent_hook_processes_lose_no_update(
    backend: str, events: tuple[str, ...], tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        (tmp_path / name).mkdir()
        env[name] = str(tmp_path / name)
    env["HOME"] = str(tmp_path)
    # A loaded 2-core machine must not turn into denies: the most any layer may set.
    env["TETHER_HOOKS__DEADLINE"] = "25"
    if backend == "redis":
        env["TETHER_STORE__BACKEND"] = "redis"
        env["TETHER_STORE__URL"] = request.getfixturevalue("redis_server")
        env["TETHER_STORE__KEY_PREFIX"] = f"hookconc-{tmp_path.name}:"
    project = tmp_path / "project"
    project.mkdir()

    def worker(w: int) -> list[int]:
        codes = []
        for i in range(EVENTS):
            for name in events:
                proc = subprocess.run(
                    [str(TETHER), "hook", "claude-code"],
                    input=_event(name, "shared", w * EVENTS + i, project),
                    capture_output=True,
                    text=True,
                    env=env,
                    cwd=project,
                    timeout=120,
                )
                assert "could not" not in proc.stdout, proc.stdout
                codes.append(proc.returncode)
        return codes

    with ThreadPoolExecutor(WORKERS) as pool:
        codes = [c for batch in pool.map(worker, range(WORKERS)) for c in batch]
    assert codes == [0] * (WORKERS * EVENTS * len(events))
    config = load_config(cwd=project, environ=env)
    store = open_store(config, environ=env)
    try:
        state = store.load("shared")
    finally:
        store.close()
    assert state is not None
    assert state["calls"] == WORKERS * EVENTS
