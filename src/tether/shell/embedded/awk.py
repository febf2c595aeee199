"""What an awk program runs and writes, read as gawk 5.2, mawk 1.3.4 and BusyBox awk read it.

The program is split into tokens (strings, regex literals where an operand may start,
comments, ``\\``-newline) and read for:

- output redirections: a ``>``, ``>>``, ``|`` or ``|&`` at the level of a ``print``/``printf``
  statement (not inside its parentheses), up to the statement's end; a statement goes on after
  a newline that follows ``,``, ``{``, ``&&``, ``||``, ``do``, ``else``, ``?``, ``:`` or a
  binary operator, and inside parentheses (reading on finds more, never less);
- commands: ``system(…)``, ``print | "cmd"``, ``"cmd" | getline``, gawk's ``|&``;
- what cannot be read: gawk's ``@include``, ``@load``, ``@namespace`` and indirect calls
  (``@name()``: a function named by a string, ``system`` too), reading ``/inet/…``; an
  indirect call whose variable only ever holds string literals is read as those functions
  (``f = "system"; @f("cmd")`` runs cmd; ``f = "toupper"`` runs nothing).

A target or command that is one string literal is known; anything else (``> $1``,
``> "a" "b"``, ``cmd | getline``) is computed: None.
"""

from __future__ import annotations

from typing import NamedTuple


class Run(NamedTuple):
    how: str  # "system()", "print | cmd", "cmd | getline", "|&"
    command: str | None  # None: computed at run time
    printed: str | None = None  # ``print "text" | "cmd"``: the one literal printed into it


class AwkProgram(NamedTuple):
    runs: tuple[Run, ...]
    writes: tuple[str | None, ...]  # files opened for output; None: a computed name
    problem: str | None  # why the program cannot be read (None: read whole)


class _Token(NamedTuple):
    kind: str  # str regex num name kw op nl
    value: str


_KEYWORDS = frozenset(
    [
        "BEGIN",
        "END",
        "BEGINFILE",
        "ENDFILE",
        "function",
        "func",
        "if",
        "else",
        "while",
        "for",
        "do",
        "in",
        "return",
        "next",
        "nextfile",
        "exit",
        "delete",
        "break",
        "continue",
        "switch",
        "case",
        "default",
        "print",
        "printf",
        "getline",
    ]
)
# After these an operand starts (so a ``/`` begins a regex literal).
_OPERAND_ENDS = frozenset({"str", "regex", "num", "name"})
_BEFORE_OPERAND_KW = frozenset({"print", "printf", "return", "in", "case", "getline", "do", "else"})
# A newline after one of these goes on with the same statement.
_CONTINUES = frozenset({",", "{", "&&", "||", "do", "else", "?", ":", "|", "|&", ">", ">>",
                        "=", "+=", "-=", "*=", "/=", "%=", "^=", "~", "!~", "==", "!=", "<",
                        "<=", ">=", "+", "-", "*", "/", "%", "^", "!", "in"})  # fmt: skip
_OPS = ("|&", "||", "&&", ">>", ">=", "<=", "==", "!=", "!~", "++", "--", "+=", "-=", "*=",
        "/=", "%=", "^=", "**")  # fmt: skip
STANDARD_STREAMS = frozenset({"/dev/stdout", "/dev/stderr"})


def _tokens(program: str) -> tuple[list[_Token], str | None]:
    out: list[_Token] = []
    i, n = 0, len(program)
    depth = 0
    while i < n:
        c = program[i]
        if c == "\\" and program[i + 1 : i + 2] == "\n":
            i += 2
            continue
        if c == "\\" and program[i + 1 : i + 3] == "\r\n":
            i += 3
            continue
        if c in " \t\r":
            i += 1
            continue
        if c == "#":
            while i < n and program[i] != "\n":
                i += 1
            continue
        if c == "\n":
            last = out[-1] if out else None
            if (
                depth == 0
                and last is not None
                and last.kind != "nl"
                and last.value not in _CONTINUES
            ):
                out.append(_Token("nl", "\n"))
            i += 1
            continue
        if c == '"':
            j, buf = i + 1, []
            while j < n and program[j] != '"':
                if program[j] == "\n":
                    return out, "a string is not closed on its line"
                if program[j] == "\\" and j + 1 < n:
                    nxt = program[j + 1]
                    if nxt != "\n":
                        buf.append({"n": "\n", "t": "\t", "\\": "\\", '"': '"', "/": "/"}.get(
                            nxt, "\\" + nxt))  # fmt: skip
                    j += 2
                    continue
                buf.append(program[j])
                j += 1
            if j >= n:
                return out, "a string is not closed"
            out.append(_Token("str", "".join(buf)))
            i = j + 1
            continue
        if c == "/" and _regex_may_start(out):
            j = i + 1
            bracket = False
            while j < n and (bracket or program[j] != "/"):
                ch = program[j]
                if ch == "\n":
                    return out, "a regex is not closed on its line"
                if ch == "\\":
                    j += 2
                    continue
                if ch == "[" and not bracket:
                    bracket = True
                    j += 1
                    if program[j : j + 1] == "^":
                        j += 1
                    if program[j : j + 1] == "]":
                        j += 1
                    continue
                if ch == "]" and bracket:
                    bracket = False
                j += 1
            if j >= n:
                return out, "a regex is not closed"
            out.append(_Token("regex", program[i + 1 : j]))
            i = j + 1
            continue
        if c.isdigit() or (c == "." and program[i + 1 : i + 2].isdigit()):
            j = i + 1
            while j < n and (program[j].isalnum() or program[j] == "."):
                j += 1
            out.append(_Token("num", program[i:j]))
            i = j
            continue
        if c.isalpha() or c == "_":
            j = i
            while j < n and (program[j].isalnum() or program[j] == "_"):
                j += 1
            word = program[i:j]
            out.append(_Token("kw" if word in _KEYWORDS else "name", word))
            i = j
            continue
        op = next((o for o in _OPS if program.startswith(o, i)), c)
        if op in "([":
            depth += 1
        elif op in ")]":
            depth = max(0, depth - 1)
        out.append(_Token("op", op))
        i += len(op)
    return out, None


def _regex_may_start(out: list[_Token]) -> bool:
    if not out:
        return True
    last = out[-1]
    if last.kind in _OPERAND_ENDS:
        return False
    if last.kind == "kw":
        return last.value in _BEFORE_OPERAND_KW or last.value not in ("getline",)
    return last.value not in (")", "]", "$", "++", "--")


_ENDS = frozenset({";", "}"})


def _operand_span(tokens: list[_Token], start: int, stop_at_pipe: bool) -> list[_Token]:
    """The tokens of the expression from ``start`` to the statement's end (same depth)."""
    depth = 0
    span: list[_Token] = []
    for tok in tokens[start:]:
        if tok.kind == "nl" and depth == 0:
            break
        if tok.kind == "op":
            if depth == 0 and (tok.value in _ENDS or tok.value in (")", "]")):
                break
            if depth == 0 and stop_at_pipe and tok.value in ("|", "|&", ">", ">>"):
                break
            if tok.value in "([":
                depth += 1
            elif tok.value in ")]":
                depth -= 1
        if tok.kind == "kw" and tok.value in ("if", "while", "for", "do", "else") and depth == 0:
            break
        span.append(tok)
    return span


def _literal(span: list[_Token]) -> str | None:
    if len(span) == 1 and span[0].kind == "str":
        return span[0].value
    if len(span) == 3 and span[0].value == "(" and span[1].kind == "str" and span[2].value == ")":
        return span[1].value
    return None


def _command_before(tokens: list[_Token], k: int) -> str | None:
    """The command a ``… | getline`` reads from: one string literal not joined to another."""
    if k >= 1 and tokens[k - 1].kind == "str":
        before = tokens[k - 2] if k >= 2 else None
        if (
            before is None
            or before.kind in ("nl", "kw")
            or (before.kind == "op" and before.value not in (")", "]", "$", "++", "--"))
        ):
            return tokens[k - 1].value
    return None


def _indirect(tokens: list[_Token], k: int) -> list[Run]:
    """gawk's ``@f(…)`` calls the function whose name f holds: when every assignment to f is a
    string literal, ``system`` among them runs its argument; any other assignment: unknown."""
    name = tokens[k].value
    names = []
    for j, tok in enumerate(tokens):
        if tok == _Token("name", name) and tokens[j + 1 : j + 2] == [_Token("op", "=")]:
            value = tokens[j + 2 : j + 3]
            after = tokens[j + 3 : j + 4]
            ends = not after or after[0].kind == "nl" or after[0].value in (";", "}")
            if not value or value[0].kind != "str" or not ends:
                return [Run(f"@{name}()", None)]
            names.append(value[0].value)
    if not names:
        return [Run(f"@{name}()", None)]  # set by -v, an operand or a function: unknown
    if "system" not in names:
        return []
    span = _operand_span(tokens, k + 1, False)
    return [Run("system()", _literal(span[:3]) if len(span) == 3 else None)]


def read_awk(program: str) -> AwkProgram:
    """Return what an awk program (its text) runs and writes, and what could not be read."""
    tokens, problem = _tokens(program)
    runs: list[Run] = []
    writes: list[str | None] = []
    # The depth at which each open print statement stands.
    printing: list[tuple[int, int]] = []  # and the index of its keyword
    depth = 0
    for k, tok in enumerate(tokens):
        if tok.kind == "nl" or (tok.kind == "op" and tok.value in _ENDS):
            printing = [p for p in printing if p[0] < depth]
            if tok.value == "}" and depth == 0:
                printing.clear()
            continue
        if tok.kind == "op" and tok.value in "([":
            depth += 1
            continue
        if tok.kind == "op" and tok.value in ")]":
            depth -= 1
            printing = [p for p in printing if p[0] <= depth]
            continue
        if tok.kind == "kw" and tok.value in ("print", "printf"):
            printing.append((depth, k))
            continue
        if tok.kind == "kw" and tok.value in ("if", "while", "for", "else", "do"):
            printing = [p for p in printing if p[0] < depth]
            continue
        if tok.kind == "op" and tok.value == "@":
            problem = problem or "gawk's `@` loads code or calls a function named by a string"
            called = tokens[k + 1 : k + 3]
            if len(called) == 2 and called[0].kind == "name" and called[1].value == "(":
                runs.extend(_indirect(tokens, k + 1))
            elif called[:1] and called[0].value == "load":
                runs.append(Run("@load", None))
            continue
        if (
            tok.kind == "name"
            and tok.value == "system"
            and tokens[k + 1 : k + 2] == [_Token("op", "(")]
        ):
            span = _operand_span(tokens, k + 1, False)
            runs.append(Run("system()", _literal(span[:3]) if len(span) == 3 else None))
            continue
        if tok.kind != "op":
            continue
        in_print = bool(printing) and printing[-1][0] == depth
        if tok.value in ("|", "|&"):
            after = tokens[k + 1 : k + 2]
            if after and after[0] == _Token("kw", "getline"):
                runs.append(Run(f"cmd {tok.value} getline", _command_before(tokens, k)))
            else:
                span = _operand_span(tokens, k + 1, True)
                printed = _literal(tokens[printing[-1][1] + 1 : k]) if in_print else None
                how = "print | cmd" if in_print else "| cmd"
                runs.append(Run(how, _literal(span), printed))
        elif tok.value in (">", ">>") and in_print:
            writes.append(_literal(_operand_span(tokens, k + 1, True)))
        elif (tok.value == "<" and tokens[k - 1 : k] == [_Token("kw", "getline")]) or (
            tok.value == "<" and k >= 2 and tokens[k - 2] == _Token("kw", "getline")
        ):
            source = _literal(_operand_span(tokens, k + 1, True))
            if source is not None and source.startswith("/inet"):
                problem = problem or f"getline reads the network ({source})"
    return AwkProgram(tuple(runs), tuple(writes), problem)
