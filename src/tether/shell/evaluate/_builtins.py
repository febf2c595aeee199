"""What the commands that change the shell's state do: cd, set, read, printf -v, ln -s, eval,
functions, ``sh -c SCRIPT NAME ARGS``, xargs fed a static input, files written then read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.shell.evaluate._state import (
    BREAK,
    DYN,
    DYN_END,
    GLOB,
    HOME,
    MAX_DEPTH,
    MAX_LOOP,
    State,
    plain,
)
from tether.shell.model import Word, command_name

if TYPE_CHECKING:
    from tether.shell.evaluate._walk import Record, Walker

_Stack = list[tuple[object, ...]]
_DECLARE = frozenset({"export", "local", "declare", "typeset", "readonly"})
_SOURCES = frozenset({".", "source"})
_STDIN = frozenset({"/dev/stdin", "/proc/self/fd/0", "/dev/fd/0", "-"})


def _static(values: list[str] | tuple[str, ...]) -> bool:
    return all(DYN not in v and BREAK not in v for v in values)


def run(w: Walker, argv: list[str], stdin: str | None, depth: int, stack: _Stack) -> bool:
    """Apply what ``argv`` does to the state; True when it is replaced by what it runs."""
    st = w.st
    head = argv[0]
    if DYN in head:
        return False
    name = command_name(plain(head))
    if name in st.functions and depth < MAX_DEPTH:
        body, src = st.functions[name]
        stack.append(("args", st.positional, st.zero))
        stack.append(("node", body, src, depth + 1))
        stack.append(("args", list(argv[1:]), st.zero))
        st.revealed = True
        return True
    if name == "eval" and len(argv) > 1 and _static(argv[1:]):
        w.evaluate_text(" ".join(plain(a) for a in argv[1:]), depth, stack)
        return True
    if name in _SOURCES and len(argv) > 1:
        script = stdin if plain(argv[1]) in _STDIN else read_file(argv[1], st)
        if script is not None:
            stack.append(("args", st.positional, st.zero))
            w.evaluate_text(script, depth, stack)
            if len(argv) > 2:
                stack.append(("args", list(argv[2:]), st.zero))
            st.revealed = True
            return True
        return False
    if _shell(w, argv, stdin, depth, stack):
        return True
    handler = _HANDLERS.get(name)
    if handler is not None:
        return handler(w, argv, stdin, depth)
    return False


def _shell(w: Walker, argv: list[str], stdin: str | None, depth: int, stack: _Stack) -> bool:
    """``sh -c SCRIPT NAME ARGS`` (after wrappers), ``bash FILE``: run the script with them."""
    from tether.shell.programs import SHELLS

    st = w.st
    for k, word in enumerate(argv[:4]):
        if DYN in word:
            return False
        shell = command_name(plain(word)).rpartition("/")[2]
        if shell not in SHELLS:
            continue
        from tether.shell.words import _shell_payload

        rest = argv[k + 1 :]
        if not _static(rest):
            return False
        has_c, payload, reads_stdin, n = _shell_payload(shell, tuple(Word(plain(a)) for a in rest))
        if has_c and payload is not None:
            script: str | None = payload.value
            args = rest[n + 1 :]
        elif reads_stdin:
            script, args = stdin, rest[n:]
        elif n < len(rest):
            script, args = read_file(rest[n], st), rest[n:]
        else:
            return False
        if script is None or (has_c and not args and depth == 0 and stdin is None):
            return False  # the parser reads a bare ``sh -c '…'`` already
        stack.append(("restore", st.snapshot()))
        w.evaluate_text(script, depth, stack)
        stack.append(("args", list(args[1:]), args[0] if args else shell))
        st.revealed = True
        return True
    return False


def _cd(w: Walker, argv: list[str], stdin: str | None, depth: int) -> bool:
    st = w.st
    ops = [a for a in argv[1:] if not (a.startswith("-") and len(a) > 1)]
    target = ops[0] if ops else HOME
    if target == "-" and st.oldcwd is not None:
        target = st.oldcwd
    if DYN in target or target == "-":
        st.cwd = st.oldcwd = None
        return False
    target = plain_path(target)
    if target.startswith(("/", HOME)):
        new = norm(target)
    elif st.cwd is not None:
        new = norm(st.cwd + "/" + target)
        st.revealed = True
    else:
        return False
    new = st.links.get(new, new)
    st.oldcwd = st.cwd
    st.cwd = new
    from tether.shell.evaluate._walk import Record

    w.records.append(Record(("cd", new), (), (), *w.pipe))
    return True


def plain_path(value: str) -> str:
    """Return a path value with glob marks dropped (home kept)."""
    return value.replace(GLOB, "")


def norm(path: str) -> str:
    """Normalise ``/``, ``.`` and ``..`` in an absolute or home-based path."""
    prefix = HOME if path.startswith(HOME) else "/"
    parts: list[str] = []
    for part in path[1:].split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif prefix == HOME:
                parts.append("..")
            continue
        parts.append(part)
    if prefix == HOME:
        return HOME + ("/" + "/".join(parts) if parts else "")
    return "/" + "/".join(parts)


def key(path: str, st: State) -> str | None:
    """Return where ``path`` points from the current directory (None when unknown)."""
    path = plain_path(path)
    if path.startswith(("/", HOME)):
        return norm(path)
    if st.cwd is not None:
        return norm(st.cwd + "/" + path)
    return "\x00" + path.rstrip("/")  # relative to the start: known only as written


_PROC_ROOTS = ("/proc/self/root", "/proc/thread-self/root", "/proc/1/root", "/dev/fd/../root")


def rewrite_path(value: str, st: State) -> str:
    """Return ``value`` with ``/proc/self/root`` and links made earlier in the line followed."""
    if DYN in value or not value:
        return value
    head, eq, tail = value.partition("=") if "=" in value and not value.startswith("/") else (
        "", "", value)  # fmt: skip
    new = _follow(tail, st)
    return value if new == tail else head + eq + new


def relative(value: str, st: State) -> str:
    """Return an operand spelled ``./x`` or ``../x`` as the path it names from a known cwd."""
    if st.cwd is None or DYN in value or not value.startswith(("./", "../")):
        return value
    st.revealed = True
    return norm(st.cwd + "/" + value.replace(GLOB, "\x00")).replace("\x00", GLOB)


def _follow(path: str, st: State) -> str:
    if path.startswith("/proc/") and "/root" in path:
        for prefix in _PROC_ROOTS:
            if path == prefix or path.startswith(prefix + "/"):
                st.revealed = True
                return "/" + path[len(prefix) :].lstrip("/")
        parts = path.split("/")
        if len(parts) > 3 and parts[2].isdigit() and parts[3] == "root":
            st.revealed = True
            return "/" + "/".join(parts[4:])
    if path.startswith("/proc/self/cwd") and st.cwd is not None:
        st.revealed = True
        return st.cwd + path[len("/proc/self/cwd") :]
    if st.links and "/" in path:
        where = key(path, st)
        if where is not None:
            where += "/" if path.endswith("/") and not where.endswith("/") else ""
            for link, target in st.links.items():
                if where.startswith(link + "/"):
                    st.revealed = True
                    return target + where[len(link) :]
    return path


def _ln(w: Walker, argv: list[str], stdin: str | None, depth: int) -> bool:
    st = w.st
    options = [a for a in argv[1:] if a.startswith("-")]
    operands = [a for a in argv[1:] if not a.startswith("-")]
    symbolic = any(o == "--symbolic" or (not o.startswith("--") and "s" in o) for o in options)
    if not symbolic or not _static(operands) or not operands or len(operands) > 2:
        return False
    target = plain_path(operands[0])
    link = operands[1] if len(operands) == 2 else target.rstrip("/").rpartition("/")[2]
    where = key(link, st)
    if where is None:
        return False
    if not target.startswith(("/", HOME)):
        base = where.rpartition("/")[0] if "/" in where else None
        if base is None or where.startswith("\x00"):
            return False
        target = norm(base + "/" + target)
    st.links[where] = norm(target)
    return False


def _set(w: Walker, argv: list[str], stdin: str | None, depth: int) -> bool:
    args = argv[1:]
    if args and args[0] == "--":
        w.st.positional = list(args[1:])
    elif args and not args[0].startswith(("-", "+")):
        w.st.positional = list(args)
    return False


def _shift(w: Walker, argv: list[str], stdin: str | None, depth: int) -> bool:
    st = w.st
    if st.positional is not None:
        n = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 1
        st.positional = st.positional[n:]
    return False


def _printf(w: Walker, argv: list[str], stdin: str | None, depth: int) -> bool:
    if len(argv) < 4 or argv[1] != "-v":
        return False
    from tether.shell.decode import printf_output

    name = argv[2]
    out = printf_output([plain(a) for a in argv[3:]]) if _static(argv[3:]) else None
    w.st.set(name, out)
    w.st.revealed = True
    return False


def _read(w: Walker, argv: list[str], stdin: str | None, depth: int) -> bool:
    st = w.st
    names: list[str] = []
    array: str | None = None
    delim = "\n"
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("-a", "-d", "-p", "-t", "-n", "-N", "-u", "-i") and i + 1 < len(argv):
            if a == "-a":
                array = argv[i + 1]
            elif a == "-d":
                delim = argv[i + 1][:1] or "\x00"
            i += 2
            continue
        if a.startswith("-"):
            i += 1
            continue
        names.append(a)
        i += 1
    if stdin is None or DYN in stdin:
        for n in names or ["REPLY"]:
            st.set(n, None)
        return False
    line = stdin.split(delim, 1)[0]
    ifs = st.ifs() or " \t\n"
    if array is not None:
        st.set(array, None)
        st.variables.pop(array, None)
        st.arrays[array] = list(_split(line, ifs, 0))
        st.revealed = True
        return False
    names = names or ["REPLY"]
    parts = _split(line, ifs, len(names)) if names != ["REPLY"] else [line]
    for k, n in enumerate(names):
        st.set(n, parts[k] if k < len(parts) else "")
    st.revealed = True
    return False


def _split(line: str, ifs: str, most: int) -> list[str]:
    """Split a line read by ``read`` (the last name takes the rest)."""
    blanks = "".join(c for c in ifs if c in " \t\n")
    line = line.strip(blanks)
    out: list[str] = []
    cur = ""
    i = 0
    while i < len(line):
        if most and len(out) == most - 1:
            out.append(line[i:].rstrip(blanks))
            return out
        c = line[i]
        if c in ifs:
            out.append(cur)
            cur = ""
            while i + 1 < len(line) and line[i + 1] in blanks:
                i += 1
        else:
            cur += c
        i += 1
    out.append(cur)
    return out


def _declare(w: Walker, argv: list[str], stdin: str | None, depth: int) -> bool:
    st = w.st
    for a in argv[1:]:
        name, eq, value = a.partition("=")
        if eq and name.isidentifier():
            st.set(name, None if DYN in value else value.replace(GLOB, ""))
    return False


def _unset(w: Walker, argv: list[str], stdin: str | None, depth: int) -> bool:
    for a in argv[1:]:
        w.st.variables.pop(a, None)
        w.st.arrays.pop(a, None)
    return False


def _xargs(w: Walker, argv: list[str], stdin: str | None, depth: int) -> bool:
    from tether.shell.evaluate._walk import Record
    from tether.shell.options import parse
    from tether.shell.programs import WRAPPERS

    st = w.st
    if not _static(argv):
        return False
    parsed = parse(WRAPPERS["xargs"].grammar, tuple(Word(plain(a)) for a in argv[1:]))
    command = list(argv[1 + parsed.stop :]) or ["echo"]
    data = stdin
    token: str | None = None
    split_on: str | None = None
    for option, value in parsed.options:
        if option == "--arg-file" and value is not None:
            data = read_file(value, st)
        elif option in ("-I", "-J") and value is not None:
            token = value
        elif option == "--replace":
            token = value or "{}"
        elif option == "--null":
            split_on = "\x00"
        elif option == "--delimiter" and value:
            split_on = value[:1] if value != "\\n" else "\n"
    pid, stage = w.pipe
    if data is None and pid >= 0 and stage > 0:
        data = printed([r for r in w.records if r.pipeline == pid and r.stage == stage - 1], st)
    if data is None or DYN in data:
        return False
    items = [i for i in (data.split(split_on) if split_on else data.split()) if i][:MAX_LOOP]
    if token is not None:
        for item in items:
            line = tuple(a.replace(token, item) for a in command)
            w.records.append(Record(line, (), (), pid, stage))
    else:
        w.records.append(Record((*command, *items), (), (), pid, stage))
    st.revealed = True
    return True


def _shopt(w: Walker, argv: list[str], stdin: str | None, depth: int) -> bool:
    if "-s" in argv and "expand_aliases" in argv:
        w.st.expand_aliases = True
    return False


def _alias(w: Walker, argv: list[str], stdin: str | None, depth: int) -> bool:
    for a in argv[1:]:
        name, eq, value = a.partition("=")
        if eq and DYN not in value:
            w.st.aliases[name] = value.replace(GLOB, "")
    return False


_HANDLERS = {
    "shopt": _shopt,
    "alias": _alias,
    "cd": _cd,
    "pushd": _cd,
    "set": _set,
    "shift": _shift,
    "printf": _printf,
    "read": _read,
    "ln": _ln,
    "unset": _unset,
    "xargs": _xargs,
    **dict.fromkeys(_DECLARE, _declare),
}


def read_file(path: str, st: State) -> str | None:
    """Return the text of a file written earlier in the line, or of a static ``<(…)``."""
    if path.startswith(DYN) and path.endswith(DYN_END) and path.count(DYN) == 1:
        source = st.dynamic[int(path[1:-1])]
        if source.startswith("<(") and source.endswith(")"):
            from tether.shell.evaluate._walk import output_of

            return output_of(source[2:-1], st, 1)
    if DYN in path:
        return None
    where = key(path, st)
    return st.files.get(where) if where is not None else None


def after(w: Walker, record: Record, stdin: str | None) -> None:
    """Remember what ``record`` wrote to a file (``echo TEXT > f``), when static."""
    for op, target in record.redirects:
        if op.lstrip("0123456789") not in (">", ">|", ">>", "&>"):
            continue
        where = key(target, w.st)
        if where is None:
            continue
        text = printed([record._replace(redirects=(), pipeline=-1)], w.st)
        if text is None:
            w.st.files.pop(where, None)
        elif op.endswith(">>"):
            w.st.files[where] = w.st.files.get(where, "") + text
        else:
            w.st.files[where] = text


def printed(records: list[Record], st: State) -> str | None:
    """Return what ``records`` print, when the line says it."""
    from tether.shell.decode import static_output
    from tether.shell.model import SimpleCommand

    out: list[str] = []
    groups: list[list[Record]] = []
    for r in records:
        if groups and r.pipeline >= 0 and groups[-1][0].pipeline == r.pipeline:
            groups[-1].append(r)
        else:
            groups.append([r])
    for group in groups:
        stages: list[SimpleCommand] = []
        for r in group:
            argv = list(r.argv)
            if not _static(argv) or any(HOME in a for a in argv):
                return None
            name = command_name(plain(argv[0]))
            if name == "cat" and len(argv) == 2:
                text = read_file(argv[1], st)
                if text is None:
                    return None
                argv = ["printf", "%s", text]
            elif name == "pwd":
                if st.cwd is None or HOME in st.cwd:
                    return None
                argv = ["printf", "%s\n", st.cwd]
            elif name in ("basename", "dirname") and len(argv) == 2:
                path = plain(argv[1])
                base = path.rstrip("/") or "/"
                value = base.rpartition("/")[2] if name == "basename" else (
                    base.rpartition("/")[0] or ("/" if base.startswith("/") else "."))  # fmt: skip
                argv = ["printf", "%s\n", value or "/"]
            stages.append(SimpleCommand(tuple(Word(plain(a)) for a in argv)))
        text = static_output(stages)
        if text is None:
            return None
        out.append(text)
    return "".join(out)
