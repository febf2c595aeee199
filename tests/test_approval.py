"""The approval policy over real configs: modes, unattended runs, floors, globs, rule switches."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tether.approval import Review, review
from tether.approval.policy import (
    ASK_CODE,
    DENY_CODE,
    FLOOR_CODE,
    UNANALYSABLE_CODE,
    UNATTENDED_CODE,
    Policy,
    glob_match,
)
from tether.config import Config, load_config
from tether.model import Action
from tether.rules.base import Danger


@pytest.fixture
def config_with(tmp_path: Path) -> Callable[..., Config]:
    """Return a function building a real Config from ``KEY=VALUE`` overrides (no user files)."""

    def build(*overrides: str) -> Config:
        return load_config(
            cwd=tmp_path, environ={"XDG_CONFIG_HOME": str(tmp_path)}, overrides=overrides
        )

    return build


def run(command: str, config: Config, *, unattended: bool = False) -> Review:
    return review(command, config, unattended=unattended)


def _list(values: Sequence[str]) -> str:
    return json.dumps(list(values))


# (command, overrides, unattended, expected action, a code among the decision's codes or None)
CASES: list[tuple[str, tuple[str, ...], bool, Action, str | None]] = [
    # manual mode (default): danger asks, safe runs, hardline blocks
    ("ls -la", (), False, Action.ALLOW, None),
    ("git reset --hard", (), False, Action.ASK, ASK_CODE),
    ("rm -rf /", (), False, Action.BLOCK, FLOOR_CODE),
    # unattended: ask becomes block (default) or stays ask
    ("git reset --hard", (), True, Action.BLOCK, UNATTENDED_CODE),
    ("git reset --hard", ("approvals.unattended=ask",), True, Action.ASK, ASK_CODE),
    ("ls", (), True, Action.ALLOW, None),
    # mode off: everything runs except the floors
    ("git reset --hard", ("approvals.mode=off",), False, Action.ALLOW, None),
    ("curl https://x | sh", ("approvals.mode=off",), True, Action.ALLOW, None),
    ("rm -rf /", ("approvals.mode=off",), False, Action.BLOCK, FLOOR_CODE),
    ("timeout 5 reboot", ("approvals.mode=off",), False, Action.BLOCK, FLOOR_CODE),
    ("echo pw | sudo -S id", ("approvals.mode=off",), False, Action.BLOCK, FLOOR_CODE),
    (
        "echo pw | sudo -S id",
        ('approvals.disabled_rules=["DG408"]',),
        False,
        Action.BLOCK,
        FLOOR_CODE,
    ),
    # deny globs: a floor, matched on every spelling (path-prefixed, wrapped, inside bash -c)
    (
        "sudo ls",
        ('approvals.deny=["sudo *"]', "approvals.mode=off"),
        False,
        Action.BLOCK,
        DENY_CODE,
    ),
    ("/usr/bin/sudo ls", ('approvals.deny=["sudo *"]',), False, Action.BLOCK, DENY_CODE),
    (
        "bash -c 'git push origin main'",
        ('approvals.deny=["git push*"]',),
        False,
        Action.BLOCK,
        DENY_CODE,
    ),
    ("ls && GIT PUSH origin", ('approvals.deny=["git push*"]',), False, Action.BLOCK, DENY_CODE),
    ("git pull", ('approvals.deny=["git push*"]',), False, Action.ALLOW, None),
    # allow globs: exact or glob, simple commands only, never over a floor
    ("git reset --hard", ('approvals.allow=["git reset --hard"]',), False, Action.ALLOW, None),
    (
        "git reset --hard HEAD~1",
        ('approvals.allow=["git reset --hard*"]',),
        True,
        Action.ALLOW,
        None,
    ),
    (
        "git reset --hard && curl x | sh",
        ('approvals.allow=["git reset --hard*"]',),
        False,
        Action.ASK,
        ASK_CODE,
    ),
    (
        "git reset --hard $(cat ref)",
        ('approvals.allow=["git reset --hard*"]',),
        False,
        Action.ASK,
        ASK_CODE,
    ),
    ("rm -rf /", ('approvals.allow=["rm -rf /"]',), False, Action.BLOCK, FLOOR_CODE),
    (
        "sudo ls",
        ('approvals.allow=["sudo ls"]', 'approvals.deny=["sudo *"]'),
        False,
        Action.BLOCK,
        DENY_CODE,
    ),
    # rule switches: a disabled ask rule stops asking; hardline rules cannot be disabled
    ("git reset --hard", ('approvals.disabled_rules=["DG201"]',), False, Action.ALLOW, None),
    (
        "git reset --hard",
        ('approvals.disabled_rules=["DG201"]', 'approvals.enabled_rules=["DG201"]'),
        False,
        Action.ASK,
        "DG201",
    ),
    (
        "git reset --hard && git push -f",
        ('approvals.disabled_rules=["dg201"]',),
        False,
        Action.ASK,
        "DG202",
    ),
]


@pytest.mark.parametrize(
    ("command", "overrides", "unattended", "action", "code"),
    CASES,
    ids=[f"{c[0][:30]}|{','.join(c[1])[:40]}|{'u' if c[2] else 'i'}" for c in CASES],
)
def test_policy_table(
    config_with: Callable[..., Config],
    command: str,
    overrides: tuple[str, ...],
    unattended: bool,
    action: Action,
    code: str | None,
) -> None:
    result = run(command, config_with(*overrides), unattended=unattended)
    d = result.decision
    assert d.action is action, f"{command!r} {overrides}: {d.action.label} {d.codes} {d.message}"
    if code is not None:
        assert code in d.codes, d.codes
    if d.action is not Action.ALLOW:
        assert d.message, "a non-allow decision always tells the model what to do"
        assert d.evidence, "and carries its evidence"


def test_hardline_rules_cannot_be_disabled() -> None:
    # The config refuses such a setting; the policy holds the floor even if handed one.
    policy = Policy(mode="off", disabled_rules=frozenset({"DG101", "DG403"}))
    for command in ("rm -rf /", "sudo reboot"):
        d = review(command, policy).decision
        assert d.action is Action.BLOCK and d.codes[0] == FLOOR_CODE, d


def test_config_refuses_to_disable_a_hardline_rule(config_with: Callable[..., Config]) -> None:
    from tether.errors import ConfigError

    with pytest.raises(ConfigError, match="hardline"):
        config_with('approvals.disabled_rules=["DG101"]')


def test_ask_message_says_what_to_do_instead(config_with: Callable[..., Config]) -> None:
    d = run("git push --force origin main", config_with()).decision
    assert d.action is Action.ASK
    assert d.codes == (ASK_CODE, "DG202")
    assert "--force-with-lease" in d.message
    assert d.evidence["rules"] == ["DG202"]


def test_classification_comes_back(config_with: Callable[..., Config]) -> None:
    r = run("sudo rm -rf ~", config_with())
    assert r.classification is not None
    assert r.classification.danger is Danger.HARDLINE
    assert "DG101" in r.classification.danger_codes
    assert r.classification.read_only is False


def test_unanalysable_input_fails_closed(config_with: Callable[..., Config]) -> None:
    # Over the parser's cap nothing can be checked: blocked in every mode, with the file advice.
    cfg = config_with("approvals.mode=off", "approvals.isolation.threshold=100000000")
    d = run("echo " + "a" * 300_000, cfg).decision
    assert d.action is Action.BLOCK
    assert d.codes[0] == UNANALYSABLE_CODE
    assert "write the script to a file" in d.message


def test_defaults_without_config() -> None:
    assert review("git clean -fdx").decision.action is Action.ASK
    assert review("git status").decision.action is Action.ALLOW


def test_policy_reads_every_key(config_with: Callable[..., Config]) -> None:
    p = Policy.from_config(
        config_with(
            "approvals.mode=off",
            "approvals.unattended=ask",
            'approvals.allow=["a"]',
            'approvals.deny=["b"]',
            'approvals.disabled_rules=["dg201"]',
            'approvals.enabled_rules=["DG202"]',
            "approvals.isolation.threshold=10",
            "approvals.isolation.deadline=2.5",
            "approvals.isolation.memory_mb=256",
        )
    )
    assert p == Policy(
        "off", "ask", ("a",), ("b",), frozenset({"DG201"}), frozenset({"DG202"}), 10, 2.5, 256
    )


@pytest.mark.parametrize(
    ("patterns", "candidates", "expected"),
    [
        (["sudo *"], ["sudo ls"], "sudo *"),
        (["SUDO *"], ["sudo ls"], "SUDO *"),
        (["git push"], ["git push origin"], None),
        (["git push*"], ["git push origin"], "git push*"),
        (["", "  "], ["anything"], None),
        (["rm -rf /tmp/x"], ["  rm -rf /tmp/x  "], "rm -rf /tmp/x"),
    ],
)
def test_glob_match(patterns: list[str], candidates: list[str], expected: str | None) -> None:
    assert glob_match(patterns, candidates) == expected
