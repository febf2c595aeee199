"""Inputs bash itself refuses to parse, so it runs nothing of them (or nothing past the error).

tree-sitter-bash reports errors for two kinds of input: text bash refuses too (an unterminated
quote, an operator with no command on one side, ``if then``, ``name(`` outside a function
definition), where bash runs nothing of that command, and text bash runs but the grammar
cannot read (a brace expansion in command position: ``{sh,-c,'rm -rf /'}``), where Tether
must not say "harmless" (DG310). This scanner tells the first kind apart. One pass, linear.
"""

from __future__ import annotations

_OPERATORS = ("&&", "||", "|&", ";;", "|", "&", ";")
_OPENERS = frozenset({"if", "while", "until", "then", "do", "elif", "else", "!", "{"})
_CLOSERS = frozenset({"then", "do", "fi", "done", "esac", "elif", "else"})


def bash_rejects(text: str) -> bool:
    """Return True when bash reports a syntax error for ``text`` (by the common causes)."""
    i, n = 0, len(text)
    expect_command = True  # at the start of a command: an operator here is an error
    after_opener = False  # the last word was if/while/then/do…: a closer here is an error
    word_start = True
    last_word = ""
    pending: list[str] = []  # heredoc delimiters waiting for the next newline
    depth = 0  # open ( of subshells and substitutions
    while i < n:
        c = text[i]
        if c == "\n":
            if pending:
                i = _skip_heredocs(text, i + 1, pending)
                pending.clear()
                word_start = True
                continue
            if not expect_command or after_opener:
                expect_command = True
            word_start = True
            i += 1
            continue
        if c in " \t":
            word_start = True
            i += 1
            continue
        if c == "#" and word_start:
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
        if op is not None:
            if expect_command and op != ";;":
                return True  # `&& ls`, `ls | | wc`, `ls ; ; cat`
            expect_command = True
            after_opener = False
            word_start = True
            i += len(op)
            continue
        if c == "(":
            glued = not word_start and not text.startswith("()", i)
            if glued and text[i - 1 : i] not in ("$", "<", ">", "="):
                return True  # `search(…)`, `@(…)` (extglob is off): a word followed by (
            depth += 1
            expect_command = True
            word_start = True
            i += 1
            continue
        if c == ")":
            if expect_command and text[i - 1 : i] != "(":
                return True  # `(ls |)`
            depth -= 1
            expect_command = False
            word_start = True
            i += 1
            continue
        if c == "<" and text.startswith("<<", i) and not text.startswith("<<<", i):
            j = i + 2 + (text[i + 2 : i + 3] == "-")
            while j < n and text[j] in " \t":
                j += 1
            k = j
            while k < n and text[k] not in " \t\n;&|<>()":
                k += 1
            pending.append(text[j:k].replace("'", "").replace('"', "").replace("\\", ""))
            i = k
            expect_command = False
            word_start = True
            continue
        # a word: read it whole, quotes and substitutions included
        start = i
        while i < n and text[i] not in " \t\n;&|()<>":
            ch = text[i]
            if ch == "\\":
                i += 2
            elif ch == "'":
                j = text.find("'", i + 1)
                if j < 0:
                    return True  # unterminated quote
                i = j + 1
            elif ch == '"' or ch == "`":
                j = _close_quote(text, i + 1, ch)
                if j < 0:
                    return True
                i = j + 1
            elif ch == "$" and text[i + 1 : i + 2] in ("(", "{"):
                j = _close(text, i + 2, text[i + 1], ")" if text[i + 1] == "(" else "}")
                if j < 0:
                    return True
                i = j + 1
            elif ch == "$" and text[i + 1 : i + 2] == "'":
                j = i + 2
                while j < n and text[j] != "'":
                    j += 2 if text[j] == "\\" else 1
                if j >= n:
                    return True
                i = j + 1
            else:
                i += 1
        if i == start:  # a redirect operator (`>`, `<`, `>&`): not a word
            i += 1
            expect_command = False
            word_start = True
            continue
        word = text[start:i]
        if expect_command and after_opener and word in _CLOSERS and word not in ("then", "do"):
            return True
        if expect_command and last_word in ("if", "while", "until") and word in ("then", "do"):
            return True  # `if then …`
        after_opener = expect_command and word in _OPENERS
        expect_command = after_opener
        last_word = word
        word_start = False
    return depth > 0 or (expect_command and not after_opener and last_word != "" and
                         text.rstrip().endswith(("|", "&&", "||")))  # fmt: skip


def _close_quote(text: str, i: int, quote: str) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote:
            return i
        if quote == '"' and c == "$" and text[i + 1 : i + 2] in ("(", "{"):
            j = _close(text, i + 2, text[i + 1], ")" if text[i + 1] == "(" else "}")
            if j < 0:
                return -1
            i = j + 1
            continue
        i += 1
    return -1


def _close(text: str, i: int, opener: str, closer: str) -> int:
    from tether.shell.evaluate._expand import close

    return close(text, i, opener, closer)


def _skip_heredocs(text: str, i: int, delimiters: list[str]) -> int:
    n = len(text)
    for delimiter in delimiters:
        while i < n:
            j = text.find("\n", i)
            end = n if j < 0 else j
            line = text[i:end]
            i = end + 1
            if line.lstrip("\t") == delimiter:
                break
    return min(i, n)
