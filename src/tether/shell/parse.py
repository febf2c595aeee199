"""Turn a shell string into a ``CommandModel`` with tree-sitter-bash.

The tree is walked with an explicit stack: no Python recursion on untrusted depth, and never
``str(node)`` (tree-sitter's printer recurses in C and crashes on deep trees). Input over the
caps is reported as ``unprovable`` with a reason, never raised.

Work is bounded in three ways. tree-sitter's error recovery and reductions cost time quadratic
in the length of one pipeline (8,000 stages ending in ``|`` take seconds and hundreds of MB in
one step of the C parser, which nothing can interrupt), so an input with more than
``MAX_PIPES`` pipe operators is not parsed; every other shape parses in time linear in its size
under the input cap. A tree of more than ``MAX_NODES`` nodes is not walked (one command can
hold 30,000 redirects, and the walk costs microseconds a node); the walk stops at
``MAX_COMMANDS`` commands and when the clock passes ``PARSE_BUDGET`` seconds after the start
(parse included). Once the input is unprovable the walk
stops: nothing after that can change the verdict.

tree-sitter's own cancellation (a progress callback) is not used: py-tree-sitter 0.26 leaks a
reference to every chunk its read callback returns, which is the whole input on every parse.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, NamedTuple

from tether.shell import evaluate, nodes
from tether.shell.model import (
    Assignment,
    CommandModel,
    Redirect,
    SimpleCommand,
    Word,
    Wrapper,
)
from tether.shell.programs import SOURCES
from tether.shell.words import (
    decode_ansi_c,
    sources_stdin,
    unescape_double_quoted,
    unescape_unquoted,
    unwrap,
)

if TYPE_CHECKING:
    from types import ModuleType

    from tree_sitter import Node, Parser

MAX_INPUT_CHARS = 128 * 1024
MAX_NESTING = 1000
MAX_SHELL_DEPTH = 4
MAX_COMMANDS = 5_000  # the real corpus's largest input has 188
MAX_NODES = 25_000  # syntax nodes per input (the real corpus's largest has 1,556)
MAX_ERRORS = 8
MAX_PIPES = 500  # `|` and `|&` operators per source: tree-sitter is quadratic in them
PARSE_BUDGET = 0.2  # seconds from the start of a parse to the walk giving up
_CLOCK_EVERY = 512  # walk steps between two looks at the clock
TEXT_CAP = 200

_parser: Parser | None = None
# A backslash-newline (after an even run of backslashes) is removed before bash splits words:
# `c\<newline>at` is `cat`. tree-sitter-bash splits there instead, so it is joined first, but
# only where bash joins: not inside single quotes or ``$'…'``, and not at the end of a comment
# (``ls # x\<newline>rm -rf /`` runs rm; joined blindly, rm became part of the comment).
_CONTINUATION = re.compile(r"(?<!\\)((?:\\\\)*)\\\n")
_JOIN_SCAN = (
    r"(?P<kept>'[^']*'?|\$'(?:[^'\\]|\\.)*'?|(?:^|(?<=[\s;&|()<>]))#[^\n]*)"
    r'|(?P<dq>"(?:[^"\\]|\\.)*"?)'
    r"|(?P<cont>\\\n)"
    r"|\\."
)


def _join_where_bash_joins(match: re.Match[str]) -> str:
    if match.group("cont") is not None:
        return ""
    text = match.group(0)
    if match.group("dq") is not None and "\\\n" in text:  # inside "…" it is a continuation
        return re.sub(r"(\\[^\n])|\\\n", r"\1", text)
    return text


def join_continuations(text: str) -> str:
    """Remove the backslash-newlines bash removes before it splits ``text`` into words."""
    return re.sub(_JOIN_SCAN, _join_where_bash_joins, text, flags=re.DOTALL | re.MULTILINE)


_BRACES = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
# Expansions that become many words even inside double quotes: ``"$@"``, ``"${@:2}"``,
# ``"${a[@]}"``, ``"${!a[@]}"``, ``"${!prefix@}"`` (``"${#a[@]}"`` and ``"$*"`` are one word).
_MANY_WORDS = re.compile(r"\$(?:@|\{!?(?:@|[A-Za-z_][A-Za-z0-9_]*(?:\[@\]|@)))")


def _get_parser() -> Parser:
    global _parser
    if _parser is None:
        from tree_sitter import Language, Parser

        _parser = Parser(Language(_bash_language()))
    return _parser


def _bash_language() -> object:
    """Return the bash grammar's language pointer from the compiled binding.

    ``tree_sitter_bash/__init__`` imports ``importlib.resources`` (and through it ``tempfile``,
    ``shutil``, ``random``, ``bz2``, ``lzma``: ~3 ms per hook process) only to read its query
    files, which the parser never uses; so load its ``_binding`` extension directly, and fall
    back to the package when it is laid out differently.
    """
    import sys

    module = sys.modules.get("tree_sitter_bash._binding") or _load_binding()
    if module is None:
        import tree_sitter_bash

        return tree_sitter_bash.language()
    return module.language()


def _load_binding() -> ModuleType | None:
    import importlib.machinery
    import importlib.util
    import os
    import sys

    name = "tree_sitter_bash._binding"
    package = importlib.util.find_spec("tree_sitter_bash")  # locates it without running it
    folders = (package.submodule_search_locations or []) if package is not None else []
    for folder in folders:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, "_binding" + suffix)
            if not os.path.isfile(path):
                continue
            loader = importlib.machinery.ExtensionFileLoader(name, path)
            spec = importlib.util.spec_from_file_location(name, path, loader=loader)
            if spec is None:
                return None
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
            sys.modules[name] = module  # a later `import tree_sitter_bash` reuses it
            return module
    return None


class _Ctx(NamedTuple):
    """Where a node sits: inherited by everything below it."""

    in_substitution: bool = False
    in_function: bool = False
    background: bool = False
    shell_depth: int = 0
    pipeline: int = -1
    stage: int = 0
    redirects: tuple[Redirect, ...] = ()
    wrappers: tuple[Wrapper, ...] = ()
    # Prefix assignments of a peeled shell or wrapper (``BASH_ENV=x bash -c '…'``): the
    # environment every command of its payload runs with.
    assignments: tuple[Assignment, ...] = ()


class _Probe:
    """What the walk of one source saw that evaluation may see through (``evaluate``).

    Set as a side effect of the walk, so deciding costs nothing more: a value assigned and
    used, an expansion with an operator, arithmetic, a static substitution, positional
    parameters, a loop, a function, a brace list, a builtin that sets state, a cd chain.
    """

    __slots__ = ("assigned", "cds", "src", "starts", "used", "wants")

    def __init__(self, src: bytes) -> None:
        self.src = src
        self.starts: dict[int, list[int]] = {}  # where each own command starts -> indices
        self.wants = b"`" in src or b"/proc/" in src
        self.assigned: set[str] = set()
        self.used: set[str] = set()
        self.cds = 0

    def wanted(self) -> bool:
        return self.wants or not self.assigned.isdisjoint(self.used)

    def expansion(self, text: str, kind: str) -> None:
        """Note an expansion's source (``$x``, ``${x%/*}``, ``$(echo …)``, ``$((…))``)."""
        if kind == "simple_expansion":
            name = text[1:]
            if name[:1] in _POSITIONAL or name == "IFS":
                self.wants = True
            self.used.add(name)
        elif kind == "expansion":
            body = text[2:-1]
            if any(c in body for c in _OPERATORS) or body[:1] in _POSITIONAL or body == "IFS":
                self.wants = True
            self.used.add(body)
        elif kind == "command_substitution":
            self.wants = self.wants or text[2:].lstrip().startswith(_STATIC_PRINTERS)
        elif kind == "arithmetic_expansion":
            self.wants = True

    def command(self, argv: list[Word]) -> None:
        """Note a command that changes what evaluation knows (cd, ln -s, read, eval …)."""
        name = argv[0].value if argv else ""
        if name not in _STATEFUL:
            return
        if name == "cd":
            self.cds += 1
            # a cd chain, or a cd to a system place then an operand spelled from it
            # (`cd /; mkfs.ext4 ././/dev/sda1`)
            target = argv[1].value if len(argv) > 1 else "~"
            system = target in ("/", "~", "-", "..") or target.startswith(_SYSTEM_PLACES)
            self.wants = self.wants or self.cds > 1 or (system and b"./" in self.src)
        elif name == "xargs":
            # fed from the line: a here-string, a file written earlier, echo or printf
            self.wants = self.wants or any(
                token in self.src for token in (b"<<<", b"echo ", b"printf ", b" -a", b"--arg-f")
            )
        elif name == "printf":
            self.wants = self.wants or any(w.value == "-v" for w in argv[1:3])
        elif name == "set":
            self.wants = self.wants or (len(argv) > 1 and argv[1].value[:1] not in "-+")
            self.wants = self.wants or (len(argv) > 1 and argv[1].value == "--")
        elif name in _SHELL_NAMES:
            self.wants = self.wants or len(argv) > 3  # sh -c SCRIPT NAME ARGS
        else:
            self.wants = True


_POSITIONAL = frozenset("0123456789@*#")
_OPERATORS = frozenset(":%#/^,@[!")
_STATIC_PRINTERS = ("echo ", "printf ", "dirname ", "basename ", "cat ", "pwd")
_SHELL_NAMES = frozenset({"sh", "bash", "dash", "zsh", "ksh"})
_SYSTEM_PLACES = ("/etc", "/usr", "/dev", "/var", "/boot", "/lib", "/bin", "/sbin", "/proc",
                  "/sys", "/root", "/home", "/opt", "/srv", "/Users", "/System", "~/..",
                  "../")  # fmt: skip
_STATEFUL = frozenset(
    {"cd", "pushd", "ln", "xargs", "eval", "read", "source", ".", "set", "shift", "printf",
     "mapfile", "readarray", "shopt", *_SHELL_NAMES}
)  # fmt: skip


_TOP = _Ctx()  # an input's own commands (contexts are immutable: one serves every input)
_Stack = list[tuple["Node", _Ctx, bytes]]


# The last short model parsed: a guard reads each command twice (its review, then its loop
# signature, which reads commands up to 2,048 characters), and the second reader takes it from
# ``recent`` instead of parsing again. ``parse_command`` itself always parses (its caps and
# clock apply to every call), and a long input's model is never kept.
_last: tuple[str, CommandModel] | None = None
_RECENT_CHARS = 2048


def parse_command(text: str) -> CommandModel:
    """Parse ``text`` into a ``CommandModel``; problems are reported in it, never raised."""
    global _last
    model = _parse_command(text)
    _last = (text, model) if len(text) <= _RECENT_CHARS else None
    return model


def recent(text: str) -> CommandModel | None:
    """Return the model of ``text`` if it is the last input parsed (models are immutable)."""
    last = _last
    return last[1] if last is not None and last[0] == text else None


def _parse_command(text: str) -> CommandModel:
    if len(text) > MAX_INPUT_CHARS:
        return CommandModel(
            source=text,
            unprovable=f"input is {len(text):,} characters, over the {MAX_INPUT_CHARS:,} cap",
        )
    # The depth is at most the number of openers: count them in C before walking characters.
    if len(text) > MAX_NESTING and text.count("(") + text.count("`") // 2 > MAX_NESTING:
        depth = nesting_depth(text)
        if depth > MAX_NESTING:
            return CommandModel(
                source=text,
                unprovable=f"brackets nested {depth:,} deep, over the {MAX_NESTING:,} cap",
            )
    builder = _Builder()
    if "\x00" in text:
        builder.errors.append("input contains a NUL byte")
    builder.add_source(text, _TOP)
    if not text.isprintable():  # most commands: one line of printable text, one reading
        for variant in control_readings(text):
            builder.add_source(variant, _TOP)
    if "<<" in text:
        errors = len(builder.errors)
        variants = heredoc_readings(text)
        for variant in variants:
            builder.add_source(variant, _TOP)
        spaced = backslash_body_reading(text) if "\n\\" in text else None
        if spaced is not None:
            builder.add_source(spaced, _TOP)
        if variants and errors and len(builder.errors) == errors:
            # The reading bash closes the heredoc in parsed cleanly: the first reading's errors
            # came from the grammar's one-byte delimiters (``<<é``), not from the input.
            del builder.errors[:errors]
    return builder.build(text)


# C0 controls but tab and newline (bash's own separators), DEL and C1 controls.
_CONTROL_POINTS = (*range(0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))
_CONTROLS = dict.fromkeys(_CONTROL_POINTS)
# A pattern: ``re`` compiles it on the first text that is not printable, not at import.
_CONTROL = "[" + "".join(re.escape(chr(c)) for c in _CONTROL_POINTS) + "]"


def control_readings(text: str) -> tuple[str, ...]:
    """Return the other ways ``text`` may reach a shell when it holds control characters.

    A NUL ends a C string (``execve`` arguments stop there) and bash drops NULs from a script it
    reads, and a terminal, a log or a host may drop other control characters. The model holds
    the commands of every reading, so a NUL or a ``\\x01`` never hides ``rm -rf /`` (the
    strictest reading wins) and never turns a write into a read.
    """
    # Most commands have none: ``isprintable`` says so for a line, the regex for the rest, both
    # in C (translating a long heredoc character by character cost tens of microseconds).
    if text.isprintable() or re.search(_CONTROL, text) is None:
        return ()
    stripped = text.translate(_CONTROLS)
    if stripped == text:
        return ()
    readings = [stripped]
    if "\x00" in text:
        head = text.split("\x00", 1)[0]
        if head.strip() and head != stripped:
            readings.append(head)
    return tuple(readings)


_LETTERS = "QXZJKVWYGHFUBPMNRSTLCDEIOAqxzjkvwyghfubpmnrstlcdeioa"  # rarest first
# A code point over 255 in UTF-8 (a lead byte from 0xC4 on) by its length, and the stand-in of
# that length: `¤` (U+00A4) plus `_` or another `¤`, a word character to bash and tree-sitter
# alike. Constant substitutions over the bytes, in C (a Python callback per character cost
# ~0.3 µs each on CJK text), compiled on the first input that needs them: compiling costs a
# hook process about half a millisecond, and nine in ten thousand real commands need them.
_STAND_IN_BYTES = (
    (rb"[\xc4-\xdf][\x80-\xbf]", "\xa4".encode()),
    (rb"[\xe0-\xef][\x80-\xbf]{2}", "\xa4_".encode()),  # lone surrogates too (surrogatepass)
    (rb"[\xf0-\xf4][\x80-\xbf]{3}", "\xa4\xa4".encode()),
)
_stand_ins: tuple[tuple[re.Pattern[bytes], bytes], ...] | None = None


def _scanner_safe(src: bytes) -> bytes:
    """Return ``src`` (UTF-8) for the parser, every code point over 255 stood in for.

    tree-sitter-bash's scanner calls ``isdigit``/``isalpha`` (a 384-entry table) on the code
    point ahead, so ``{`` followed by U+10FFFD read far out of bounds: a SIGSEGV in most fresh
    processes (benchmarks/fuzz_parse.py), and for smaller code points an answer that depends
    on what lies beyond the table. Each such character becomes ``¤`` (plus ``_`` or ``¤``) of
    the same UTF-8 length, so every node's byte offsets stay those of the real text, which
    the walk reads words from: the model never sees a stand-in.
    """
    global _stand_ins
    if _stand_ins is None:
        _stand_ins = tuple((re.compile(pattern), by) for pattern, by in _STAND_IN_BYTES)
    for pattern, stand_in in _stand_ins:
        src = pattern.sub(stand_in, src)
    return src


def heredoc_readings(text: str) -> tuple[str, ...]:
    """Return ``text`` with the non-ASCII characters of heredoc lines made ASCII, if any.

    tree-sitter-bash keeps a heredoc's delimiter one byte per character, so a delimiter with
    a non-ASCII character (``<<é``) never matches its closing line: everything after it is
    read as the heredoc's body, and ``cat <<é … é`` followed by ``rm -rf /`` hid the ``rm``
    from every rule. The reading added here maps each such character, everywhere in the text,
    to its own ASCII letter that the text does not contain, so a line closes the heredoc in this
    reading exactly when it does in bash. The characters of lines without ``<<`` are kept.
    """
    if "<<" not in text or text.isascii():
        return ()
    wanted = {
        ch
        for line in text.split("\n")
        if "<<" in line
        for ch in line.partition("<<")[2]
        if ord(ch) > 0x7F
    }
    if not wanted:
        return ()
    free = [c for c in _LETTERS if c not in text]
    if len(free) < len(wanted):
        return (text.translate(dict.fromkeys(map(ord, wanted), "Q")),)  # some reading, at least
    return (text.translate({ord(ch): free[i] for i, ch in enumerate(sorted(wanted))}),)


def _pipe_operators(text: str) -> int:
    from tether.shell.pipes import pipe_operators  # only for text with over 500 `|` in it

    return pipe_operators(text, stop=MAX_PIPES)


def backslash_body_reading(text: str) -> str | None:
    r"""Return ``text`` with a space before each heredoc body's first line that starts with ``\``.

    tree-sitter-bash reads such a line (``cat <<'EOF' | sh`` then ``\rm -rf /``) as words of
    the command, not as the body; with a blank first it reads the body as bash does. For a
    script or a data check the space changes nothing that matters.
    """
    lines = text.split("\n")
    changed = False
    for i in range(1, len(lines)):
        if lines[i].startswith("\\") and "<<" in lines[i - 1].replace("<<<", ""):
            lines[i] = " " + lines[i]
            changed = True
    return "\n".join(lines) if changed else None


def nesting_depth(text: str) -> int:
    """Return the deepest bracket nesting in ``text`` (an upper bound on substitution depth)."""
    if "(" not in text and "`" not in text:
        return 0
    depth = deepest = 0
    for ch in text:
        if ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth -= 1 if depth else 0
    return max(deepest, text.count("`") // 2)


class _Builder:
    """Collects the commands of one input (and of the shell payloads inside it)."""

    # Slots: one builder per input, and no per-instance dict to build, read through and free.
    __slots__ = ("commands", "deadline", "errors", "evaluating", "functions", "joined", "nodes",
                 "origins", "pending", "pipelines", "substitutions", "tail_redirects",
                 "unprovable", "words")  # fmt: skip

    def __init__(self) -> None:
        self.commands: list[SimpleCommand] = []
        self.pipelines = 0
        self.substitutions = 0
        self.functions: list[str] = []
        self.errors: list[str] = []
        self.unprovable: str | None = None
        self.pending: _Stack = []
        # Redirects that tree-sitter put on a whole list or pipeline, keyed by the node of the
        # last command, which bash gives them to.
        self.tail_redirects: dict[int, tuple[Redirect, ...]] = {}
        # Pipelines tree-sitter-bash nests as the last leg of another (`a | b | c` + newline
        # + `d < f`): node id -> the outer pipeline and stage they continue.
        self.joined: dict[int, tuple[int, int]] = {}
        self.deadline = time.monotonic() + PARSE_BUDGET
        self.nodes = 0
        # An unquoted word's source -> its Word, for this input only (see _plain_word).
        self.words: dict[bytes, Word] = {}
        self.evaluating = False  # adding an evaluated reading (never evaluated again)
        # While a source is walked: what evaluation may see through in it (None: a reading).
        self.origins: _Probe | None = None

    def build(self, source: str) -> CommandModel:
        """Return the model, with pipeline ids renumbered densely."""
        renumber: dict[int, int] = {}
        groups: list[list[int]] = []
        commands = self.commands
        for i, cmd in enumerate(commands):
            if cmd.pipeline < 0:
                continue
            new = renumber.setdefault(cmd.pipeline, len(groups))
            if new == len(groups):
                groups.append([])
            groups[new].append(i)
            if new != cmd.pipeline:
                commands[i] = _with_pipeline(cmd, new)
        return CommandModel(
            source=source,
            commands=tuple(commands),
            pipelines=tuple(tuple(g) for g in groups),
            substitutions=self.substitutions,
            functions=tuple(self.functions),
            errors=tuple(self.errors),
            unprovable=self.unprovable,
        )

    # --- sources -------------------------------------------------------------------------

    def add_source(self, text: str, ctx: _Ctx) -> None:
        """Parse ``text`` and walk its tree into the builder."""
        if "\\\n" in text:
            joined = join_continuations(text)
            self._add_joined(joined, ctx)
            everywhere = _CONTINUATION.sub(r"\1", text)
            if everywhere != joined and self.unprovable is None:
                # Also read it joined everywhere, as before: should the scan misjudge a quote,
                # the commands of both readings are judged (never fewer than either saw).
                self._add_joined(everywhere, ctx)
            return
        self._add_joined(text, ctx)

    def _add_joined(self, text: str, ctx: _Ctx) -> None:
        pipes = text.count("|")
        if (
            pipes > MAX_PIPES
            and (pipes := pipes - 2 * text.count("||")) > MAX_PIPES
            and (pipes := _pipe_operators(text)) > MAX_PIPES  # not in quotes or heredoc text
        ):
            self._give_up(f"{pipes:,} pipe operators, over the {MAX_PIPES:,} cap")
            return
        src = text.encode("utf-8", "surrogatepass")
        tree = _get_parser().parse(src if src.isascii() else _scanner_safe(src))
        root = tree.root_node
        self.nodes += root.descendant_count  # O(1): tree-sitter keeps subtree sizes
        if self.nodes > MAX_NODES:
            self._give_up(f"{self.nodes:,} syntax nodes, over the {MAX_NODES:,} cap")
            return
        if root.has_error:
            self._collect_errors(root, src)
        # An escaped blank, which tree-sitter may skip. (Looked for in the text: ``in`` on bytes
        # first tries the needle as an integer, raising and clearing a TypeError each time.)
        if "\\" in text and ("\\ " in text or "\\\t" in text):
            dropped = _dropped_text(root, src)
            if dropped is not None:
                self.errors.append(f"the parser dropped {dropped}")
        if self.evaluating:
            self._walk(root, ctx, src)
            return
        outer = self.origins
        probe = self.origins = _Probe(src)
        try:
            self._walk(root, ctx, src)
        finally:
            self.origins = outer
        if self.unprovable is None and probe.wanted():
            self._add_reading(root, src, ctx, probe.starts)

    def _add_reading(
        self, root: Node, src: bytes, ctx: _Ctx, origins: dict[int, list[int]]
    ) -> None:
        """Add the commands bash runs as the evaluator reads them (``d=/usr; rm -rf "$d"``)."""
        reading = evaluate.reading(root, src, deadline=self.deadline)
        if reading is None:
            return
        for start in reading.resolved:
            for i in origins.get(start, ()):
                cmd = self.commands[i]
                if cmd.argv and not cmd.argv[0].literal:
                    self.commands[i] = cmd._replace(resolved=True)
        self.evaluating = True
        errors = len(self.errors)
        try:
            self.add_source(reading.text, ctx)
        finally:
            self.evaluating = False
        del self.errors[errors:]  # the reading's own spelling is not the input's problem

    def _payload(self, text: str, ctx: _Ctx) -> None:
        if ctx.shell_depth >= MAX_SHELL_DEPTH:
            self._give_up(f"shell payloads nested more than {MAX_SHELL_DEPTH} deep")
            return
        self.add_source(text, ctx._replace(shell_depth=ctx.shell_depth + 1))

    def _evaluated(self, text: str, ctx: _Ctx) -> None:
        """Walk the substitutions bash runs when it evaluates ``text`` as a variable name.

        An array subscript is an arithmetic expression, expanded when evaluated, even when the
        shell left the word quoted: ``test -v 'a[$(cmd)]'``, ``[[ 'a[$(cmd)]' -eq 0 ]]``,
        ``read 'a[$(cmd)]'``, ``declare 'a[$(cmd)]=1'`` and ``$(( 'a[$(cmd)]' ))`` run cmd.
        """
        if "[" not in text or ("$(" not in text and "`" not in text):
            return
        inner = ctx._replace(in_substitution=True, pipeline=-1, stage=0, redirects=())
        self._payload(': "' + text.replace("\\", "\\\\").replace('"', '\\"') + '"', inner)

    def _evaluated_strings(self, node: Node, ctx: _Ctx, src: bytes) -> None:
        """Look for evaluated subscripts in the quoted strings below ``node``."""
        todo = list(node.named_children)
        while todo:
            current = todo.pop()
            if current.type == "raw_string":  # ("a[\$(cmd)]" is not run: checked in bash)
                self._evaluated(_text(src, current)[1:-1], ctx)
            elif current.type != "string":  # a live $(…) in one is walked already
                todo.extend(current.named_children)

    def _give_up(self, reason: str) -> None:
        if self.unprovable is None:
            self.unprovable = reason

    def _collect_errors(self, root: Node, src: bytes) -> None:
        stack = [root]
        while stack and len(self.errors) < MAX_ERRORS:
            node = stack.pop()
            if node.is_missing:
                where = _where(node)
                self.errors.append(f"missing '{node.type}' at {where}")
            elif node.type == "ERROR":
                snippet = _text(src, node, 40).replace("\n", "\\n")
                self.errors.append(f"cannot parse {snippet!r} at {_where(node)}")
            else:
                stack.extend(c for c in reversed(node.children) if c.has_error or c.is_missing)

    # --- the walk ------------------------------------------------------------------------

    def _walk(self, root: Node, ctx: _Ctx, src: bytes) -> None:
        stack: _Stack = [(root, ctx, src)]
        steps = 0
        while stack:
            if self.unprovable is not None:
                return  # the verdict is settled: walking the rest only costs time
            steps += 1
            if steps % _CLOCK_EVERY == 0 and time.monotonic() > self.deadline:
                self._give_up(f"analysis took over the {PARSE_BUDGET * 1000:g} ms budget")
                return
            node, ctx, src = stack.pop()
            tail: tuple[Redirect, ...] = ()
            if self.tail_redirects:
                tail = self.tail_redirects.pop(node.id, ())
                if tail and node.type != "command":
                    ctx = ctx._replace(redirects=ctx.redirects + tail)
            kind = node.type
            if kind == "command":
                self._command(node, ctx, src, (), stack, tail=tail)
            elif kind in nodes.CONTAINERS:  # `program` and `list` hold most commands
                if kind in _EVALUATED_NODES and self.origins is not None:
                    self.origins.wants = self.origins.wants or kind != "ERROR" or (
                        src.find(b"{", node.start_byte, node.end_byte) >= 0)  # fmt: skip
                _push_children(node, ctx, src, stack)
            elif kind == "redirected_statement":
                self._redirected(node, ctx, src, stack)
            elif kind == "pipeline":
                self._pipeline(node, ctx, src, stack)
            elif kind in nodes.SUBSTITUTIONS:
                self.substitutions += 1
                inner = ctx._replace(in_substitution=True, pipeline=-1, stage=0, redirects=())
                _push_children(node, inner._replace(background=False), src, stack)
            elif kind == "function_definition":
                if self.origins is not None:
                    self.origins.wants = True
                name = node.child_by_field_name("name")
                if name is not None:
                    self.functions.append(_text(src, name, TEXT_CAP))
                body = node.child_by_field_name("body")
                if body is not None:
                    stack.append((body, ctx._replace(in_function=True), src))
            elif kind == "variable_assignment":
                self._emit([], [self._assignment(node, ctx, src, stack)], [], ctx, src, node)
            elif kind == "variable_assignments":
                assigns = [
                    self._assignment(c, ctx, src, stack)
                    for c in node.named_children
                    if c.type == "variable_assignment"
                ]
                self._emit([], assigns, [], ctx, src, node)
            elif kind in nodes.DECLARATIONS or kind == "test_command":
                self._keyword_command(node, ctx, src, stack)
            elif kind == "raw_string":  # `(( 'a[$(cmd)]' ))`: arithmetic evaluates its subscript
                self._evaluated(_text(src, node)[1:-1], ctx)
            elif kind != "comment":
                self._scan(node, ctx, src, stack)
            if self.pending:
                stack.extend(reversed(self.pending))
                self.pending.clear()

    def _pipeline(self, node: Node, ctx: _Ctx, src: bytes, stack: _Stack) -> None:
        pid, stage = self.joined.pop(node.id, (-1, 0)) if self.joined else (-1, 0)
        if pid < 0:
            pid = self.pipelines
            self.pipelines += 1
        items: _Stack = []
        sub, fn, bg, depth, _, _, redirects, wrappers, assigns = ctx
        for child in node.children:
            if child.is_named:
                leg = _Ctx(sub, fn, bg, depth, pid, stage, redirects, wrappers, assigns)
                items.append((child, leg, src))
            elif child.type in ("|", "|&"):
                stage += 1
        stack.extend(reversed(items))

    def _redirected(self, node: Node, ctx: _Ctx, src: bytes, stack: _Stack) -> None:
        body: Node | None = None
        redirects: list[Redirect] = []
        extra: list[Word] = []
        end = node.start_byte
        for i, child in enumerate(node.children):
            field = node.field_name_for_child(i)
            if child.start_byte > end:
                # tree-sitter-bash drops a lone `-` before a heredoc (`python3 - <<EOF`)
                gap = src[end : child.start_byte].decode("utf-8", "replace").split()
                extra.extend(Word(unescape_unquoted(w)) for w in gap)
            end = child.end_byte
            if field == "body":
                body = child
            elif child.type in nodes.REDIRECTS:
                ctx = self._redirect(child, ctx, src, stack, redirects, extra)
        if body is not None and body.type == "command":
            self._command(body, ctx, src, (*redirects,), stack, extra)
            return
        if body is None or extra:
            self._emit(extra, [], redirects, ctx, src, node)
            if body is None:
                return
            redirects = []
        if body.type in ("list", "pipeline"):
            # tree-sitter-bash wraps `a && b > f` and `a | b > f` whole; bash gives the
            # redirect to the last command only.
            tail = body
            while tail.type in ("list", "pipeline") and tail.named_child_count:
                tail = tail.named_children[-1]
            self.tail_redirects[tail.id] = tuple(redirects)
            parent = node.parent
            if body.type == "pipeline" and parent is not None and parent.type == "pipeline":
                self.joined[body.id] = (ctx.pipeline, ctx.stage)
            stack.append((body, ctx, src))
        else:
            stack.append((body, ctx._replace(redirects=ctx.redirects + tuple(redirects)), src))

    def _command(
        self,
        node: Node,
        ctx: _Ctx,
        src: bytes,
        outer: tuple[Redirect, ...],
        stack: _Stack,
        extra: list[Word] | None = None,
        tail: tuple[Redirect, ...] = (),
    ) -> None:
        argv: list[Word] = []
        assigns: list[Assignment] = []
        redirects: list[Redirect] = []
        end = node.start_byte
        word_end = -1  # where the last word ended: a word right after it is the same word
        kept = self.words if len(src) > _KEEP_WORDS_FROM else None
        for child in node.children:
            kind = child.type
            start = child.start_byte
            if start > end and (start > end + 1 or src[end] != 32):
                gap = src[end:start]  # more than the one space between words
                if gap.find(b"\n") >= 0 and argv:
                    # tree-sitter-bash joins `a | b | c f`, a newline and `d < f` into one
                    # command (`c f d`) whose redirect is the next line's; bash ends `c f` at
                    # the newline, so what follows is read as a command of its own.
                    self._emit(argv, assigns, redirects, ctx, src, node)
                    self._split_tail(node, child, ctx._replace(redirects=ctx.redirects + tail),
                                     src, outer, stack, extra)  # fmt: skip
                    return
                if gap.strip(b" \t\n") and gap.find(b"\\") < 0:  # with one: _dropped_text
                    # Text in no node (`a \ b` drops the escaped space): bash's words are not
                    # the ones seen here, so nothing about this command is proven.
                    shown = gap.decode("utf-8", "replace")[:20]
                    self.errors.append(f"the parser dropped {shown!r} at {_where(child)}")
            end = child.end_byte
            if kind == "word":
                # Most children are plain words: read here, without the general word path.
                word = _plain_word(src[start:end], kept)
                if not word.literal and self.origins is not None:
                    self.origins.wants = True  # a brace list
                if start == word_end and argv:
                    argv[-1] = _joined(argv[-1], word)
                else:
                    argv.append(word)
                word_end = end
                continue
            named = child.is_named
            if kind == "command_name":
                inner = child.named_children
                first = inner[0] if inner else child
                if first.type == "word":
                    word = _plain_word(src[start:end], kept)
                else:
                    word = self._word(first, ctx, src, stack)
            elif kind == "variable_assignment":
                assigns.append(self._assignment(child, ctx, src, stack))
                continue
            elif kind in nodes.REDIRECTS:
                ctx = self._redirect(child, ctx, src, stack, redirects, argv)
                word_end = -1
                continue
            elif kind == "comment":
                continue
            elif named:
                word = self._word(child, ctx, src, stack, kind)
            else:
                # An operator token in argument position (`b == -x`): bash reads it as a word.
                word = Word(_text(src, child, TEXT_CAP))
            part = kind in _WORD_PARTS or not named
            if start == word_end and argv and part:
                # tree-sitter-bash splits `'-'\o` into two nodes with no gap: one word for bash
                # (`sort '-'\o out` is `sort -o out`, `'r'\m` is `rm`).
                argv[-1] = _joined(argv[-1], word)
            else:
                argv.append(word)
            word_end = end if part or kind == "command_name" else -1
        argv.extend(extra or ())
        redirects.extend(outer)  # the statement's redirects follow the command's own
        self._emit(argv, assigns, redirects, ctx._replace(redirects=ctx.redirects + tail) if tail
                   else ctx, src, node)  # fmt: skip

    def _split_tail(
        self,
        node: Node,
        first: Node,
        ctx: _Ctx,
        src: bytes,
        outer: tuple[Redirect, ...],
        stack: _Stack,
        extra: list[Word] | None,
    ) -> None:
        """Emit the children of ``node`` from ``first`` on as a command of their own."""
        argv: list[Word] = []
        redirects: list[Redirect] = []
        after = ctx._replace(pipeline=-1, stage=0)
        started = False
        for child in node.children:
            started = started or child is first or child.id == first.id
            if not started:
                continue
            if child.type in nodes.REDIRECTS:
                after = self._redirect(child, after, src, stack, redirects, argv)
            elif child.is_named and child.type != "comment":
                argv.append(self._word(child, after, src, stack))
        argv.extend(extra or ())
        redirects.extend(outer)
        self._emit(argv, [], redirects, after, src, node)

    def _keyword_command(self, node: Node, ctx: _Ctx, src: bytes, stack: _Stack) -> None:
        children = node.children
        head = Word(children[0].type) if children and not children[0].is_named else Word("")
        argv = [head]
        if node.type == "test_command":
            for child in node.named_children:
                self._scan(child, ctx, src, stack)
            self._evaluated_strings(node, ctx, src)
        else:
            for child in node.named_children:
                if child.type == "variable_assignment":
                    pair = self._assignment(child, ctx, src, stack)
                    argv.append(Word(f"{pair.name}={pair.value.value}", pair.value.literal))
                else:
                    argv.append(self._word(child, ctx, src, stack))
            for word in argv[1:]:
                if word.literal:
                    self._evaluated(word.value, ctx)  # declare 'a[$(cmd)]=1'
        self._emit(argv, [], [], ctx, src, node)

    def _emit(
        self,
        argv: list[Word],
        assigns: list[Assignment],
        redirects: list[Redirect],
        ctx: _Ctx,
        src: bytes,
        node: Node,
    ) -> None:
        if len(self.commands) >= MAX_COMMANDS:
            self._give_up(f"more than {MAX_COMMANDS:,} commands")
            return
        probe = self.origins
        if probe is not None and argv and probe.src is src:
            probe.command(argv)
        all_redirects = ctx.redirects + tuple(redirects) if redirects else ctx.redirects
        peeled = unwrap(tuple(argv))
        head = peeled.argv[0].value if peeled.argv else ""
        if head in _NAME_TAKERS:
            for word in peeled.argv[1:]:
                if word.literal:
                    self._evaluated(word.value, ctx)  # read 'a[$(cmd)]', printf -v 'a[…]'…
        wrappers = ctx.wrappers + peeled.wrappers if peeled.wrappers else ctx.wrappers
        inherited = ctx.assignments + tuple(assigns) if assigns else ctx.assignments
        if peeled.payload is not None:
            inner = ctx._replace(wrappers=wrappers, redirects=all_redirects, assignments=inherited)
            self._payload(peeled.payload, inner)
            return
        if peeled.shell_reads_stdin or (head in SOURCES and sources_stdin(peeled.argv)):
            script = _stdin_script(all_redirects)
            if script is not None:
                shell = peeled.argv[0].value.rpartition("/")[2] if peeled.argv else "sh"
                inner = ctx._replace(
                    wrappers=(*wrappers, Wrapper(shell)),
                    redirects=all_redirects,
                    assignments=inherited,
                )
                self._payload(script, inner)
                return
        if probe is not None and probe.src is src:
            probe.starts.setdefault(node.start_byte, []).append(len(self.commands))
        self.commands.append(
            SimpleCommand(
                argv=peeled.argv,
                assignments=inherited,
                redirects=all_redirects,
                wrappers=wrappers,
                in_substitution=ctx.in_substitution,
                in_function=ctx.in_function,
                background=ctx.background,
                shell_depth=ctx.shell_depth,
                pipeline=ctx.pipeline,
                stage=ctx.stage,
                text=_text(src, node, TEXT_CAP),
                evaluated=self.evaluating,
            )
        )

    # --- words and redirects -------------------------------------------------------------

    def _assignment(self, node: Node, ctx: _Ctx, src: bytes, stack: _Stack) -> Assignment:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is not None and name.type == "subscript":
            self._scan(name, ctx, src, stack)  # a[$(cmd)]=1 runs cmd
        word = self._word(value, ctx, src, stack) if value is not None else Word("")
        if word.split:  # bash does not split the value of an assignment
            word = word._replace(split=False)
        if word.literal and "[" in word.value:
            self._evaluated(word.value, ctx)  # X='a[$(cmd)]'; [[ X -eq 0 ]] runs cmd
        label = _text(src, name, TEXT_CAP) if name is not None else ""
        if self.origins is not None:
            self.origins.assigned.add(label)
            self.origins.wants = self.origins.wants or label == "IFS"
        return Assignment(label, word)

    def _word(
        self, node: Node, ctx: _Ctx, src: bytes, stack: _Stack, kind: str | None = None
    ) -> Word:
        """Return the word ``node`` spells (``kind``: its type, when the caller has read it)."""
        kind = kind or node.type  # each read of a node's type builds a new string
        if kind != "concatenation":
            return self._part(node, kind, ctx, src, stack)
        values: list[str] = []
        unquoted: list[str] = []  # the unquoted source, for brace expansion
        literal, glob, split = True, False, False
        for child in node.children:
            child_kind = child.type
            part = self._part(child, child_kind, ctx, src, stack)
            values.append(part.value)
            literal = literal and part.literal
            glob = glob or part.glob
            split = split or part.split
            unquoted.append(_text(src, child) if child_kind == "word" else "\x00")
        raw = "".join(unquoted)
        glob = glob or _is_glob(raw)
        word = Word("".join(values), literal, glob, split or glob)
        if not literal:
            return word
        word = _mark_braces(word, raw)
        if not word.literal and self.origins is not None:
            self.origins.wants = True  # a brace list
        return word

    def _part(self, node: Node, kind: str, ctx: _Ctx, src: bytes, stack: _Stack) -> Word:
        if kind == "word":
            kept = self.words if len(src) > _KEEP_WORDS_FROM else None
            return _plain_word(src[node.start_byte : node.end_byte], kept)
        if kind in nodes.LITERAL_WORDS or not node.is_named:
            return Word(unescape_unquoted(_text(src, node)))
        if kind == "raw_string":
            return Word(_text(src, node)[1:-1])
        if kind == "ansi_c_string":
            return Word(decode_ansi_c(_text(src, node)[2:-1]))
        if kind in ("string", "translated_string"):
            return self._string(node, ctx, src, stack)
        self._scan(node, ctx, src, stack)
        if self.origins is not None:
            self.origins.expansion(_text(src, node, TEXT_CAP), kind)
        if kind == "arithmetic_expansion":
            self._evaluated_strings(node, ctx, src)  # $(( 'a[$(cmd)]' ))
        # Unquoted, bash splits what an expansion gives into words. ``<(…)`` is one path, and
        # ``$((…))`` one number (an IFS of digits splits it, but only into more numbers).
        return Word(_text(src, node, TEXT_CAP), False, False, kind not in _ONE_WORD)

    def _string(self, node: Node, ctx: _Ctx, src: bytes, stack: _Stack) -> Word:
        """Return a double-quoted string's word: its source between the quotes, unescaped.

        The text is read from the source, not from the ``string_content`` nodes:
        tree-sitter-bash leaves a newline in no node and gives the whitespace after it to
        the closing quote, so joining the nodes turned `bash -c "echo hi<newline>rm -rf /"`
        into `echo hirm -rf /`. Expansions inside are kept as source and marked dynamic.
        """
        quotes = [c for c in node.children if c.type == '"']
        pos = quotes[0].end_byte if quotes else node.start_byte
        stop = quotes[-1].end_byte - 1 if len(quotes) > 1 else node.end_byte
        values: list[str] = []
        literal, split = True, False
        for child in node.named_children:
            if child.type == "string_content" or child.end_byte <= pos:
                continue
            if child.start_byte > pos:
                values.append(unescape_double_quoted(_slice(src, pos, child.start_byte)))
            literal = False
            text = _text(src, child, TEXT_CAP)
            values.append(text)
            split = split or ("@" in text and _MANY_WORDS.match(text) is not None)
            self._scan(child, ctx, src, stack)
            if self.origins is not None:
                self.origins.expansion(text, child.type)
            pos = child.end_byte
        if stop > pos:
            values.append(unescape_double_quoted(_slice(src, pos, stop)))
        return Word("".join(values), literal, False, split)

    def _redirect(
        self,
        node: Node,
        ctx: _Ctx,
        src: bytes,
        stack: _Stack,
        out: list[Redirect],
        extra_args: list[Word],
    ) -> _Ctx:
        """Append ``node``'s redirects to ``out``; return the context for what follows it."""
        kind = node.type
        fd: int | None = None
        op = ""
        target: Word | None = None
        if kind == "heredoc_redirect":
            return self._heredoc(node, ctx, src, stack, out, extra_args)
        for i, child in enumerate(node.children):
            field = node.field_name_for_child(i)
            if field == "descriptor":
                digits = _text(src, child)
                fd = int(digits) if digits.isdigit() and len(digits) < 6 else None
            elif not child.is_named:
                op = op or child.type
            elif target is None:
                target = self._word(child, ctx, src, stack)
            else:  # bash: words after the target belong to the command (`echo a > f b`)
                extra_args.append(self._word(child, ctx, src, stack))
        out.append(Redirect(op or "<<<", fd, target))
        return ctx

    def _heredoc(
        self,
        node: Node,
        ctx: _Ctx,
        src: bytes,
        stack: _Stack,
        out: list[Redirect],
        extra_args: list[Word],
    ) -> _Ctx:
        op = "<<"
        delimiter = Word("")
        quoted = False
        body = ""
        follow: list[tuple[Node, str]] = []
        operator = ""
        # tree-sitter-bash mis-parses `cat <<'EOF'; next command` (an ERROR holding the `;`
        # followed by words): the words after the separator are a command of their own.
        split: list[Word] | None = None
        split_op = ""
        # tree-sitter-bash reads a body whose first line starts with a backslash (`\! rm …`
        # fed to psql) as words of the command and leaves the body empty: the body is then
        # the text between the delimiter's line and the closing line.
        in_body = _body_start(node, src)
        for i, child in enumerate(node.children):
            kind = child.type
            field = node.field_name_for_child(i)
            if in_body >= 0 and child.start_byte >= in_body - 1 and kind != "heredoc_end":
                continue  # (from the newline that ends the delimiter's line)
            if kind in ("<<", "<<-"):
                op = kind
            elif kind == "heredoc_start":
                start = _text(src, child, TEXT_CAP)
                quoted = any(c in start for c in "'\"\\")
                delimiter = Word(start.strip("'\""))
            elif kind == "heredoc_body":
                body = _text(src, child)
                self._scan(child, ctx, src, stack)
                if not quoted and "`" in body:
                    self._backticks(body, ctx)
            elif kind in nodes.REDIRECTS:
                ctx = self._redirect(child, ctx, src, stack, out, extra_args)
            elif field == "operator":
                operator = kind
            elif field == "right" or kind in ("pipeline", "list", "command"):
                follow.append((child, operator or "|"))
            elif kind == "ERROR":
                split_op = _text(src, child, 8).strip()
                split = []
            elif field == "argument":
                word = self._word(child, ctx, src, stack)
                (extra_args if split is None else split).append(word)
        if in_body >= 0:
            end = next((c for c in node.children if c.type == "heredoc_end"), None)
            body = _slice(src, in_body, end.start_byte if end is not None else node.end_byte)
            if not quoted and "`" in body:
                self._backticks(body, ctx)
        out.append(Redirect(op, None, delimiter, body))
        if split:
            piped = split_op.startswith("|")
            after = ctx._replace(stage=ctx.stage + 1) if piped else ctx._replace(pipeline=-1)
            self._emit(split, [], [], after, src, node)
        for child, how in reversed(follow):
            if how.startswith("|") or child.type == "pipeline":
                if ctx.pipeline < 0:
                    ctx = ctx._replace(pipeline=self.pipelines, stage=0)
                    self.pipelines += 1
                self._pipe_tail(child, ctx._replace(stage=ctx.stage + 1), src, stack)
            else:
                stack.append((child, ctx._replace(pipeline=-1, stage=0), src))
        return ctx

    def _backticks(self, body: str, ctx: _Ctx) -> None:
        r"""Walk each `…` substitution of an unquoted heredoc body as the commands it runs.

        bash runs them (as it runs ``$(…)`` there); tree-sitter-bash reads the body's
        backticks as plain text, so they are found here: ``\``, ``\$`` and ``\\`` are
        escapes, quotes mean nothing in a heredoc body.
        """
        inner = ctx._replace(in_substitution=True, pipeline=-1, stage=0, redirects=())
        i, n = 0, len(body)
        while i < n:
            c = body[i]
            if c == "\\":
                i += 2
                continue
            if c != "`":
                i += 1
                continue
            j, text = i + 1, []
            while j < n and body[j] != "`":
                if body[j] == "\\" and j + 1 < n and body[j + 1] in "`$\\":
                    j += 1
                text.append(body[j])
                j += 1
            if j >= n:
                self._give_up("an unterminated ` in a heredoc body")
                return
            self.substitutions += 1
            self._payload("".join(text), inner)
            i = j + 1

    def _pipe_tail(self, node: Node, ctx: _Ctx, src: bytes, stack: _Stack) -> None:
        """Queue what follows `cat <<EOF |`: its first leg continues ``ctx``'s pipeline.

        tree-sitter-bash nests the rest of the line inside the heredoc node, as
        ``pipeline('|', list(pipeline(a, b), '&&', c))``; only ``a | b`` joins the pipe.
        """
        todo = [(node, ctx.stage)]
        while todo:
            current, stage = todo.pop()
            if current.type == "list":
                named = current.named_children
                for other in named[1:]:
                    stack.append((other, ctx._replace(pipeline=-1, stage=0), src))
                if named:
                    todo.append((named[0], stage))
            elif current.type == "pipeline":
                seen = False
                for child in current.children:
                    if child.type in ("|", "|&"):
                        stage += 1 if seen else 0
                    elif child.is_named:
                        seen = True
                        todo.append((child, stage))
            else:
                stack.append((current, ctx._replace(stage=stage), src))

    def _scan(self, node: Node, ctx: _Ctx, src: bytes, stack: _Stack) -> None:
        """Queue every command or process substitution below ``node`` (not inside them).

        Found statements go to ``self.pending``; the walk pushes them in source order.
        """
        if node.type in nodes.SUBSTITUTIONS or node.type in nodes.COMMAND_NODES:
            self.pending.append((node, ctx, src))
            return
        todo = [c for c in reversed(node.children) if c.child_count]
        while todo:
            current = todo.pop()
            if current.type in nodes.SUBSTITUTIONS or current.type in nodes.COMMAND_NODES:
                self.pending.append((current, ctx, src))
            else:
                todo.extend(c for c in reversed(current.children) if c.child_count)


# Statements evaluation reads through: loops bind values, an ERROR may be a brace list in
# command position (``{sh,-c,…}``).
_EVALUATED_NODES = frozenset({"for_statement", "c_style_for_statement", "ERROR"})


# Builtins whose operands name variables (or are arithmetic): bash evaluates an array subscript
# there, quoted or not. (declare/typeset/local/export/readonly/unset are tree-sitter-bash's
# declaration commands, read by _keyword_command.)
# (Each checked in bash 5.2; mapfile, wait -p, getopts, shift and exit do not evaluate one.)
_NAME_TAKERS = frozenset(
    {"read", "printf", "unset", "let", "test", "declare", "typeset", "local", "export",
     "readonly"}
)  # fmt: skip


def _push_children(node: Node, ctx: _Ctx, src: bytes, stack: _Stack) -> None:
    children = node.children
    items: _Stack = []
    for i, child in enumerate(children):
        if not child.is_named:
            continue
        background = i + 1 < len(children) and children[i + 1].type == "&"
        items.append((child, ctx._replace(background=True) if background else ctx, src))
    stack.extend(reversed(items))


def _body_start(node: Node, src: bytes) -> int:
    """Return where a heredoc's body starts when tree-sitter-bash left it empty, else -1."""
    start = body = end = None
    for child in node.children:
        kind = child.type
        if kind == "heredoc_start":
            start = child
        elif kind == "heredoc_body":
            body = child
        elif kind == "heredoc_end":
            end = child
    if start is None or end is None or (body is not None and body.end_byte > body.start_byte):
        return -1
    line_end = src.find(b"\n", start.end_byte, end.start_byte)
    if line_end < 0 or line_end + 1 >= end.start_byte:
        return -1
    return line_end + 1


def _stdin_script(redirects: tuple[Redirect, ...]) -> str | None:
    """Return the script a shell reads from a heredoc or a literal here-string, if any."""
    for redirect in reversed(redirects):
        if redirect.op in ("<<", "<<-") and redirect.body is not None:
            return redirect.body
        if redirect.op == "<<<" and redirect.target is not None and redirect.target.literal:
            return redirect.target.value
    return None


def _is_glob(raw: str) -> bool:
    """Return whether unquoted ``raw`` holds a pattern character bash would expand."""
    if "*" not in raw and "?" not in raw and "[" not in raw:
        return False
    escaped = False
    for ch in raw:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in "*?" or (ch == "[" and "]" in raw):
            return True
    return False


# Most long inputs spell some words many times over (`-n`, `|`, a path): one input's repeats
# share one Word, boundedly. Kept per input, not across inputs: a model whose words were made
# for earlier inputs has them scattered over the heap, and the danger catalogue read such models
# about 12% slower (benchmarks/bench_danger.py) for a parse 3% faster. A short source is not
# kept: its words rarely repeat, and hashing each one cost more than the repeats saved.
_PLAIN_WORDS_MAX = 4096
_PLAIN_WORD_BYTES = 64
_KEEP_WORDS_FROM = 256  # bytes of source


def _plain_word(chunk: bytes, kept: dict[bytes, Word] | None) -> Word:
    """Return the Word of a ``word`` node's source: backslashes removed, globs and braces marked.

    A brace expansion in the word (``{a,b}``) makes it dynamic; in a concatenation the whole
    word is looked at again (``{a,"b"}``), which a part already marked does not change.
    """
    if kept is not None:
        word = kept.get(chunk)
        if word is not None:
            return word
    try:
        raw = chunk.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:  # a node boundary cut a character
        raw = chunk.decode("utf-8", "replace")
    if "\\" in raw:
        glob = _is_glob(raw)  # a glob also splits: it may become no file name, or many
        word = Word(unescape_unquoted(raw), True, glob, glob)
    elif "*" in raw or "?" in raw or "[" in raw:
        glob = _is_glob(raw)
        word = Word(raw, True, glob, glob)
    else:
        word = Word(raw)
    if "{" in raw:
        word = _mark_braces(word, raw)
    if kept is not None and len(chunk) <= _PLAIN_WORD_BYTES and len(kept) < _PLAIN_WORDS_MAX:
        kept[chunk] = word
    return word


def _joined(last: Word, word: Word) -> Word:
    """Return the one word bash reads from two word nodes with no gap between them."""
    return Word(
        last.value + word.value,
        last.literal and word.literal,
        last.glob or word.glob,
        last.split or word.split,
    )


def _mark_braces(word: Word, unquoted: str) -> Word:
    """Return ``word`` marked dynamic when its unquoted text holds a brace expansion."""
    if "{" in unquoted and _BRACES.search(unquoted):
        return Word(word.value, False, word.glob, True)  # ``{a,b}`` is two words
    return word


def _text(src: bytes, node: Node, cap: int | None = None) -> str:
    start, end = node.start_byte, node.end_byte
    if cap is not None and end - start > cap:
        end = start + cap
    return _decode(src[start:end])


def _slice(src: bytes, start: int, end: int) -> str:
    return _decode(src[start:end])


def _decode(chunk: bytes) -> str:
    try:
        return chunk.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:  # a cap or a node boundary cut a character
        return chunk.decode("utf-8", "replace")


# Expansions that give one word even unquoted.
_ONE_WORD = frozenset({"process_substitution", "arithmetic_expansion"})

# Nodes that are (parts of) one shell word: two of them with no gap are one word for bash.
_WORD_PARTS = frozenset(
    {"word", "raw_string", "string", "ansi_c_string", "translated_string", "concatenation",
     "simple_expansion", "expansion", "command_substitution", "number"}
)  # fmt: skip


# Nodes whose text is read whole (a heredoc body, a double-quoted string's source).
_WHOLE_TEXT = frozenset({"heredoc_body", "string", "translated_string"})


def _dropped_text(root: Node, src: bytes) -> str | None:
    r"""Return where source text lies in no leaf node (an escaped blank tree-sitter skipped).

    bash reads ``\<space>`` and ``\<tab>`` as part of a word; tree-sitter-bash sometimes
    leaves them outside every node (``printf x \<tab>#-``), so the words seen here would
    not be bash's.
    """
    end = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count and node.type not in _WHOLE_TEXT:
            stack.extend(reversed(node.children))
            continue
        if node.start_byte > end and src[end : node.start_byte].strip(b" \t\n"):
            return f"{_slice(src, end, node.start_byte)[:20]!r} at {_where(node)}"
        end = max(end, node.end_byte)
    if src[end:].strip(b" \t\n"):
        return f"{_slice(src, end, len(src))[:20]!r} at the end"
    return None


def _where(node: Node) -> str:
    row, col = node.start_point
    return f"line {row + 1}, column {col + 1}"


def _with_pipeline(cmd: SimpleCommand, pipeline: int) -> SimpleCommand:
    return cmd._replace(pipeline=pipeline)
