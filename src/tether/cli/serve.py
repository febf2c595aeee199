"""``tether serve``: run the local HTTP sidecar until SIGTERM or Ctrl-C.

Binds 127.0.0.1:8765 by default. Every request must send ``Authorization: Bearer <token>``:
the per-install token in ``$XDG_STATE_HOME/tether/serve.token`` (made on first use, 0600, read
by the clients on the same machine), or your own
(``--token``, better the ``TETHER_SERVE_TOKEN`` environment variable, or ``serve.token``), which
any address other than loopback requires.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from tether.cli._common import add_config_arguments

EPILOG = """\
routes:
  POST /hook/claude-code | /hook/codex | /hook/gemini   hook event in, the hook's reply out
  POST /v1/before_call | /v1/after_call | /v1/classify  the library's JSON API
  POST /v1/user_message                                 a new user turn for a session
  GET  /health                                          "alive"; with the token, the details

examples:
  tether serve                                 # http://127.0.0.1:8765, loopback, token required
  TETHER_SERVE_TOKEN=$(openssl rand -hex 16) tether serve --host 0.0.0.0
  curl -s localhost:8765/health               # "alive"; details need the token:
  curl -s -H "Authorization: Bearer $(cat ~/.local/state/tether/serve.token)" localhost:8765/health

Requests from web pages (Origin, Sec-Fetch-Site), with a Host that is not loopback, or POSTs
that are not application/json are refused; hook routes answer them with the host's deny.
"""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add --host, --port, --token, --max-body, --lock and --set."""
    parser.epilog = EPILOG
    parser.add_argument("--host", help="address to bind (default: serve.host, else 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, help="port (default: serve.port, else 8765; 0 picks a free one)"
    )
    parser.add_argument(
        "--token",
        help="require 'Authorization: Bearer TOKEN' on every request (prefer the "
        "TETHER_SERVE_TOKEN environment variable: arguments are visible to other users)",
    )
    parser.add_argument(
        "--max-body", type=int, metavar="BYTES", help="largest request body accepted (32 MiB)"
    )
    parser.add_argument(
        "--lock",
        choices=("session", "global"),
        default="session",
        help="serialise guard calls per session (default) or all of them",
    )
    add_config_arguments(parser)


def run(args: argparse.Namespace, name: str) -> int:
    """Start the service and serve until a signal; return the exit status."""
    from tether.config import load_config
    from tether.serve import options as opts
    from tether.serve.server import SidecarServer, serve_until_signal
    from tether.serve.service import Service

    overrides = tuple(getattr(args, "config_overrides", None) or ())
    config = load_config(overrides=overrides)
    options = opts.resolve(
        config,
        os.environ,
        host=args.host,
        port=args.port,
        token=args.token,
        max_body=args.max_body,
        lock=args.lock,
        overrides=overrides,
    )
    service = Service(options)
    try:
        server = SidecarServer(service, options)
    except OSError as exc:
        service.close()
        sys.stderr.write(
            f"tether serve: cannot listen on {options.host}:{options.port}: {exc.strerror or exc}"
            "; is another tether serve running? pick another --port\n"
        )
        return 2
    return serve_until_signal(server)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tether serve`` with ``argv`` (for ``python -m tether.serve``)."""
    from tether.cli import main as cli_main

    return cli_main(["serve", *(sys.argv[1:] if argv is None else argv)])
