"""What the real gh writes on its read verbs, against a local fake GitHub API.

``tether verify`` has no network, so gh fails before any of its writes (they all follow an
answer from GitHub). Here the installed gh talks to a fake API instead: ``GH_HOST=
github.localhost`` is reached over plain HTTP, through ``HTTP_PROXY`` pointing at a server in
this process (``HTTPS_PROXY`` too, so nothing reaches the internet). HOME, TMPDIR and the XDG
directories are fresh; every file that appears is a write. Each row pins what gh does (so a
gh that changes is noticed) and checks the catalogue: read-only ⇒ no file written. See
docs/readonly.md, "What gh writes on its read verbs".
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tether.classify import classify_command
from tether.rules.readonly import forge
from tether.shell.specs import grammar_of

_STARTED = "2024-01-01T00:00:00Z"
_RUN = {
    "id": 5, "name": "ci", "status": "completed", "conclusion": "failure", "event": "push",
    "head_branch": "main", "head_sha": "abc", "created_at": _STARTED, "updated_at": _STARTED,
    "run_started_at": _STARTED, "workflow_id": 1, "run_attempt": 1, "display_title": "t",
    "jobs_url": "http://api.github.localhost/repos/o/r/actions/runs/5/jobs",
}  # fmt: skip
_JOB = {
    "id": 7, "run_id": 5, "name": "build", "status": "completed", "conclusion": "failure",
    "started_at": _STARTED, "completed_at": _STARTED,
    "steps": [{"name": "step", "status": "completed", "conclusion": "failure", "number": 1}],
}  # fmt: skip


def _log_archive() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("build/1_step.txt", f"{_STARTED} hello\n")
    return buf.getvalue()


class _FakeGitHub(BaseHTTPRequestHandler):
    """Answers every request gh makes with a plausible, empty-ish body."""

    archive = _log_archive()

    def _send(self, body: object, kind: str = "application/json") -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        path = self.path.partition("?")[0]
        if path.endswith("/actions/runs/5"):
            self._send(_RUN)
        elif path.endswith("/actions/runs/5/jobs"):
            self._send({"total_count": 1, "jobs": [_JOB]})
        elif path.endswith("/actions/runs/5/logs"):
            self._send(self.archive, "application/zip")
        elif "/actions/workflows/" in path:
            self._send({"id": 1, "name": "ci", "path": ".github/workflows/ci.yml"})
        else:
            self._send({})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._send({"data": {}})

    def do_CONNECT(self) -> None:
        self.send_response(502)  # an HTTPS request (api.github.com): refused, never forwarded
        self.end_headers()

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture(scope="module")
def proxy() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeGitHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


# (arguments after `gh`, whether gh 2.23 writes a file with them)
ROWS = [
    ("api repos/o/r", False),
    ("api --cache 1h repos/o/r", True),  # the response, under $TMPDIR/gh-cli-cache
    ("run view 5 -R o/r", False),
    ("run view 5 --log -R o/r", True),  # run-log-5-….zip, kept
    ("run view 5 --log-failed -R o/r", True),
    ("status", True),  # the user name, cached for 48 hours
    ("pr status -R o/r", False),
    ("issue list -R o/r", False),
    ("repo view o/r", False),
    ("auth status", False),
    ("--version", False),
]


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize(("args", "writes"), ROWS, ids=[r[0] for r in ROWS])
def test_gh_reads_the_catalogue_proves_write_nothing(
    args: str, writes: bool, proxy: str, tmp_path: Path
) -> None:
    gh = shutil.which("gh")
    if gh is None:
        pytest.fail("gh is not installed (.ci/run installs Debian's gh): nothing to run")
    home = tmp_path / "home"
    for sub in ("tmp", "config", "cache", "state", "data"):
        (home / sub).mkdir(parents=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_DATA_HOME": str(home / "data"),
        "GH_HOST": "github.localhost",
        "GH_TOKEN": "x",
        **{k: proxy for k in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy")},
    }
    before = _files(tmp_path)
    subprocess.run(
        [gh, *args.split()], env=env, cwd=home, capture_output=True, timeout=60, check=False
    )
    created = sorted(str(p.relative_to(home)) for p in _files(tmp_path) - before)
    assert bool(created) is writes, created
    verdict = classify_command(f"gh {args}")
    assert not (verdict.read_only and created), (verdict.reason, created)


_LONG = re.compile(r"(?<![\w-])--[a-z0-9][A-Za-z0-9-]*[A-Za-z0-9]")
# Read verbs the catalogue knows from gh 2.46's manual that Debian's gh 2.23 does not have yet.
_NEWER_THAN_DEBIAN = {
    "search code", "cache list", "variable list", "variable get", "ruleset view",
    "ruleset list", "ruleset check", "org list",
}  # fmt: skip
VERBS = [(g, v) for g, verbs in forge._READ_VERBS.items() for v in verbs]


@pytest.mark.parametrize(("group", "verb"), VERBS, ids=[f"{g} {v}" for g, v in VERBS])
def test_gh_help_lists_no_option_a_read_verbs_spec_lacks(group: str, verb: str) -> None:
    gh = shutil.which("gh")
    if gh is None:
        pytest.fail("gh is not installed (.ci/run installs Debian's gh): nothing to compare")
    done = subprocess.run(
        [gh, group, verb, "--help"], capture_output=True, text=True, timeout=20, check=False
    )
    text = done.stdout + done.stderr
    if text.startswith("unknown command"):
        assert f"{group} {verb}" in _NEWER_THAN_DEBIAN, text[:200]
        return
    g = grammar_of(forge._verb_spec(group, verb))
    listed = set(_LONG.findall(text))
    assert listed, f"gh {group} {verb} --help printed no long options"
    assert sorted(o for o in listed if o not in g.names) == []


@pytest.mark.parametrize("command", ["gh pr view 1 --com", "gh api --pag repos/o/r"])
def test_gh_takes_no_prefix_of_a_long_option(command: str) -> None:
    # cobra/pflag spells long flags whole (`unknown flag: --com`): a prefix is not proven.
    verdict = classify_command(command)
    assert not verdict.read_only
    assert verdict.codes == ("RW021",)
