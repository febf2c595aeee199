"""The execution oracle: run commands in a sandbox that captures every write, and say what changed.

``Oracle`` builds a fixture (a small git repository with files, HOME and TMPDIR beside it)
and runs each command over a fresh overlay of the whole root filesystem, with no network and
a time limit; ``Verdict.changed`` is True (with the changed paths), False, or None when the
command could not be verified. Linux only, as root; nothing here is on the hook path.
"""

from __future__ import annotations

from tether.verify.diff import Change
from tether.verify.sandbox import DEFAULT_TIMEOUT, Oracle, sandbox_problem
from tether.verify.trace import Trace
from tether.verify.verdict import Verdict

__all__ = ["DEFAULT_TIMEOUT", "Change", "Oracle", "Trace", "Verdict", "sandbox_problem"]
