"""Where ``tether serve`` listens and who may talk to it: bind address, port, token, limits.

The service answers "may this run?" for every agent on the machine, so a stranger who can reach
it could read session state through the decisions or fill the store. It therefore binds to
loopback by default and refuses any other address unless a bearer token is configured. Every
request must carry ``Authorization: Bearer <token>``, loopback or not: without a configured
token, the per-install one from ``tether.serve.token`` (made on first use, mode 0600).

Settings come from, highest first: the command line, the environment (``TETHER_SERVE_TOKEN``)
and the config keys ``serve.host``, ``serve.port`` and ``serve.token``.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tether.errors import InputError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
TOKEN_ENV = "TETHER_SERVE_TOKEN"
# The same cap as the command hook (tether.hosts.runner.MAX_INPUT): a PostToolUse event carries
# the tool's whole output, so the cap must be generous, but it must exist.
DEFAULT_MAX_BODY = 32 * 1024 * 1024
LOCKS = ("session", "global")


@dataclass(frozen=True, slots=True)
class Options:
    """How the service listens and serialises guard calls."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token: str = ""
    max_body: int = DEFAULT_MAX_BODY
    lock: str = "session"  # "session": one session's events in order; "global": one at a time
    overrides: tuple[str, ...] = ()  # --set KEY=VALUE, applied to every config the service loads


def config_value(config: Any, key: str, default: Any) -> Any:
    """Return ``config.get(key)``, or ``default`` when there is no config."""
    if config is None:
        return default
    value = config.get(key)
    return default if value is None else value


def resolve(
    config: Any,
    environ: Mapping[str, str],
    *,
    host: str | None = None,
    port: int | None = None,
    token: str | None = None,
    max_body: int | None = None,
    lock: str = "session",
    overrides: tuple[str, ...] = (),
) -> Options:
    """Merge command-line values over the environment and config; check them; return Options."""
    chosen_host = host or str(config_value(config, "serve.host", DEFAULT_HOST)) or DEFAULT_HOST
    raw_port = port if port is not None else config_value(config, "serve.port", DEFAULT_PORT)
    if isinstance(raw_port, bool) or not isinstance(raw_port, int) or not 0 <= raw_port <= 65535:
        raise InputError(f"serve port: expected an integer from 0 to 65535, got {raw_port!r}")
    chosen_token = token if token is not None else environ.get(TOKEN_ENV, "")
    if not chosen_token:
        chosen_token = str(config_value(config, "serve.token", "") or "")
    if chosen_token != chosen_token.strip() or any(c in chosen_token for c in "\r\n"):
        raise InputError(
            "serve token: it must not contain spaces at either end or line breaks "
            "(it travels in an HTTP header); choose another token"
        )
    cap = DEFAULT_MAX_BODY if max_body is None else max_body
    if cap < 1024:
        raise InputError(f"--max-body: expected at least 1024 bytes, got {cap}")
    if lock not in LOCKS:
        raise InputError(f"--lock: expected one of {', '.join(LOCKS)}, got {lock!r}")
    options = Options(chosen_host, int(raw_port), chosen_token, cap, lock, overrides)
    check_bind(options)  # beyond loopback the token must be one the user chose to share
    if not chosen_token:
        from tether.serve.token import load_or_create

        options = Options(chosen_host, int(raw_port), load_or_create(environ), cap, lock, overrides)
    return options


def is_loopback(host: str) -> bool:
    """Return whether every address ``host`` resolves to is a loopback address."""
    name = host.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
    except OSError:
        return False
    addresses = {str(info[4][0]) for info in infos}
    return bool(addresses) and all(
        ipaddress.ip_address(a.split("%", 1)[0]).is_loopback for a in addresses
    )


def check_bind(options: Options) -> None:
    """Raise InputError when ``options`` would listen beyond loopback without a token."""
    if options.token or is_loopback(options.host):
        return
    raise InputError(
        f"refusing to listen on {options.host!r}: it is not a loopback address, and without a "
        "token anyone who can reach it could drive your agents' guard. Bind to 127.0.0.1 "
        f"(the default), or set a token (--token, the {TOKEN_ENV} environment variable or "
        "serve.token) that every request must then send as 'Authorization: Bearer <token>'"
    )


__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_MAX_BODY",
    "DEFAULT_PORT",
    "LOCKS",
    "TOKEN_ENV",
    "Options",
    "check_bind",
    "config_value",
    "is_loopback",
    "resolve",
]
