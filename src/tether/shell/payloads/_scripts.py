"""Programs whose own script language runs commands: expect's Tcl (``spawn``, ``exec``,
``system``) and make's ``$(shell …)`` / ``!=`` in ``--eval`` text and command-line
assignments (``make X='$(shell …)'``), which run as make reads them, before any target and
even under ``make -n``, and the recipes of a makefile make reads on stdin (``make -f -``)."""

from __future__ import annotations

from collections.abc import Iterator

from tether.shell.model import Word
from tether.shell.options import parse
from tether.shell.payloads._model import Payload, render
from tether.shell.tools import TOOLS

# Script text read per program line (a -c string or an --eval value), and brace bodies inside.
_MAX_SCRIPT = 65_536

# --- expect (Tcl) ---------------------------------------------------------------------------------

# Expect 5.45's spawn and Tcl 8.6's exec options before the program (``spawn -noecho ssh h``).
_SPAWN_OPTIONS = frozenset(
    {"-noecho", "-console", "-nottycopy", "-nottyinit", "-pty", "-ignore", "-open",
     "-leaveopen", "-ignorestderr", "-keepnewline", "--"}
)  # fmt: skip
_WITH_VALUE = frozenset({"-ignore", "-open", "-leaveopen"})
# Tcl and expect commands whose braced words are scripts run later or at once.
_TAKES_SCRIPTS = frozenset(
    {"if", "while", "for", "foreach", "proc", "catch", "eval", "uplevel", "switch", "after",
     "time", "try", "trap", "expect", "expect_after", "expect_before", "expect_background",
     "interact", "namespace", "lmap", "dict"}
)  # fmt: skip
# Those whose one braced word is a list of patterns and actions.
_TAKES_LISTS = frozenset(
    {"expect", "expect_after", "expect_before", "expect_background", "interact", "switch"}
)
# exec's pipeline and redirection words: shell operators in the text handed back.
_EXEC_OPERATORS = frozenset({"|", "|&", "<", ">", ">>", "2>", "2>>", ">&", ">>&", "&"})


def from_expect(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the programs an ``expect -c`` script spawns, execs or runs with ``system``."""
    if not any(w.value[:1] == "-" and "c" in w.value for w in args):
        return []  # a script file (``expect -f x.exp``, ``expect x.exp``) cannot be read here
    out: list[Payload] = []
    for script in parse(TOOLS["expect"], args).values("-c"):
        out.extend(tcl_payloads(script))
    return out


def tcl_payloads(script: str) -> list[Payload]:
    """Return what a Tcl/expect script runs: ``spawn``/``exec`` words, ``system`` shell text."""
    out: list[Payload] = []
    # Each text to read, and whether it is a pattern/action list (``expect { "y" { … } }``,
    # ``switch $x { a { … } }``), whose braced words are all scripts.
    pending = [(script[:_MAX_SCRIPT], False)]
    budget = _MAX_SCRIPT
    unread = len(script) > _MAX_SCRIPT
    while pending:
        text, is_list = pending.pop()
        for words, bodies, substitutions in _tcl_commands(text):
            # ``if {…} { spawn … }``, ``proc p {} { … }``: the bodies of these are scripts too
            # (``puts {spawn …}`` prints its braced word); ``[…]`` always runs.
            verb = words[0].value if words else ""
            scripts = bodies if is_list or verb in _TAKES_SCRIPTS else []
            as_list = verb in _TAKES_LISTS and len(words) == 2
            queued = [(b, as_list) for b in scripts] + [(b, False) for b in substitutions]
            for body, listed in queued:
                unread = unread or len(body) > budget
                if len(body) <= budget:
                    budget -= len(body)
                    pending.append((body, listed))
            if is_list:
                continue
            if not words:
                continue
            verb, rest = words[0].value, list(words[1:])
            if verb == "system" and rest:
                out.append(Payload("expect system", " ".join(w.value for w in rest)))
            elif verb in ("spawn", "exec"):
                while rest and rest[0].value in _SPAWN_OPTIONS:
                    rest = rest[2:] if rest[0].value in _WITH_VALUE else rest[1:]
                if rest and verb == "exec":
                    shell = [w.value if w.value in _EXEC_OPERATORS else render([w]) for w in rest]
                    out.append(Payload("expect exec", " ".join(shell)))
                elif rest:
                    out.append(Payload("expect spawn", argv=tuple(rest)))
    if unread:
        # Past the caps part of the script was never read: it cannot pass unseen.
        out.append(Payload("an expect script longer than the analysis reads", dynamic=True))
    return out


def _tcl_commands(text: str) -> Iterator[tuple[list[Word], list[str], list[str]]]:
    """Yield each Tcl command's words, its braced words' bodies and its ``[…]`` scripts.

    Commands end at a newline or ``;`` outside quotes and braces; ``{…}`` keeps its text as
    it is (nested braces counted), ``"…"`` drops the quotes; a word with ``$`` or ``[`` is
    computed when the script runs, and what is in its brackets runs first.
    """
    words: list[Word] = []
    bodies: list[str] = []
    substitutions: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\n;":
            yield words, bodies, substitutions
            words, bodies, substitutions = [], [], []
            i += 1
        elif c in " \t\r":
            i += 1
        elif c == "#" and not words:
            while i < n and text[i] != "\n":
                i += 1
        elif c == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            body = text[i + 1 : j - 1]
            words.append(Word(body))
            bodies.append(body)
            i = j
        else:
            j, quoted = i, c == '"'
            if quoted:
                j += 1
                while j < n and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                value, i = text[i + 1 : j], j + 1
            else:
                depth = 0  # ``[exec rm -rf /]`` is one word: brackets group
                while j < n and (depth or text[j] not in " \t\r\n;"):
                    depth = max(0, depth + {"[": 1, "]": -1}.get(text[j], 0))
                    j += 1
                value, i = text[i:j], j
            words.append(Word(value, literal="$" not in value and "[" not in value))
            substitutions.extend(_bracketed(value))
    yield words, bodies, substitutions


def _bracketed(value: str) -> Iterator[str]:
    """Yield the outermost ``[…]`` command substitutions in a word (``set x [exec ls]``)."""
    depth, start = 0, 0
    for k, c in enumerate(value):
        if c == "[":
            depth += 1
            start = k + 1 if depth == 1 else start
        elif c == "]" and depth:
            depth -= 1
            if not depth:
                yield value[start:k]


# --- make $(shell …) ------------------------------------------------------------------------------

_ASSIGN_OPS = ("::=", ":::=", ":=", "+=", "?=", "!=", "=")


def from_make(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the shell commands ``make --eval`` text and ``VAR=…`` operands run when read."""
    if not any("shell" in w.value or "!=" in w.value or "\t" in w.value for w in args):
        return []
    parsed = parse(TOOLS["make"], args)
    texts = list(parsed.values("--eval"))
    texts += [w.value for w in parsed.operands if _assignment(w.value) is not None]
    return make_payloads("\n".join(texts))


def make_payloads(text: str) -> list[Payload]:
    """Return what make runs from makefile text: ``$(shell …)``, ``VAR != …`` and recipes.

    A recipe line (after a tab) runs when its target is made, the first rule's by default;
    the other two run as make reads the text, even under ``make -n``.
    """
    if len(text) > _MAX_SCRIPT:
        return [Payload("make text longer than the analysis reads", dynamic=True)]
    out: list[Payload] = []
    for line in text.split("\n"):
        found = _assignment(line.strip())
        if line.startswith("\t") and line.strip():
            # ``@``, ``-`` and ``+`` in front only change how make echoes and fails.
            out.append(Payload("make recipe", _unescape(line.strip().lstrip("@-+ \t"))))
        elif found is not None and found[0] == "!=":
            # ``VAR != cmd``: make runs cmd with the shell as it reads the line.
            out.append(Payload("make !=", _unescape(found[1])))
        out.extend(Payload("make $(shell)", _unescape(t)) for t in _shell_calls(line))
    return out


def _assignment(text: str) -> tuple[str, str] | None:
    """Return (operator, value) when ``text`` is a make variable assignment, else None."""
    eq = text.find("=")
    if eq <= 0:
        return None
    for op in _ASSIGN_OPS:
        start = eq - len(op) + 1
        if start > 0 and text[start : eq + 1] == op:
            name = text[:start].strip()
            if name and not any(c in name for c in " \t:#="):
                return op, text[eq + 1 :].strip()
    return None


def _shell_calls(text: str) -> Iterator[str]:
    """Yield the argument of each ``$(shell …)`` / ``${shell …}`` in ``text`` (nested ones too)."""
    opens: list[tuple[int, str]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "$" and i + 1 < n and text[i + 1] == "$":
            i += 2  # ``$$`` is a literal dollar for the shell
            continue
        if c == "$" and i + 1 < n and text[i + 1] in "({":
            opens.append((i + 2, ")" if text[i + 1] == "(" else "}"))
            i += 2
            continue
        if opens and c in "({":
            opens.append((-1, ")" if c == "(" else "}"))  # make counts plain parentheses too
        elif opens and c == opens[-1][1]:
            start, _ = opens.pop()
            body = text[start:i] if start >= 0 else ""
            if body.startswith("shell") and body[5:6] in (" ", "\t"):
                yield body[6:].strip()
        i += 1


def _unescape(text: str) -> str:
    """Return make text as the shell receives it (``$$`` is one ``$``)."""
    return text.replace("$$", "$")


__all__ = ["from_expect", "from_make", "make_payloads", "tcl_payloads"]
