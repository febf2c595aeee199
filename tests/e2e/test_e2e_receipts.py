"""Coverage receipts on the real hosts: the pre-call hook off for the shell tool, results still in.

Tether's pre-call entry is narrowed so that it no longer selects the shell tool (the way a user
edits a matcher): the host runs two shell commands without asking Tether, then reports their
results to the post-call hook. What must show: both commands ran, the user is told once
(where the host shows a hook's ``systemMessage``), the model is never told, and ``tether
stats`` and ``tether doctor`` count the calls and name the matcher.

Where each host shows the notice (``honours.RECEIPT_SHOWN``): Claude Code keeps it as a
``hook_system_message`` in the session transcript (its TUI shows those); Gemini CLI prints
``Hook system message: …`` on stderr; Codex 0.171's ``exec`` prints no hook message at all, so
there the doctor and ``tether stats`` are the report.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from harness import Host, describe
from honours import HONOURS, host_versions

CASES = host_versions()
IDS = [f"{h}-{v}" for h, v in CASES]
NARROW = {"claude-code": "Write|Edit", "codex": "^apply_patch$", "gemini": "write_file"}
PRE = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
SETTINGS = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
}
WORDS = "ran without a guard decision"


def shown_to_user(h: Host, run: Any) -> int:
    """Return how many times the host kept the receipt for the user to see."""
    if h.host == "claude-code":
        transcripts = list((h.home / ".claude" / "projects").rglob("*.jsonl"))
        lines = [json.loads(x) for t in transcripts for x in t.read_text().splitlines() if x]
        return sum(
            1
            for line in lines
            if (a := line.get("attachment")) and a.get("type") == "hook_system_message"
            and WORDS in a.get("content", "")
        )  # fmt: skip
    if h.host == "gemini":
        return str(run.proc.stderr).count(f"Hook system message: Tether: 1 tool call in this "
                                          f"session {WORDS}")  # fmt: skip
    return str(run.proc.stdout + run.proc.stderr).count(WORDS)


@pytest.mark.parametrize(("host", "version"), CASES, ids=IDS)
def test_calls_the_pre_hook_missed_are_reported(host: str, version: str, make_host: Any) -> None:
    h: Host = make_host(host, version)
    assert h.tether("install", host).returncode == 0
    path = h.home / SETTINGS[host]
    doc = json.loads(path.read_text())
    doc["hooks"][PRE[host]][0]["matcher"] = NARROW[host]
    path.write_text(json.dumps(doc, indent=2))
    if host == "codex":  # an edited hook is "modified": Codex skips it until trusted again
        assert h.tether("install", "codex").returncode == 0
    run = h.run(["echo one > one", "echo two > two"], install=None)
    story = describe(run)
    assert (h.project / "one").exists() and (h.project / "two").exists(), story
    shown = shown_to_user(h, run)
    assert shown == (1 if HONOURS[f"{host} {version}"]["receipt_shown"] else 0), story
    to_model = json.dumps([r["body"] for r in run.script.requests])
    assert WORDS not in to_model  # the user's notice, not the model's
    stats = json.loads(h.tether("stats", "--json").stdout)
    shell = "run_shell_command" if host == "gemini" else "Bash"
    assert stats["unguarded"] == {"calls": 2, "sessions": 1, "tools": {shell: 2}}, stats
    doctor = json.loads(h.tether("doctor", "--json", "--host", host).stdout)
    checks = doctor["checks"]
    [receipts] = [c for c in checks if c["area"] == "receipts"]
    assert receipts["status"] == "warn" and f"2 calls {WORDS}" in receipts["message"]
    gap = [c for c in checks if c["status"] == "fail" and "does not select" in c["message"]]
    assert gap and json.dumps(NARROW[host]) in gap[0]["message"], checks
