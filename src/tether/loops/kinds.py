"""What kind of call this is: a read, a write, a poll (a wait) or an unproven execution.

The kind decides which no-progress track a repeat falls on: reads (and shell commands the
classifier proves read-only) are idempotent, so two identical results already mean no
progress; writes and unproven commands get the looser mutating track; polls get a budget.
Tools Tether knows nothing about (``tool``) are judged on the idempotent track, but only for
*consecutive* identical calls: interleaved repeats of an unknown tool may be sends or writes.
Bookkeeping tools (``note``: think, TodoWrite…) are never progress.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tether.loops.settings import ACTION_TOOLS, EDITOR_READ_COMMANDS, NOTE_TOOLS, ToolKinds

READ, WRITE, ACT, POLL, EXEC, TOOL, NOTE = "read", "write", "act", "poll", "exec", "tool", "note"
PAUSE = "pause"  # a bare `sleep N`: a pause between checks, never a loop of its own

# `sleep 30 && gh run view …`, `sleep 5; curl …`, `watch -n 5 …`, `gh run watch`, `--watch`,
# `until …; do sleep 10; done`: the command itself waits, so stable output is expected.
_SLEEP = re.compile(r"(?:^|[;&|(]\s*|\bdo\s+)sleep\s+(\d+(?:\.\d+)?)([smhd]?)\b")
_WATCH = re.compile(
    r"(?:^|[;&|]\s*)watch\s|\s--watch\b|\bgh\s+run\s+watch\b|\bgh\s+pr\s+checks\b.*--watch"
    r"|\bkubectl\s+(?:rollout\s+status|wait)\b|\boc\s+rollout\s+status\b"
)
_UNIT = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_PAUSE = re.compile(r"\s*sleep\s+(\d+(?:\.\d+)?)([smhd]?)\s*;?\s*")
# How hosts and shells say a command ran out of time: `timeout`'s 124, SIGTERM/SIGKILL exits,
# Claude Code's "Command timed out after 2m 0.0s", Codex's "command timed out".
_TIMEOUT_CODES = frozenset({124, 137, 143})
_TIMED_OUT = re.compile(r"(?i)\btimed out\b|\btimeout(?:expired)?\b|deadline exceeded")
# A harness's automatic nudge when the agent stops, not a person: no new user turn.
_CONTINUE = frozenset(
    {
        "continue", "please continue", "keep going", "continue from where you left off",
        "please continue from where you left off", "continue where you left off",
        "continue with the task", "continue working",
    }
)  # fmt: skip
_RERUNS = re.compile(
    r"(?i)\b(?:run|re-?run|repeat|execute|try)\b[^.!?\n]{0,40}?\b(\d{1,4}|ten|twenty|five|"
    r"fifty|hundred)\s*(?:x\b|times\b)"
)
_WORDS = {"five": 5, "ten": 10, "twenty": 20, "fifty": 50, "hundred": 100}


def shell_command(tool: str, args: Mapping[str, Any], tools: ToolKinds) -> str | None:
    """Return the command text of a shell tool call, or None when ``tool`` is not a shell."""
    key = tools.shell.get(tool)
    if not key:
        return None
    value = args.get(key)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        argv = list(value)
        script = _shell_script(argv)
        if script is not None:
            return script
        import shlex  # only for list-form commands: keeps it off most hook processes

        return shlex.join(argv)
    return None


def _shell_script(argv: list[str]) -> str | None:
    """Return the script of ``["bash", "-lc", SCRIPT]`` (Codex's form) in any spelling.

    Read with the shells' grammar (``tether.shell.programs``): ``bash -xc``, ``sh -ec``,
    ``bash --norc -c``, ``bash -o pipefail -c`` are one form; the first operand after ``-c``
    is the script.
    """
    # Imported here: a list-form command is rare, and tether.shell brings the parser with it.
    from tether.shell.model import Word
    from tether.shell.options import parse
    from tether.shell.programs import SHELLS

    shell = argv[0].rpartition("/")[2] if argv else ""
    if len(argv) < 3 or shell not in SHELLS or not argv[1].startswith(("-", "+")):
        return None
    parsed = parse(SHELLS[shell], tuple(Word(a) for a in argv[1:]))
    if not parsed.has("-c") or not parsed.operands:
        return None
    return parsed.operands[0].value


def wait_seconds(command: str) -> float | None:
    """Return how long a waiting command sleeps (0.0 for `watch`-style waits), or None.

    Read from the parsed commands when the review just parsed ``command`` (its model is kept
    for inputs up to 2,048 characters): a `sleep` in a heredoc's text or a quoted string is
    not a wait. A longer input is scanned as text, its first 4 KiB only (a regex over 100 KB
    cost about 11 ms; a wait worth counting is at the start of a polling command).
    """
    if not any(word in command for word in ("sleep", "watch", "rollout", "wait")):
        return None  # none of the patterns can match: skip the regexes
    from tether.shell.parse import recent  # loaded already: the review parsed the command

    model = recent(command)
    if model is not None and model.ok:
        return _parsed_wait(model.commands)
    command = command[:4096]
    total = 0.0
    found = False
    for m in _SLEEP.finditer(command):
        total += float(m.group(1)) * _UNIT[m.group(2)]
        found = True
    if found and total >= 1.0:
        return total
    if _WATCH.search(command):
        return 0.0
    return None


# Subcommands that wait on something: ``gh run watch``, ``kubectl rollout status`` …
_WATCH_WORDS = {
    "gh": ("run", "watch"),
    "kubectl": ("rollout", "status"),
    "oc": ("rollout", "status"),
}


def _watches(cmd: Any, words: list[str]) -> bool:
    name = cmd.name
    return (
        any(w.name == "watch" for w in cmd.wrappers)
        or "--watch" in words
        or (name in _WATCH_WORDS and tuple(words[:2]) == _WATCH_WORDS[name])
        or (name == "kubectl" and words[:1] == ["wait"])
    )


def _parsed_wait(commands: tuple[Any, ...]) -> float | None:
    """Return the wait of parsed commands: their `sleep`s, or 0.0 for a watching command."""
    total = 0.0
    watching = False
    for cmd in commands:
        if cmd.evaluated:
            continue  # the evaluator's reading repeats the line's own commands
        words = [w.value for w in cmd.args]
        if cmd.name == "sleep" and words:
            for word in words:
                m = re.fullmatch(r"(\d+(?:\.\d+)?)([smhd]?)", word)
                if m is None:
                    break
                total += float(m.group(1)) * _UNIT[m.group(2)]
        elif _watches(cmd, words):
            watching = True
    if total >= 1.0:
        return total
    return 0.0 if watching else None


def pause_seconds(command: str) -> float | None:
    """Return N for a command that is only `sleep N` (a pause between checks), else None."""
    if "sleep" not in command[:16]:
        return None
    m = _PAUSE.fullmatch(command)
    return float(m.group(1)) * _UNIT[m.group(2)] if m else None


def timed_out(output: Any, exit_code: int | None) -> bool:
    """Return True when a failed result says the command ran out of time."""
    if exit_code in _TIMEOUT_CODES:
        return True
    text = output if isinstance(output, str) else str(output)[:4096]
    return bool(_TIMED_OUT.search(text[:300]) or _TIMED_OUT.search(text[-300:]))


def is_continue(text: str) -> bool:
    """Return True for a harness's automatic "continue" (not a person's new instruction)."""
    words = " ".join(text.lower().replace("’", "'").split()).strip(" .!")
    return words in _CONTINUE


def asked_reruns(text: str) -> int:
    """Return the rerun count a user's message asks for ("run it 10 times"), or 0."""
    m = _RERUNS.search(text)
    if m is None:
        return 0
    n = m.group(1).lower()
    return min(_WORDS.get(n) or int(n), 1000)


def static_kind(tool: str, args: Mapping[str, Any], tools: ToolKinds) -> str:
    """Return the kind of a non-shell tool call from its name and (for editors) its command."""
    if tools.is_poll_tool(tool):
        return POLL
    sub = args.get("command")
    if tool in tools.write and isinstance(sub, str) and sub in EDITOR_READ_COMMANDS:
        return READ  # str_replace_editor view …
    if tool in tools.read:
        return READ
    if tool in ACTION_TOOLS:
        return ACT
    if tool in tools.write:
        return WRITE
    if tool in NOTE_TOOLS:
        return NOTE
    return TOOL  # a tool Tether knows nothing about (an MCP call, a framework function)
