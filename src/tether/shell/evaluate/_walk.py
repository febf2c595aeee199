"""The statement walk: commands in the order bash runs them, state carried between them.

An explicit stack (no Python recursion on the input's nesting): lists, pipelines, loops,
functions, ``eval`` and ``sh -c`` push their parts with the state changes around them.
Each command evaluated becomes a ``Record`` (argv, assignments, redirects, pipeline stage).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from tether.shell.evaluate import _builtins
from tether.shell.evaluate._expand import expand, expand_text
from tether.shell.evaluate._state import (
    BREAK,
    DYN,
    GLOB,
    MAX_DEPTH,
    MAX_LOOP,
    MAX_RECORDS,
    GiveUp,
    State,
)

if TYPE_CHECKING:
    from tree_sitter import Node


class Record(NamedTuple):
    """One command as bash runs it: each value static unless it holds a run-time marker."""

    argv: tuple[str, ...]
    assignments: tuple[tuple[str, str], ...] = ()
    redirects: tuple[tuple[str, str], ...] = ()  # (operator with its descriptor, target)
    pipeline: int = -1
    stage: int = 0
    origin: int = -1  # the byte where the input's own command starts (its first level only)
    certain: bool = True  # no value read from code that may not run


_SEQUENCE = frozenset({"program", "compound_statement", "do_group", "negated_command"})
# Statements whose parts may not run: what they assign is not certain afterwards.
_CONDITIONAL = frozenset({"if_statement", "elif_clause", "else_clause", "while_statement",
                          "case_statement", "case_item"})  # fmt: skip
_WORDISH_SKIP = frozenset({"variable_assignment", "comment", "file_redirect",
                           "heredoc_redirect", "herestring_redirect"})  # fmt: skip


def parse_tree(text: str) -> tuple[Node, bytes]:
    """Parse ``text`` with the shell parser's tree-sitter instance."""
    from tether.shell.parse import _get_parser

    src = text.encode("utf-8", "surrogatepass")
    return _get_parser().parse(src).root_node, src


class Walker:
    """Evaluates statements into records, in order."""

    __slots__ = ("pipe", "pipes", "records", "st")

    def __init__(self, st: State) -> None:
        self.st = st
        self.records: list[Record] = []
        self.pipe = (-1, 0)
        self.pipes = 0

    def run(self, root: Node, src: bytes, depth: int) -> None:
        """Evaluate every statement below ``root``."""
        st = self.st
        stack: list[tuple[object, ...]] = [("node", root, src, depth)]
        while stack:
            item = stack.pop()
            kind = item[0]
            if kind == "restore":
                st.restore(item[1])  # type: ignore[arg-type]
                continue
            if kind == "bind":
                st.set(item[1], item[2])  # type: ignore[arg-type]
                continue
            if kind == "args":
                st.positional, st.zero = item[1], item[2]  # type: ignore[assignment]
                continue
            if kind == "pipe":
                self.pipe = item[1]  # type: ignore[assignment]
                continue
            if kind == "cond":
                st.conditional += item[1]  # type: ignore[operator]
                continue
            _, node, src, depth = item  # type: ignore[assignment]
            assert isinstance(node, object) and isinstance(src, bytes)
            st.step()
            self._node(node, src, depth, stack)  # type: ignore[arg-type]

    def _node(self, node: Node, src: bytes, depth: int, stack: list[tuple[object, ...]]) -> None:
        t = node.type
        st = self.st
        if t in _SEQUENCE:
            stack.extend(("node", c, src, depth) for c in reversed(node.named_children))
        elif t in _CONDITIONAL or t == "list":
            # ``a && b``: b may not run; an if's or a loop's body may not either.
            children = node.named_children
            stack.append(("cond", -1))
            stack.extend(("node", c, src, depth) for c in reversed(children[1:]))
            stack.append(("cond", 1))
            if children:
                stack.append(("node", children[0], src, depth))
        elif t == "subshell":
            stack.append(("restore", st.snapshot()))
            stack.extend(("node", c, src, depth) for c in reversed(node.named_children))
        elif t == "pipeline":
            self._pipeline(node, src, depth, stack)
        elif t == "redirected_statement":
            body = node.child_by_field_name("body")
            redirects = [c for c in node.named_children if c is not body and c.id != getattr(
                body, "id", -1)]  # fmt: skip
            if body is not None and body.type == "command":
                self.command(body, src, depth, stack, redirects)
            elif body is not None:
                stack.append(("node", body, src, depth))
        elif t == "command":
            self.command(node, src, depth, stack, [])
        elif t == "variable_assignment":
            self._assign(node, src, depth)
        elif t == "variable_assignments":
            for c in node.named_children:
                if c.type == "variable_assignment":
                    self._assign(c, src, depth)
        elif t == "declaration_command":
            self._declare(node, src, depth)
        elif t == "unset_command":
            for c in node.named_children:
                name = _text(src, c)
                st.variables.pop(name, None)
                st.arrays.pop(name, None)
        elif t == "function_definition":
            label = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if label is not None and body is not None:
                st.functions[_text(src, label)] = (body, src)
        elif t == "for_statement":
            self._for(node, src, depth, stack)
        elif t == "ERROR" and node.start_byte < len(src) and src[node.start_byte] == 123:
            self._brace_command(_text(src, node), depth, stack)
        elif t == "c_style_for_statement":
            body = node.child_by_field_name("body")
            if body is not None:
                stack.append(("node", body, src, depth))

    # --- statements ---------------------------------------------------------------------

    def _pipeline(
        self, node: Node, src: bytes, depth: int, stack: list[tuple[object, ...]]
    ) -> None:
        legs = node.named_children
        pid = self.pipes
        self.pipes += 1
        outer = self.pipe
        stack.append(("pipe", outer))
        stack.append(("restore", self.st.snapshot()))  # every leg runs in a subshell
        for stage in range(len(legs) - 1, -1, -1):
            stack.append(("node", legs[stage], src, depth))
            stack.append(("pipe", (pid, stage)))

    def _for(self, node: Node, src: bytes, depth: int, stack: list[tuple[object, ...]]) -> None:
        var = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        if var is None or body is None:
            return
        name = _text(src, var)
        values: list[str | None] = []
        words = [c for c in node.children_by_field_name("value")]
        if words:
            for w in words:
                values.extend(expand(_text(src, w), self.st, depth=depth))
        elif self.st.positional is not None:
            values.extend(self.st.positional)
        else:
            values.append(None)
        if len(values) > MAX_LOOP:
            values = values[:MAX_LOOP]
        self.st.revealed = self.st.revealed or bool(words)
        stack.append(("cond", -1))
        for value in reversed(values):
            stack.append(("node", body, src, depth))
            stack.append(("bind", name, value))
        stack.append(("cond", 1))

    def _brace_command(self, text: str, depth: int, stack: list[tuple[object, ...]]) -> None:
        """Read what tree-sitter-bash cannot: a brace expansion in command position.

        ``{sh,-c,'rm -rf /'}`` is the word list ``sh -c 'rm -rf /'`` to bash; the grammar
        reads ``{`` as a group and fails. The text is split into words as bash splits them.
        """
        for words in split_commands(text):
            argv: list[str] = []
            for raw in words:
                argv.extend(expand(raw, self.st, depth=depth))
            self.st.revealed = True
            if argv and not _builtins.run(self, argv, None, depth, stack):
                self.records.append(Record(tuple(argv), (), (), *self.pipe))

    def _assign(self, node: Node, src: bytes, depth: int) -> tuple[str, str] | None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None or name_node.type != "variable_name":
            return None
        name = _text(src, name_node)
        append = any(c.type == "+=" for c in node.children)
        st = self.st
        if value_node is not None and value_node.type == "array":
            items: list[str] = []
            for c in value_node.named_children:
                items.extend(expand(_text(src, c), st, depth=depth))
            st.arrays[name] = (st.arrays.get(name, []) if append else []) + items
            if st.conditional:
                st.uncertain.add(name)
            st.variables.pop(name, None)
            return None
        if st.conditional:
            st.uncertain.add(name)
        value = expand_text(_text(src, value_node), st, depth) if value_node is not None else ""
        value = value.replace(GLOB, "")  # no globbing in an assignment
        if append:
            old = st.variables.get(name, "")
            value = (old if old is not None else "\ue002") + value
        st.variables[name] = None if DYN in value else value
        st.arrays.pop(name, None)
        return name, value

    def _declare(self, node: Node, src: bytes, depth: int) -> None:
        for c in node.named_children:
            if c.type == "variable_assignment":
                self._assign(c, src, depth)

    # --- commands -----------------------------------------------------------------------

    def command(
        self,
        node: Node,
        src: bytes,
        depth: int,
        stack: list[tuple[object, ...]],
        outer: list[Node],
    ) -> None:
        """Evaluate one simple command and what it does to the state."""
        st = self.st
        st.doubt = False
        spans: list[list[int]] = []
        assigns: list[Node] = []
        redirect_nodes: list[Node] = []
        for child in node.children:
            kind = child.type
            if kind == "variable_assignment":
                assigns.append(child)
            elif kind in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                redirect_nodes.append(child)
            elif kind == "comment" or (not child.is_named and kind in (";", "&")):
                continue
            elif spans and spans[-1][1] == child.start_byte:
                spans[-1][1] = child.end_byte
            else:
                spans.append([child.start_byte, child.end_byte])
        redirect_nodes.extend(outer)
        if st.expand_aliases and st.aliases and spans and depth < MAX_DEPTH:
            first = _slice(src, spans[0][0], spans[0][1])
            if first in st.aliases:
                # bash reads the alias's value in place of the word, then the rest of the line
                text = st.aliases[first] + _slice(src, spans[0][1], node.end_byte)
                self.evaluate_text(text, depth, stack)  # (an alias of itself: MAX_DEPTH)
                st.revealed = True
                return
        argv: list[str] = []
        for start, end in spans:
            argv.extend(expand(_slice(src, start, end), st, depth=depth))
        pairs: list[tuple[str, str]] = []
        saved = dict(st.variables) if assigns and spans else None
        for a in assigns:
            pair = self._assign(a, src, depth)
            if pair is not None:
                pairs.append(pair)
        if saved is not None:
            st.variables = saved  # a prefix assignment is the command's environment only
        redirects, extra, stdin = self._redirects(redirect_nodes, src, depth)
        argv.extend(extra)
        argv = [_builtins.rewrite_path(v, st) for v in argv]
        if st.cwd is not None:
            argv[1:] = [_builtins.relative(v, st) for v in argv[1:]]
        if not argv:
            return
        done = _builtins.run(self, argv, stdin, depth, stack)
        if done:
            return
        origin = node.start_byte if depth == 0 else -1
        certain = not st.doubt and not st.conditional
        record = Record(tuple(argv), tuple(pairs), tuple(redirects), *self.pipe, origin, certain)
        self.records.append(record)
        if len(self.records) > MAX_RECORDS:
            raise GiveUp(f"more than {MAX_RECORDS} commands evaluated")
        _builtins.after(self, record, stdin)

    def _redirects(
        self, found: list[Node], src: bytes, depth: int
    ) -> tuple[list[tuple[str, str]], list[str], str | None]:
        out: list[tuple[str, str]] = []
        extra: list[str] = []
        stdin: str | None = None
        st = self.st
        for r in found:
            if r.type == "heredoc_redirect":
                body = next((c for c in r.named_children if c.type == "heredoc_body"), None)
                start = next((c for c in r.children if c.type == "heredoc_start"), None)
                quoted = start is not None and any(q in _text(src, start) for q in "'\"\\")
                if body is not None:
                    text = _text(src, body)
                    if quoted or ("$" not in text and "`" not in text):
                        stdin = text
                continue
            descriptor = ""
            op = ""
            targets: list[Node] = []
            for i, c in enumerate(r.children):
                if r.field_name_for_child(i) == "descriptor":
                    descriptor = _text(src, c)
                elif not c.is_named:
                    op = op or c.type
                else:
                    targets.append(c)
            if r.type == "herestring_redirect":
                op = "<<<"
            if not targets:
                continue
            if op == "<<<":
                value = expand_text(_text(src, targets[0]), st, depth).replace(GLOB, "")
                stdin = value + "\n"
            else:
                fields = expand(_text(src, targets[0]), st, depth=depth)
                value = fields[0] if len(fields) == 1 else st.dyn(_text(src, targets[0]))
                value = _builtins.rewrite_path(value, st)
                if op == "<":
                    stdin = _builtins.read_file(value, st)
            for t in targets[1:]:
                extra.extend(expand(_text(src, t), st, depth=depth))
            out.append((descriptor + op, value))
        return out, extra, stdin

    def evaluate_text(self, text: str, depth: int, stack: list[tuple[object, ...]]) -> None:
        """Queue ``text`` (an eval's string, a script) to run here, parsed."""
        if depth >= MAX_DEPTH:
            raise GiveUp(f"scripts nested more than {MAX_DEPTH} deep")
        root, src = parse_tree(text)
        stack.append(("node", root, src, depth + 1))


def split_commands(text: str) -> list[list[str]]:
    """Split ``text`` into commands (at unquoted ``;``, ``&``, ``|``, newline) of raw words."""
    from tether.shell.evaluate._expand import skip_quoted

    commands: list[list[str]] = [[]]
    start, i, n = -1, 0, len(text)
    while i <= n:
        c = text[i] if i < n else "\n"
        if i < n and c in "'\"\\$`":
            if start < 0:
                start = i
            i = skip_quoted(text, i)
            continue
        if c in " \t\n;&|":
            if start >= 0:
                commands[-1].append(text[start:i])
                start = -1
            if c in ";&|\n" and commands[-1]:
                commands.append([])
        elif start < 0:
            start = i
        i += 1
    return [c for c in commands if c]


def output_of(inner: str, st: State, depth: int) -> str | None:
    """Return what ``inner`` prints, when the line says it (echo, printf, decoders…)."""
    if depth > MAX_DEPTH:
        return None
    saved = st.snapshot()
    walker = Walker(st)
    try:
        root, src = parse_tree(inner)
        if root.has_error:
            return None
        walker.run(root, src, depth)
    finally:
        st.restore(saved)
    return _builtins.printed(walker.records, st)


def _text(src: bytes, node: Node) -> str:
    return _slice(src, node.start_byte, node.end_byte)


def _slice(src: bytes, start: int, end: int) -> str:
    return src[start:end].decode("utf-8", "replace")


__all__ = ["BREAK", "Record", "Walker", "output_of", "parse_tree"]
