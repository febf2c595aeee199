"""Write evaluated records back as shell text: the reading every judge parses and reads.

Static text is single-quoted, a glob stays a live pattern, the home directory is ``~``, and a
part only known at run time is its own source again (``"$x"``, ``$(…)``), so the judges see
it as computed at run time, exactly as in the original.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.shell.evaluate._state import BREAK, DYN, DYN_END, GLOB, HOME, MARKERS, State

if TYPE_CHECKING:
    from tether.shell.evaluate._walk import Record

_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,+@%")


def _quoted(text: str) -> str:
    if text and all(c in _SAFE for c in text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def word(value: str, st: State) -> str:
    """Return shell text that bash reads as ``value``."""
    if not any(c in value for c in MARKERS):
        return _quoted(value)
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            out.append("'" + "".join(run).replace("'", "'\\''") + "'")
            run.clear()

    i, n = 0, len(value)
    if value.startswith(HOME) and (n == 1 or value[1] == "/"):
        out.append("~")
        i = 1
    while i < n:
        c = value[i]
        if c == GLOB and i + 1 < n:
            flush()
            g = value[i + 1]
            out.append(g if g in "*?[]" else _quoted(g))
            i += 2
        elif c == DYN:
            j = value.find(DYN_END, i)
            flush()
            index = value[i + 1 : j] if j > 0 else ""
            out.append(st.dynamic[int(index)] if index.isdigit() else '"$_"')
            i = j + 1 if j > 0 else n
        elif c == HOME:
            flush()
            out.append('"$HOME"')
            i += 1
        elif c == BREAK:
            i += 1
        else:
            run.append(c)
            i += 1
    flush()
    return "".join(out) or "''"


def command(record: Record, st: State) -> str:
    """Return one record as a simple command."""
    parts = [f"{name}={word(value, st)}" for name, value in record.assignments]
    parts.extend(word(a, st) for a in record.argv)
    for op, target in record.redirects:
        parts.append(op + " " + word(target, st))
    return " ".join(parts)


def render(records: list[Record], st: State) -> str:
    """Return the records as lines, pipelines kept together."""
    lines: list[str] = []
    i = 0
    while i < len(records):
        first = records[i]
        if first.pipeline < 0:
            lines.append(command(first, st))
            i += 1
            continue
        legs: list[list[str]] = []
        stage = None
        while i < len(records) and records[i].pipeline == first.pipeline:
            r = records[i]
            if r.stage != stage:
                legs.append([])
                stage = r.stage
            legs[-1].append(command(r, st))
            i += 1
        lines.append(" | ".join(leg[0] if len(leg) == 1 else "{ " + "; ".join(leg) + "; }"
                                for leg in legs))  # fmt: skip
    return "\n".join(lines)
