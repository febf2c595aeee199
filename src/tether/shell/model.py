"""The parsed shape of a shell command: what runs, with which words, redirects and wrappers.

A ``CommandModel`` is flat on purpose: every simple command found anywhere in the input (inside
pipelines, lists, subshells, groups, control structures, function bodies, command and process
substitutions, ``bash -c`` payloads and heredocs fed to a shell) appears once in ``commands``,
with flags saying where it was found. Classifiers judge each command and let the strictest win.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Directories whose executables count as "the system's" (``/bin/rm`` is ``rm``; ``./rm`` is not).
SYSTEM_DIRS = frozenset(
    {
        "/bin",
        "/sbin",
        "/usr/bin",
        "/usr/sbin",
        "/usr/local/bin",
        "/usr/local/sbin",
        "/opt/homebrew/bin",
        "/run/current-system/sw/bin",
    }
)


def command_name(word: str) -> str:
    """Return the program a literal command word runs: system directories stripped
    (``/usr/bin/env`` -> ``env``), and zsh's ``=NAME`` (the path of NAME) as NAME.

    zsh expands a word that starts with an unquoted ``=`` to the path of the command it
    names (EQUALS, on by default), so ``=rm -rf /`` runs rm; bash looks for a program named
    ``=rm``. Quoting is not visible here, so ``'=rm'`` counts as rm too.
    """
    if word[:1] == "=" and _COMMAND_NAME.fullmatch(word, 1):
        return word[1:]
    if "/" not in word:
        return word
    head, _, tail = word.rpartition("/")
    return tail if head in SYSTEM_DIRS and tail else word


_COMMAND_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")


class Word(NamedTuple):
    """One shell word after quote removal.

    ``literal`` is False when any part of the word expands at run time (``$x``, ``$(…)``,
    ``{a,b}``); ``value`` then keeps the source text of the dynamic parts (capped). ``glob``
    is True when an unquoted ``*``, ``?`` or ``[…]`` may expand to file names (``rm -rf /*``
    stays literal so rules can read it, but may become any number of words). ``split`` is True
    when bash may turn the word into zero, one or many words by field splitting: an unquoted
    ``$x``, ``${x}``, ``$(…)``, backticks, ``$((…))`` or brace expansion, and ``"$@"``,
    ``"${a[@]}"``, ``"${!a[@]}"`` even quoted (``"$x"`` is exactly one word). A word that
    splits where a wrapper's own options and operands end hides which word is the command.
    """

    value: str
    literal: bool = True
    glob: bool = False
    split: bool = False


class Redirect(NamedTuple):
    """A redirect: ``op`` is one of ``> >> < &> &>> >& <& >| << <<- <<<``.

    ``fd`` is the explicit descriptor (``2`` in ``2>&1``) or None. ``target`` is the file, the
    descriptor number for ``>&``/``<&``, the here-string word, or the heredoc delimiter.
    ``body`` holds a heredoc's text (data, unless the command is a shell).
    """

    op: str
    fd: int | None = None
    target: Word | None = None
    body: str | None = None


class Assignment(NamedTuple):
    """A ``NAME=value`` prefix or standalone assignment."""

    name: str
    value: Word


class Wrapper(NamedTuple):
    """A command that was peeled off to reach the one it runs (``sudo -u x``, ``timeout 5``)."""

    name: str
    args: tuple[Word, ...] = ()


class SimpleCommand(NamedTuple):
    """One command that runs, after unwrapping.

    ``argv`` may be empty (a bare assignment or redirect). ``wrappers`` lists, outermost first,
    what was peeled off, including ``bash -c`` for commands from a payload. ``pipeline`` is an
    index into ``CommandModel.pipelines`` (or -1), ``stage`` the position in that pipeline.
    ``evaluated`` marks a command of the evaluated reading (``tether.shell.evaluate``).
    """

    argv: tuple[Word, ...]
    assignments: tuple[Assignment, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    wrappers: tuple[Wrapper, ...] = ()
    in_substitution: bool = False
    in_function: bool = False
    background: bool = False
    shell_depth: int = 0
    pipeline: int = -1
    stage: int = 0
    text: str = ""
    # Read from the evaluator's reading (``d=/usr; rm -rf "$d"`` gives ``rm -rf /usr``), not
    # from the input's text: ``text`` is the reading's, not a span of the input.
    evaluated: bool = False
    # The evaluator made this command's computed command word static (``x=rm; $x -rf /``):
    # the reading's command stands for it, so it is not "a command only known at run time".
    resolved: bool = False

    @property
    def name(self) -> str:
        """Return the command word, with system directories stripped (``/bin/rm`` -> ``rm``).

        A dynamic command word gives ``""``; a path outside the system directories is returned
        whole, so it never matches an allowlist entry.
        """
        if not self.argv or not self.argv[0].literal:
            return ""
        word = self.argv[0].value
        if "/" not in word and word[:1] != "=":
            return word  # most command words: no call
        return command_name(word)

    @property
    def args(self) -> tuple[Word, ...]:
        """Return the arguments after the command word."""
        return self.argv[1:]


class CommandModel(NamedTuple):
    """Everything the parser found in one input string.

    ``errors`` lists parse problems; ``unprovable`` says why the input as a whole could not be
    analysed (too long, nested too deep). Either makes the input not provably read-only.
    """

    source: str
    commands: tuple[SimpleCommand, ...] = ()
    pipelines: tuple[tuple[int, ...], ...] = ()
    substitutions: int = 0
    functions: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    unprovable: str | None = None

    @property
    def ok(self) -> bool:
        """Return True when the input parsed cleanly and within the caps."""
        return not self.errors and self.unprovable is None

    def stages(self, pipeline: int) -> list[list[SimpleCommand]]:
        """Return the commands of one pipeline grouped by stage, in order."""
        indices = self.pipelines[pipeline]
        grouped: dict[int, list[SimpleCommand]] = {}
        for i in indices:
            cmd = self.commands[i]
            grouped.setdefault(cmd.stage, []).append(cmd)
        return [grouped[k] for k in sorted(grouped)]
