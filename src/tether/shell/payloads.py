"""Programs that run a shell command taken from one of their arguments, and what they run.

The one place that knows it: awk's ``system()``, ``print | "cmd"`` and ``"cmd" | getline``;
sed's ``e`` command and ``s///e``; the shell strings perl, ruby, python, node and php code hands
to ``system``/``exec``/backticks/``subprocess``/``child_process``; vim/ex ``-c '!cmd'`` and
``+'!cmd'``; git aliases given as ``-c alias.NAME='!cmd'`` and then invoked (and the
``core.pager``-like keys git runs through a shell); ``find -exec/-execdir/-ok/-okdir``;
``docker/podman run``; and the runners the parser does not peel (``su -c``, ``chroot``,
``docker exec``, ``kubectl exec``…, grammars in ``tether.shell.programs.RUNNERS``).

``payloads(argv)`` returns each as a ``Payload``: shell text for the caller to parse again
(the danger catalogue does, through ``Scope.reparse``: the same depth and size caps as every
nested payload), the words of a command run without a shell (judged one nesting level down,
under the same caps), or the mark that it is built at run time and cannot be read. Container
paths under a bind mount are given as the host paths they are (``-v /:/host`` makes
``/host/etc`` the host's ``/etc``). Nothing here runs or opens anything.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from tether.shell.model import Word
from tether.shell.options import parse
from tether.shell.programs import RUNNERS
from tether.shell.tools import CLUSTER, GIT, TMUX, TMUX_ALIASES, TMUX_COMMANDS, TOOLS
from tether.shell.words import command_name, decode_ansi_c, unwrap


class Payload(NamedTuple):
    """A command one program runs for another: its text or its words, or that it is unknowable."""

    how: str  # who runs it, for messages: "awk system()", "find -exec", "docker run"
    text: str = ""  # shell source to parse and judge
    dynamic: bool = False  # built at run time: nothing can be read before it runs
    # Bind mounts of a container (container path, host path): its paths act on the host's.
    mounts: tuple[tuple[str, str], ...] = ()
    # Or the words of a command run without a shell (``find -exec``, ``docker exec``): judged
    # as they are, with no second parse (``render(argv)`` is the same command as text).
    argv: tuple[Word, ...] = ()


# --- quoting words back into shell text -----------------------------------------------------------

_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%^")


def render(words: tuple[Word, ...] | list[Word]) -> str:
    """Return shell text whose words are ``words``: literals quoted, expansions left live."""
    out: list[str] = []
    for w in words:
        v = w.value
        if not w.literal:
            # Kept expandable, so the parser sees it is computed at run time.
            out.append('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"')
        elif v and all(c in _SAFE for c in v):
            out.append(v)
        else:
            out.append("'" + v.replace("'", "'\\''") + "'")
    return " ".join(out)


# --- interpreter code: the strings handed to a shell ----------------------------------------------

_STR = r"""(?:'((?:[^'\\\n]|\\.){0,4096})'|"((?:[^"\\\n]|\\.){0,4096})")"""
# perl's and ruby's own quoting: q{} qq{} q() qq() q// qq// %q{} %Q{} %x{} and friends.
_QUOTED = (
    r"(?:q|qq|%q|%Q|%)\s*(?:\{([^{}\n]{0,4096})\}|\(([^()\n]{0,4096})\)|\[([^\[\]\n]{0,4096})\]"
    r"|<([^<>\n]{0,4096})>|/([^/\n]{0,4096})/|!([^!\n]{0,4096})!|\|([^|\n]{0,4096})\|)"
)


class _Code(NamedTuple):
    call: re.Pattern[str]
    bare: re.Pattern[str]
    quoted_call: re.Pattern[str]
    list_call: re.Pattern[str]
    backtick: re.Pattern[str]
    qx: re.Pattern[str]
    item: re.Pattern[str]
    more: re.Pattern[str]
    argv_call: re.Pattern[str]
    piped_open: re.Pattern[str]


# Functions whose string argument is a shell command (os.system, subprocess.run(…, shell=True),
# child_process.execSync, perl/ruby/php system/exec/popen …).
_SHELL_FUNCS = (
    r"(?:os\.system|os\.popen|os\.exec\w*|subprocess\.\w+|commands\.getoutput|check_output"
    r"|check_call|execSync|\bexec|execFileSync|spawnSync|\bspawn|shell_exec|passthru|\bpopen"
    r"|IO\.popen|Open3\.\w+|\bsystem|\breadpipe)"
)


@functools.cache
def _code() -> _Code:
    # Compiled on first use: most commands hold no interpreter code.
    return _Code(
        call=re.compile(_SHELL_FUNCS + r"\s*[({]\s*(?:\[\s*)?" + _STR),
        # perl and ruby call without parentheses: ``system "rm -rf /"``, ``exec 'x'``.
        bare=re.compile(r"(?<![\w.$@>])(?:system|exec)[ \t]+" + _STR),
        quoted_call=re.compile(r"(?<![\w.$@>])(?:system|exec|readpipe)[ \t]*\(?\s*" + _QUOTED),
        list_call=re.compile(
            r"(?:subprocess\.\w+|spawnSync|spawn|execFileSync|execFile)\s*\(\s*(\[[^\]]{0,4096}\])"
        ),
        backtick=re.compile(r"`([^`\n]{1,4096})`"),
        qx=re.compile(
            r"(?:\bqx|%x)\s*(?:\{([^{}\n]{1,4096})\}|\(([^()\n]{1,4096})\)|\[([^\[\]\n]{1,4096})\]"
            r"|/([^/\n]{1,4096})/|!([^!\n]{1,4096})!|\|([^|\n]{1,4096})\|)"
        ),
        item=re.compile(_STR),
        more=re.compile(r"\s*,\s*" + _STR),
        # node's spawn("sh", ["-c", "…"]) and execFile(file, [args]): a program and its words.
        argv_call=re.compile(
            r"(?:spawnSync|spawn|execFileSync|execFile)\s*\(\s*"
            + _STR
            + r"\s*,\s*(\[[^\]]{0,4096}\])"
        ),
        # perl's open(FH, "cmd |") / open(FH, "| cmd") / open(FH, "-|", "cmd"): a piped open.
        piped_open=re.compile(
            r"\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*(?:['\"][-+]?\|-?['\"]\s*,\s*"
            + _STR
            + r"|['\"]\s*\|([^'\"\n]{1,4096})['\"]|['\"]([^'\"\n|]{1,4096})\|\s*['\"])"
        ),
    )


def _unescape_code(text: str, double: bool) -> str:
    """Undo the escapes a double-quoted string of code has (``\\"``, ``\\\\``, ``\\/``)."""
    if "\\" not in text or not double:
        return text.replace("\\'", "'") if "\\" in text else text
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def _first(m: re.Match[str]) -> tuple[str, bool]:
    for i, g in enumerate(m.groups()):
        if g is not None:
            return g, i == 1
    return "", False


# A program text without any of these hands nothing to a shell.
_CODE_WORDS = ("system", "exec", "popen", "spawn", "`", "subprocess", "qx", "%x", "passthru",
               "getoutput", "check_", "readpipe", "Open3", "open")  # fmt: skip


def code_payloads(code: str, how: str) -> list[Payload]:
    """Return the shell commands a program text (python, perl, ruby, node, php) hands a shell."""
    if not any(k in code for k in _CODE_WORDS):
        return []  # most code hands nothing to a shell
    p = _code()
    out: list[Payload] = []
    for pattern in (p.call, p.bare):
        for m in pattern.finditer(code):
            text, double = _first(m)
            words = [Word(_unescape_code(text, double))]
            # ``system("rm", "-rf", "/")``: a list of words, run without a shell.
            more = p.more.match(code, m.end())
            while more is not None and len(words) < 256:
                words.append(Word(_unescape_code(*_first(more))))
                more = p.more.match(code, more.end())
            out.append(Payload(how, words[0].value if len(words) == 1 else render(words)))
    for m in p.quoted_call.finditer(code):
        out.append(Payload(how, _first(m)[0]))
    for m in p.argv_call.finditer(code):
        head, double = _first(m)
        items = [Word(_unescape_code(a or b, bool(b))) for a, b in p.item.findall(m.group(3))]
        out.append(Payload(how, render([Word(_unescape_code(head, double)), *items])))
    for m in p.piped_open.finditer(code):
        out.append(Payload(how, _first(m)[0].strip()))
    for m in p.list_call.finditer(code):
        argv = [Word(_unescape_code(a or b, bool(b))) for a, b in p.item.findall(m.group(1))]
        if argv:
            out.append(Payload(how, render(argv)))
    for pattern in (p.backtick, p.qx):
        for m in pattern.finditer(code):
            out.append(Payload(how, _first(m)[0]))
    return out


# --- awk ------------------------------------------------------------------------------------------

_AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
_SHELL_NAMES = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"})


def _awk_tokens(program: str) -> Iterator[tuple[str, str]]:
    """Yield awk tokens: ("str", value), ("pipe", "|"), ("word", name), ("op", char)."""
    i, n = 0, len(program)
    last = "op"
    while i < n:
        c = program[i]
        if c == '"':
            j, buf = i + 1, []
            while j < n and program[j] != '"':
                if program[j] == "\\" and j + 1 < n:
                    nxt = program[j + 1]
                    buf.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
                    j += 2
                    continue
                buf.append(program[j])
                j += 1
            yield "str", "".join(buf)
            last, i = "str", j + 1
        elif c == "/" and last == "op":
            # A regex literal where an operand is expected (/a|b/ is no pipe).
            j = i + 1
            while j < n and program[j] not in "/\n":
                j += 2 if program[j] == "\\" else 1
            last, i = "str", j + 1
        elif c == "#":
            while i < n and program[i] != "\n":
                i += 1
        elif c == "|":
            if program[i : i + 2] == "||":
                last, i = "op", i + 2
                yield "op", "||"
                continue
            i += 2 if program[i : i + 2] == "|&" else 1
            last = "op"
            yield "pipe", "|"
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (program[j].isalnum() or program[j] == "_"):
                j += 1
            word = program[i:j]
            yield "word", word
            # After a keyword or function name an operand follows; after a variable, an operator.
            last = "op" if word in ("print", "printf", "return", "in", "getline") else "word"
            i = j
        elif c.isspace():
            i += 1
        elif c in ")]$":
            last, i = "word", i + 1
            yield "op", c
        else:
            last, i = "op", i + 1
            yield "op", c


def awk_payloads(program: str, how: str = "awk") -> list[Payload]:
    """Return the commands an awk program runs: ``system()``, ``| "cmd"``, ``"cmd" | getline``."""
    if "system" not in program and "|" not in program:
        return []
    tokens = list(_awk_tokens(program))
    out: list[Payload] = []
    for k, (kind, value) in enumerate(tokens):
        after = tokens[k + 1 : k + 4]
        if kind == "word" and value == "system" and after[:1] == [("op", "(")]:
            if len(after) == 3 and after[1][0] == "str" and after[2] == ("op", ")"):
                out.append(Payload(f"{how} system()", after[1][1]))
            else:
                out.append(Payload(f"{how} system() of a computed string", dynamic=True))
        elif kind == "pipe":
            before = tokens[k - 1] if k else ("op", "")
            if after[:1] == [("word", "getline")]:
                if before[0] == "str":
                    out.append(Payload(f'{how} "cmd" | getline', before[1]))
                else:
                    out.append(Payload(f"{how} getline from a computed command", dynamic=True))
            elif after[:1] and after[0][0] == "str":
                target = after[0][1]
                if command_name(target.split(" ", 1)[0]) in _SHELL_NAMES:
                    # ``print "rm -rf /" | "sh"``: the shell runs what is printed.
                    if before[0] == "str" and k >= 2 and tokens[k - 2][1] in ("print", "printf"):
                        out.append(Payload(f'{how} print "cmd" | "sh"', before[1]))
                    else:
                        out.append(Payload(f"{how} prints computed text into a shell",
                                           dynamic=True))  # fmt: skip
                else:
                    out.append(Payload(f'{how} print | "cmd"', target))
            else:
                out.append(Payload(f"{how} prints into a computed command", dynamic=True))
    return out


def _awk(name: str, args: tuple[Word, ...]) -> list[Payload]:
    g = TOOLS["gawk"]
    parsed = parse(g, args)
    programs = parsed.values("--source")
    literal = True
    if not parsed.has("--file", "--source", "--exec") and parsed.operands:
        first = parsed.operands[0]
        literal = first.literal
        programs.append(first.value)
    out: list[Payload] = []
    for program in programs:
        for found in awk_payloads(program, name):
            if not literal and any(c in found.text for c in "$`"):
                # ``awk "BEGIN{system(\"rm $DIR\")}"``: the shell expands part of the command.
                found = Payload(f"{found.how} of a string the shell expands", dynamic=True)
            out.append(found)
    return out


# --- sed ------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _delimited(delim: str) -> re.Pattern[str]:
    return re.compile(r"(?:[^" + re.escape(delim) + r"\\\n]|\\.)*")


def _sed_delimited(script: str, i: int, delim: str) -> tuple[str, int]:
    """Read up to the unescaped ``delim`` from ``i``; return (text, index after delim)."""
    m = _delimited(delim).match(script, i)
    text = m.group() if m is not None else ""
    end = m.end() if m is not None else i
    if "\\" in text:  # ``\/`` is the delimiter itself; other escapes stay for the regex
        text = re.sub(r"\\(.)", lambda e: e.group(1) if e.group(1) == delim else e.group(), text)
    return text, end + 1


def sed_payloads(script: str) -> list[Payload]:
    """Return the commands a sed script runs: ``e CMD``, ``e`` and ``s/…/…/e`` (GNU sed)."""
    if "e" not in script:
        return []
    out: list[Payload] = []
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if c in " \t\n;{}!":
            i += 1
            continue
        if c.isdigit() or c in "$,~+":
            i += 1
            continue
        if c in "/\\":  # an address regex: /re/ or \cREc
            if c == "\\" and i + 1 < n:
                i += 1
            _, i = _sed_delimited(script, i + 1, script[i])
            while i < n and script[i] in "IM":
                i += 1
            continue
        if c == "#" or c == ":":
            while i < n and script[i] != "\n":
                i += 1
            continue
        i += 1
        if c in "aicrRwWbtTvlLqQ":
            # Text, a file name or a label to the end of the line (b, t, T also end at ;).
            stops = "\n;}" if c in "btTvlLqQ" else "\n"
            while i < n and script[i] not in stops:
                i += 1
            continue
        if c == "e":
            j = i
            while j < n and script[j] != "\n":
                j += 1
            command = script[i:j].strip()
            out.append(Payload("sed e", command) if command else
                       Payload("sed e runs the pattern space", dynamic=True))  # fmt: skip
            i = j
            continue
        if c in "sy" and i < n:
            delim = script[i]
            _, i = _sed_delimited(script, i + 1, delim)
            replacement, i = _sed_delimited(script, i, delim)
            j = i
            while j < n and script[j] not in ";\n}":
                j += 1
            flags = script[i:j]
            i = j
            if c == "s" and "e" in flags.split("w", 1)[0]:
                if "&" in replacement or re.search(r"\\[0-9]", replacement):
                    out.append(Payload("sed s///e runs the edited line", dynamic=True))
                else:
                    text = re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)),
                                  replacement)  # fmt: skip
                    out.append(Payload("sed s///e", text))
            continue
    return out


# An ``e`` that is the e command or an s flag is followed by a blank, ``;``, ``}``, another
# flag or the end: a word without such an ``e`` has nothing to run (``file.txt``, ``1,20p``).
_SED_E = re.compile(r"e(?:[\s;}gpIiMmw\d]|$)")


def _sed(name: str, args: tuple[Word, ...]) -> list[Payload]:
    words = "\n".join(w.value for w in args if w.value != "-e")
    if "e" not in words or _SED_E.search(words) is None:
        return []  # no word holds an ``e`` where a command or a flag stands (most sed commands)
    parsed = parse(TOOLS["sed"], args)
    if parsed.has("--sandbox"):
        return []  # --sandbox refuses e, r and w
    scripts = parsed.values("--expression")
    if not parsed.has("--expression", "--file") and parsed.operands:
        first = parsed.operands[0]
        if first.literal:
            scripts.append(first.value)
    out: list[Payload] = []
    for script in scripts:
        out.extend(sed_payloads(script))
    return out


# --- vim / ex -------------------------------------------------------------------------------------

_VIMS = frozenset({"vi", "vim", "nvim", "ex", "view", "gvim", "vimdiff", "rvim", "evim", "nex"})
_VIM_SHELL = re.compile(
    r"^[\s:]*(?:silent!?\s*|exe(?:cute)?\s*['\"]\s*|[%.$,\d'<>]+\s*|(?:r(?:ead)?|w(?:rite)?)\s*)*!"
    r"(.*)$",
    re.S,
)
_VIM_SYSTEM = re.compile(r"\b(?:system|systemlist|jobstart|term(?:inal)?)\s*\(\s*" + _STR)


def _vim(name: str, args: tuple[Word, ...]) -> list[Payload]:
    commands: list[Word] = []
    parsed = parse(TOOLS["vim"], [w for w in args if not w.value.startswith("+")])
    for w in args:
        if w.value.startswith("+") and len(w.value) > 1:
            commands.append(Word(w.value[1:], w.literal))
    commands.extend(Word(v) for v in parsed.values("-c", "--cmd"))
    out: list[Payload] = []
    for w in commands:
        for piece in w.value.split("|") if not w.value.lstrip(": ").startswith("!") else [w.value]:
            m = _VIM_SHELL.match(piece)
            if m:
                text = m.group(1).strip().rstrip("'\"")
                if not w.literal:
                    out.append(Payload(f"{name} -c '!…' built at run time", dynamic=True))
                elif text:
                    out.append(Payload(f"{name} -c '!…'", text))
            for s in _VIM_SYSTEM.finditer(piece):
                out.append(Payload(f"{name} system()", _first(s)[0]))
    return out


# --- git -c alias.NAME=!cmd NAME ------------------------------------------------------------------

# Keys whose value git runs through the shell (``!``-aliases aside).
_GIT_SHELL_KEYS = frozenset(
    {"core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "sequence.editor",
     "diff.external", "core.askpass", "credential.helper"}
)  # fmt: skip


def _git(name: str, args: tuple[Word, ...]) -> list[Payload]:
    if not any(w.value == "-c" for w in args):
        return []  # most git commands: git reads -c only as a word of its own
    parsed = parse(GIT, args)
    if not parsed.has("-c"):
        return []
    sub = parsed.operands[0].value.lower() if parsed.operands else ""
    rest = parsed.operands[1:]
    out: list[Payload] = []
    for setting in parsed.values("-c"):
        key, eq, value = setting.partition("=")
        key = key.lower()
        if key.startswith("alias.") and value.startswith("!") and key[6:] == sub:
            # git runs ``sh -c 'VALUE "$@"' VALUE ARGS``: the arguments follow the value.
            out.append(Payload(f"git alias {sub}", f"{value[1:]} {render(rest)}".strip()))
        elif eq and (key in _GIT_SHELL_KEYS or key.startswith("pager.")) and value:
            out.append(Payload(f"git -c {key}", value.removeprefix("!")))
    return out


# --- find -exec -----------------------------------------------------------------------------------

_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _find(name: str, args: tuple[Word, ...]) -> list[Payload]:
    out: list[Payload] = []
    i = 0
    while i < len(args):
        v = args[i].value
        i += 1
        if v not in _FIND_EXEC or not args[i - 1].literal:
            continue
        inner: list[Word] = []
        while i < len(args) and not (args[i].value in (";", "+") and args[i].literal):
            inner.append(args[i])
            i += 1
        if inner:
            out.append(Payload(f"find {v}", argv=tuple(inner)))
    return out


# --- containers -----------------------------------------------------------------------------------

_CONTAINERS = frozenset({"docker", "podman", "nerdctl", "docker-compose", "kubectl", "oc"})


def _bind_mounts(values: list[str], mounts: list[str]) -> tuple[tuple[str, str], ...]:
    """Return (container path, host path) for each writable bind mount given literally."""
    found: list[tuple[str, str]] = []
    for spec in values:
        host, sep, rest = spec.partition(":")
        target, _, mode = rest.partition(":")
        if sep and host.startswith(("/", "~")) and target.startswith("/") and "ro" not in mode:
            found.append((target.rstrip("/") or "/", host))
    for spec in mounts:
        fields = dict(f.partition("=")[::2] for f in spec.split(","))
        host = fields.get("source") or fields.get("src") or ""
        target = fields.get("target") or fields.get("dst") or fields.get("destination") or ""
        if fields.get("type", "bind") != "bind" or "readonly" in fields or "ro" in fields:
            continue
        if host.startswith(("/", "~")) and target.startswith("/"):
            found.append((target.rstrip("/") or "/", host))
    # Longest container path first: the deepest mount decides.
    return tuple(sorted(found, key=lambda m: -len(m[0])))


def host_path(path: str, mounts: tuple[tuple[str, str], ...]) -> str:
    """Return the host path a container path names (unchanged when no bind mount covers it)."""
    for target, host in mounts:
        if target == "/" and target != host:
            continue  # a mount over the container's own root is not what ``-v /:/`` means here
        if path == target or path.startswith(target + "/"):
            tail = path[len(target) :]
            return (host.rstrip("/") + tail) or "/"
    return path


def _host_paths_in(text: str, mounts: tuple[tuple[str, str], ...]) -> str:
    """Rewrite the container paths in shell text that start a word to the host's paths."""
    for target, host in mounts:
        if target == "/":
            continue
        pattern = r"(?<![^\s'\"=:;|&(])" + re.escape(target) + r"(?=[/\s'\";|&)*]|$)"
        text = re.sub(pattern, functools.partial(_host_root, host.rstrip("/")), text)
    return text


def _host_root(root: str, m: re.Match[str]) -> str:
    # ``/host/etc`` -> ``/etc``; ``/host`` alone -> ``/``.
    return root if m.string[m.end() : m.end() + 1] == "/" else root or "/"


def _compose(args: tuple[Word, ...]) -> list[Payload]:
    """Return what ``docker compose run|exec SERVICE CMD…`` runs in the service's container."""
    rest = parse(CLUSTER["docker compose"], args, stop_at=1).operands
    if not rest or rest[0].value not in ("run", "exec"):
        return []
    sub = rest[0].value
    parsed = parse(CLUSTER[f"docker compose {sub}"], rest[1:])
    argv = list(parsed.operands[1:])
    entry = parsed.values("--entrypoint")
    if entry:
        argv = [Word(e) for e in entry[-1].split()] + argv
    mounts = _bind_mounts(parsed.values("--volume"), [])
    if not argv:
        return [Payload(f"docker compose {sub}", mounts=mounts)] if mounts else []
    return [Payload(f"docker compose {sub}", mounts=mounts, argv=_on_host(argv, mounts))]


def _on_host(argv: list[Word], mounts: tuple[tuple[str, str], ...]) -> tuple[Word, ...]:
    """Return ``argv`` with container paths under a bind mount spelt as the host's paths."""
    return tuple(
        Word(host_path(w.value, mounts), w.literal, w.glob) if w.literal and mounts else w
        for w in argv
    )


def _kubectl_run(args: tuple[Word, ...]) -> list[Payload]:
    """Return what ``kubectl run NAME --image=I -- CMD…`` runs in the new pod."""
    rest = parse(CLUSTER["kubectl"], args, stop_at=1).operands
    if not rest or rest[0].value != "run":
        return []
    parsed = parse(CLUSTER["kubectl run"], rest[1:])
    command = rest[1:][parsed.stop :] if parsed.dashdash else ()
    return [Payload("kubectl run", argv=tuple(command))] if command else []


def _container_run(name: str, args: tuple[Word, ...]) -> list[Payload]:
    if name in ("kubectl", "oc"):
        return _kubectl_run(args) if any(w.value == "run" for w in args) else []
    if name == "docker-compose" or any(w.value == "compose" for w in args[:8]):
        rest = args if name == "docker-compose" else parse(CLUSTER[name], args, stop_at=1).operands
        if name == "docker-compose" or (rest and rest[0].value == "compose"):
            return _compose(rest if name == "docker-compose" else rest[1:])
    if not any(w.value in ("run", "create") for w in args):
        return []
    rest = parse(CLUSTER[name], args, stop_at=1).operands
    if rest and rest[0].value == "container":
        rest = rest[1:]
    if not rest or rest[0].value not in ("run", "create"):
        return []
    parsed = parse(TOOLS["docker run"], rest[1:])
    after = parsed.operands
    mounts = _bind_mounts(parsed.values("--volume"), parsed.values("--mount"))
    argv = list(after[1:]) if after else []
    entry = parsed.values("--entrypoint")
    if entry:
        argv = [Word(e) for e in entry[-1].split()] + argv
    if not argv:
        return [Payload(f"{name} run", mounts=mounts)] if mounts else []
    words = _on_host(argv, mounts)
    if mounts:
        # ``sh -c 'rm -rf /host/etc'``: the paths inside a shell string are the host's too.
        peeled = unwrap(tuple(argv))
        if peeled.payload is not None:
            return [Payload(f"{name} run", _host_paths_in(peeled.payload, mounts), mounts=mounts)]
    workdir = parsed.values("--workdir")
    if workdir and mounts and host_path(workdir[-1], mounts) != workdir[-1]:
        # The container starts in a host directory: judged after a ``cd`` there.
        text = f"cd {render([Word(host_path(workdir[-1], mounts))])} && {render(words)}"
        return [Payload(f"{name} run", text, mounts=mounts)]
    return [Payload(f"{name} run", mounts=mounts, argv=words)]


# --- runners: su -c, chroot, docker exec, kubectl exec … ------------------------------------------


def runner_payload(argv: tuple[Word, ...]) -> Payload | None:
    """Return what a runner (``su -c``, ``pkexec``, ``chroot``, ``docker exec`` …) runs."""
    if not argv or not argv[0].literal:
        return None
    name = argv[0].value.rpartition("/")[2]
    spec = RUNNERS.get(name)
    if spec is None:
        return None
    args = argv[1:]
    if spec.subcommand:
        # The tool's own options may come first (``kubectl -n ns exec pod -- …``).
        rest = parse(CLUSTER[name], args, stop_at=1).operands if name in CLUSTER else args
        if not rest or rest[0].value != spec.subcommand:
            return None
        args = rest[1:]
    # su, sg and runuser without -u find -c anywhere (they permute); a command given as
    # operands starts at the first operand after the positionals.
    parsed = parse(spec.grammar, args)
    for option, value in parsed.options:
        if option in spec.payload and value is not None:
            if option in parsed.dynamic:
                return Payload(f"{name} -c of a run-time string", dynamic=True)
            return Payload(name, value)
    if spec.needs_payload or (name == "runuser" and not parsed.has("--user")):
        return None
    command = parse(spec.grammar, args, stop_at=spec.positionals + 1).operands[spec.positionals :]
    if name in ("flock", "sg") and command and command[0].value in ("-c", "--command"):
        if len(command) < 2:
            return None
        if not command[1].literal:
            return Payload(f"{name} -c of a run-time string", dynamic=True)
        return Payload(name, command[1].value)
    return Payload(name, argv=tuple(command)) if command else None


# --- ssh -o ProxyCommand, rsync -e, busybox APPLET --------------------------------------------

# ssh_config keys whose value is a command ssh runs on this machine through the user's shell.
_SSH_COMMANDS = frozenset({"proxycommand", "localcommand", "knownhostscommand"})


def _ssh(name: str, args: tuple[Word, ...]) -> list[Payload]:
    if not any("ommand" in w.value.lower() for w in args):
        return []
    out: list[Payload] = []
    for setting in parse(TOOLS["ssh"], args).values("-o"):
        key, _, value = setting.replace("=", " ", 1).partition(" ")
        value = value.strip()
        if key.lower() in _SSH_COMMANDS and value and value.lower() != "none":
            out.append(Payload(f"ssh -o {key}", value))
    return out


def _rsync(name: str, args: tuple[Word, ...]) -> list[Payload]:
    if not any(w.value[:1] == "-" and ("e" in w.value or "rsh" in w.value) for w in args):
        return []
    # rsync runs its -e/--rsh program to reach the other side (split into words like a shell).
    return [Payload("rsync -e", v) for v in parse(TOOLS["rsync"], args).values("--rsh")]


_TAR_RUNS = ("--to-command", "--use-compress-program", "--rsh-command", "--info-script")


def _tar(name: str, args: tuple[Word, ...]) -> list[Payload]:
    if not any(
        w.value[:1] == "-"
        and (
            "-t" in w.value
            or "-c" in w.value
            or "I" in w.value
            or "-r" in w.value
            or "F" in w.value
        )
        for w in args
    ):
        return []  # fmt: skip
    parsed = parse(TOOLS["tar"], args)
    out = [Payload(f"tar {o}", v) for o, v in parsed.options if o in _TAR_RUNS and v]
    for action in parsed.values("--checkpoint-action"):
        if action.startswith("exec="):
            out.append(Payload("tar --checkpoint-action=exec", action[5:]))
    return out


_ENTER = frozenset({"Enter", "C-m", "KPEnter", "C-j"})


def _tmux(name: str, args: tuple[Word, ...]) -> list[Payload]:
    parsed = parse(TMUX, args)
    out = [Payload("tmux -c", v) for v in parsed.values("-c")]
    commands: list[list[Word]] = [[]]
    for w in parsed.operands:  # ``tmux new -d 'a' \; send-keys …``: commands split at ``;``
        if w.literal and w.value == ";":
            commands.append([])
        else:
            commands[-1].append(w)
    for words in commands:
        if not words:
            continue
        sub = TMUX_ALIASES.get(words[0].value, words[0].value)
        g = TMUX_COMMANDS.get(sub)
        if g is None:
            continue
        rest = parse(g, words[1:]).operands
        how = f"tmux {sub}"
        if sub == "send-keys":
            # Keys typed into the pane's shell: what comes before Enter runs there.
            typed = [w for w in rest if w.value not in _ENTER]
            if typed and len(typed) < len(rest):
                out.append(Payload(how, " ".join(w.value for w in typed)))
        elif sub == "if-shell":
            out.extend(Payload(how, w.value) for w in rest[:1])
        elif len(rest) == 1:
            out.append(Payload(how, rest[0].value) if rest[0].literal else
                       Payload(f"{how} of a run-time string", dynamic=True))  # fmt: skip
        elif rest:
            out.append(Payload(how, argv=tuple(rest)))
    return out


def _screen(name: str, args: tuple[Word, ...]) -> list[Payload]:
    parsed = parse(TOOLS["screen"], args)
    if parsed.has("-X"):
        # ``screen -S s -X stuff 'rm -rf /\n'``: text typed into the session's shell.
        rest = [w.value for w in parsed.operands]
        if parsed.values("-X")[-1:] == ["stuff"] and rest:
            typed = decode_ansi_c(rest[0].replace("^M", "\n"))
            if "\n" in typed or "\r" in typed:
                return [Payload("screen -X stuff", typed)]
        return []
    return [Payload("screen", argv=parsed.operands)] if parsed.operands else []


def _busybox(name: str, args: tuple[Word, ...]) -> list[Payload]:
    # ``busybox APPLET …`` is APPLET: judged as that command (``busybox sh -c '…'``).
    return [Payload("busybox", argv=args)] if args and args[0].literal else []


# --- environment variables whose value is a command ---------------------------------------------

# Programs run these through a shell (git, man, less, crontab -e, ssh …): ``GIT_SSH_COMMAND='…'
# git fetch`` runs the value. BASH_ENV/ENV name a file, judged elsewhere.
ENV_COMMANDS = frozenset(
    {"GIT_SSH_COMMAND", "GIT_SSH", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
     "GIT_ASKPASS", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "EDITOR", "VISUAL", "PAGER",
     "MANPAGER", "SYSTEMD_PAGER", "LESSOPEN", "LESSCLOSE", "SSH_ASKPASS", "SUDO_ASKPASS",
     "PROMPT_COMMAND", "RSYNC_RSH", "CVS_RSH", "BROWSER"}
)  # fmt: skip


def env_payloads(assignments: list[tuple[str, Word]]) -> list[Payload]:
    """Return the commands held by ``NAME=value`` assignments programs run (``GIT_SSH_COMMAND``)."""
    out: list[Payload] = []
    for key, value in assignments:
        if key not in ENV_COMMANDS or not value.value.strip():
            continue
        if value.literal:
            out.append(Payload(f"{key}=…", value.value.lstrip("|")))  # LESSOPEN='|cmd %s'
        else:
            out.append(Payload(f"{key} built at run time", dynamic=True))
    return out


# --- the table ------------------------------------------------------------------------------------

_Extractor = Callable[[str, tuple[Word, ...]], list[Payload]]
_BY_NAME: dict[str, _Extractor] = {
    **dict.fromkeys(_AWKS, _awk),
    "sed": _sed,
    "gsed": _sed,
    **dict.fromkeys(_VIMS, _vim),
    "git": _git,
    "find": _find,
    **dict.fromkeys(_CONTAINERS, _container_run),
    "ssh": _ssh,
    "rsync": _rsync,
    "busybox": _busybox,
    "tar": _tar,
    "tmux": _tmux,
    "screen": _screen,
    "gtar": _tar,
}
NAMES = frozenset(_BY_NAME) | frozenset(RUNNERS)


def payloads(argv: tuple[Word, ...], name: str = "") -> list[Payload]:
    """Return the shell commands the program of ``argv`` runs from its arguments.

    ``name`` is the program's name when the caller knows it (lower case, no directory).
    """
    if not argv or not argv[0].literal:
        return []
    name = name or command_name(argv[0].value).rpartition("/")[2].lower()
    out: list[Payload] = []
    extractor = _BY_NAME.get(name)
    if extractor is not None:
        out.extend(extractor(name, argv[1:]))
    if name in RUNNERS:
        found = runner_payload(argv)
        if found is not None:
            out.append(found)
    return out


__all__ = [
    "ENV_COMMANDS",
    "NAMES",
    "Payload",
    "awk_payloads",
    "code_payloads",
    "env_payloads",
    "host_path",
    "payloads",
    "render",
    "runner_payload",
    "sed_payloads",
]
