"""Which trust entries ``tether uninstall codex`` gives back to hooks that moved up in hooks.json.

Codex keys a hook's trust by its position (``<file>:<event>:<group>:<handler>``), so removing
Tether's group moves the groups after it up one place, and their trust stays behind at the old
key. Only as many identical hooks as the user trusted in that file get it back; never a hook in
another file, never Tether's own. (The real Codex is driven in ``tests/e2e``.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.hosts.codex_trust import HookState, moved_trust

FILE = Path("/home/u/.codex/hooks.json")
OTHER_FILE = "/work/p/.codex/hooks.json"
TETHER = "/usr/bin/python3 -I -S /x/tether/daemon/hook.py codex"


def hook(key: str, command: str, status: str, source: str = str(FILE)) -> HookState:
    return HookState(
        key=f"{source}:{key}",
        event="pre_tool_use",
        command=command,
        source=source,
        status=status,
        current_hash=f"sha256:{command}",
        enabled=True,
    )


CASES = [
    (  # the other hook moved from group 1 to group 0 and lost its trust: it gets it back
        [hook("0:0", TETHER, "trusted"), hook("1:0", "guard", "trusted")],
        [hook("0:0", "guard", "untrusted")],
        {f"{FILE}:0:0"},
    ),
    (  # it was never trusted: it stays untrusted
        [hook("0:0", TETHER, "trusted"), hook("1:0", "guard", "untrusted")],
        [hook("0:0", "guard", "untrusted")],
        set(),
    ),
    (  # an identical hook trusted in another file lends this one nothing
        [hook("0:0", TETHER, "trusted"), hook("0:0", "guard", "trusted", OTHER_FILE)],
        [hook("0:0", "guard", "untrusted"), hook("0:0", "guard", "trusted", OTHER_FILE)],
        set(),
    ),
    (  # two identical hooks, one trusted: only one gets trust back
        [
            hook("0:0", TETHER, "trusted"),
            hook("1:0", "g", "trusted"),
            hook("2:0", "g", "untrusted"),
        ],
        [hook("0:0", "g", "untrusted"), hook("1:0", "g", "untrusted")],
        {f"{FILE}:0:0"},
    ),
    (  # a hook that kept its place and its trust needs nothing
        [hook("0:0", "guard", "trusted"), hook("1:0", TETHER, "trusted")],
        [hook("0:0", "guard", "trusted")],
        set(),
    ),
]


@pytest.mark.parametrize(("before", "after", "expected"), CASES)
def test_moved_trust(before: list[HookState], after: list[HookState], expected: set[str]) -> None:
    moved = moved_trust(before, after, FILE)
    assert set(moved) == expected
    for key, entry in moved.items():
        [h] = [x for x in after if x.key == key]
        assert entry == {"trusted_hash": h.current_hash}
