"""DG4xx (the machine): fork bombs, power, killing processes; and the machine's other families.

This module's ``RULES`` and ``CHECKS`` gather the machine-level families kept in their own
modules (disks, firewall, accounts, kernel settings, ACLs, network, file attributes), so the
catalogue lists one table.
"""

from __future__ import annotations

from collections.abc import Iterator

from tether.quoting import quote
from tether.rules.base import Rule, Tier
from tether.rules.danger import (
    accounts,
    acl,
    attributes,
    devices,
    disks,
    firewall,
    kernel,
    network,
)
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.shell.model import SimpleCommand, Word
from tether.shell.tools import signal_and_rest
from tether.shell.words import XARGS_INPUT

FORK_BOMB = Rule(
    code="DG402",
    name="fork-bomb",
    tier=Tier.HARDLINE,
    summary="A function that pipes into itself in the background (fork bomb)",
    why="A fork bomb exhausts the process table and takes the machine down until a reboot.",
    instead="Don't; if you need load, use a bounded tool (`stress-ng --cpu 2 --timeout 10s`).",
    match=(
        ":(){ :|:& };:",
        "bomb(){ bomb|bomb& };bomb",
        "python3 -c 'import os\nwhile True: os.fork()'",
        "perl -e 'fork while fork'",
        "ruby -e 'loop { fork }'",
    ),
    not_match=(
        "f(){ echo hi; }; f",
        "g(){ g; }",
        "python3 -c 'import os; pid = os.fork()'",
    ),
)

SYSTEM_POWER = Rule(
    code="DG403",
    name="system-power",
    tier=Tier.HARDLINE,
    summary="Shut down, reboot or halt the machine",
    why="Powering off or rebooting kills every process and session on the host, not just the task.",
    instead="Restart only the service you changed (`systemctl restart myapp`), or ask the user.",
    match=(
        "reboot",
        "sudo shutdown -h now",
        "timeout 5 reboot",
        "/sbin/poweroff",
        "init 0",
        "telinit 6",
        "systemctl reboot",
        "echo done && halt",
        "nice reboot",
    ),
    not_match=(
        "echo reboot",
        "cat rebooting.log",
        "shutdown -c",
        "systemctl restart nginx",
        "init --version",
    ),
)

KILL_ALL_PROCESSES = Rule(
    code="DG404",
    name="kill-all-processes",
    tier=Tier.HARDLINE,
    summary="Signal every process you can reach (kill -1, killall5, pkill -u root)",
    why="Hardline: `kill -9 -1` (every spelling of the signal and of the -1), `killall5` and "
    "`pkill -u root` / `killall -u root` with no name signal every process of the user, "
    "and as root every process of the machine, the agent and sshd included; only a "
    "reboot brings the services back.",
    instead="Kill the specific process id (`kill 12345`), found with `pgrep -af pattern`.",
    match=(
        "kill -9 -1",
        "kill -1",
        "kill -KILL -1",
        "kill -SIGKILL -1",
        "kill -s KILL -1",
        "kill -sKILL -1",
        "kill --signal=KILL -1",
        "kill -n 9 -1",
        "kill -- -1",
        "kill -9 -- -1",
        "kill -TERM 1234 -1",
        "kill -9 -01",
        "sudo kill -9 -- -1",
        "/bin/kill -9 -1",
        "busybox kill -9 -1",
        "killall5 -9",
        "pkill -9 -u root",
        "pkill --euid 0",
        "killall -u root",
        "killall --us root -s KILL",
    ),
    not_match=(
        "kill -9 12345",
        "kill -HUP 1234",
        "kill -l",
        "kill -l -1",
        "kill -L",
        "kill -9 -1234",
        "pkill -u root nginx",
        "killall -l",
    ),
)

PROCESS_KILL_BY_PATTERN = Rule(
    code="DG422",
    name="process-kill-by-pattern",
    tier=Tier.ASK,
    summary="Kill processes chosen by a name or pattern (pkill, pkill -f, killall, fuser -k)",
    why="A name or pattern matches every process of it, of every session of the user (and "
    "of every user as root): `pkill -f node` stops the editor's language server and other "
    "projects' servers too, `fuser -km /home` every program with a file open there. Ask, "
    "not hardline: the processes can be started again, and the pattern may be exact.",
    instead="Find the process first (`pgrep -af pattern`) and kill its pid (`kill 12345`).",
    match=(
        "pkill -f python",
        "pkill node",
        "killall node",
        "pkill -f 'cargo test'",
        "killall -TERM nginx",
        "fuser -k 8080/tcp",
        "fuser -km /home",
        "sudo fuser -k -9 /srv/data",
    ),
    not_match=(
        "pgrep -af node",
        "pkill -0 node",
        "pkill -HUP nginx",
        "killall -USR1 dd",
        "fuser -v 8080/tcp",
        "kill 1234",
        "killall -l",
        "echo pkill -f python",
    ),
)

MASS_PROCESS_KILL = Rule(
    code="DG418",
    name="mass-process-kill",
    tier=Tier.ASK,
    summary="SIGKILL every process of a name, a pattern or a user (killall -9, pkill -9, "
    "kill -9 $(pgrep x), … | xargs kill -9)",
    why="Ask, not hardline: a name or pattern matches processes of every session and user "
    "(`killall -9 python` stops other people's work too), SIGKILL gives none of them a "
    "chance to save or clean up, and `killall -r` / a pattern like `.` matches far more "
    "than meant; `kill -9` of pids found when it runs (`$(pgrep x)`, `$(lsof -t -i:3000)`, "
    "`ps aux | grep x | awk '{print $2}' | xargs kill -9`) is the same kill by pattern, "
    "spelt in two steps. But the machine keeps running and the services can be restarted.",
    instead="Find the exact process first (`pgrep -af pattern`), then `kill PID` (SIGTERM).",
    match=(
        "killall -9 node",
        "killall -KILL firefox",
        "killall -SIGKILL firefox",
        "killall -s KILL firefox",
        "killall --sig 9 firefox",
        "killall -r 'fire.*'",
        "killall -9 -r 'herm.*'",
        "killall -q -9 node",
        "pkill -f -9 server",
        "pkill -9 python",
        "pkill -KILL -f server",
        "pkill --signal=SIGKILL node",
        "pkill -9 -u bob",
        "killall -u bob",
        "pkill .",
        "pkill -f '.*'",
        "kill -9 $(pgrep x)",
        "kill -9 $(lsof -t -i:3000)",
        "kill -KILL `pidof node`",
        'kill -s KILL "$(pgrep -f server)"',
        "kill --signal=9 $(pgrep x)",
        "pgrep x | xargs kill -9",
        "ps aux | grep x | awk '{print $2}' | xargs kill -9",
        "xargs kill -9",
        "lsof -ti:3000 | xargs -I{} kill -9 {}",
        "P=$(pgrep node); kill -9 $P",
    ),
    not_match=(
        "kill -9 1234",
        "kill $(pgrep x)",
        "kill -TERM $(pgrep x)",
        "kill -0 $(pgrep x)",
        "kill -9 $!",
        "kill -9 $PID",
        "P=1234; kill -9 $P",
        "pgrep x | xargs kill",
        "kill -9 $((1000 + 1))",
        "kill -9 $(cat server.pid)",
        "kill -9 $(< /run/app.pid)",
        "kill -9 $(jobs -p)",
        "pkill -f nginx",
        "pkill python",
        "killall node",
        "killall -l",
        "killall -V",
        "pkill -HUP nginx",
        "pgrep -9 node",
    ),
)

KILL_INIT = Rule(
    code="DG405",
    name="kill-init",
    tier=Tier.ASK,
    summary="Signal process 1 (init)",
    why="Killing PID 1 stops a container or panics the host.",
    instead="Kill the specific service process, or restart the service.",
    match=("kill -9 1", "kill 1", "kill -9 -- 001"),
    not_match=("kill 12345", "kill -9 10"),
)

_OWN = (
    FORK_BOMB,
    SYSTEM_POWER,
    KILL_ALL_PROCESSES,
    PROCESS_KILL_BY_PATTERN,
    MASS_PROCESS_KILL,
    KILL_INIT,
)


_POWER = frozenset({"reboot", "shutdown", "halt", "poweroff", "openrc-shutdown"})
# Power-tool options that only warn, cancel, show or write a log record.
_NOT_POWER = ("-c", "--show", "-k", "--help", "--version", "--wtmp-only")
_SYSTEMD_POWER_VERBS = frozenset({"poweroff", "reboot", "halt", "kexec", "soft-reboot"})


def check_machine(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag power changes and process kills; hand the other machine families on."""
    name = name_of(cmd)
    check = _FAMILY.get(name)
    if check is not None:
        yield from check(cmd, scope)
        return
    if name.startswith("mkfs"):
        yield from disks.check_disk(cmd, scope)
        return
    args = cmd.args
    if name in _POWER:
        if not options_of(name, args).has(*_NOT_POWER):
            yield SYSTEM_POWER.hit(" ".join([name, *(w.value for w in args[:2])]))
    elif name in ("init", "telinit"):
        operands = options_of(name, args).operands
        if operands[:1] and operands[0].value in ("0", "6"):
            yield SYSTEM_POWER.hit(f"{name} {operands[0].value}")
    elif name in ("systemctl", "loginctl"):
        operands = options_of(name, args).operands
        if operands and operands[0].value in _SYSTEMD_POWER_VERBS:
            yield SYSTEM_POWER.hit(f"{name} {operands[0].value}")
    elif name == "kill":
        yield from _kill(args)
        yield from _kill_chosen_at_run_time(cmd, scope)
    elif name in ("killall", "pkill"):
        yield from _kill_by_name(name, args)
    elif name == "fuser":
        yield from _fuser(args)
    elif name == "killall5":
        yield KILL_ALL_PROCESSES.hit("killall5 signals every process outside its own session")


def _kill(args: tuple[Word, ...]) -> Iterator[Hit]:
    signal, rest = signal_and_rest(args)
    parsed = options_of("kill", rest)
    if parsed.has("--list", "--table", "--help", "--version"):
        return
    # After the signal, kill reads ``-N`` as a process group (``-1``: every process).
    pids = [w.value for w in parsed.operands]
    pids += ["-" + v for o, v in parsed.options if o == "-NUM" and v is not None]
    if signal == "1" and not pids and not parsed.options:
        pids = ["-1"]  # a bare ``kill -1``: read as its intent, every process
    pids = [_number(p) for p in pids]  # kill reads ``-01`` as -1 (strtol)
    if "-1" in pids:
        yield KILL_ALL_PROCESSES.hit("kill -1 signals every process")
    elif "1" in pids:
        yield KILL_INIT.hit("kill 1 signals init")


def _kill_chosen_at_run_time(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """SIGKILL to pids found when it runs (``$(pgrep x)``, ``… | xargs kill -9``): DG418."""
    signal, rest = signal_and_rest(cmd.args)
    parsed = options_of("kill", rest)
    given = parsed.values("--signal", "-n")
    if given:
        signal, _ = signal_and_rest((Word("-" + given[-1]),))
    if signal not in ("9", "KILL"):
        return
    for w in parsed.operands:
        found = _found_pids(w, cmd, scope)
        if found is not None:
            yield MASS_PROCESS_KILL.hit(f"kill -9 of the processes {found} picks at run time")
            return


def _found_pids(word: Word, cmd: SimpleCommand, scope: Scope) -> str | None:
    """Say where a pid operand comes from when a command finds it at run time, else None.

    A command substitution or xargs input picks processes by a pattern (pgrep, ps | grep,
    lsof -t); so does a variable set from one earlier in the input (``P=$(pgrep x); kill -9
    $P``). ``$!``, other variables, a pid file (``$(cat app.pid)``) and the shell's own jobs
    (``$(jobs -p)``) name processes the script already knows.
    """
    if word.literal:
        return None
    v = word.value.strip('"')
    if v.startswith(("$(", "`")) and not v.startswith("$(("):
        inner = v[2:-1] if v.startswith("$(") else v[1:-1]
        known = inner.strip().startswith(("cat ", "<", "jobs")) and "|" not in inner
        return None if known else quote(v)
    if v == XARGS_INPUT or v.startswith("{"):
        return "xargs reads"
    name = v[2:-1] if v.startswith("${") and v.endswith("}") else v[1:]
    if v.startswith("$") and name.replace("_", "a").isalnum():
        for other in scope.before(cmd):
            for a in other.assignments:
                if a.name == name:
                    set_from = a.value.value.strip('"')
                    if not a.value.literal and set_from.startswith(("$(", "`")):
                        return f"{quote(set_from)} (in ${name})"
                    return None
    return None


def _number(pid: str) -> str:
    """Return a pid operand in its canonical decimal form (``-01`` -> ``-1``), else unchanged."""
    sign = "-" if pid.startswith("-") else ""
    digits = pid[len(sign) :]
    return sign + str(int(digits)) if digits.isdigit() and digits.isascii() else pid


_ROOT_USERS = frozenset({"root", "0"})
_MATCH_ALL = frozenset({"", ".", ".*", "^", "$", "^.*", ".*$", "^.*$", ".+", "[a-z]", "\\w"})


def _kill_by_name(name: str, args: tuple[Word, ...]) -> Iterator[Hit]:
    signal, rest = signal_and_rest(args, anywhere=True)
    parsed = options_of(name, rest)
    if parsed.has("--list", "--help", "--version", "--count"):
        return
    given = parsed.values("--signal")
    if given:
        signal, _ = signal_and_rest((Word("-" + given[-1]),))
    users = parsed.values("--user", "--euid", "--uid")
    patterns = [w.value for w in parsed.operands]
    if users and not patterns:
        if any(u in _ROOT_USERS for user in users for u in user.split(",")):
            yield KILL_ALL_PROCESSES.hit(f"{name} -u {users[0]} signals every process of root")
        else:
            yield MASS_PROCESS_KILL.hit(f"{name} -u {users[0]} signals every process of that user")
    elif signal in ("9", "KILL") and (patterns or users):
        yield MASS_PROCESS_KILL.hit(f"{name} -9 {' '.join(patterns[:2])}".rstrip())
    elif name == "killall" and parsed.has("--regexp"):
        yield MASS_PROCESS_KILL.hit(f"killall -r {' '.join(patterns[:2])}")
    elif any(p in _MATCH_ALL for p in patterns):
        yield MASS_PROCESS_KILL.hit(f"{name} {' '.join(patterns[:2])} matches every process")
    elif patterns and signal not in _HARMLESS_SIGNALS:
        how = "-f " if parsed.has("--full") else ""
        yield PROCESS_KILL_BY_PATTERN.hit(f"{name} {how}{quote(' '.join(patterns[:2]), 60)}")


# Signals that do not end a process (a probe, a reload, a resume): sent by name they ask nothing.
_HARMLESS_SIGNALS = frozenset({"0", "HUP", "1", "USR1", "10", "USR2", "12", "CONT", "18", "WINCH"})


def _fuser(args: tuple[Word, ...]) -> Iterator[Hit]:
    """Flag ``fuser -k``: it kills every process using a file, a mount or a port."""
    if any(w.value == "--kill" or (w.value[:1] == "-" and w.value[1:2] != "-" and "k" in w.value)
           for w in args):  # fmt: skip
        targets = [w.value for w in args if w.value[:1] != "-"]
        yield PROCESS_KILL_BY_PATTERN.hit(f"fuser -k {quote(' '.join(targets[:2]), 60)}")


def check_fork_bomb(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag a function that runs itself in a background pipeline (any name)."""
    if not cmd.in_function or not scope.model.functions:
        return
    name = cmd.name
    if (
        name
        and name in scope.model.functions
        and (cmd.background or (cmd.pipeline >= 0 and cmd.stage > 0))
    ):
        yield FORK_BOMB.hit(f"function {name} spawns itself in the background")


# Output redirects onto disks and kernel parameters (``> /dev/sda``), under its old name.
check_device_redirects = devices.check_device_redirects


_FAMILY = {n: c for table in (disks.CHECKS,) for n, c in table.items()}
RULES: tuple[Rule, ...] = (
    *_OWN,
    *disks.RULES,
    *firewall.RULES,
    *accounts.RULES,
    *kernel.RULES,
    *acl.RULES,
    *network.RULES,
    *attributes.RULES,
)
CHECKS = {
    n: check_machine
    for n in (
        *_FAMILY,
        *_POWER,
        "init",
        "telinit",
        "systemctl",
        "loginctl",
        "kill",
        "killall",
        "pkill",
        "fuser",
        "killall5",
    )
}
