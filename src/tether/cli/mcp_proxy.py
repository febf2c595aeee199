"""``tether mcp-proxy -- UPSTREAM_COMMAND ARGS…``: guard an MCP server's tool calls over stdio.

Point the MCP client at this command instead of the upstream server; the proxy starts the
upstream itself. Needs the ``mcp`` extra (``pip install 'tether[mcp]'``).
"""

from __future__ import annotations

import argparse
import shutil
import sys

from tether.cli._common import add_config_arguments, config_from_args

EPILOG = """\
Runs an MCP server on stdin/stdout that forwards tools/list and tools/call to UPSTREAM_COMMAND
(started as a subprocess). Every call goes through the guard: a refused call never reaches the
upstream and comes back as an error result with the reason; warnings are appended to results.
Tools whose input schema has a command/cmd/script argument (or that tools.shell names) have
their commands classified. Example client entry:

  {"command": "tether", "args": ["mcp-proxy", "--", "npx", "-y", "some-mcp-server"]}
"""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add --set, --session and the upstream command."""
    parser.epilog = EPILOG
    add_config_arguments(parser)
    parser.add_argument(
        "--session",
        metavar="ID",
        help="Tether session id for this proxy's calls (default: a new one per process)",
    )
    parser.add_argument(
        "upstream",
        nargs=argparse.REMAINDER,
        metavar="-- UPSTREAM_COMMAND ARGS",
        help="the MCP server to guard and its arguments, after '--'",
    )


def run(args: argparse.Namespace, name: str) -> int:
    """Serve until the client disconnects; return 2 for a missing or unknown upstream."""
    upstream = list(args.upstream or ())
    if upstream[:1] == ["--"]:
        upstream = upstream[1:]
    if not upstream:
        sys.stderr.write(
            f"tether {name}: no upstream server given: expected "
            f"'tether {name} -- UPSTREAM_COMMAND ARGS…', e.g. "
            f"'tether {name} -- npx -y @modelcontextprotocol/server-filesystem .'\n"
        )
        return 2
    if shutil.which(upstream[0]) is None:
        sys.stderr.write(
            f"tether {name}: upstream command {upstream[0]!r} not found (not an executable "
            "path and not on PATH); check the command after '--'\n"
        )
        return 2
    try:
        from tether.mcp_proxy import run_proxy
    except ImportError as exc:
        sys.stderr.write(
            f"tether {name}: the MCP SDK is not installed ({exc}); "
            "install it with: pip install 'tether[mcp]'\n"
        )
        return 2
    config = config_from_args(args)
    return run_proxy(upstream, config, session_id=args.session)
