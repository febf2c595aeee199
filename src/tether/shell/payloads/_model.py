"""What a payload is (its text, its words, or that it is built at run time) and how words are
quoted back into shell text."""

from __future__ import annotations

from typing import NamedTuple

from tether.shell.model import Word


class Payload(NamedTuple):
    """A command one program runs for another: its text or its words, or that it is unknowable."""

    how: str  # who runs it, for messages: "awk system()", "find -exec", "docker run"
    text: str = ""  # shell source to parse and judge
    dynamic: bool = False  # built at run time: nothing can be read before it runs
    # Bind mounts of a container (container path, host path): its paths act on the host's.
    mounts: tuple[tuple[str, str], ...] = ()
    # Or the words of a command run without a shell (``find -exec``, ``docker exec``): judged
    # as they are, with no second parse (``render(argv)`` is the same command as text).
    argv: tuple[Word, ...] = ()


# --- quoting words back into shell text -----------------------------------------------------------

_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%^")


def render(words: tuple[Word, ...] | list[Word]) -> str:
    """Return shell text whose words are ``words``: literals quoted, expansions left live."""
    out: list[str] = []
    for w in words:
        v = w.value
        if not w.literal:
            # Kept expandable, so the parser sees it is computed at run time.
            out.append('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"')
        elif v and all(c in _SAFE for c in v):
            out.append(v)
        else:
            out.append("'" + v.replace("'", "'\\''") + "'")
    return " ".join(out)


__all__ = ["Payload", "render"]
