"""DG421: taking the machine's network down (interfaces, addresses, the default route)."""

from __future__ import annotations

from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.rules.danger._registry import program_check
from tether.shell.model import SimpleCommand

NETWORK_DOWN = Rule(
    code="DG421",
    name="network-down",
    tier=Tier.ASK,
    summary="Take a network interface, its addresses or the default route down",
    why="Ask, not hardline: `ip link set eth0 down`, `ip addr flush`, deleting the default "
    "route, `ifdown` or `nmcli networking off` cut the machine off, and on a remote host "
    "the agent's own session and every user's with it; someone at the console (or a "
    "reboot) brings it back.",
    instead="Change the one address or route you need (`ip addr add …`), or ask the user; "
    "read the state with `ip -br addr` or `nmcli device status`.",
    match=(
        "ip link set eth0 down",
        "sudo ip link set dev ens3 down",
        "ip -n vpn link set wg0 down",
        "ip addr flush dev eth0",
        "ip route del default",
        "ip route flush table main",
        "ifdown eth0",
        "ifdown -a",
        "ifconfig eth0 down",
        "nmcli networking off",
        "nmcli device disconnect eth0",
        "nmcli n off",
        "ip l s eth0 down",
    ),
    not_match=(
        "ip link set eth0 up",
        "ip -br addr",
        "ip route show",
        "ip route add 10.0.0.0/8 via 10.1.1.1",
        "ifconfig eth0",
        "ifup eth0",
        "nmcli device status",
        "nmcli networking on",
        "nmcli radio all on",
        "echo ip link set eth0 down",
    ),
)

RULES = (NETWORK_DOWN,)


def _is(word: str, full: str) -> bool:
    """ip and nmcli read any prefix of an object or verb (``ip l s``, ``nmcli n off``)."""
    return bool(word) and full.startswith(word)


@program_check("ip", "ifdown", "ifconfig", "nmcli", rules=(NETWORK_DOWN,))
def check_network(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag interfaces, addresses and default routes taken down."""
    name = name_of(cmd)
    parsed = options_of(name, cmd.args)
    words = [w.value.lower() for w in parsed.operands]
    if name == "ip":
        # ip's own options are single-dash words (``-br``, ``-n NS``): skip to the object.
        while words and not any(_is(words[0], o) for o in ("link", "address", "route")):
            words = words[1:]
        obj, verb, *rest = [*words, "", ""]
        if _is(obj, "link") and _is(verb, "set") and "down" in rest:
            yield NETWORK_DOWN.hit("ip link set … down")
        elif _is(obj, "address") and _is(verb, "flush"):
            yield NETWORK_DOWN.hit("ip addr flush")
        elif _is(obj, "route") and (
            _is(verb, "flush") or (_is(verb, "delete") and rest[:1] == ["default"])
        ):
            yield NETWORK_DOWN.hit(f"ip route {verb} {' '.join(rest[:1])}".rstrip())
    elif name == "ifdown" and (words or parsed.has("-a", "--all")):
        yield NETWORK_DOWN.hit("ifdown " + " ".join(w.value for w in cmd.args[:1]))
    elif name == "ifconfig" and len(words) >= 2 and "down" in words[1:]:
        yield NETWORK_DOWN.hit(f"ifconfig {words[0]} down")
    elif name == "nmcli" and len(words) >= 2:
        first, second = words[0], words[1]
        if (
            (_is(first, "networking") and _is(second, "off"))
            or (_is(first, "device") and _is(second, "disconnect"))
            or (_is(first, "radio") and words[1:3] in (["all", "off"], ["wifi", "off"]))
        ):
            yield NETWORK_DOWN.hit("nmcli " + " ".join(words[:3]))
