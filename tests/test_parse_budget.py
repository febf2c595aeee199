"""The parser's work is bounded: shapes that make tree-sitter superlinear never reach it.

Timings live in ``benchmarks/bench_parse_worst.py``; these tests pin the mechanisms (the pipe
cap, the command cap, the walk's clock) and the verdicts, deterministically.
"""

from __future__ import annotations

import pytest

from tether.classify import classify_command
from tether.shell import parse
from tether.shell.parse import MAX_INPUT_CHARS, MAX_PIPES, parse_command

NEAR_CAP = MAX_INPUT_CHARS - 64

# Shapes an attacker (or a confused model) can send; each is under the input cap.
ADVERSARIAL = {
    "trailing-pipe": "a | " * (NEAR_CAP // 4),
    "trailing-pipe-and": "a |& " * (NEAR_CAP // 5),
    "pipeline-in-subshell": "(" + "a | " * (NEAR_CAP // 4) + "a)",
    "pipeline-in-substitution": "echo $(" + "a | " * (NEAR_CAP // 4),
    "long-valid-pipeline": "cat f | " * (NEAR_CAP // 8) + "cat",
    "pipes-in-a-heredoc-script": "bash <<'EOF'\n" + "a | " * (NEAR_CAP // 4) + "\nEOF\n",
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_long_pipelines_are_unprovable_without_being_parsed(name: str) -> None:
    text = ADVERSARIAL[name]
    assert len(text) <= MAX_INPUT_CHARS
    model = parse_command(text)
    assert model.unprovable is not None and "pipe operators" in model.unprovable, model.unprovable
    assert model.commands == ()
    verdict = classify_command(text)
    assert not verdict.read_only


def test_the_pipe_cap_counts_pipe_operators_not_or_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    # What is counted, not how fast: a loaded CI machine must not turn this into the time
    # budget's test (that is test_the_clock_budget_stops_the_walk, and benchmarks/).
    monkeypatch.setattr(parse, "PARSE_BUDGET", 30.0)
    # `||` is a list operator (tree-sitter is linear in it): a long `||` chain still parses.
    assert parse_command("a || " * (MAX_PIPES * 2) + "a").unprovable is None
    at_cap = parse_command("a | " * MAX_PIPES + "a")
    assert at_cap.unprovable is None
    assert len(at_cap.commands) == MAX_PIPES + 1
    over = parse_command("a | " * (MAX_PIPES + 1) + "a")
    assert over.unprovable == f"{MAX_PIPES + 1:,} pipe operators, over the {MAX_PIPES:,} cap"


def test_a_payload_over_the_pipe_cap_is_unprovable_too() -> None:
    inner = "a | " * (MAX_PIPES + 1) + "a"
    for text in (f"bash -c '{inner}'", f"sh <<'EOF'\n{inner}\nEOF\n"):
        assert parse_command(text).unprovable is not None, text


@pytest.mark.parametrize(
    "text",
    [
        "a " + "> f " * 10_000,  # one command, ten thousand redirects
        "a=1 " * 10_000 + "b",
        'echo "' + "a $x " * 10_000,
        "echo $((" + "1+" * 10_000,
    ],
    ids=["redirects", "assignments", "unclosed-string", "unclosed-arithmetic"],
)
def test_a_tree_over_the_node_cap_is_not_walked(text: str) -> None:
    model = parse_command(text)
    assert model.unprovable is not None and "syntax nodes" in model.unprovable, model.unprovable
    assert model.commands == ()
    assert not classify_command(text).read_only


def test_the_clock_budget_stops_the_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    # A budget already spent: the walk looks at the clock every _CLOCK_EVERY steps, so an
    # input of a thousand commands gives up at its first look.
    monkeypatch.setattr(parse, "PARSE_BUDGET", -1.0)
    text = "a; " * 1000
    model = parse_command(text)
    assert model.unprovable is not None and "budget" in model.unprovable, model.unprovable
    assert len(model.commands) < 1000
    assert not classify_command(text).read_only


def test_small_inputs_never_meet_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    # Fewer walk steps than _CLOCK_EVERY: the clock is never read.
    monkeypatch.setattr(parse, "PARSE_BUDGET", -1.0)
    assert parse_command("git status --short | head -5 && echo done").ok


def test_the_command_cap_stops_the_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse, "PARSE_BUDGET", 600.0)  # the cap, not the clock, on a busy machine
    monkeypatch.setattr(parse, "MAX_NODES", 10**9)
    text = "a; " * (parse.MAX_COMMANDS + 10)
    model = parse_command(text)
    assert model.unprovable == f"more than {parse.MAX_COMMANDS:,} commands"
    assert len(model.commands) == parse.MAX_COMMANDS
    assert not classify_command(text).read_only


def test_parsing_keeps_nothing_of_its_input() -> None:
    # A guard process (the daemon, the sidecar) parses for days: no parse may retain its input.
    import gc
    import tracemalloc

    text = "echo " + "word " * 4000  # 20 KB
    parse_command(text)
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(100):
            parse_command(text)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 200_000, f"100 parses of a 20 KB input kept {grown:,} bytes"
