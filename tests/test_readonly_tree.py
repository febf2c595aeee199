"""The working tree as an adversary: a bare repository committed as plain files.

A real one is built here (``git clone --bare``, then ``info/attributes`` and a textconv
driver in its ``config``, as a checkout could carry them) and real git shows the threat:
``git -C vendor/x log -p`` runs the planted program. Without the working tree the review
cannot tell (RW029); given it, the planted repository is found (RW020) and a clean tree is
proven, the verdict listing what it checked.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tether.rules import readonly
from tether.rules.readonly import Tree
from tether.shell import parse_command

_GIT = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """A working tree with vendor/x: a bare repository whose config runs `touch PWNED`."""
    source = tmp_path / "source"
    subprocess.run(["git", "init", "-q", str(source)], check=True)
    for text in ("a\n", "b\n"):
        (source / "f.txt").write_text(text)
        subprocess.run([*_GIT, "-C", str(source), "add", "f.txt"], check=True)
        subprocess.run([*_GIT, "-C", str(source), "commit", "-qm", text], check=True)
    tree = tmp_path / "tree"
    (tree / "vendor").mkdir(parents=True)
    bare = tree / "vendor" / "x"
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(bare)], check=True)
    (bare / "info" / "attributes").write_text("* diff=evil\n")
    with (bare / "config").open("a") as config:
        config.write('[diff "evil"]\n\ttextconv = "touch PWNED; cat"\n')
    return tree


COMMANDS = ["git -C vendor/x log -p -1", "cd vendor/x && git log -p -1", "cd vendor; git -C x show"]


def test_real_git_runs_the_planted_program(planted: Path) -> None:
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(planted.parent)}
    subprocess.run(["git", "-C", "vendor/x", "log", "-p", "-1"], cwd=planted, env=env,
                   capture_output=True, check=False)  # fmt: skip
    assert (planted / "vendor" / "x" / "PWNED").exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_without_the_tree_it_is_not_proven(command: str) -> None:
    verdict = readonly.assess(parse_command(command))
    assert not verdict.read_only
    assert verdict.codes == ("RW029",)


@pytest.mark.parametrize("command", COMMANDS)
def test_the_planted_repository_is_found(planted: Path, command: str) -> None:
    verdict = readonly.assess(parse_command(command), Tree(str(planted), str(planted.parent)))
    assert not verdict.read_only
    assert verdict.codes == ("RW020",)
    assert str(planted / "vendor" / "x") in verdict.reason


@pytest.mark.parametrize("command", COMMANDS)
def test_a_clean_tree_is_proven_and_says_what_it_checked(tmp_path: Path, command: str) -> None:
    (tmp_path / "vendor" / "x").mkdir(parents=True)
    verdict = readonly.assess(parse_command(command), Tree(str(tmp_path), str(tmp_path)))
    assert verdict.read_only, verdict
    assert str(tmp_path / "vendor" / "x") in verdict.checked


def test_the_working_directory_needs_no_tree() -> None:
    for command in ("git status", "git -C . log -p", "git log --oneline | head"):
        assert readonly.assess(parse_command(command)).read_only, command


def test_the_review_takes_the_tree(planted: Path, tmp_path: Path) -> None:
    from tether.approval import review

    command = "git -C vendor/x log -p -1"
    assert review(command).classification.codes == ("RW029",)  # type: ignore[union-attr]
    found = review(command, tree=Tree(str(planted), str(tmp_path))).classification
    assert found is not None and found.codes == ("RW020",)
    clean = tmp_path / "clean"
    (clean / "vendor" / "x").mkdir(parents=True)
    proven = review(command, tree=Tree(str(clean), str(tmp_path))).classification
    assert proven is not None and proven.read_only
    assert proven.to_json()["checked"][0] == str(clean / "vendor" / "x")


def test_a_hook_event_gives_the_guard_its_cwd(planted: Path) -> None:
    """The hook's payload names the directory the call runs in; the guard reviews with it."""
    from tether.guard import Guard
    from tether.hosts import claude_code
    from tether.hosts.runner import dispatch

    payload = {"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash",
               "tool_use_id": "t", "tool_input": {"command": "git -C vendor/x log -p -1"},
               "cwd": str(planted)}  # fmt: skip
    event = claude_code.parse(payload)
    seen: list[str | None] = []

    class Recording(Guard):
        def _tree(self, cwd: str | None) -> Tree | None:
            seen.append(cwd)
            return super()._tree(cwd)

    dispatch(Recording(), event)
    assert seen == [str(planted)]
    assert Guard()._tree(str(planted)) == Tree(str(planted), os.environ.get("HOME", ""))
