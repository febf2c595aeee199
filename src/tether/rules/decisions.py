"""The codes a decision carries besides the catalogue rules, as entries ``tether rules`` explains.

The read-only (``RO``/``RW``) and danger (``DG``) catalogues are rules a command matches. A
decision also carries codes the catalogues do not hold: the approval policy's verdicts
(``TA1xx``), the loop detectors' findings (``TL2xx``) and Tether's own fail-closed answer
(``tether-error``). Each gets the same entry layout (code, name, summary, why, instead, examples)
so every code a user sees is explained in one place. The loop codes' names and advice come
from ``tether.loops.detectors.CODES`` and the approval codes from ``tether.approval.policy``,
so the text cannot drift from what a decision prints; only the explanations live here.
"""

from __future__ import annotations

from tether.rules.base import Rule, Tier

# code -> (summary, why, examples). Examples describe the situation that raises the code.
_LOOPS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "TL201": (
        "A read-only call repeated with the same result.",
        "Reading the same thing again and getting the same answer is no progress: the agent is "
        "waiting for a change that is not coming, or has forgotten the answer. Thresholds: "
        "`loops.warn_after.idempotent_no_progress`, "
        "`loops.hard_stop_after.idempotent_no_progress`.",
        (
            "`gh api repos/o/r/pulls/1/reviews` returning `[]` again and again",
            "`Read src/cart.py` with the file unchanged since the last read",
        ),
    ),
    "TL202": (
        "A call not proven read-only repeated with the same result.",
        "A command that may write but keeps producing the same output changed nothing the agent "
        "can see; repeating it burns time. Thresholds: `loops.warn_after.mutating_no_progress`, "
        "`loops.hard_stop_after.mutating_no_progress`.",
        ("`cargo autopilot` printing the same report on every run",),
    ),
    "TL203": (
        "The same call failed the same way again.",
        "Retrying an identical call that failed, with nothing written in between, fails again. "
        "Thresholds: `loops.warn_after.exact_failure`, `loops.hard_stop_after.exact_failure`.",
        ("`pytest -q tests/test_cart.py` failing with the same assertion, unchanged code",),
    ),
    "TL204": (
        "One tool failing call after call, whatever the arguments.",
        "A streak of failures of one tool usually means the agent misuses it. Tools listed in "
        "`tools.failure_tolerant` still warn (a shell's failures are information) but are never "
        "stopped by this code. Thresholds: `loops.warn_after.same_tool_failure`, "
        "`loops.hard_stop_after.same_tool_failure`.",
        ("`Edit` rejected again and again because `old_string` is not in the file",),
    ),
    "TL205": (
        "A sequence of calls repeating in the same order with the same results.",
        "A cycle (A, B, A, B …) whose every leg returns what it returned last lap makes no "
        "progress, though no single call repeats back to back. Thresholds: "
        "`loops.warn_after.cycle`, `loops.hard_stop_after.cycle`.",
        ("`git status`, `git diff`, `git status`, `git diff` … with identical outputs",),
    ),
    "TL206": (
        "A polling call whose output has not changed for the whole wait.",
        "Pollers (`tools.poll`) are meant to repeat, within a budget of calls and seconds "
        "(`loops.poll.max_count`, `loops.poll.max_seconds`); past it the wait is over.",
        ("`BashOutput` returning the same partial log for many minutes",),
    ),
    "TL207": (
        "Too many tool calls in one user turn.",
        "A turn that runs far longer than usual is worth a summary for the user before going on. "
        "Thresholds: `loops.warn_after.turn_calls`, `loops.hard_stop_after.turn_calls`.",
        ("hundreds of distinct calls since the user last wrote",),
    ),
    "TL208": (
        "A call Tether refused was tried again.",
        "Retrying a refused call verbatim will be refused again; the third refusal of the same "
        "call halts the agent so a human can look.",
        ("the same blocked `rm -rf build/` sent a second and a third time",),
    ),
    "TL209": (
        "Assistant messages piling up with no tool call or user turn between them.",
        "An agent writing message after message without acting or handing back is stuck "
        "talking to itself.",
        ("the same status paragraph written several times in a row",),
    ),
    "TL210": (
        "A sub-agent working many rounds without writing anything or reporting.",
        "With `progress.enabled`, a delegated agent that neither changes anything nor reports "
        "is warned at `progress.warn_after` calls and halted at `progress.halt_after`.",
        ("a research sub-agent reading file after file, never reporting back",),
    ),
}

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
    from tether.loops.detectors import CODES

    entries: list[Rule] = []
    for code, (name, summary, why, instead, shown) in _APPROVALS.items():
        entries.append(Rule(code, name, Tier.APPROVAL, summary, why, instead, shown))
    for c in CODES.values():
        summary, why, shown = _LOOPS[c.code]
        entries.append(Rule(c.code, c.name, Tier.LOOP, summary, why, c.instead, shown))
    entries.append(FAILURE)
    return entries


__all__ = ["FAILURE", "decision_codes"]
