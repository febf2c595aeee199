"""The ``tether`` command: a thin dispatcher that imports only the subcommand it runs.

Each subcommand lives in ``tether/cli/<name>.py`` and defines ``add_arguments(parser)`` and
``run(args) -> int``. Importing one subcommand never imports the others, which keeps
``tether hook …`` (run once per tool call) lean.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

from tether.errors import TetherError

# name -> (module, one-line help). Order is the order of ``tether --help``.
COMMANDS: dict[str, tuple[str, str]] = {
    "classify": ("tether.cli.classify", "classify shell commands: read-only? dangerous? why?"),
    "check": ("tether.cli.check", "what the guard would decide for a command, with your config"),
    "rules": ("tether.cli.rules", "list the rule catalogue or show one rule with its examples"),
    "verify": ("tether.cli.verify", "run commands in a sandbox and report what they changed"),
    "replay": ("tether.cli.replay", "run recorded sessions through the guard"),
    "config": ("tether.cli.config", "get, set, list and check configuration"),
    "trust": ("tether.cli.trust", "trust a project's .tether.yaml (until then it only tightens)"),
    "hook": ("tether.cli.hook", "answer a host's hook event (Claude Code, Codex, Gemini CLI)"),
    "install": ("tether.cli.install", "add Tether's hooks to a host's settings"),
    "uninstall": ("tether.cli.install", "remove exactly the hooks Tether added"),
    "plugin": (
        "tether.cli.plugin",
        "build Tether as a Claude Code/Codex plugin or Gemini extension",
    ),
    "doctor": ("tether.cli.doctor", "check the installed hooks, config and state store"),
    "session": ("tether.cli.session", "list, show and reset recorded sessions"),
    "stats": ("tether.cli.stats", "interventions per code, busiest sessions, top repeated calls"),
    "serve": ("tether.cli.serve", "run the local HTTP sidecar (hook events and the JSON API)"),
    "daemon": ("tether.cli.daemon", "status, stop or run the per-user daemon that answers hooks"),
    "mcp-proxy": ("tether.cli.mcp_proxy", "guard an MCP server's tool calls (stdio proxy)"),
}

DESCRIPTION = """\
Tether: guardrails for LLM agents' tool calls.

Before a call it classifies shell commands (read-only? dangerous?) and checks the session's
history; after a call it fingerprints the result and detects loops. Every answer is one
decision (allow, warn, ask, block, halt) with a stable code and a reason.
"""


def _available() -> dict[str, tuple[str, str]]:
    return {
        name: (module, help_)
        for name, (module, help_) in COMMANDS.items()
        if importlib.util.find_spec(module) is not None
    }


def _top_help() -> str:
    lines = [DESCRIPTION, "usage: tether COMMAND [options]   (tether COMMAND --help for more)", ""]
    lines.append("commands:")
    for name, (_, help_) in _available().items():
        lines.append(f"  {name:<10} {help_}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        # A command is required: the help goes to stderr with status 2, as argparse, git and
        # pip do, so a script that lost its arguments fails instead of passing silently.
        sys.stderr.write(_top_help())
        return 2
    if args[0] in ("-h", "--help", "help"):
        sys.stdout.write(_top_help())
        return 0
    if args[0] in ("-V", "--version"):
        from importlib.metadata import version

        # Says which Tether: another package (PyPI's tether-ai) has a `tether` command too.
        sys.stdout.write(
            f"tether {version('tether')} (Tether guardrails for agents' tool calls; "
            f"{sys.executable})\n"
        )
        return 0
    name = args[0]
    if name == "hook" and len(args) == 2:
        # Hosts spawn `tether hook HOST` once per tool call: answer without argparse (whose
        # help formatter alone pulls in shutil, bz2, lzma and locale). Anything else, such as
        # `--help` or a wrong host, goes through the parser below for its usual messages.
        from tether.hosts import HOSTS

        if args[1] in HOSTS:
            from tether.hosts.runner import run_hook

            if argv is None:  # the `tether` script itself, not a caller in the same process
                # Answered in a child: one killed inside C code (a parser crash) still blocks.
                entry = _hook_entry()
                entry.catch_signals()  # until the child answers, a signal here is the block
                _exit_now(entry.supervised(lambda: _answer(args[1]), lambda _: _tidy()))
            return _run(name, lambda: run_hook(args[1], hold_signals=False))
    available = _available()
    if name not in available:
        import difflib

        close = difflib.get_close_matches(name, list(available), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        sys.stderr.write(f"tether: unknown command '{name}'{hint}; see 'tether --help'\n")
        return 2
    import argparse

    module = importlib.import_module(available[name][0])
    parser = argparse.ArgumentParser(
        prog=f"tether {name}",
        description=available[name][1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    module.add_arguments(parser, name)
    ns = parser.parse_args(args[1:])
    return _run(name, lambda: int(module.run(ns, name)))


def _hook_entry() -> ModuleType:
    """Return ``daemon/hook.py``, builtins only, without the daemon package (json, dataclasses)."""
    import os

    name = "tether._hook_entry"
    module = sys.modules.get(name)
    if module is None:
        path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "daemon", "hook.py")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return module


def _answer(host: str) -> int:
    """Answer one hook event from stdin and flush the reply; return the exit status."""
    import contextlib

    from tether.hosts.runner import run_hook

    status = _run("hook", lambda: run_hook(host, hold_signals=True))
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    return status


def _tidy() -> None:
    """Run the exit handlers (the isolation worker's shutdown) once the reply is out."""
    import atexit

    atexit._run_exitfuncs()


def _exit_now(status: int) -> None:
    """End the hook process once its reply is out, skipping the interpreter's teardown.

    Tearing down the ~200 modules a hook imported takes ~10 ms, a sixth of a hook call; the
    reply is printed and the store closed by then. Exit handlers (the isolation worker's
    shutdown) still run, and the output streams are flushed first.
    """
    import atexit
    import contextlib
    import os

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        # A closed pipe: the host is gone, there is no one left to tell.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


def _run(name: str, command: Callable[[], int]) -> int:
    try:
        return command()
    except TetherError as exc:
        sys.stderr.write(f"tether {name}: {exc}\n")
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("tether: interrupted\n")
        return 130
