"""Quote removal for shell words, and the wrappers that are peeled off to reach the real command."""

from __future__ import annotations

import re
from typing import NamedTuple

from tether.shell.model import Word, Wrapper, command_name
from tether.shell.options import Parsed, parse
from tether.shell.programs import SHELLS as _SHELL_GRAMMARS
from tether.shell.programs import SOURCES, STDIN_SCRIPTS
from tether.shell.programs import WRAPPERS as _WRAPPERS

_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_OCTAL = "01234567"
_HEX = "0123456789abcdefABCDEF"


# A backslash and the character it quotes; ``\<newline>`` is a line continuation, removed whole.
# One regex pass in C instead of a loop over every character of a long string. Patterns, not
# compiled objects: ``re`` compiles each on first use (a hook process without a backslash in
# its command never pays for it) and keeps it.
_UNQUOTED_ESCAPE = r"\\(?:\n|(.))"
_DOUBLE_QUOTED_ESCAPE = r'\\(?:\n|([$`"\\]))'


def unescape_unquoted(text: str) -> str:
    """Remove backslashes from an unquoted word (``\\rm`` -> ``rm``; ``\\<newline>`` vanishes)."""
    if "\\" not in text:
        return text
    return re.sub(_UNQUOTED_ESCAPE, r"\1", text, flags=re.DOTALL)


def unescape_double_quoted(text: str) -> str:
    """Remove the backslashes bash drops inside double quotes (before ``$ ` " \\`` or newline)."""
    if "\\" not in text:
        return text
    return re.sub(_DOUBLE_QUOTED_ESCAPE, r"\1", text)


def _take(text: str, i: int, alphabet: str, limit: int) -> tuple[str, int]:
    j = i
    while j < len(text) and j - i < limit and text[j] in alphabet:
        j += 1
    return text[i:j], j


def decode_ansi_c(body: str) -> str:
    """Decode the inside of ``$'…'`` (``\\n``, ``\\x41``, ``\\101``, ``\\u00e9``, ``\\cA``)."""
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1]
        i += 2
        if esc in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[esc])
        elif esc in _OCTAL:
            digits, i = _take(body, i - 1, _OCTAL, 3)
            out.append(chr(int(digits, 8) & 0xFF))
        elif esc in "xuU":
            digits, j = _take(body, i, _HEX, {"x": 2, "u": 4, "U": 8}[esc])
            if digits:
                code = int(digits, 16)
                out.append(chr(code) if code <= 0x10FFFF else "\ufffd")
                i = j
            else:
                out.append("\\" + esc)
        elif esc == "c" and i < n:
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + esc)
    return "".join(out)


# --- wrappers -------------------------------------------------------------------------------

SHELLS = frozenset(_SHELL_GRAMMARS)
XARGS_INPUT = "<xargs input>"
_PEELABLE = SHELLS | _WRAPPERS.keys()


class Unwrapped(NamedTuple):
    """The result of peeling wrappers off an argv."""

    wrappers: tuple[Wrapper, ...]
    argv: tuple[Word, ...]
    # A literal ``bash -c`` payload (or ``watch``'s command string) to parse as shell.
    payload: str | None = None
    # The argv names a shell that reads its script from stdin (``bash``, ``sh -s``).
    shell_reads_stdin: bool = False


def _is_assignment(value: str) -> bool:
    name, eq, _ = value.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _command_start(name: str, args: tuple[Word, ...]) -> tuple[int, Parsed] | None:
    """Return where the wrapped command starts in ``args`` and the wrapper's options.

    None when the options say no command runs (``sudo -l``, ``command -v``, ``--help``).
    """
    spec = _WRAPPERS[name]
    parsed = parse(spec.grammar, args)
    if any(o in spec.terminal for o, _ in parsed.options):
        return None
    i = parsed.stop
    if name == "env" and i < len(args) and args[i].literal and args[i].value == "-":
        i += 1  # ``env -``: the same as -i
    if spec.assignments:
        while i < len(args) and args[i].literal and _is_assignment(args[i].value):
            i += 1
    i += spec.positionals
    if spec.group:
        i = _group_start(spec.group, args, i)
    return i, parsed


def _group_start(group: str, args: tuple[Word, ...], i: int) -> int:
    """Return where a ``{ …; }`` group's first command starts, if one opens at ``args[i]``."""
    if i < len(args) and args[i].literal and args[i].value == "{":
        return i + 1
    named = group == "NAME {" and i + 1 < len(args) and args[i].literal and args[i + 1].literal
    if named and args[i].value.isidentifier() and args[i + 1].value == "{":
        return i + 2
    return i


def sources_stdin(argv: tuple[Word, ...]) -> bool:
    """Return True for ``source``/``.`` of the shell's own stdin (``. /dev/stdin <<< …``)."""
    return (
        len(argv) > 1
        and argv[0].literal
        and argv[0].value in SOURCES
        and argv[1].literal
        and argv[1].value in STDIN_SCRIPTS
    )


def _shell_payload(name: str, args: tuple[Word, ...]) -> tuple[bool, Word | None, bool, int]:
    """Parse a shell's options.

    Return (has -c, the payload word, reads its script from stdin, how many option words).
    """
    parsed = parse(_SHELL_GRAMMARS[name], args)
    has_c = parsed.has("-c")
    rest = args[parsed.stop :]
    if has_c:
        return True, rest[0] if rest else None, False, parsed.stop
    reads_stdin = parsed.has("-s") or not rest or rest[0].value in STDIN_SCRIPTS
    return False, None, reads_stdin, parsed.stop


def _quote(word: Word) -> str:
    value = word.value
    if value and all(c.isalnum() or c in "-_./=:,+@%" for c in value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def unwrap(argv: tuple[Word, ...]) -> Unwrapped:
    """Peel ``sudo``, ``env``, ``timeout``, ``xargs``, ``watch``, ``bash -c`` … off ``argv``."""
    if not argv or command_name(argv[0].value) not in _PEELABLE:
        return Unwrapped((), argv)
    wrappers: list[Wrapper] = []
    while argv and argv[0].literal:
        name = command_name(argv[0].value)
        if name in SHELLS:
            has_c, payload, reads_stdin, n_options = _shell_payload(name, argv[1:])
            if has_c and payload is not None and payload.literal:
                wrappers.append(Wrapper(name, argv[1 : 1 + n_options]))
                return Unwrapped(tuple(wrappers), (), payload=payload.value)
            return Unwrapped(tuple(wrappers), argv, shell_reads_stdin=reads_stdin and not has_c)
        if name not in _WRAPPERS:
            break
        args = argv[1:]
        found = _command_start(name, args)
        if found is None:
            break
        start, parsed = found
        if name == "env" and parsed.has("--split-string"):
            # ``env -S 'a b' c`` runs the words of the string, then the operands.
            if not all(w.literal for w in args):
                break
            wrappers.append(Wrapper(name, args[:start]))
            script = [*parsed.values("--split-string"), *(_quote(w) for w in args[start:])]
            return Unwrapped(tuple(wrappers), (), payload=" ".join(script))
        if start >= len(args) and name != "xargs":
            break
        wrappers.append(Wrapper(name, args[:start]))
        rest = args[start:]
        if name == "xargs":
            rest = _xargs_command(rest, parsed)
        elif _WRAPPERS[name].applet and rest[0].literal and "/" in rest[0].value:
            rest = (rest[0]._replace(value=rest[0].value.rpartition("/")[2]), *rest[1:])
        elif name == "watch" and not parsed.has("--exec") and all(w.literal for w in rest):
            return Unwrapped(tuple(wrappers), (), payload=" ".join(w.value for w in rest))
        argv = rest
    return Unwrapped(tuple(wrappers), argv)


def _xargs_command(rest: tuple[Word, ...], parsed: Parsed) -> tuple[Word, ...]:
    """Return the command xargs runs: its input lands in a dynamic operand or the -I token."""
    command = rest or (Word("echo"),)
    token = None
    for option, value in parsed.options:
        if option in ("-I", "-J") and value is not None:
            token = value
        elif option == "--replace":
            token = value or "{}"
    if token is None:
        return (*command, Word(XARGS_INPUT, literal=False))
    return tuple(Word(w.value, literal=False) if token in w.value else w for w in command)
