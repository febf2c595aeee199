"""Every getopt spelling of the option a machine or git rule turns on keeps its verdict.

A rule that matched ``--all`` but not ``--al``, ``-a`` inside a cluster, ``--opt=V`` or an
option after the operands would be one an agent walks around by accident. For each case the
option is spelt every way the tool's own grammar accepts (each name, each unique prefix, the
value attached, separate or after ``=``), alone and behind ``sudo -u root``; read forms
(``fdisk -l``, ``nft -c``) must stay unflagged the same way.
"""

from __future__ import annotations

import pytest

from tether.rules.danger import assess
from tether.shell import parse_command
from tether.shell.options import FLAG, OPTIONAL, REQUIRED, Grammar, spellings
from tether.shell.tools import GIT_SUBCOMMANDS, MACHINE

# (template with {o} for the option, grammar, canonical option, its value or None, code or None)
CASES: list[tuple[str, Grammar, str, str | None, str | None]] = [
    ("wipefs {o} /dev/sdb", MACHINE["wipefs"], "--all", None, "DG401"),
    ("wipefs -a {o} /dev/sdb", MACHINE["wipefs"], "--no-act", None, None),
    ("sgdisk {o} /dev/sda", MACHINE["sgdisk"], "--zap-all", None, "DG401"),
    ("sgdisk {o} -n 1:0:0 /dev/sda", MACHINE["sgdisk"], "--pretend", None, None),
    ("sgdisk {o} /dev/sda", MACHINE["sgdisk"], "--delete", "2", "DG417"),
    ("sfdisk {o} /dev/sda", MACHINE["sfdisk"], "--delete", None, "DG401"),
    ("sfdisk {o} /dev/sda", MACHINE["sfdisk"], "--dump", None, None),
    ("fdisk {o} /dev/sda", MACHINE["fdisk"], "--list", None, None),
    ("parted {o} /dev/sda mklabel gpt", MACHINE["parted"], "--script", None, "DG401"),
    ("pv disk.img {o}", MACHINE["pv"], "--output", "/dev/sda", "DG401"),
    ("kill {o} -1", MACHINE["kill"], "--signal", "KILL", "DG404"),
    ("kill {o}", MACHINE["kill"], "--list", None, None),
    ("killall {o} node", MACHINE["killall"], "--signal", "KILL", "DG418"),
    ("killall {o} 'fire.*'", MACHINE["killall"], "--regexp", None, "DG418"),
    ("pkill {o}", MACHINE["pkill"], "--euid", "root", "DG404"),
    ("pkill {o} node", MACHINE["pkill"], "--signal", "9", "DG418"),
    ("iptables {o}", MACHINE["iptables"], "--flush", None, "DG412"),
    ("iptables {o} INPUT", MACHINE["iptables"], "--delete-chain", None, "DG412"),
    ("nft {o} flush ruleset", MACHINE["nft"], "--check", None, None),
    ("passwd {o} root", MACHINE["passwd"], "--delete", None, "DG414"),
    ("usermod {o} root", MACHINE["usermod"], "--lock", None, "DG414"),
    ("usermod {o} bob", MACHINE["usermod"], "--password", "''", "DG414"),
    ("swapoff {o}", MACHINE["swapoff"], "--all", None, "DG415"),
    ("sysctl {o}", MACHINE["sysctl"], "--load", None, "DG416"),
    ("sysctl {o} -w vm.swappiness=1", MACHINE["sysctl"], "--dry-run", None, None),
    ("setfacl -R {o} /", MACHINE["setfacl"], "--remove-all", None, "DG419"),
    ("setfacl -b {o} /etc", MACHINE["setfacl"], "--recursive", None, "DG419"),
    ("setfacl -R -b {o} /", MACHINE["setfacl"], "--test", None, None),
    ("git update-ref {o} refs/heads/x", GIT_SUBCOMMANDS["update-ref"], "-d", None, "DG209"),
    (
        "git symbolic-ref {o} refs/remotes/origin/HEAD",
        GIT_SUBCOMMANDS["symbolic-ref"],
        "--delete",
        None,
        "DG209",
    ),
    ("git gc {o}", GIT_SUBCOMMANDS["gc"], "--prune", "now", "DG207"),
    ("git prune {o}", GIT_SUBCOMMANDS["prune"], "--dry-run", None, None),
    ("git push {o} +main", GIT_SUBCOMMANDS["push"], "--repo", "origin", "DG202"),
    ("git push {o} origin +main", GIT_SUBCOMMANDS["push"], "--set-upstream", None, "DG202"),
]


def _forms(g: Grammar, canonical: str, value: str | None) -> list[str]:
    """Return every way to give ``canonical`` (with ``value``) that ``g`` accepts."""
    kind = g.arity[canonical]
    out: list[str] = []
    for spelt in spellings(g, canonical):
        long = spelt.startswith("--")
        if kind == FLAG:
            out.append(spelt)
        elif kind == REQUIRED:
            assert value is not None, f"{g.name} {canonical} needs a value in the table"
            out.append(f"{spelt} {value}")
            if long:
                out.append(f"{spelt}={value}")
            elif value != "''":  # an empty value cannot attach: `-p''` is the word `-p`
                out.append(f"{spelt}{value}")
        elif kind == OPTIONAL:
            out.append(spelt if value is None else f"{spelt}={value}" if long else spelt + value)
    return out


def _commands() -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    for template, g, canonical, value, code in CASES:
        forms = _forms(g, canonical, value)
        assert len(forms) >= 1, f"{g.name}: no spelling of {canonical}"
        for form in forms:
            command = template.format(o=form)
            out += [(command, code), (f"sudo -u root {command}", code)]
    return out


COMMANDS = _commands()


@pytest.mark.parametrize(("command", "code"), COMMANDS, ids=[c for c, _ in COMMANDS])
def test_every_spelling_keeps_the_verdict(command: str, code: str | None) -> None:
    verdict = assess(parse_command(command))
    if code is None:
        assert not verdict.codes, f"{command!r}: a read form, flagged {verdict.codes}"
    else:
        assert code in verdict.codes, f"{command!r}: expected {code}, got {verdict.codes}"


def test_the_table_spells_abbreviations() -> None:
    # The generator must produce abbreviations, or the test above proves only the full names.
    assert "--al" in _forms(MACHINE["wipefs"], "--all", None)
    assert "--sig KILL" in _forms(MACHINE["killall"], "--signal", "KILL")
    assert len(COMMANDS) > 200
