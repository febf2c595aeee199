"""Count the pipe operators bash sees: not a ``|`` in quotes, comments or a heredoc's text.

The parser's cap on pipe operators exists because tree-sitter-bash is quadratic in one
pipeline's length; a ``|`` in a markdown table inside ``cat > notes.md <<'EOF'`` is text, and
counting it blocked a legitimate note. A ``|`` inside a command substitution (in double quotes
or an unquoted heredoc) is an operator and is counted. One pass, linear in the text.
"""

from __future__ import annotations


def pipe_operators(text: str) -> int:
    """Return how many ``|`` and ``|&`` operators ``text`` holds (``||`` is not one)."""
    count = 0
    heredocs: list[tuple[str, bool, bool]] = []  # (delimiter, strip tabs, quoted)
    i, n = 0, len(text)
    word_start = True
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            word_start = False
            continue
        if c == "'":
            j = text.find("'", i + 1)
            i = n if j < 0 else j + 1
            word_start = False
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                if text[j] == "\\":
                    j += 1
                elif (text[j] == "$" and text[j + 1 : j + 2] == "(") or text[j] == "`":
                    end = _substitution_end(text, j)
                    count += text.count("|", j, end)
                    j = end
                j += 1
            i = j + 1
            word_start = False
            continue
        if c == "#" and word_start:
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "<" and text.startswith("<<", i) and not text.startswith("<<<", i):
            found = _heredoc_start(text, i + 2)
            if found is not None:
                heredocs.append(found[:3])
                i = found[3]
                continue
        if c == "\n" and heredocs:
            i, inside = _skip_bodies(text, i + 1, heredocs)
            count += inside
            heredocs.clear()
            word_start = True
            continue
        if c == "|":
            if text[i + 1 : i + 2] == "|":
                i += 2
                word_start = True
                continue
            count += 1
        word_start = c in " \t\n;&|()<>"
        i += 1
    return count


def _substitution_end(text: str, j: int) -> int:
    if text[j] == "`":
        k = text.find("`", j + 1)
        return len(text) if k < 0 else k
    from tether.shell.evaluate._expand import close

    k = close(text, j + 2, "(", ")")
    return len(text) if k < 0 else k


def _heredoc_start(text: str, i: int) -> tuple[str, bool, bool, int] | None:
    strip = text[i : i + 1] == "-"
    i += 1 if strip else 0
    n = len(text)
    while i < n and text[i] in " \t":
        i += 1
    start = i
    quoted = False
    word: list[str] = []
    while i < n and text[i] not in " \t\n;&|<>()":
        c = text[i]
        if c in "'\"":
            quoted = True
            j = text.find(c, i + 1)
            j = n if j < 0 else j
            word.append(text[i + 1 : j])
            i = j + 1
        elif c == "\\":
            quoted = True
            word.append(text[i + 1 : i + 2])
            i += 2
        else:
            word.append(c)
            i += 1
    if i == start:
        return None
    return "".join(word), strip, quoted, i


def _skip_bodies(text: str, i: int, heredocs: list[tuple[str, bool, bool]]) -> tuple[int, int]:
    """Return where the text after the heredoc bodies starting at ``i`` resumes, and how many
    pipes their substitutions hold."""
    pipes = 0
    n = len(text)
    for delimiter, strip, quoted in heredocs:
        body_start = i
        while i < n:
            j = text.find("\n", i)
            end = n if j < 0 else j
            line = text[i:end]
            if (line.lstrip("\t") if strip else line) == delimiter:
                body = text[body_start:i]
                if not quoted and ("$(" in body or "`" in body):
                    pipes += _substituted_pipes(body)
                i = end + 1
                break
            i = end + 1
    return min(i, n), pipes


def _substituted_pipes(body: str) -> int:
    count = 0
    j = body.find("$(")
    while j >= 0:
        end = _substitution_end(body, j)
        count += body.count("|", j, end)
        j = body.find("$(", end)
    return count + (body.count("|") if "`" in body else 0)
