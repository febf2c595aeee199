"""The table of program specs: each wrapper's and shell's own option grammar, as data.

One entry per program, checked against the tool's ``--help`` on Debian 12 (coreutils 9.1,
findutils 4.9.0, procps-ng 4.0.2, util-linux 2.38.1, sudo 1.9.13p3, GNU time 1.9, bash 5.2);
``tests/test_option_help.py`` fails when an installed tool lists a long option missing here.
A ``Wrapping`` adds what peeling needs beyond the grammar: how many operands come before the
wrapped command (``timeout DURATION``), which options mean no command runs at all
(``sudo -l``, ``command -v``, ``--help``), and whether ``NAME=value`` operands precede it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from tether.shell.options import GNU_STANDARD, Grammar, LazyTable, grammar
from tether.shell.specs import Spec, grammar_of


class Wrapping(NamedTuple):
    """How a program wraps another command."""

    grammar: Grammar
    positionals: int = 0
    terminal: frozenset[str] = frozenset()
    assignments: bool = False
    checked: str = ""  # the version the grammar was read from
    # Options of another implementation (BSD/macOS) kept in the union, absent from ``checked``.
    elsewhere: frozenset[str] = frozenset()
    # The command word names an applet: only its basename counts (``busybox x/rm`` is rm).
    applet: bool = False
    # The command may be a ``{ …; }`` group, which tree-sitter-bash reads as plain words:
    # "{" (zsh ``repeat 3 { …; }``) or "NAME {" (``coproc NAME { …; }``: NAME is optional).
    group: str = ""


def _terminal(*names: str) -> frozenset[str]:
    return frozenset(names)


_GNU_EXITS = _terminal("--help", "--version")

# env's spec is read by the read-only catalogue too (``env`` alone prints the environment).
# -P ALTPATH is BSD env's (macOS): the union, so a BSD spelling is peeled too.
ENV = Spec(
    "env",
    options="i|ignore-environment 0|null u|unset: C|chdir: S|split-string: P: block-signal:: "
    f"default-signal:: ignore-signal:: list-signal-handling v|debug {GNU_STANDARD}",
    permute=False,
    writes={
        "--chdir": "runs a command in another directory",
        "--split-string": "splits its string into a command to run",
    },
    checked="coreutils 9.1",
)


def _zsh_modifier(name: str) -> Callable[[], Wrapping]:
    """Return the table entry of a zsh precommand modifier: no options, then the command."""
    return lambda: Wrapping(grammar(name, "", permute=False), checked="zsh 5.9 precommand modifier")


WRAPPERS: LazyTable[Wrapping] = LazyTable(
    {
        "sudo": lambda: Wrapping(
            grammar(
                "sudo",
                "A|askpass a|auth-type: b|background B|bell C|close-from: c|login-class: D|chdir: "
                "E preserve-env:: e|edit g|group: H|set-home h: help host: i|login "
                "K|remove-timestamp k|reset-timestamp l|list N|no-update n|non-interactive "
                "P|preserve-groups p|prompt: R|chroot: r|role: S|stdin s|shell T|command-timeout: "
                "t|type: U|other-user: u|user: V|version v|validate",
                permute=False,
            ),
            # -h alone is --help; -h HOST / --host only lists (``sudo -h x cmd`` refuses to run).
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
        "doas": lambda: Wrapping(
            grammar("doas", "a: C: L n s u:", permute=False),
            terminal=_terminal("-C", "-L"),
            checked="OpenBSD doas 6.8 (man page)",
        ),
        "env": lambda: Wrapping(
            grammar_of(ENV),
            terminal=_GNU_EXITS,
            assignments=True,
            checked="coreutils 9.1",
            elsewhere=_terminal("-P"),
        ),
        "command": lambda: Wrapping(
            grammar("command", "p v V", abbreviate=False, permute=False),
            terminal=_terminal("-v", "-V"),
            checked="bash 5.2 builtin",
        ),
        "builtin": lambda: Wrapping(
            grammar("builtin", "", permute=False), checked="bash 5.2 builtin"
        ),
        "exec": lambda: Wrapping(
            grammar("exec", "a: c l", abbreviate=False, permute=False), checked="bash 5.2 builtin"
        ),
        "nice": lambda: Wrapping(
            grammar("nice", f"n|adjustment: {GNU_STANDARD}", permute=False, numeric=True),
            terminal=_GNU_EXITS,
            checked="coreutils 9.1",
        ),
        "nohup": lambda: Wrapping(
            grammar("nohup", GNU_STANDARD, permute=False),
            terminal=_GNU_EXITS,
            checked="coreutils 9.1",
        ),
        "time": lambda: Wrapping(
            grammar(
                "time",
                "a|append f|format: o|output: p|portability q|quiet v|verbose h|help V|version",
                permute=False,
            ),
            terminal=_GNU_EXITS,
            checked="GNU time 1.9",
        ),
        "timeout": lambda: Wrapping(
            grammar(
                "timeout",
                f"k|kill-after: s|signal: v|verbose foreground preserve-status {GNU_STANDARD}",
                permute=False,
            ),
            positionals=1,
            terminal=_GNU_EXITS,
            checked="coreutils 9.1",
        ),
        "stdbuf": lambda: Wrapping(
            grammar("stdbuf", f"i|input: o|output: e|error: {GNU_STANDARD}", permute=False),
            terminal=_GNU_EXITS,
            checked="coreutils 9.1",
        ),
        "setsid": lambda: Wrapping(
            grammar("setsid", "c|ctty f|fork w|wait h|help V|version", permute=False),
            terminal=_GNU_EXITS,
            checked="util-linux 2.38.1",
        ),
        "ionice": lambda: Wrapping(
            grammar(
                "ionice",
                "c|class: n|classdata: p|pid: P|pgid: t|ignore u|uid: h|help V|version",
                permute=False,
            ),
            # -p/-P/-u act on running processes: the operands are ids, not a command.
            terminal=_GNU_EXITS | _terminal("--pid", "--pgid", "--uid"),
            checked="util-linux 2.38.1",
        ),
        "chrt": lambda: Wrapping(
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
        "taskset": lambda: Wrapping(
            grammar("taskset", "a|all-tasks c|cpu-list p|pid h|help V|version", permute=False),
            positionals=1,
            terminal=_GNU_EXITS | _terminal("--pid"),
            checked="util-linux 2.38.1",
        ),
        "xargs": lambda: Wrapping(
            grammar(
                "xargs",
                # -l and --max-lines take an optional attached count; -L always takes one.
                # -J, -R, -S are BSD xargs' (macOS) replacement options: the union of both.
                "0|null a|arg-file: d|delimiter: E: e|eof:: I: i|replace:: J: L: l|max-lines:: "
                "n|max-args: o|open-tty P|max-procs: p|interactive process-slot-var: "
                f"r|no-run-if-empty R: S: s|max-chars: show-limits t|verbose x|exit {GNU_STANDARD}",
                permute=False,
            ),
            terminal=_GNU_EXITS,
            checked="findutils 4.9.0",
            elsewhere=_terminal("-J", "-R", "-S"),
        ),
        # BusyBox 1.35: ``busybox APPLET ARGS`` runs APPLET (the basename of the word:
        # ``busybox /bin/rm`` is rm); ``--help``, ``--list[-full]``, ``--show SCRIPT`` and
        # ``--install`` run no applet. It reads no other option (``busybox -- rm`` looks for an
        # applet named ``--``; the engine ends options there, which only over-reads it).
        # Keywords and zsh precommand modifiers that run the command after them; tree-sitter-
        # bash knows none of them, so `coproc rm -rf /` was a command named coproc.
        "coproc": lambda: Wrapping(
            grammar("coproc", "", permute=False), group="NAME {", checked="bash 5.2 keyword"
        ),
        "repeat": lambda: Wrapping(
            grammar("repeat", "", permute=False),
            positionals=1,
            group="{",
            checked="zsh 5.9 reserved word",
        ),
        **{modifier: _zsh_modifier(modifier) for modifier in ("noglob", "nocorrect", "-")},
        "busybox": lambda: Wrapping(
            grammar(
                "busybox", "help list list-full show: install", abbreviate=False, permute=False
            ),
            terminal=_terminal("--help", "--list", "--list-full", "--show", "--install"),
            checked="BusyBox 1.35.0",
            applet=True,
        ),
        "watch": lambda: Wrapping(
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
)

# Shells: ``-c`` makes the first operand the script; long options are exact (no prefixes).
_SHELL_OPTIONS = (
    "a b e f h k m n p t u v x B C E H P T i l r s D c o: O: debug debugger dump-po-strings "
    "dump-strings help init-file: login noediting noprofile norc posix pretty-print rcfile: "
    "restricted verbose version wordexp"
)


def _shell(name: str) -> Callable[[], Grammar]:
    return lambda: grammar(name, _SHELL_OPTIONS, abbreviate=False, permute=False, plus=True)


SHELLS: LazyTable[Grammar] = LazyTable(
    {n: _shell(n) for n in ("bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "busybox-sh")}
)
SHELL_CHECKED = "bash 5.2.15, dash 0.5.12"


class Runner(NamedTuple):
    """A program that runs a command the parser does not peel (``su -c``, ``docker exec``)."""

    grammar: Grammar
    # Operands before the command: the new root, the lock file, the container, the pod.
    positionals: int = 0
    # Options whose value is a shell command string (``su -c``, ``script -c``).
    payload: frozenset[str] = frozenset()
    subcommand: str = ""  # ``exec`` for ``docker exec``
    # Without a payload option it starts an interactive shell (its operands are not a command).
    needs_payload: bool = False
    checked: str = ""
    # Options that take two words (bwrap's ``--bind SRC DEST``): the grammar reads the first.
    pairs: frozenset[str] = frozenset()


_SU = (
    "m|p|preserve-environment w|whitelist-environment: g|group: G|supp-group: l|login "
    "c|command: session-command: f|fast s|shell: P|pty h|help V|version"
)
_STRACE = (
    "a|columns: A|output-append-mode b|detach-on: c|summary-only C|summary d|debug D "
    "daemonize:: e: E|env: f|follow-forks F h|help i|instruction-pointer I|interruptible: "
    "k|stack-traces n|syscall-number o|output: O|summary-syscall-overhead: p|attach: "
    "P|trace-path: q r relative-timestamps:: s|string-limit: S|summary-sort-by: t "
    "absolute-timestamps:: T syscall-times:: u|user: U|summary-columns: v|no-abbrev V|version "
    "w|summary-wall-clock x X|const-print-style: y Y z|successful-only Z|failed-only abbrev: "
    "decode-fds:: decode-pids: fault: inject: kvm: output-separately quiet:: raw: read: "
    "seccomp-bpf signal: status: strings-in-hex:: tips:: "
    "trace: verbose: write:"
)
_CONTAINER_EXEC = (
    "d|detach detach-keys: e|env: env-file: i|interactive privileged t|tty u|user: w|workdir:"
)
_KUBECTL_EXEC = (
    "c|container: f|filename: i|stdin q|quiet t|tty pod-running-timeout: n|namespace: "
    "context: kubeconfig: cluster: user: s|server: token: as: as-group: insecure-skip-tls-verify "
    "request-timeout: v: h|help"
)

# firejail 0.9.72 (``firejail --help``): a value only ever after "=", so each option is one word.
_FIREJAIL = (
    "allow-debuggers allusers apparmor:: appimage bandwidth:: bind:: blacklist:: build:: "
    "caps:: cat:: chroot:: cpu:: dbus-log:: dbus-system:: dbus-user:: debug debug-blacklists "
    "debug-caps debug-errnos debug-private-lib debug-protocols debug-syscalls debug-syscalls32 "
    "debug-whitelists defaultgw:: deterministic-exit-code deterministic-shutdown dns:: "
    "dnstrace env:: fs get:: help hostname:: hosts-file:: icmptrace ids-check ids-init "
    "ignore:: interface:: ip:: ip6:: ipc-namespace iprange:: join:: join-filesystem:: "
    "join-network:: join-or-start:: keep-config-pulse keep-dev-shm keep-fd:: keep-var-tmp list "
    "ls:: mac:: machine-id memory-deny-write-execute mkdir:: mkfile:: mtu:: name:: net:: "
    "netfilter:: netfilter6:: netlock:: netmask:: netns:: netstats nettrace:: nice:: no3d "
    "noautopulse noblacklist:: nodbus nodvd noexec:: nogroups noinput nonewprivs noprinters "
    "noprofile noroot nosound nou2f novideo nowhitelist:: oom:: output:: output-stderr:: "
    "private:: private-bin:: private-cache private-cwd:: private-dev private-etc:: "
    "private-home:: private-lib:: private-opt:: private-srv:: private-tmp profile:: protocol:: "
    "put:: quiet read-only:: read-write:: restrict-namespaces:: rlimit-as:: rlimit-cpu:: "
    "rlimit-fsize:: rlimit-nofile:: rlimit-nproc:: rlimit-sigpending:: rmenv:: scan seccomp:: "
    "seccomp-error-action:: shutdown:: tab timeout:: tmpfs:: top trace:: tracelog tree "
    "tunnel:: version veth-name:: whitelist:: writable-etc writable-run-user writable-var "
    "writable-var-log x11:: xephyr-screen::"
)
# bubblewrap 0.8.0 (``bwrap --help``): its own parser, exact words only (no ``=``, no
# abbreviations), options before the command; the options of _BWRAP_PAIRS take two words.
_BWRAP = (
    "help version args: unshare-all share-net unshare-user unshare-user-try unshare-ipc "
    "unshare-pid unshare-net unshare-uts unshare-cgroup unshare-cgroup-try userns: userns2: "
    "disable-userns assert-userns-disabled pidns: uid: gid: hostname: chdir: clearenv "
    "setenv: unsetenv: lock-file: sync-fd: bind: bind-try: dev-bind: dev-bind-try: ro-bind: "
    "ro-bind-try: bind-fd: ro-bind-fd: remount-ro: exec-label: file-label: proc: dev: tmpfs: "
    "mqueue: dir: file: bind-data: ro-bind-data: symlink: seccomp: add-seccomp-fd: block-fd: "
    "userns-block-fd: info-fd: json-status-fd: new-session die-with-parent as-pid-1 cap-add: "
    "cap-drop: perms: size: chmod:"
)
_BWRAP_PAIRS = frozenset(
    {
        *("--setenv", "--bind", "--bind-try", "--dev-bind", "--dev-bind-try", "--ro-bind"),
        *("--ro-bind-try", "--bind-fd", "--ro-bind-fd", "--file", "--bind-data"),
        *("--ro-bind-data", "--symlink", "--chmod"),
    }
)
# schroot 1.6.13 (man page; Boost.Program_options: abbreviations and ``--opt=value``).
_SCHROOT = (
    "h|help V|version l|list i|info config location a|all all-chroots all-sessions "
    "all-source-chroots c|chroot: u|user: p|preserve-environment q|quiet v|verbose "
    "d|directory: s|shell: o|option: b|begin-session recover-session r|run-session "
    "e|end-session n|session-name: f|force exclude-aliases"
)
RUNNERS: LazyTable[Runner] = LazyTable(
    {
        "bwrap": lambda: Runner(
            grammar("bwrap", _BWRAP, abbreviate=False, permute=False),
            pairs=_BWRAP_PAIRS,
            checked="bubblewrap 0.8.0",
        ),
        # proot 5.1.0 (``proot --help``): options before the command; -q's QEMU command runs
        # every program the guest starts (read as an option's value here, not judged).
        "proot": lambda: Runner(
            grammar(
                "proot",
                "r|rootfs: b|bind|m|mount: q|qemu: w|pwd|cwd: v|verbose: V|version|about "
                "h|help|usage k|kernel-release: 0|root-id i|change-id: R: S:",
                abbreviate=False,
                permute=False,
            ),
            checked="proot 5.1.0",
        ),
        "schroot": lambda: Runner(
            grammar("schroot", _SCHROOT, permute=False), checked="schroot 1.6.13 (man page)"
        ),
        "su": lambda: Runner(
            grammar("su", _SU),
            payload=frozenset({"--command", "--session-command"}),
            needs_payload=True,
            checked="util-linux 2.38.1",
        ),
        "runuser": lambda: Runner(
            grammar("runuser", "u|user: " + _SU),
            payload=frozenset({"--command", "--session-command"}),
            checked="util-linux 2.38.1",
        ),
        "sg": lambda: Runner(
            grammar("sg", "c:"), positionals=1, payload=frozenset({"-c"}), checked="shadow"
        ),
        "pkexec": lambda: Runner(
            grammar("pkexec", "user: disable-internal-agent keep-cwd help version", permute=False),
            checked="polkit 122 (man page)",
        ),
        "chroot": lambda: Runner(
            grammar("chroot", f"userspec: groups: skip-chdir {GNU_STANDARD}", permute=False),
            positionals=1,
            checked="coreutils 9.1",
        ),
        # ``flock FILE -c CMD`` reads -c after the file itself (not through getopt).
        "flock": lambda: Runner(
            grammar(
                "flock",
                "s|shared x|e|exclusive u|unlock n|nb|nonblock w|wait|timeout: "
                "E|conflict-exit-code: o|close F|no-fork verbose h|help V|version",
                permute=False,
            ),
            positionals=1,
            checked="util-linux 2.38.1",
        ),
        "script": lambda: Runner(
            grammar(
                "script",
                "a|append B|log-io: c|command: E|echo: e|return f|flush force I|log-in: "
                "m|logging-format: O|log-out: o|output-limit: q|quiet T|log-timing: t|timing:: "
                "h|help V|version",
            ),
            payload=frozenset({"--command"}),
            needs_payload=True,
            checked="util-linux 2.38.1",
        ),
        "strace": lambda: Runner(grammar("strace", _STRACE, permute=False), checked="strace 6.1"),
        "ltrace": lambda: Runner(
            grammar(
                "ltrace",
                "a|align: A: b|no-signals c C|demangle D|debug: e: f F|config: h|help i "
                "l|library: L n|indent: o|output: p: r s: S t T u: V|version w: x:",
            ),
            checked="ltrace 0.7.3",
        ),
        # firejail 0.9.72: every option one word, its value after '=' (``--private=DIR``).
        "firejail": lambda: Runner(
            grammar("firejail", _FIREJAIL, abbreviate=False, permute=False),
            checked="firejail 0.9.72",
        ),
        "unbuffer": lambda: Runner(grammar("unbuffer", "p", permute=False)),
        "chronic": lambda: Runner(grammar("chronic", "e v", permute=False)),
        "caffeinate": lambda: Runner(grammar("caffeinate", "d i m s u t: w:", permute=False)),
        "proxychains": lambda: Runner(grammar("proxychains", "q f:", permute=False)),
        "proxychains4": lambda: Runner(grammar("proxychains4", "q f:", permute=False)),
        "torsocks": lambda: Runner(
            grammar(
                "torsocks",
                "u|user: p|pass: a|address: P|port: i|isolate d|debug 6|ipv6 shell h|help version",
                permute=False,
            ),
            checked="torsocks 2.3.0",
        ),
        "nsenter": lambda: Runner(
            grammar(
                "nsenter",
                # -m, -u, -n … take an optional namespace file only when attached.
                "a|all t|target: m|mount:: u|uts:: i|ipc:: n|net:: p|pid:: C|cgroup:: U|user:: "
                "T|time:: S|setuid: G|setgid: preserve-credentials r|root:: w|wd:: W|wdns: "
                "F|no-fork Z|follow-context h|help V|version",
                permute=False,
            ),
            checked="util-linux 2.38.1",
        ),
        "unshare": lambda: Runner(
            grammar(
                "unshare",
                # Like nsenter's, the namespace options take a file only when attached.
                "m|mount:: u|uts:: i|ipc:: n|net:: p|pid:: U|user:: C|cgroup:: T|time:: f|fork "
                "kill-child:: mount-proc:: map-user: map-group: map-users: map-groups: map-auto "
                "r|map-root-user c|map-current-user propagation: setgroups: keep-caps R|root: "
                "w|wd: S|setuid: G|setgid: monotonic: boottime: l|load-interp: h|help V|version",
                permute=False,
            ),
            checked="util-linux 2.38.1",
        ),
        "fakeroot": lambda: Runner(
            grammar(
                "fakeroot",
                "l|lib: f|faked: i: s: u|unknown-is-real b|fd-base: h|help v|version",
                permute=False,
            ),
            checked="fakeroot 1.31",
        ),
        "fakechroot": lambda: Runner(
            grammar(
                "fakechroot",
                "l|lib: d|elfloader: s|use-system-libs e|environment: c|config-dir: "
                "b|bindir: h|help v|version",
                permute=False,
            ),
        ),
        # arch-chroot NEWROOT [COMMAND…]: like chroot, the first operand is the new root.
        "arch-chroot": lambda: Runner(
            grammar("arch-chroot", "N u: r h", permute=False), positionals=1
        ),
        "setpriv": lambda: Runner(
            grammar(
                "setpriv",
                "d|dump nnp|no-new-privs ambient-caps: inh-caps: bounding-set: ruid: euid: rgid: "
                "egid: reuid: regid: clear-groups keep-groups init-groups groups: securebits: "
                "pdeathsig: selinux-label: apparmor-profile: reset-env h|help V|version",
                permute=False,
            ),
            checked="util-linux 2.38.1",
        ),
        "systemd-run": lambda: Runner(
            grammar(
                "systemd-run",
                "h|help version no-ask-password user system H|host: M|machine: scope u|unit: "
                "p|property: description: slice: slice-inherit no-block r|remain-after-exit wait "
                "send-sighup service-type: uid: gid: nice: working-directory: d|same-dir "
                "E|setenv: t|pty P|pipe q|quiet G|collect S|shell path-property: "
                "socket-property: on-active: on-boot: on-startup: on-unit-active: "
                "on-unit-inactive: on-calendar: on-timezone-change on-clock-change "
                "timer-property:",
                permute=False,
            ),
            checked="systemd 252",
        ),
        "numactl": lambda: Runner(
            grammar(
                "numactl",
                "a|all b|balancing i|interleave: w|weighted-interleave: N|cpunodebind: "
                "C|physcpubind: l|localalloc m|membind: p|preferred: P|preferred-many: s|show "
                "H|hardware L|length: o|offset: M|shmmode: t|strict I|shmid: S|shm: f|file: "
                "u|huge T|touch d|dump D|dump-nodes cpubind:",
                permute=False,
            ),
            checked="numactl 2.0.16",
        ),
        "cpulimit": lambda: Runner(
            grammar(
                "cpulimit",
                "l|limit: p|pid: e|exe: P|path: z|lazy i|include-children b|background q|quiet "
                "k|kill r|restore v|verbose h|help f|foreground c|cpu: m|monitor-forks "
                "s|signal:",
                permute=False,
            ),
            checked="cpulimit 2.8",
        ),
        "gtimeout": lambda: Runner(
            WRAPPERS["timeout"].grammar, positionals=1, checked="coreutils 9.1"
        ),
        # valgrind's own and its tools' options are all --name=value or single flags.
        "valgrind": lambda: Runner(
            grammar("valgrind", "h|help v|verbose q|quiet version", permute=False)
        ),
        "catchsegv": lambda: Runner(grammar("catchsegv", "", permute=False)),
        "dbus-launch": lambda: Runner(
            grammar(
                "dbus-launch",
                "sh-syntax csh-syntax auto-syntax binary-syntax close-stderr exit-with-session "
                "exit-with-x11 autolaunch: config-file: version help",
                permute=False,
            )
        ),
        "docker": lambda: Runner(
            grammar("docker exec", _CONTAINER_EXEC, abbreviate=False, permute=False),
            positionals=1,
            subcommand="exec",
            checked="docker 20.10 (pflag: no prefixes)",
        ),
        "podman": lambda: Runner(
            grammar("podman exec", _CONTAINER_EXEC, abbreviate=False, permute=False),
            positionals=1,
            subcommand="exec",
        ),
        "kubectl": lambda: Runner(
            grammar("kubectl exec", _KUBECTL_EXEC, abbreviate=False),
            positionals=1,
            subcommand="exec",
            checked="kubectl 1.2x (pflag: interspersed, no prefixes)",
        ),
        "oc": lambda: Runner(
            grammar("oc exec", _KUBECTL_EXEC, abbreviate=False), positionals=1, subcommand="exec"
        ),
    }
)

# cd and pushd (bash 5.2 builtins), read by the read-only catalogue and by the danger
# catalogue's tracking of the directory later commands run in (``rules/danger/_base.py``).
CD = Spec("cd", options="L P e @ help", checked="bash 5.2 builtin")
PUSHD = Spec("pushd", options="n help", checked="bash 5.2 builtin", numeric=True)  # -N rotates

# A script operand that is the reader's own stdin: `bash /dev/stdin <<< "…"`, `source
# /dev/fd/0 <<EOF`, `cat <<EOF | sh /proc/self/fd/0` run the here-string, heredoc or pipe.
# (`-` ends a shell's options and reads stdin; bash's source reads no file named "-", zsh's
# neither: counted all the same.)
STDIN_SCRIPTS = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
# Builtins that run a script file in the current shell.
SOURCES = frozenset({"source", "."})

__all__ = [
    "CD",
    "ENV",
    "PUSHD",
    "RUNNERS",
    "SHELLS",
    "SHELL_CHECKED",
    "SOURCES",
    "STDIN_SCRIPTS",
    "WRAPPERS",
    "Runner",
    "Wrapping",
]
