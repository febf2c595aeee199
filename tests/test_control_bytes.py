"""A control byte anywhere in a command never lowers its danger nor makes it read-only.

A NUL used to end tree-sitter's view of the input, so ``rm\\x00 -rf /`` was judged as ``rm``
(ask instead of hardline); a ``\\x01`` after ``/`` made the operand look like a file name.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether import classify_command

COMMANDS = [
    "rm -rf /",
    "rm -rf ~",
    "sudo rm -rf /",
    "mkfs.ext4 /dev/sda1",
    "dd if=/dev/zero of=/dev/sda",
    "kill -9 -1",
    "git push --force origin main",
    "git reset --hard",
    "chmod -R 777 .",
    "ls -la",
    "cat README.md",
    "git status",
    "grep -r foo src | head -5",
    "echo hi > out.txt",
]
CONTROLS = [chr(c) for c in (*range(0x09), *range(0x0B, 0x20), 0x7F, 0x85, 0x9B)]


@st.composite
def insertions(draw: st.DrawFn) -> tuple[str, str]:
    command = draw(st.sampled_from(COMMANDS))
    text = command
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(CONTROLS)) + text[at:]
    return command, text


@settings(max_examples=400, deadline=None)
@given(insertions())
def test_inserting_control_bytes_never_lowers_the_verdict(case: tuple[str, str]) -> None:
    clean, dirty = case
    before, after = classify_command(clean), classify_command(dirty)
    assert after.danger >= before.danger, (dirty, after)
    assert not after.read_only or before.read_only, (dirty, after)


@pytest.mark.parametrize("at", range(len("rm -rf /") + 1))
@pytest.mark.parametrize("byte", ["\x00", "\x01", "\x1b", "\r", "\x7f"])
def test_every_position_of_a_control_byte_in_rm_rf_root_stays_hardline(at: int, byte: str) -> None:
    text = "rm -rf /"[:at] + byte + "rm -rf /"[at:]
    verdict = classify_command(text)
    assert verdict.danger.label == "hardline", (text, verdict)
    assert "DG101" in verdict.danger_codes


@pytest.mark.parametrize("command", ["rm\x00 -rf /", "rm -rf /\x00", "rm -rf /\x01"])
def test_the_hook_denies_rm_rf_root_with_a_control_byte(command: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HOME"):
        (tmp_path / name).mkdir()
        env[name] = str(tmp_path / name)
    payload = {
        "session_id": "nul",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": str(tmp_path),
    }
    done = subprocess.run(
        [str(Path(sys.executable).with_name("tether")), "hook", "claude-code"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    reply = json.loads(done.stdout)
    assert reply["hookSpecificOutput"]["permissionDecision"] == "deny", reply
    assert "DG101" in reply["hookSpecificOutput"]["permissionDecisionReason"]
