"""Recall (issue 24): common reads proven read-only, each proven by running it.

Every form in ``RUN`` is classified read-only and then run with real bash in a scratch working
tree and home holding the files it names (a git repository with a commit and a note, a .gz,
.xz, .bz2 and a tar archive): it must exit 0 (exercised, not a failure that never reached its
write) and leave every file of both trees as it was. ``NOT_RUN`` are reads whose program
needs a server here (docker's daemon): classified only, with the reason. ``REFUSED`` are the
writing forms beside them.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.rules import readonly
from tether.shell import parse_command

_GIT = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]

RUN = [
    "zcat a.txt.gz",
    "zcat -l a.txt.gz",
    "zgrep -n beta a.txt.gz",
    "xzcat a.txt.xz | head -1",
    "bzcat a.txt.bz2",
    "tar -tf a.tar",
    "tar tvf a.tar",
    "git fsck",
    "git fsck --full --no-dangling",
    "git notes list",
    "git notes list HEAD~1",
    "git symbolic-ref HEAD",
    "git symbolic-ref --short HEAD",
    "git submodule status",
    "git submodule status --recursive",
    "git format-patch --stdout HEAD~1",
    "git format-patch -1 --stdout",
    "git archive HEAD | tar -t",
    "git archive --format=tar HEAD | tar -tv",
    "dpkg -l",
    "dpkg -l 'bash*'",
    "dpkg -L bash",
    "dpkg -s bash",
    "dpkg -S /bin/bash",
    "dpkg --print-architecture",
    "crontab -l || true",
    "pip config list",
    "pip cache dir",
    "pip cache info",
    "pip cache list",
    "bc -l <<< '4*a(1)'",
    "echo 'scale=3; 1/3' | bc",
    'while read -r f; do wc -l "$f"; done < list.txt',
    'git ls-files | while IFS= read -r f; do head -1 "$f"; done',
    "printf 'a b\\n' | while read -r x y; do echo \"$y\"; done",
]

# Reads whose program needs a server this machine lacks: classified, not exercised.
NOT_RUN = {
    "docker ps": "needs a docker daemon",
    "docker ps -a --format '{{.Names}}'": "needs a docker daemon",
    "docker images -q": "needs a docker daemon",
    "docker inspect web": "needs a docker daemon",
    "docker logs -n 50 web": "needs a docker daemon",
}

REFUSED = [
    "git fsck --lost-found",
    "git notes add -m x",
    "git symbolic-ref HEAD refs/heads/x",
    "git symbolic-ref -d HEAD",
    "git submodule update --init",
    "git format-patch HEAD~1",
    "git format-patch -o out --stdout HEAD~1",
    "git archive -o x.tar HEAD",
    "git archive --remote=origin HEAD",
    "tar -xf a.tar",
    "tar -tf host:a.tar",
    "tar -t --to-command=sh -f a.tar",
    "tar -t -I 'sh -c x' -f a.tar",
    "tar -tf a.tar --index-file=out",
    "zgrep -r x .",
    "dpkg -i x.deb",
    "dpkg --log=out -l",
    "dpkg",
    "crontab -r",
    "crontab f",
    "crontab -e",
    "pip config set global.x y",
    "pip cache purge",
    "docker -H ssh://h ps",
    "docker --context remote ps",
    "docker rm web",
    "docker ps --bad",
    "read PATH",
    "read -a path",
    "read http_proxy",
    "IFS=x; read a",
    'while read f; do rm "$f"; done < list.txt',
]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working tree (``work``) and a home (``home``) holding what the reads name."""
    top = tmp_path_factory.mktemp("recall")
    work, home = top / "work", top / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    for text in ("alpha\n", "alpha\nbeta\n"):
        (work / "a.txt").write_text(text)
        subprocess.run([*_GIT, "-C", str(work), "add", "a.txt"], check=True)
        subprocess.run([*_GIT, "-C", str(work), "commit", "-qm", text.strip()], check=True)
    subprocess.run([*_GIT, "-C", str(work), "notes", "add", "-m", "n"], check=True)
    (work / "list.txt").write_text("a.txt\n")
    for tool in ("gzip", "xz", "bzip2"):
        subprocess.run([tool, "-k", "a.txt"], cwd=work, check=True)
    subprocess.run(["tar", "-cf", "a.tar", "a.txt"], cwd=work, check=True)
    subprocess.run([*_GIT, "-C", str(work), "add", "."], check=True)
    subprocess.run([*_GIT, "-C", str(work), "commit", "-qm", "files"], check=True)
    subprocess.run(["git", "-C", str(work), "status", "-s"], check=True, capture_output=True)
    return top


def _state(top: Path) -> dict[str, str]:
    found = {}
    for path in sorted(top.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[str(path.relative_to(top))] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            found[str(path.relative_to(top))] = "dir" if path.is_dir() else "other"
    return found


@pytest.mark.parametrize("command", RUN)
def test_proven_and_changes_nothing_when_run(command: str, scratch: Path) -> None:
    verdict = readonly.assess(parse_command(command))
    assert verdict.read_only, f"{command}: {verdict.reason}"
    program = command.split()[0]
    program = "bash" if program in ("while", "printf", "echo") else program
    if shutil.which(program) is None:
        pytest.fail(f"{program} is not installed: the read cannot be proven by running it")
    before = _state(scratch)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(scratch / "home"),
        "XDG_CACHE_HOME": str(scratch / "home" / ".cache"),
        "GIT_CEILING_DIRECTORIES": str(scratch),
        "LC_ALL": "C",
    }
    done = subprocess.run(["bash", "-c", command], cwd=scratch / "work", env=env,
                          capture_output=True, timeout=60, check=False)  # fmt: skip
    why = done.stderr.decode(errors="replace")
    assert done.returncode == 0, f"{command} not exercised (exit {done.returncode}): {why}"
    assert _state(scratch) == before, f"{command} changed files"


@pytest.mark.parametrize("command", sorted(NOT_RUN))
def test_proven_without_a_server(command: str) -> None:
    verdict = readonly.assess(parse_command(command))
    assert verdict.read_only, f"{command}: {verdict.reason}"


@pytest.mark.parametrize("command", REFUSED)
def test_writing_forms_are_refused(command: str) -> None:
    verdict = readonly.assess(parse_command(command))
    assert not verdict.read_only, command
