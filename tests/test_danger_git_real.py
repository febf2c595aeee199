"""The git rules against real git: a flagged command destroys something, an unflagged one does not.

Each command runs with the real ``git`` in a throwaway repository that has a bare remote, a
branch that only exists locally, a tag, an unreachable commit and a local ``main`` that
diverged from the remote's (so a forced push really overwrites). Before and after, every
ref (local and remote), HEAD, the reflogs and the object store are recorded; the command
"destroyed" something when an existing ref moved or vanished, a reflog entry or an object
went away. The danger verdict must agree: flagged exactly when git destroyed something.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tether.rules.danger import assess
from tether.shell import parse_command

# (command, should it destroy something and be flagged)
CASES = [
    ("git update-ref -d refs/heads/topic", True),
    ("git update-ref -m cleanup -d refs/tags/v1", True),
    ("git update-ref refs/heads/topic 0000000000000000000000000000000000000000", True),
    (
        "git for-each-ref --format='delete %(refname)' refs/heads/topic | git update-ref --stdin",
        True,
    ),
    ("git for-each-ref --format='%(refname)' refs/heads/topic | xargs -n1 git update-ref -d", True),
    ("git symbolic-ref --delete refs/remotes/origin/HEAD", True),
    ("git symbolic-ref -d HEAD", False),  # git refuses: "deleting 'HEAD' is not allowed"
    ("git update-ref refs/heads/new HEAD", False),
    ("git symbolic-ref --short HEAD", False),
    ("git for-each-ref --format='%(refname)'", False),
    ("git push origin +main", True),
    ("git push -u origin +HEAD:main", True),
    ("git push --no-verify -q origin +main:main", True),
    ("git push origin :side", True),
    ("git push --force origin main", True),
    ("git push -n origin +main", False),
    ("git push --dry-run --force origin main", False),
    ("git push origin main", False),
    ("git push -u origin HEAD:fresh", False),
    ("git prune", True),
    ("git gc --prune=now", True),
    ("git gc -q --prun=all", True),
    ("git reflog expire --expire=now --all", True),
    ("git prune -n", False),
    ("git reflog expire --dry-run --expire=now --all", False),
    ("git gc --prune=2.weeks.ago", False),
]


State = dict[str, set[str] | dict[str, str]]


def _git(repo: Path, *args: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=30, check=True
    )
    return done.stdout


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    return env


def _repository(tmp: Path) -> tuple[Path, Path, dict[str, str]]:
    """Build the repository described in the module docstring; return (repo, remote, env)."""
    env = _env(tmp)
    remote, repo = tmp / "remote.git", tmp / "repo"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], env=env, check=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], env=env, check=True)
    _git(repo, "config", "gc.auto", "0", env=env)
    _git(repo, "config", "core.logAllRefUpdates", "always", env=env)
    for n in (1, 2):
        (repo / "f.txt").write_text(f"{n}\n")
        _git(repo, "add", "f.txt", env=env)
        _git(repo, "commit", "-qm", f"c{n}", env=env)
    _git(repo, "remote", "add", "origin", str(remote), env=env)
    _git(repo, "push", "-q", "origin", "main", "main:side", env=env)
    _git(repo, "fetch", "-q", "origin", env=env)
    _git(repo, "remote", "set-head", "origin", "main", env=env)
    _git(repo, "branch", "topic", env=env)
    _git(repo, "tag", "v1", env=env)
    # main diverges from origin/main: a forced push overwrites c2 there.
    _git(repo, "reset", "-q", "--hard", "HEAD~1", env=env)
    (repo / "f.txt").write_text("other\n")
    _git(repo, "commit", "-qam", "c2-other", env=env)
    # An unreachable commit (no ref, no reflog entry points at it).
    tree = _git(repo, "write-tree", env=env).strip()
    _git(repo, "commit-tree", tree, "-m", "dangling", env=env)
    return repo, remote, env


def _state(repo: Path, remote: Path, env: dict[str, str]) -> State:
    def refs(where: Path) -> dict[str, str]:
        out = _git(where, "for-each-ref", "--format=%(refname) %(objectname)", env=env)
        return dict(line.split(" ", 1) for line in out.splitlines())

    head = subprocess.run(
        ["git", "symbolic-ref", "-q", "HEAD"], cwd=repo, env=env, capture_output=True, text=True
    ).stdout.strip()
    logs = {
        f"{p.relative_to(repo / '.git' / 'logs')}:{i}"
        for p in (repo / ".git" / "logs").rglob("*")
        if p.is_file()
        for i, _ in enumerate(p.read_text().splitlines())
    }
    objects = set(
        _git(
            repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)", env=env
        ).split()
    )
    return {"refs": refs(repo), "remote": refs(remote), "head": {head}, "logs": logs,
            "objects": objects}  # fmt: skip


def _destroyed(before: State, after: State) -> list[str]:
    lost: list[str] = []
    for key in ("refs", "remote"):
        old, new = before[key], after[key]
        assert isinstance(old, dict) and isinstance(new, dict)
        lost += [f"{key} {r}" for r, oid in old.items() if new.get(r) != oid]
    for key in ("head", "logs", "objects"):
        old_set, new_set = before[key], after[key]
        assert isinstance(old_set, set) and isinstance(new_set, set)
        lost += [f"{key} {x}" for x in sorted(old_set - new_set)[:3]]
    return lost


@pytest.mark.parametrize(("command", "destroys"), CASES, ids=[c for c, _ in CASES])
def test_flagged_exactly_when_git_destroys(tmp_path: Path, command: str, destroys: bool) -> None:
    repo, remote, env = _repository(tmp_path)
    before = _state(repo, remote, env)
    done = subprocess.run(
        ["bash", "-c", command], cwd=repo, env=env, capture_output=True, text=True, timeout=60
    )
    lost = _destroyed(before, _state(repo, remote, env))
    assert bool(lost) == destroys, (
        f"{command!r}: real git {'destroyed ' + ', '.join(lost[:4]) if lost else 'kept everything'}"
        f" (exit {done.returncode}: {done.stderr.strip()[:200]})"
    )
    verdict = assess(parse_command(command))
    assert bool(verdict.codes) == destroys, f"{command!r}: flagged {verdict.codes}"
