"""Programs with a console of their own that runs shell commands: pagers (``less '+!cmd'``,
``man -P CMD``), database shells (sqlite3's ``.shell``/``.system``, psql's ``\\!``, mysql's
``system``/``\\!``) and zip's archive tester (``zip -T -TT CMD``).

The database shells read those lines from their arguments and from their input alike, so
``console_payloads(name, text)`` reads any text the caller knows the program reads (an
operand, ``-c``/``-e``/``-cmd``, a here-document, a pipe of literals).
"""

from __future__ import annotations

import re

from tether.shell.model import Word
from tether.shell.options import grammar, parse
from tether.shell.payloads._model import Payload

# man-db 2.11 (``man --help``): argp, so long names take unique prefixes.
_MAN = grammar(
    "man",
    "C|config-file: d|debug D|default warnings:: f|whatis k|apropos K|global-apropos "
    "l|local-file w|where|path|location W|where-cat|location-cat c|catman R|recode: "
    "L|locale: m|systems: M|manpath: S|s|sections: e|extension: i|ignore-case I|match-case "
    "regex wildcard names-only a|all u|update no-subpages P|pager: r|prompt: 7|ascii "
    "E|encoding: no-hyphenation|nh no-justification|nj p|preprocessor: t|troff "
    "T|troff-device:: H|html:: X|gxditview:: Z|ditroff h|help usage V|version",
)


def from_less(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the shell commands ``less '+!cmd'`` (a start-up command) runs."""
    out: list[Payload] = []
    for w in args:
        if w.literal and w.value == "--":
            break
        if not w.value.startswith("+"):
            continue
        # ``+cmd`` runs cmd when a file is opened, ``++cmd`` on every file.
        command = w.value[2:] if w.value.startswith("++") else w.value[1:]
        if command.startswith("!"):
            if w.literal:
                out.append(Payload(f"{name} +!", command[1:].replace("%", "x")))
            else:
                out.append(Payload(f"{name} +! of a run-time string", dynamic=True))
    return out


def from_man(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the pager and browser ``man -P CMD`` / ``--html=CMD`` runs through a shell."""
    if not any(w.value.startswith(("-P", "-H", "--p", "--h")) for w in args):
        return []
    parsed = parse(_MAN, args)
    out: list[Payload] = []
    for option in ("--pager", "--html"):
        for value in parsed.values(option):
            if value:
                out.append(Payload(f"man {option}", value))
        if option in parsed.dynamic:
            out.append(Payload(f"man {option} of a run-time string", dynamic=True))
    return out


def from_zip(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the command ``zip -T -TT CMD`` (``--unzip-command CMD``) tests the archive with."""
    out: list[Payload] = []
    for i, w in enumerate(args):
        value: Word | None = None
        if w.value in ("-TT", "--unzip-command") and i + 1 < len(args):
            value = args[i + 1]
        elif w.value.startswith(("-TT=", "--unzip-command=")):
            value = Word(w.value.partition("=")[2], w.literal)
        if value is None:
            continue
        if value.literal:
            # zip runs the string through the shell with the archive's name appended (or put
            # where ``{}`` stands).
            out.append(Payload("zip -TT", value.value.replace("{}", "x.zip")))
        else:
            out.append(Payload("zip -TT of a run-time string", dynamic=True))
    return out


# Console commands that hand the rest of their line to the shell.
_SQLITE_SHELL = re.compile(r"^[ \t]*\.(?:shell|system)[ \t]+(.+)$", re.M)
_PSQL_SHELL = re.compile(r"(?:^|[ \t;])\\!(.*)$", re.M)
_PSQL_PIPE = re.compile(r"\\(?:o|out|g|gx|w|write|copy\b.*\bprogram)[ \t]*\|(.+)$", re.M | re.I)
_PSQL_PROGRAM = re.compile(r"\bprogram[ \t]+'((?:[^']|'')*)'", re.I)
_MYSQL_SHELL = re.compile(r"(?:^|;)[ \t]*(?:system|\\!)[ \t]+([^;\n]+)", re.M | re.I)

CONSOLES = frozenset({"sqlite3", "psql", "mysql", "mariadb"})


def console_payloads(name: str, text: str) -> list[Payload]:
    """Return the shell commands a database shell ``name`` runs when it reads ``text``."""
    out: list[Payload] = []
    if name == "sqlite3":
        if ".s" in text:
            out += [Payload("sqlite3 .shell", m.group(1)) for m in _SQLITE_SHELL.finditer(text)]
    elif name == "psql":
        if "\\" in text:
            out += [Payload("psql \\!", m.group(1)) for m in _PSQL_SHELL.finditer(text)]
            out += [Payload("psql \\o |", m.group(1)) for m in _PSQL_PIPE.finditer(text)]
        if "program" in text.lower():
            # COPY … TO/FROM PROGRAM 'cmd' runs cmd on the server's host as its OS user.
            out += [
                Payload("psql COPY PROGRAM", m.group(1).replace("''", "'"))
                for m in _PSQL_PROGRAM.finditer(text)
            ]
    elif name in ("mysql", "mariadb"):
        out += [Payload(f"{name} system", m.group(1)) for m in _MYSQL_SHELL.finditer(text)]
    return out


def from_console(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the shell commands a database shell runs from the text of its arguments."""
    out: list[Payload] = []
    for w in args:
        if w.literal:
            out += console_payloads(name, w.value)
    return out


__all__ = ["CONSOLES", "console_payloads", "from_console", "from_less", "from_man", "from_zip"]
