"""Brace expansion of command words, done on the text before it is parsed again.

tree-sitter-bash reads a brace expansion in command position (``{parted,"$v0",/dev/sda}``) as a
group and fails, so a line holding one has no tree for the evaluator to walk past the error
(``v0=-s; {…}``, ``g() { {perl,-e,…}; }; g``). bash expands braces first, on the text of each
word, before parameter expansion: each alternative keeps its own quoting and is expanded
afterwards with the variables set earlier in the line. So the line can be rewritten with those
words brace-expanded (``v0=-s; parted "$v0" /dev/sda``) and parsed again. Only command words
are rewritten, and only where the rewrite cannot change how bash reads the line: an alternative
that would become an assignment, a reserved word or a comment leaves the line as it is, and so
does a heredoc (its body is text, not words). One pass, linear in the text.
"""

from __future__ import annotations

import re

from tether.shell.evaluate._expand import braces, skip_quoted

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_HEREDOC = re.compile(r"(?<!<)<<(?!<)")
# Words after which the next word is a command word again.
_KEEP = frozenset({"{", "(", "!", "if", "then", "else", "elif", "while", "until", "do", "time",
                   "fi", "done", "}"})  # fmt: skip
_RESERVED = _KEEP | frozenset({"case", "esac", "for", "select", "function", "in", "[[", "]]"})


def command_braces(text: str) -> str | None:
    """Return ``text`` with its brace-expanded command words written out, or None if none."""
    if "{" not in text or _HEREDOC.search(text):
        return None
    out: list[str] = []
    changed = False
    command = True  # the next word is a command word
    target = False  # the next word is a redirect's target
    i, n, last = 0, len(text), 0
    while i < n:
        c = text[i]
        if c in " \t":
            i += 1
            continue
        if c in "\n;&|()":
            command, target = True, False
            i += 1
            continue
        if c in "<>":
            while i < n and text[i] in "<>&|-":
                i += 1
            target = True
            continue
        if c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        start = i
        i = _word_end(text, i)
        if i == start:
            i += 1
            continue
        word = text[start:i]
        if target:
            target = False
            continue
        if command and len(word) > 1 and word[0] == "{" and word[1] not in " \t":
            items = braces(word)
            if len(items) > 1 or items[0] != word:
                first = next((w for w in items if w), "")
                if (
                    _ASSIGNMENT.match(first)
                    or first in _RESERVED
                    or any(w.startswith("#") for w in items)
                ):
                    return None
                out.append(text[last:start])
                out.append(" ".join(items))
                last = i
                changed = True
                command = False
                continue
        command = command and (word in _KEEP or bool(_ASSIGNMENT.match(word)))
    if not changed:
        return None
    out.append(text[last:])
    return "".join(out)


def _word_end(text: str, i: int) -> int:
    """Return where the word starting at ``i`` ends (quotes and substitutions whole)."""
    n = len(text)
    while i < n:
        c = text[i]
        if c in " \t\n;&|()<>":
            return i
        i = skip_quoted(text, i)
    return min(i, n)


__all__ = ["command_braces"]
