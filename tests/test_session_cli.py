"""``tether session list|show|reset`` through ``tether.cli.main``, on real stores."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tether.cli import main
from tether.store import State
from tether.store.redis_store import RedisStore
from tether.store.sqlite import SQLiteStore

T0 = 1_800_000_000.0  # 2027-01-15 08:00:00 UTC

BUSY: State = {
    "calls": 42,
    "warnings": 2,
    "blocks": 1,
    "streaks": {"exact_failure": 3, "cycle": 0, "idempotent_no_progress": 5},
    "updated": T0 - 60,
    "window": [["Bash", "ab12cd34ef56", 0]] * 20,
    "turn": {"calls": 5},
}
QUIET: State = {"calls": 1, "warnings": 0, "blocks": 0, "streaks": {}, "updated": T0}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in an empty directory with no config files and no TETHER_* variables."""
    for name in list(os.environ):
        if name.startswith("TETHER_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return tmp_path


def seed(path: Path, states: dict[str, tuple[float, State]]) -> None:
    """Write states as the guard would, each with its own update time."""
    for sid, (when, state) in states.items():
        store = SQLiteStore(path, clock=lambda when=when: when)
        store.update(sid, lambda _, state=state: state)
        store.close()


@pytest.fixture
def db(home: Path) -> Path:
    path = home / "s.db"
    seed(path, {"sess-busy-1": (T0 - 60, BUSY), "quiet": (T0, QUIET)})
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_list_shows_sessions_newest_first_with_their_counts(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "session", "list", "--set", f"store.path={db}")
    assert status == 0
    assert out.splitlines() == [
        "SESSION      UPDATED                   CALLS   WARN  BLOCK",
        "quiet        2027-01-15 08:00:00 UTC       1      0      0",
        "sess-busy-1  2027-01-15 07:59:00 UTC      42      2      1",
    ]


def test_list_json(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "session", "list", "--json", "--set", f"store.path={db}")
    assert status == 0
    rows = json.loads(out)
    for row in rows:
        assert row.pop("size") > 0
    assert rows == [
        {"session_id": "quiet", "updated": T0, "calls": 1, "warnings": 0, "blocks": 0},
        {"session_id": "sess-busy-1", "updated": T0 - 60, "calls": 42, "warnings": 2, "blocks": 1},
    ]


def test_list_of_an_empty_store_says_where_it_looked(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "session", "list")
    default = home / "state" / "tether" / "state.db"
    assert (status, out) == (0, f"no sessions recorded in {default}\n")


def test_the_store_path_can_come_from_the_environment(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_STORE__PATH", str(db))
    status, out, _ = run(capsys, "session", "list", "--json")
    assert status == 0
    assert [row["session_id"] for row in json.loads(out)] == ["quiet", "sess-busy-1"]


def test_show_prints_counts_live_streaks_and_the_rest_compactly(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "session", "show", "sess-busy-1", "--set", f"store.path={db}")
    assert status == 0
    lines = out.splitlines()
    assert lines[:2] == ["session   sess-busy-1", f"store     {db}"]
    assert lines[2].startswith("updated   2027-01-15 07:59:00 UTC (")
    assert lines[3:9] == [
        "calls     42",
        "warnings  2",
        "blocks    1",
        "streaks   idempotent_no_progress 5, exact_failure 3",
        "other state:",
        '  window  20 items: [["Bash","ab12cd34ef56",0],["Bash","ab12cd34ef56",0],'
        '["Bash","ab12cd34ef56",0],["Bash…',
    ]
    assert lines[9:] == ['  turn    {"calls":5}']


def test_show_json_is_the_whole_state(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "session", "show", "quiet", "--json", "--set", f"store.path={db}")
    assert status == 0
    assert json.loads(out) == {"session_id": "quiet", "state": QUIET}


def test_show_accepts_a_unique_prefix(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "session", "show", "sess", "--json", "--set", f"store.path={db}")
    assert status == 0
    assert json.loads(out)["session_id"] == "sess-busy-1"


@pytest.mark.parametrize(
    ("extra", "argv", "expected"),
    [
        ({}, ["show", "nobody"], "no session 'nobody' recorded in"),
        (
            {"sess-busy-2": (T0, QUIET)},
            ["show", "sess-busy"],
            "session 'sess-busy' is ambiguous",
        ),
        ({}, ["reset", "nobody"], "no session 'nobody' recorded in"),
        ({}, ["reset", "sess"], "no session 'sess' recorded in"),  # reset wants the exact id
    ],
)
def test_unknown_or_ambiguous_ids_exit_2_with_the_reason(
    extra: dict[str, tuple[float, State]],
    argv: list[str],
    expected: str,
    db: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seed(db, extra)
    status, out, err = run(capsys, "session", *argv, "--set", f"store.path={db}")
    assert (status, out) == (2, "")
    assert err.startswith("tether session: ")
    assert expected in err


def test_reset_forgets_exactly_one_session(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "session", "reset", "sess-busy-1", "--set", f"store.path={db}")
    assert (status, out) == (0, f"forgot session sess-busy-1 in {db}\n")
    store = SQLiteStore(db)
    assert store.load("sess-busy-1") is None
    assert store.load("quiet") == QUIET
    store.close()


def test_no_action_exits_2(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "session")
    assert status == 2
    assert "choose an action: list, show ID or reset ID" in err


def test_a_corrupt_store_exits_2_naming_the_file_and_the_fix(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = home / "bad.db"
    bad.write_bytes(b"garbage" * 500)
    status, out, err = run(capsys, "session", "list", "--set", f"store.path={bad}")
    assert (status, out) == (2, "")
    assert f"{bad}: the state database is corrupt" in err
    assert "tether doctor --fix" in err


def test_list_shows_a_session_with_unreadable_state_instead_of_failing(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with sqlite3.connect(db) as conn:  # a damaged head part (schema 2 stores a session in parts)
        conn.execute("INSERT OR REPLACE INTO parts VALUES ('quiet', 'h', '{oops')")
    status, out, _ = run(capsys, "session", "list", "--set", f"store.path={db}")
    assert status == 0
    assert out.splitlines() == [
        "SESSION      UPDATED                   CALLS   WARN  BLOCK",
        "quiet        2027-01-15 08:00:00 UTC  unreadable state",
        "sess-busy-1  2027-01-15 07:59:00 UTC      42      2      1",
        "1 session(s) hold unreadable state; forget one with 'tether session reset quiet'",
    ]
    status, out, _ = run(capsys, "session", "list", "--json", "--set", f"store.path={db}")
    quiet = json.loads(out)[0]
    assert quiet["session_id"] == "quiet"
    assert "session 'quiet' holds unreadable state" in quiet["error"]
    status, _, err = run(capsys, "session", "show", "quiet", "--set", f"store.path={db}")
    assert status == 2 and "tether session reset quiet" in err
    status, _, _ = run(capsys, "session", "reset", "quiet", "--set", f"store.path={db}")
    assert status == 0


def test_sessions_in_redis(
    home: Path, capsys: pytest.CaptureFixture[str], redis_server: str, redis_prefix: str
) -> None:
    store = RedisStore(redis_server, key_prefix=redis_prefix)
    store.update("fleet-7", lambda _: BUSY)
    store.close()
    options: list[Any] = [
        "--set",
        "store.backend=redis",
        "--set",
        f"store.url={redis_server}",
        "--set",
        f"store.key_prefix={redis_prefix}",
    ]
    status, out, _ = run(capsys, "session", "list", "--json", *options)
    assert status == 0
    assert [(r["session_id"], r["calls"]) for r in json.loads(out)] == [("fleet-7", 42)]
    status, out, _ = run(capsys, "session", "reset", "fleet-7", *options)
    assert (status, out) == (0, f"forgot session fleet-7 in {redis_server}\n")
    status, out, _ = run(capsys, "session", "list", *options)
    assert (status, out) == (0, f"no sessions recorded in {redis_server}\n")
