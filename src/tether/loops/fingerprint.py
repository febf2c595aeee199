"""Fingerprints: canonical call signatures and volatile-token-masked result hashes.

Two calls are "the same" when their tool and canonical arguments match: key order, surrounding
whitespace and free-text fields (``description``, ``thought``…) do not count. Two results are
"the same" when they match after canonicalisation: JSON is normalised and stripped of volatile
keys, and ANSI codes, spinner and carriage-return frames, timings, durations, timestamps, PIDs,
UUIDs, hex addresses and temp paths are masked. Everything else (a changed count, a new line, a
different error) stays visible, so a real change in output is never hidden.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from tether.loops.settings import FREE_TEXT_ARGS

DIGEST_CHARS = 16
# Results above this size are masked at the head and tail only (where timing lines, prompts
# and spinners live); the middle is hashed raw. A change anywhere is still seen.
FULL_MASK_LIMIT = 12 * 1024
EDGE = 4 * 1024
JSON_LIMIT = 256 * 1024

# One pass. Every branch starts with a digit, "/", a spinner glyph, or a word boundary
# followed by a letter that can begin a keyword or a UUID: other positions are rejected at once.
_VOLATILE = re.compile(
    r"""
    (?=[\d/\u2800-\u28ff\u25d0-\u25d3\u25f0-\u25f3])
    (?:
      \d[0-9a-fA-F]{7}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}  # UUID
    | \d{4}-\d\d-\d\d[T\ ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?\b   # ISO time
    | \b\d{1,2}:\d\d:\d\d(?:[.,]\d+)?\b                            # clock time
    | \b0x[0-9a-fA-F]{4,}\b                                        # hex address
    | \b1[4-9]\d{8}(?:\d{3}|\.\d+)?\b                              # epoch seconds / ms
    | \b(?:\d{1,4}h\ ?)?(?:\d{1,4}m\ ?)?\d{1,12}(?:\.\d{1,12})?\ ?       # durations: 0.18s, 1m 2s
      (?:ms|µs|us|ns|s|secs?|seconds?|mins?|minutes?)\b
    | (?:/private)?/(?:tmp|var/folders|var/tmp)/[^\s'"`)\]},;:]+   # temp paths
    | [\u2800-\u28ff\u25d0-\u25d3\u25f0-\u25f3]                    # spinner glyphs
    )
    | \b(?=[a-fA-FpPsrt])
    (?:
      [a-fA-F][0-9a-fA-F]{7}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}  # UUID
    | (?:pid|PID|session|(?:process|run|request|trace)[\ _-]?id)\b[\ :=\#]{0,3}[\w-]{0,64}\d[\w.-]*
                                                                   # pid 1234, session sess-3
    | tmp[a-z0-9_]{6,}\b                                           # tempfile names
    )
    """,
    re.VERBOSE,
)
# Colours and cursor moves are presentation: removed, so coloured and plain output match.
_ANSI = re.compile(
    r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]{0,256}(?:\x07|\x1b\\)|\x1b[()][0-9A-B]"
)
# A bare carriage return redraws the line: keep only what the terminal finally showed.
_CR_FRAMES = re.compile(r"(?m)^(?:[^\n\r]*\r(?!\n))+")

_VOLATILE_KEY = re.compile(
    r"""(?ix)
    ^(?:duration|elapsed|took|latency|time|timestamp|ts|date|created|updated|started|finished
       |modified|expires|pid|execution_count|nonce)
    | (?:_|\b|(?<=[a-z]))(?:ms|seconds|secs|at|time|timestamp|duration)$
    | (?:run|message|request|trace|event|correlation|delivery|span|execution|session)_?id$
    """
)
_MASK = "\u2022"


def _digest(text: str) -> str:
    # SHA-1 only as a fast fingerprint (hardware-accelerated here), not for security.
    data = text.encode("utf-8", "surrogatepass")
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()[:DIGEST_CHARS]


def mask_volatile(text: str) -> str:
    """Return ``text`` with volatile tokens (timings, ids, ANSI, temp paths…) masked."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\r" in text:
        text = _CR_FRAMES.sub("", text)
    return _VOLATILE.sub(_MASK, text)


def _strip_keys(value: Any) -> Any:
    """Drop volatile keys from parsed JSON, iteratively (no recursion on untrusted depth)."""
    root: list[Any] = [None]
    stack: list[tuple[Any, list[Any] | dict[str, Any], Any]] = [(value, root, 0)]
    while stack:
        src, parent, slot = stack.pop()
        if isinstance(src, dict):
            out: dict[str, Any] = {}
            for k, v in src.items():
                if not _VOLATILE_KEY.search(str(k)):
                    out[str(k)] = None
                    stack.append((v, out, str(k)))
            new: Any = out
        elif isinstance(src, list):
            lst: list[Any] = [None] * len(src)
            for i, v in enumerate(src):
                stack.append((v, lst, i))
            new = lst
        else:
            new = src
        parent[slot] = new
    return root[0]


def _json_text(text: str) -> str | None:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[" or len(stripped) > JSON_LIMIT:
        return None
    try:
        parsed = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    try:
        return json.dumps(_strip_keys(parsed), sort_keys=True, ensure_ascii=False)
    except (ValueError, RecursionError):
        return None


def canonical_result(output: Any) -> str:
    """Return the canonical text of a tool result, the thing that gets hashed."""
    if output is None:
        return "\x00none"
    if isinstance(output, (bytes, bytearray)):
        output = bytes(output).decode("utf-8", "replace")
    if not isinstance(output, str):
        try:
            output = json.dumps(
                _strip_keys(output), sort_keys=True, ensure_ascii=False, default=str
            )
        except (ValueError, RecursionError, TypeError):
            output = repr(output)
    text = _json_text(output) or output
    if len(text) <= FULL_MASK_LIMIT:
        return mask_volatile(text)
    head, middle, tail = text[:EDGE], text[EDGE:-EDGE], text[-EDGE:]
    return mask_volatile(head) + "\x00" + _digest(middle) + "\x00" + mask_volatile(tail)


def result_fingerprint(output: Any, exit_code: int | None = None, error: bool = False) -> str:
    """Return a short hash of the canonical result, its exit code and error flag."""
    suffix = f"\x00{exit_code}\x00{int(bool(error))}"
    return _digest(canonical_result(output) + suffix)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip()
    return value


def canonical_args(args: Mapping[str, Any], drop: Iterable[str] = FREE_TEXT_ARGS) -> str:
    """Return compact sorted-key JSON of ``args`` without free-text fields."""
    dropped = frozenset(drop)
    kept = {str(k): _clean(v) for k, v in args.items() if k not in dropped}
    try:
        return json.dumps(
            kept, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str
        )
    except (ValueError, RecursionError, TypeError):
        return repr(sorted(kept.items(), key=lambda kv: kv[0]))


_SPACE_RUN = re.compile(r"[ \t]+")


def normalise_command(command: str) -> str:
    """Collapse whitespace runs in a shell command, except on lines with quotes (content)."""
    lines = []
    for line in command.strip().splitlines():
        quoted = "'" in line or '"' in line or "\\" in line
        lines.append(line.strip() if quoted else _SPACE_RUN.sub(" ", line).strip())
    return "\n".join(lines)


def call_signature(tool: str, args: Mapping[str, Any], shell_key: str | None = None) -> str:
    """Return the signature of a call: a short hash of the tool and its canonical arguments."""
    if shell_key is not None and isinstance(args.get(shell_key), str):
        args = dict(args)
        args[shell_key] = normalise_command(args[shell_key])
    return _digest(tool + "\x00" + canonical_args(args))


def preview(
    tool: str, args: Mapping[str, Any], shell_key: str | None = None, limit: int = 80
) -> str:
    """Return a short human-readable form of a call for messages."""
    if shell_key is not None and isinstance(args.get(shell_key), str):
        text = " ".join(args[shell_key].split())
    else:
        text = canonical_args(args)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"{tool} {text}" if text and text != "{}" else tool
