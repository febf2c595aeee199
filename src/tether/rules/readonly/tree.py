"""The working tree and home as untrusted input: what a read-looking command would obey there.

A checked-out repository can hold a bare git repository committed as plain files
(``vendor/x/{HEAD,config,objects,refs}``): ``git -C vendor/x status`` (or ``cd vendor/x &&
git log``) reads that ``config``, whose ``core.fsmonitor``, ``core.pager``, ``diff.external``
and textconv drivers are programs git runs. Such a command is read-only only when the reader
has been shown the tree (``Tree``: the directory the command runs in and the home directory)
and has checked that no repository git would find there is one the tree planted. Without a
``Tree`` the verdict is RW029 ("proven read-only but for the working tree"); with one that
holds such a repository, RW020 (git pointed at another repository and its config). A
verdict that relied on the tree lists what it checked.

The same holds beyond git: ``python -m MOD`` imports MOD from the directory it runs in first
(read-only with ``-I``/``-P``, or when that directory holds no MOD), and ``rustup --version``
runs the ``rustc`` of the toolchain a ``rust-toolchain.toml`` in the directory or a parent
names (read-only when there is none).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import NamedTuple


class Tree(NamedTuple):
    """Where a command runs: its working directory and the home directory (absolute paths)."""

    cwd: str
    home: str

    def resolve(self, path: str) -> str:
        if path == "~" or path.startswith("~/"):
            path = self.home + path[1:]
        return os.path.normpath(os.path.join(self.cwd, path))


class TreeProof(NamedTuple):
    checked: tuple[str, ...]  # the directories looked at
    planted: str | None  # a repository the tree planted, or None


def _bare_repository(directory: str) -> bool:
    """True when ``directory`` is laid out as a bare repository git would use."""
    return (
        os.path.isfile(os.path.join(directory, "HEAD"))
        and os.path.isdir(os.path.join(directory, "objects"))
        and os.path.isdir(os.path.join(directory, "refs"))
    )


def python_module(tree: Tree, directories: Iterable[str], module: str) -> TreeProof:
    """Check each directory ``python -m MODULE`` may run in: Python puts it first on
    ``sys.path``, so an entry named MODULE (a package) or ``MODULE.*`` (``.py``, ``.pyc``, an
    extension module) there is imported instead of the installed one."""
    checked: list[str] = []
    for given in directories:
        here = tree.resolve(given)
        checked.append(here)
        try:
            names = os.listdir(here)
        except OSError:
            continue  # no such directory: the command fails before importing anything
        for name in names:
            if name == module or name.startswith(module + "."):
                return TreeProof(tuple(checked), os.path.join(here, name))
    return TreeProof(tuple(checked), None)


def rust_toolchain(tree: Tree, directories: Iterable[str]) -> TreeProof:
    """Check each directory rustup may run in, and every parent up to the root (rustup looks
    upwards), for ``rust-toolchain``/``rust-toolchain.toml``: one can name a toolchain by
    ``path``, whose ``rustc`` ``rustup --version`` runs, or a channel rustup would install."""
    checked: list[str] = []
    for given in directories:
        here = tree.resolve(given)
        while True:
            checked.append(here)
            for name in ("rust-toolchain", "rust-toolchain.toml"):
                if os.path.lexists(os.path.join(here, name)):
                    return TreeProof(tuple(checked), os.path.join(here, name))
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
    return TreeProof(tuple(dict.fromkeys(checked)), None)


# pip's user configuration files (pip 23, Linux), and the settings in them that make a read
# write or run a program: ``log = FILE`` appends every run to FILE, ``python = …`` re-executes
# pip under another interpreter. (/etc/pip.conf and /etc/xdg/pip are the system's.)
PIP_USER_CONFIGS = (".config/pip/pip.conf", ".pip/pip.conf")
_PIP_RISKY = re.compile(
    r"^\s*(?:log|log-file|local-log|python)\s*[=:]", re.MULTILINE | re.IGNORECASE
)


def pip_config(tree: Tree) -> TreeProof:
    """Check the user's pip configuration files for a setting that makes pip write or run."""
    checked: list[str] = []
    for relative in PIP_USER_CONFIGS:
        path = os.path.join(tree.home, relative)
        checked.append(path)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read(65536)
        except OSError:
            continue
        if _PIP_RISKY.search(text):
            return TreeProof(tuple(checked), path)
    return TreeProof(tuple(checked), None)


def git_directories(tree: Tree, directories: Iterable[str]) -> TreeProof:
    """Check each directory git would start from (``-C DIR``, ``cd DIR``, ``--git-dir``) as
    git's discovery walks up from it: the first level holding ``.git`` is the repository git
    uses (git refuses to check out a path named ``.git``: a tree cannot plant one), a level
    laid out as a bare repository before that is one the tree planted; the walk stops at the
    working directory (its repository is the user's) or the root."""
    checked: list[str] = []
    for given in directories:
        here = tree.resolve(given)
        while True:
            checked.append(here)
            if os.path.lexists(os.path.join(here, ".git")) or here == tree.cwd:
                break
            if _bare_repository(here):
                return TreeProof(tuple(checked), here)
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
    return TreeProof(tuple(checked), None)
