"""DG415, DG416, DG423-DG425: swap, kernel parameters, mounts, modules and SELinux at run time."""

from __future__ import annotations

from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.rules.danger._registry import program_check
from tether.shell.model import SimpleCommand

SWAP_OFF = Rule(
    code="DG415",
    name="swap-off",
    tier=Tier.ASK,
    summary="Turn swap off (swapoff)",
    why="Ask, not hardline: with swap gone, a machine short of memory starts killing "
    "processes (the OOM killer picks databases and builds first), and `swapoff -a` on a "
    "busy host can stall it for minutes while pages move back; `swapon -a` undoes it.",
    instead="Leave swap alone, or ask the user; to see it, run `swapon --show`.",
    match=("swapoff -a", "sudo swapoff --all", "swapoff /swapfile", "swapoff -L swap"),
    not_match=("swapon --show", "swapoff --help", "cat /proc/swaps", "echo swapoff -a"),
)

KERNEL_PARAMETER_WRITE = Rule(
    code="DG416",
    name="kernel-parameter-write",
    tier=Tier.ASK,
    summary="Change kernel parameters (sysctl -w, sysctl -p, writes under /proc/sys)",
    why="Ask, not hardline: kernel parameters change networking (ip_forward, rp_filter), "
    "memory (overcommit, drop_caches) and security (ptrace_scope, kptr_restrict) for the "
    "whole machine at once; they last until the next reboot or the next write.",
    instead="Read them with `sysctl NAME` or `cat /proc/sys/…`, and ask the user to change "
    "them (or put the setting in the project's container config).",
    match=(
        "sysctl -w net.ipv4.ip_forward=1",
        "sudo sysctl vm.overcommit_memory=1",
        "sysctl --write kernel.yama.ptrace_scope=0",
        "sysctl -p /etc/sysctl.d/99-custom.conf",
        "sysctl --load=tuning.conf",
        "sysctl --system",
        "echo 1 > /proc/sys/net/ipv4/ip_forward",
        "echo 3 | sudo tee /proc/sys/vm/drop_caches",
        "dd of=/proc/sys/kernel/panic <<< 1",
        "curl -o /proc/sys/kernel/panic http://x",
    ),
    not_match=(
        "sysctl net.ipv4.ip_forward",
        "sysctl -a",
        "sysctl -n vm.swappiness",
        "sysctl --dry-run -w vm.swappiness=10",
        "cat /proc/sys/vm/swappiness",
        "echo sysctl -w x=1",
    ),
)

UNMOUNT_ALL = Rule(
    code="DG423",
    name="unmount-all",
    tier=Tier.ASK,
    summary="Unmount every filesystem (umount -a) or the root",
    why="`umount -a` detaches every mounted filesystem in /etc/mtab (data volumes, /home, "
    "network shares) under every running program; `umount /` (or -l, lazily) pulls the "
    "system out from under itself. Ask, not hardline: remounting undoes it.",
    instead="Unmount the one mount point the task created (`umount /mnt/scratch`).",
    match=("umount -a", "sudo umount --all", "umount -at nfs", "umount -l /"),
    not_match=("umount /mnt/usb", "umount --help", "echo umount -a", "mount -a"),
)

KERNEL_MODULE_REMOVE = Rule(
    code="DG424",
    name="kernel-module-remove",
    tier=Tier.ASK,
    summary="Remove a kernel module (rmmod, modprobe -r)",
    why="Unloading a module takes its driver away at once: a storage, network or "
    "filesystem module under use drops disks or connections, and `rmmod -f` removes one "
    "still in use. Ask, not hardline: `modprobe NAME` loads it back.",
    instead="Leave kernel modules alone; ask the user if one must go.",
    match=("rmmod ext4", "sudo rmmod -f nvme", "modprobe -r e1000e", "modprobe --remove xfs"),
    not_match=("lsmod", "modprobe -n -v ext4", "modinfo ext4", "rmmod --help"),
)

SECURITY_ENFORCEMENT_OFF = Rule(
    code="DG425",
    name="security-enforcement-off",
    tier=Tier.ASK,
    summary="Switch SELinux or AppArmor enforcement off (setenforce 0, aa-teardown)",
    why="With SELinux permissive or AppArmor profiles unloaded, every confined service "
    "runs with none of its policy: a compromise is no longer contained. Ask, not hardline: "
    "`setenforce 1` restores it, and debugging a denial sometimes needs it off briefly.",
    instead="Read the denial (`ausearch -m avc`, `journalctl`) and fix the label or policy.",
    match=("setenforce 0", "sudo setenforce Permissive", "aa-teardown"),
    not_match=("setenforce 1", "getenforce", "sestatus"),
)

RULES = (
    SWAP_OFF,
    KERNEL_PARAMETER_WRITE,
    UNMOUNT_ALL,
    KERNEL_MODULE_REMOVE,
    SECURITY_ENFORCEMENT_OFF,
)


@program_check("swapoff", "sysctl", rules=(SWAP_OFF, KERNEL_PARAMETER_WRITE))
def check_kernel(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag swapoff and sysctl writes (writes under /proc/sys are judged with raw writes)."""
    name = name_of(cmd)
    parsed = options_of(name, cmd.args)
    if parsed.has("--help", "--version"):
        return
    if name == "swapoff":
        if parsed.has("--all", "-L", "-U") or parsed.operands:
            yield SWAP_OFF.hit("swapoff " + " ".join(w.value for w in cmd.args[:2]))
    elif name == "sysctl" and not parsed.has("--dry-run"):
        assigned = [w.value for w in parsed.operands if "=" in w.value]
        if parsed.has("--load", "--system"):
            yield KERNEL_PARAMETER_WRITE.hit("sysctl loads kernel parameters from files")
        elif assigned:
            yield KERNEL_PARAMETER_WRITE.hit(f"sysctl {assigned[0]}")


@program_check(
    "umount",
    "rmmod",
    "modprobe",
    "setenforce",
    "aa-teardown",
    rules=(UNMOUNT_ALL, KERNEL_MODULE_REMOVE, SECURITY_ENFORCEMENT_OFF),
)
def check_mounts_modules(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag umount -a (or of /), module removal and SELinux/AppArmor switched off."""
    name = name_of(cmd)
    words = [w.value for w in cmd.args]
    if "--help" in words or "--version" in words:
        return
    shorts = "".join(w[1:] for w in words if w[:1] == "-" and w[1:2] != "-")
    if name == "umount":
        if "a" in shorts or "--all" in words:
            yield UNMOUNT_ALL.hit("umount -a detaches every filesystem")
        elif "/" in words:
            yield UNMOUNT_ALL.hit("umount /")
    elif name == "rmmod":
        modules = [w for w in words if w[:1] != "-"]
        if modules:
            yield KERNEL_MODULE_REMOVE.hit(f"rmmod {modules[0]}")
    elif name == "modprobe":
        if ("r" in shorts or "--remove" in words) and not ("n" in shorts or "--dry-run" in words):
            yield KERNEL_MODULE_REMOVE.hit(
                "modprobe -r " + " ".join(w for w in words if w[:1] != "-")[:40]
            )
    elif name == "setenforce":
        if words[:1] and words[0].lower() in ("0", "permissive"):
            yield SECURITY_ENFORCEMENT_OFF.hit("setenforce 0 makes SELinux permissive")
    elif name == "aa-teardown":
        yield SECURITY_ENFORCEMENT_OFF.hit("aa-teardown unloads every AppArmor profile")
