"""docs/rules.md is generated from the catalogues; this fails when it is stale."""

from __future__ import annotations

from pathlib import Path

from tether.cli.rules import markdown
from tether.rules import all_codes

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules.md"


def test_rules_doc_is_up_to_date() -> None:
    expected = markdown(all_codes())
    assert DOC.read_text(encoding="utf-8") == expected, (
        "docs/rules.md is stale: run `tether rules --markdown > docs/rules.md`"
    )


def test_rules_doc_has_a_section_per_rule() -> None:
    text = DOC.read_text(encoding="utf-8")
    for rule in all_codes():
        assert f"\n## {rule.code}\n" in text
