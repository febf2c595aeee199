"""``tether serve``: a long-lived local HTTP service that answers hook events and the JSON API.

A hook process per tool call pays a Python start each time; the sidecar pays it once. It takes
the hosts' hook JSON at ``POST /hook/<host>`` (for forwarders; ``tether install claude-code
--http`` is retired, see ``tether.serve.install``) and the library's JSON API at ``/v1/…``,
shares its Guards and stores across sessions (a hook route's Guard is the hook's own), listens
on loopback unless a token is set, and fails closed like the hook.
Standard library only: ``http.server.ThreadingHTTPServer``.
"""

from __future__ import annotations

from tether.serve.options import Options, check_bind, is_loopback, resolve
from tether.serve.server import SidecarServer, serve_until_signal
from tether.serve.service import Service

__all__ = [
    "Options",
    "Service",
    "SidecarServer",
    "check_bind",
    "is_loopback",
    "resolve",
    "serve_until_signal",
]
