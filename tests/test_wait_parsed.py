"""How long a polling command waits, read from its parsed commands (not from its raw text)."""

from __future__ import annotations

import pytest

from tether.loops.kinds import wait_seconds
from tether.shell import parse_command

CASES = [
    ("sleep 30 && gh run view 1", 30.0),
    ("sleep 5; curl x", 5.0),
    ("until curl -s x; do sleep 10; done", 10.0),
    ("sleep 1m", 60.0),
    ("watch -n 5 ls", 0.0),
    ("gh run watch 123", 0.0),
    ("gh pr checks 12 --watch", 0.0),
    ("kubectl rollout status deploy/x", 0.0),
    ("kubectl wait --for=condition=ready pod/x", 0.0),
    ("d=5; sleep 30", 30.0),  # the evaluator's reading repeats `sleep 30`: counted once
    ("cat <<'EOF' > notes.md\nsleep 30\nEOF", None),  # text, not a wait
    ("echo 'sleep 30'", None),
    ("sleep 0.5", None),
    ("ls", None),
]


@pytest.mark.parametrize(("command", "seconds"), CASES)
def test_waits_are_read_from_the_parse(command: str, seconds: float | None) -> None:
    parse_command(command)  # the review's parse, which the guard has just made
    assert wait_seconds(command) == seconds


def test_a_long_input_is_scanned_at_its_start_only() -> None:
    note = "cat > notes.md <<'EOF'\n" + "| a | we watch it, then sleep 30 |\n" * 4000 + "EOF"
    assert len(note) > 100_000
    assert wait_seconds(note) is None
    assert wait_seconds("sleep 30 && " + note) == 30.0
