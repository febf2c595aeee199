"""What every danger check shares: hits, the per-model scope, option and path helpers.

A check is a pure function ``(command, scope) -> iterable of Hit``. It looks only at the parsed
model (argv after quote removal and unwrapping, redirects, pipeline neighbours), never at raw
text, so quoted prose such as ``git commit -m "rm -rf /"`` cannot trigger it.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from tether.rules.base import Hit as Hit  # re-exported: every check module imports it here
from tether.shell.embedded.awk import STANDARD_STREAMS as AWK_STREAMS
from tether.shell.embedded.awk import read_awk
from tether.shell.embedded.sed import STANDARD_STREAMS as SED_STREAMS
from tether.shell.embedded.sed import read_sed
from tether.shell.model import CommandModel, SimpleCommand, Word
from tether.shell.options import Parsed, parse
from tether.shell.programs import CD, PUSHD
from tether.shell.specs import grammar_of
from tether.shell.tools import find_parts, find_primaries, tool_grammar

if TYPE_CHECKING:
    from tether.rules.readonly.tree import Tree

# find's starting points, and each primary of its expression with the words it takes.
FindReading = tuple[tuple[Word, ...], tuple[tuple[str, tuple[Word, ...]], ...]]

# Payloads found inside a command (``ssh host '…'``, ``python -c "os.system('…')"``, ``eval '…'``)
# are parsed again; these caps keep the total work linear in the input.
MAX_REPARSE_DEPTH = 3
MAX_REPARSE_CHARS = 65_536
# How many stages before a shell a pipe-to-shell check looks at (bounds 10,000-stage pipelines).
MAX_UPSTREAM = 6
# Bytes of files (SQL scripts given by ``-f FILE``/``< FILE``) one assessment reads in all.
MAX_FILE_TOTAL = 256 * 1024


class Budget:
    """What one top-level assessment shares down every nested reading: the reparse allowance,
    the working tree it runs in (``tether.rules.readonly.Tree``, or None: files are not read)
    and the bytes of files it may still read (``_files.read_file``)."""

    __slots__ = ("chars", "file_bytes", "source", "tree")

    def __init__(self, chars: int = MAX_REPARSE_CHARS, tree: Tree | None = None) -> None:
        self.chars = chars
        self.tree = tree
        self.file_bytes = [MAX_FILE_TOTAL]
        # The whole input's model (set by the top-level assessment): nested payloads see
        # what the outer line writes (``echo … > x.sql; sh -c 'psql -f x.sql'``).
        self.source: CommandModel | None = None

    def __repr__(self) -> str:
        return f"Budget(chars={self.chars!r}, tree={self.tree!r})"


class Scope:
    """The model being judged, with lazily computed facts several checks need.

    A plain slotted class, not a dataclass: it is built once per assessment and mutated, and
    this module is on the hook path, where a dataclass costs its generated code at import.
    """

    __slots__ = ("_cwd", "_finds", "_index", "_parsed", "_pos", "budget", "cache", "depth",
                 "edits", "judge_fn", "metadata", "model", "reparser")  # fmt: skip

    def __init__(
        self,
        model: CommandModel,
        depth: int = 0,
        budget: Budget | None = None,
        reparser: Callable[[str, int, Budget], list[Hit]] | None = None,
        judge_fn: Callable[[SimpleCommand, Scope], list[Hit]] | None = None,
    ) -> None:
        self.model = model
        self.depth = depth
        self.budget = Budget() if budget is None else budget
        self.reparser = reparser
        self.judge_fn = judge_fn
        self._cwd: list[str | None] | None = None
        self._index: dict[int, int] | None = None
        self._pos: dict[int, int] | None = None
        self._parsed: dict[tuple[str, tuple[Word, ...]], Parsed] = {}
        self.edits: dict[tuple[str, tuple[Word, ...]], tuple[Word, ...]] = {}
        self._finds: dict[tuple[Word, ...], FindReading] | None = None
        self.cache: dict[str, object] = {}
        # Whether an argument of the input may name a metadata host (None: not read, judge all).
        self.metadata: bool | None = None

    def __repr__(self) -> str:
        return f"Scope(model={self.model!r}, depth={self.depth!r}, budget={self.budget!r})"

    @property
    def tree(self) -> Tree | None:
        """The working tree the assessment runs in (None: files are not read)."""
        return self.budget.tree

    def reparse(self, text: str) -> list[Hit]:
        """Parse ``text`` as a shell command and judge it (within depth and budget).

        Past the depth or the budget the text is not read, so it asks (DG304) rather than
        passing: nesting ``ssh h 'ssh h …'`` one level deeper must not hide ``rm -rf /``.
        """
        if self.reparser is None or not text.strip():
            return []
        if not self.take(text):
            return [Hit("DG304", "a command nested deeper or longer than the analysis follows")]
        return self.reparser(text, self.depth + 1, self.budget)

    def judge(self, cmd: SimpleCommand) -> list[Hit]:
        """Judge a synthetic command (``find -exec …``, ``parallel …``) with every check."""
        if self.judge_fn is None:
            return []
        return self.judge_fn(cmd, self)

    def options(self, name: str, args: tuple[Word, ...]) -> Parsed:
        """Return ``args`` split by program ``name``'s grammar, parsed once per assessment.

        Several checks read the same command's options (``sed -i`` is judged as a payload, a
        system write and a sensitive write); they share one parse, keyed by the words' values.
        """
        key = (name, args)
        found = self._parsed.get(key)
        if found is None:
            found = self._parsed[key] = options_of(name, args)
        return found

    def find(self, args: tuple[Word, ...]) -> FindReading:
        """Return find's starting points and its primaries with the words each takes.

        Read once per assessment: deletes, permission changes, guard files and payloads all
        walk the same expression.
        """
        if self._finds is None:
            self._finds = {}
        found = self._finds.get(args)
        if found is None:
            starts, expression = find_parts(args)
            found = self._finds[args] = (starts, tuple(find_primaries(expression)))
        return found

    def index_of(self, cmd: SimpleCommand) -> int:
        """Return the position of ``cmd`` in ``model.commands``."""
        if self._index is None:
            self._index = {id(c): i for i, c in enumerate(self.model.commands)}
        return self._index.get(id(cmd), -1)

    def alias(self, derived: SimpleCommand, original: SimpleCommand) -> None:
        """Let a command rebuilt from ``original`` (re-split, unwrapped) share its position."""
        self.index_of(original)
        assert self._index is not None
        self._index[id(derived)] = self._index.get(id(original), -1)

    def _position(self, cmd: SimpleCommand) -> int:
        """Return where ``cmd`` sits in its pipeline's index list (computed once per model)."""
        if self._pos is None:
            self._pos = {}
            for indices in self.model.pipelines:
                for pos, i in enumerate(indices):
                    self._pos[i] = pos
        return self._pos.get(self.index_of(cmd), -1)

    def _neighbours(self, cmd: SimpleCommand, step: int) -> list[SimpleCommand]:
        if cmd.pipeline < 0 or cmd.pipeline >= len(self.model.pipelines):
            return []
        indices = self.model.pipelines[cmd.pipeline]
        pos = self._position(cmd)
        if pos < 0:
            pos = len(indices) if step < 0 else -1
        found: list[SimpleCommand] = []
        j = pos + step
        # Bounded walk: a 10,000-stage pipeline costs MAX_UPSTREAM steps per command, not 10,000.
        while (
            0 <= j < len(indices) and len(found) < MAX_UPSTREAM and abs(j - pos) <= MAX_UPSTREAM * 4
        ):
            other = self.model.commands[indices[j]]
            if (other.stage < cmd.stage) if step < 0 else (other.stage > cmd.stage):
                found.append(other)
            j += step
        return found

    def upstream(self, cmd: SimpleCommand) -> list[SimpleCommand]:
        """Return the commands of earlier stages of ``cmd``'s pipeline, nearest first (capped)."""
        if cmd.stage == 0:
            return []
        return self._neighbours(cmd, -1)

    def downstream(self, cmd: SimpleCommand) -> list[SimpleCommand]:
        """Return the commands of later stages of ``cmd``'s pipeline, nearest first (capped)."""
        return self._neighbours(cmd, 1)

    def before(self, cmd: SimpleCommand) -> Iterator[SimpleCommand]:
        """Yield the commands that appear before ``cmd`` in the source, nearest first."""
        i = self.index_of(cmd)
        for j in range(i - 1, max(-1, i - 1 - MAX_UPSTREAM * 4), -1):
            yield self.model.commands[j]

    def lost_track(self) -> bool:
        """Return True when a ``cd``/``pushd`` moves a later command somewhere we cannot name."""
        if self._cwd is None:
            self._cwd = _track_cwd(self.model.commands)
        return None in self._cwd

    def cwd(self, cmd: SimpleCommand) -> str | None:
        """Return the directory ``cmd`` runs in: "." (the workspace), an absolute path, or None.

        Only ``cd``/``pushd`` earlier in the same input move it; None means it moved somewhere
        we cannot name (``cd ..``, ``cd -``, ``cd $X``, bare ``cd``).
        """
        if len(self.model.commands) < 2:
            return "."  # a lone command runs where it was started
        if self._cwd is None:
            self._cwd = _track_cwd(self.model.commands)
        i = self.index_of(cmd)
        return self._cwd[i] if 0 <= i < len(self._cwd) else "."

    def take(self, text: str) -> bool:
        """Spend reparse budget on ``text``; False when depth or budget is exhausted."""
        if self.depth >= MAX_REPARSE_DEPTH or len(text) > self.budget.chars:
            return False
        self.budget.chars -= len(text)
        return True


_MOVERS = frozenset({"cd", "pushd", "builtin", "command"})


def _track_cwd(commands: tuple[SimpleCommand, ...]) -> list[str | None]:
    out: list[str | None] = []
    cwd: str | None = "."
    for cmd in commands:
        out.append(cwd)
        argv = cmd.argv
        if not argv or argv[0].value not in _MOVERS:
            continue  # most commands: one set lookup
        while argv and argv[0].literal and argv[0].value in ("builtin", "command"):
            argv = argv[1:]
        if not argv or argv[0].value not in ("cd", "pushd"):
            continue
        # The builtins' own grammar (-L -P -e -@, pushd's -n and -NUM, `--`): `cd -- -x` enters
        # ./-x, `pushd -n DIR` only adds DIR to the stack, `pushd +1`/`-1` rotates it.
        cd = argv[0].value == "cd"
        args = argv[1:]
        if any(w.value[:1] == "-" for w in args):  # most are `cd DIR`: nothing to parse
            parsed = parse(grammar_of(CD if cd else PUSHD), args)
            if parsed.has("--help") or (not cd and parsed.has("-n")):
                continue
            if parsed.unknown or (not cd and parsed.has("-NUM")):
                cwd = None  # refused (bash)
                continue
            args = parsed.operands
        if len(args) > 1:
            cwd = None  # refused (bash), or another shell's reading (zsh's `cd OLD NEW`)
            continue
        if not args:
            cwd = "~" if cd else None  # a bare `cd` goes home
            continue
        target = args[0]
        if not cd and target.value.startswith("+"):
            cwd = None
            continue
        if target.literal and (target.value == "~" or target.value.startswith("~/")):
            below = posixpath.normpath(target.value[2:] or ".")  # keep "~": "~/.." is above it
            cwd = "~" if below == "." else f"~/{below}"
        elif not target.literal or target.value == "-" or target.value.startswith("~"):
            cwd = None
        elif target.value.startswith("/"):
            cwd = posixpath.normpath(target.value)
        elif cwd is not None:
            joined = posixpath.normpath(posixpath.join(cwd, target.value))
            cwd = None if joined == ".." or joined.startswith("../") else joined
    return out


# --- names and options -------------------------------------------------------------------------


def name_of(cmd: SimpleCommand) -> str:
    """Return the command name, lower-cased, with a Windows ``.exe`` dropped.

    Lower case because macOS file systems are case-insensitive (``GIT`` runs git there).
    """
    argv = cmd.argv
    return _word_name(argv[0]) if argv else ""


@functools.lru_cache(maxsize=4096)
def _word_name(word: Word) -> str:
    # Every check asks for the name (several times per command): cached on the first word.
    name = SimpleCommand((word,)).name.lower()
    if not name and "$IFS" in word.value.replace("{", ""):
        # ``curl${IFS}http://x``: the name is the literal text before the first $IFS.
        head = word.value.split("$", 1)[0]
        name = head.lower() if head and "`" not in head else ""
    if "/" in name:
        name = name.rpartition("/")[2] if name.startswith(("./", "/")) else name
    if name.endswith(".exe"):
        name = name[:-4]
    return name


def is_python(name: str) -> bool:
    """Return True for ``python``, ``python3``, ``python3.11``, ``pypy3``."""
    base = name.rstrip("0123456789.")
    return base in ("python", "pypy")


def values(words: Iterable[Word]) -> list[str]:
    """Return the words' values."""
    return [w.value for w in words]


def options_of(name: str, args: Iterable[Word]) -> Parsed:
    """Split ``args`` by the grammar of program ``name`` (``tether.shell.tools``).

    Unknown options are kept as flags: a danger check judges what the words most likely do.
    A check on a hot path reads them through ``Scope.options``, which parses each once.
    """
    return parse(tool_grammar(name), args if isinstance(args, tuple) else tuple(args))


def edited_in_place(name: str, args: tuple[Word, ...], scope: Scope) -> tuple[Word, ...]:
    """Return the files ``sed``/``perl``/``ruby`` edit in place (-i, --in-place), else none;
    for sed, also the files its script writes (``w FILE``: tether.shell.embedded.sed), and for
    awk the files its program prints into (``print > FILE``: tether.shell.embedded.awk).

    Without ``-e`` (or sed's ``-f``), the first operand is the script, not a file:
    ``sed -i '/etc/d' notes.txt`` edits notes.txt only.
    """
    key = (name, args)  # several checks ask (system, sensitive and guard files): read once
    found = scope.edits.get(key)
    if found is None:
        found = scope.edits[key] = _edited_in_place(name, args, scope)
    return found


def _edited_in_place(name: str, args: tuple[Word, ...], scope: Scope) -> tuple[Word, ...]:
    if name in AWK_WRITERS:
        return awk_writes(scope.options("gawk", args)) if any(">" in w.value for w in args) else ()
    found = _in_place(name, args, scope)
    if name == "sed" and any("w" in w.value or "W" in w.value for w in args):
        found += sed_writes(scope.options(name, args))
    return found


def sed_writes(parsed: Parsed) -> tuple[Word, ...]:
    """Return the files a sed script writes (``w FILE``, ``W FILE``, ``s///w FILE``)."""
    scripts = parsed.values("--expression")
    if not parsed.has("--expression", "--file") and parsed.operands:
        scripts.append(parsed.operands[0].value)
    if not scripts:
        return ()
    written = read_sed("\n".join(scripts)).writes
    return tuple(Word(f) for f in written if f not in SED_STREAMS)


# The awk programs whose ``print > FILE`` the file checks judge (as sed's ``w FILE``).
AWK_WRITERS = frozenset({"awk", "gawk", "mawk", "nawk"})


def awk_writes(parsed: Parsed) -> tuple[Word, ...]:
    """Return the files an awk program given on the command line names in ``print > FILE``."""
    if parsed.has("--file", "--source", "--exec") or not parsed.operands:
        return ()
    written = read_awk(parsed.operands[0].value).writes
    return tuple(Word(f) for f in written if f is not None and f not in AWK_STREAMS)


def _in_place(name: str, args: tuple[Word, ...], scope: Scope) -> tuple[Word, ...]:
    # Every spelling of -i / --in-place has an 'i' in an option word: most commands have none.
    for w in args:
        if w.value[:1] == "-" and "i" in w.value:
            parsed = scope.options(name, args)
            if not parsed.has("--in-place" if name == "sed" else "-i"):
                return ()
            if name == "sed":
                scripted = parsed.has("--expression", "--file")
            else:  # perl's -e/-E and ruby's -e give the program (ruby's -E is an encoding)
                scripted = parsed.has("-e", "-E") if name == "perl" else parsed.has("-e")
            if scripted or len(parsed.operands) < 2:
                # A lone operand would be the script with no file (sed refuses); judged as the
                # file the words most likely mean, as `sed -i ~/.config/x.yaml` reads.
                return parsed.operands
            return parsed.operands[1:]
    return ()


Checker = Callable[[SimpleCommand, Scope], Iterable[Hit]]
