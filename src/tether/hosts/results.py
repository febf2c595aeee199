"""What hosts put around a tool's result: exit codes written as text, noise new on every call.

A shell result reaches a hook as the host formats it for the model: Gemini CLI writes
``Exit Code: 1`` and ``Process Group PGID: 23311`` into the text; Codex writes
``Process exited with code 1`` where it has a header and keeps the code in its rollout file
otherwise. Each adapter declares its host's patterns; these helpers apply them, so the loop
detectors see the result itself: the same output twice is the same result, whatever process
group ran it, and a failure is a failure even when the host sent no error flag.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

# At most this much of a rollout file's end is read to find a call's exit code.
ROLLOUT_TAIL = 1024 * 1024


def exit_code_in_text(text: str, pattern: re.Pattern[str]) -> int | None:
    """Return the exit code ``pattern`` (one group of digits) finds in ``text``, or None."""
    found = pattern.search(text)
    return int(found.group(1)) if found else None


def mask(text: str, noise: Sequence[re.Pattern[str]]) -> str:
    """Return ``text`` with every match of the host's ``noise`` patterns replaced by a mark."""
    for pattern in noise:
        text = pattern.sub(_mark, text)
    return text


def _mark(match: re.Match[str]) -> str:
    # Keep the label, drop the value: "Process Group PGID: 23311" -> "Process Group PGID: <n>".
    return f"{match.group(1)}<n>" if match.groups() else "<n>"


def rollout_exit_code(path: object, call_id: str | None) -> int | None:
    """Return the exit code Codex recorded for ``call_id`` in its rollout file, or None.

    Codex writes an ``item_completed`` event with the command's ``exit_code`` before it runs
    the PostToolUse hook; only the file's last ``ROLLOUT_TAIL`` bytes are read.
    """
    if not isinstance(path, str) or not path or not call_id:
        return None
    needle = json.dumps(call_id).encode()
    try:
        with open(path, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - ROLLOUT_TAIL))
            tail = handle.read()
    except OSError:
        return None
    for line in reversed(tail.splitlines()):
        if needle not in line or b"exit_code" not in line:
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        payload = event.get("payload") if isinstance(event, dict) else None
        item = payload.get("item") if isinstance(payload, dict) else None
        if isinstance(item, dict) and item.get("id") == call_id:
            code = item.get("exit_code")
            if isinstance(code, int) and not isinstance(code, bool):
                return code
    return None
