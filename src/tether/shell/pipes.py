"""Count the pipe operators bash sees: not a ``|`` in quotes, comments or a heredoc's text.

The parser's cap on pipe operators exists because tree-sitter-bash is quadratic in one
pipeline's length; a ``|`` in a markdown table inside ``cat > notes.md <<'EOF'`` is text, and
counting it blocked a legitimate note. A ``|`` inside a command substitution (in double quotes
or an unquoted heredoc) is an operator and is counted. Linear: one regex scan, token by token,
heredoc bodies skipped with ``str.find``.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"'[^']*'?"  # single quotes
    r'|"(?:[^"\\]|\\.)*"?'  # double quotes
    r"|\\."  # an escaped character
    r"|<<<"  # a here-string (not a heredoc)
    r"|<<-?[ \t]*(?:'[^'\n]*'|\"[^\"\n]*\"|\\?[^\s;&|<>()]+)"  # a heredoc's delimiter
    r"|\|\|"  # or
    r"|\|"  # a pipe (``|&`` too)
    r"|(?:(?<=[\s;&|()])|^)#[^\n]*"  # a comment
    r"|\n",
    re.DOTALL,
)


def pipe_operators(text: str, stop: int | None = None) -> int:
    """Return how many ``|`` and ``|&`` operators ``text`` holds (``||`` is not one).

    With ``stop``, counting ends once the count passes it (the cap needs no more).
    """
    limit = len(text) if stop is None else stop
    count = 0
    pending: list[tuple[str, bool, bool]] = []  # heredocs: (delimiter, strip tabs, quoted)
    pos, n = 0, len(text)
    search = _TOKEN.search
    while pos < n:
        m = search(text, pos)
        if m is None:
            break
        token = m.group()
        pos = m.end()
        first = token[0]
        if token == "|":
            count += 1
            if count > limit:
                return count
        elif first == '"':
            if "$(" in token or "`" in token:
                count += token.count("|")  # substitutions inside: their pipes are operators
        elif token == "\n":
            if pending:
                pos, inside = _skip_bodies(text, pos, pending)
                count += inside
                pending.clear()
        elif first == "<" and token != "<<<":
            word = token[2:].lstrip("-").strip(" \t")
            quoted = word[:1] in "'\"\\"
            pending.append((word.strip("'\"").lstrip("\\"), token.startswith("<<-"), quoted))
    return count


def _skip_bodies(text: str, i: int, heredocs: list[tuple[str, bool, bool]]) -> tuple[int, int]:
    """Return where the text after the heredoc bodies starting at ``i`` resumes, and how many
    pipes their substitutions hold."""
    pipes = 0
    n = len(text)
    for delimiter, strip, quoted in heredocs:
        start = i
        end = _closing_line(text, i, delimiter, strip)
        body = text[start:end]
        if not quoted and ("$(" in body or "`" in body):
            pipes += _substituted_pipes(body)
        j = text.find("\n", end)
        i = n if j < 0 else j + 1
    return min(i, n), pipes


def _closing_line(text: str, i: int, delimiter: str, strip: bool) -> int:
    """Return where the line that closes a heredoc starts (the end of the text if none)."""
    n = len(text)
    if not strip:
        if text.startswith(delimiter + "\n", i) or text[i:] == delimiter:
            return i
        j = text.find("\n" + delimiter + "\n", i - 1)
        if j >= 0:
            return j + 1
        return n - len(delimiter) if text.endswith("\n" + delimiter) else n
    while i < n:
        j = text.find("\n", i)
        end = n if j < 0 else j
        if text[i:end].lstrip("\t") == delimiter:
            return i
        if j < 0:
            return n
        i = j + 1
    return n


def _substituted_pipes(body: str) -> int:
    """Count the pipes inside the ``$(…)`` and backticks of an unquoted heredoc's text."""
    from tether.shell.evaluate._expand import close

    count = 0
    j = body.find("$(")
    while j >= 0:
        end = close(body, j + 2, "(", ")")
        end = len(body) if end < 0 else end
        count += body.count("|", j, end)
        j = body.find("$(", end)
    return count + (body.count("|") if "`" in body else 0)
