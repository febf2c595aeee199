"""The world a verified command runs in: a small git repository, files, HOME and TMPDIR.

The fixture is built once on the host and is never written afterwards: every sandbox sees it
through an overlay, so each command starts from the same pristine tree. Modification times
are set in the past and the index refreshed after them, so a read-only ``git status`` finds
a clean, non-racy index and has no reason to rewrite it.
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
_TEXT_FILES = {
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


class Fixture(NamedTuple):
    """Where the fixture lives: ``root`` holds ``work`` (the cwd), ``home`` and ``tmp``."""

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
            "USER": "root",
            "LOGNAME": "root",
            "PATH": path,
            "TMPDIR": str(self.tmp),
            "TMP": str(self.tmp),
            "TEMP": str(self.tmp),
            "XDG_CONFIG_HOME": str(config),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "XDG_RUNTIME_DIR": str(self.tmp / "runtime"),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
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


def build(root: Path) -> Fixture:
    """Create the fixture under ``root`` (an empty directory) and return where it is."""
    fx = Fixture(root, root / "work", root / "home", root / "tmp")
    for d in (fx.work, fx.home / ".config", fx.home / ".cache", fx.tmp / "runtime"):
        d.mkdir(parents=True)
    (fx.home / ".gitconfig").write_text(
        "[user]\n\tname = Fixture\n\temail = fixture@example.invalid\n"
        "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
    )
    for name, text in _TEXT_FILES.items():
        path = fx.work / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for name, data in _BINARY_FILES.items():
        (fx.work / name).write_bytes(data)
    os.symlink("src/app.py", fx.work / "link-to-app")
    env = {**fx.environment(os.environ.get("PATH", "/usr/bin:/bin")), **_GIT_ENV}

    def git(*args: str) -> None:
        try:
            subprocess.run(["git", *args], cwd=fx.work, env=env, check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            err = getattr(exc, "stderr", b"") or b""
            detail = err.decode("utf-8", "replace").strip() or str(exc)
            raise FixtureError(
                f"{fx.work}: 'git {' '.join(args)}' failed ({detail}); the oracle's fixture is a "
                "git repository, so git must be installed and on PATH"
            ) from None

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "initial")
    (fx.work / "file.txt").write_text("alpha\nbeta\ngamma\nalpha\ndelta\n")
    git("commit", "-q", "-am", "add delta")
    git("tag", "v0.1.0")
    git("branch", "feature")
    (fx.work / "notes.txt").write_text("TODO: nothing\nunstaged change\n")  # a diff to show
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.utime(os.path.join(dirpath, name), (_PAST, _PAST), follow_symlinks=False)
    os.utime(root, (_PAST, _PAST))
    # Refresh the index (utime changed every ctime), then again once its second has passed:
    # an index written in the same second as its entries' stat data is "racy", and every
    # later `git status` would rewrite it.
    git("status", "--porcelain")
    time.sleep(1.05)
    git("status", "--porcelain")
    return fx
