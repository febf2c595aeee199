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

# The patterns, each with lower-case substrings one of which is in any text it can match (on
# ASCII text, where lower-casing is exactly the patterns' case-insensitivity): a text is matched
# against the patterns its hints select, in this order, which finds what all of them would.
_BRANCHES: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        ("key",),
        r"""(?P<pem>-----BEGIN[ A-Z0-9]*PRIVATE[ ]KEY-----)(?:(?!-----END).)*
        (?:-----END[ A-Z0-9]*PRIVATE[ ]KEY-----)?""",
    ),
    (
        ("://",),
        r"""(?P<slack>\bhttps?://hooks\.slack\.com/(?:services|workflows|triggers)/)
        [^\s"'<>]+""",
    ),
    (
        ("pass", "secret", "token", "key", "credential", "auth"),
        r"""(?P<json>"[A-Za-z0-9_.-]*
        (?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key
           |private[_-]?key|credential|client[_-]?secret|auth)
        [A-Za-z0-9_.-]*\\?"\s*:\s*\\?")(?:[^"\\]|\\.)+""",
    ),
    (
        ("-u",),
        r"""(?P<userpass>(?:\bcurl\b|\bwget\b|\bhttp\b)[^|;&\n]*?\s
        (?:-u|--user|--proxy-user|-U)(?:=|\s*))
        (?:'[^':]*:[^']*'?|"[^":]*:[^"]*"?|[^\s:"']*:[^\s"';&|]+)""",
    ),
    (
        ("sshpass",),
        r"""(?P<sshpass>\bsshpass\b[^|;&\n]*?\s-p\s*)(?:'[^']*'?|"[^"]*"?|[^\s"';&|]+)""",
    ),
    (
        ("redis-cli",),
        r"""(?P<rediscli>\bredis-cli\b[^|;&\n]*?\s(?:-a\s*|--pass[= ]\s*))
        (?:'[^']*'?|"[^"]*"?|[^\s"';&|]+)""",
    ),
    (("_live_", "_test_"), r"""\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}"""),
    (("whsec_",), r"""\bwhsec_[A-Za-z0-9]{16,}"""),
    (("hf_",), r"""\bhf_[A-Za-z0-9]{20,}"""),
    (("npm_",), r"""\bnpm_[A-Za-z0-9]{30,}"""),
    (("pypi-",), r"""\bpypi-[A-Za-z0-9_-]{40,}"""),
    (
        ("authorization",),
        r"""(?P<auth>\b(?:authorization|proxy-authorization)\s*[:=]\s*["']?
        (?:bearer|basic|token|digest)\s+)[^\s"';&|]+""",
    ),
    (("bearer",), r"""(?P<bearer>\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}"""),
    (
        ("sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "glpat-"),
        r"""(?P<key>\b(?:sk-(?:ant-|proj-)?|gh[pousr]_|github_pat_|xox[abposr]-|glpat-))
        [A-Za-z0-9_-]{8,}""",
    ),
    (("akia", "asia"), r"""\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"""),
    (("aiza",), r"""\bAIza[0-9A-Za-z_-]{30,}"""),
    (("eyj",), r"""\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"""),
    (("://",), r"""(?P<url>\b[a-z][a-z0-9+.-]*://[^\s/:@'"]*:)[^\s/@'"]+(?=@)"""),
    (
        ("pass", "token", "secret", "key"),
        r"""(?P<flag>--?(?:[a-z0-9]+-)*
        (?:password|passwd|pass|token|secret|api-key|apikey|access-key|secret-key|auth-token)
        (?:=|\s+)["']?)[^\s"';&|]+""",
    ),
    (
        ("pass", "token", "secret", "key"),
        r"""(?P<var>\b[A-Za-z0-9_]*
        (?:PASSWORD|PASSWD|TOKEN|SECRET|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY)
        [A-Za-z0-9_]*\s*[=:]\s*["']?)[^\s"';&|]+""",
    ),
    (("aws_",), r"""(?P<awscli>\baws_(?:secret_access_key|session_token)\s+)[^\s"';&|]+"""),
    (
        ("key", "token"),
        r"""(?P<header>\b(?:x-api-key|api-key|x-auth-token|private-token
        |x-access-token)\s*:\s*)[^\s"';&|]+""",
    ),
    (
        ("token", "key", "secret", "auth", "cookie", "session"),
        r"""(?P<anyheader>(?<=['"])
        [A-Za-z0-9-]*(?:token|api-?key|secret|auth|cookie|session)[A-Za-z0-9-]*
        :[ ]?)(?=[^\s"';&|])[^"'\n]+""",
    ),
    (
        ("token", "key", "secret", "auth", "cookie", "session"),
        r"""(?P<bareheader>
        (?:(?<=-H)|(?<=-H[ ])|(?<=--header[ =]))
        [A-Za-z0-9-]*(?:token|api-?key|secret|auth|cookie|session)[A-Za-z0-9-]*:[ ]?)
        [^\s"';&|]+""",
    ),
    (("mysql",), r"""(?P<mysql>\bmysql(?:dump|admin|sh)?\b[^|;&\n]*?\s-p)(?=[^\s])[^\s"';&|]+"""),
)
_FLAGS = re.IGNORECASE | re.VERBOSE | re.DOTALL
# Every hint, and the branches each one selects.
_SELECTS: dict[str, int] = {}
for _n, (_hints, _) in enumerate(_BRANCHES):
    for _hint in _hints:
        _SELECTS[_hint] = _SELECTS.get(_hint, 0) | 1 << _n
_ALL = (1 << len(_BRANCHES)) - 1
_compiled: dict[int, re.Pattern[str]] = {}  # by the bit set of branches it joins


def _regex(branches: int = _ALL) -> re.Pattern[str]:
    found = _compiled.get(branches)
    if found is None:
        if len(_compiled) >= 256:  # bounded: a few combinations occur in practice
            _compiled.clear()
        joined = "|".join(b for n, (_, b) in enumerate(_BRANCHES) if branches >> n & 1)
        found = _compiled[branches] = re.compile(joined, _FLAGS)
    return found


def _mask(match: re.Match[str]) -> str:
    # At most one named group takes part in a match (each starts its own branch): it is what
    # tells the calls apart, kept before the mask.
    for kept in match.groupdict().values():
        if kept is not None:
            return kept + MASK
    return MASK


def redact(text: str) -> str:
    """Return ``text`` with credentials replaced by ``***``."""
    lowered = text.lower()
    if not any(hint in lowered for hint in _HINTS):
        return text
    if not text.isascii():  # lower-casing is not the patterns' case-folding there: all of them
        return _regex().sub(_mask, text)
    branches = 0
    for hint, selects in _SELECTS.items():
        if hint in lowered:
            branches |= selects
    return _regex(branches).sub(_mask, text) if branches else text


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
