"""The evaluator's state: variables, arrays, positional parameters, functions, cwd, links, files.

Values are strings in which a few private-use characters mark what is not plain text: the
home directory (``~`` expanded), a glob character bash would expand against file names, and a
part only known at run time (an index into ``State.dynamic``, the source text to show for it).
An input that holds one of these characters itself is not evaluated (it could forge them).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

HOME = "\ue000"  # the value of ~ (HOME), shown again as ~
GLOB = "\ue001"  # the next character is a live glob character (``*``, ``?``, ``[``, ``]``)
DYN = "\ue002"  # DYN + index + DYN_END: a part only known at run time
DYN_END = "\ue003"
BREAK = "\ue004"  # a field boundary no IFS can join ("${a[@]}", "$@")
MARKERS = HOME + GLOB + DYN + DYN_END + BREAK

MAX_DEPTH = 4  # functions, eval, sh -c and substitutions evaluated inside one another
MAX_STEPS = 4_000  # statements and words evaluated per input
MAX_VALUE = 4_096  # characters of one value; longer is only known at run time
MAX_FIELDS = 256  # words one word may expand to (brace lists, arrays, loops)
MAX_LOOP = 16  # values of a for loop evaluated
MAX_READING = 64 * 1024  # characters of the evaluated reading
MAX_RECORDS = 256  # commands in the reading
_CLOCK_EVERY = 32  # steps between two looks at the clock
DEFAULT_IFS = " \t\n"


class GiveUp(Exception):
    """The input passed one of the caps: what was evaluated so far stands."""


class State:
    """What the line has set so far (one shell; subshells work on a copy)."""

    __slots__ = ("aliases", "arrays", "conditional", "cwd", "deadline", "doubt", "dynamic",
                 "expand_aliases", "files", "functions", "links", "oldcwd", "positional",
                 "revealed", "steps", "uncertain", "variables", "zero")  # fmt: skip

    def __init__(self, deadline: float = float("inf")) -> None:
        self.deadline = deadline  # time.monotonic() past which evaluation stops (the parse's)
        # name -> value; a name absent is the environment's (only known at run time);
        # None is assigned something only known at run time.
        self.variables: dict[str, str | None] = {}
        self.arrays: dict[str, list[str]] = {}
        self.positional: list[str] | None = None  # None: the caller's, unknown
        self.zero: str | None = None
        self.functions: dict[str, tuple[Node, bytes]] = {}
        self.cwd: str | None = None  # None: where the command starts (unknown)
        self.oldcwd: str | None = None  # OLDPWD, for ``cd -``
        # ``shopt -s expand_aliases`` seen: aliases defined earlier apply (from the next line;
        # expanded at once here, which only adds a reading).
        self.expand_aliases = False
        self.aliases: dict[str, str] = {}
        self.links: dict[str, str] = {}  # absolute or HOME-based link path -> its target
        self.files: dict[str, str] = {}  # files written earlier in the line -> their text
        self.dynamic: list[str] = []  # source texts of the parts only known at run time
        self.revealed = False  # evaluation saw through something the text alone does not say
        self.steps = 0
        # Names set in code that may not run (an if, a loop, the right of && or ||): a value
        # read from one is not certain, and the command that read it is not "resolved".
        self.conditional = 0
        self.uncertain: set[str] = set()
        self.doubt = False  # the command being evaluated read an uncertain value

    def step(self, n: int = 1) -> None:
        """Count work; give up past the cap."""
        self.steps += n
        if self.steps > MAX_STEPS:
            raise GiveUp(f"more than {MAX_STEPS:,} evaluation steps")
        if self.steps % _CLOCK_EVERY == 0 and time.monotonic() > self.deadline:
            raise GiveUp("the parse's time budget ran out")

    def snapshot(self) -> tuple[object, ...]:
        """Return what a subshell may change, to restore afterwards."""
        return (dict(self.variables), {k: list(v) for k, v in self.arrays.items()},
                self.positional, self.zero, dict(self.functions), self.cwd)  # fmt: skip

    def restore(self, saved: tuple[object, ...]) -> None:
        """Undo what a subshell changed."""
        (self.variables, self.arrays, self.positional, self.zero, self.functions,
         self.cwd) = saved  # type: ignore[assignment]  # fmt: skip

    def set(self, name: str, value: str | None) -> None:
        """Assign a scalar (None: only known at run time)."""
        self.variables[name] = value
        self.arrays.pop(name, None)
        if self.conditional:
            self.uncertain.add(name)

    def dyn(self, source: str) -> str:
        """Return the marker of a part only known at run time, shown as ``source``."""
        self.dynamic.append(source[:200])
        return f"{DYN}{len(self.dynamic) - 1}{DYN_END}"

    def ifs(self) -> str | None:
        """Return the current IFS (None when only known at run time)."""
        if "IFS" not in self.variables:
            return DEFAULT_IFS
        value = self.variables["IFS"]
        if value is None or any(c in value for c in MARKERS):
            return None
        return value


def is_static(value: str) -> bool:
    """Return True when ``value`` holds no part only known at run time."""
    return DYN not in value


def plain(value: str) -> str:
    """Return ``value`` with glob and home markers read as text (``~`` for home)."""
    if not any(c in value for c in MARKERS):
        return value
    return value.replace(GLOB, "").replace(HOME, "~").replace(BREAK, "")
