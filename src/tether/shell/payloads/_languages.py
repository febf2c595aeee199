"""The shell commands other languages hand a shell: interpreter code (python, perl, ruby, node,
php strings given to system/exec/backticks/subprocess/child_process), awk (``system()``,
``print | "cmd"``, ``"cmd" | getline``), sed (``e``, ``s///e``) and vim/ex (``-c '!cmd'``)."""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from tether.shell.embedded.awk import read_awk
from tether.shell.embedded.sed import read_sed
from tether.shell.model import Word, command_name
from tether.shell.options import parse
from tether.shell.payloads._model import Payload, render
from tether.shell.tools import TOOLS

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
    exec_list: re.Pattern[str]
    concat: re.Pattern[str]


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
        # python's os.execv*/spawnv*/posix_spawn*(FILE, [ARGV…]): argv[0] names, FILE runs.
        exec_list=re.compile(
            r"os\.(?:execv\w*|spawnv\w*|posix_spawnp?)\s*\(\s*(?:os\.P_\w+\s*,\s*)?"
            + _STR
            + r"\s*,\s*(\[[^\]]{0,4096}\]|\([^)]{0,4096}\))"
        ),
        # A string continued by concatenation: ``"rm -rf " + "/"``, perl's ``.``, or a name.
        concat=re.compile(r"\s*[+.]\s*(?:" + _STR + r"|([A-Za-z_][\w.\[\]]{0,200})(?![\w(]))"),
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
# The words each pattern needs before it can match. A pattern that starts with an alternation is
# tried at every position of the text (about 1 ms for a page of python); an ``in`` test is not.
_CALL_WORDS = ("system", "exec", "popen", "spawn", "subprocess", "passthru", "getoutput", "check_",
               "readpipe", "Open3")  # fmt: skip
_NEEDS = {
    "call": _CALL_WORDS,
    "bare": ("system", "exec"),
    "quoted_call": ("system", "exec", "readpipe"),
    "argv_call": ("spawn", "execFile"),
    "exec_list": ("execv", "spawnv", "posix_spawn"),
    "piped_open": ("open",),
    "list_call": ("subprocess", "spawn", "execFile"),
    "backtick": ("`",),
    "qx": ("qx", "%x"),
}


def code_payloads(code: str, how: str) -> list[Payload]:
    """Return the shell commands a program text (python, perl, ruby, node, php) hands a shell."""
    if not any(k in code for k in _CODE_WORDS):
        return []  # most code hands nothing to a shell
    p = _code()

    def may(pattern: str) -> bool:
        return any(k in code for k in _NEEDS[pattern])

    out: list[Payload] = []
    for name, pattern in (("call", p.call), ("bare", p.bare)):
        if not may(name):
            continue
        for m in pattern.finditer(code):
            text, double = _first(m)
            text = _unescape_code(text, double)
            tail = p.concat.match(code, m.end())
            while tail is not None and len(text) < 4096:
                # ``os.system("rm -rf " + path)``: a name's value is only known at run time.
                piece = tail.group(3)
                text += "${_}" if piece else _unescape_code(*_first(tail))
                tail = p.concat.match(code, tail.end())
            words = [Word(text)]
            # ``system("rm", "-rf", "/")``: a list of words, run without a shell.
            more = p.more.match(code, m.end())
            while more is not None and len(words) < 256:
                words.append(Word(_unescape_code(*_first(more))))
                more = p.more.match(code, more.end())
            out.append(Payload(how, words[0].value if len(words) == 1 else render(words)))
    if may("quoted_call"):
        for m in p.quoted_call.finditer(code):
            out.append(Payload(how, _first(m)[0]))
    if may("argv_call"):
        for m in p.argv_call.finditer(code):
            head, double = _first(m)
            items = [Word(_unescape_code(a or b, bool(b))) for a, b in p.item.findall(m.group(3))]
            out.append(Payload(how, render([Word(_unescape_code(head, double)), *items])))
    if may("exec_list"):
        for m in p.exec_list.finditer(code):
            head, double = _first(m)
            items = [Word(_unescape_code(a or b, bool(b))) for a, b in p.item.findall(m.group(3))]
            out.append(Payload(how, render([Word(_unescape_code(head, double)), *items[1:]])))
    if may("piped_open"):
        for m in p.piped_open.finditer(code):
            out.append(Payload(how, _first(m)[0].strip()))
    if may("list_call"):
        for m in p.list_call.finditer(code):
            argv = [Word(_unescape_code(a or b, bool(b))) for a, b in p.item.findall(m.group(1))]
            if argv:
                out.append(Payload(how, render(argv)))
    for name, pattern in (("backtick", p.backtick), ("qx", p.qx)):
        if may(name):
            for m in pattern.finditer(code):
                out.append(Payload(how, _first(m)[0]))
    return out


# --- awk ------------------------------------------------------------------------------------------

AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
_SHELL_NAMES = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"})


def awk_payloads(program: str, how: str = "awk") -> list[Payload]:
    """Return the commands an awk program runs: ``system()``, ``| "cmd"``, ``"cmd" | getline``,
    as the one awk reader (``tether.shell.embedded.awk``) reads them."""
    if "system" not in program and "|" not in program and "@" not in program:
        return []
    out: list[Payload] = []
    for run in read_awk(program).runs:
        if run.command is None:
            out.append(Payload(f"{how} {run.how} of a computed command", dynamic=True))
        elif run.how.startswith("print") and command_name(run.command.split(" ", 1)[0]) in (
            _SHELL_NAMES
        ):
            # ``print "rm -rf /" | "sh"``: the shell runs what is printed.
            if run.printed is not None:
                out.append(Payload(f'{how} print "cmd" | "sh"', run.printed))
            else:
                out.append(Payload(f"{how} prints computed text into a shell", dynamic=True))
        else:
            out.append(Payload(f"{how} {run.how}", run.command))
    return out


def from_awk(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return what an awk program given on the command line runs."""
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


def sed_payloads(script: str) -> list[Payload]:
    """Return the commands a sed script runs: ``e CMD``, ``e`` and ``s/…/…/e`` (GNU sed), as
    the one sed reader (``tether.shell.embedded.sed``) reads them."""
    if "e" not in script:
        return []
    out: list[Payload] = []
    for run in read_sed(script).runs:
        if run.command is not None:
            out.append(Payload(f"sed {run.how}", run.command))
        elif run.how == "e":
            out.append(Payload("sed e runs the pattern space", dynamic=True))
        else:
            out.append(Payload("sed s///e runs the edited line", dynamic=True))
    return out


_SED_CUSTOM_ADDRESS_E = re.compile(r"\\(.)(?:(?!\1).)*\1[IM]*\s*e")
# An ``e`` at a command position (first, or after an address or a separator), or an ``e`` in a
# run of s flags that ends at a blank, ``;``, ``}``, ``#``, ``w FILE`` or the end. One pass in C:
# this runs on every sed command, most of whose ``e`` letters are in file names and words.
_SED_MAY_RUN = re.compile(r"e(?:(?<![^0-9$/,;{}!\n~+ \tIM]e)|[gpIiMm0-9]*(?![^w \t\n;}#]))")


def sed_may_run(text: str) -> bool:
    """Return True when an ``e`` in ``text`` may be sed's e command or the s///e flag.

    A superset, so a script without one runs nothing and skips the full read: an ``e`` at a
    command position (after an address or a separator, or a ``\\cREGEXc`` address), or a run
    of s flags holding e that ends at a blank, ``;``, ``}``, ``#``, ``w FILE`` or the end.
    """
    return _SED_MAY_RUN.search(text) is not None or (
        "\\" in text and _SED_CUSTOM_ADDRESS_E.search(text) is not None
    )


def from_sed(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return what the sed scripts given on the command line run."""
    words = "\n".join([w.value for w in args if w.value != "-e"])
    if not sed_may_run(words):
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

VIMS = frozenset({"vi", "vim", "nvim", "ex", "view", "gvim", "vimdiff", "rvim", "evim", "nex"})
_VIM_SHELL = re.compile(
    r"^[\s:]*(?:silent!?\s*|exe(?:cute)?\s*['\"]\s*|[%.$,\d'<>]+\s*|(?:r(?:ead)?|w(?:rite)?)\s*)*!"
    r"(.*)$",
    re.S,
)
_VIM_SYSTEM = re.compile(r"\b(?:system|systemlist|jobstart|term(?:inal)?)\s*\(\s*" + _STR)


def from_vim(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the shell commands vim/ex's ``-c``, ``--cmd`` and ``+`` commands run."""
    commands: list[Word] = []
    parsed = parse(TOOLS["vim"], [w for w in args if not w.value.startswith("+")])
    for w in args:
        if w.value.startswith("+") and len(w.value) > 1:
            commands.append(Word(w.value[1:], w.literal))
    commands.extend(Word(v) for v in parsed.values("-c", "--cmd"))
    out: list[Payload] = []
    for w in commands:
        # ``:!cmd`` takes the rest of the line, ``|`` included; other commands end at ``|``.
        pieces = [w.value] if _VIM_SHELL.match(w.value) else w.value.split("|")
        for piece in pieces:
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
