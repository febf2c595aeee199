"""Claude Code's retired ``--http`` install: why, and its old entries found and removed.

``tether install claude-code --http`` used to put two handlers in each of Tether's matcher
groups: a ``type: "http"`` handler posting the event to ``tether serve``, and a command fallback
(``curl -sf -m 2 …/health || exec tether hook claude-code``) for when the service is down. Run
inside the real Claude Code (``benchmarks/bench_stalled_sidecar.py``) that install was unsound:

* Claude Code runs every matching handler in parallel, so the fallback's ``sh`` + ``curl`` ran
  beside the HTTP hook on every event (24–60 ms each) and Claude Code waited for both;
* a stalled sidecar (alive, not answering) made every event wait the handler's full 30 s, the
  fallback decided meanwhile, and the sidecar, once going again, recorded the abandoned
  requests a second time;
* without the fallback a stopped sidecar fails open on Claude Code before 2.1.295, which
  ignores ``onFailure: "block"``.

The command hook ``tether install`` writes is the daemon's forwarder (``tether.daemon.hook``:
builtins and ``_socket``, cheaper than ``python -c pass``), which fails closed on every version.
So ``--http`` now installs that command hook and says why (``RETIRED``); every install and
uninstall takes out the old HTTP entries and fallbacks, recognised by their URL path
(``/hook/claude-code``) and the fallback's shape, and ``tether doctor`` warns where they remain.
``tether serve`` itself, its ``/hook/HOST`` routes and its JSON API are unchanged.
"""

from __future__ import annotations

import copy
import shlex
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from tether.hosts import settings

HOST = "claude-code"  # the only host with HTTP hooks
HOOK_PATH = f"/hook/{HOST}"
FALLBACK_JOIN = " || exec "
RETIRED = (
    "--http is retired for Claude Code: this installs the command hook instead and takes out "
    "any HTTP entries an older --http left. Claude Code ran the HTTP hook's fallback beside it "
    "on every event, a stalled `tether serve` held every event 30 s and then counted the call "
    "twice, and an HTTP hook alone lets calls run while the service is down on Claude Code "
    "before 2.1.295. The command hook relays to Tether's per-user daemon and fails closed on "
    "every version; `tether serve` stays for its JSON API and for forwarders. See "
    "docs/hosts.md#http-hooks."
)


def fallback_command(base: str, command: str) -> str:
    """Return the old fallback handler's command (``command`` only when ``base`` is down)."""
    health = shlex.quote(base + "/health")
    check = f"curl -sf -m 2 -o /dev/null {health}"  # liveness needs no token (none in argv)
    return check + FALLBACK_JOIN + command


def is_http_entry(handler: object) -> bool:
    """Return whether ``handler`` is Tether's HTTP handler (any service address)."""
    if not isinstance(handler, Mapping) or handler.get("type") != "http":
        return False
    url = handler.get("url")
    return isinstance(url, str) and urlsplit(url).path.rstrip("/") == HOOK_PATH


def is_fallback(handler: object) -> bool:
    """Return whether ``handler`` is Tether's curl-then-``tether hook`` fallback."""
    if not isinstance(handler, Mapping):
        return False
    command = handler.get("command")
    if not isinstance(command, str) or not command.startswith("curl "):
        return False
    check, sep, rest = command.partition(FALLBACK_JOIN)
    return bool(sep) and "/health" in check and settings.is_tether_command(rest, HOST)


def _strip(current: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Return ``current`` without Tether's HTTP handlers and fallbacks, and the events touched."""
    after = copy.deepcopy(dict(current))
    hooks = after.get("hooks")
    touched: list[str] = []
    if not isinstance(hooks, dict):
        return after, touched
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept: list[Any] = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                kept.append(group)
                continue
            others = [h for h in inner if not (is_http_entry(h) or is_fallback(h))]
            if len(others) != len(inner) and event not in touched:
                touched.append(event)
            if others:
                kept.append(group if len(others) == len(inner) else {**group, "hooks": others})
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if touched and not hooks:
        del after["hooks"]
    return after, touched


def without_http(change: settings.Change) -> settings.Change:
    """Return ``change`` with Tether's HTTP entries taken out too (uninstall, back to commands)."""
    after, touched = _strip(change.after)
    events = tuple(dict.fromkeys([*change.events, *touched]))
    return settings.Change(change.path, change.before, after, events)


def installed_urls(current: Mapping[str, Any]) -> list[str]:
    """Return the distinct service URLs Tether's HTTP entries post to, in order."""
    urls: list[str] = []
    hooks = current.get("hooks")
    for groups in hooks.values() if isinstance(hooks, Mapping) else []:
        for group in groups if isinstance(groups, list) else []:
            inner = group.get("hooks") if isinstance(group, Mapping) else None
            for h in inner if isinstance(inner, list) else []:
                if is_http_entry(h) and h["url"] not in urls:
                    urls.append(str(h["url"]))
    return urls


def adjust(
    change: settings.Change, *, http: bool
) -> tuple[settings.Change, dict[str, Any] | None, str]:
    """Return the installer's Claude Code ``change`` without old HTTP entries, a report and a note.

    With ``http`` (``--http`` given) the report says the option is retired and the note why;
    the change is the command-hook install either way.
    """
    stripped = without_http(change)
    if not http:
        return stripped, None, ""
    return stripped, {"retired": True, "installed": "command", "note": RETIRED}, RETIRED


__all__ = [
    "FALLBACK_JOIN",
    "HOOK_PATH",
    "RETIRED",
    "adjust",
    "fallback_command",
    "installed_urls",
    "is_fallback",
    "is_http_entry",
    "without_http",
]
