"""DG501 on SQL a client reads from a file: ``psql -f FILE``, ``sqlite3 DB < FILE``, ``.read FILE``.

The file is read from the working tree the assessment is given (``Tree``), never from the
judging process's directory; the verdict names the file and the statement that decided. A
script that cannot be read (no tree, missing, a FIFO, too large, a symlink loop, a run-time
name) asks. The destructive forms are proven by running them with the real sqlite3 in bash.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tether.approval import review
from tether.classify import classify_command
from tether.rules.base import Danger
from tether.rules.danger._files import MAX_FILE_BYTES, MAX_LINKS
from tether.rules.readonly import Tree

DOWN = "SELECT 1;\n-- tidy up\nDROP TABLE users;\n"
UP = "CREATE TABLE IF NOT EXISTS t(x int);\nINSERT INTO t VALUES (1);\n"


@pytest.fixture()
def tree(tmp_path: Path) -> Tree:
    (tmp_path / "down.sql").write_text(DOWN)
    (tmp_path / "up.sql").write_text(UP)
    (tmp_path / "inc.sql").write_text(".read down.sql\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "wipe.sql").write_text("DELETE FROM users;\n")
    os.symlink("down.sql", tmp_path / "link.sql")
    return Tree(str(tmp_path), str(tmp_path))


DESTRUCTIVE = [
    ("psql -f down.sql", "statement 2 of down.sql"),
    ("psql --file=down.sql", "statement 2 of down.sql"),
    ("psql -fdown.sql", "statement 2 of down.sql"),
    ("psql < down.sql", "statement 2 of down.sql"),
    ("psql 0< down.sql", "statement 2 of down.sql"),
    ("sqlite3 app.db < down.sql", "statement 2 of down.sql"),
    ("mysql shop < down.sql", "statement 2 of down.sql"),
    ("sqlite3 app.db '.read down.sql'", "statement 2 of down.sql"),
    ("sqlite3 app.db < inc.sql", "statement 2 of down.sql"),  # an include of an include
    ("psql -f link.sql", "statement 2 of link.sql"),  # a symlink followed
    ("cd sub && sqlite3 app.db < wipe.sql", "statement 1 of wipe.sql"),  # the line's cd
    ("sh -c 'psql -f down.sql'", "statement 2 of down.sql"),  # the tree reaches nested text
]


@pytest.mark.parametrize(("command", "where"), DESTRUCTIVE)
def test_a_destructive_script_asks_and_says_which_statement(
    tree: Tree, command: str, where: str
) -> None:
    verdict = classify_command(command, tree)
    assert verdict.danger is Danger.ASK
    assert "DG501" in verdict.danger_codes
    assert where in verdict.danger_reason


@pytest.mark.parametrize(
    "command",
    [
        "psql -f up.sql",
        "sqlite3 app.db < up.sql",
        "sqlite3 app.db '.read up.sql'",
        "mysql < up.sql",
    ],
)
def test_a_harmless_script_passes(tree: Tree, command: str) -> None:
    verdict = classify_command(command, tree)
    assert verdict.danger is Danger.NONE, verdict.danger_reason


def test_without_a_tree_a_script_is_not_read_and_asks() -> None:
    verdict = classify_command("psql -f up.sql")
    assert verdict.danger is Danger.ASK
    assert "no working tree" in verdict.danger_reason


def test_the_tree_not_the_process_cwd_decides(tree: Tree, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "down.sql").write_text(UP)  # same name, harmless here
    assert classify_command("psql -f down.sql", Tree(str(elsewhere), str(tmp_path))).danger is (
        Danger.NONE
    )
    assert classify_command("psql -f down.sql", tree).danger is Danger.ASK


def test_the_review_takes_the_tree(tree: Tree) -> None:
    found = review("sqlite3 app.db < down.sql", tree=tree).classification
    assert found is not None and "statement 2 of down.sql" in found.danger_reason


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda p: None, "not readable"),
        (lambda p: os.mkfifo(p), "not a regular file"),
        (lambda p: p.write_text("SELECT 1;\n" * (MAX_FILE_BYTES // 8)), "larger than"),
        (lambda p: os.symlink(p.name, p), "symbolic links"),  # a loop
        (lambda p: p.mkdir(), "not a regular file"),
    ],
    ids=["missing", "fifo", "too-big", "link-loop", "directory"],
)
def test_a_script_that_cannot_be_read_asks(tmp_path: Path, make, why: str) -> None:
    script = tmp_path / "s.sql"
    make(script)
    verdict = classify_command("psql -f s.sql", Tree(str(tmp_path), str(tmp_path)))
    assert verdict.danger is Danger.ASK
    assert why in verdict.danger_reason, verdict.danger_reason


def test_a_chain_longer_than_the_link_bound_asks(tmp_path: Path) -> None:
    (tmp_path / "l0").write_text(UP)
    for i in range(1, MAX_LINKS + 3):
        os.symlink(f"l{i - 1}", tmp_path / f"l{i}")
    short = classify_command("psql -f l2", Tree(str(tmp_path), str(tmp_path)))
    assert short.danger is Danger.NONE
    long = classify_command(f"psql -f l{MAX_LINKS + 2}", Tree(str(tmp_path), str(tmp_path)))
    assert "symbolic links" in long.danger_reason


def test_a_run_time_name_asks(tree: Tree) -> None:
    verdict = classify_command('psql -f "$F"', tree)
    assert verdict.danger is Danger.ASK and "run time" in verdict.danger_reason


@pytest.mark.parametrize(
    "command",
    ["sqlite3 app.db < down.sql", "sqlite3 app.db '.read down.sql'", "sqlite3 app.db < inc.sql"],
)
def test_the_forms_are_destructive_in_real_bash(tree: Tree, command: str) -> None:
    """The oracle for these forms: real sqlite3 under real bash drops the table."""
    db = Path(tree.cwd) / "app.db"
    subprocess.run(["sqlite3", str(db), "CREATE TABLE users(id int)"], check=True)
    subprocess.run(["bash", "-c", command], cwd=tree.cwd, check=True, capture_output=True)
    tables = subprocess.run(
        ["sqlite3", str(db), ".tables"], check=True, capture_output=True, text=True
    ).stdout
    assert "users" not in tables.split()


@pytest.mark.parametrize(
    "command",
    [
        "echo 'DROP TABLE users;' > up.sql; psql -f up.sql",
        "cp down.sql up.sql && sqlite3 app.db < up.sql",
        "printf 'DROP TABLE users;' | tee up.sql | psql -f up.sql",
        "sed -i 's/CREATE/DROP/' up.sql && sqlite3 app.db '.read up.sql'",
        "echo 'DROP TABLE users;' > up.sql; sh -c 'psql -f up.sql'",
        "ln -sf down.sql up.sql; psql -f up.sql",
    ],
)
def test_a_script_changed_earlier_on_the_line_is_not_trusted(tree: Tree, command: str) -> None:
    """up.sql is harmless now; the line rewrites it before the client reads it."""
    verdict = classify_command(command, tree)
    assert verdict.danger is Danger.ASK, command
    assert "DG501" in verdict.danger_codes
