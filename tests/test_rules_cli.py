"""``tether rules``: list both catalogues, show one entry with examples, JSON and Markdown."""

from __future__ import annotations

import json

import pytest

from tether.cli import main
from tether.rules import all_codes


def test_list_shows_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for rule in all_codes():
        assert f"{rule.code} " in out and rule.name in out


@pytest.mark.parametrize("key", ["RO302", "ro302", "sed-print"])
def test_show_one_rule_by_code_or_name(capsys: pytest.CaptureFixture[str], key: str) -> None:
    assert main(["rules", key]) == 0
    out = capsys.readouterr().out
    assert out.startswith("RO302 sed-print (read)")
    assert "Why:" in out and "Instead:" in out
    assert "Matches:\n  sed -n 1,5p file.txt" in out
    assert "Does not match:\n  sed -i 's/foo/bar/' file" in out


def test_unknown_rule_suggests_a_close_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "sed-prin"]) == 2
    assert "did you mean 'sed-print'" in capsys.readouterr().err


def test_json_lists_all_and_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["code"] for d in data] == [r.code for r in all_codes()]
    assert main(["rules", "RW004", "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert one["name"] == "command-substitution" and one["tier"] == "read"
    assert "echo `pwd`" in one["match"] and "echo $(pwd)" in one["not_match"]


def test_a_rule_shows_the_option_grammars_of_its_examples(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rules", "DG101"]) == 0
    out = capsys.readouterr().out
    grammars = out.split("Option grammars", 1)[1]
    assert "rm (options may follow operands; unique prefixes):" in grammars
    assert "-r/-R/--recursive" in grammars
    assert "sudo (options end at the first operand" in grammars
    assert main(["rules", "DG202", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["grammars"]
    assert any(g.startswith("git push (") and "--force-with-lease[=V]" in g for g in shown)


@pytest.mark.parametrize(
    ("code", "shown"),
    [
        ("RO101", ["cat (options may follow operands", "-A/--show-all", "head ("]),
        ("RO304", ["sort (", "--check[=V]"]),
        ("RO201", ["grep (options may follow operands; unique prefixes; -NUM)"]),
    ],
)
def test_a_read_rule_shows_the_specs_its_commands_are_read_with(
    capsys: pytest.CaptureFixture[str], code: str, shown: list[str]
) -> None:
    assert main(["rules", code]) == 0
    grammars = capsys.readouterr().out.split("Option grammars", 1)[1]
    for text in shown:
        assert text in grammars, (code, text)


def test_program_shows_its_checks_and_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--program", "rm"]) == 0
    out = capsys.readouterr().out
    assert "deletion.check_rm" in out and "credentials.check_git_dir_delete" in out
    assert "reports: DG210" in out  # a check filed with @program_check declares its rules
    assert "DG101 rm-recursive-root (hardline)" in out  # a rule whose examples run rm
    assert "secrets.check_metadata" not in out  # dispatched by the input's words, not by rm


def test_program_json_says_where_it_runs_command_strings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rules", "--json", "--program", "psql"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["program"] == "psql" and data["runs_commands"] is True
    assert {"check": "stores.check_sql"}.items() <= data["checks"][0].items()
    assert data["checks"][0]["rules"] == ["DG501"]
    assert main(["rules", "--json", "--program", "ls"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs_commands"] is False and data["read_only"] is True
