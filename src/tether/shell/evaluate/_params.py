"""Parameter expansion with its operators, arithmetic, and command substitution.

Each returns the pieces (``_expand.Segments``) an expansion gives: its value where the line
says it, else a marked part only known at run time that keeps the expansion's source.
"""

from __future__ import annotations

import re

from tether.shell.evaluate._expand import Segments, _segments, join, pieces_of
from tether.shell.evaluate._state import BREAK, DYN, GLOB, HOME, MAX_VALUE, State

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-]")
_OPS = (":-", ":=", ":+", ":?", "-", "=", "+", "?", "##", "#", "%%", "%", "//", "/#", "/%", "/",
        "^^", "^", ",,", ",", "@", ":")  # fmt: skip
_UNKNOWN = object()  # only known at run time (the environment, a computed value)
# Characters of a value a pattern operator reads: a glob's regex backtracks in its length.
MAX_PATTERN_TEXT = 256


def _dyn(source: str, st: State, quoted: bool) -> Segments:
    if quoted:
        return [(st.dyn('"' + source + '"'), False)]
    return [(st.dyn(source), True)]


def _value(name: str, st: State) -> object:
    """Return a scalar's value, None when unset, or _UNKNOWN."""
    if name in st.uncertain:
        st.doubt = True
    if name.isdigit():
        if name == "0":
            return _UNKNOWN if st.zero is None else st.zero
        if st.positional is None:
            return _UNKNOWN
        k = int(name)
        return st.positional[k - 1] if k <= len(st.positional) else None
    if name == "#":
        return _UNKNOWN if st.positional is None else str(len(st.positional))
    if name in ("@", "*"):
        if st.positional is None:
            return _UNKNOWN
        sep = (st.ifs() or " ")[:1] if name == "*" else " "
        return sep.join(st.positional)
    if name in st.arrays:
        values = st.arrays[name]
        return values[0] if values else None
    if name in st.variables:
        value = st.variables[name]
        return _UNKNOWN if value is None else value
    if name == "HOME":
        return HOME
    if name == "IFS":
        return st.ifs() if st.ifs() is not None else _UNKNOWN  # bash ignores an inherited IFS
    return _UNKNOWN


def named(name: str, source: str, st: State, quoted: bool) -> Segments:
    """Expand ``$name`` (``$1``, ``$@``, ``$#`` …)."""
    if name == "@" and st.positional is not None:
        st.revealed = True
        if quoted:
            return [(BREAK.join(st.positional), False)] if st.positional else []
        return [(v, True) for v in _spaced(st.positional)]
    value = _value(name, st)
    if value is _UNKNOWN:
        return _dyn(source, st, quoted)
    st.revealed = True
    return pieces_of("" if value is None else str(value), quoted)


def _spaced(values: list[str]) -> list[str]:
    out: list[str] = []
    for v in values:
        if out:
            out.append(" ")
        out.append(v)
    return out


def braced(body: str, source: str, st: State, depth: int, quoted: bool) -> Segments:
    """Expand ``${…}`` with its operators."""
    if body[:1] == "#" and len(body) > 1:
        inner = braced(body[1:], source, st, depth, True)
        text = join(inner)
        if DYN in text:
            return _dyn(source, st, quoted)
        return pieces_of(str(len(text)), quoted)
    if body[:1] == "!":
        m = _NAME.match(body, 1)
        if m is None or m.end() != len(body):
            return _dyn(source, st, quoted)
        target = _value(m.group(0), st)
        if not isinstance(target, str) or _NAME.fullmatch(target) is None:
            return _dyn(source, st, quoted)
        return braced(target, source, st, depth, quoted)
    m = _NAME.match(body)
    if m is None:
        return _dyn(source, st, quoted)
    name, rest = m.group(0), body[m.end() :]
    values: list[str] | None = None  # an array's elements ([@], [*])
    value: object
    if rest.startswith("["):
        end = rest.find("]")
        if end < 0:
            return _dyn(source, st, quoted)
        sub, rest = rest[1:end], rest[end + 1 :]
        value, values = _element(name, sub, st, depth)
    else:
        value = _value(name, st)
    op = next((o for o in _OPS if rest.startswith(o)), None)
    if op is None and rest:
        return _dyn(source, st, quoted)
    if values is not None and value is not _UNKNOWN:
        if op is not None:
            return _dyn(source, st, quoted)
        st.revealed = True
        if quoted:
            return [(BREAK.join(values), False)] if values else []
        return [(v, True) for v in _spaced(values)]
    if op is None:
        if value is _UNKNOWN:
            return _dyn(source, st, quoted)
        st.revealed = True
        return pieces_of("" if value is None else str(value), quoted)
    word = rest[len(op) :]
    return _operator(name, op, word, value, source, st, depth, quoted)


def _element(name: str, sub: str, st: State, depth: int) -> tuple[object, list[str] | None]:
    if name in st.uncertain:
        st.doubt = True
    if sub in ("@", "*"):
        if name in st.arrays:
            return "", st.arrays[name]
        if name in st.variables and st.variables[name] is not None:
            return "", [str(st.variables[name])]
        return _UNKNOWN, None
    index = _arith_value(sub, st, depth)
    if index is None:
        return _UNKNOWN, None
    if name in st.arrays:
        items = st.arrays[name]
        return (items[index] if -len(items) <= index < len(items) else None), None
    if index == 0:
        return _value(name, st), None
    return (_UNKNOWN if name not in st.variables else None), None


def _operator(
    name: str, op: str, word: str, value: object, source: str, st: State, depth: int, quoted: bool
) -> Segments:
    """Apply one ``${name OP word}`` operator."""
    unset = value is None
    empty = unset or value == ""
    if op in (":-", "-", ":=", "="):
        # Unknown: the reading where it is unset (the text names the fallback; the run-time
        # reading is judged from the original words as well).
        use_default = value is _UNKNOWN or (empty if op[0] == ":" else unset)
        if not use_default:
            st.revealed = True
            return pieces_of(str(value), quoted)
        pieces = _word(word, st, depth, quoted)
        if op.endswith("=") and name.isidentifier():
            st.set(name, join(pieces).replace(GLOB, ""))
        st.revealed = True
        return pieces
    if value is _UNKNOWN:
        return _dyn(source, st, quoted)
    text = "" if value is None else str(value)
    if op in (":+", "+"):
        st.revealed = True
        if empty if op == ":+" else unset:
            return [("", False)] if quoted else []
        return _word(word, st, depth, quoted)
    if op in (":?", "?"):
        st.revealed = True
        return pieces_of(text, quoted) if not (empty if op == ":?" else unset) else []
    if DYN in text or len(text) > MAX_PATTERN_TEXT:
        return _dyn(source, st, quoted)
    result: str | None
    if op in ("#", "##", "%", "%%"):
        result = _trim(text, join(_segments(word, st, depth + 1, tilde=True)), op)
    elif op in ("/", "//", "/#", "/%"):
        pat, _, rep = _split_replace(word)
        repl = join(_segments(rep, st, depth + 1, tilde=False)).replace(GLOB, "")
        result = _replace(text, join(_segments(pat, st, depth + 1, tilde=True)), repl, op)
    elif op in ("^^", "^", ",,", ","):
        result = _case(text, op) if word == "" else None
    elif op == "@":
        from tether.shell.words import decode_ansi_c

        result = {"E": decode_ansi_c(text), "Q": None}.get(word) if word else None
    else:  # ":" substring
        result = _substring(text, word, st, depth)
    if result is None or DYN in result:
        return _dyn(source, st, quoted)
    st.revealed = True
    return pieces_of(result, quoted)


def _word(word: str, st: State, depth: int, quoted: bool) -> Segments:
    pieces = _segments(word, st, depth + 1, tilde=True)
    if quoted:
        return [(t.replace(GLOB, ""), False) for t, _ in pieces]
    return [(t, True) for t, _ in pieces]


def _split_replace(word: str) -> tuple[str, str, str]:
    i = 0
    while i < len(word):
        if word[i] == "\\":
            i += 2
            continue
        if word[i] == "/":
            return word[:i], "/", word[i + 1 :]
        i += 1
    return word, "", ""


def _pattern(text: str, lazy: bool = False) -> str | None:
    """Return the regex of a glob pattern (marked characters are live, the rest literal).

    At most two ``*``: a glob's regex backtracks polynomially in their number.
    """
    if DYN in text or HOME in text or text.count(GLOB + "*") > 2:
        return None
    star = "(?s:.*?)" if lazy else "(?s:.*)"
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == GLOB and i + 1 < n:
            g = text[i + 1]
            if g == "*":
                out.append(star)
            elif g == "?":
                out.append("(?s:.)")
            elif g == "[":
                j = text.find(GLOB + "]", i + 2)
                if j < 0:
                    out.append(re.escape("["))
                else:
                    body = text[i + 2 : j].replace(GLOB, "")
                    if body[:1] in "!^":
                        body = "^" + body[1:]
                    out.append("[" + body.replace("\\", "\\\\") + "]")
                    i = j + 2
                    continue
            else:
                out.append(re.escape(g))
            i += 2
            continue
        out.append(re.escape(c))
        i += 1
    regex = "".join(out)
    try:
        re.compile(regex)
    except re.error:
        return None
    return regex


def _trim(text: str, word: str, op: str) -> str | None:
    """``${x#p}`` (shortest prefix), ``##`` (longest), ``%`` (shortest suffix), ``%%``."""
    pattern = _pattern(word, lazy=op in ("#", "%%"))
    if pattern is None:
        return None
    if op in ("#", "##"):
        m = re.match(pattern, text)
        return text[m.end() :] if m is not None else text
    # The prefix before the suffix: greedy for the shortest suffix, lazy for the longest.
    lead = "(?s:.*)" if op == "%" else "(?s:.*?)"
    m = re.match(f"{lead}({pattern})\\Z", text)
    return text[: m.start(1)] if m is not None else text


def _replace(text: str, word: str, repl: str, op: str) -> str | None:
    """``${x/p/r}`` (first, longest), ``//`` (every), ``/#`` (at the start), ``/%`` (at the end)."""
    pattern = _pattern(word)
    if pattern is None or re.fullmatch(pattern, ""):
        return None  # a pattern that matches nothing at all: bash's rules are subtler
    escaped = repl.replace("\\", "\\\\")
    if op == "/#":
        return re.sub(f"^(?:{pattern})", escaped, text, count=1)
    if op == "/%":
        return re.sub(f"(?:{pattern})\\Z", escaped, text, count=1)
    return re.sub(pattern, escaped, text, count=1 if op == "/" else 0)


def _case(text: str, op: str) -> str:
    if op == "^^":
        return text.upper()
    if op == ",,":
        return text.lower()
    if op == "^":
        return text[:1].upper() + text[1:]
    return text[:1].lower() + text[1:]


def _substring(text: str, word: str, st: State, depth: int) -> str | None:
    offset, sep, length = word.partition(":")
    start = _arith_value(offset, st, depth)
    if start is None:
        return None
    if start < 0:
        start = max(0, len(text) + start)
    if not sep:
        return text[start:]
    count = _arith_value(length, st, depth)
    if count is None:
        return None
    return text[start : start + count] if count >= 0 else text[start : len(text) + count]


# --- arithmetic -----------------------------------------------------------------------------

_TOKEN = re.compile(
    r"\s*(?:(0[xX][0-9a-fA-F]+|[0-9]+)|([A-Za-z_][A-Za-z0-9_]*)|"
    r"(\*\*|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%()<>!~&|^]))"
)
_BINARY = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7,
           "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
           "**": 11}  # fmt: skip
MAX_ARITH = 256


def arithmetic(expr: str, source: str, st: State, depth: int, quoted: bool) -> Segments:
    """Expand ``$((expr))``."""
    value = _arith_value(expr, st, depth)
    if value is None:
        return _dyn(source, st, quoted)
    st.revealed = True
    return pieces_of(str(value), quoted)


def _arith_value(expr: str, st: State, depth: int) -> int | None:
    text = join(_segments(expr, st, depth + 1, tilde=False)).replace(GLOB, "")
    if DYN in text or HOME in text or len(text) > MAX_ARITH:
        return None
    tokens: list[str | int] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            return None
        pos = m.end()
        number, name, op = m.groups()
        if number is not None:
            tokens.append(int(number, 0) if not number.startswith("0") or number == "0"
                          or number[:2].lower() == "0x" else int(number, 8))  # fmt: skip
        elif name is not None:
            value = _value(name, st)
            if value is _UNKNOWN or (isinstance(value, str) and not _int_text(value)):
                return None
            tokens.append(int(value) if isinstance(value, str) and value else 0)
        else:
            tokens.append(op)
    try:
        result, rest = _expr(tokens, 0, 0)
    except (ArithmeticError, IndexError, TypeError, ValueError):
        return None
    return result if rest == len(tokens) and abs(result) < 2**63 else None


def _int_text(value: str) -> bool:
    return value.strip().lstrip("-+").isdigit() or value.strip() == ""


def _expr(tokens: list[str | int], i: int, floor: int) -> tuple[int, int]:
    """Precedence climbing over ``tokens`` (bounded: the expression is at most 256 chars)."""
    left, i = _unary(tokens, i)
    while i < len(tokens):
        op = tokens[i]
        if not isinstance(op, str) or op not in _BINARY or _BINARY[op] < floor:
            break
        prec = _BINARY[op]
        right, i = _expr(tokens, i + 1, prec + (0 if op == "**" else 1))
        left = _apply(op, left, right)
    return left, i


def _unary(tokens: list[str | int], i: int) -> tuple[int, int]:
    tok = tokens[i]
    if isinstance(tok, int):
        return tok, i + 1
    if tok == "(":
        value, j = _expr(tokens, i + 1, 0)
        if tokens[j] != ")":
            raise ValueError("unbalanced")
        return value, j + 1
    if tok in ("-", "+", "!", "~"):
        value, j = _unary(tokens, i + 1)
        return {"-": -value, "+": value, "!": int(not value), "~": ~value}[tok], j
    raise ValueError(tok)


def _apply(op: str, a: int, b: int) -> int:
    if op in ("/", "%"):
        if b == 0:
            raise ZeroDivisionError
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return q if op == "/" else a - q * b
    if op == "**":
        if b < 0 or b > 64:
            raise ValueError("exponent")
        return int(a**b)
    table = {"+": a + b, "-": a - b, "*": a * b, "<<": a << min(b, 63) if b >= 0 else 0,
             ">>": a >> min(b, 63) if b >= 0 else 0, "<": int(a < b), ">": int(a > b),
             "<=": int(a <= b), ">=": int(a >= b), "==": int(a == b), "!=": int(a != b),
             "&": a & b, "|": a | b, "^": a ^ b, "&&": int(bool(a and b)),
             "||": int(bool(a or b))}  # fmt: skip
    return table[op]


# --- command substitution -------------------------------------------------------------------


def substitution(inner: str, source: str, st: State, depth: int, quoted: bool) -> Segments:
    """Expand ``$(…)`` or backticks: the output of a static command, else run-time."""
    from tether.shell.evaluate._walk import output_of

    output = output_of(inner, st, depth + 1) if len(inner) <= MAX_VALUE else None
    if output is None:
        return _dyn(source, st, quoted)
    st.revealed = True
    return pieces_of(output.rstrip("\n"), quoted)
