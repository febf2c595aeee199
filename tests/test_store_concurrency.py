"""No lost updates: 8 real processes × 25 read-modify-writes on one session leave exactly 200.

Each worker is a separate Python process, like a hook; they wait on a start file so their
updates overlap, and each update function sleeps a little between reading and returning, to
widen the window in which a non-atomic store would lose an update.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tether.store import Store
from tether.store.redis_store import RedisStore
from tether.store.sqlite import SQLiteStore

WORKERS = 8
UPDATES = 25

WORKER = r"""
import json, os, sys, time
backend, target, prefix, go, worker = sys.argv[1:6]
if backend == "sqlite":
    from tether.store.sqlite import SQLiteStore
    store = SQLiteStore(target)
else:
    from tether.store.redis_store import RedisStore
    store = RedisStore(target, key_prefix=prefix)
runs = 0
def bump(state):
    global runs
    runs += 1
    state = dict(state or {"calls": 0, "by": {}})
    time.sleep(0.0005)
    state["calls"] += 1
    state["by"][worker] = state["by"].get(worker, 0) + 1
    return state
while not os.path.exists(go):
    time.sleep(0.001)
for _ in range(int(os.environ["UPDATES"])):
    store.update("shared", bump)
store.close()
print(json.dumps({"runs": runs}))
"""


def run_workers(backend: str, target: str, prefix: str, tmp_path: Path) -> list[int]:
    """Start the workers, release them together, return how often each ran its function."""
    go = tmp_path / "go"
    env = {"UPDATES": str(UPDATES), "PATH": "/usr/bin:/bin"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, backend, target, prefix, str(go), f"w{i}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
        for i in range(WORKERS)
    ]
    time.sleep(0.3)  # let the interpreters start and reach the start line
    go.touch()
    runs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        runs.append(json.loads(out)["runs"])
    return runs


def check(store: Store) -> None:
    state = store.load("shared")
    assert state is not None
    assert state["calls"] == WORKERS * UPDATES
    assert state["by"] == {f"w{i}": UPDATES for i in range(WORKERS)}


@pytest.mark.slow
def test_sqlite_loses_no_update_under_8_writer_processes(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    runs = run_workers("sqlite", str(path), "", tmp_path)
    assert runs == [UPDATES] * WORKERS  # under BEGIN IMMEDIATE each function runs once
    store = SQLiteStore(path)
    check(store)
    store.close()


@pytest.mark.slow
@pytest.mark.redis
def test_redis_loses_no_update_under_8_writer_processes(
    tmp_path: Path, redis_server: str, redis_prefix: str
) -> None:
    runs = run_workers("redis", redis_server, redis_prefix, tmp_path)
    # Optimistic concurrency re-runs a function whose read went stale; none is lost.
    assert all(r >= UPDATES for r in runs)
    store = RedisStore(redis_server, key_prefix=redis_prefix)
    check(store)
    store.close()
