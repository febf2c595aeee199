"""Scan interpreter one-liners and heredoc scripts for destructive calls.

``python -c``, ``node -e``, ``perl -e``, ``ruby -e``, ``php -r`` and scripts fed to them on
stdin are not flagged for being code: the program text (taken from the parsed model) is searched
for calls that delete trees, run shell commands or open reverse shells. A shell string passed to
``os.system``/``subprocess``/``execSync``/``system`` is parsed again and judged like any command.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from tether.rules.danger._base import Hit, Scope, is_python, name_of
from tether.rules.danger.paths import HARDLINE_PLACES, Place, place
from tether.shell.decode import produced, static_input
from tether.shell.model import SimpleCommand, Word
from tether.shell.options import parse
from tether.shell.payloads import code_payloads
from tether.shell.tools import code_grammar

if TYPE_CHECKING:
    from types import ModuleType

_STR = r"""(?:'([^'\\\n]{0,4096})'|"([^"\\\n]{0,4096})")"""
_ARG = r"\s*(?:" + _STR + r"|([A-Za-z_][\w.\[\]]{0,200}))"


class _Patterns(NamedTuple):
    recursive_delete: re.Pattern[str]
    file_delete: re.Pattern[str]
    path_delete: re.Pattern[str]
    socket: re.Pattern[str]
    spawn_shell: re.Pattern[str]
    decode_exec: re.Pattern[str]
    fork_loop: re.Pattern[str]
    device_open: re.Pattern[str]


@functools.cache
def _patterns() -> _Patterns:
    # Compiled on first use: most commands hold no interpreter code, and compiling these at
    # import cost ~1.5 ms in every hook process.
    return _Patterns(
        # Calls whose first argument is a path deleted recursively / as a single file.
        recursive_delete=re.compile(
            r"(?:rmtree|rm_rf|rm_r|remove_dir|remove_entry_secure|remove_entry|remove_tree"
            r"|rimraf(?:\.sync)?"
            r"|rmSync|rmdirSync|promises\.rm|fs\.rm|FileUtils\.rm|del_tree)\s*\(" + _ARG
        ),
        file_delete=re.compile(
            r"(?:os\.remove|os\.unlink|os\.rmdir|os\.removedirs|unlinkSync|File\.delete"
            r"|File\.unlink"
            r"|\bunlink)\s*\(?" + _ARG
        ),
        path_delete=re.compile(r"Path\(" + _ARG + r"\s*\)\s*\.\s*(?:unlink|rmdir)\s*\("),
        socket=re.compile(r"socket|Socket|TCPSocket|net\.connect|fsockopen"),
        spawn_shell=re.compile(r"dup2|pty\.spawn|/bin/(?:ba)?sh|cmd\.exe|exec\s*\(|spawn\s*\("),
        decode_exec=re.compile(
            r"(?:exec|eval|system|Function)\s*\(.{0,200}"
            r"(?:b64decode|base64|fromCharCode|decode\(|unpack\(|atob)",
            re.S,
        ),
        # fork() repeated without end: ``while True: os.fork()``, perl's ``fork while 1`` and
        # ``fork while fork``, ruby's ``loop { fork }``, php's ``while(1) pcntl_fork()``.
        fork_loop=re.compile(
            r"while\s*\(?\s*(?:True|true|1)\s*\)?\s*(?::|\{|do\b)?\s*"
            r"(?:os\.|pcntl_|Process\.)?fork\b"
            r"|\bfork\s*(?:\(\s*\))?\s*(?:while|until)\s+(?:1|true|fork)\b"
            r"|\bloop\s*(?:\{|do\b)\s*(?:Process\.)?fork\b"
            r"|for\s*\(\s*;\s*;\s*\)\s*\{?\s*(?:pcntl_)?fork\b"
        ),
        # A device path opened by code: python/ruby open(), os.open, node's fs calls, perl's
        # open(FH, ">/dev/sda"); what follows the path says whether it writes.
        device_open=re.compile(
            r"(open|openSync|writeFileSync|appendFileSync|createWriteStream|File\.write"
            r"|IO\.write|sysopen)\s*\(\s*(?:(?:my\s+)?[$\w]+\s*,\s*)?"
            r"['\"]([+<>]{0,2})\s*(/dev/[\w/.-]+)['\"]([^)\n]{0,80})"
        ),
    )


# Text each pattern needs before it can match, tested with ``in`` first: a pattern that starts
# with an alternation is tried at every position of the code, and code can be pages long.
_NEEDS = {
    "recursive_delete": ("rmtree", "rm_r", "remove_", "rimraf", "Sync", ".rm", "del_tree"),
    "file_delete": ("os.r", "unlink", "File.delete"),
    "path_delete": ("Path(",),
    "socket": ("socket", "Socket", "net.connect", "fsockopen"),
    "decode_exec": ("b64decode", "base64", "fromCharCode", "decode(", "unpack(", "atob"),
    "fork_loop": ("fork",),
    "device_open": ("/dev/",),
}
# Functions that write whatever mode they are given, and the modes that write.
_WRITE_CALLS = frozenset({"writeFileSync", "appendFileSync", "createWriteStream", "File.write",
                          "IO.write"})  # fmt: skip
_WRITE_MODE = re.compile(r"['\"][rwa]?[wa+]|O_WRONLY|O_RDWR|\bflags\s*:\s*['\"][wa+r]\+?")


def _may_match(code: str, pattern: str) -> bool:
    return any(needle in code for needle in _NEEDS[pattern])


INTERPRETERS = ("node", "nodejs", "bun", "deno", "perl", "ruby", "php", "osascript")


def is_interpreter(name: str) -> bool:
    """Return True for Python, node, perl, ruby, php and other inline-code interpreters."""
    return is_python(name) or name in INTERPRETERS


# Where each interpreter takes inline code: the options whose value is a program text.
_CODE_OPTIONS = {
    "perl": ("-e", "-E"),
    "ruby": ("-e",),
    "php": ("-r", "-B", "-R", "-F", "-E"),
    "osascript": ("-e",),
}
_JS_CODE = ("--eval", "--print")


# The letters those options are spelt with (clustered too: ``-Bc``, ``-ne``): a command with
# no option word holding one has no inline code, and skips the parse.
_CODE_LETTERS = {
    "perl": frozenset("eE"),
    "ruby": frozenset("e"),
    "php": frozenset("rBRFE"),
    "osascript": frozenset("e"),
    "python": frozenset("c"),
}
_JS_LETTERS = frozenset("ep")


def interpreter_words(cmd: SimpleCommand) -> list[Word]:
    """Return the words holding inline code an interpreter runs (``-c``, ``-e``, ``eval CODE``)."""
    name = name_of(cmd)
    if not is_interpreter(name):
        return []
    python = is_python(name)
    letters = _CODE_LETTERS["python"] if python else _CODE_LETTERS.get(name, _JS_LETTERS)
    args = cmd.args
    if name != "deno" and not any(
        w.value[:1] == "-" and not letters.isdisjoint(w.value) for w in args
    ):
        return []
    parsed = parse(code_grammar(name), args)
    wanted = ("-c",) if python else _CODE_OPTIONS.get(name, _JS_CODE)
    # An option word is always literal; its value is a run-time string only when it came as
    # a separate word that expands (``python3 -c "$(curl …)"``).
    found: list[Word] = []
    # (python's -c CODE and -m MODULE end its options: its grammar reads later words as operands.)
    for option, value in parsed.options:
        if option in wanted and value is not None:
            found.append(Word(value, option not in parsed.dynamic))
    if name == "deno" and parsed.operands[:1] and parsed.operands[0].value == "eval":
        found.extend(parsed.operands[1:2])
    return found


def interpreter_code(cmd: SimpleCommand) -> list[str]:
    """Return the program texts an interpreter command runs inline (``-c``, ``-e``, heredoc)."""
    if not is_interpreter(name_of(cmd)):
        return []
    codes = [w.value for w in interpreter_words(cmd)]
    for r in cmd.redirects:
        if r.op in ("<<", "<<-") and r.body:
            codes.append(r.body)
        elif r.op == "<<<" and r.target is not None:
            codes.append(r.target.value)
    return codes


def scan(code: str, cmd: SimpleCommand, scope: Scope, how: str) -> Iterator[Hit]:
    """Yield hits for destructive calls found in one program text."""
    p = _patterns()
    if _may_match(code, "recursive_delete"):
        for m in p.recursive_delete.finditer(code):
            literal = m.group(1) if m.group(1) is not None else m.group(2)
            if literal is None and _is_temp_variable(code, m.group(3) or ""):
                continue
            yield from _judge_path(literal, cmd, scope, how, recursive=True)
    for name, pattern in (("file_delete", p.file_delete), ("path_delete", p.path_delete)):
        if not _may_match(code, name):
            continue
        for m in pattern.finditer(code):
            literal = m.group(1) if m.group(1) is not None else m.group(2)
            yield from _judge_path(literal, cmd, scope, how, recursive=False)
    for payload in code_payloads(code, how):
        if payload.dynamic:
            continue  # a command computed in code: judged by what else the code does
        yield from _shell(payload.text, scope, how)
    if _may_match(code, "socket") and p.socket.search(code) and p.spawn_shell.search(code):
        from tether.rules.danger.hidden import REVERSE_SHELL  # hidden imports this module

        yield REVERSE_SHELL.hit(f"{how} opens a socket and runs a shell over it")
    if _may_match(code, "decode_exec") and p.decode_exec.search(code):
        yield _remote().DECODED_PAYLOAD_EXEC.hit(f"{how} executes a decoded payload")
    if _may_match(code, "fork_loop") and p.fork_loop.search(code):
        from tether.rules.danger.system import FORK_BOMB  # system imports this module

        yield FORK_BOMB.hit(f"{how} forks in an endless loop")
    if _may_match(code, "device_open"):
        from tether.rules.danger.devices import is_block_device  # devices imports this module
        from tether.rules.danger.disks import DISK_FORMAT_OR_RAW_WRITE

        for m in p.device_open.finditer(code):
            call, prefix, path, rest = m.groups()
            writes = call in _WRITE_CALLS or ">" in prefix or "+" in prefix
            if (writes or _WRITE_MODE.search(rest)) and is_block_device(path):
                yield DISK_FORMAT_OR_RAW_WRITE.hit(f"{how} opens {path} for writing")


def _remote() -> ModuleType:
    """remote.py, where DG303 and DG307 are defined (it imports this module: read at call time)."""
    from tether.rules.danger import remote

    return remote


def _is_temp_variable(code: str, name: str) -> bool:
    """Return True when ``name`` was assigned a fresh temporary directory in the same code."""
    base = name.split(".")[0].split("[")[0]
    if not base:
        return False
    pattern = re.escape(base) + r"\s*=\s*(?:tempfile\.)?(?:mkdtemp|TemporaryDirectory|gettempdir)\("
    return (
        re.search(pattern, code) is not None
        or re.search(
            r"with\s+(?:tempfile\.)?TemporaryDirectory\([^)]*\)\s+as\s+" + re.escape(base) + r"\b",
            code,
        )
        is not None
    )


def _judge_path(
    literal: str | None, cmd: SimpleCommand, scope: Scope, how: str, *, recursive: bool
) -> Iterator[Hit]:
    if literal is None:
        if recursive:
            yield _remote().INTERPRETER_DESTRUCTIVE_CALL.hit(
                f"{how} deletes a tree whose path is computed at run time"
            )
        return
    from tether.rules.danger.deletion import RM_RECURSIVE_ROOT, RM_SYSTEM_FILE  # imports us

    where, path = place(Word(literal), cmd, scope)
    if where in HARDLINE_PLACES and recursive:
        yield RM_RECURSIVE_ROOT.hit(f"{how} deletes {path} recursively ({where.value})")
    elif where in (Place.SYSTEM, Place.SYSTEM_ROOT):
        yield RM_SYSTEM_FILE.hit(f"{how} deletes {path} ({where.value})")
    elif recursive and where in (Place.OUTSIDE, Place.DYNAMIC, Place.WORKSPACE_ALL):
        yield _remote().INTERPRETER_DESTRUCTIVE_CALL.hit(
            f"{how} deletes {path} recursively ({where.value})"
        )


def _shell(text: str, scope: Scope, how: str) -> Iterator[Hit]:
    for hit in scope.reparse(text):
        yield Hit(hit.code, f"{how} runs `{text[:80]}`: {hit.detail}")


def check_interpreter(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Scan inline programs and heredoc scripts given to interpreters."""
    name = name_of(cmd)
    for code in interpreter_code(cmd):
        yield from scan(code, cmd, scope, f"{name} code")
    if cmd.stage > 0 and is_interpreter(name) and _reads_stdin(cmd):
        decoded = static_input(scope.upstream(cmd)[::-1])
        if decoded is not None:
            yield from scan(decoded, cmd, scope, f"{name} code from stdin")
            return
        for up in scope.upstream(cmd):
            if name_of(up) in ("echo", "printf", "cat"):
                for text in _literal_output(up):
                    yield from scan(text, cmd, scope, f"{name} code from stdin")


def _reads_stdin(cmd: SimpleCommand) -> bool:
    """Return True when an interpreter reads its program from stdin (no code, no script)."""
    if interpreter_words(cmd):
        return False
    parsed = parse(code_grammar(name_of(cmd)), cmd.args)
    if parsed.has("-m"):
        return False  # python -m MODULE
    return not parsed.operands or parsed.operands[0].value == "-"


def _literal_output(cmd: SimpleCommand) -> list[str]:
    """Return text a command prints that we can see: echo/printf literals, cat of a heredoc."""
    name = name_of(cmd)
    if name in ("echo", "printf"):
        text = produced(cmd)  # echo's -n/-e and printf's format, read as they print
        return [text] if text is not None else []
    if name == "cat":
        return [r.body for r in cmd.redirects if r.body] + [
            r.target.value for r in cmd.redirects if r.op == "<<<" and r.target is not None
        ]
    return []


literal_output = _literal_output
