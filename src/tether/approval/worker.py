"""The isolated classification worker: ``python -m tether.approval.worker``.

Reads one JSON request per line on stdin and writes one JSON verdict per line on stdout.
Requests: ``{"id": n, "mode": "ping"}`` -> ``{"id": n, "kind": "pong"}``;
``{"id": n, "mode": "evaluate", "command": "...", "deny": [...]}`` -> ``{"id": n, "kind":
"evaluation", ...}`` (see ``tether.approval.policy.evaluation_to_json``). Any exception ends the
process with status 2: the parent treats that like a crash and blocks the command.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any


def _limit_memory(megabytes: int) -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return
    limit = megabytes * 1024 * 1024
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def handle(request: dict[str, Any]) -> dict[str, Any]:
    """Answer one request (pure apart from the classification itself)."""
    from tether.approval.evaluate import evaluate
    from tether.approval.policy import evaluation_to_json

    mode = request.get("mode")
    if mode == "ping":
        return {"id": request.get("id"), "kind": "pong"}
    if mode == "evaluate":
        command = request["command"]
        deny = [str(p) for p in request.get("deny", ())]
        if not isinstance(command, str):
            raise TypeError("command must be a string")
        from tether.rules.protected import configured, from_json

        with configured(from_json(request.get("places"))):
            evaluation = evaluate(command, deny)
        return {"id": request.get("id"), **evaluation_to_json(evaluation)}
    raise ValueError("unknown request mode")


def main(argv: Sequence[str] | None = None) -> int:
    """Serve requests until stdin closes."""
    args = list(sys.argv[1:] if argv is None else argv)
    if "--memory-mb" in args:
        _limit_memory(int(args[args.index("--memory-mb") + 1]))
    from tether.approval.evaluate import evaluate

    evaluate("true")  # load the parser and catalogues before the first real request
    stdin = sys.stdin.buffer
    stdout = sys.stdout
    while True:
        line = stdin.readline()
        if not line:
            return 0
        try:
            answer = handle(json.loads(line))
        except Exception:
            return 2
        stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
