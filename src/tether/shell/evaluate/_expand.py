"""Word expansion in bash's order: braces, then tilde, parameters, arithmetic and substitutions
left to right, then field splitting with the current IFS, and quote removal.

A word is read from its source text (the span tree-sitter gives it), so quoting is bash's own.
Globs are kept as patterns (marked), not matched: the judges know what ``/*`` reaches.
"""

from __future__ import annotations

from tether.shell.evaluate._state import (
    BREAK,
    DYN,
    GLOB,
    HOME,
    MAX_FIELDS,
    MAX_VALUE,
    GiveUp,
    State,
)
from tether.shell.words import decode_ansi_c

Segments = list[tuple[str, bool]]  # (text, splittable: the result of an unquoted expansion)
MAX_NEST = 8  # expansions inside expansions (``${a:-${b:-$(…)}}``)
_NAME_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_NAME_CHARS = _NAME_START + "0123456789"
_SPECIAL = "@*#?$!-0123456789"


def close(raw: str, i: int, opener: str, closer: str) -> int:
    """Return the index of the ``closer`` matching an ``opener`` just before ``raw[i]``, or -1."""
    depth, n = 1, len(raw)
    while i < n:
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = raw.find("'", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == '"':
            i = _dq_end(raw, i + 1) + 1
            continue
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def skip_quoted(text: str, i: int) -> int:
    """Return the index after the quoted or substituted unit at ``i``: a backslash pair, a
    '…' or "…" string, a ``$(…)`` or ``${…}``; a plain character is one. The one scan the
    evaluator's word readers share."""
    n = len(text)
    c = text[i]
    if c == "\\":
        return i + 2
    if c == "'":
        j = text.find("'", i + 1)
        return n if j < 0 else j + 1
    if c == '"':
        return _dq_end(text, i + 1) + 1
    if c == "$" and text[i + 1 : i + 2] in ("(", "{"):
        j = close(text, i + 2, text[i + 1], ")" if text[i + 1] == "(" else "}")
        return n if j < 0 else j + 1
    return i + 1


def _dq_end(raw: str, i: int) -> int:
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i
        if c == "$" and raw[i + 1 : i + 2] in ("(", "{"):
            j = close(raw, i + 2, raw[i + 1], ")" if raw[i + 1] == "(" else "}")
            if j < 0:
                return n
            i = j + 1
            continue
        i += 1
    return n


# --- brace expansion ----------------------------------------------------------------------


def braces(raw: str) -> list[str]:
    """Return the words brace expansion makes of ``raw`` (the word itself when none)."""
    if "{" not in raw:
        return [raw]
    done: list[str] = []
    todo = [raw]
    while todo:
        word = todo.pop()
        found = _first_brace(word)
        if found is None:
            done.append(word)
        else:
            start, end, items = found
            todo.extend(word[:start] + item + word[end + 1 :] for item in reversed(items))
        if len(done) + len(todo) > MAX_FIELDS:
            raise GiveUp(f"a brace expansion of more than {MAX_FIELDS} words")
    return done


def _first_brace(word: str) -> tuple[int, int, list[str]] | None:
    i, n = 0, len(word)
    while i < n:
        c = word[i]
        if c == "\\":
            i += 2
        elif c == "'":
            j = word.find("'", i + 1)
            i = n if j < 0 else j + 1
        elif c == '"':
            i = _dq_end(word, i + 1) + 1
        elif c == "$" and word[i + 1 : i + 2] in ("{", "("):
            j = close(word, i + 2, word[i + 1], "}" if word[i + 1] == "{" else ")")
            i = n if j < 0 else j + 1
        elif c == "{":
            end = close(word, i + 1, "{", "}")
            if end < 0:
                return None
            items = _brace_items(word[i + 1 : end])
            if items is not None:
                return i, end, items
            i += 1
        else:
            i += 1
    return None


def _brace_items(body: str) -> list[str] | None:
    parts: list[str] = []
    depth, start, i, n = 0, 0, 0, len(body)
    while i < n:
        c = body[i]
        if c == "\\":
            i += 2
            continue
        if c in "'\"":
            j = body.find(c, i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
        i += 1
    if parts:
        return [*parts, body[start:]]
    return _sequence(body)


def _sequence(body: str) -> list[str] | None:
    pieces = body.split("..")
    if len(pieces) not in (2, 3):
        return None
    step = 1
    if len(pieces) == 3:
        if not _is_int(pieces[2]):
            return None
        step = abs(int(pieces[2])) or 1
    a, b = pieces[0], pieces[1]
    if _is_int(a) and _is_int(b):
        lo, hi = int(a), int(b)
        if abs(hi - lo) // step >= MAX_FIELDS:
            raise GiveUp(f"a brace sequence of more than {MAX_FIELDS} words")
        width = max(len(a), len(b)) if (a.lstrip("-")[:1] == "0" or b.lstrip("-")[:1] == "0") else 0
        rng = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [str(v).zfill(width) if width else str(v) for v in rng]
    if len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha():
        lo, hi = ord(a), ord(b)
        rng = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [chr(v) for v in rng]
    return None


def _is_int(text: str) -> bool:
    return text.lstrip("-+").isdigit() and len(text) < 10


# --- the word ---------------------------------------------------------------------------


def expand(raw: str, st: State, *, split: bool = True, depth: int = 0) -> list[str]:
    """Return the fields ``raw`` expands to (one field when ``split`` is False)."""
    out: list[str] = []
    for word in braces(raw) if split else [raw]:
        if word != raw:
            st.revealed = True
        segments = _segments(word, st, depth, tilde=True)
        out.extend(fields(segments, st) if split else [join(segments)])
        if len(out) > MAX_FIELDS:
            raise GiveUp(f"a word of more than {MAX_FIELDS} fields")
    return out


def expand_text(raw: str, st: State, depth: int = 0) -> str:
    """Return ``raw`` expanded as one word (an assignment's value, a here-string)."""
    return join(_segments(raw, st, depth, tilde=True))


def join(segments: Segments) -> str:
    """Return segments as one value (no splitting: an assignment, a quoted context)."""
    text = "".join(t for t, _ in segments).replace(BREAK, " ")
    if len(text) > MAX_VALUE:
        raise GiveUp(f"a value longer than {MAX_VALUE:,} characters")
    return text


def fields(segments: Segments, st: State) -> list[str]:
    """Split segments into fields: unquoted expansion results on the current IFS."""
    ifs = st.ifs()
    out: list[str] = []
    cur: list[str] = []
    have = False  # the current field exists (a quoted "" is a field; nothing is not)
    for text, splittable in segments:
        if not splittable or ifs == "" or text == "":
            if BREAK in text:
                pieces = text.split(BREAK)
                for piece in pieces[:-1]:
                    cur.append(piece)
                    out.append("".join(cur))
                    cur = []
                cur.append(pieces[-1])
                have = True
                continue
            cur.append(text)
            have = have or not splittable or text != ""
            continue
        if ifs is None:  # IFS only known at run time: the expansion's value is too
            cur.append(st.dyn("$IFS-split"))
            have = True
            continue
        i = 0
        while i < len(text):
            c = text[i]
            if c == BREAK or (c in ifs and (i == 0 or text[i - 1] != GLOB)):
                if c in " \t\n" and c != BREAK:
                    if have:
                        out.append("".join(cur))
                        cur, have = [], False
                else:
                    out.append("".join(cur))
                    cur, have = [], False
            else:
                cur.append(c)
                have = True
            i += 1
    if have:
        out.append("".join(cur))
    for value in out:
        if len(value) > MAX_VALUE:
            raise GiveUp(f"a value longer than {MAX_VALUE:,} characters")
    return out


def _segments(word: str, st: State, depth: int, tilde: bool) -> Segments:
    """Return the pieces of one word after expansion, before splitting."""
    if depth > MAX_NEST:
        return [(st.dyn(word), False)]
    st.step()
    out: Segments = []
    i, n = 0, len(word)
    if tilde and word[:1] == "~":
        j = word.find("/")
        j = n if j < 0 else j
        user = word[1:j]
        if user == "":
            out.append((HOME, False))
        elif user.replace("-", "_").replace(".", "_").isidentifier():
            out.append((st.dyn(word[:j]), False))  # ~user: that user's home
        else:
            j = 0
        i = j
    lit: list[str] = []  # unquoted literal text
    while i < n:
        c = word[i]
        if c == "\\":
            if i + 1 < n and word[i + 1] != "\n":
                lit.append(word[i + 1])
            i += 2
        elif c == "'":
            j = word.find("'", i + 1)
            j = n if j < 0 else j
            lit.append(word[i + 1 : j])
            i = j + 1
        elif c == '"':
            _flush(lit, out)
            j = _dq_end(word, i + 1)
            out.extend(_double_quoted(word[i + 1 : j], st, depth))
            i = j + 1
        elif c == "$" and word[i + 1 : i + 2] == "'":
            j = i + 2
            while j < n and word[j] != "'":
                j += 2 if word[j] == "\\" else 1
            lit.append(decode_ansi_c(word[i + 2 : j]))
            i = j + 1
        elif c == "$" and word[i + 1 : i + 2] == '"':  # $"…": a translated string
            i += 1
        elif c == "$" or c == "`":
            _flush(lit, out)
            j, pieces = _dollar(word, i, st, depth, quoted=False)
            out.extend(pieces)
            i = j
        elif c in "*?[]":
            lit.append(GLOB + c)
            i += 1
        elif c in "<>" and word[i + 1 : i + 2] == "(":  # process substitution: a path
            _flush(lit, out)
            j = close(word, i + 2, "(", ")")
            j = n - 1 if j < 0 else j
            out.append((st.dyn(word[i : j + 1]), False))
            i = j + 1
        else:
            lit.append(c)
            i += 1
    _flush(lit, out)
    return out


def _flush(lit: list[str], out: Segments) -> None:
    if lit:
        out.append(("".join(lit), False))
        lit.clear()


def _double_quoted(body: str, st: State, depth: int) -> Segments:
    out: Segments = []
    lit: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c == "\\" and i + 1 < n and body[i + 1] in '$`"\\\n':
            if body[i + 1] != "\n":
                lit.append(body[i + 1])
            i += 2
        elif c == "$" or c == "`":
            _flush(lit, out)
            j, pieces = _dollar(body, i, st, depth, quoted=True)
            out.extend(pieces)
            i = j
        else:
            lit.append(c)
            i += 1
    _flush(lit, out)
    if not out:
        out.append(("", False))  # "" is an empty field
    return out


def _dollar(word: str, i: int, st: State, depth: int, quoted: bool) -> tuple[int, Segments]:
    """Expand the ``$…`` or backtick at ``word[i]``: return where it ends and its pieces."""
    from tether.shell.evaluate import _params

    n = len(word)
    if word[i] == "`":
        j = i + 1
        while j < n and word[j] != "`":
            j += 2 if word[j] == "\\" else 1
        inner = word[i + 1 : j].replace("\\`", "`").replace("\\$", "$").replace("\\\\", "\\")
        source = word[i : j + 1]
        return j + 1, _params.substitution(inner, source, st, depth, quoted)
    nxt = word[i + 1 : i + 2]
    if word.startswith("$((", i):
        j = close(word, i + 3, "(", ")")
        if j >= 0 and word[j + 1 : j + 2] == ")":
            source = word[i : j + 2]
            return j + 2, _params.arithmetic(word[i + 3 : j], source, st, depth, quoted)
    if nxt == "(":
        j = close(word, i + 2, "(", ")")
        j = n - 1 if j < 0 else j
        source = word[i : j + 1]
        return j + 1, _params.substitution(word[i + 2 : j], source, st, depth, quoted)
    if nxt == "{":
        j = close(word, i + 2, "{", "}")
        j = n - 1 if j < 0 else j
        source = word[i : j + 1]
        return j + 1, _params.braced(word[i + 2 : j], source, st, depth, quoted)
    if nxt and nxt in _NAME_START:
        j = i + 1
        while j < n and word[j] in _NAME_CHARS:
            j += 1
        return j, _params.named(word[i + 1 : j], word[i:j], st, quoted)
    if nxt and nxt in _SPECIAL:
        return i + 2, _params.named(nxt, word[i : i + 2], st, quoted)
    return i + 1, [("$", False)]


def pieces_of(value: str, quoted: bool) -> Segments:
    """Return a variable's value as the pieces of an expansion (quoted or not)."""
    if quoted:
        return [(value, False)]  # a loop's file name stays a pattern; an assigned * is text
    return [(value if GLOB in value else _mark_globs(value), True)]


def _mark_globs(value: str) -> str:
    """Mark the glob characters of an unquoted expansion's value: bash expands them."""
    if not any(c in value for c in "*?["):
        return value
    return "".join(GLOB + c if c in "*?[]" else c for c in value)


__all__ = ["DYN", "braces", "close", "expand", "expand_text", "fields", "join", "pieces_of"]
