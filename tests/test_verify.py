"""The execution oracle: every write anywhere is seen, nothing reaches the host, and what it
cannot verify it says so (never "no change")."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.verify import Oracle, Verdict, sandbox_problem
from tether.verify.fixture import UID

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    assert sandbox_problem() is None, f"the oracle tests need a sandbox: {sandbox_problem()}"
    with Oracle(timeout=5) as o:
        yield o


def _one(verdict: Verdict) -> tuple[str, str, str]:
    assert verdict.changed is True, verdict
    return verdict.changes[0].path, verdict.changes[0].kind, verdict.changes[0].area


PROBE = f"/var/tmp/tether-oracle-probe-{uuid.uuid4().hex[:8]}"

# (command, path it must report (relative paths are in the fixture's work dir), kind, area)
WRITES = [
    (f"echo x > {PROBE}", PROBE, "created", "system"),
    ("chmod 600 README.md", "README.md", "mode", "work"),
    ("touch file.txt", "file.txt", "mtime", "work"),
    ("printf 'alpha' > file.txt", "file.txt", "modified", "work"),
    ("ln -sfn README.md link-to-app", "link-to-app", "modified", "work"),
    ("rm -r docs", "docs", "deleted", "work"),
    ("rm -r docs && mkdir docs", "docs/guide.md", "deleted", "work"),
    ("git config core.pager cat", ".git/config", "modified", "git"),
    ("git tag v9", ".git/refs/tags/v9", "created", "git"),
    ('mkdir -p "$HOME/.cache/tool"', "../.cache/tool", "created", "home"),
    ('echo x > "$TMPDIR/scratch"', "/tmp/scratch", "created", "tmp"),
    ("echo x > /dev/shm/probe", "/dev/shm/probe", "created", "dev"),
    (f"echo x > {PROBE}-late; sleep 30", f"{PROBE}-late", "created", "system"),  # time limit
]
# Writes the sandbox user may not make (it is not root): never "no change" with exit 0.
DENIED = [
    "rm /etc/hostname",
    "echo x >> /usr/share/tether-probe",
    "touch /dev/sda",
    "echo 1 > /proc/sys/vm/swappiness",
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


@pytest.mark.parametrize("command", DENIED)
def test_what_the_user_may_not_write_is_not_evidence(oracle: Oracle, command: str) -> None:
    verdict = oracle.run(command)
    assert (verdict.changed, verdict.exercised) == (False, False), verdict
    assert "not exercised: exit 1 (" in verdict.reason, verdict.reason
    traced = oracle.run(command, trace=True).trace
    assert traced is not None and traced.operations, traced  # the attempt is on record
    assert traced.operations[-1].result in ("EACCES", "EPERM", "EROFS"), traced


def test_nothing_reaches_the_host(oracle: Oracle) -> None:
    swappiness = Path("/proc/sys/vm/swappiness").read_text()
    for command, *_ in WRITES:
        oracle.run(command)
    for command in DENIED:
        oracle.run(command)
    assert not os.path.exists(PROBE)
    assert os.path.exists("/etc/hostname")
    assert not os.path.exists("/usr/share/tether-probe")
    assert Path("/proc/sys/vm/swappiness").read_text() == swappiness
    assert oracle.run("cat README.md").changed is False  # each run starts from the fixture


READS = ["ls -la", "git status", "git log --oneline", "git diff", "cat README.md | sort", "pwd"]


@pytest.mark.parametrize("command", READS)
def test_reads_change_nothing(oracle: Oracle, command: str) -> None:
    verdict = oracle.run(command)
    assert (verdict.changed, verdict.exercised, verdict.exit_code) == (False, True, 0), verdict
    # The fixture's index is stale on purpose: status and diff refresh it (a cache).
    cache = ["/home/tether/work/.git/index"] if command in ("git status", "git diff") else []
    assert [c.path for c in verdict.changes] == cache, verdict.changes
    assert list(verdict.effects) == (["cache"] if cache else [])


# The oracle's blind spots (issue 24): each row is a command whose effect a root without a
# terminal, a stale index, or operand files would have hidden, and what the oracle says now.
BLIND = [
    # bash ignores PS4 from the environment when it runs as root; the sandbox user is not.
    ("PS4='$(touch ps4-ran) ' bash -xc true", "changed", "ps4-ran"),
    # git runs its pager only when stdout is a terminal.
    ("git -c core.pager='touch pager-ran; cat' log -1", "changed", "pager-ran"),
    ("[ -t 1 ] && touch saw-a-tty", "changed", "saw-a-tty"),
    # The index is stale: a refresh rewrites it (same entries: a cache).
    ("git update-index --refresh", "cache", ".git/index"),
    # A command that fails is not evidence.
    ("sort -o out.txt no-such-file", "not exercised", "exit 2"),
    ("python3 -c 'import tether_no_such_module'", "could not verify", "module"),
]


@pytest.mark.parametrize(("command", "outcome", "what"), BLIND)
def test_the_blind_spots_are_closed(oracle: Oracle, command: str, outcome: str, what: str) -> None:
    v = oracle.run(command)
    paths = [c.path for c in v.changes]
    if outcome == "changed":
        assert v.changed is True and str(oracle.fixture.work / what) in paths, v
    elif outcome == "cache":
        assert (v.changed, v.effects) == (False, ("cache",)), v
        assert paths == [str(oracle.fixture.work / what)]
    elif outcome == "not exercised":
        assert (v.changed, v.exercised) == (False, False) and what in v.reason, v
    else:
        assert v.changed is None and v.reason.startswith(outcome) and what in v.reason, v


def test_operand_files_let_a_command_reach_its_write(oracle: Oracle) -> None:
    command = "sort -o sorted.txt given.txt"
    assert oracle.run(command).exercised is False  # no given.txt: sort fails first
    v = oracle.run(command, files={"given.txt": "b\na\n", "../../../etc/x": "outside"})
    assert v.exercised is True and v.changed is True, v
    assert [c.path for c in v.changes] == [str(oracle.fixture.work / "sorted.txt")]


def test_the_sandbox_is_its_own_world(oracle: Oracle) -> None:
    out = oracle.run("stat -f -c %T /; cut -d: -f1 /proc/net/dev | tail -n +3; env")
    lines = out.stdout.split()
    assert lines[:2] == ["overlayfs", "lo"], out.stdout
    assert f"HOME={oracle.fixture.home}" in lines
    assert not any(v.startswith("STAGE2=") for v in lines)


# What the command is: an unprivileged user with no capabilities and no way to gain any,
# on a terminal, with a fresh /tmp and /run, a minimal /dev and a read-only /proc/sys.
WORLD = [
    ("id -u", str(UID)),
    ("id -un", "tether"),
    (
        "grep -E '^Cap(Prm|Eff|Bnd|Inh|Amb)' /proc/self/status | cut -f2 | sort -u",
        "0000000000000000",
    ),
    ("grep ^NoNewPrivs /proc/self/status | cut -f2", "1"),
    ("[ -t 0 ] || [ -t 1 ] && [ -t 2 ] && readlink /dev/fd/0 /dev/fd/1", "/dev/null\n/dev/pts/0"),
    ("ls -A /tmp /run /dev/shm | tr -d '\\n'", "/dev/shm:/run:tether-shelltether-trace/tmp:"),
    (
        "ls /dev | tr '\\n' ' '",
        "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero",
    ),
    ("ls /home", "tether"),
    ("grep -c ' /proc/sys proc ro,' /proc/self/mounts", "1"),
    ("ls /sys | wc -l", "0"),
    ("echo $TMPDIR $HOME $PWD", "/tmp /home/tether /home/tether/work"),
]


@pytest.mark.parametrize(("command", "expected"), WORLD)
def test_the_command_runs_unprivileged_on_a_terminal(
    oracle: Oracle, command: str, expected: str
) -> None:
    verdict = oracle.run(command)
    assert verdict.stdout.replace("\r\n", "\n").strip() == expected, verdict


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


def test_cli_trace_lists_processes_and_destructive_operations() -> None:
    out = _cli("--trace", "--json", 'd=/etc; cd "$d" && rm -f hostname; ls -d /')
    assert out.returncode == 0, out.stderr  # the line exits with ls's status
    row = json.loads(out.stdout)
    argvs = [p["argv"] for p in row["trace"]["processes"]]
    assert ["rm", "-f", "hostname"] in argvs and ["ls", "-d", "/"] in argvs
    rm = next(p for p in row["trace"]["processes"] if p["argv"][0] == "rm")
    assert rm["cwd"] == "/etc" and "HOME=/home/tether" in rm["env"]
    ops = [(o["call"], o["paths"], o["result"]) for o in row["trace"]["operations"]]
    assert ("unlinkat", ["/etc/hostname"], "EACCES") in ops
    text = _cli("--trace", "ls -d /")
    assert "exec      ls -d /   (cwd /home/tether/work)" in text.stdout, text.stdout


@pytest.mark.skipif(shutil.which("java") is None, reason="needs a JVM")
def test_the_jvm_state_in_a_fresh_tmp_shows(oracle: Oracle) -> None:
    # As root the host's /tmp/hsperfdata_root already existed, so `java -version` changed
    # nothing; the sandbox user's /tmp is fresh and the JVM creates its directory there.
    v = oracle.run("java -version")
    assert v.changed is True and "/tmp/hsperfdata_tether" in [c.path for c in v.changes], v
