"""``tether classify``: human output names what decided; --json and --jsonl are data."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from tether.cli import main
from tether.cli.classify import run_jsonl


def tether(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "tether", *args],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
    )


def test_human_output_names_the_command_flag_and_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classify", "ls -la", "sort -o out.txt in.txt", "ls > out.txt"]) == 0
    out = capsys.readouterr().out
    assert "read-only: ls -la" in out and "RO103 directory-listers" in out
    assert "NOT read-only: sort -o out.txt in.txt" in out
    assert "sort -o" in out and "RW020 write-option" in out
    assert "NOT read-only: ls > out.txt" in out and "RW008 write-redirect" in out


def test_json_prints_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classify", "--json", "gh api repos/o/r/pulls/1/reviews 2>&1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["read_only"] is True
    assert data["command"] == "gh api repos/o/r/pulls/1/reviews 2>&1"
    assert "RO501" in data["codes"] and "RO001" in data["codes"]
    assert {"command", "read_only", "codes", "reason", "danger"} <= set(data)


def test_json_with_several_commands_prints_a_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classify", "--json", "ls", "rm x"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["read_only"] for d in data] == [True, False]


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classify"]) == 2
    assert "expected at least one COMMAND" in capsys.readouterr().err


def _jsonl(data: bytes) -> tuple[int, list[dict[str, object]], str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_jsonl(io.BytesIO(data).readlines(), out, err)
    return status, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def test_jsonl_reads_strings_and_objects_one_verdict_per_line() -> None:
    status, rows, err = _jsonl(b'"ls -la"\n{"command": "rm -rf /tmp/x", "id": 7}\n"git status"\n')
    assert status == 0 and err == ""
    assert [r["read_only"] for r in rows] == [True, False, True]
    assert [r["line"] for r in rows] == [1, 2, 3]
    for r in rows:
        assert {"command", "read_only", "codes", "reason", "danger"} <= set(r)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'"ls \xff\xfe"', "line 2: not valid UTF-8"),
        (b"not json", "line 2: not valid JSON"),
        (b'{"cmd": "ls"}', "line 2: expected an object with a string 'command' key"),
        (b"[1, 2]", "line 2: expected a JSON string"),
        (b'{"command": 5}', "line 2: expected an object"),
        (b"", "line 2: empty line"),
        (b"   \t", "line 2: empty line"),
    ],
)
def test_jsonl_bad_lines_are_reported_by_number_and_processing_continues(
    line: bytes, message: str
) -> None:
    status, rows, err = _jsonl(b'"ls"\n' + line + b'\n"pwd"\n')
    assert status == 2
    assert message in err
    assert len(rows) == 3
    assert rows[1]["read_only"] is False and rows[1]["codes"] == ["RW014"]
    assert message in str(rows[1]["error"])
    assert rows[0]["read_only"] is True and rows[2]["read_only"] is True


def test_jsonl_hostile_commands_get_verdicts() -> None:
    lines = [json.dumps(c) for c in ["", "ls\u0000x", "echo 'open", "a" * 1_000_000]]
    status, rows, _ = _jsonl(("\n".join(lines) + "\n").encode())
    assert status == 0
    assert [r["read_only"] for r in rows] == [False] * 4
    assert all(r["reason"] for r in rows)


def test_jsonl_through_a_real_process_with_invalid_utf8() -> None:
    proc = tether("classify", "--jsonl", stdin=b'"cat f"\n"\xc3\x28"\n{"command": "ls > f"}\n')
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    assert b"line 2: not valid UTF-8" in proc.stderr
    rows = [json.loads(x) for x in proc.stdout.decode().splitlines()]
    assert [r["read_only"] for r in rows] == [True, False, False]


def test_jsonl_rejects_positional_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classify", "--jsonl", "ls"]) == 2
    assert "give no COMMAND" in capsys.readouterr().err


def test_invalid_utf8_argument_gets_a_verdict_not_a_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tether", "classify", "--json", b"ls \xff"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    assert data["read_only"] is False and data["codes"] == ["RW014"]
