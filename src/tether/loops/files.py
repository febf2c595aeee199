"""File contents by hash, from the write and edit tools' arguments: what a call did to a file.

Tether never sees a file, only the calls that change it. A write names the whole content (its
hash is the file's token); an edit names lines it removes and adds, with whatever context the
model chose to quote. Counting an edit as a multiset of line hashes (lines added minus lines
removed, context cancelling out) makes the token a function of the content the edits lead to,
relative to the last known base: ``x = 1`` → ``x = 2`` and later ``x = 2`` → ``x = 1`` quoting
other neighbours land back on the first token, which is what a flip-flop is. Shell commands
that put files back (``git checkout -- f``, ``git restore``, ``git reset --hard``,
``git stash``) return them to the content the session found (token ``""``).

Only hashes are kept: no line of a file is stored.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping
from typing import Any

from tether.loops.fingerprint import _digest

BASE = ""  # the content the session found the file in
MAX_DELTA = 512  # line hashes per file; past it the file's token is no longer comparable
ALL_FILES = "*"

# (path, removed lines, added lines, whole content or None)
Change = tuple[str, list[str], list[str], "str | None"]


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.split("\n")]


def _line_hash(line: str) -> str:
    return format(zlib.crc32(line.encode("utf-8", "surrogatepass")), "08x")


def changes(tool: str, args: Mapping[str, Any]) -> list[Change]:
    """Return what a write or edit call does to each file it names (empty: nothing known)."""
    path = args.get("file_path") or args.get("path") or args.get("filename")
    sub = args.get("command")
    content = args.get("content", args.get("file_text"))
    if isinstance(path, str) and isinstance(content, str) and sub in (None, "create", "write"):
        return [(path, [], [], content)]
    if isinstance(path, str) and isinstance(args.get("edits"), list):  # MultiEdit
        removed: list[str] = []
        added: list[str] = []
        for edit in args["edits"]:
            if isinstance(edit, Mapping):
                old, new = edit.get("old_string"), edit.get("new_string")
                if isinstance(old, str) and isinstance(new, str):
                    removed += _lines(old)
                    added += _lines(new)
        return [(path, removed, added, None)] if removed or added else []
    old = args.get("old_string", args.get("old_str"))
    new = args.get("new_string", args.get("new_str"))
    if isinstance(path, str) and isinstance(new, str):
        if isinstance(old, str):
            return [(path, _lines(old), _lines(new), None)]
        if sub == "insert":
            return [(path, [], _lines(new), None)]
    patch = args.get("patch", args.get("input"))
    if tool == "apply_patch" and isinstance(patch, str):
        return list(_patch(patch))
    return []


def _patch(text: str) -> Iterator[Change]:
    """Read Codex's ``*** Update File:`` / ``*** Add File:`` patch format."""
    path, whole = "", None
    removed: list[str] = []
    added: list[str] = []
    adding = False
    for line in text.split("\n"):
        if line.startswith(("*** Update File: ", "*** Add File: ", "*** Delete File: ")):
            if path:
                yield path, removed, added, whole
            path, removed, added = line.split(": ", 1)[1].strip(), [], []
            adding = line.startswith("*** Add File: ")
            whole = "" if adding else None
        elif path and line.startswith("-") and not line.startswith("---"):
            removed.append(line[1:].rstrip())
        elif path and line.startswith("+") and not line.startswith("+++"):
            if adding and whole is not None:
                whole += line[1:] + "\n"
            else:
                added.append(line[1:].rstrip())
    if path:
        yield path, removed, added, whole


_REFUSED = ("<tool_use_error>", "Error", "error:", "ERROR")
_REFUSED_IN = ("No changes", "not been read", "not found", "No replacement", "did not match")


def applied(output: Any) -> bool:
    """Return False when an edit tool's result says the edit was not made."""
    if not isinstance(output, str):
        return True
    head = output[:300]
    return not head.lstrip().startswith(_REFUSED) and not any(m in head for m in _REFUSED_IN)


def token_after(record: Mapping[str, Any], change: Change) -> tuple[str, str, dict[str, int]]:
    """Return (token, base, delta) a file record reaches after ``change``."""
    _, removed, added, whole = change
    if whole is not None:
        token = "w" + _digest(whole)
        return token, token, {}
    delta: dict[str, int] = dict(record.get("delta") or {})
    for line in removed:
        key = _line_hash(line)
        delta[key] = delta.get(key, 0) - 1
    for line in added:
        key = _line_hash(line)
        delta[key] = delta.get(key, 0) + 1
    delta = {k: v for k, v in delta.items() if v}
    base = str(record.get("base") or BASE)
    if len(delta) > MAX_DELTA:  # too much to compare: a fresh, unrepeatable token
        unique = _digest(base + repr(sorted(delta.items())))
        return "x" + unique, "x" + unique, {}
    if not delta:
        return base, base, {}
    return "e" + _digest(base + "\0" + repr(sorted(delta.items()))), base, delta


def mix(path: str, token: str) -> int:
    """Return a file's share of the tree hash (0 at the content the session found)."""
    if token == BASE:
        return 0
    return int(_digest(path + "\0" + token), 16)


def reverted(command: str) -> list[str] | str | None:
    """Return the paths a shell command puts back as git has them (``ALL_FILES``: all), or None.

    Only plain forms are read (no substitutions): ``git checkout [--] PATH…``, ``git checkout
    .``, ``git restore [--staged] [--worktree] PATH…``, ``git reset --hard``, ``git stash``.
    """
    if "git" not in command:
        return None
    found: list[str] = []
    for part in command.replace("&&", ";").replace("||", ";").split(";"):
        words = part.split()
        if len(words) < 2 or words[0] != "git":
            continue
        sub, rest = words[1], [w for w in words[2:] if not w.startswith("-")]
        if (sub == "reset" and "--hard" in words) or (
            sub == "stash" and rest[:1] in ([], ["push"])
        ):
            return ALL_FILES
        if sub in ("checkout", "restore") and rest and ("--" in words or sub == "restore"):
            if "." in rest:
                return ALL_FILES
            found += rest
        elif sub == "checkout" and rest == ["."]:
            return ALL_FILES
    return found or None
