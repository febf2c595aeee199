"""``tether replay`` as a newcomer runs it: many files, a broken one, a directory, stdin.

And what it shows: calls numbered from 1 (the numbers messages cite are the numbers the
timeline prints), every code of a collapsed run, one message per call, and after a halt the
rest of the turn as "after halt", not as more halts.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "loop.jsonl"
HARD = ("--set", "loops.hard_stop=true")


def tether(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tether", "replay", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        input=stdin,
        timeout=120,
    )


def write(path: Path, rows: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_broken_file_is_reported_and_the_others_still_run(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"meta": {}}\n{nope\n')
    proc = tether(str(EXAMPLE), str(broken), str(EXAMPLE), *HARD, "--json")
    assert proc.returncode == 2
    assert "broken.jsonl:2" in proc.stderr and "skipped" in proc.stderr
    doc = json.loads(proc.stdout)
    assert [f["file"] for f in doc["files"]] == [str(EXAMPLE), str(EXAMPLE)]
    assert doc["summary"]["files"] == 2 and doc["summary"]["files_failed"] == 1
    assert doc["summary"]["failed"][0]["file"] == str(broken)


def test_the_text_summary_comes_after_a_broken_file(tmp_path: Path) -> None:
    missing = tmp_path / "gone.jsonl"
    proc = tether(str(missing), str(EXAMPLE))
    assert proc.returncode == 2
    assert "gone.jsonl: no such file" in proc.stderr
    assert "summary: 1 file(s), 12 calls" in proc.stdout
    assert "1 file(s) could not be read" in proc.stdout


def test_good_files_exit_0() -> None:
    assert tether(str(EXAMPLE), str(EXAMPLE)).returncode == 0


def test_a_directory_is_walked_for_sessions(tmp_path: Path) -> None:
    (tmp_path / "d" / "deep").mkdir(parents=True)
    (tmp_path / "d" / "a.jsonl").write_text(EXAMPLE.read_text())
    chat = [
        {"role": "user", "content": "list"},
        {"role": "assistant", "tool_calls": [
            {"id": "c1", "function": {"name": "Bash", "arguments": "{\"command\": \"ls\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a"},
    ]  # fmt: skip
    (tmp_path / "d" / "deep" / "b.json").write_text(json.dumps(chat))
    (tmp_path / "d" / "README.md").write_text("not a session")
    proc = tether(str(tmp_path / "d"), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [Path(f["file"]).name for f in doc["files"]] == ["a.jsonl", "b.json"]
    assert doc["summary"]["calls"] == 13


def test_an_empty_directory_is_an_error(tmp_path: Path) -> None:
    proc = tether(str(tmp_path))
    assert proc.returncode == 2 and "no *.jsonl or *.json files" in proc.stderr


def test_dash_reads_stdin() -> None:
    proc = tether("-", *HARD, "--jsonl", stdin=EXAMPLE.read_text())
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert lines[-1]["summary"]["calls"] == 12 and lines[-1]["summary"]["halt"] == 1


def _steps(*args: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    proc = tether(*args, "--jsonl")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    return lines[:-1], lines[-1]["summary"]


def test_calls_are_numbered_from_1_and_messages_cite_those_numbers() -> None:
    steps, _ = _steps(str(EXAMPLE), *HARD)
    assert [s["call"] for s in steps] == list(range(1, 13))
    by_number = {s["call"]: s for s in steps}
    cited = {int(n) for s in steps for n in re.findall(r"since call #(\d+)", s["message"])}
    assert cited
    for n in cited:  # the call a streak started at is the command that repeats
        assert by_number[n]["tool"] == "Bash"
    per_file = json.loads(tether(str(EXAMPLE), *HARD, "--json").stdout)["files"][0]
    assert per_file["first_block"] == next(s["call"] for s in steps if s["action"] == "block")
    text = tether(str(EXAMPLE), *HARD).stdout
    shown = [int(n) for n in re.findall(r"^  #(\d+) ", text, re.M)]
    assert shown and shown == sorted(shown)
    assert all(by_number[n]["action"] not in ("allow",) for n in shown)
    for n in shown:
        assert by_number[n]["action"].upper() in text.split(f"#{n} ", 1)[1][:8]


def test_collapsed_runs_show_every_code() -> None:
    steps, _ = _steps(str(EXAMPLE), *HARD)
    text = tether(str(EXAMPLE), *HARD).stdout
    for s in steps:
        for code in s["codes"]:
            assert code in text, f"call {s['call']}'s {code} is hidden by the timeline"
    for line in text.splitlines():
        m = re.search(r"more calls? \(#(\d+)(?:–#(\d+))?, ([^)]*)\)", line)
        if m:
            lo, hi = int(m[1]), int(m[2] or m[1])
            codes = {c for s in steps if lo <= s["call"] <= hi for c in s["codes"]}
            assert codes <= set(m[3].split()), line


def _halting_session(tmp_path: Path) -> Path:
    rows: list[Any] = [{"meta": {}}]
    for n in range(40):
        rows.append({"i": n, "tool": "Bash", "args": {"command": "make test"},
                     "result": "error: 1 failed", "exit_code": 1})  # fmt: skip
    rows.append({"i": 40, "tool": "__user_message__", "args": {"text": "try something else"}})
    rows.append({"i": 41, "tool": "Read", "args": {"file_path": "Makefile"}, "result": "all:"})
    return write(tmp_path / "halt.jsonl", rows)


def test_after_a_halt_the_rest_of_the_turn_is_not_counted_as_halts(tmp_path: Path) -> None:
    path = _halting_session(tmp_path)
    steps, summary = _steps(str(path), *HARD)
    assert summary["halt"] == 1
    halt = next(s["call"] for s in steps if s["action"] == "halt")
    after = [s["call"] for s in steps if s["action"] == "after-halt"]
    assert after == list(range(halt + 1, 41))
    assert summary["after_halt"] == len(after)
    assert steps[-1]["action"] == "allow"  # the user wrote: the agent goes on
    assert summary["calls"] == 41
    assert sum(summary[a] for a in ("allow", "warn", "ask", "block", "halt", "after_halt")) == 41
    text = tether(str(path), *HARD).stdout
    assert f"{len(after)} calls after the halt (#{halt + 1}–#40)" in text
    assert "1 halt;" in text and text.count("HALT") == 1


def test_one_message_per_call(tmp_path: Path) -> None:
    steps, _ = _steps(str(_halting_session(tmp_path)))
    steps += _steps(str(EXAMPLE))[0]
    for s in steps:
        assert " | " not in s["message"], s
        assert len(set(re.findall(r"(\d+) times", s["message"]))) <= 1, s["message"]
