"""The codes a decision carries besides the catalogue rules, as entries ``tether rules`` explains.

The read-only (``RO``/``RW``) and danger (``DG``) catalogues are rules a command matches. A
decision also carries codes the catalogues do not hold: the approval policy's verdicts
(``TA1xx``), the loop detectors' findings (``TL2xx``) and Tether's own fail-closed answer
(``tether-error``). Each gets the same entry layout (code, name, summary, why, instead, examples)
so every code a user sees is explained in one place. The loop codes' entries are each
detector's own declaration (``tether.loops.detectors``) and the approval codes come from
``tether.approval.policy``, so the text cannot drift from what a decision prints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.rules.base import Rule, Tier

if TYPE_CHECKING:
    from tether.loops.detectors import Detector

# code -> (name, summary, why, instead, examples)
_APPROVALS: dict[str, tuple[str, str, str, str, tuple[str, ...]]] = {
    "TA100": (
        "needs-approval",
        "A danger rule asks for a human's approval (the rule's code is listed next to it).",
        "Commands that can lose work or reach outside the project (force pushes, deleting "
        "outside the workspace, …) run only when someone approves them, under "
        "`approvals.mode: manual`.",
        "ask the user, or reach the goal with a command that does not need approval",
        ("git push --force origin main", "rm -rf ../other-project"),
    ),
    "TA101": (
        "user-deny-rule",
        "The user's `approvals.deny` glob matched the command.",
        "A deny glob is a floor: it blocks in every mode, and no allow glob lifts it.",
        "do not retry or reach the same result another way; ask the user if it is needed",
        ("ls -la  (with approvals.deny: ['ls*'])",),
    ),
    "TA102": (
        "isolated-check-failed",
        "The isolated classification of a large command failed or ran out of time.",
        "Commands above `approvals.isolation.threshold` bytes are classified in a supervised "
        "worker with a deadline (`approvals.isolation.deadline`); when it fails nothing was "
        "proven, so the call is refused (fail closed).",
        "split the command, or write it to a script file and run that file",
        ("a 100 KiB one-liner whose worker exceeded its deadline",),
    ),
    "TA103": (
        "no-human-to-ask",
        "A command that needs approval was blocked because no human can answer.",
        "With `approvals.unattended: block` (the default), a run without a human (a CI job, "
        "`claude -p`, a sidecar client that says unattended) turns every ask into a block.",
        "do without the command, or run the agent where someone can approve it",
        ("git push --force origin main  (unattended)",),
    ),
    "TA104": (
        "hardline-floor",
        "A hardline rule (or `sudo -S` reading a password from stdin) matched: blocked in every "
        "mode.",
        "Irreversible, machine-level damage is blocked even with `approvals.mode: off`; no "
        "setting or allow glob lifts it.",
        "do not run it; say what you wanted to achieve and let the user do it",
        ("rm -rf /", "echo secret | sudo -S rm file"),
    ),
    "TA105": (
        "unanalysable-command",
        "The command is over the parser's caps, so nothing in it could be checked.",
        "A command longer or more deeply nested than the parser accepts cannot be proven safe, "
        "so it is refused rather than guessed at (fail closed).",
        "write the script to a file with your file-writing tool and run that file",
        ("a command nested 2,000 brackets deep",),
    ),
    "TA106": (
        "shell-call-without-command",
        "A shell tool call whose command argument is missing, null or not a string.",
        "Nothing can be classified without a command line, and a host or client that sends "
        "none may be running something else; the call is refused rather than allowed unseen "
        "(fail closed).",
        "send the command line as a string in the tool's command argument",
        ('{"tool": "Bash", "args": {}}', '{"tool": "Bash", "args": {"command": 42}}'),
    ),
}

FAILURE = Rule(
    "tether-error",
    "tether-error",
    Tier.FAILURE,
    "Tether itself could not check the call, so it refused it (fail closed).",
    "A crash, a timeout, an unreadable store or a broken configuration must never let a call "
    "through silently; the message names the cause.",
    "fix the cause the message names (`tether doctor` checks the config, the store and the "
    "hooks), then retry",
    ("a hook whose state store cannot be opened",),
)


def decision_codes() -> list[Rule]:
    """Return an entry for every approval and loop code, and Tether's own failure code."""
    from tether.loops.detectors import ALL

    entries: list[Rule] = []
    for code, (name, summary, why, instead, shown) in _APPROVALS.items():
        entries.append(Rule(code, name, Tier.APPROVAL, summary, why, instead, shown))
    for d in sorted(ALL, key=lambda d: d.code):
        entries.append(Rule(d.code, d.name, Tier.LOOP, d.summary, _why(d), d.instead, d.examples))
    entries.append(FAILURE)
    return entries


def _why(d: Detector) -> str:
    """Return the detector's explanation with the config keys of its thresholds."""
    if d.warn_after is None:
        return d.why
    keys = [f"`loops.warn_after.{d.key}`"]
    if d.hard_stop_after is not None:
        keys.append(f"`loops.hard_stop_after.{d.key}`")
    return f"{d.why} Thresholds: {', '.join(keys)}."


__all__ = ["FAILURE", "decision_codes"]
