"""The config schema: every key, its type, default, allowed values and description.

This table is the single source of truth. Defaults, validation, ``tether config``, the "did you
mean" suggestions, ``docs/config.md`` and the example file are all derived from it, so a key the
code reads but the schema does not declare cannot exist: ``Config.get`` refuses it.

Pure data and no imports beyond the standard library: the hook path imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tether.loops.detectors import THRESHOLDS
from tether.loops.settings import SHELL_TOOLS

Kind = Literal["bool", "int", "float", "str", "enum", "list", "map"]

# Which change to a key loosens the guard, so that an untrusted project file may only make the
# other change (tether.config.direction compares a project file's value with the one below it):
#   raise  - a higher number loosens (a threshold reached later, a longer deadline)
#   lower  - a lower number loosens (a shorter memory)
#   off    - switching the setting off loosens
#   order  - a later entry of ``choices`` loosens (choices are listed strictest first)
#   add    - a list entry added loosens (allow globs); removing entries tightens
#   remove - a list entry removed loosens (deny globs); adding entries tightens
#   remap  - a mapping entry removed or changed loosens; a new entry tightens
#   change - any change loosens (where the state lives, who may connect)
Loosen = Literal["raise", "lower", "off", "order", "add", "remove", "remap", "change"]

# The hook's own deadline stays under the host's timeout, which `tether install` writes as 30 s
# for every host (tether.hosts.settings.HOST_TIMEOUT; the hosts' own defaults are longer:
# Claude Code and Codex 600 s, Gemini CLI 60 s): 5 s are left for starting Python and
# printing the reply, so the host always hears Tether's deny rather than timing out (which
# every host treats as allow).
HOOK_DEADLINE_MAX = 25.0


@dataclass(frozen=True, slots=True)
class Key:
    """One leaf setting: ``path`` is dotted (``loops.warn_after.exact_failure``)."""

    path: str
    kind: Kind
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    loosen: Loosen = "change"  # unknown is not safe: any change loosens unless declared
    # The number that means "no limit" (``store.ttl_days: 0`` keeps sessions forever): compared
    # as larger than every other value when judging whether a change raises or lowers it.
    unlimited: float | None = None
    # A finite number past ``maximum`` is read as ``maximum`` instead of refused (hooks.deadline:
    # a deadline the hook cannot keep must not turn every call into a config error).
    clamp: bool = False

    @property
    def section(self) -> str:
        """Return the top-level section name."""
        return self.path.split(".", 1)[0]

    def accepts(self, value: Any) -> bool:
        """Return whether ``value`` is a valid typed value of this key (a cheap re-check).

        The config cache's payload is checked with this on every load: derived data is never
        trusted for its type or range, only for saving a YAML parse. (``type() is``, not
        ``isinstance``: a bool is not an int here; it runs for every key of every hook call.)
        """
        kind, kind_of = self.kind, type(value)
        if kind in ("int", "float"):
            if kind_of is not int and (kind == "int" or kind_of is not float):
                return False
            low, high = self.minimum, self.maximum
            # value - value is 0 for every finite number, nan for nan and the infinities.
            return (
                value - value == 0
                and (low is None or value >= low)
                and (high is None or value <= high)
            )
        if kind == "bool":
            return kind_of is bool
        if kind == "enum":
            return kind_of is str and value in self.choices
        if kind == "str":
            return kind_of is str
        if kind == "list":
            return kind_of is list and all(type(item) is str for item in value)
        return kind_of is dict and all(
            type(name) is str and name and type(arg) is str for name, arg in value.items()
        )

    def expected(self) -> str:
        """Describe the accepted values in words, for error messages and docs."""
        if self.kind == "bool":
            return "a boolean (true or false)"
        if self.kind == "enum":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind == "list":
            return "a list of strings"
        if self.kind == "map":
            return "a mapping of strings to strings"
        if self.kind == "str":
            return "a string"
        noun = "an integer" if self.kind == "int" else "a number"
        lo, hi = self.minimum, self.maximum
        if lo is not None and hi is not None:
            return f"{noun} from {_num(lo)} to {_num(hi)}"
        if lo is not None:
            return f"{noun} ≥ {_num(lo)}"
        if hi is not None:
            return f"{noun} ≤ {_num(hi)}"
        return noun


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


# Per-detector thresholds share one shape; each detector declares its key, defaults and phrase
# once (tether.loops.detectors), and the schema reads that declaration.
_DETECTORS: tuple[tuple[str, int, int | None, str], ...] = tuple(
    (d.key, int(d.warn_after or 0), d.hard_stop_after, d.what) for d in THRESHOLDS
)

# The built-in read/write/poll lists live with the loop guard (tether.loops.settings), which
# adds these settings to them: an older config file can never switch off what a newer release
# knows. Only the shell mapping is declared here, because entries can be removed ('' value)
# (never a built-in one: tether.config.constraints.check_floors).


def _keys() -> tuple[Key, ...]:
    keys: list[Key] = [
        Key(
            "loops.warnings",
            "bool",
            True,
            "Warn the model when a loop detector fires.",
            loosen="off",
        ),
        Key(
            "loops.hard_stop",
            "bool",
            False,
            "Block calls (and halt the agent) once a detector reaches its hard-stop threshold. "
            "Off by default: loops only warn until you opt in.",
            loosen="off",
        ),
        Key(
            "loops.window",
            "int",
            64,
            "How many recent calls per session are remembered for loop detection.",
            minimum=2,
            maximum=10_000,
            loosen="lower",
        ),
    ]
    for name, warn, _, what in _DETECTORS:
        keys.append(
            Key(
                f"loops.warn_after.{name}",
                "int",
                warn,
                f"Warn after this many of: {what}.",
                minimum=1,
                maximum=1_000_000,
                loosen="raise",
            )
        )
    for name, _, stop, what in _DETECTORS:
        if stop is None:
            continue  # a detector that only warns has no hard stop
        keys.append(
            Key(
                f"loops.hard_stop_after.{name}",
                "int",
                stop,
                f"With hard_stop on, block after this many of: {what}.",
                minimum=1,
                maximum=1_000_000,
                loosen="raise",
            )
        )
    keys += [
        Key(
            "loops.poll.max_count",
            "int",
            60,
            "Identical calls to a polling tool tolerated before they count as a loop.",
            minimum=1,
            maximum=1_000_000,
            loosen="raise",
        ),
        Key(
            "loops.poll.max_seconds",
            "int",
            3600,
            "Seconds a polling streak may last before it counts as a loop.",
            minimum=1,
            maximum=31_536_000,
            loosen="raise",
        ),
        Key(
            "progress.enabled",
            "bool",
            False,
            "Detect sub-agents that keep working without converging (off by default).",
            loosen="off",
        ),
        Key(
            "progress.warn_after",
            "int",
            15,
            "Warn after this many calls without progress.",
            minimum=1,
            maximum=1_000_000,
            loosen="raise",
        ),
        Key(
            "progress.halt_after",
            "int",
            25,
            "Halt after this many calls without progress.",
            minimum=1,
            maximum=1_000_000,
            loosen="raise",
        ),
        Key(
            "progress.scope",
            "enum",
            "subagents",
            "Watch only sub-agents, or every agent including the main one.",
            choices=("all", "subagents"),  # strictest first (see Loosen)
            loosen="order",
        ),
        Key(
            "approvals.mode",
            "enum",
            "manual",
            "'manual': dangerous commands ask a human; 'off': they run, except the hardline tier, "
            "which is always blocked.",
            choices=("manual", "off"),
            loosen="order",
        ),
        Key(
            "approvals.unattended",
            "enum",
            "block",
            "What 'ask' becomes when no human can answer (unattended runs).",
            choices=("block", "ask"),
            loosen="order",
        ),
        Key(
            "approvals.allow",
            "list",
            [],
            "Glob patterns of shell commands allowed without asking (never the hardline tier).",
            loosen="add",
        ),
        Key(
            "approvals.deny",
            "list",
            [],
            "Glob patterns of shell commands always blocked.",
            loosen="remove",
        ),
        Key(
            "approvals.disabled_rules",
            "list",
            [],
            "Rule codes to switch off (hardline rules cannot be switched off).",
            loosen="add",
        ),
        Key(
            "approvals.enabled_rules",
            "list",
            [],
            "Rule codes to keep on even when approvals.disabled_rules lists them (a narrower "
            "layer's way to undo a broader layer's switch-off).",
            loosen="remove",
        ),
        Key(
            "approvals.isolation.threshold",
            "int",
            4096,
            "Commands longer than this many characters are classified in an isolated worker "
            "with a deadline (0: always).",
            minimum=0,
            maximum=100_000_000,
            loosen="raise",
        ),
        Key(
            "approvals.isolation.deadline",
            "float",
            10.0,
            "Seconds the isolated worker may take before the command is blocked.",
            minimum=0.01,
            maximum=600,
            loosen="raise",
        ),
        Key(
            "approvals.isolation.memory_mb",
            "int",
            512,
            "Memory limit of the isolated worker, in MiB.",
            minimum=16,
            maximum=65_536,
            loosen="raise",
        ),
        Key(
            "tools.shell",
            "map",
            dict(SHELL_TOOLS),
            "Shell tools: tool name -> the argument holding the command. Entries merge with the "
            "built-ins, which cannot be remapped or removed; map a name to '' to remove an entry a "
            "lower layer added.",
            loosen="remap",
        ),
        Key(
            "tools.read",
            "list",
            [],
            "More read-only tools, added to the built-in list (Read, Grep, Glob, LS, read_file, "
            "view, WebFetch, ...): repeating one with an identical result is no progress.",
            loosen="remove",
        ),
        Key(
            "tools.write",
            "list",
            [],
            "More tools that change files or state, added to the built-in list (Write, Edit, "
            "MultiEdit, apply_patch, ...).",
            loosen="add",
        ),
        Key(
            "tools.poll",
            "list",
            [],
            "More polling tools, added to the built-in list (BashOutput, TaskOutput, "
            "write_stdin, ...): repeated identical calls are expected, up to loops.poll.*.",
            loosen="add",
        ),
        Key(
            "tools.failure_tolerant",
            "list",
            [],
            "More tools whose errors are routine, added to the built-ins (every shell tool, "
            "execute_code, ...): a streak of their failures warns (TL204) but never halts.",
            loosen="add",
        ),
        Key(
            "store.backend",
            "enum",
            "sqlite",
            "Where session state lives: 'memory' (one process), 'sqlite' (hooks, one machine) "
            "or 'redis' (fleets).",
            choices=("memory", "sqlite", "redis"),
            loosen="change",
        ),
        Key(
            "store.path",
            "str",
            "",
            "SQLite file; empty means $XDG_STATE_HOME/tether/state.db.",
            loosen="change",
        ),
        Key(
            "store.url",
            "str",
            "redis://127.0.0.1:6379/0",
            "Redis URL for the redis backend.",
            loosen="change",
        ),
        Key(
            "store.ttl_days",
            "int",
            7,
            "Forget sessions idle for this many days; 0 keeps them forever.",
            minimum=0,
            maximum=3650,
            loosen="lower",
            unlimited=0,
        ),
        Key(
            "store.key_prefix",
            "str",
            "tether:",
            "Prefix of every Redis key Tether writes.",
            loosen="change",
        ),
        Key(
            "serve.host",
            "str",
            "127.0.0.1",
            "Address `tether serve` binds (non-loopback needs a token).",
            loosen="change",
        ),
        Key(
            "serve.port",
            "int",
            8765,
            "Port `tether serve` listens on (0 picks a free one).",
            minimum=0,
            maximum=65535,
            loosen="change",
        ),
        Key(
            "serve.token",
            "str",
            "",
            "Bearer token every request to `tether serve` must send (TETHER_SERVE_TOKEN wins).",
            loosen="change",
        ),
        Key(
            "hooks.deadline",
            "float",
            15.0,
            "Seconds a hook may take before it answers with a block: under the host's hook "
            "timeout (30 s as installed; a larger value is read as 25 s), over "
            "approvals.isolation.deadline.",
            minimum=0.1,
            maximum=HOOK_DEADLINE_MAX,
            loosen="raise",
            clamp=True,
        ),
    ]
    return tuple(keys)


SCHEMA: tuple[Key, ...] = _keys()
KEYS: dict[str, Key] = {key.path: key for key in SCHEMA}

SECTIONS: dict[str, str] = {
    "loops": "Loop detection: repeated failures, repeated calls without progress, cycles.",
    "progress": "Sub-agents that keep working without converging.",
    "approvals": "What happens to dangerous shell commands.",
    "tools": "Which tool names are shells, reads, writes and pollers (added to the built-ins).",
    "store": "Where per-session state is kept between hook processes.",
    "hooks": "Host hook behaviour.",
    "serve": "The local HTTP sidecar (`tether serve`).",
}

GROUPS: dict[str, str] = {
    "loops.warn_after": "Per-detector warning thresholds.",
    "loops.hard_stop_after": "Per-detector hard-stop thresholds (used when loops.hard_stop is on).",
    "loops.poll": "Limits for tools listed in tools.poll.",
    "approvals.isolation": "The isolated classification worker for very long commands.",
}


def is_group(path: str) -> bool:
    """Return True when ``path`` is a section or a nested group (not a leaf)."""
    prefix = path + "."
    return any(key.path.startswith(prefix) for key in SCHEMA)


__all__ = ["GROUPS", "KEYS", "SCHEMA", "SECTIONS", "Key", "Kind", "is_group"]
