"""The world a verified command runs in: a small git repository, files, HOME and TMPDIR.

The fixture is built once on the host (in the seed, ``tether.verify.seed``) and is never
written afterwards: each sandbox gets its own copy in its overlay's upper layer, so each
command starts from the same pristine tree. Inside the sandbox it is owned by the
unprivileged user ``tether`` (uid 1000): HOME is ``/home/tether``, the working directory
``/home/tether/work`` and TMPDIR the sandbox's own fresh ``/tmp``.

Modification times are set in the past and the index refreshed after them (git compares
only mtime, size and mode: ``core.checkStat=minimal``, since a copy has new inodes and
ctimes); then README.md's mtime moves on, so the index is *stale* and a command that
refreshes it (``git status``, ``git update-index --refresh``) shows that write.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import NamedTuple

from tether.errors import FixtureError

# Files named by the catalogue's examples and by agents' commonly read paths, so that reads
# read something instead of failing on a missing file.
TEXT_FILES = {
    "README.md": "# demo\n\nA small project for verifying commands.\n",
    "file.txt": "alpha\nbeta\ngamma\nalpha\n",
    "f.txt": "3\n1\n2\n",
    "input": "b\na\nc\na\n",
    "notes.txt": "TODO: nothing\n",
    "data.csv": "id,name\n1,a\n2,b\n",
    "f.py": "print('hello')\n",
    "a.py": "x = 1\n",
    "b.py": "x = 2\n",
    "old": "one\ntwo\n",
    "new": "one\nthree\n",
    "setup.py": "from setuptools import setup\nsetup(name='demo')\n",
    "pyproject.toml": '[project]\nname = "demo"\nversion = "0.1.0"\n',
    "package.json": '{"name": "demo", "version": "1.0.0", "scripts": {}}\n',
    "Makefile": "all:\n\t@echo all\n",
    "src/app.py": "def main() -> None:\n    print('app')\n",
    "src/util.py": "def add(a: int, b: int) -> int:\n    return a + b\n",
    "src/extension.ts": "export function activate(): void {}\n",
    "src/main.rs": 'fn main() { println!("hi"); }\n',
    "tests/test_app.py": "def test_app() -> None:\n    assert True\n",
    "docs/guide.md": "# Guide\n",
    "config.json": '{"a": 1, "b": [1, 2]}\n',
    "config.yaml": "a: 1\nb: [1, 2]\n",
    "blob.txt": "aGVsbG8K\n",
    "file": "a w p\nsecond a line\n",
    "secret.dat": "not really a secret\n",
    "directory/inside.txt": "in a directory\n",
    # A repository script that writes, for commands that source or run one unawares.
    "scripts/setup-env.sh": 'export DEMO=1\ntouch "$HOME/.setup-env-ran"\n',
}
_BINARY_FILES = {"f.bin": bytes(range(256)), "a.out": b"\x7fELF" + bytes(60)}
_PAST = 1_600_000_000  # 2020-09-13: older than anything a command could write
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Fixture",
    "GIT_AUTHOR_EMAIL": "fixture@example.invalid",
    "GIT_COMMITTER_NAME": "Fixture",
    "GIT_COMMITTER_EMAIL": "fixture@example.invalid",
    "GIT_AUTHOR_DATE": "2020-09-13T12:00:00Z",
    "GIT_COMMITTER_DATE": "2020-09-13T12:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}


USER = "tether"
UID = 1_500_001_000  # the sandbox user's uid and gid: no host account or file has it
HOME = Path("/home/tether")
WORK = HOME / "work"
TMP = Path("/tmp")
STALE = "README.md"  # its mtime moved after the index was refreshed


class Fixture(NamedTuple):
    """Where the fixture is inside the sandbox: ``work`` (the cwd), ``home`` and ``tmp``;
    ``root`` is the host directory it was built in (the seed's copy of ``home``)."""

    root: Path
    work: Path
    home: Path
    tmp: Path

    def environment(self, path: str) -> dict[str, str]:
        """Return the whole environment a verified command gets: the fixture's, the caller's
        PATH, and the homes of the toolchains whose proxies that PATH holds."""
        config = self.home / ".config"
        return {
            **toolchain_homes(),
            "HOME": str(self.home),
            "USER": USER,
            "LOGNAME": USER,
            "SHELL": "/bin/bash",
            "PATH": path,
            "TMPDIR": str(self.tmp),
            "TMP": str(self.tmp),
            "TEMP": str(self.tmp),
            "XDG_CONFIG_HOME": str(config),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "XDG_RUNTIME_DIR": str(self.home / ".runtime"),
            "LANG": "C.UTF-8",
            "TERM": "xterm",
            "PWD": str(self.work),
        }


# Toolchain managers whose PATH entries are proxies that need their installation: without it
# rustup's proxies (`rustc --version`, which `pip list` runs) would initialise a new one in
# the fixture's HOME. Writes into them are still captured; the installation is the machine's.
_TOOLCHAINS = (("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo"))


def toolchain_homes() -> dict[str, str]:
    """Return RUSTUP_HOME/CARGO_HOME as the caller has them, where they exist."""
    out = {}
    for var, default in _TOOLCHAINS:
        where = os.environ.get(var) or os.path.join(os.path.expanduser("~"), default)
        if os.path.isdir(where):
            out[var] = where
    return out


def build(root: Path, owner: int) -> Fixture:
    """Create the fixture's HOME in ``root`` (an empty directory), owned by host uid/gid
    ``owner``, and return where it will be inside the sandbox."""
    fx = Fixture(root, WORK, HOME, TMP)
    host_work = root / WORK.relative_to(HOME)
    for d in (host_work, root / ".config", root / ".cache", root / ".runtime"):
        d.mkdir(parents=True)
    (root / ".runtime").chmod(0o700)
    (root / ".gitconfig").write_text(
        "[user]\n\tname = Fixture\n\temail = fixture@example.invalid\n"
        "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
        "[core]\n\tcheckStat = minimal\n\ttrustctime = false\n"
    )
    for name, text in TEXT_FILES.items():
        path = host_work / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for name, data in _BINARY_FILES.items():
        (host_work / name).write_bytes(data)
    os.symlink("src/app.py", host_work / "link-to-app")
    env = {
        **fx.environment(os.environ.get("PATH", "/usr/bin:/bin")),
        **_GIT_ENV,
        "HOME": str(root),
        "XDG_CONFIG_HOME": str(root / ".config"),
    }

    def git(*args: str) -> None:
        try:
            subprocess.run(
                ["git", "-c", "safe.directory=*", *args],
                cwd=host_work,
                env=env,
                check=True,
                capture_output=True,
            )
        except (OSError, subprocess.CalledProcessError) as exc:
            err = getattr(exc, "stderr", b"") or b""
            detail = err.decode("utf-8", "replace").strip() or str(exc)
            raise FixtureError(
                f"{host_work}: 'git {' '.join(args)}' failed ({detail}); the oracle's fixture is "
                "a git repository, so git must be installed and on PATH"
            ) from None

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "initial")
    (host_work / "file.txt").write_text("alpha\nbeta\ngamma\nalpha\ndelta\n")
    git("commit", "-q", "-am", "add delta")
    git("tag", "v0.1.0")
    git("branch", "feature")
    (host_work / "notes.txt").write_text("TODO: nothing\nunstaged change\n")  # a diff to show
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.utime(os.path.join(dirpath, name), (_PAST, _PAST), follow_symlinks=False)
    os.utime(root, (_PAST, _PAST))
    # Refresh the index (utime changed every ctime), then again once its second has passed:
    # an index written in the same second as its entries' stat data is "racy".
    git("status", "--porcelain")
    time.sleep(1.05)
    git("status", "--porcelain")
    # Then make it stale on purpose: a command that refreshes the index must show it.
    os.utime(host_work / STALE, (_PAST + 60, _PAST + 60))
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.chown(os.path.join(dirpath, name), owner, owner, follow_symlinks=False)
    os.chown(root, owner, owner)
    return fx
