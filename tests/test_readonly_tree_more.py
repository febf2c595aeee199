"""The working tree as an adversary beyond git (issue 24, class 4): python -m and rustup.

Real tools show each threat: ``python3 -m pip --version`` imports a ``pip.py`` the tree
holds (Python puts the working directory first on sys.path), and ``rustup --version`` runs
the ``rustc`` of a toolchain a ``rust-toolchain.toml`` in the directory or a parent names by
``path``. Without the tree the review cannot tell (RW029); given one that holds such a file,
RW020; a clean tree is proven, the verdict listing what it checked. ``python -I``/``-P``
keep the directory off sys.path and need no tree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.rules import readonly
from tether.rules.base import ReadVerdict
from tether.rules.readonly import Tree
from tether.shell import parse_command

PYTHON = [
    "python3 -m pip --version",
    "python -m pip show numpy",
    "python3 -m pip list --disable-pip-version-check",
    "cd sub && python3 -m pip freeze",
]
RUSTUP = ["rustup --version", "rustup -V", "cd sub && rustup --version"]


def _assess(command: str, tree: Tree | None) -> ReadVerdict:
    return readonly.assess(parse_command(command), tree)


@pytest.fixture
def clean(tmp_path: Path) -> Tree:
    (tmp_path / "sub").mkdir()
    return Tree(str(tmp_path), str(tmp_path))


def test_real_python_imports_the_planted_module(tmp_path: Path) -> None:
    (tmp_path / "pip.py").write_text('open("PWNED", "w")\n')
    subprocess.run(["python3", "-m", "pip", "--version"], cwd=tmp_path, capture_output=True,
                   check=False, timeout=60)  # fmt: skip
    assert (tmp_path / "PWNED").exists()
    # and -I keeps the working directory off sys.path
    (tmp_path / "PWNED").unlink()
    subprocess.run(["python3", "-I", "-m", "pip", "--version"], cwd=tmp_path,
                   capture_output=True, check=False, timeout=60)  # fmt: skip
    assert not (tmp_path / "PWNED").exists()


def test_real_rustup_runs_the_planted_toolchain(tmp_path: Path) -> None:
    if shutil.which("rustup") is None:
        pytest.skip("rustup is not installed: the classification tests below still run")
    toolchain = tmp_path / "tc" / "bin"
    toolchain.mkdir(parents=True)
    rustc = toolchain / "rustc"
    rustc.write_text(f"#!/bin/sh\ntouch {tmp_path}/PWNED\necho rustc 9.9.9\n")
    rustc.chmod(0o755)
    (tmp_path / "rust-toolchain.toml").write_text(f'[toolchain]\npath = "{tmp_path}/tc"\n')
    (tmp_path / "sub").mkdir()
    subprocess.run(["rustup", "--version"], cwd=tmp_path / "sub", capture_output=True,
                   check=False, timeout=60, env={**os.environ})  # fmt: skip
    assert (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("command", PYTHON + RUSTUP)
def test_without_the_tree_it_is_not_proven(command: str) -> None:
    verdict = _assess(command, None)
    assert not verdict.read_only
    assert verdict.codes == ("RW029",)


@pytest.mark.parametrize("command", PYTHON + RUSTUP)
def test_a_clean_tree_is_proven_and_listed(command: str, clean: Tree) -> None:
    verdict = _assess(command, clean)
    assert verdict.read_only, verdict.reason
    assert clean.cwd in verdict.checked


@pytest.mark.parametrize("planted", ["pip.py", "pip", "pip.cpython-311-x86_64-linux-gnu.so"])
@pytest.mark.parametrize("command", PYTHON)
def test_a_planted_module_is_found(command: str, planted: str, clean: Tree) -> None:
    where = Path(clean.cwd) / ("sub" if command.startswith("cd") else "") / planted
    if planted == "pip":
        where.mkdir()
        (where / "__init__.py").write_text("")
    else:
        where.write_text("")
    verdict = _assess(command, clean)
    assert not verdict.read_only
    assert verdict.codes == ("RW020",)
    assert str(where) in verdict.reason


@pytest.mark.parametrize("name", ["rust-toolchain.toml", "rust-toolchain"])
@pytest.mark.parametrize("command", RUSTUP)
def test_a_toolchain_file_here_or_above_is_found(command: str, name: str, clean: Tree) -> None:
    (Path(clean.cwd) / name).write_text('[toolchain]\nchannel = "stable"\n')
    verdict = _assess(command, clean)
    assert not verdict.read_only
    assert verdict.codes == ("RW020",)


@pytest.mark.parametrize(
    "command",
    ["python3 -I -m pip --isolated --version", "python -P -m pip --isolated show numpy",
     "pip --isolated list --disable-pip-version-check", "python3 --version"],
)  # fmt: skip
def test_isolated_python_and_pip_need_no_tree(command: str) -> None:
    assert _assess(command, None).read_only


def test_real_pip_appends_to_the_log_a_user_pip_conf_names(tmp_path: Path) -> None:
    config = tmp_path / ".config" / "pip"
    config.mkdir(parents=True)
    (config / "pip.conf").write_text(f"[global]\nlog = {tmp_path}/LOGGED\n")
    env = {**os.environ, "HOME": str(tmp_path)}
    env.pop("PIP_CONFIG_FILE", None)
    subprocess.run(["python3", "-m", "pip", "show", "pip"], cwd=tmp_path, env=env,
                   capture_output=True, check=False, timeout=60)  # fmt: skip
    assert (tmp_path / "LOGGED").exists()


@pytest.mark.parametrize("setting", ["log = /tmp/x", "log-file=/tmp/x", "python = /x/py"])
@pytest.mark.parametrize("command", ["pip show numpy", "python -I -m pip freeze", "pip3 --version"])
def test_a_pip_conf_setting_that_writes_is_found(command: str, setting: str, clean: Tree) -> None:
    config = Path(clean.home) / ".pip"
    config.mkdir()
    (config / "pip.conf").write_text(f"[global]\n{setting}\n")
    verdict = _assess(command, clean)
    assert not verdict.read_only
    assert verdict.codes == ("RW020",)
    # a pip.conf that only sets an index is harmless
    (config / "pip.conf").write_text("[global]\nindex-url = https://example.org/simple\n")
    assert _assess(command, clean).read_only
