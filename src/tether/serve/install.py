"""Claude Code ``type: "http"`` hook entries for the sidecar, a command fallback, and their check.

``tether install claude-code --http`` puts two handlers in each of Tether's matcher groups:

* an HTTP handler posting the event to ``tether serve`` (about a millisecond per call), with
  ``Authorization: Bearer <the per-install token>`` (``tether.serve.token``, the same file
  ``tether serve`` reads), or ``Bearer $TETHER_SERVE_TOKEN`` when that variable is set at
  install (Claude Code fills it from its environment: it is listed in ``allowedEnvVars``);
* a command handler that is the fallback: ``curl`` asks the service's ``/health`` (which
  answers "alive" without the token) and, only when the service does not answer, ``exec``\\ s
  the ordinary ``tether hook claude-code``.

Claude Code runs every matching handler in parallel, so the fallback must do nothing while the
service is up (a second decision would count every call twice in the loop detectors); it costs
one ``curl`` process instead of a Python start. The HTTP handlers carry no ``onFailure: block``:
when the service is down the fallback decides, and the fallback's own PreToolUse entry keeps
``onFailure: block`` from the command-hook installer. Entries are recognised by their URL path
(``/hook/claude-code``) and the fallback's shape, so uninstall takes out exactly these.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tether.errors import InputError
from tether.hosts import settings
from tether.serve.options import DEFAULT_HOST, DEFAULT_PORT, TOKEN_ENV, config_value

HOST = "claude-code"  # the only host with HTTP hooks
HOOK_PATH = f"/hook/{HOST}"
FALLBACK_JOIN = " || exec "


def base_url(url: str | None, config: Any = None) -> str:
    """Return the service's base URL: ``url``, else ``http://serve.host:serve.port``."""
    if not url:
        host = str(config_value(config, "serve.host", DEFAULT_HOST)) or DEFAULT_HOST
        if host in ("0.0.0.0", "::", "[::]"):  # listening everywhere: talk to it on loopback
            host = DEFAULT_HOST
        port = config_value(config, "serve.port", DEFAULT_PORT)
        url = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"--url: expected http://HOST:PORT of a tether serve, got {url!r}")
    return url.rstrip("/")


def hook_url(base: str) -> str:
    """Return the URL Claude Code posts its events to."""
    return base + HOOK_PATH


def fallback_command(base: str, command: str) -> str:
    """Return the command handler that runs ``command`` only when the service is down."""
    health = shlex.quote(base + "/health")
    check = f"curl -sf -m 2 -o /dev/null {health}"  # liveness needs no token (none in argv)
    return check + FALLBACK_JOIN + command


def handlers(event: str, base: str, command: str, token: str = "") -> list[dict[str, Any]]:
    """Return Tether's two handlers for ``event``: the HTTP hook and its command fallback.

    ``token`` is written into the handler's header; without it the header names
    ``$TETHER_SERVE_TOKEN``, which Claude Code fills from its environment.
    """
    http: dict[str, Any] = {
        "type": "http",
        "url": hook_url(base),
        "timeout": settings.HOST_TIMEOUT,
        "headers": {"Authorization": f"Bearer {token or '$' + TOKEN_ENV}"},
    }
    if not token:
        http["allowedEnvVars"] = [TOKEN_ENV]
    return [http, settings.handler(HOST, event, fallback_command(base, command))]


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


def merge_http(
    current: Mapping[str, Any], base: str, command: str, path: Path, token: str = ""
) -> settings.Change:
    """Return ``current`` with Tether's HTTP entries (and fallbacks) in place of its commands."""
    before = copy.deepcopy(dict(current))
    after, _ = _strip(settings.remove(current, HOST, path).after)
    hooks = after.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InputError(f"{path}: 'hooks' must be an object, found {type(hooks).__name__}")
    for event, matcher in settings.install_events(HOST).items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InputError(
                f"{path}: 'hooks.{event}' must be a list, found {type(groups).__name__}"
            )
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = handlers(event, base, command, token)
        groups.append(group)
    old = before.get("hooks") if isinstance(before.get("hooks"), dict) else {}
    touched = tuple(e for e in hooks if not isinstance(old, dict) or old.get(e) != hooks[e])
    return settings.Change(path, before, after, touched)


def adjust(
    change: settings.Change,
    current: Mapping[str, Any],
    command: str | None,
    path: Path,
    *,
    http: bool,
    url: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[settings.Change, dict[str, Any] | None, str]:
    """Turn the installer's Claude Code change into the ``--http`` one, or strip HTTP entries.

    ``change`` is what ``settings.merge`` (install, ``command`` set) or ``settings.remove``
    (uninstall, ``command`` None) computed. Returns the change to write, what to add to the
    report (None without ``--http``) and a note for the user.
    """
    if command is None or not http:
        return without_http(change), None, ""
    env = os.environ if environ is None else environ
    config = None
    try:
        from tether.config import load_config

        config = load_config(environ=env)
    except Exception:  # the installer must not depend on a valid config; defaults will do
        config = None
    base = base_url(url, config)
    from tether.serve.token import load_or_create

    token = env.get(TOKEN_ENV, "") or str(config_value(config, "serve.token", "") or "")
    literal = "" if env.get(TOKEN_ENV) else token or load_or_create(env)
    new = merge_http(current, base, command, path, literal)
    try:
        doc = health(base, token or literal)
    except OSError as exc:
        up = False
        note = (
            f"the sidecar at {base} does not answer yet ({exc}); start it with `tether serve` "
            "(until then the command fallback decides every call, at a Python start each)"
        )
    else:
        up = True
        note = f"the sidecar at {base} answers: tether {doc.get('version')}"
    note += (
        f"\nClaude Code posts every event to {hook_url(base)}; the fallback handler asks "
        f"{base}/health with curl and runs `{command}` only when the service does not answer"
    )
    if literal and not token:  # the per-install token, not one from serve.token
        from tether.serve.token import token_path

        note += (
            f"\nthe HTTP handlers send the token in {token_path(env)} (tether serve reads the "
            f"same file): keep {path} private, it now holds that token"
        )
    return new, {"url": hook_url(base), "service": "up" if up else "down"}, note


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


def health(base: str, token: str = "", timeout: float = 3.0) -> dict[str, Any]:
    """Return the service's ``/health`` document; raise OSError when it does not answer."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    req = urllib.request.Request(base + "/health", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            doc = json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        raise OSError(f"HTTP {exc.code} from {base}/health: {exc.read()[:200]!r}") from None
    except ValueError as exc:
        raise OSError(f"{base}/health did not answer JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("service") != "tether":
        raise OSError(f"{base}/health is not a tether serve")
    return doc


def post_event(url: str, body: str, token: str = "", timeout: float = 10.0) -> str:
    """POST one hook event to ``url``; return the body (raise OSError on a non-200 answer)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=body.encode(), headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            text: str = resp.read().decode("utf-8", "replace")
            return text
    except urllib.error.HTTPError as exc:
        raise OSError(f"HTTP {exc.code} from {url}") from None


def sent_token(current: Mapping[str, Any], url: str, env_token: str = "") -> str:
    """Return the token Claude Code sends to ``url`` (``$TETHER_SERVE_TOKEN`` filled in)."""
    hooks = current.get("hooks")
    for groups in hooks.values() if isinstance(hooks, Mapping) else []:
        for group in groups if isinstance(groups, list) else []:
            inner = group.get("hooks") if isinstance(group, Mapping) else None
            for h in inner if isinstance(inner, list) else []:
                if is_http_entry(h) and h["url"] == url:
                    headers = h.get("headers")
                    value = headers.get("Authorization", "") if isinstance(headers, Mapping) else ""
                    given = str(value).partition(" ")[2].strip()
                    return env_token if given == "$" + TOKEN_ENV else given
    return env_token


def check(
    current: Mapping[str, Any], cwd: Path, session: str, token: str = ""
) -> list[tuple[str, str, str]]:
    """Return ``(status, message, fix)`` lines for ``tether doctor`` about the HTTP entries."""
    from tether.hosts import adapter, probe
    from tether.hosts.events import Reply

    lines: list[tuple[str, str, str]] = []
    for url in installed_urls(current):
        base = url[: -len(HOOK_PATH)] if url.endswith(HOOK_PATH) else url
        token = sent_token(current, url, token)
        try:
            doc = health(base, token)
        except OSError as exc:
            lines.append(
                (
                    "warn",
                    f"sidecar {base} does not answer ({exc}); the command fallback decides "
                    "meanwhile, at a Python start per call",
                    "start it with `tether serve` (and keep it running, e.g. as a user service)",
                )
            )
            continue
        if "version" not in doc:  # the liveness answer: the service refused the token
            lines.append(
                (
                    "fail",
                    f"sidecar {base} refuses the token the HTTP hooks send, so it denies every "
                    "call",
                    "run `tether install claude-code --http` again (it writes the token "
                    "`tether serve` uses), or set the same TETHER_SERVE_TOKEN for both",
                )
            )
            continue
        store = doc.get("store", {})
        lines.append(
            (
                "ok",
                f"sidecar {base}: tether {doc.get('version')}, up {doc.get('uptime_s')} s, "
                f"{store.get('backend')} store {store.get('location', '')}".rstrip(),
                "",
            )
        )
        for sample in probe.samples(HOST, session, cwd):
            want = "denied" if sample.expect == "deny" else "not denied"
            try:
                seen = adapter(HOST).verdict(Reply(post_event(url, sample.stdin, token)))
            except OSError as exc:
                seen = f"error ({exc})"
            ok = (seen == "deny") if sample.expect == "deny" else seen in ("allow", "warn", "ask")
            if ok:
                lines.append(("ok", f"{sample.label} is {want} over HTTP ({seen})", ""))
            else:
                lines.append(
                    (
                        "fail",
                        f"{sample.label} should be {want} over HTTP but was {seen}",
                        f"check `curl -s {base}/health` and the service's output",
                    )
                )
    return lines


__all__ = [
    "FALLBACK_JOIN",
    "HOOK_PATH",
    "adjust",
    "base_url",
    "check",
    "fallback_command",
    "handlers",
    "health",
    "hook_url",
    "installed_urls",
    "is_fallback",
    "is_http_entry",
    "merge_http",
    "post_event",
    "sent_token",
    "without_http",
]
