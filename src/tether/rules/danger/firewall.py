"""DG412: flushing, resetting or switching off the host firewall."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.rules.danger._registry import program_check
from tether.rules.danger._stdin import stdin_texts
from tether.shell.model import SimpleCommand, Word

FIREWALL_FLUSH = Rule(
    code="DG412",
    name="firewall-flush",
    tier=Tier.ASK,
    summary="Flush, reset, disable or open up the host firewall",
    why="Ask, not hardline: `iptables -F`, `nft flush ruleset`, `ufw disable`/`reset`, "
    "`firewall-cmd --panic-on` or `pfctl -d` expose every service of the machine, or cut "
    "off remote access (a flush under a DROP policy, panic mode) for everyone using it; "
    "the rules can be loaded again from a saved copy, so the damage is not irreversible.",
    instead="Add or delete the one rule you need (`iptables -A …`, `ufw allow 8080/tcp`), "
    "save the current rules first (`iptables-save > rules.bak`), or ask the user.",
    match=(
        "iptables -F",
        "sudo iptables --flush",
        "iptables -t nat -F",
        "iptables --fl INPUT",
        "ip6tables -X",
        "iptables -P INPUT ACCEPT",
        "iptables-legacy -F",
        "nft flush ruleset",
        "nft 'flush ruleset'",
        "nft delete table inet filter",
        "nft -f - <<< 'flush ruleset'",
        "echo 'flush ruleset' | nft -f -",
        "ufw disable",
        "ufw --force reset",
        "ufw default allow incoming",
        "firewall-cmd --panic-on",
        "firewall-cmd --set-default-zone=trusted",
        "pfctl -d",
        "pfctl -F all",
        "netsh advfirewall set allprofiles state off",
    ),
    not_match=(
        "iptables -L",
        "iptables -S",
        "iptables -A INPUT -p tcp --dport 22 -j ACCEPT",
        "iptables -D INPUT 3",
        "iptables -L -n --line-numbers",
        "nft list ruleset",
        "nft -c flush ruleset",
        "echo 'list ruleset' | nft -f -",
        "ufw status",
        "ufw allow 22/tcp",
        "ufw enable",
        "firewall-cmd --list-all",
        "firewall-cmd --query-panic",
        "pfctl -s rules",
        "echo iptables -F",
    ),
)

RULES = (FIREWALL_FLUSH,)

_IPTABLES = frozenset(
    {"iptables", "ip6tables", "iptables-legacy", "ip6tables-legacy", "iptables-nft",
     "ip6tables-nft", "ebtables", "arptables", "ebtables-nft", "arptables-nft"}
)  # fmt: skip
# nft commands that empty or remove whole tables of rules (``nft flush ruleset``).
_NFT_FLUSH = frozenset(
    {("flush", "ruleset"), ("flush", "table"), ("flush", "chain"), ("delete", "table"),
     ("delete", "chain"), ("destroy", "table"), ("destroy", "chain")}
)  # fmt: skip


@program_check(*_IPTABLES, "nft", "ufw", "firewall-cmd", "pfctl", "netsh", rules=(FIREWALL_FLUSH,))
def check_firewall(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag firewall flushes, resets, disables and allow-everything policies."""
    name = name_of(cmd)
    if name in _IPTABLES:
        parsed = options_of("iptables", cmd.args)
        for option in ("--flush", "--delete-chain", "--policy"):
            if parsed.has(option):
                yield FIREWALL_FLUSH.hit(f"{name} {option}")
                return
    elif name == "nft":
        parsed = options_of(name, cmd.args)
        if parsed.has("--check", "--help", "--version"):
            return
        words = _words(parsed.operands)
        if any(f in ("-", "/dev/stdin") for f in parsed.values("--file")):
            words += _words(tuple(Word(t) for t in stdin_texts(cmd, scope)))
        for pair in itertools.pairwise(words):
            if pair in _NFT_FLUSH:
                yield FIREWALL_FLUSH.hit("nft " + " ".join(pair))
                return
    elif name == "ufw":
        parsed = options_of(name, cmd.args)
        words = _words(parsed.operands)
        if parsed.has("--dry-run") or not words:
            return
        if words[0] in ("disable", "reset") or words[:2] == ("default", "allow"):
            yield FIREWALL_FLUSH.hit("ufw " + " ".join(words[:2]))
    elif name == "firewall-cmd":
        parsed = options_of(name, cmd.args)
        if parsed.has("--panic-on"):
            yield FIREWALL_FLUSH.hit("firewall-cmd --panic-on drops every packet")
        elif any(v.lower() == "trusted" for v in parsed.values("--set-default-zone")):
            yield FIREWALL_FLUSH.hit("firewall-cmd --set-default-zone=trusted accepts everything")
    elif name == "pfctl":
        parsed = options_of(name, cmd.args)
        if parsed.has("-d") or parsed.values("-F"):
            yield FIREWALL_FLUSH.hit("pfctl " + " ".join(w.value for w in cmd.args[:2]))
    elif name == "netsh":
        words = _words(options_of(name, cmd.args).operands)
        text = " ".join(words)
        if "firewall" in text and (" state off" in text or "opmode disable" in text):
            yield FIREWALL_FLUSH.hit("netsh " + text[:60])


def _words(operands: tuple[Word, ...]) -> tuple[str, ...]:
    """Return the operands as lower-case words; nft and ufw join their arguments."""
    text = " ".join(w.value for w in operands)
    return tuple(text.replace(";", " ").lower().split())
