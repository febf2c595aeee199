"""What a GNU sed script runs, writes and reads, read as GNU sed 4.9 compiles it (compile.c).

The rules that matter for what runs and what is written:

- a label (``:L``, ``b L``, ``t L``, ``T L``, ``v V``) ends at a blank, a newline, ``;``,
  ``}`` or ``#``, and what follows is the next command: ``:a w FILE`` writes FILE;
- ``w FILE``, ``W FILE``, ``r FILE``, ``R FILE``, ``e CMD`` and the ``s///w FILE`` flag take
  the rest of the line (``;`` and ``}`` included); ``e`` alone and ``s///e`` run the pattern
  space; a ``w`` file is created when the script is compiled, even if it never runs;
- ``a``, ``i``, ``c`` and ``e`` take text to the end of the line, and the next line while one
  ends in an unescaped backslash;
- ``s`` and ``y`` parts end at their unescaped delimiter and may not hold a raw newline.

A script sed would refuse is read as far as it goes and ``problem`` says why (what was found
before the error still counts: sed has already created those files). Where BusyBox sed reads a
script otherwise (a label ending at ``#``; a command with no separator after the one before,
``x 1w FILE``, which GNU refuses), what either reads counts.
"""

from __future__ import annotations

from typing import NamedTuple


class Run(NamedTuple):
    """One command the script hands a shell: its text, or None for the pattern space."""

    how: str  # "e", "s///e"
    command: str | None


class SedScript(NamedTuple):
    runs: tuple[Run, ...]
    writes: tuple[str, ...]  # files opened for writing (w, W, s///w)
    reads: tuple[str, ...]  # files read (r, R)
    problem: str | None  # why sed would refuse the script (None: it compiles)


_BLANK = " \t"
_SPACE = " \t\n\v\f\r"
_SIMPLE = frozenset("=dDFgGhHnNpPxz")
_S_FLAGS = frozenset("gpiImMe0123456789")


class _Reader:
    def __init__(self, script: str) -> None:
        self.s = script
        self.i = 0
        self.runs: list[Run] = []
        self.writes: list[str] = []
        self.reads: list[str] = []
        self.labels: set[str] = set()
        self.jumps: list[str] = []

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def blanks(self) -> str:
        while self.i < len(self.s) and self.s[self.i] in _BLANK:
            self.i += 1
        return self.peek()

    def line(self) -> str:
        """The rest of the line after blanks (a file name or a command), the newline eaten."""
        self.blanks()
        end = self.s.find("\n", self.i)
        end = len(self.s) if end < 0 else end
        text, self.i = self.s[self.i : end], end + 1
        return text

    def label(self, busybox: bool = True) -> str:
        self.blanks()
        j = self.i
        while j < len(self.s) and self.s[j] not in _SPACE and self.s[j] not in ";}#":
            j += 1
        text, self.i = self.s[self.i : j], j  # what ends it is read again: `}`, a comment
        if busybox and j < len(self.s) and self.s[j] == "#":
            self.busybox_label(j)
        return text

    def busybox_label(self, j: int) -> None:
        """BusyBox sed ends a label only at ``;`` or a blank, so ``:a#c;w FILE`` writes FILE
        there (GNU reads a comment): what BusyBox reads after the label counts too."""
        k = j
        while k < len(self.s) and self.s[k] not in "; \t\n":
            k += 1
        if k < len(self.s) and self.s[k] != "\n":
            other = _Reader(self.s[k + 1 :])
            other.read()
            self.runs += other.runs
            self.writes += other.writes
            self.reads += other.reads

    def delimited(self, delim: str, regex: bool) -> str | None:
        """Read up to the unescaped ``delim``; None when a raw newline or the end comes first."""
        out: list[str] = []
        s, n = self.s, len(self.s)
        while self.i < n:
            c = s[self.i]
            self.i += 1
            if c == "\n":
                self.i -= 1
                return None
            if c == delim:
                return "".join(out)
            if c == "\\":
                if self.i >= n:
                    return None
                c = s[self.i]
                self.i += 1
                if c == "n" and regex:
                    c = "\n"
                elif c != "\n" and (c != delim or (not regex and c == "&")):
                    out.append("\\")
            out.append(c)
        return None

    def end_of_command(self) -> str | None:
        c = self.blanks()
        if c in ("", "\n", ";"):
            self.i += 1
            return None
        if c in "}#":
            return None
        return "extra characters after command"

    def address(self) -> bool | None:
        """Read one address: True when one was read, False when none, None when malformed."""
        c = self.peek()
        if c in ("/", "\\"):
            self.i += 1
            if c == "\\":
                c = self.peek()
                self.i += 1
                if c in ("", "\n", "\\"):
                    return None
            if self.delimited(c, True) is None:
                return None
            while self.blanks() in ("I", "M"):
                self.i += 1
            return True
        if c.isdigit():
            while self.peek().isdigit():
                self.i += 1
            if self.blanks() == "~":
                self.i += 1
                self.blanks()
                while self.peek().isdigit():
                    self.i += 1
            return True
        if c in ("+", "~"):
            self.i += 1
            if not self.peek().isdigit():
                return None
            while self.peek().isdigit():
                self.i += 1
            return True
        if c == "$":
            self.i += 1
            return True
        return False

    def read(self) -> str | None:
        s, n = self.s, len(self.s)
        blocks = 0
        first: str | None = None  # an error BusyBox reads on from
        while True:
            while self.i < n and (s[self.i] in _SPACE or s[self.i] == ";"):
                self.i += 1
            if self.i >= n:
                break
            got = self.address()
            if got is None:
                return "an address is malformed"
            if got and self.blanks() == ",":
                self.i += 1
                self.blanks()
                if not self.address():
                    return "an address range is malformed"
            if self.blanks() == "!":
                self.i += 1
                if self.blanks() == "!":
                    return "multiple `!`s"
            c = self.peek()
            self.i += 1
            problem: str | None = None
            if c == "":
                return "an address has no command"
            if c == "#":
                if got:
                    return "comments do not accept addresses"
                end = s.find("\n", self.i)
                self.i = n if end < 0 else end + 1
            elif c == "{":
                blocks += 1
            elif c == "}":
                if not blocks:
                    return "unexpected `}`"
                if got:
                    return "`}` does not accept addresses"
                blocks -= 1
                problem = self.end_of_command()
            elif c == ":":
                if got:
                    return "`:` does not accept addresses"
                name = self.label()
                if not name:
                    return "`:` lacks a label"
                self.labels.add(name)
            elif c in "btT":
                name = self.label()
                if name:
                    self.jumps.append(name)
            elif c == "v":
                self.label(busybox=False)  # BusyBox has no `v`
            elif c == "e":
                command = self.text() if self.blanks() not in ("", "\n") else ""
                self.runs.append(Run("e", command or None))
            elif c in "aic":
                self.text()
            elif c in "rRwW":
                name = self.line()
                if not name:
                    return "missing filename in r/R/w/W commands"
                (self.writes if c in "wW" else self.reads).append(name)
            elif c in "qQlL":
                self.blanks()
                while self.peek().isdigit():
                    self.i += 1
                problem = self.end_of_command()
            elif c in _SIMPLE:
                problem = self.end_of_command()
            elif c == "s":
                problem = self.substitute()
            elif c == "y":
                delim = self.peek()
                self.i += 1
                if delim in ("", "\n", "\\"):
                    return "the `y` command has no delimiter"
                for _ in range(2):
                    if self.delimited(delim, False) is None:
                        return "unterminated `y' command"
                problem = self.end_of_command()
            else:
                return f"unknown command: `{c}`"
            if problem:
                # GNU stops; BusyBox reads the next command without a separator (``x 1w F``).
                first = first or problem
        if first:
            return first
        if blocks:
            return "unmatched `{`"
        missing = [j for j in self.jumps if j not in self.labels]
        return f"can't find label for jump to `{missing[0]}`" if missing else None

    def text(self) -> str:
        """Read an a/i/c text or an ``e`` command as GNU sed does (read_text): after blanks and
        one backslash, to the end of the line and on while a line ends in ``\\``; a
        backslash keeps the character after it (a newline too) and is dropped."""
        self.blanks()
        if self.peek() == "\\":
            self.i += 1
            if self.peek() == "\n":
                self.i += 1
        s, n = self.s, len(self.s)
        out = []
        while self.i < n:
            c = s[self.i]
            self.i += 1
            if c == "\\":
                if self.i < n:
                    out.append(s[self.i])
                self.i += 1
            elif c == "\n":
                break
            else:
                out.append(c)
        return "".join(out)

    def substitute(self) -> str | None:
        delim = self.peek()
        self.i += 1
        if delim in ("", "\n", "\\"):
            return "the `s` command has no delimiter"
        if self.delimited(delim, True) is None:
            return "unterminated `s' command"
        replacement = self.delimited(delim, False)
        if replacement is None:
            return "unterminated `s' command"
        evaluate = False
        while True:
            c = self.peek()
            self.i += 1
            if c in ("", "\n", ";"):
                break
            if c in "}#":
                self.i -= 1
                break
            if c in _BLANK:
                continue
            if c == "w":
                name = self.line()
                if not name:
                    return "missing filename in r/R/w/W commands"
                self.writes.append(name)
                break
            if c not in _S_FLAGS:
                return "unknown option to `s'"
            evaluate = evaluate or c == "e"
        if evaluate:
            literal = "&" not in replacement and not any(
                replacement[k] == "\\" and replacement[k + 1 : k + 2].isdigit()
                for k in range(len(replacement))
            )
            self.runs.append(Run("s///e", _unescape(replacement) if literal else None))
        return None


def _unescape(text: str) -> str:
    out, k = [], 0
    while k < len(text):
        c = text[k]
        if c == "\\" and k + 1 < len(text):
            k += 1
            c = {"n": "\n", "t": "\t"}.get(text[k], text[k])
        out.append(c)
        k += 1
    return "".join(out)


def read_sed(script: str) -> SedScript:
    """Return what a sed script (its ``-e`` parts joined by newlines) runs, writes and reads."""
    reader = _Reader(script)
    problem = reader.read()
    return SedScript(tuple(reader.runs), tuple(reader.writes), tuple(reader.reads), problem)


# What sed writes there goes to its own output, not to a file.
STANDARD_STREAMS = frozenset({"/dev/stdout", "/dev/stderr"})
