"""DG4xx (the machine): disks, fork bombs, power and killing every process."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tether.quoting import quote
from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of
from tether.shell.model import SimpleCommand

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
)

_BLOCK_DEVICE = re.compile(
    r"^/dev/(?:sd[a-z]+\d*|hd[a-z]+\d*|vd[a-z]+\d*|xvd[a-z]+\d*|nvme\d+(?:n\d+)?(?:p\d+)?|mmcblk\d+(?:p\d+)?"
    r"|md\d+|dm-\d+|loop\d+|nbd\d+|r?disk\d+(?:s\d+)?|mapper/.+|disk/by-[^/]+/.+|sr\d+|fd\d+|ubd[a-z]+\d*)$"
)


def is_block_device(path: str) -> bool:
    """Return True for a disk or partition device path (``/dev/sda1``, ``/dev/nvme0n1``)."""
    return bool(_BLOCK_DEVICE.match(path))


_POWER = frozenset({"reboot", "shutdown", "halt", "poweroff", "openrc-shutdown"})


def check_machine(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag disk wipes, raw device writes, power changes and mass kills."""
    name = name_of(cmd)
    vals = [w.value for w in cmd.args]
    if name.startswith("mkfs") or name in ("mke2fs", "mkswap", "newfs", "mkdosfs", "mkntfs"):
        devices = [v for v in vals if is_block_device(v)]
        if devices:
            yield Hit("DG401", f"{name} on {devices[0]}")
    elif name in _DISK_TOOLS:
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
        if any(v.lower() in _DISKUTIL_ERASE for v in vals):
            yield Hit("DG401", "diskutil " + " ".join(vals[:2]))
    elif name == "tee":
        for v in vals:
            if is_block_device(v):
                yield Hit("DG401", f"tee {v}")
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
    elif name == "kill":
        yield from _kill(vals)


_DISK_TOOLS = frozenset(
    {"wipefs", "blkdiscard", "shred", "sgdisk", "sfdisk", "fdisk", "parted", "badblocks"}
)
_DISKUTIL_ERASE = frozenset(
    {
        "erasedisk",
        "erasevolume",
        "zerodisk",
        "randomdisk",
        "secureerase",
        "partitiondisk",
        "reformat",
    }
)


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


def check_device_redirects(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag output redirects onto block devices (``> /dev/sda``)."""
    for r in cmd.redirects:
        writes = r.op in (">", ">>", ">|", "&>", "&>>", "<>") and r.target is not None
        if writes and r.target is not None and is_block_device(r.target.value):
            yield Hit("DG401", f"redirect into {quote(r.target.value)}")


CHECKS = {
    n: check_machine
    for n in (
        "mkfs",
        "mke2fs",
        "mkswap",
        "newfs",
        "mkdosfs",
        "mkntfs",
        *_DISK_TOOLS,
        "dd",
        "diskutil",
        "tee",
        *_POWER,
        "init",
        "telinit",
        "systemctl",
        "loginctl",
        "kill",
    )
}
