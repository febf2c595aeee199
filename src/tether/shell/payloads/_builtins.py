"""Shell builtins that keep a command and run it later: trap's action, mapfile's callback,
an alias's value.

``trap 'rm -rf /' EXIT`` runs at the shell's exit, ``mapfile -C 'rm -rf /' -c 1 < f`` for
every line it reads (with the index and the line appended), and an alias defined on one line
runs on the next (bash with ``expand_aliases``, any zsh): each is the command it keeps.
"""

from __future__ import annotations

from tether.shell.model import Word
from tether.shell.options import parse
from tether.shell.payloads._model import Payload
from tether.shell.tools import TOOLS

BUILTINS = frozenset({"trap", "mapfile", "readarray", "alias"})


def from_builtin(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the commands a ``trap``, ``mapfile -C`` or ``alias`` keeps to run later."""
    parsed = parse(TOOLS[name], args)
    if name == "trap":
        if parsed.has("-l", "-p", "-P") or not parsed.operands:
            return []
        action = parsed.operands[0]
        if action.literal and (action.value == "-" or action.value.isdigit()):
            return []  # resets the signals named (a first operand that is a number is one)
        return [_kept("trap", action)]
    if name == "alias":
        out = []
        for w in parsed.operands:
            alias, eq, value = w.value.partition("=")
            if eq:
                out.append(_kept(f"alias {alias}", Word(value, w.literal)))
        return out
    if "-C" in parsed.dynamic:
        return [Payload(f"{name} -C", dynamic=True)]
    # mapfile/readarray eval the callback with the index and the line read appended.
    return [Payload(f"{name} -C", f'{value} 0 "$line"') for value in parsed.values("-C")]


def _kept(how: str, word: Word) -> Payload:
    return Payload(how, word.value) if word.literal else Payload(how, dynamic=True)
