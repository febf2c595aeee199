"""``tether mcp-proxy -- UPSTREAM_COMMAND ARGS…``: guard an MCP server's tool calls over stdio.

Point the MCP client at this command instead of the upstream server; the proxy starts the
upstream itself. The relay needs no MCP SDK.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys

from tether.cli._common import add_config_arguments, config_from_args

EPILOG = """\
Runs an MCP server on stdin/stdout in front of UPSTREAM_COMMAND (started as a subprocess) and
passes everything through untouched (tools, resources, prompts, completions, notifications,
cancellation, the server's own requests) except tools/call, which goes through the guard first:
a refused call never reaches the upstream and comes back as an error result with the reason;
warnings are appended to results (and added under "tether" to structuredContent). Tools whose
input schema has a command/cmd/script argument (or that tools.shell names) have their commands
classified. Example client entry:

  {"command": "tether", "args": ["mcp-proxy", "--", "npx", "-y", "some-mcp-server"]}

Exit codes: 0 the client closed the session; 2 bad arguments, or the upstream could not start,
exited or did not answer initialize within --init-timeout; 3 the upstream died mid-session
(every request still waiting is answered with the cause first). The cause is one line on stderr.
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
        "--init-timeout",
        metavar="SECONDS",
        type=_seconds,
        default=None,
        help="how long the upstream may take to answer initialize (default: 10)",
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
    from tether.mcp_proxy import DEFAULT_INIT_TIMEOUT, run_proxy

    config = config_from_args(args)
    timeout = DEFAULT_INIT_TIMEOUT if args.init_timeout is None else args.init_timeout
    code = run_proxy(upstream, config, session_id=args.session, init_timeout=timeout)
    # The relay's reader threads may still sit in a blocking read of stdin: end the process
    # here (the store is closed, the replies flushed) rather than in interpreter teardown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _seconds(text: str) -> float:
    """Parse a positive number of seconds for argparse."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value
