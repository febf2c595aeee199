"""The execution oracle: every write anywhere is seen, nothing reaches the host, and what it
cannot verify it says so (never "no change")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.verify import Oracle, Verdict, sandbox_problem

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    assert sandbox_problem() is None, f"the oracle tests need a sandbox: {sandbox_problem()}"
    with Oracle(timeout=5) as o:
        yield o


def _one(verdict: Verdict) -> tuple[str, str, str]:
    assert verdict.changed is True, verdict
    return verdict.changes[0].path, verdict.changes[0].kind, verdict.changes[0].area


PROBE = f"/etc/tether-oracle-probe-{uuid.uuid4().hex[:8]}"

# (command, path it must report (relative paths are in the fixture's work dir), kind, area)
WRITES = [
    (f"echo x > {PROBE}", PROBE, "created", "system"),
    ("rm /etc/hostname", "/etc/hostname", "deleted", "system"),
    ("echo x >> /usr/share/tether-probe", "/usr/share/tether-probe", "created", "system"),
    ("chmod 600 README.md", "README.md", "mode", "work"),
    ("touch file.txt", "file.txt", "mtime", "work"),
    ("printf 'alpha' > file.txt", "file.txt", "modified", "work"),
    ("ln -sfn README.md link-to-app", "link-to-app", "modified", "work"),
    ("rm -r docs && mkdir docs", "docs", "replaced", "work"),
    ("git config core.pager cat", ".git/config", "modified", "git"),
    ("git tag v9", ".git/refs/tags/v9", "created", "git"),
    ('mkdir -p "$HOME/.cache/tool"', "../home/.cache/tool", "created", "home"),
    ('echo x > "$TMPDIR/scratch"', "../tmp/scratch", "created", "tmp"),
    ("echo x > /dev/shm/probe", "/dev/shm/probe", "created", "system"),
    ("echo x > /etc/late; sleep 30", "/etc/late", "created", "system"),  # then the time limit
]


@pytest.mark.parametrize(("command", "path", "kind", "area"), WRITES)
def test_every_write_is_seen_wherever_it_lands(
    oracle: Oracle, command: str, path: str, kind: str, area: str
) -> None:
    expected = path if path.startswith("/") else os.path.normpath(oracle.fixture.work / path)
    assert _one(oracle.run(command)) == (expected, kind, area)


def test_git_commit_shows_in_the_object_store(oracle: Oracle) -> None:
    verdict = oracle.run("git commit -q --allow-empty -m x")
    paths = {c.path for c in verdict.changes if c.area == "git"}
    assert any("/.git/objects/" in p for p in paths), paths
    assert str(oracle.fixture.work / ".git/logs/HEAD") in paths


def test_nothing_reaches_the_host(oracle: Oracle) -> None:
    for command, *_ in WRITES:
        oracle.run(command)
    assert not os.path.exists(PROBE)
    assert os.path.exists("/etc/hostname")
    assert not os.path.exists("/usr/share/tether-probe")
    assert (oracle.fixture.work / "docs" / "guide.md").is_file()
    assert oracle.run("cat README.md").changed is False  # each run starts from the fixture


READS = ["ls -la", "git status", "git log --oneline", "git diff", "cat README.md | sort", "pwd"]


@pytest.mark.parametrize("command", READS)
def test_reads_change_nothing(oracle: Oracle, command: str) -> None:
    verdict = oracle.run(command)
    assert (verdict.changed, verdict.exit_code, verdict.changes) == (False, 0, ()), verdict


def test_the_sandbox_is_its_own_world(oracle: Oracle) -> None:
    out = oracle.run("echo $$; stat -f -c %T /; cut -d: -f1 /proc/net/dev | tail -n +3; env")
    lines = out.stdout.split()
    assert lines[:3] == ["1", "overlayfs", "lo"], out.stdout
    assert f"HOME={oracle.fixture.home}" in lines
    assert not any(v.startswith("STAGE2=") for v in lines)


CANNOT = [
    ("tether-no-such-program --x", "'tether-no-such-program' is not installed"),
    ("ls | tether-no-such-program", "'tether-no-such-program' is not installed"),
    (
        "python3 -c \"import urllib.request as u; u.urlopen('http://example.com', timeout=3)\"",
        "needs the network",
    ),
    ("git ls-remote https://example.com/repo.git", "needs the network"),
    ("sleep 30", "time limit"),
]


@pytest.mark.parametrize(("command", "why"), CANNOT)
def test_what_cannot_be_verified_is_never_no_change(oracle: Oracle, command: str, why: str) -> None:
    verdict = oracle.run(command)
    assert verdict.changed is None, verdict
    assert verdict.reason.startswith("could not verify: ") and why in verdict.reason, verdict


def test_when_the_sandbox_cannot_be_built_it_refuses_and_runs_nothing(tmp_path: Path) -> None:
    # Root without capabilities: unshare and mount fail, so no sandbox can be built.
    marker = tmp_path / "ran"
    script = (
        "import json; from tether.verify import Oracle\n"
        f"with Oracle() as o: print(json.dumps(o.run('touch {marker}').to_json()))\n"
    )
    capless = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"]
    out = subprocess.run(
        [*capless, sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    verdict = json.loads(out.stdout)
    assert verdict["changed"] is None
    assert verdict["reason"].startswith("could not verify: sandbox could not be built: ")
    assert not marker.exists()


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tether", "verify", *args],
        input=stdin,
        capture_output=True,
        text=True,
    )


def test_cli_json_and_exit_status() -> None:
    out = _cli("--json", "ls", "tether-no-such-program")
    assert out.returncode == 3, out.stderr
    first, second = (json.loads(line) for line in out.stdout.splitlines())
    assert {"command", "changed", "reason", "diff"} <= set(first)
    assert (first["command"], first["changed"], second["changed"]) == ("ls", False, None)
    changed = _cli("--jsonl", stdin='"touch new.txt"\n{"command": "ls"}\n')
    assert changed.returncode == 1
    rows = [json.loads(line) for line in changed.stdout.splitlines()]
    assert [r["changed"] for r in rows] == [True, False]
    assert rows[0]["diff"][0]["path"].endswith("/work/new.txt")


def test_cli_bad_usage_says_what_to_do() -> None:
    out = _cli()
    assert out.returncode == 2 and "no command given" in out.stderr
    bad = _cli("--jsonl", stdin="{not json\n")
    assert bad.returncode == 2 and "stdin line 1: not valid JSON" in bad.stderr


def test_cli_without_git_says_what_is_missing(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tether", "verify", "ls"],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": str(tmp_path), "TMPDIR": str(tmp_path)},
    )
    assert out.returncode == 2
    assert "git must be installed and on PATH" in out.stderr
    assert list(tmp_path.iterdir()) == []  # and nothing is left behind
