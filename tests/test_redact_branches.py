"""Redaction by the patterns a text's hints select finds exactly what every pattern finds.

``redact`` joins only the patterns whose hint substrings the text holds (a fast path: the whole
alternation costs tens of microseconds per stored preview). Each pattern's hints must be in any
text it matches; here every real command, every shell call of the real sessions and generated
secrets in context are redacted both ways and must come out the same.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from tether import redact as r

SHAPES = [
    "curl -H 'Authorization: Bearer sk-ant-abcdefghijklmnop' https://api.example.com",
    "curl -u admin:hunter22 https://x.example.com/api",
    "mysql -uroot -pS3cret db",
    "export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "git clone https://user:pa55word@github.com/o/r.git",
    "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG",
    "sshpass -p 'pw' ssh host",
    "redis-cli -a s3cret ping",
    '{"api_key": "abc123", "name": "x"}',
    "curl -H 'X-Vault-Token: s.abcdef' https://vault",
    "curl -H X-Api-Key:abcdef https://x",
    "stripe sk_live_abcdefghijklmnop and pk_test_abcdefghijklmnop",
    "hf_abcdefghijklmnopqrstuvwxyz npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
    "https://hooks.slack.com/services/T000/B000/XXXX",
    "token eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4",
    "AKIAIOSFODNN7EXAMPLE AIzaSyA-abcdefghijklmnopqrstuvwxyz012",
    "--password=x --api-key y PASSWORD=z session=abc cookie: q",
]


def _both(text: str) -> tuple[str, str]:
    lowered = text.lower()
    everything = r._regex().sub(r._mask, text) if any(h in lowered for h in r._HINTS) else text
    return r.redact(text), everything


def _texts(corpus_dir: Path) -> list[str]:
    texts = [
        json.loads(line)["command"]
        for line in (corpus_dir / "real" / "commands.jsonl").read_text().splitlines()
    ]
    for path in sorted((corpus_dir / "real" / "trajectories").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            args = json.loads(line).get("args")
            if isinstance(args, dict):
                texts.append(json.dumps(args, ensure_ascii=False))
    return texts


def test_real_commands_and_calls_redact_the_same_both_ways(corpus_dir: Path) -> None:
    texts = _texts(corpus_dir)
    assert len(texts) > 30_000
    masked = 0
    for text in texts:
        fast, everything = _both(text[:320])
        assert fast == everything, text[:320]
        masked += fast != text[:320]
    assert masked > 100  # the corpus holds credentials-like text: the patterns were exercised


def test_secrets_in_context_redact_the_same_both_ways() -> None:
    for a, b in itertools.product(SHAPES, repeat=2):
        for text in (f"{a} && {b}", f"{a}\n{b}", f"echo '{a}' | {b}", a.upper()):
            fast, everything = _both(text)
            assert fast == everything, text
    assert r.redact(SHAPES[0]) != SHAPES[0]
