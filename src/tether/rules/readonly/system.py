"""RO6xx: printing text and system information (echo, printf, pwd, date, env, which, …)."""

from __future__ import annotations

import re

from tether.rules.readonly.catalogue import Entry, entries, pure_entries, rule
from tether.rules.readonly.grammar import (
    DYNAMIC_ARGUMENT,
    UNKNOWN_OPTION,
    WRITE_OPERAND,
    WRITE_OPTION,
    Check,
    Spec,
    check_spec,
    opts,
    parse,
    read,
    write,
)
from tether.shell.model import Word

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
            "cd ~/repo && git status",
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
)

_HOSTNAME = Spec(
    "hostname",
    flags=opts(
        "-a -A -d -f -i -I -s -y --alias --all-fqdns --domain --fqdn --long --ip-address "
        "--all-ip-addresses --short --yp --nis -V --version -h --help"
    ),
)
_DATE = Spec(
    "date",
    flags=opts("-u --utc --universal -R --rfc-email -j -n -I --debug --help --version"),
    valued=opts("-d --date -f --file -r --reference -v -z"),
    optional=opts("--iso-8601 --rfc-3339 --resolution"),
    writes={"-s": "sets the system clock", "--set": "sets the system clock"},
)
_ENV = Spec(
    "env",
    flags=opts("-0 --null -i --ignore-environment -v --debug --help --version"),
    valued=opts("-u --unset"),
)
_SET_OPTION = re.compile(r"[-+][a-zA-Z]+")
_KEYWORD = "turns later `cmd NAME=value` words into environment assignments (PATH, LD_PRELOAD)"


def _printf(name: str, args: tuple[Word, ...]) -> Check:
    if args and not args[0].literal:
        return write(DYNAMIC_ARGUMENT, "printf: a format that expands at run time may be '-v'")
    if args and args[0].value.startswith("-v"):
        return write(WRITE_OPTION, "printf -v: assigns a shell variable")
    return read("RO601", "printf only prints")


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
        if not op.startswith("+"):
            return write(WRITE_OPERAND, f"date {op[:40]}: sets the system clock")
    return read("RO603", "date only prints the time")


def _set(name: str, args: tuple[Word, ...]) -> Check:
    expect_name = False
    for w in args:
        if not w.literal:
            return write(DYNAMIC_ARGUMENT, f"set: '{w.value[:60]}' expands at run time")
        if expect_name:
            expect_name = False
            if w.value == "keyword":
                return write(WRITE_OPTION, f"set -o keyword: {_KEYWORD}")
            continue
        if not _SET_OPTION.fullmatch(w.value):
            return write(UNKNOWN_OPTION, f"set {w.value[:40]}: sets positional parameters")
        if "k" in w.value:
            return write(WRITE_OPTION, f"set -k: {_KEYWORD}")
        expect_name = w.value.endswith("o")  # `-o NAME`, `-euo pipefail`
    return read("RO604", "set only changes shell options")


def _wait(name: str, args: tuple[Word, ...]) -> Check:
    # `wait -p VAR` assigns a variable (and evaluates array subscripts); ids and -n/-f only wait.
    for w in args:
        if not w.literal or not (w.value in ("-n", "-f") or w.value.lstrip("%").isdigit()):
            return write(UNKNOWN_OPTION, f"wait {w.value[:40]}: only job ids, -n and -f are proven")
    return read("RO604", "wait only waits")


def _command(name: str, args: tuple[Word, ...]) -> Check:
    if args and args[0].literal and args[0].value in ("-v", "-V", "-pv", "-pV"):
        return read("RO605", "command -v only looks a command up")
    return write(UNKNOWN_OPTION, "command: without -v it runs its operand")


def _env(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse(_ENV, args)
    if isinstance(parsed, Check):
        return parsed
    for op in parsed.operands:
        if "=" not in op:
            return write(UNKNOWN_OPTION, f"env {op[:40]}: runs a command")
    if parsed.operands:
        return write(WRITE_OPTION, "env NAME=VALUE: environment assignments are not proven")
    return read("RO606", "env only prints the environment")


ENTRIES: dict[str, Entry] = {
    **pure_entries("RO601", "echo true false : test [ [[ sleep seq expr yes"),
    **entries("RO601", "printf", _printf),
    **pure_entries(
        "RO602",
        "pwd whoami id groups uname nproc arch tty uptime locale getconf lscpu free ps pgrep "
        "printenv logname users who w vmstat lsof",
    ),
    **entries("RO602", "hostname", _hostname),
    **entries("RO603", "date", _date),
    **pure_entries("RO604", "cd pushd popd dirs exit return"),
    **entries("RO604", "wait", _wait),
    **entries("RO604", "set", _set),
    **pure_entries("RO605", "which type whereis"),
    **entries("RO605", "command", _command),
    **entries("RO606", "env", _env),
}
