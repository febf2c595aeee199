"""Quote removal for shell words, and the wrappers that are peeled off to reach the real command."""

from __future__ import annotations

from typing import NamedTuple

from tether.shell.model import SYSTEM_DIRS, Word, Wrapper

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


def unescape_unquoted(text: str) -> str:
    """Remove backslashes from an unquoted word (``\\rm`` -> ``rm``; ``\\<newline>`` vanishes)."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def unescape_double_quoted(text: str) -> str:
    """Remove the backslashes bash drops inside double quotes (before ``$ ` " \\`` or newline)."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


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


def command_name(word: str) -> str:
    """Return a command word with system directories stripped (``/usr/bin/env`` -> ``env``)."""
    if "/" not in word:
        return word
    head, _, tail = word.rpartition("/")
    return tail if head in SYSTEM_DIRS and tail else word


# --- wrappers -------------------------------------------------------------------------------


class _Spec(NamedTuple):
    """How a wrapper's own options look: which take a value, how many positionals follow."""

    short_values: str = ""
    long_values: frozenset[str] = frozenset()
    positionals: int = 0
    skips_assignments: bool = False
    # Options after which there is no wrapped command (``sudo -l``, ``command -v``).
    terminal: frozenset[str] = frozenset()


def _longs(*names: str) -> frozenset[str]:
    return frozenset(names)


_WRAPPERS: dict[str, _Spec] = {
    "sudo": _Spec(
        "ughpCDrtUTR",
        _longs(
            "--user",
            "--group",
            "--host",
            "--prompt",
            "--close-from",
            "--chdir",
            "--role",
            "--type",
            "--other-user",
            "--command-timeout",
        ),
        skips_assignments=True,
        terminal=_longs("-l", "--list", "-v", "--validate", "-k", "-K", "-e", "--edit", "-V"),
    ),
    "doas": _Spec("uC", skips_assignments=False),
    "env": _Spec("uCS", _longs("--unset", "--chdir", "--split-string"), skips_assignments=True),
    "command": _Spec("", terminal=_longs("-v", "-V")),
    "exec": _Spec("a"),
    "nice": _Spec("n", _longs("--adjustment")),
    "nohup": _Spec(),
    "time": _Spec("fo", _longs("--format", "--output")),
    "timeout": _Spec("sk", _longs("--signal", "--kill-after"), positionals=1),
    "stdbuf": _Spec("ioe", _longs("--input", "--output", "--error")),
    "setsid": _Spec(),
    "ionice": _Spec("cnpPu", _longs("--class", "--classdata", "--pid", "--pgid", "--uid")),
    "chrt": _Spec("", positionals=1),
    "taskset": _Spec("", positionals=1),
    "xargs": _Spec(
        "adEILlnPs",
        _longs(
            "--arg-file",
            "--delimiter",
            "--eof",
            "--replace",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ),
    ),
    "watch": _Spec("nd", _longs("--interval", "--differences")),
}

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "busybox-sh"})
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


def _split_options(spec: _Spec, args: tuple[Word, ...]) -> tuple[int, bool, list[str]]:
    """Return (index of the wrapped command, terminal option seen, options seen)."""
    i, seen = 0, []
    while i < len(args):
        word = args[i]
        value = word.value
        if spec.skips_assignments and word.literal and _is_assignment(value):
            i += 1
            continue
        if not word.literal or not value.startswith("-") or value == "-":
            break
        if value == "--":
            i += 1
            break
        seen.append(value)
        if value in spec.terminal:
            return i, True, seen
        if value.startswith("--"):
            name = value.split("=", 1)[0]
            i += 2 if name in spec.long_values and "=" not in value else 1
            continue
        # A bundle of short options; a value-taking one consumes the rest or the next word.
        bundle = value[1:]
        if bundle.isdigit():  # ``nice -10``
            i += 1
            continue
        consumed_next = False
        for pos, letter in enumerate(bundle):
            if f"-{letter}" in spec.terminal:
                return i, True, seen
            if letter in spec.short_values:
                consumed_next = pos == len(bundle) - 1
                break
        i += 2 if consumed_next else 1
    return i + spec.positionals, False, seen


def _is_assignment(value: str) -> bool:
    name, eq, _ = value.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _shell_payload(args: tuple[Word, ...]) -> tuple[bool, Word | None, bool, int]:
    """Parse a shell's options.

    Return (has -c, the payload word, reads its script from stdin, how many option words).
    """
    has_c = reads_stdin = False
    i = 0
    while i < len(args):
        value = args[i].value
        if not args[i].literal:
            break
        if value == "--":
            i += 1
            break
        if value in ("-", "+") or value[:1] not in ("-", "+"):
            break
        if value.startswith("--"):
            i += 1
            continue
        letters = value[1:]
        if "c" in letters:
            has_c = True
        if "s" in letters:
            reads_stdin = True
        i += 2 if letters[-1:] in ("o", "O") else 1
    rest = args[i:]
    if has_c:
        return True, rest[0] if rest else None, False, i
    return False, None, reads_stdin or not rest or rest[0].value == "-", i


def unwrap(argv: tuple[Word, ...]) -> Unwrapped:
    """Peel ``sudo``, ``env``, ``timeout``, ``xargs``, ``watch``, ``bash -c`` … off ``argv``."""
    if not argv or command_name(argv[0].value) not in _PEELABLE:
        return Unwrapped((), argv)
    wrappers: list[Wrapper] = []
    while argv and argv[0].literal:
        name = command_name(argv[0].value)
        if name in SHELLS:
            has_c, payload, reads_stdin, n_options = _shell_payload(argv[1:])
            if has_c and payload is not None and payload.literal:
                wrappers.append(Wrapper(name, argv[1 : 1 + n_options]))
                return Unwrapped(tuple(wrappers), (), payload=payload.value)
            return Unwrapped(tuple(wrappers), argv, shell_reads_stdin=reads_stdin and not has_c)
        spec = _WRAPPERS.get(name)
        if spec is None:
            break
        args = argv[1:]
        start, terminal, seen = _split_options(spec, args)
        if terminal or (start >= len(args) and name != "xargs"):
            break
        wrappers.append(Wrapper(name, args[:start]))
        rest = args[start:]
        if name == "xargs":
            rest = _xargs_command(rest, args[:start])
        elif name == "watch" and "-x" not in seen and "--exec" not in seen:
            if all(w.literal for w in rest):
                return Unwrapped(tuple(wrappers), (), payload=" ".join(w.value for w in rest))
        elif name == "env" and any(
            o in ("-S", "--split-string") or o.startswith("-S") for o in seen
        ):
            break  # env -S splits a string we do not re-parse: leave env as the command
        argv = rest
    return Unwrapped(tuple(wrappers), argv)


def _xargs_command(rest: tuple[Word, ...], options: tuple[Word, ...]) -> tuple[Word, ...]:
    """Return the command xargs runs: its input lands in a dynamic operand or the -I token."""
    command = rest or (Word("echo"),)
    token = None
    for i, word in enumerate(options):
        value = word.value
        if value == "-I" and i + 1 < len(options):
            token = options[i + 1].value
        elif value.startswith("-I") and len(value) > 2:
            token = value[2:]
        elif value.startswith("--replace"):
            token = value.partition("=")[2] or "{}"
        elif value.startswith("-i"):
            token = value[2:] or "{}"
    if token is None:
        return (*command, Word(XARGS_INPUT, literal=False))
    return tuple(Word(w.value, literal=False) if token in w.value else w for w in command)
