"""A bounded partial evaluation of a command line, in bash's order, before any judge reads it.

The parser decides whether to call it from what its own walk saw (``parse._Probe``): a value
assigned and used, an expansion with an operator, arithmetic, a static substitution,
positional parameters, a loop, a function, a brace list, a builtin that sets state, a cd
chain; most commands have none of these and pay nothing.

Aliases are not expanded (bash does not in a non-interactive shell, nor later on the line
that defines one); functions defined earlier apply at once; assignments, arrays, ``set --``,
``read <<<``, ``printf -v``, ``declare``/``local``/``export`` set variables in order; words
are expanded (braces, tilde, parameters with their operators, static substitutions,
arithmetic, IFS splitting, quote removal); ``eval``, ``sh -c SCRIPT NAME ARGS``, ``source`` of
a known script and xargs fed a static input run what they are given; ``cd`` and links made
earlier in the line, and ``/proc/self/root``, are followed. The result is a *reading*: shell
text of the commands as bash runs them, each word its static value or, where only known at
run time, its own source again. The parser adds the reading's commands to the model beside
the original ones, so every judge reads both and the strictest verdict stands.

Bounded: caps on steps, depth, fields, loop values and value length (``_state``); an explicit
stack walks the statements; expansions nest at most ``MAX_NEST`` deep.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from tree_sitter import Node


class Reading(NamedTuple):
    """The evaluated reading of one source, and which of its commands it stands for."""

    text: str
    # Where the source's own commands start whose command word evaluation made static, on
    # values certain to be set (not in an if, a loop or after && / ||): ``x=rm; $x …``.
    resolved: frozenset[int] = frozenset()


def reading(
    root: Node, src: bytes, strict: bool = False, deadline: float = float("inf")
) -> Reading | None:
    """Return the evaluated reading of a parsed source, or None when it says nothing new.

    A fault in the evaluator leaves the input judged as written (``strict`` raises it: tests).
    """
    from tether.shell.evaluate._emit import render
    from tether.shell.evaluate._state import DYN, MARKERS, MAX_READING, GiveUp, State
    from tether.shell.evaluate._walk import Walker

    text = src.decode("utf-8", "replace")
    if any(m in text for m in MARKERS):
        return None  # the markers could be forged
    relocated = False
    if root.has_error:
        from tether.shell.evaluate._unbrace import command_braces
        from tether.shell.evaluate._walk import parse_tree

        try:
            rewritten = command_braces(text)
        except GiveUp:
            rewritten = None
        if rewritten is not None:
            new_root, new_src = parse_tree(rewritten)
            if not new_root.has_error:  # otherwise the line is walked as it was parsed
                root, src, relocated = new_root, new_src, True
    st = State(deadline)
    walker = Walker(st)
    try:
        walker.run(root, src, 0)
    except (GiveUp, RecursionError):
        pass  # what was evaluated stands; the original is judged as well
    except Exception:
        if strict:
            raise
        return None
    if relocated:
        st.revealed = True  # the words bash runs, which the parser could not read
    if not st.revealed or not walker.records:
        return None
    out = render(walker.records, st)
    if len(out) > MAX_READING:
        return None
    # (the rewritten text's offsets are not the input's: no command of it is resolved)
    resolved: dict[int, bool] = {}
    for r in walker.records if not relocated else ():
        if r.origin >= 0:
            static = r.certain and bool(r.argv) and DYN not in r.argv[0]
            resolved[r.origin] = resolved.get(r.origin, True) and static
    return Reading(out, frozenset(k for k, ok in resolved.items() if ok))


__all__ = ["Reading", "reading"]
