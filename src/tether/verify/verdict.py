"""What the oracle concludes from one run: changed, not changed, or could not verify.

Evidence of a change is conclusive whatever else happened. Otherwise "no change" is claimed
only for a command that ran to its end: one that hit the time limit, needed a program that
is not installed (exit 127, "command not found") or needed the network (the sandbox has
none) did not show what it would have done, so its verdict is ``changed: null``.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from tether.verify.diff import Change

_MAX_LISTED = 200  # changes listed per command; the count is always exact
# bash: "bash: line 1: foo: command not found"; dash: "sh: 1: foo: not found".
_MISSING = re.compile(
    r"^\S+: (?:line \d+: )?([^\s:]+): command not found$|^\S+: \d+: ([^\s:]+): not found$", re.M
)
_NETWORK = re.compile(
    r"could not resolve|temporary failure in name resolution|name or service not known"
    r"|network is unreachable|no route to host|getaddrinfo|failed to establish a new connection"
    r"|connection refused|unable to access 'https?:|could not resolve hostname|dial tcp"
    r"|enotfound|eai_again|nodename nor servname|name resolution|connecttimeout"
    r"|failed to connect|network unreachable|unable to connect|no address associated",
    re.I,
)


class Verdict(NamedTuple):
    """The oracle's answer for one command."""

    command: str
    changed: bool | None
    reason: str
    changes: tuple[Change, ...] = ()
    touched: tuple[str, ...] = ()
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object ``tether verify --json`` prints."""
        return {
            "command": self.command,
            "changed": self.changed,
            "reason": self.reason,
            "diff": [c.to_json() for c in self.changes[:_MAX_LISTED]],
            "diff_count": len(self.changes),
            "touched": list(self.touched[:_MAX_LISTED]),
            "exit_code": self.exit_code,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "seconds": round(self.seconds, 3),
        }


def unverified(command: str, reason: str, seconds: float = 0.0) -> Verdict:
    """Return a "could not verify" verdict (the command did not run, or not to its end)."""
    return Verdict(command, None, f"could not verify: {reason}", seconds=seconds)


def judge(
    command: str,
    exit_code: int | None,
    stdout: str,
    stderr: str,
    found: list[Change],
    touched: list[str],
    seconds: float,
    timed_out: float | None = None,
) -> Verdict:
    """Return the verdict for a command that ran in the sandbox."""
    base = Verdict(
        command, None, "", tuple(found), tuple(touched), exit_code, stdout, stderr, seconds
    )
    if found:
        first = ", ".join(f"{c.path} ({c.kind})" for c in found[:3])
        more = f" and {len(found) - 3} more" if len(found) > 3 else ""
        return base._replace(changed=True, reason=f"changed {len(found)} path(s): {first}{more}")
    if timed_out is not None:
        why = f"still running after {timed_out:g} s (the time limit); nothing changed until then"
        return base._replace(reason=f"could not verify: {why}")
    missing = _MISSING.search(stderr)
    if exit_code == 127 or missing:
        what = f"'{missing.group(1) or missing.group(2)}'" if missing else "a program"
        return base._replace(reason=f"could not verify: {what} is not installed (exit {exit_code})")
    net = _NETWORK.search(stderr) or _NETWORK.search(stdout)
    if net and exit_code != 0:
        why = f"the command needs the network, which the sandbox does not have ({net.group(0)!r})"
        return base._replace(reason=f"could not verify: {why}")
    return base._replace(changed=False, reason=f"no change (exit {exit_code})")
