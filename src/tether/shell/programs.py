"""The table of program specs: each wrapper's and shell's own option grammar, as data.

One entry per program, checked against the tool's ``--help`` on Debian 12 (coreutils 9.1,
findutils 4.9.0, procps-ng 4.0.2, util-linux 2.38.1, sudo 1.9.13p3, GNU time 1.9, bash 5.2);
``tests/test_option_help.py`` fails when an installed tool lists a long option missing here.
A ``Wrapping`` adds what peeling needs beyond the grammar: how many operands come before the
wrapped command (``timeout DURATION``), which options mean no command runs at all
(``sudo -l``, ``command -v``, ``--help``), and whether ``NAME=value`` operands precede it.
"""

from __future__ import annotations

from typing import NamedTuple

from tether.shell.options import GNU_STANDARD, Grammar, grammar


class Wrapping(NamedTuple):
    """How a program wraps another command."""

    grammar: Grammar
    positionals: int = 0
    terminal: frozenset[str] = frozenset()
    assignments: bool = False
    checked: str = ""  # the version the grammar was read from


def _terminal(*names: str) -> frozenset[str]:
    return frozenset(names)


_GNU_EXITS = _terminal("--help", "--version")

WRAPPERS: dict[str, Wrapping] = {
    "sudo": Wrapping(
        grammar(
            "sudo",
            "A|askpass a|auth-type: b|background B|bell C|close-from: c|login-class: D|chdir: "
            "E preserve-env:: e|edit g|group: H|set-home h:: help host: i|login "
            "K|remove-timestamp k|reset-timestamp l|list N|no-update n|non-interactive "
            "P|preserve-groups p|prompt: R|chroot: r|role: S|stdin s|shell T|command-timeout: "
            "t|type: U|other-user: u|user: V|version v|validate",
            permute=False,
        ),
        # -h alone is --help; -hHOST / --host only lists (``sudo -h x cmd`` refuses to run).
        terminal=_terminal(
            "-h",
            "--help",
            "--host",
            "--list",
            "--validate",
            "--remove-timestamp",
            "--version",
            "--edit",
        ),
        assignments=True,
        checked="sudo 1.9.13p3",
    ),
    "doas": Wrapping(
        grammar("doas", "a: C: L n s u:", permute=False),
        terminal=_terminal("-C", "-L"),
        checked="OpenBSD doas 6.8 (man page)",
    ),
    "env": Wrapping(
        grammar(
            "env",
            "i|ignore-environment 0|null u|unset: C|chdir: S|split-string: block-signal:: "
            f"default-signal:: ignore-signal:: list-signal-handling v|debug {GNU_STANDARD}",
            permute=False,
        ),
        terminal=_GNU_EXITS,
        assignments=True,
        checked="coreutils 9.1",
    ),
    "command": Wrapping(
        grammar("command", "p v V", abbreviate=False, permute=False),
        terminal=_terminal("-v", "-V"),
        checked="bash 5.2 builtin",
    ),
    "builtin": Wrapping(grammar("builtin", "", permute=False), checked="bash 5.2 builtin"),
    "exec": Wrapping(
        grammar("exec", "a: c l", abbreviate=False, permute=False), checked="bash 5.2 builtin"
    ),
    "nice": Wrapping(
        grammar("nice", f"n|adjustment: {GNU_STANDARD}", permute=False, numeric=True),
        terminal=_GNU_EXITS,
        checked="coreutils 9.1",
    ),
    "nohup": Wrapping(
        grammar("nohup", GNU_STANDARD, permute=False),
        terminal=_GNU_EXITS,
        checked="coreutils 9.1",
    ),
    "time": Wrapping(
        grammar(
            "time",
            "a|append f|format: o|output: p|portability q|quiet v|verbose h|help V|version",
            permute=False,
        ),
        terminal=_GNU_EXITS,
        checked="GNU time 1.9",
    ),
    "timeout": Wrapping(
        grammar(
            "timeout",
            f"k|kill-after: s|signal: v|verbose foreground preserve-status {GNU_STANDARD}",
            permute=False,
        ),
        positionals=1,
        terminal=_GNU_EXITS,
        checked="coreutils 9.1",
    ),
    "stdbuf": Wrapping(
        grammar("stdbuf", f"i|input: o|output: e|error: {GNU_STANDARD}", permute=False),
        terminal=_GNU_EXITS,
        checked="coreutils 9.1",
    ),
    "setsid": Wrapping(
        grammar("setsid", "c|ctty f|fork w|wait h|help V|version", permute=False),
        terminal=_GNU_EXITS,
        checked="util-linux 2.38.1",
    ),
    "ionice": Wrapping(
        grammar(
            "ionice",
            "c|class: n|classdata: p|pid: P|pgid: t|ignore u|uid: h|help V|version",
            permute=False,
        ),
        # -p/-P/-u act on running processes: the operands are ids, not a command.
        terminal=_GNU_EXITS | _terminal("--pid", "--pgid", "--uid"),
        checked="util-linux 2.38.1",
    ),
    "chrt": Wrapping(
        grammar(
            "chrt",
            "a|all-tasks b|batch d|deadline D|sched-deadline: f|fifo i|idle m|max o|other "
            "p|pid P|sched-period: r|rr R|reset-on-fork T|sched-runtime: v|verbose h|help "
            "V|version",
            permute=False,
        ),
        positionals=1,
        terminal=_GNU_EXITS | _terminal("--pid", "--max"),
        checked="util-linux 2.38.1",
    ),
    "taskset": Wrapping(
        grammar("taskset", "a|all-tasks c|cpu-list p|pid h|help V|version", permute=False),
        positionals=1,
        terminal=_GNU_EXITS | _terminal("--pid"),
        checked="util-linux 2.38.1",
    ),
    "xargs": Wrapping(
        grammar(
            "xargs",
            # -l and --max-lines take an optional attached count; -L always takes one.
            "0|null a|arg-file: d|delimiter: E: e|eof:: I: i|replace:: L: l|max-lines:: "
            "n|max-args: o|open-tty P|max-procs: p|interactive process-slot-var: "
            f"r|no-run-if-empty s|max-chars: show-limits t|verbose x|exit {GNU_STANDARD}",
            permute=False,
        ),
        terminal=_GNU_EXITS,
        checked="findutils 4.9.0",
    ),
    "watch": Wrapping(
        grammar(
            "watch",
            # -d takes an optional attached value (-dpermanent): ``watch -d rm`` runs rm.
            "b|beep c|color d|differences:: e|errexit g|chgexit q|equexit: n|interval: "
            "p|precise t|no-title w|no-wrap x|exec h|help v|version",
            permute=False,
        ),
        terminal=_GNU_EXITS,
        checked="procps-ng 4.0.2",
    ),
}

# Shells: ``-c`` makes the first operand the script; long options are exact (no prefixes).
_SHELL_OPTIONS = (
    "a b e f h k m n p t u v x B C E H P T i l r s D c o: O: debug debugger dump-po-strings "
    "dump-strings help init-file: login noediting noprofile norc posix pretty-print rcfile: "
    "restricted verbose version wordexp"
)
SHELLS: dict[str, Grammar] = {
    name: grammar(name, _SHELL_OPTIONS, abbreviate=False, permute=False, plus=True)
    for name in ("bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "busybox-sh")
}
SHELL_CHECKED = "bash 5.2.15, dash 0.5.12"

__all__ = ["SHELLS", "SHELL_CHECKED", "WRAPPERS", "Wrapping"]
