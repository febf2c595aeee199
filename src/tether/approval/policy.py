"""The approval policy: floors, the user's allow/deny globs, modes and unattended behaviour.

Order (first that applies wins):

1. Floors nothing lifts: a hardline rule, a user ``deny`` glob, ``sudo -S`` reading a password
   from stdin (DG408) -> block.
2. ``mode: off`` -> allow (the floors above still held).
3. A user ``allow`` glob matching a simple (non-compound) command -> allow.
4. Danger ``ask`` -> ask, or block when no human can answer and ``approvals.unattended`` is
   ``block``.
5. Otherwise allow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, NamedTuple

from tether.classify import Classification
from tether.model import ALLOW, Action, Decision
from tether.quoting import clip, quote
from tether.rules.base import Danger

if TYPE_CHECKING:
    from tether.config.core import Config

# Approval codes (the rule codes that fired are listed next to them).
ASK_CODE = "TA100"  # a danger rule asks for a human
DENY_CODE = "TA101"  # the user's deny glob matched
WORKER_CODE = "TA102"  # the isolated classification failed (fail closed)
UNATTENDED_CODE = "TA103"  # ask became block: no human can answer
FLOOR_CODE = "TA104"  # a hardline rule or sudo -S: blocked in every mode
UNANALYSABLE_CODE = "TA105"  # over the parser's caps: nothing could be checked (fail closed)
MALFORMED_CODE = "TA106"  # a shell call without a command string (fail closed)

SUDO_STDIN = "DG408"


class Policy(NamedTuple):
    """The ``approvals.*`` settings that decide a command's fate."""

    mode: str = "manual"
    unattended: str = "block"
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    disabled_rules: frozenset[str] = frozenset()
    enabled_rules: frozenset[str] = frozenset()
    threshold: int = 4096
    deadline: float = 10.0
    memory_mb: int = 512

    @classmethod
    def from_config(cls, config: Config | Policy | None) -> Policy:
        """Read the policy from a ``Config`` (None: the defaults)."""
        if config is None:
            return cls()
        if isinstance(config, Policy):
            return config
        get = config.get
        return cls(
            mode=str(get("approvals.mode")),
            unattended=str(get("approvals.unattended")),
            allow=tuple(str(p) for p in get("approvals.allow") or ()),
            deny=tuple(str(p) for p in get("approvals.deny") or ()),
            disabled_rules=frozenset(str(c).upper() for c in get("approvals.disabled_rules") or ()),
            enabled_rules=frozenset(str(c).upper() for c in get("approvals.enabled_rules") or ()),
            threshold=int(get("approvals.isolation.threshold")),
            deadline=float(get("approvals.isolation.deadline")),
            memory_mb=int(get("approvals.isolation.memory_mb")),
        )


class Evaluation(NamedTuple):
    """What classification found, before the policy decides: the part the worker computes."""

    classification: Classification
    deny_match: str | None = None
    simple: bool = False
    projections: tuple[str, ...] = ()
    unanalysable: str | None = None


def glob_match(patterns: Sequence[str], candidates: Sequence[str]) -> str | None:
    """Return the first pattern matching any candidate (case-insensitive, exact or glob)."""
    lowered = [c.strip().lower() for c in candidates if c.strip()]
    for pattern in patterns:
        p = pattern.strip().lower()
        if not p:
            continue
        for c in lowered:
            if c == p or fnmatchcase(c, p):
                return pattern
    return None


def decide(evaluation: Evaluation, policy: Policy, *, unattended: bool = False) -> Decision:
    """Turn an evaluation into one Decision under ``policy``."""
    c = evaluation.classification
    # enabled_rules wins over disabled_rules (a project file can switch back on what a user
    # file switched off); hardline rules are never off.
    off = policy.disabled_rules - policy.enabled_rules
    codes = tuple(code for code in c.danger_codes if code not in off or _hardline(c, code))
    evidence: dict[str, Any] = {"danger": c.danger.label, "rules": list(codes), "mode": policy.mode}
    if c.danger is Danger.HARDLINE:
        hard = tuple(code for code in codes if _hardline(c, code)) or codes
        return Decision(
            Action.BLOCK,
            (FLOOR_CODE, *codes),
            _message("Blocked (hardline; no setting allows this)", c, hard),
            evidence,
        )
    if evaluation.deny_match is not None:
        evidence["deny"] = evaluation.deny_match
        return Decision(
            Action.BLOCK,
            (DENY_CODE, *codes),
            f"Blocked by the user's deny rule {quote(evaluation.deny_match)}. Do not retry this "
            "command or reach the same result another way; ask the user if it is needed.",
            evidence,
        )
    if evaluation.unanalysable is not None:
        return Decision(
            Action.BLOCK,
            (UNANALYSABLE_CODE, *codes),
            f"Blocked: this command cannot be checked ({clip(evaluation.unanalysable, 240)}). "
            "Do not retry it inline: write the script to a file with your file-writing tool and "
            "run that file (e.g. `bash script.sh`).",
            {**evidence, "unanalysable": evaluation.unanalysable},
        )
    if SUDO_STDIN in c.danger_codes:
        return Decision(
            Action.BLOCK,
            (FLOOR_CODE, *c.danger_codes),
            _message(
                "Blocked (sudo -S with a password on stdin is never allowed)", c, (SUDO_STDIN,)
            ),
            {**evidence, "rules": list(c.danger_codes)},
        )
    if policy.mode == "off" or not codes:
        return ALLOW
    allowed = glob_match(policy.allow, evaluation.projections) if evaluation.simple else None
    if allowed is not None:
        return Decision(Action.ALLOW, (), "", {**evidence, "allow": allowed})
    if unattended and policy.unattended == "block":
        return Decision(
            Action.BLOCK,
            (UNATTENDED_CODE, *codes),
            _message("Blocked: this needs a human's approval and none is available", c, codes),
            evidence,
        )
    return Decision(
        Action.ASK,
        (ASK_CODE, *codes),
        _message("Needs approval", c, codes),
        evidence,
    )


def _hardline(c: Classification, code: str) -> bool:
    from tether.rules import get_rule
    from tether.rules.base import Tier

    rule = get_rule(code)
    return rule is not None and rule.tier is Tier.HARDLINE


def _message(lead: str, c: Classification, codes: Sequence[str]) -> str:
    from tether.rules import get_rule

    parts: list[str] = []
    instead = ""
    for code in codes:
        rule = get_rule(code)
        if rule is not None:
            parts.append(f"{code} {rule.name}")
            instead = instead or rule.instead
    reason = clip(c.danger_reason, 600) or ", ".join(parts)
    text = f"{lead}: {reason}."
    if instead:
        text += f" Instead: {instead}"
    return text


def evaluation_to_json(e: Evaluation) -> dict[str, Any]:
    """Return the JSON the worker prints for an evaluation."""
    c = e.classification
    return {
        "kind": "evaluation",
        "read_only": c.read_only,
        "codes": list(c.codes),
        "reason": c.reason,
        "danger": c.danger.label,
        "danger_codes": list(c.danger_codes),
        "danger_reason": c.danger_reason,
        "instead": c.instead,
        "deny_match": e.deny_match,
        "simple": e.simple,
        "projections": list(e.projections),
        "unanalysable": e.unanalysable,
    }


def policy_to_request(policy: Policy) -> Mapping[str, Any]:
    """Return the policy fields the worker needs (globs and rule switches; no secrets)."""
    return {
        "deny": list(policy.deny),
        "enabled_rules": sorted(policy.enabled_rules),
    }
