"""Replay: formats are sniffed and read into events; ``tether replay`` runs as a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tether.errors import InputError
from tether.replay import AssistantText, Call, UserTurn, load, sniff

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "loop.jsonl"


def write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def trajectory(tmp_path: Path) -> Path:
    return write(
        tmp_path / "t.jsonl",
        [
            {"meta": {"subagent": True, "whatever": 1}},
            {"i": 0, "tool": "bash", "args": {"command": "ls"}, "result": "a\nb", "exit_code": 0,
             "assistant_text": "Looking."},
            {"i": 1, "tool": "__user_message__", "args": {"text": "go on"}},
            {"i": 2, "tool": "execute_bash", "args": {"command": "false"},
             "result": {"output": "", "exit_code": 1}, "exit_code": None, "assistant_text": ""},
        ],
    )  # fmt: skip


def claude_code(tmp_path: Path) -> Path:
    ts = "2025-12-23T01:42:05.000Z"
    return write(
        tmp_path / "cc.jsonl",
        [
            {"type": "summary", "summary": "x"},
            {"type": "user", "sessionId": "abc", "timestamp": ts,
             "message": {"role": "user", "content": "fix the bug"}},
            {"type": "assistant", "sessionId": "abc", "timestamp": ts,
             "message": {"role": "assistant", "content": [
                 {"type": "text", "text": "On it."},
                 {"type": "tool_use", "id": "tu1", "name": "Bash", "input": {"command": "ls"}},
             ]}},
            {"type": "user", "sessionId": "abc", "timestamp": ts,
             "message": {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "tu1", "is_error": True,
                  "content": [{"type": "text", "text": "boom"}]},
             ]}},
            {"type": "user", "isMeta": True, "sessionId": "abc",
             "message": {"role": "user", "content": "<system-reminder>"}},
        ],
    )  # fmt: skip


OPENAI = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "list files"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "shell", "arguments": "{\"command\": \"ls\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "{\"output\": \"a\", \"exit_code\": 0}"},
]  # fmt: skip


def test_trajectory_format(tmp_path: Path) -> None:
    s = load(trajectory(tmp_path))
    assert s.format == "trajectory" and s.meta["whatever"] == 1
    kinds = [type(e) for e in s.events]
    assert kinds == [AssistantText, Call, UserTurn, Call]
    first, last = s.events[1], s.events[3]
    assert isinstance(first, Call) and first.call.agent_id == "subagent"
    assert isinstance(last, Call) and last.result is not None
    assert last.result.exit_code == 1 and last.result.output == ""


def test_claude_code_format(tmp_path: Path) -> None:
    s = load(claude_code(tmp_path))
    assert s.format == "claude-code" and s.session_id == "abc"
    assert [type(e) for e in s.events] == [UserTurn, AssistantText, Call]
    call = s.events[2]
    assert isinstance(call, Call) and call.result is not None
    assert call.result.error and call.result.output == "boom"
    assert call.call.time == pytest.approx(1766454125.0)


@pytest.mark.parametrize("shape", ["list", "messages", "jsonl"])
def test_openai_formats(tmp_path: Path, shape: str) -> None:
    path = tmp_path / "chat.json"
    if shape == "list":
        path.write_text(json.dumps(OPENAI, indent=2))
    elif shape == "messages":
        path.write_text(json.dumps({"messages": OPENAI}, indent=2))
    else:
        write(path, OPENAI)
    s = load(path)
    assert s.format == "openai"
    call = s.events[-1]
    assert isinstance(call, Call) and call.call.args == {"command": "ls"}
    assert call.result is not None and call.result.output == "a" and call.result.exit_code == 0


BAD = [
    ("not json at all\n", "bad.jsonl:1"),
    ('{"meta": {}}\n{"tool": "x", "args": {}}\n{oops\n', "bad.jsonl:3"),
    ('{"meta": {}}\n{"tool": 3}\n', "bad.jsonl:2"),
    ('{"hello": "world"}\n', "bad.jsonl:1"),
    ("", "bad.jsonl:1"),
]


@pytest.mark.parametrize(("text", "where"), BAD)
def test_bad_input_names_the_file_and_line(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load(path)
    assert where in str(err.value)


def test_sniff_the_real_corpus() -> None:
    corpus = ROOT.parent / "shared" / "corpus" / "real" / "trajectories"
    files = sorted(corpus.glob("*.jsonl"))
    assert len(files) == 75
    assert {sniff(f) for f in files} == {"trajectory"}


def tether(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tether", "replay", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_cli_jsonl_shows_the_example_loop_stopped() -> None:
    proc = tether(str(EXAMPLE), "--set", "loops.hard_stop=true", "--jsonl")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    calls, summary = lines[:-1], lines[-1]["summary"]
    assert [set(c) for c in calls[:1]] == [{"call", "i", "tool", "action", "codes", "message"}]
    assert [c["call"] for c in calls] == list(range(1, 13))
    by_i = {c["i"]: c for c in calls}
    assert by_i[3]["action"] == "allow"  # the first rerun after an edit is fine
    assert by_i[4]["action"] == "warn" and by_i[4]["codes"] == ["TL203"]
    assert by_i[8]["action"] == "block"
    assert summary["block"] >= 1 and summary["calls"] == 12


def test_cli_without_hard_stop_only_warns() -> None:
    proc = tether(str(EXAMPLE), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["summary"]["block"] == 0 and doc["summary"]["warn"] > 0


def test_cli_timeline_names_the_intervention() -> None:
    proc = tether(str(EXAMPLE), "--set", "loops.hard_stop=true")
    assert proc.returncode == 0, proc.stderr
    assert "BLOCK" in proc.stdout and "TL203" in proc.stdout and "summary:" in proc.stdout


def test_cli_bad_file_exits_2_with_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"meta": {}}\n{nope\n')
    proc = tether(str(bad))
    assert proc.returncode == 2
    assert "broken.jsonl:2" in proc.stderr


def test_cli_bad_setting_exits_2() -> None:
    proc = tether(str(EXAMPLE), "--set", "loops.hardstop=true")
    assert proc.returncode == 2 and "hard_stop" in proc.stderr


def test_a_subagent_trajectory_that_never_converges_is_halted(tmp_path: Path) -> None:
    rows: list[Any] = [{"meta": {"subagent": True}}]
    for n in range(30):
        args = {"file_path": f"f{n}.py"}
        rows.append({"i": n, "tool": "Read", "args": args, "result": f"content {n}"})
    path = write(tmp_path / "child.jsonl", rows)
    proc = tether(str(path), "--set", "progress.enabled=true", "--jsonl")
    assert proc.returncode == 0, proc.stderr
    calls = [json.loads(x) for x in proc.stdout.splitlines()][:-1]
    actions = {c["i"]: c["action"] for c in calls}
    assert actions[14] == "warn" and actions[24] == "halt"
    assert all(actions[i] == "allow" for i in range(14))
    # The same session as the main agent is out of scope by default.
    rows[0] = {"meta": {}}
    main = write(tmp_path / "main.jsonl", rows)
    proc = tether(str(main), "--set", "progress.enabled=true", "--json")
    assert json.loads(proc.stdout)["summary"]["halt"] == 0


def _cc(kind: str, content: Any) -> dict[str, Any]:
    return {"type": kind, "sessionId": "s", "message": {"role": kind, "content": content}}


def test_a_claude_code_transcript_loop_is_blocked(tmp_path: Path) -> None:
    command = {"command": "gh api repos/o/r/pulls/1/reviews 2>&1"}
    rows: list[Any] = [_cc("user", "wait for the review")]
    for n in range(8):
        rows.append(_cc("assistant", [{"type": "tool_use", "id": f"t{n}", "name": "Bash",
                                       "input": command}]))  # fmt: skip
        rows.append(_cc("user", [{"type": "tool_result", "tool_use_id": f"t{n}",
                                  "content": "[]"}]))  # fmt: skip
    path = write(tmp_path / "cc.jsonl", rows)
    proc = tether(str(path), "--set", "loops.hard_stop=true", "--jsonl")
    assert proc.returncode == 0, proc.stderr
    actions = [json.loads(x)["action"] for x in proc.stdout.splitlines()[:-1]]
    assert actions[:6] == ["allow", "warn", "warn", "warn", "warn", "block"], actions
