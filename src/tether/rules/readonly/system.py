"""RO6xx: printing text and system information (echo, printf, pwd, date, env, which, …)."""

from __future__ import annotations

import re

from tether.rules.readonly.catalogue import Entry, entries, pure_entries, rule
from tether.rules.readonly.spec import (
    DYNAMIC_ARGUMENT,
    UNKNOWN_OPTION,
    WRITE_OPERAND,
    WRITE_OPTION,
    Check,
    Spec,
    check_spec,
    grammar_of,
    parse,
    read,
    write,
)
from tether.shell.model import Word
from tether.shell.options import GNU_STANDARD
from tether.shell.options import parse as parse_options
from tether.shell.programs import CD, ENV, PUSHD, WRAPPERS
from tether.shell.readers import PRINTF

RULES = (
    rule(
        "RO601",
        "print-text",
        "`echo`, `printf` (without `-v`), `true`, `false`, `test`, `sleep`, `seq`, `expr` are "
        "read-only.",
        "They print or compute; `printf -v VAR` assigns a shell variable (it can change PATH "
        "for later commands).",
        "Nothing to change.",
        (
            'echo "hello world"',
            "echo 123 456",
            "printf '%s\\n' x",
            "test -f /tmp/x",
            "true",
            "sleep 1",
            "echo COMPLETE && cat patch.txt",
            "[ -d src ] && ls src",
        ),
        ("printf -v PATH /tmp", "printf -v PATH /tmp; ls", "echo hi > f"),
    ),
    rule(
        "RO602",
        "system-info",
        "Commands that report on the user, machine and processes are read-only.",
        "`pwd`, `whoami`, `id`, `uname`, `ps`, `nproc`, `printenv`, `uptime`… print state; "
        "`hostname` is read-only only without an operand or `-F` (which set the name).",
        "Nothing to change.",
        (
            "pwd",
            "pwd -P",
            "whoami",
            "uname -a",
            "ps -f",
            "printenv PATH",
            "hostname",
            "pwd && ls -la",
        ),
        ("hostname newname", "hostname -F /etc/x"),
    ),
    rule(
        "RO603",
        "date-print",
        "`date` is read-only without `-s/--set` and with only `+FORMAT` operands.",
        "`date -s` and `date MMDDhhmm` set the system clock.",
        "Use `date +FORMAT` or `date -d STRING` to read.",
        ("date", "date +%s", "date -u +%Y-%m-%dT%H:%M:%SZ", "date -d yesterday"),
        ("date -s '2020-01-01'", "date 010100002020", "date --set=now"),
    ),
    rule(
        "RO604",
        "shell-navigation",
        "`cd`, `pushd`, `popd`, `dirs`, `exit`, `wait` and option-only `set` are read-only.",
        "They change only the shell's own state (directory, options), never a file.",
        "Nothing to change.",
        (
            "cd /testbed && cat patch.txt",
            "cd ~/repo && ls -la",
            "set -e",
            "set -euo pipefail",
            "cd -",
        ),
        ("set -- a b; rm $1", "set -k; ls PATH=/tmp", "set -o keyword"),
    ),
    rule(
        "RO605",
        "command-lookup",
        "`which`, `type`, `whereis` and `command -v/-V` are read-only.",
        "They report where a command is found; `command NAME` without `-v` runs NAME.",
        "Nothing to change.",
        ("which python3", "which -a python3 cargo", "type ls", "command -v git"),
        ("which python3 > f",),
    ),
    rule(
        "RO606",
        "env-print",
        "`env` without a command only prints the environment.",
        "`env` with a command runs it (judged as a wrapper); `-S`/`-C` split or move it.",
        "Nothing to change.",
        ("env", "env -0"),
        ("env -S 'rm x'", "env rm x"),
    ),
    rule(
        "RO607",
        "read-line",
        "`read` into lower-case variable names is read-only (so `while read …; do …; done` "
        "loops of reads are).",
        "`read` assigns the names it is given; an upper-case name (PATH, IFS, PS4, …), a "
        "`*proxy` name or one of zsh's tied arrays (path, fpath, …) changes what later "
        "commands run or reach.",
        "Read into a lower-case name.",
        (
            "read line",
            "read -r a b",
            'while read -r f; do wc -l "$f"; done < list.txt',
            'git ls-files | while IFS= read -r f; do head -1 "$f"; done',
            "read -ra parts <<< 'a b'",
        ),
        ("read PATH", "read -a path", "read http_proxy", "read -z x", "read IFS"),
    ),
)

# `read` (bash 5.2); the names it assigns are judged like a loop variable (engine._SAFE_VAR).
_READ = Spec("read", options="e r s a: d: i: n: N: p: t: u:", checked="bash 5.2 builtin")
_READ_NAME = re.compile(r"[a-z_][a-z0-9_]*")
_ZSH_TIED = frozenset({"path", "fpath", "module_path", "cdpath", "manpath", "mailpath"})

_HOSTNAME = Spec(
    "hostname",
    options="a A d f i I s y alias all-fqdns domain fqdn long ip-address all-ip-addresses "
    "short yp nis V version h help F|file:",
    writes={
        "--file": "sets the host name from a file",
        "-b": "sets a default host name when none is set",
        "--boot": "sets a default host name when none is set",
    },
    checked="hostname 3.23",
)
_DATE = Spec(
    "date",
    # -j -n -v -z -f are BSD date's (macOS): the union, none of them sets the clock.
    options="u utc universal R rfc-email j n I:: debug help version d: date: f: file: r: "
    "reference: v: z: iso-8601:: rfc-3339:: resolution::",
    writes={"-s": "sets the system clock", "--set": "sets the system clock"},
    checked="coreutils 9.1",
)
# Every option of the commands that only print (--help on Debian 12, bash 5.2 for builtins):
# none writes. ``open`` marks words the program never reads as options: echo prints them
# (only -n/-e/-E clusters are options), test/[/[[ evaluate an expression, expr computes one
# (`expr -5 + 1`), true/false/: ignore them, exit/return take a status.
_BASH = "bash 5.2 builtin"
_COREUTILS = "coreutils 9.1"
_PROCPS = "procps-ng 4.0.2"


def _gnu(name: str, options: str = "", numeric: bool = False) -> Spec:
    return Spec(name, options=f"{options} {GNU_STANDARD}", checked=_COREUTILS, numeric=numeric)


def _builtin(*names: str) -> tuple[Spec, ...]:
    return tuple(Spec(n, open=True, checked=_BASH) for n in names)


_PRINTERS = (
    *_builtin("echo", "true", "false", ":", "test", "[", "[["),
    Spec("expr", open=True, checked=_COREUTILS),
    _gnu("sleep"),
    _gnu("seq", "f|format: s|separator: w|equal-width", numeric=True),  # seq -5 5
    _gnu("yes"),
)
_INFO = (
    Spec("pwd", options="L P help", checked=_BASH),
    _gnu("whoami"),
    _gnu("id", "a Z|context g|group G|groups n|name r|real u|user z|zero"),
    _gnu("groups"),
    _gnu(
        "uname",
        "a|all s|kernel-name n|nodename r|kernel-release v|kernel-version m|machine "
        "p|processor i|hardware-platform o|operating-system",
    ),
    _gnu("nproc", "all ignore:"),
    _gnu("arch"),
    _gnu("tty", "s|silent|quiet"),
    _gnu("printenv", "0|null"),
    _gnu("logname"),
    _gnu("users"),
    _gnu(
        "who",
        "a|all b|boot d|dead H|heading ips l|login lookup m p|process q|count r|runlevel "
        "s|short t|time T|w|mesg u|users message writable",
    ),
    Spec("uptime", options="p|pretty h|help s|since V|version", checked=_PROCPS),
    Spec(
        "free",
        options="b|bytes kilo mega giga tera peta k|kibi m|mebi g|gibi tebi pebi h|human si "
        "l|lohi t|total v|committed s|seconds: c|count: w|wide help V|version",
        checked=_PROCPS,
    ),
    Spec(
        "w",
        options="h|no-header u|no-current s|short f|from o|old-style i|ip-addr help V|version",
        checked=_PROCPS,
    ),
    Spec(
        "vmstat",
        options="a|active f|forks m|slabs n|one-header s|stats d|disk D|disk-sum "
        "p|partition: S|unit: w|wide t|timestamp y|no-first h|help V|version",
        checked=_PROCPS,
    ),
    Spec(
        "pgrep",
        options="d|delimiter: l|list-name a|list-full v|inverse w|lightweight c|count f|full "
        "g|pgroup: G|group: i|ignore-case n|newest o|oldest O|older: P|parent: s|session: "
        "t|terminal: u|euid: U|uid: x|exact F|pidfile: L|logpidfile r|runstates: "
        "A|ignore-ancestors cgroup: ns: nslist: h|help V|version",
        checked=_PROCPS,
    ),
    # ps --help all: BSD options (`aux`) are words without a dash, read as operands here.
    Spec(
        "ps",
        options="A e a d N|deselect C: G|Group: g|group: p|pid: ppid: q|quick-pid: s|sid: "
        "t|tty: u|user: U|User: F f forest H j l M Z O: o|format: P y context headers "
        "no-headers cols|columns|width: rows|lines: L m T c sort: cumulative V|version w "
        "n: X info help::",
        checked=_PROCPS,
    ),
    Spec(
        "locale",
        options="a|all-locales m|charmaps c|category-name k|keyword-name v|verbose help usage "
        "V|version",
        checked="libc-bin 2.36",
    ),
    Spec("getconf", options="a v:", checked="libc-bin 2.36"),
    Spec(
        "lscpu",
        options="a|all b|online B|bytes C|caches:: c|offline J|json e|extended:: p|parse:: "
        "s|sysroot: x|hex y|physical output-all h|help V|version",
        checked="util-linux 2.38.1",
    ),
    # lsof -h: options also spelt +x; bracketed values are optional. +m without a path
    # writes a mount supplement to stdout, not a file.
    Spec(
        "lsof",
        options="? a b h K:: l n N o:: O P Q R t U v V X c: d: D: e: E f:: F:: g:: i:: L:: "
        "m:: M p: r:: s:: S:: T:: u: w x:: Z::",
        checked="lsof 4.95.0",
        plus=True,
    ),
)
_NAVIGATION = (
    CD,  # shared with the danger catalogue's directory tracking (tether.shell.programs)
    PUSHD,
    Spec("popd", options="n help", checked=_BASH, numeric=True),
    Spec("dirs", options="c l p v help", checked=_BASH, numeric=True),
    *_builtin("exit", "return"),
)
_LOOKUP = (
    Spec("which", options="a s", checked="debianutils 5.7"),
    Spec("type", options="a f p P t help", checked=_BASH),
    Spec(
        "whereis",
        options="b B: m M: s S: f u l h|help V|version",
        checked="util-linux 2.38.1",
    ),
)
# bash 5.2's builtins read options with internal_getopt: clusters, no long options, options
# end at the first operand; `set` also takes `+x`. `wait -p VAR` and `set -k` are the writes.
_KEYWORD = "turns later `cmd NAME=value` words into environment assignments (PATH, LD_PRELOAD)"
_SET = Spec(
    "set",
    options="a b e f h k m n p t u v x B C E H P T o:",
    writes={"-k": _KEYWORD},
    permute=False,
    abbreviate=False,
    plus=True,
    checked=_BASH,
)
_WAIT = Spec(
    "wait",
    options="f n p:",
    # assigns a variable (and evaluates an array subscript in its name)
    writes={"-p": "assigns the job id to a shell variable"},
    permute=False,
    abbreviate=False,
    checked=_BASH,
)


def _printf(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse_options(grammar_of(PRINTF), args)  # the decoder's printf
    if parsed.has("-v"):
        return write(WRITE_OPTION, "printf -v: assigns a shell variable")
    if parsed.error is not None:
        return write(UNKNOWN_OPTION, parsed.error)
    if not parsed.dashdash and parsed.stop < len(args) and not args[parsed.stop].literal:
        return write(DYNAMIC_ARGUMENT, "printf: a format that expands at run time may be '-v'")
    return read("RO601", "printf only prints")


def _read(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse(_READ, args)
    if isinstance(parsed, Check):
        return parsed
    for var in [*parsed.values("-a"), *(w.value for w in parsed.operands)]:
        if not _READ_NAME.fullmatch(var) or var.endswith("proxy") or var in _ZSH_TIED:
            return write("RW009", f"read {var[:40]}: assigns a variable that can change what runs")
    return read("RO607", "read only assigns lower-case shell variables")


def _hostname(name: str, args: tuple[Word, ...]) -> Check:
    result = check_spec(_HOSTNAME, args, "RO602", max_operands=0)
    if result.code == WRITE_OPERAND:
        return write(WRITE_OPERAND, "hostname NAME: sets the host name")
    return result


def _date(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse(_DATE, args)
    if isinstance(parsed, Check):
        return parsed
    for op in parsed.operands:
        if not op.value.startswith("+"):
            return write(WRITE_OPERAND, f"date {op.value[:40]}: sets the system clock")
    return read("RO603", "date only prints the time")


def _set(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse(_SET, args)
    if isinstance(parsed, Check):
        return parsed
    if "keyword" in parsed.values("-o", "+o"):
        return write(WRITE_OPTION, f"set -o keyword: {_KEYWORD}")
    if parsed.operands or parsed.dashdash:
        return write(UNKNOWN_OPTION, "set: operands (or --) set the positional parameters")
    return read("RO604", "set only changes shell options")


def _wait(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse(_WAIT, args)
    if isinstance(parsed, Check):
        return parsed
    for w in parsed.operands:
        if not w.value.lstrip("%").isdigit():
            return write(
                UNKNOWN_OPTION, f"wait {w.value[:40]}: only job and process ids are proven"
            )
    return read("RO604", "wait only waits")


def _command(name: str, args: tuple[Word, ...]) -> Check:
    wrapping = WRAPPERS["command"]  # the wrapper peeler's grammar of `command`
    parsed = parse_options(wrapping.grammar, args)
    if parsed.error is None and any(o in wrapping.terminal for o in parsed.names()):
        return read("RO605", "command -v only looks a command up")
    return write(UNKNOWN_OPTION, "command: without -v or -V it runs its operand")


def _env(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse(ENV, args)  # the wrapper peeler's spec
    if isinstance(parsed, Check):
        return parsed
    for op in parsed.operands:
        if "=" not in op.value:
            return write(UNKNOWN_OPTION, f"env {op.value[:40]}: runs a command")
    if parsed.operands:
        return write(WRITE_OPTION, "env NAME=VALUE: environment assignments are not proven")
    return read("RO606", "env only prints the environment")


ENTRIES: dict[str, Entry] = {
    **pure_entries("RO601", *_PRINTERS),
    **entries("RO601", "printf", _printf, PRINTF),
    **pure_entries("RO602", *_INFO),
    **entries("RO602", "hostname", _hostname, _HOSTNAME),
    **entries("RO603", "date", _date, _DATE),
    **pure_entries("RO604", *_NAVIGATION),
    **entries("RO604", "wait", _wait, _WAIT),
    **entries("RO604", "set", _set, _SET),
    **pure_entries("RO605", *_LOOKUP),
    **entries("RO605", "command", _command),
    **entries("RO606", "env", _env, ENV),
    **entries("RO607", "read", _read, _READ),
}
