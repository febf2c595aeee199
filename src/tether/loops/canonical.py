"""One spelling per shell call: commands read through the option model for loop signatures.

``grep -rn x .``, ``grep -nr x .``, ``grep -r -n x .``, ``grep --recursive -n x .`` and
``grep --rec -n x .`` run the same search, so they are one call to the loop guard. Each simple
command is read by its program's grammar (the one getopt engine, ``tether.shell.options``):
clusters split, ``--opt=v`` and ``--opt v`` one form, every option under its canonical name;
for the read commands of ``tether.shell.readers`` (checked against the tools themselves)
abbreviations are resolved and the options put in one order too, except those whose relative
order changes the result. Other programs' abbreviations keep the raw words.

Never merge two commands that could differ: a command is rewritten only when every word is
literal, no wrapper or assignment precedes it, its program has a grammar and the grammar reads
every option without a problem; anything else (an unknown option, ``$x``, ``~``, a glob in an
option, a substitution, a nested shell) keeps its raw words. Operands keep their order
(``ls -l a b`` lists a before b). The text around commands (pipes, ``&&``, redirects) is kept as
it is; a command's text must occur in the source exactly as often as commands spell it, so its
place is certain.
"""

from __future__ import annotations

from tether.loops.fingerprint import SPACE_RUN as _SPACE_RUN
from tether.shell import parse_command
from tether.shell.model import SimpleCommand
from tether.shell.options import Grammar, parse
from tether.shell.parse import recent
from tether.shell.readers import READERS, RESPELL, Reader
from tether.shell.tools import TOOLS

MARK = "\x1f"  # brackets a rewritten command; never in a command that is rewritten
# Characters a word may hold and read the same quoted or not (checked without a regex: this
# module loads in every hook process that sees an option, and compiling costs more than using).
_PLAIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@%+=,-"
# Per reader: option name -> its group's sort key (a group sorts as one, first of all).
_KEYS: dict[str, dict[str, str]] = {}


def canonical_command(command: str, limit: int = 2048) -> str | None:
    """Return the canonical text of ``command`` for signatures, or None when nothing changes.

    A command over ``limit`` characters keeps its raw words: the loops worth catching are
    short, and the guard passes the isolation threshold too (a longer command is parsed in the
    isolated worker only, which this must not undo).
    """
    if len(command) > limit or MARK in command or "\x00" in command:
        return None
    if "-" not in command:
        return None  # no option anywhere: the raw text is already the canonical one
    model = recent(command) or parse_command(command)  # the review's parse, when it just ran
    if not model.ok or not model.commands:
        return None
    # The evaluator's reading holds no span of the text: the signature reads the text's own.
    commands = tuple(c for c in model.commands if not c.evaluated)
    for cmd in commands:
        if cmd.in_substitution or cmd.in_function or cmd.shell_depth:
            return None  # a command inside another command's text: its place is not certain
    counts: dict[str, int] = {}
    for cmd in commands:
        counts[cmd.text] = counts.get(cmd.text, 0) + 1
    for text, count in counts.items():
        if not text or command.count(text) != count:
            return None
    out: list[str] = []
    changed = False
    at = 0
    for cmd in commands:
        start = command.find(cmd.text, at)
        if start < 0:
            return None  # not in source order: the places are not certain
        end = start + len(cmd.text)
        rewritten = _rewrite(cmd)
        if rewritten is None:
            continue  # stays in the text around the next rewritten command
        out.append(_between(command[at:start]))
        out.append(MARK + rewritten + MARK)
        at = end
        changed = True
    if not changed:
        return None
    out.append(_between(command[at:]))
    return "".join(out)


def _between(text: str) -> str:
    """Return the text between commands, its blank runs collapsed where that cannot matter."""
    if "\n" in text or "'" in text or '"' in text or "\\" in text:
        return text
    return _SPACE_RUN.sub(" ", text)


def _rewrite(cmd: SimpleCommand) -> str | None:
    """Return one command's canonical form, or None to keep its raw words."""
    argv = cmd.argv
    if len(argv) < 2 or cmd.wrappers or cmd.assignments:
        return None
    first = argv[0]
    if not first.literal or not _plain(first.value):
        return None
    if not cmd.text.startswith(first.value):
        return None  # a keyword the words do not show (`time grep …`)
    last = argv[-1].value
    if _plain(last) and not cmd.text.endswith((last, f'{last}"', f"{last}'")):
        return None  # the text stops before the last word (a redirect between words)
    for word in argv:
        if not word.literal or "~" in word.value:
            return None  # expands at run time; `~` only when unquoted, which words hide
    reader = READERS.get(cmd.name)
    g: Grammar | None = reader.grammar if reader is not None else TOOLS.get(cmd.name)
    if g is None:
        return None
    args = argv[1:]
    respell = RESPELL.get(cmd.name)
    if respell is not None:
        args = respell(args)  # a program that does not read its options with getopt (xxd)
    if reader is None and any(_abbreviated(g, w.value) for w in args):
        return None  # only the readers' abbreviations are checked against the tools themselves
    parsed = parse(g, args)
    if parsed.error is not None or not parsed.options:
        return None
    if sum(w.glob for w in args) != sum(w.glob for w in parsed.operands):
        return None  # a glob in an option or its value may expand to anything
    options = list(parsed.options)
    if reader is not None:
        options = _ordered(options, reader)
    operands = tuple((w.value, "glob") if w.glob else w.value for w in parsed.operands)
    return repr((first.value, tuple(options), parsed.dashdash, operands))  # one text per form


def _plain(word: str) -> bool:
    return bool(word) and not word.strip(_PLAIN)


def _abbreviated(g: Grammar, word: str) -> bool:
    """Return True when ``word`` is a long option not spelt as ``g`` lists it."""
    if not word.startswith("--") or word == "--":
        return False
    return not g.knows(word.partition("=")[0])


def _ordered(options: list[tuple[str, str | None]], reader: Reader) -> list[tuple[str, str | None]]:
    """Return ``options`` sorted, keeping the relative order inside each group (stable sort)."""
    if any(name in reader.pins for name, _ in options):
        return options
    keys = _KEYS.get(reader.grammar.name)
    if keys is None:
        keys = _KEYS[reader.grammar.name] = {
            name: f"\x00{i}" for i, group in enumerate(reader.groups) for name in group
        }
    return sorted(options, key=lambda option: keys.get(option[0], option[0]))
