"""Credentials out of stored and shown text: one function for every preview and piece of evidence.

The short form of a call (``curl -H 'Authorization: Bearer sk-…' …``) is kept in the session's
state for loop messages and ``tether session show``; the state database is a plain file, and a
message quotes the preview back to the model. ``redact`` replaces each secret with ``***``,
keeping what tells the calls apart (the scheme, the key name, the user of a URL):

* ``Authorization: Bearer …`` / ``Basic …`` / ``token …``, any ``Bearer <token>``;
* API keys by shape: ``sk-…`` (OpenAI, Anthropic), ``ghp_``/``gho_``/``ghs_``/``ghu_``/
  ``ghr_``/``github_pat_…``, ``xox?-…`` (Slack), ``AKIA…``/``ASIA…`` (AWS key ids),
  ``glpat-…`` (GitLab), ``AIza…`` (Google), JSON web tokens ``eyJ….….…``;
* a URL's password ``https://user:***@host``;
* ``--password=…``/``--password …``, ``--token``, ``--secret``, ``--api-key`` and the like,
  ``PASSWORD=…``/``*_TOKEN=…``/``*_SECRET=…``/``*_KEY=…`` assignments (AWS secret keys
  included), ``X-Api-Key:``/``Private-Token:`` headers, and ``mysql -p…``;
* passwords given to a program's own option: ``curl -u user:…`` (``--user``, ``--proxy-user``),
  ``sshpass -p …``, ``redis-cli -a …`` (``--pass``);
* more keys by shape: Stripe ``sk_live_``/``rk_live_``/``sk_test_``/``whsec_…``, Hugging Face
  ``hf_…``, npm ``npm_…``, PyPI ``pypi-…``, Slack webhooks
  ``https://hooks.slack.com/services/…``, PEM private keys (``-----BEGIN … PRIVATE KEY-----``
  to its end, or to the end of the text when cut), any header whose name says token, key,
  secret, auth, cookie or session (``X-Vault-Token:``, ``Cookie:``);
* JSON fields whose name says password, secret, token, key or credential
  (``"password": "…"``, ``"api_key": "…"``), as a tool's arguments are previewed.

The patterns are compiled on first use and only when a cheap substring test finds a hint.
"""

from __future__ import annotations

import re
from typing import Any

MASK = "***"
# Lower-case substrings at least one of which is in any text a pattern below can match.
_HINTS = (
    "bearer", "basic ", "token", "sk-", "ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_",
    "xox", "akia", "asia", "glpat-", "aiza", "eyj", "://", "pass", "secret", "key", "mysql",
    "auth", "aws_", "curl", "-u", "--user", "sshpass", "redis-cli", "sk_", "rk_", "whsec_",
    "hf_", "npm_", "pypi-", "cookie", "session", "credential",
)  # fmt: skip

_PATTERN = r"""
  (?P<pem>-----BEGIN[ A-Z0-9]*PRIVATE[ ]KEY-----)(?:(?!-----END).)*
    (?:-----END[ A-Z0-9]*PRIVATE[ ]KEY-----)?
| (?P<slack>\bhttps?://hooks\.slack\.com/(?:services|workflows|triggers)/)[^\s"'<>]+
| (?P<json>"[A-Za-z0-9_.-]*
    (?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key
       |credential|client[_-]?secret|auth)
    [A-Za-z0-9_.-]*\\?"\s*:\s*\\?")(?:[^"\\]|\\.)+
| (?P<userpass>(?:\bcurl\b|\bwget\b|\bhttp\b)[^|;&\n]*?\s(?:-u|--user|--proxy-user|-U)(?:=|\s*))
    (?:'[^':]*:[^']*'?|"[^":]*:[^"]*"?|[^\s:"']*:[^\s"';&|]+)
| (?P<sshpass>\bsshpass\b[^|;&\n]*?\s-p\s*)(?:'[^']*'?|"[^"]*"?|[^\s"';&|]+)
| (?P<rediscli>\bredis-cli\b[^|;&\n]*?\s(?:-a\s*|--pass[= ]\s*))
    (?:'[^']*'?|"[^"]*"?|[^\s"';&|]+)
| \b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}
| \bwhsec_[A-Za-z0-9]{16,}
| \bhf_[A-Za-z0-9]{20,}
| \bnpm_[A-Za-z0-9]{30,}
| \bpypi-[A-Za-z0-9_-]{40,}
| (?P<auth>\b(?:authorization|proxy-authorization)\s*[:=]\s*["']?
    (?:bearer|basic|token|digest)\s+)[^\s"';&|]+
| (?P<bearer>\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}
| (?P<key>\b(?:sk-(?:ant-|proj-)?|gh[pousr]_|github_pat_|xox[abposr]-|glpat-))[A-Za-z0-9_-]{8,}
| \b(?:AKIA|ASIA)[A-Z0-9]{16}\b
| \bAIza[0-9A-Za-z_-]{30,}
| \beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}
| (?P<url>\b[a-z][a-z0-9+.-]*://[^\s/:@'"]*:)[^\s/@'"]+(?=@)
| (?P<flag>--?(?:[a-z0-9]+-)*
    (?:password|passwd|pass|token|secret|api-key|apikey|access-key|secret-key|auth-token)
    (?:=|\s+)["']?)[^\s"';&|]+
| (?P<var>\b[A-Za-z0-9_]*
    (?:PASSWORD|PASSWD|TOKEN|SECRET|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY)
    [A-Za-z0-9_]*\s*[=:]\s*["']?)[^\s"';&|]+
| (?P<awscli>\baws_(?:secret_access_key|session_token)\s+)[^\s"';&|]+
| (?P<header>\b(?:x-api-key|api-key|x-auth-token|private-token|x-access-token)\s*:\s*)[^\s"';&|]+
| (?P<anyheader>(?<=['"])[A-Za-z0-9-]*(?:token|api-?key|secret|auth|cookie|session)[A-Za-z0-9-]*
    :[ ]?)(?=[^\s"';&|])[^"'\n]+
| (?P<bareheader>(?:(?<=-H)|(?<=-H[ ])|(?<=--header[ =]))
    [A-Za-z0-9-]*(?:token|api-?key|secret|auth|cookie|session)[A-Za-z0-9-]*:[ ]?)[^\s"';&|]+
| (?P<mysql>\bmysql(?:dump|admin|sh)?\b[^|;&\n]*?\s-p)(?=[^\s])[^\s"';&|]+
"""
_compiled: re.Pattern[str] | None = None


def _regex() -> re.Pattern[str]:
    global _compiled
    if _compiled is None:
        _compiled = re.compile(_PATTERN, re.IGNORECASE | re.VERBOSE | re.DOTALL)
    return _compiled


_KEPT = (
    "pem", "slack", "json", "userpass", "sshpass", "rediscli", "auth", "bearer", "key", "url",
    "flag", "var", "awscli", "header", "anyheader", "bareheader", "mysql",
)  # fmt: skip


def _mask(match: re.Match[str]) -> str:
    for group in _KEPT:
        kept = match.group(group)
        if kept is not None:
            return kept + MASK
    return MASK


def redact(text: str) -> str:
    """Return ``text`` with credentials replaced by ``***``."""
    lowered = text.lower()
    if not any(hint in lowered for hint in _HINTS):
        return text
    return _regex().sub(_mask, text)


def redact_value(value: Any) -> Any:
    """Return ``value`` (JSON-like) with every string in it redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return value


__all__ = ["MASK", "redact", "redact_value"]
