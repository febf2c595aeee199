"""Which way a value moves the guard: the part of an untrusted layer that may apply.

Every schema key declares which change loosens it (``Key.loosen``, see
:data:`tether.config.schema.Loosen`). An untrusted project file may only tighten: for each key
it sets, :func:`tighten_only` returns the value that applies (its tightening part, measured
against the layers below it) and what was ignored, with the reason in words. Lists and mappings
keep their tightening entries: a project's extra ``deny`` globs apply even where it would also
drop the user's. An untrusted layer may not name shell tools at all (``tools.shell``): which
argument of which tool is a command decides what every judge reads of that tool.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tether.config.schema import Key

Dropped = list[tuple[str, str]]  # (dotted key, why it was ignored)


def _quoted(items: list[Any]) -> str:
    shown = ", ".join(repr(str(item)) for item in items[:5])
    return shown + (f" and {len(items) - 5} more" if len(items) > 5 else "")


def loosening(key: Key, before: Any, after: Any) -> str | None:
    """Return why moving ``key`` from ``before`` to ``after`` loosens the guard, else None."""
    if before == after:
        return None
    how = key.loosen
    if how in ("raise", "lower"):
        if not isinstance(after, int | float) or not isinstance(before, int | float):
            return f"changes it from {before!r} to {after!r}"
        was, now = before, after
        if key.unlimited is not None:  # "no limit" is beyond every number
            was = float("inf") if before == key.unlimited else before
            now = float("inf") if after == key.unlimited else after
        if (now > was) == (how == "raise"):
            verb = "raises" if how == "raise" else "lowers"
            return f"{verb} it from {before:g} to {after:g}"
        return None
    if how == "off":
        return "switches it off" if before and not after else None
    if how == "order":
        choices = key.choices
        rank = {choice: index for index, choice in enumerate(choices)}
        if rank.get(str(after), len(choices)) > rank.get(str(before), -1):
            return f"changes it from {before!r} to {after!r}, which is less strict"
        return None
    if how == "add":
        extra = [item for item in after or () if item not in (before or ())]
        return f"adds {_quoted(extra)}" if extra else None
    if how == "remove":
        gone = [item for item in before or () if item not in (after or ())]
        return f"removes {_quoted(gone)}" if gone else None
    if how == "remap" and isinstance(before, Mapping) and isinstance(after, Mapping):
        changed = [name for name in before if after.get(name) != before[name]]
        return f"remaps or removes {_quoted(changed)}" if changed else None
    # "change": the value itself may be a secret (a token, a URL with a password): not shown.
    return "changes it"


def tighten_only(key: Key, before: Any, value: Any) -> tuple[Any, Dropped]:
    """Return the part of ``value`` an untrusted layer may apply on top of ``before``.

    The first item is the value to merge (``None``: nothing applies), the second lists what was
    ignored and why. A mapping's value is the entries to merge (new names only).
    """
    how = key.loosen
    if how == "add" and isinstance(value, list):
        current = list(before or ())
        extra = [item for item in value if item not in current]
        kept = [item for item in value if item in current]
        return kept, [(key.path, f"adds {_quoted(extra)}")] if extra else []
    if how == "remove" and isinstance(value, list):
        current = list(before or ())
        gone = [item for item in current if item not in value]
        merged = current + [item for item in value if item not in current]
        why = f"removes {_quoted(gone)} (kept; its other entries apply)"
        return merged, [(key.path, why)] if gone else []
    if how == "remap" and isinstance(value, Mapping) and isinstance(before, Mapping):
        kept_entries: dict[str, Any] = {}
        dropped: Dropped = []
        for name, arg in value.items():
            if name not in before:
                if arg:  # '' for a name no lower layer set removes nothing
                    dropped.append(
                        (
                            f"{key.path}.{name}",
                            f"adds the shell tool {name!r} (reading {arg!r} as its command "
                            "decides what Tether checks of that tool)",
                        )
                    )
            elif arg != before[name]:
                verb = f"remaps it to {arg!r}" if arg else "removes it"
                dropped.append((f"{key.path}.{name}", f"{verb} (was {before[name]!r})"))
        return kept_entries, dropped
    reason = loosening(key, before, value)
    return (None, [(key.path, reason)]) if reason else (value, [])


__all__ = ["Dropped", "loosening", "tighten_only"]
