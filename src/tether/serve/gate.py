"""Which requests the sidecar refuses before any route runs: browsers and foreign host names.

A web page the user visits can make the browser send requests to ``127.0.0.1``: a "simple"
cross-origin ``POST`` with ``Content-Type: text/plain`` needs no preflight, and a DNS-rebinding
page does it under its own host name. So, on every route:

* the ``Host`` header must name loopback (``localhost``, ``127.x.x.x``, ``[::1]``) with the
  port the server listens on, when it listens on loopback (a rebinding page's requests carry
  the attacker's name); on another address the token is what keeps strangers out;
* a request carrying ``Origin`` or ``Sec-Fetch-Site`` comes from a browser (every current
  browser sends ``Sec-Fetch-Site`` on every request, older ones ``Origin`` on every
  cross-origin ``POST``) and is refused. ``Sec-Fetch-Mode`` alone is not a browser: Node's
  built-in ``fetch`` sends ``sec-fetch-mode: cors`` on every request (nodejs/undici#1305),
  so only the modes a browser page uses (``navigate``, ``no-cors``, ``same-origin``,
  ``websocket``) are refused;
* a ``POST`` must say ``Content-Type: application/json``, which a page cannot send
  cross-origin without a preflight that this server never answers.
"""

from __future__ import annotations

import ipaddress
from email.message import Message

BROWSER_MODES = ("navigate", "no-cors", "same-origin", "websocket")
JSON = "application/json"


def loopback_name(name: str) -> bool:
    """Return whether ``name`` (a Host header's host part) is a loopback name or address."""
    name = name.lower().rstrip(".")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def split_host(value: str) -> tuple[str, int | None]:
    """Return the host and port of a ``Host`` header value (port None when absent or bad)."""
    value = value.strip()
    if value.startswith("["):
        host, _, rest = value.partition("]")
        host += "]"
        port = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port = value.rpartition(":") if ":" in value else (value, "", "")
    return host, int(port) if port.isdigit() else None


def host_problem(value: str | None, port: int) -> str:
    """Return why a ``Host`` header is refused on a loopback server, or ''."""
    if not value:
        return "the request has no Host header"
    host, given = split_host(value)
    if not loopback_name(host):
        return (
            f"Host {value!r} is not a loopback name (a DNS-rebinding page sends its own); "
            f"use http://127.0.0.1:{port} or http://localhost:{port}"
        )
    if given != port:
        return f"Host {value!r} does not name this server's port {port}"
    return ""


def browser_problem(headers: Message) -> str:
    """Return why a request looks like it comes from a web page, or ''."""
    origin = headers.get("Origin")
    if origin is not None:
        return f"requests from web pages are refused (Origin: {origin[:80]!r})"
    site = headers.get("Sec-Fetch-Site")
    if site is not None:
        return f"requests from web pages are refused (Sec-Fetch-Site: {site[:40]!r})"
    mode = (headers.get("Sec-Fetch-Mode") or "").strip().lower()
    if mode in BROWSER_MODES:
        return f"requests from web pages are refused (Sec-Fetch-Mode: {mode!r})"
    return ""


def content_type_problem(headers: Message) -> str:
    """Return why a ``POST`` body's declared type is refused, or ''."""
    raw = headers.get("Content-Type")
    kind = (raw or "").split(";", 1)[0].strip().lower()
    if kind == JSON:
        return ""
    shown = "no Content-Type" if raw is None else f"Content-Type {raw[:80]!r}"
    return f"expected 'Content-Type: {JSON}' on a POST, got {shown}"


def problem(headers: Message, method: str, port: int, loopback: bool) -> str:
    """Return why the sidecar refuses this request before routing it, or ''."""
    if loopback:
        found = host_problem(headers.get("Host"), port)
        if found:
            return found
    found = browser_problem(headers)
    if not found and method == "POST":
        found = content_type_problem(headers)
    return found


__all__ = [
    "BROWSER_MODES",
    "browser_problem",
    "content_type_problem",
    "host_problem",
    "loopback_name",
    "problem",
    "split_host",
]
