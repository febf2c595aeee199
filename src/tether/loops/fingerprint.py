"""Fingerprints: canonical call signatures and volatile-token-masked result hashes.

Two calls are "the same" when their tool and canonical arguments match: key order, surrounding
whitespace and free-text fields (``description``, ``thought``…) do not count. Two results are
"the same" when they match after canonicalisation: JSON is normalised and stripped of volatile
keys, and ANSI codes, spinner and carriage-return frames, timings, durations, timestamps, PIDs,
UUIDs, hex addresses and temp paths are masked. Everything else (a changed count, a new line, a
different error) stays visible, so a real change in output is never hidden.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from tether.loops.settings import FREE_TEXT_ARGS
from tether.redact import redact

DIGEST_CHARS = 16
# Results above this size are masked at the head and tail only (where timing lines, prompts
# and spinners live); the middle is hashed raw. A change anywhere is still seen.
FULL_MASK_LIMIT = 12 * 1024
EDGE = 4 * 1024
JSON_LIMIT = 256 * 1024
MAX_JSON_CONTAINERS = 512  # objects and arrays stripped of volatile keys per result


class _Masks(NamedTuple):
    tqdm: re.Pattern[str]
    rate: re.Pattern[str]
    bars: re.Pattern[str]
    pgid: re.Pattern[str]
    numbers: re.Pattern[str]
    uuid: re.Pattern[str]
    ids: re.Pattern[str]
    temp: re.Pattern[str]
    digit: re.Pattern[str]
    id_hint: re.Pattern[str]
    spinner: re.Pattern[str]
    ansi: re.Pattern[str]
    cr_frames: re.Pattern[str]
    volatile_key: re.Pattern[str]


_VOLATILE_KEY = r"""(?x)
            ^(?i:duration|elapsed|took|latency|time|timestamp|ts|date|datetime|created|updated
               |started|finished|modified|expires|pid|execution_count|nonce)(?:$|_|(?=[A-Z]))
            | (?:^|_)(?i:ms|seconds|secs|at|time|timestamp|duration)$
            | (?<=[a-z0-9])(?:Ms|MS|Seconds|Secs|At|Time|Timestamp|Duration)$
            | (?i:run|message|request|trace|event|correlation|delivery|span|execution|session)
              (?:_?id|_?ID|Id)$
            """
_NUMBERS = r"""
            \d(?<![\w.]\d)\d*+        # a whole number; starts with a class so the engine skips in C
            (?:
              (?<=\b\d{4})-\d\d-\d\d[T\ ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?\b
                                                                               # ^ ISO date-time
            | (?:(?<=\b\d)|(?<=\b\d\d)):\d\d:\d\d(?:[.,]\d+)?\b                # clock time
            | (?<=\b0)x[0-9a-fA-F]{4,}\b                                       # hex address
            | (?:(?<=\b1[4-9]\d{8})|(?<=\b1[4-9]\d{11}))(?:\.\d+)?(?![\w.])    # epoch s / ms
            | (?:h\ ?\d++)?(?:m\ ?\d++)?(?:\.\d++)?\ ?                         # durations: 0.18s,
              (?:ms|µs|us|ns|s|secs?|seconds?|mins?|minutes?)\b                # 1m 2s, 0m1.2s
            | [dhm](?:\d++[hms])*+(?![\w.])                                    # ages: 15m, 2h3m, 5d
            )
            """


# Several cheap passes instead of one clever one: each pattern starts with a character class
# or a literal, so the regex engine skips non-candidate positions in C instead of trying every
# branch at every position (10-50x faster on real output).
@functools.cache
def _masks() -> _Masks:
    # Compiled on first use: only results are masked, and compiling these at import cost ~2 ms
    # in every hook process, PreToolUse included.
    return _Masks(
        # tqdm's timing bracket: [00:12<00:03, 4.01it/s], [01:02:03<?, ?it/s]
        tqdm=re.compile(
            r"\[\d+:\d\d(?::\d\d)?<(?:\d+:\d\d(?::\d\d)?|\?)"
            r"(?:,\s*(?:(?:\d+(?:\.\d+)?|\?)\s?[a-zA-Z]*/s|\d+(?:\.\d+)?s/[a-zA-Z]+))?\]"
        ),
        # rates: 4.01it/s, 3.2 MB/s, 812 kB/s, 1.5s/it
        rate=re.compile(
            r"\d+(?:\.\d+)?\s?(?:it|[kKMGT]?i?B|bytes|items|files|steps|lines)/s\b"
            r"|\d+(?:\.\d+)?\s?s/it\b"
        ),
        # a progress bar's body between | | or [ ]: the counts and percentages next to it stay
        bars=re.compile("[|\\[][\u2580-\u259f\u2500-\u257f\u25a0\u25a1#=>. -]{4,}[|\\]]"),
        pgid=re.compile(r"\b(?:PGID|[Pp]rocess [Gg]roup(?: ID)?):?\s*\d+"),
        numbers=re.compile(_NUMBERS, re.VERBOSE),
        uuid=re.compile(
            r"[0-9a-fA-F](?<![\w][0-9a-fA-F])[0-9a-fA-F]{7}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
            r"[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
        ),
        ids=re.compile(
            r"(?:pid|PID|session|process[ _-]?id|run[ _-]?id|request[ _-]?id|trace[ _-]?id)"
            r"(?<![\w][pPsrt][\w]{2})(?<![\w][pPsrt][\w]{6})\b[ :=#]{0,3}[\w-]{0,64}\d[\w.-]*"
        ),
        temp=re.compile(
            r"/(?:tmp|var/folders|var/tmp|private/tmp|private/var/folders)/[^\s'\"`)\]},;:]+"
            r"|tmp[a-z0-9_]{6,}\b"
        ),
        digit=re.compile(r"\d"),
        id_hint=re.compile(r"pid|PID|session|[_ -]id|Id"),
        spinner=re.compile("[\u2800-\u28ff\u25d0-\u25d3\u25f0-\u25f3]"),
        # Colours and cursor moves are presentation: removed, so coloured and plain output match.
        ansi=re.compile(
            r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]{0,256}(?:\x07|\x1b\\)|\x1b[()][0-9A-B]"
        ),
        # A bare carriage return redraws the line: keep only what the terminal finally showed.
        cr_frames=re.compile(r"(?m)^(?:[^\n\r]*\r(?!\n))+"),
        # A key is volatile as a whole word: `created_at`, `createdAt`, `durationMs`, `runId`;
        # never as a bare suffix or prefix (`items` ends in "ms", `format` in "at", `tsconfig`
        # starts with "ts": their values are data, and dropping them hid real changes).
        volatile_key=re.compile(_VOLATILE_KEY),
    )


_MASK = "\u2022"
_SMALL = 64 * 1024  # bytes; past this OpenSSL's SHA-1 repays its import

try:  # imported by name: the private module has no type stub
    _small_sha1: Callable[..., Any] | None = importlib.import_module("_sha1").sha1
except ImportError:  # a build without the built-in module: hashlib below covers it
    _small_sha1 = None


def _digest(text: str) -> str:
    # SHA-1 only as a fast fingerprint, not for security. Small inputs (nearly every hook
    # call) use CPython's built-in SHA-1: same digest, without loading OpenSSL through
    # hashlib (~2 ms per process). Large ones use OpenSSL's hardware-accelerated SHA-1.
    data = text.encode("utf-8", "surrogatepass")
    if _small_sha1 is not None and len(data) <= _SMALL:
        return str(_small_sha1(data, usedforsecurity=False).hexdigest())[:DIGEST_CHARS]
    import hashlib

    return hashlib.sha1(data, usedforsecurity=False).hexdigest()[:DIGEST_CHARS]


def mask_volatile(text: str) -> str:
    """Return ``text`` with volatile tokens (timings, ids, ANSI, temp paths…) masked."""
    m = _masks()
    if "\x1b" in text:
        text = m.ansi.sub("", text)
    if "\r" in text:
        text = m.cr_frames.sub("", text)
    # Each pass runs only when a cheap test says it could match.
    if "|" in text or "[" in text:
        text = m.bars.sub("|" + _MASK + "|", text)
    if m.digit.search(text):  # timings, times, UUIDs, PIDs and ids all hold a digit
        if "<" in text:
            text = m.tqdm.sub(_MASK, text)
        if "/s" in text:
            text = m.rate.sub(_MASK, text)
        if "GID" in text or "roup" in text:
            text = m.pgid.sub(_MASK, text)
        if text.count("-") >= 4:
            text = m.uuid.sub(_MASK, text)
        text = m.numbers.sub(_MASK, text)
        if m.id_hint.search(text):
            text = m.ids.sub(_MASK, text)
    if "tmp" in text:
        text = m.temp.sub(_MASK, text)
    if not text.isascii():
        text = m.spinner.sub(_MASK, text)
    return text


# Keys already judged, shared by every result this process fingerprints: most results repeat
# a handful of keys, so a dict's keys are checked with two set operations in C, not one regex
# per key. Bounded, since keys come from tool output.
_SAFE_KEYS: set[str] = set()
_VOLATILE_KEYS: set[str] = set()
_MAX_KNOWN_KEYS = 8192


def _learn(keys: Iterable[str]) -> None:
    if len(_SAFE_KEYS) + len(_VOLATILE_KEYS) > _MAX_KNOWN_KEYS:
        _SAFE_KEYS.clear()
        _VOLATILE_KEYS.clear()
    volatile_key = _masks().volatile_key
    for key in keys:
        (_VOLATILE_KEYS if volatile_key.search(key) else _SAFE_KEYS).add(key)


def _is_volatile(key: str) -> bool:
    if key not in _SAFE_KEYS and key not in _VOLATILE_KEYS:
        _learn((key,))
    return key in _VOLATILE_KEYS


def _strip_keys(value: Any) -> Any:
    """Return a copy of ``value`` without volatile keys, iteratively (no recursion on depth)."""

    def clean(node: dict[Any, Any]) -> dict[str, Any]:
        return {str(k): v for k, v in node.items() if not _is_volatile(str(k))}

    if isinstance(value, dict):
        root: Any = clean(value)
    elif isinstance(value, list):
        root = list(value)
    else:
        return value
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        slots = node.items() if isinstance(node, dict) else enumerate(node)
        for slot, child in slots:
            copy: Any
            if isinstance(child, dict):
                copy = clean(child)
            elif isinstance(child, list):
                copy = list(child)
            else:
                continue
            node[slot] = copy  # an existing key: allowed while iterating
            stack.append(copy)
    return root


def _drop_keys(parsed: Any) -> None:
    """Delete volatile keys from freshly parsed JSON, in place, outermost containers first.

    At most ``MAX_JSON_CONTAINERS`` containers are visited (breadth first, so an envelope's
    ``durationMs`` or ``requestId`` is always seen); the rest is hashed as it came. This keeps
    the Python work bounded while parsing and dumping (in C) stay linear in the size.
    """
    queue = [parsed]
    i = 0
    while i < len(queue):
        node = queue[i]
        i += 1
        if type(node) is dict:
            keys = node.keys()
            unknown = keys - _SAFE_KEYS
            if unknown:
                fresh = unknown - _VOLATILE_KEYS
                if fresh:
                    _learn(fresh)
                for key in unknown & _VOLATILE_KEYS:
                    del node[key]
            children: Iterable[Any] = node.values()
        else:
            children = node
        if len(queue) < MAX_JSON_CONTAINERS:
            for child in children:
                if type(child) is dict or type(child) is list:
                    queue.append(child)


def _json_text(text: str) -> str | None:
    """Return JSON ``text`` re-dumped with sorted keys and without volatile keys, or None."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[" or len(stripped) > JSON_LIMIT:
        return None
    try:
        parsed = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    try:
        _drop_keys(parsed)
        # No cycles in parsed JSON: skip the encoder's per-container bookkeeping.
        return json.dumps(parsed, sort_keys=True, ensure_ascii=False, check_circular=False)
    except (ValueError, RecursionError):
        return None


def canonical_result(output: Any) -> str:
    """Return the canonical text of a tool result, the thing that gets hashed."""
    if output is None:
        return "\x00none"
    if isinstance(output, (bytes, bytearray)):
        output = bytes(output).decode("utf-8", "replace")
    if isinstance(output, str):
        text = _json_text(output) or output
    else:  # structured output: dumped canonical already, not parsed back
        try:
            text = json.dumps(_strip_keys(output), sort_keys=True, ensure_ascii=False, default=str)
        except (ValueError, RecursionError, TypeError):
            text = repr(output)
    if len(text) <= FULL_MASK_LIMIT:
        return mask_volatile(text)
    head, middle, tail = text[:EDGE], text[EDGE:-EDGE], text[-EDGE:]
    return mask_volatile(head) + "\x00" + _digest(middle) + "\x00" + mask_volatile(tail)


try:  # a built-in module (no OpenSSL): as fast as hashlib's SHA-256, without its import
    _blake2b: Callable[..., Any] | None = importlib.import_module("_blake2").blake2b
except ImportError:
    _blake2b = None


def raw_fingerprint(text: str) -> str:
    """Return a fast hash of a result's raw text: equal raw texts are equal results.

    Only when a call's raw result differs from its last one does the guard mask volatile tokens
    (``result_fingerprint``) to ask whether they differ in more than timings and ids.
    """
    data = text.encode("utf-8", "surrogatepass")
    if _blake2b is not None:
        return "r" + str(_blake2b(data, digest_size=8).hexdigest())
    return "r" + _digest(text)


def raw_text(output: Any) -> str:
    """Return a result as the text its raw fingerprint hashes."""
    if isinstance(output, str):
        return output
    if output is None:
        return "\x00none"
    if isinstance(output, (bytes, bytearray)):
        return bytes(output).decode("utf-8", "replace")
    try:
        return json.dumps(output, sort_keys=True, ensure_ascii=False, default=str)
    except (ValueError, RecursionError, TypeError):
        return repr(output)


def text_fingerprint(text: str) -> str:
    """Return the short hash of an already canonical text."""
    return _digest(text)


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


SPACE_RUN = re.compile(r"[ \t]+")  # blanks in a row


def normalise_command(command: str) -> str:
    """Collapse whitespace runs in a shell command, except on lines with quotes (content)."""
    lines = []
    for line in command.strip().splitlines():
        quoted = "'" in line or '"' in line or "\\" in line
        lines.append(line.strip() if quoted else SPACE_RUN.sub(" ", line).strip())
    return "\n".join(lines)


# Shell commands up to this size are read through the option model for their signature.
CANONICAL_CHARS = 2048


@functools.lru_cache(maxsize=2048)
def _canonical(command: str, limit: int) -> str:
    """Return the form of a shell command its signature hashes (see ``loops.canonical``).

    Cached per process: a pure function of the command, and loops repeat commands.
    """
    if "-" in command and len(command) <= limit:  # options: read them through the option model
        from tether.loops.canonical import canonical_command  # the parser: shell calls only

        canonical = canonical_command(command, limit)
        if canonical is not None:
            return canonical
    return normalise_command(command)


def call_signature(tool: str, args: Mapping[str, Any], shell_key: str | None = None) -> str:
    """Return the signature of a call: a short hash of the tool and its canonical arguments."""
    return signature_and_preview(tool, args, shell_key)[0]


def signature_and_preview(
    tool: str,
    args: Mapping[str, Any],
    shell_key: str | None = None,
    limit: int = 80,
    *,
    canonical_chars: int = CANONICAL_CHARS,
) -> tuple[str, str]:
    """Return the call's signature and its short human-readable form, canonicalising once.

    A shell command of at most ``canonical_chars`` is read through the option model.
    """
    sig, text = signature_and_text(tool, args, shell_key, canonical_chars=canonical_chars)
    return sig, shorten(tool, text, limit)


def signature_and_text(
    tool: str,
    args: Mapping[str, Any],
    shell_key: str | None = None,
    *,
    canonical_chars: int = CANONICAL_CHARS,
) -> tuple[str, str]:
    """Return the call's signature and the text its preview is cut from (``shorten`` it)."""
    command = args.get(shell_key) if shell_key is not None else None
    if shell_key is not None and isinstance(command, str):
        normalised = dict(args)
        normalised[shell_key] = _canonical(command, canonical_chars)
        canon = canonical_args(normalised)
        text = " ".join(command.split())
    else:
        canon = canonical_args(args)
        text = canon
    return _digest(tool + "\x00" + canon), text


def preview(
    tool: str, args: Mapping[str, Any], shell_key: str | None = None, limit: int = 80
) -> str:
    """Return a short human-readable form of a call for messages."""
    return signature_and_preview(tool, args, shell_key, limit)[1]


def shorten(tool: str, text: str, limit: int = 80) -> str:
    """Return the stored preview of a call: ``tool`` and ``text`` cut, credentials masked."""
    return _shorten(tool, text, limit)


def _shorten(tool: str, text: str, limit: int) -> str:
    # Credentials never reach the stored preview; redacting the head before the cut means a
    # secret cut in two is still masked (the patterns need only its first characters).
    text = redact(text[: limit * 4])
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"{tool} {text}" if text and text != "{}" else tool
