"""Every error Tether raises on purpose.

    TetherError
    ├── InputError       bad input from a user or host (malformed JSON, bad format)
    ├── ConfigError      a config file or value is wrong (file, line, key, expected, found)
    ├── StoreError       session state cannot be read or written (locked, corrupt, unreachable)
    ├── WorkerError      the isolated classification worker failed (timeout, crash, bad verdict)
    ├── FixtureError     the execution oracle cannot build its fixture (git missing or failing)
    └── HaltError        the guard halted the agent (raised by a framework integration)

Messages say where, what and what next, e.g.
``tether.yaml:3: loops.warn_after.exact_failure: expected an integer ≥ 1, got 'two'``.
"""

from __future__ import annotations


class TetherError(Exception):
    """Base of every error Tether raises on purpose."""


class InputError(TetherError):
    """Bad input from a user or a host."""


class ConfigError(TetherError):
    """A config file or value is wrong."""


class StoreError(TetherError):
    """Session state cannot be read or written."""


class WorkerError(TetherError):
    """The isolated classification worker failed."""


class FixtureError(TetherError):
    """The execution oracle cannot build the fixture its commands run in."""


class HaltError(TetherError):
    """The guard halted the agent (a framework integration ends the run by raising this)."""

    def __init__(self, message: str, decision: object = None) -> None:
        super().__init__(message)
        self.decision = decision  # the tether.model.Decision that halted the run
