"""What the oracle concludes from one run: changed, not changed, or could not verify; exercised.

Evidence of a change is conclusive whatever else happened. Otherwise "no change" is claimed
only for a command that ran to its end: one that hit the time limit, needed a program or a
Python module that is not installed (exit 127, "command not found", ModuleNotFoundError)
or needed the network (the sandbox has none) did not show what it would have done, so its
verdict is ``changed: null``. And a command that ran to its end but exited non-zero is not
evidence either (most likely it stopped before the write it would make): ``exercised`` is
true only for an exit status of 0, and soundness figures count exercised runs only.

A git index rewritten with the same entries (``refreshed``) is a tool's own cache, not the
user's files: it is listed, and named in ``effects`` (``["cache"]``), but is not "changed".
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from tether.verify.diff import Change
from tether.verify.trace import Trace

_MAX_LISTED = 200  # changes listed per command; the count is always exact
# bash: "bash: line 1: foo: command not found"; dash: "sh: 1: foo: not found".
_MISSING = re.compile(
    r"^\S+: (?:line \d+: )?([^\s:]+): command not found$|^\S+: \d+: ([^\s:]+): not found$", re.M
)
_MODULE = re.compile(r"ModuleNotFoundError: No module named '([^']+)'|Cannot find module '([^']+)'")
_DENIED = re.compile(r"permission denied|operation not permitted|read-only file system", re.I)
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
    exercised: bool = False
    effects: tuple[str, ...] = ()
    trace: Trace | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object ``tether verify --json`` prints."""
        out: dict[str, Any] = {
            "command": self.command,
            "changed": self.changed,
            "exercised": self.exercised,
            "effects": list(self.effects),
            "reason": self.reason,
            "diff": [c.to_json() for c in self.changes[:_MAX_LISTED]],
            "diff_count": len(self.changes),
            "touched": list(self.touched[:_MAX_LISTED]),
            "exit_code": self.exit_code,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "seconds": round(self.seconds, 3),
        }
        if self.trace is not None:
            out["trace"] = self.trace.to_json()
        return out


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
    trace: Trace | None = None,
) -> Verdict:
    """Return the verdict for a command that ran in the sandbox (under a terminal, so its
    stdout holds its stderr too)."""
    cache = [c for c in found if c.kind == "refreshed"]
    writes = [c for c in found if c.kind != "refreshed"]
    exercised = exit_code == 0 and timed_out is None
    base = Verdict(
        command, None, "", tuple(found), tuple(touched), exit_code, stdout, stderr, seconds,
        exercised, ("cache",) if cache else (), trace,
    )  # fmt: skip
    if writes:
        first = ", ".join(f"{c.path} ({c.kind})" for c in writes[:3])
        more = f" and {len(writes) - 3} more" if len(writes) > 3 else ""
        return base._replace(changed=True, reason=f"changed {len(writes)} path(s): {first}{more}")
    if timed_out is not None:
        why = f"still running after {timed_out:g} s (the time limit); nothing changed until then"
        return base._replace(reason=f"could not verify: {why}")
    text = (stdout + "\n" + stderr).replace("\r\n", "\n")
    missing = _MISSING.search(text)
    if exit_code == 127 or missing:
        what = f"'{missing.group(1) or missing.group(2)}'" if missing else "a program"
        return base._replace(reason=f"could not verify: {what} is not installed (exit {exit_code})")
    module = _MODULE.search(text)
    if module and exit_code != 0:
        name = module.group(1) or module.group(2)
        return base._replace(reason=f"could not verify: module '{name}' is not installed")
    net = _NETWORK.search(text)
    if net and exit_code != 0:
        why = f"the command needs the network, which the sandbox does not have ({net.group(0)!r})"
        return base._replace(reason=f"could not verify: {why}")
    cached = f"; refreshed a cache: {', '.join(c.path for c in cache)}" if cache else ""
    if exit_code == 0:
        return base._replace(changed=False, reason=f"no change (exit 0){cached}")
    denied = _DENIED.search(text)
    why = f" ({denied.group(0).lower()}: it runs as an unprivileged user)" if denied else ""
    return base._replace(
        changed=False,
        reason=f"no change{cached}, but not exercised: exit {exit_code}{why}",
    )
