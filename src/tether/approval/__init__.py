"""The approval policy: decide whether a shell command may run, ask a human, or is blocked.

``review(command, config, unattended=...)`` classifies a shell command (in-process, or in the
isolated worker above ``approvals.isolation.threshold`` characters) and applies the approval
mode, the user's allow/deny globs and the floors, returning the classification and one
``Decision``. See ``tether.approval.policy`` for the order of the rules.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, NamedTuple

from tether.approval.evaluate import evaluate
from tether.approval.policy import MALFORMED_CODE, WORKER_CODE, Policy, decide
from tether.classify import Classification
from tether.errors import WorkerError
from tether.model import Action, Decision

if TYPE_CHECKING:
    from tether.approval.isolation import IsolatedClassifier
    from tether.config.core import Config
    from tether.rules.readonly.tree import Tree


class Review(NamedTuple):
    """A command's classification (None when it could not be classified) and the decision."""

    classification: Classification | None
    decision: Decision


_WORKER: IsolatedClassifier | None = None
_WORKER_LOCK = threading.Lock()


def isolated_classifier(policy: Policy) -> IsolatedClassifier:
    """Return the process-wide worker (started lazily, kept for the life of the process)."""
    global _WORKER
    # Imported here: a hook process that never sees a long command never loads subprocess.
    import atexit

    from tether.approval.isolation import IsolatedClassifier

    with _WORKER_LOCK:
        if _WORKER is None or _WORKER.memory_mb != policy.memory_mb:
            if _WORKER is not None:
                _WORKER.close()
            _WORKER = IsolatedClassifier(deadline=policy.deadline, memory_mb=policy.memory_mb)
            atexit.register(_WORKER.close)
        _WORKER.deadline = policy.deadline
        return _WORKER


def worker_block(command: str, error: WorkerError) -> Decision:
    """Return the fail-closed decision for a command the worker could not classify."""
    return Decision(
        Action.BLOCK,
        (WORKER_CODE,),
        f"Blocked: this {len(command)}-character command could not be checked ({error}). Do not "
        "retry it inline: write the script to a file with your file-writing tool and run that "
        "file (e.g. `bash script.sh`).",
        {"length": len(command), "error": str(error)},
    )


def malformed_shell_call(tool: str, key: str, args: Any) -> Review:
    """Return the fail-closed review of a shell call whose command is not a string."""
    value = args.get(key) if hasattr(args, "get") else None
    if not hasattr(args, "get") or key not in args:
        found = f"has no {key!r} argument"
    elif value is None:
        found = f"has {key!r} set to null"
    else:
        found = f"has {key!r} set to {type(value).__name__} {str(value)[:40]!r}, not a string"
    return Review(
        None,
        Decision(
            Action.BLOCK,
            (MALFORMED_CODE,),
            f"Blocked: this {tool} call {found}, so there is no command to check. Send the "
            f"command line as a string in {key!r}.",
            {"tool": tool, "key": key},
        ),
    )


def review(
    command: str,
    config: Config | Policy | None = None,
    *,
    unattended: bool = False,
    classifier: IsolatedClassifier | None = None,
    tree: Tree | None = None,
) -> Review:
    """Classify ``command`` and decide whether it may run; ``tree`` is where it runs (the
    working tree and home, checked for what a read-looking command would obey there)."""
    policy = Policy.from_config(config)
    if len(command) > policy.threshold:
        worker = classifier or isolated_classifier(policy)
        try:
            evaluation = worker.evaluate(command, policy)
        except WorkerError as exc:
            return Review(None, worker_block(command, exc))
    else:
        evaluation = evaluate(command, policy.deny, tree)
    return Review(evaluation.classification, decide(evaluation, policy, unattended=unattended))


def __getattr__(name: str) -> Any:
    if name == "IsolatedClassifier":
        from tether.approval.isolation import IsolatedClassifier

        return IsolatedClassifier
    raise AttributeError(f"module 'tether.approval' has no attribute {name!r}")


__all__ = [
    "IsolatedClassifier",
    "Policy",
    "Review",
    "malformed_shell_call",
    "review",
    "worker_block",
]
