"""No generated credential, of any shape, reaches any byte of the state directory.

Issue 25 found 14 of 15 credential shapes stored in clear in ``state.db``: ``curl -u``,
``sshpass -p``, ``redis-cli -a``, ``sk_live_``, ``hf_``, ``npm_``, ``pypi-``, Slack webhooks,
PEM keys, JSON ``password``/``api_key`` arguments, token headers. Here hypothesis generates
secrets of every shape, embeds each in a call the way an agent writes it, and drives the hook's
own Guard (``hosts.runner.hook_guard``: held warnings, sticky halts) over a real SQLite store
in WAL mode: the call, its result (which echoes the secret), the same call again until the loop
detectors warn, block and halt (their messages quote the call), a non-shell call with the
secret in its arguments. Then every file of the state directory, the WAL and its index
included, is searched for the secret. The last test does the same through real ``tether hook``
processes.
"""

from __future__ import annotations

import json
import os
import string
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.config import load_config
from tether.hosts.runner import hook_guard
from tether.model import ToolCall, ToolResult
from tether.store.sqlite import SQLiteStore

TETHER = Path(sys.executable).with_name("tether")
ALNUM = string.ascii_letters + string.digits
# A secret must be told from everything else in the database: hashes are lower-case hex, so
# every generated core has an upper-case letter and a digit and is at least 12 characters.
Call = tuple[str, dict[str, Any]]


def _core(alphabet: str, low: int, high: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=low, max_size=high).filter(
        lambda s: any(c.isupper() for c in s) and any(c.isdigit() for c in s)
    )


def _bash(command: str) -> Call:
    return "Bash", {"command": command}


def _pem(body: str) -> str:
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(lines)
        + ("\n-----END OPENSSH PRIVATE KEY-----\n")
    )


# shape -> (the strategy of the secret, how an agent's call carries it)
SHAPES: dict[str, tuple[st.SearchStrategy[str], Callable[[str], Call]]] = {
    "curl -u": (
        _core(ALNUM + "_-.!@%+=", 12, 40),
        lambda s: _bash(f"curl -s -u deploy:{s} https://api.example.com/v1/status"),
    ),
    "curl --user quoted": (
        _core(ALNUM + " _-.", 12, 40).filter(lambda s: s.strip() == s),
        lambda s: _bash(f"curl --user 'deploy:{s}' https://api.example.com/v1/status"),
    ),
    "sshpass -p": (
        _core(ALNUM + "_-.!@%+=", 12, 40),
        lambda s: _bash(f"sshpass -p {s} ssh deploy@build uptime"),
    ),
    "redis-cli -a": (
        _core(ALNUM + "_-.", 12, 40),
        lambda s: _bash(f"redis-cli -h cache -a {s} GET queue:size"),
    ),
    "sk_live_": (_core(ALNUM, 24, 40), lambda s: _bash(f"node charge.js sk_live_{s}")),
    "hf_": (_core(ALNUM, 30, 36), lambda s: _bash(f"python push.py --repo me/m hf_{s}")),
    "npm_": (_core(ALNUM, 36, 36), lambda s: _bash(f"echo npm_{s} | npm login --stdin")),
    "pypi-": (
        _core(ALNUM + "_-", 60, 120),
        lambda s: _bash(f"twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmc{s} dist/*"),
    ),
    "slack webhook": (
        _core(ALNUM, 24, 24),
        lambda s: _bash(
            'curl -X POST -d \'{"text": "done"}\' '
            f"https://hooks.slack.com/services/T024BE7LD/B08CG0XRZ/{s}"
        ),
    ),
    "PEM key, file tool": (
        _core(ALNUM + "+/", 64, 400),
        lambda s: ("Write", {"file_path": "/home/dev/.ssh/id_deploy", "content": _pem(s)}),
    ),
    "PEM key, shell": (
        _core(ALNUM + "+/", 64, 400),
        lambda s: _bash(f"printf '%s' '{_pem(s)}' > ~/.ssh/id_deploy"),
    ),
    "JSON password": (
        _core(ALNUM + "_-.!@%+= ", 12, 40),
        lambda s: ("mcp__db__connect", {"host": "db", "user": "app", "password": s}),
    ),
    "JSON api_key": (
        _core(ALNUM, 20, 48),
        lambda s: ("mcp__search__query", {"q": "weather", "api_key": s}),
    ),
    "token header": (
        _core(ALNUM + "._-", 16, 48),
        lambda s: _bash(f'curl -H "X-Vault-Token: {s}" https://vault:8200/v1/kv/app'),
    ),
    "bearer header": (
        _core(ALNUM + "._-", 16, 48),
        lambda s: _bash(f"curl -H 'Authorization: Bearer {s}' https://api.example.com/v1"),
    ),
    "URL password": (
        _core(ALNUM + "_-.!", 12, 40),
        lambda s: _bash(f"git clone https://bob:{s}@git.example.com/o/r.git"),
    ),
}
SAMPLES = st.sampled_from(sorted(SHAPES)).flatmap(
    lambda shape: st.tuples(st.just(shape), SHAPES[shape][0])
)


def _drive(state_dir: Path, calls: list[Call], secret: str) -> None:
    """Run the hook's Guard over a SQLite store in ``state_dir``: each call and its result,
    four times over (warned, blocked, halted), then a user turn and a sub-agent message."""
    env = {"HOME": str(state_dir / "home"), "XDG_CONFIG_HOME": str(state_dir / "config")}
    config = load_config(
        environ=env,
        use_cache=False,
        overrides=["loops.hard_stop=true", "store.path=" + str(state_dir / "state.db")],
    )
    store = SQLiteStore(state_dir / "state.db")
    try:
        guard = hook_guard(config, store, False, env)
        for n in range(4):
            for i, (tool, args) in enumerate(calls):
                call = ToolCall("redact", tool, args, f"c{n}-{i}", time=1000.0 + n)
                guard.before_call(call)
                guard.after_call(ToolResult(call, f"said: {secret}", 1, True, time=1000.5 + n))
        guard.assistant_message("redact", f"I used {secret}", None)
        guard.user_message("redact", "go on")
    finally:
        store.close()


def _pieces(secret: str) -> set[bytes]:
    """Return every 12-character piece of ``secret`` with an upper-case letter and a digit.

    A preview is cut at 80 characters: a secret stored in part leaks too. A piece with those
    characters cannot be a piece of a hash (lower-case hex) or of the rest of the state.
    """
    found = set()
    for i in range(len(secret) - 11):
        piece = secret[i : i + 12]
        if any(c.isupper() for c in piece) and any(c.isdigit() for c in piece):
            found.add(piece.encode())
    return found


def _leaks(folder: Path, secret: str) -> list[str]:
    pieces = _pieces(secret)
    found = []
    for path in (p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found += [f"{path.name}: {piece!r}" for piece in pieces if piece in data]
    return found


@settings(
    max_examples=160,  # ten a shape on average, seeded: about 20 s
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(SAMPLES)
def test_no_generated_secret_reaches_the_state_directory(sample: tuple[str, str]) -> None:
    shape, secret = sample
    tool, args = SHAPES[shape][1](secret)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _drive(folder, [(tool, args), _bash("ls -la")], secret)
        assert (folder / "state.db").is_file()
        assert not _leaks(folder, secret), (shape, secret, _leaks(folder, secret))


def test_every_shape_through_real_hook_processes(tmp_path: Path) -> None:
    """One example of each shape, a call and its result, through ``tether hook claude-code``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HOME"):
        (tmp_path / name).mkdir()
        env[name] = str(tmp_path / name)
    secrets = {}
    for n, shape in enumerate(sorted(SHAPES)):
        secret = f"Zq{n:02d}SECRETvalue9x" + "".join(
            ALNUM[(n * 7 + i * 13) % 62] for i in range(60)
        )
        secrets[shape] = secret
        tool, args = SHAPES[shape][1](secret)
        for kind, extra in (
            ("PreToolUse", {}),
            ("PostToolUse", {"tool_response": {"stdout": f"echo {secret}"}}),
        ):
            doc = {
                "session_id": "redact-real",
                "cwd": str(tmp_path),
                "hook_event_name": kind,
                "tool_name": tool,
                "tool_input": args,
                "tool_use_id": f"t{n}",
                **extra,
            }
            done = subprocess.run(
                [str(TETHER), "hook", "claude-code"],
                input=json.dumps(doc).encode(),
                capture_output=True,
                env=env,
                cwd=tmp_path,
                timeout=60,
                check=False,
            )
            assert done.returncode == 0, done
    state = tmp_path / "XDG_STATE_HOME"
    assert (state / "tether" / "state.db").is_file()
    leaked = {shape: _leaks(state, s) for shape, s in secrets.items() if _leaks(state, s)}
    assert not leaked, leaked
