"""DG415, DG416: turning swap off and changing kernel parameters at run time."""

from __future__ import annotations

from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.shell.model import SimpleCommand

RULES = (
    Rule(
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
    ),
    Rule(
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
    ),
)


def check_kernel(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag swapoff and sysctl writes (writes under /proc/sys are judged with raw writes)."""
    name = name_of(cmd)
    parsed = options_of(name, cmd.args)
    if parsed.has("--help", "--version"):
        return
    if name == "swapoff":
        if parsed.has("--all", "-L", "-U") or parsed.operands:
            yield Hit("DG415", "swapoff " + " ".join(w.value for w in cmd.args[:2]))
    elif name == "sysctl" and not parsed.has("--dry-run"):
        assigned = [w.value for w in parsed.operands if "=" in w.value]
        if parsed.has("--load", "--system"):
            yield Hit("DG416", "sysctl loads kernel parameters from files")
        elif assigned:
            yield Hit("DG416", f"sysctl {assigned[0]}")


CHECKS = {"swapoff": check_kernel, "sysctl": check_kernel}
