"""``python -m tether.mcp_proxy -- UPSTREAM_COMMAND ARGS…``: the same as ``tether mcp-proxy``."""

from __future__ import annotations

import sys

from tether.cli import main

if __name__ == "__main__":
    sys.exit(main(["mcp-proxy", *sys.argv[1:]]))
