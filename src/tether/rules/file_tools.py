"""Which files a non-shell tool call would change: host file tools, apply_patch, MCP tools.

Claude Code's Write/Edit/MultiEdit/NotebookEdit, Gemini CLI's write_file/replace, Codex's
apply_patch (its patch text names the files) and an MCP filesystem server's write_file,
edit_file, move_file… (``mcp__server__write_file`` in the hosts, the bare name through the MCP
proxy) all name their files in arguments. Any tool that is not a known reader counts: a tool
Tether has never heard of that is given a guard file's path may well write it. Pure functions
over the call's name and arguments; :mod:`tether.rules.protected` says which paths matter.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any

from tether.rules.protected import protected

# Arguments that name a file or directory the call works on.
PATH_ARGS = frozenset(
    {
        "path", "file_path", "filepath", "filePath", "notebook_path", "absolute_path",
        "source", "destination", "dest", "target", "target_file", "targetFile", "new_path",
        "old_path", "from", "to", "file", "filename", "dir_path", "directory", "paths",
        "files",
    }
)  # fmt: skip
# Tools whose argument named ``command`` (or ``input``/``patch``) is a patch naming its files.
PATCH_TOOLS = frozenset({"apply_patch", "patch", "applypatch"})
PATCH_ARGS = ("command", "input", "patch")
# Names of MCP and framework tools that only look (``read_text_file``, ``get_file_info``).
_READ_PREFIXES = (
    "read", "get", "list", "search", "find", "view", "show", "stat", "describe", "glob",
    "grep", "directory_tree", "tree", "cat", "head", "tail", "diff", "query", "fetch",
)  # fmt: skip
_MAX_PATHS = 256
# An editor tool's ``command`` that only shows a file (str_replace_editor view …).
_VIEW_COMMANDS = frozenset({"view", "view_range", "show"})


def base_name(tool: str) -> str:
    """Return a tool's name without its MCP prefix (``mcp__fs__write_file`` -> ``write_file``)."""
    return tool.rpartition("__")[2] if tool.startswith("mcp__") else tool


def is_reader(tool: str, reads: Iterable[str]) -> bool:
    """Return True for tools that only read: the configured readers and ``read_*``-style names."""
    base = base_name(tool)
    if tool in reads or base in reads:
        return True
    lowered = base.lower()
    return lowered.startswith(_READ_PREFIXES)


@functools.cache
def _patch_header() -> re.Pattern[str]:
    # Compiled on first use: most calls the hook sees are not patches.
    return re.compile(
        r"^\*\*\* (?:Update File|Add File|Delete File|Move to):[ \t]*(.+?)[ \t]*$", re.M
    )


def patch_files(text: str) -> list[str]:
    """Return the files an apply_patch text adds, updates, deletes or moves to."""
    if "*** " not in text:
        return []
    return [m.group(1) for m in _patch_header().finditer(text)][:_MAX_PATHS]


# Arguments that carry what is written, or a search, never where: a path-like value there is data.
_DATA_ARGS = frozenset(
    {
        "content", "contents", "new_string", "old_string", "new_str", "old_str", "text", "body",
        "data", "message", "prompt", "description", "pattern", "query", "regex", "glob",
        "include", "exclude", "command", "input", "patch", "oldText", "newText", "old_text",
        "new_text", "replacement", "url",
    }
)  # fmt: skip
_MAX_DEPTH = 3  # nested argument objects looked into ({"options": {"path": …}})


def named_paths(tool: str, args: Mapping[str, Any]) -> list[str]:
    """Return every path the call's arguments name (patch files included), capped.

    Values of the usual path arguments (:data:`PATH_ARGS`) count whatever they look like;
    any other argument counts when its value is one path-like word (``dst``, ``uri``,
    ``output_path``, a nested ``{"options": {"path": …}}``): a tool Tether does not know
    names its destination however it likes. ``file://`` URIs count as their path.
    """
    found: list[str] = []
    if base_name(tool).lower() in PATCH_TOOLS:
        for key in PATCH_ARGS:
            value = args.get(key)
            if isinstance(value, str):
                found.extend(patch_files(value))
    # (a mapping or list, its depth, whether it is the value of a path argument: ["a", "b"])
    stack: list[tuple[Any, int, bool]] = [(args, 0, False)]
    seen = 0
    while stack and len(found) < _MAX_PATHS and seen < 4 * _MAX_PATHS:
        node, depth, of_paths = stack.pop()
        seen += 1
        items = node.items() if isinstance(node, Mapping) else ((None, v) for v in node)
        for key, value in list(items)[:_MAX_PATHS]:
            if key in _DATA_ARGS:
                continue
            paths = key in PATH_ARGS or (key is None and of_paths)
            if isinstance(value, str):
                if paths or _path_like(value):
                    found.append(_unuri(value))
            elif isinstance(value, (Mapping, list, tuple)) and depth < _MAX_DEPTH:
                stack.append((value, depth + 1, paths))
    return found[:_MAX_PATHS]


def _path_like(value: str) -> bool:
    """Return True for one word that reads as a path (``/x``, ``~/x``, ``a/b``, ``file://…``)."""
    if not value or len(value) > 4096 or any(c.isspace() for c in value):
        return False
    if "://" in value and not value.startswith("file://"):
        return False  # a URL names a remote resource, not a file here
    return value.startswith(("/", "~", "./", "../", "file://", "$")) or "/" in value


def _unuri(value: str) -> str:
    return value[len("file://") :] if value.startswith("file://") else value


def guarded_paths(
    tool: str,
    args: Mapping[str, Any],
    reads: Iterable[str] = (),
    environ: Mapping[str, str] | None = None,
) -> list[tuple[str, str]]:
    """Return ``(path, what it is)`` for each guard file a non-reading tool call names."""
    sub = args.get("command")
    if is_reader(tool, reads) or (isinstance(sub, str) and sub in _VIEW_COMMANDS):
        return []
    hits: list[tuple[str, str]] = []
    for path in named_paths(tool, args):
        what = protected(path, environ, tree=True)
        if what is not None:
            hits.append((path, what))
    return hits


__all__ = ["PATH_ARGS", "base_name", "guarded_paths", "is_reader", "named_paths", "patch_files"]
