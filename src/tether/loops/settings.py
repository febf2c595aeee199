"""The loop guard's settings: thresholds and tool semantics read once from a ``Config``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tether.errors import ConfigError

if TYPE_CHECKING:
    from tether.config.core import Config

from tether.loops.detectors import THRESHOLDS

# The detectors with thresholds and their built-in values, read from each detector's one
# declaration (tether.loops.detectors); the config schema declares these as its defaults.
DETECTORS: tuple[str, ...] = tuple(d.key for d in THRESHOLDS)
WARN_DEFAULTS: dict[str, int] = {d.key: int(d.warn_after or 0) for d in THRESHOLDS}
STOP_DEFAULTS: dict[str, int] = {
    d.key: d.hard_stop_after for d in THRESHOLDS if d.hard_stop_after is not None
}

# Built-in tool semantics for the common hosts. Config lists add to these (never remove), so an
# older config file cannot silently switch off what a newer release knows.
SHELL_TOOLS: dict[str, str] = {
    "Bash": "command",
    "bash": "command",
    "shell": "command",
    "terminal": "command",
    "execute_bash": "command",
    "run_shell_command": "command",
    "exec_command": "cmd",
    "local_shell": "command",
}
READ_TOOLS: frozenset[str] = frozenset(
    {
        # Claude Code, Gemini CLI, Codex, OpenHands, SWE-agent, hermes and generic names.
        "Read", "Grep", "Glob", "LS", "NotebookRead", "WebFetch", "WebSearch",
        "read_file", "read_many_files", "list_directory", "list_dir", "glob", "grep",
        "search_file_content", "search_files", "file_search", "grep_search", "codebase_search",
        "view", "web_search", "web_fetch", "google_web_search", "web_extract", "search",
        "open", "goto", "scroll_up", "scroll_down", "find_file", "search_dir", "search_file",
        "skill_view", "skills_list", "session_search", "browser_snapshot", "browser_console",
        "ListMcpResourcesTool", "ReadMcpResourceTool", "read", "list", "ls", "cat", "find",
        # The MCP reference filesystem server's reads.
        "read_text_file", "read_media_file", "read_multiple_files", "list_directory_with_sizes",
        "directory_tree", "get_file_info", "list_allowed_directories",
    }
)  # fmt: skip
WRITE_TOOLS: frozenset[str] = frozenset(
    {
        "Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "edit_file", "create_file",
        "replace", "apply_patch", "str_replace_editor", "str_replace_based_edit_tool", "edit",
        "create", "patch", "insert", "write",
    }
)  # fmt: skip
POLL_TOOLS: frozenset[str] = frozenset(
    {"BashOutput", "TaskOutput", "AgentOutputTool", "write_stdin", "process_manage", "process"}
)
FAILURE_TOLERANT_TOOLS: frozenset[str] = frozenset(SHELL_TOOLS) | {
    "execute_code",
    "ipython",
    "process_manage",
    "browser_navigate",
    "web_extract",
}
# Editor tools whose `command` argument says whether this call reads or writes.
EDITOR_READ_COMMANDS: frozenset[str] = frozenset({"view", "view_range", "show"})
# Free-text arguments that never change what a call does: excluded from signatures.
FREE_TEXT_ARGS: frozenset[str] = frozenset(
    {"description", "thought", "reason", "explanation", "security_risk", "is_input", "summary"}
)
POLL_SUFFIXES: tuple[str, ...] = ("_poll", "_get_result", "_status")
# Actions with effects every time they run (a click, a message sent): a success is progress
# even when it returns what it returned before, unlike a file write of the same content.
ACTION_TOOLS: frozenset[str] = frozenset(
    {"browser_click", "browser_type", "browser_press", "browser_scroll", "browser_navigate",
     "send_message"}
)  # fmt: skip
# Bookkeeping tools: they change nothing the task depends on, so they are never progress.
NOTE_TOOLS: frozenset[str] = frozenset(
    {"think", "TodoWrite", "TodoRead", "todo_write", "task_tracker", "update_plan"}
)


@dataclass(frozen=True, slots=True)
class ToolKinds:
    """Which tools are shells (and where the command is), reads, writes, pollers."""

    shell: Mapping[str, str] = field(default_factory=lambda: dict(SHELL_TOOLS))
    read: frozenset[str] = READ_TOOLS
    write: frozenset[str] = WRITE_TOOLS
    poll: frozenset[str] = POLL_TOOLS
    failure_tolerant: frozenset[str] = FAILURE_TOLERANT_TOOLS

    def is_poll_tool(self, tool: str) -> bool:
        """Return True when ``tool`` is a known poller (by name or suffix)."""
        return tool in self.poll or tool.endswith(POLL_SUFFIXES)


@dataclass(frozen=True, slots=True)
class LoopSettings:
    """Everything the detectors and the guard read from config, validated."""

    warnings: bool = True
    hard_stop: bool = False
    window: int = 64
    warn_after: Mapping[str, int] = field(default_factory=lambda: dict(WARN_DEFAULTS))
    hard_stop_after: Mapping[str, int] = field(default_factory=lambda: dict(STOP_DEFAULTS))
    poll_max_count: int = 60
    poll_max_seconds: int = 3600
    progress_enabled: bool = False
    progress_warn_after: int = 15
    progress_halt_after: int = 25
    progress_scope: str = "subagents"
    tools: ToolKinds = field(default_factory=ToolKinds)

    def warn(self, detector: str) -> int:
        """Return the warning threshold of ``detector``."""
        return self.warn_after[detector]

    def stop(self, detector: str) -> int:
        """Return the hard-stop threshold of ``detector``."""
        return self.hard_stop_after[detector]

    def with_(self, **changes: Any) -> LoopSettings:
        """Return a copy with ``changes`` applied and validated."""
        return validate(replace(self, **changes))


DEFAULT_SETTINGS = LoopSettings()


def _int(name: str, value: Any, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{name}: expected an integer ≥ {low}, got {value!r}")
    return value


def validate(s: LoopSettings) -> LoopSettings:
    """Check cross-key constraints; raise ConfigError naming the key and the fix."""
    _int("loops.window", s.window, 2)
    _int("loops.poll.max_count", s.poll_max_count)
    _int("loops.poll.max_seconds", s.poll_max_seconds)
    for name in DETECTORS:
        warn = _int(f"loops.warn_after.{name}", s.warn_after.get(name))
        if name not in STOP_DEFAULTS:
            continue  # a detector that only warns
        stop = _int(f"loops.hard_stop_after.{name}", s.hard_stop_after.get(name))
        if stop < warn:
            raise ConfigError(
                f"loops.hard_stop_after.{name}: expected ≥ loops.warn_after.{name} ({warn}), "
                f"got {stop}; raise hard_stop_after or lower warn_after"
            )
    warn = _int("progress.warn_after", s.progress_warn_after)
    halt = _int("progress.halt_after", s.progress_halt_after)
    if halt <= warn:
        raise ConfigError(
            f"progress.halt_after: expected > progress.warn_after ({warn}), got {halt}; "
            "raise halt_after or lower warn_after"
        )
    if s.progress_scope not in ("subagents", "all"):
        raise ConfigError(
            f"progress.scope: expected 'subagents' or 'all', got {s.progress_scope!r}"
        )
    return s


def _names(value: Any, key: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ConfigError(f"{key}: expected a list of tool names, got {value!r}")
    return frozenset(str(v) for v in value)


def from_config(cfg: Config | None) -> LoopSettings:
    """Read the ``loops``, ``progress`` and ``tools`` sections of ``cfg`` (a Config)."""
    if cfg is None:
        return DEFAULT_SETTINGS
    get = cfg.get
    shell = dict(SHELL_TOOLS)
    for name, key in dict(get("tools.shell") or {}).items():
        if key:
            shell[str(name)] = str(key)
        else:  # mapping a name to '' removes an entry a lower layer added
            shell.pop(str(name), None)
    # No layer remaps or removes a built-in shell tool (the config check refuses it): even a
    # Config built by hand or a tampered cache cannot take `rm -rf /` out of classification.
    shell.update(SHELL_TOOLS)
    tools = ToolKinds(
        shell=shell,
        read=READ_TOOLS | _names(get("tools.read"), "tools.read"),
        write=WRITE_TOOLS | _names(get("tools.write"), "tools.write"),
        poll=POLL_TOOLS | _names(get("tools.poll"), "tools.poll"),
        # Shell commands fail routinely (grep finds nothing, a test fails): every shell tool,
        # built-in or configured, is failure-tolerant.
        failure_tolerant=FAILURE_TOLERANT_TOOLS
        | frozenset(shell)
        | _names(get("tools.failure_tolerant"), "tools.failure_tolerant"),
    )
    settings = LoopSettings(
        warnings=bool(get("loops.warnings")),
        hard_stop=bool(get("loops.hard_stop")),
        window=get("loops.window"),
        warn_after={n: get(f"loops.warn_after.{n}") for n in DETECTORS},
        hard_stop_after={n: get(f"loops.hard_stop_after.{n}") for n in STOP_DEFAULTS},
        poll_max_count=get("loops.poll.max_count"),
        poll_max_seconds=get("loops.poll.max_seconds"),
        progress_enabled=bool(get("progress.enabled")),
        progress_warn_after=get("progress.warn_after"),
        progress_halt_after=get("progress.halt_after"),
        progress_scope=str(get("progress.scope")),
        tools=tools,
    )
    return validate(settings)
