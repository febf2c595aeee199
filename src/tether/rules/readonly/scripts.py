"""Proofs over sed and awk programs: do they only print, or can they write and run commands?

Both return None when the program only prints, or the reason it cannot be proven.
"""

from __future__ import annotations

import re

_SED_SIMPLE = frozenset("=dDgGhHnNpPxzF")
_SED_FLAGS = frozenset("gpiImM0123456789")


def _sed_address(s: str, i: int) -> int | None:
    """Skip one address starting at ``s[i]``; return the index after it (None if malformed)."""
    n = len(s)
    if i < n and s[i] in "+~":
        i += 1
    if i < n and s[i].isdigit():
        while i < n and (s[i].isdigit() or s[i] == "~"):
            i += 1
        return i
    if i < n and s[i] == "$":
        return i + 1
    if i < n and s[i] in "/\\":
        delim = s[i]
        if delim == "\\":
            i += 1
            if i >= n:
                return None
            delim = s[i]
        i += 1
        while i < n and s[i] != delim:
            if s[i] == "\n":
                return None
            i += 2 if s[i] == "\\" else 1
        if i >= n:
            return None
        i += 1
        while i < n and s[i] in "IM":
            i += 1
        return i
    return i


def _sed_delimited(s: str, i: int, delim: str) -> int | None:
    """Skip text up to the unescaped ``delim``; return the index after it."""
    n = len(s)
    while i < n and s[i] != delim:
        i += 2 if s[i] == "\\" else 1
    return i + 1 if i < n else None


def sed_script_problem(script: str) -> str | None:
    """Return why a sed script may write or run commands, or None when it only prints."""
    s = script
    n = len(s)
    i = 0
    while i < n:
        c = s[i]
        if c in " \t\n;":
            i += 1
            continue
        if c == "#":
            while i < n and s[i] != "\n":
                i += 1
            continue
        if c == "}":
            i += 1
            continue
        start = i
        j = _sed_address(s, i)
        if j is None:
            return "an address is malformed"
        if j != start:
            i = j
            while i < n and s[i] in " \t":
                i += 1
            if i < n and s[i] == ",":
                j = _sed_address(s, i + 1)
                if j is None or j == i + 1:
                    return "an address range is malformed"
                i = j
        while i < n and s[i] in " \t!":
            i += 1
        if i >= n:
            return "an address has no command"
        c = s[i]
        i += 1
        if c in _SED_SIMPLE or c == "{":
            continue
        if c in "qQlL":
            while i < n and s[i] in " \t":
                i += 1
            while i < n and s[i].isdigit():
                i += 1
            continue
        if c in ":btT":
            while i < n and s[i] not in ";\n":
                i += 1
            continue
        if c in "sy":
            if i >= n or s[i] in "\n\\":
                return f"the `{c}` command has no delimiter"
            delim = s[i]
            for _ in range(2):
                k = _sed_delimited(s, i + 1, delim)
                if k is None:
                    return f"the `{c}` command is unterminated"
                i = k - 1
            i += 1
            if c == "s":
                while i < n and s[i] not in ";\n}# \t":
                    if s[i] == "e":
                        return "the `s///e` flag runs the pattern space as a command"
                    if s[i] in "wW":
                        return "the `s///w` flag writes a file"
                    if s[i] not in _SED_FLAGS:
                        return f"`s///{s[i]}` is not a known flag"
                    i += 1
            continue
        if c in "wW":
            return f"the `{c}` command writes a file"
        if c == "e":
            return "the `e` command runs a command"
        if c in "rR":
            return f"the `{c}` command reads another file (not proven)"
        if c in "aic":
            return f"the `{c}` text command is not proven"
        return f"`{c}` is not a sed command known to be safe"
    return None


_AWK_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_AWK_DANGER = re.compile(r"system|getline|close|@|\|&|extension")
_AWK_PRINT = re.compile(r"\bprintf?\b")


def awk_program_problem(program: str) -> str | None:
    """Return why an awk program may write or run commands, or None when it only prints."""
    found = _AWK_DANGER.search(program)
    if found:
        return f"awk `{found.group(0)}` can run commands or open files"
    if "/" in program:
        # A `/` may start a regex, which string stripping cannot tell from division; judge the
        # raw text coarsely instead.
        code = program
    else:
        code = _AWK_STRING.sub(" S ", program)
        if '"' in code:
            return "an awk string is unterminated"
    if re.search(r"(?<!\|)\|(?!\|)", code):
        return "awk `|` pipes output into a command"
    if ">" not in code or not _AWK_PRINT.search(code):
        return None
    if "/" in program:
        # Regexes hide statement boundaries, but a redirect still comes after its `print`.
        first = _AWK_PRINT.search(code)
        if first and ">" in code[first.start() :]:
            return "awk `print` followed by `>` may write a file"
        return None
    for statement in re.split(r"[;{}\n]", code):
        if _AWK_PRINT.search(statement) and ">" in statement:
            return "awk `print … >` writes a file"
    return None
