"""Supervise the isolated classification worker: one long-lived child, a hard deadline, fail closed.

The child is started on first use and kept for the life of the process. Each request travels
over its stdin as one JSON line (never argv) and the answer comes back as one JSON line on its
stdout, within ``deadline`` seconds. A timeout, crash, non-zero exit, death by signal,
malformed JSON, a verdict of an unknown or unexpected kind, or one that fails the schema check
raises :class:`tether.errors.WorkerError` and the child is killed and replaced. Error messages
carry only an exit status or an exception type, never the child's stderr (which is discarded)
or the command.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from tether.approval.policy import Evaluation, Policy, policy_to_request
from tether.classify import Classification
from tether.errors import WorkerError
from tether.rules import protected
from tether.rules.base import Danger, Tier

WORKER_MODULE = "tether.approval.worker"
# Environment the child may see: enough to run Python, nothing that could be a secret.
_ENV_KEEP = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT", "TMPDIR")
_KNOWN_KINDS = frozenset({"evaluation", "pong", "error"})
_LEVELS = {d.label: d for d in Danger}
_MAX_ANSWER = 64 * 1024 * 1024


def default_argv() -> list[str]:
    """Return the production worker command: this interpreter running the worker module."""
    return [sys.executable, "-m", WORKER_MODULE]


def scrubbed_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return the child's environment: locale and PATH only, UTF-8 forced, no secrets."""
    env = {k: os.environ[k] for k in _ENV_KEEP if k in os.environ}
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONNOUSERSITE"] = "1"
    env.update(extra or {})
    return env


class IsolatedClassifier:
    """A supervised worker process that classifies long commands under a deadline."""

    def __init__(
        self,
        argv: Sequence[str] | None = None,
        *,
        deadline: float = 10.0,
        memory_mb: int = 512,
    ) -> None:
        self._argv = list(argv) if argv is not None else default_argv()
        self.deadline = deadline
        self.memory_mb = memory_mb
        self.restarts = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._next_id = 0
        self._lock = threading.Lock()
        self._owner = os.getpid()

    # --- lifecycle -------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker now (it starts on first use otherwise)."""
        with self._lock:
            self._ensure()

    def close(self) -> None:
        """Stop the worker."""
        with self._lock:
            self._kill()

    @property
    def pid(self) -> int | None:
        """Return the running worker's process id, if any."""
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def _ensure(self) -> subprocess.Popen[bytes]:
        if os.getpid() != self._owner:
            # A forked copy of this object (a pre-fork server): the worker and its pipes belong
            # to the parent. Leave them alone and start this process's own worker.
            self._proc = None
            self._owner = os.getpid()
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        self._kill()
        # The package's parent directory as cwd lets ``-m`` find tether without PYTHONPATH.
        cwd = str(Path(__file__).resolve().parents[2])
        self._proc = subprocess.Popen(
            [*self._argv, "--memory-mb", str(self.memory_mb)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=scrubbed_env(),
            cwd=cwd,
            close_fds=True,
        )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        os.set_blocking(self._proc.stdin.fileno(), False)
        os.set_blocking(self._proc.stdout.fileno(), False)
        return self._proc

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=2)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def _replace(self) -> None:
        self._kill()
        self.restarts += 1
        try:
            self._ensure()  # warm again for the next command
        except OSError:
            self._proc = None

    # --- requests -------------------------------------------------------------------------------

    def evaluate(self, command: str, policy: Policy | None = None) -> Evaluation:
        """Classify ``command`` in the worker; raise WorkerError (and replace it) on any failure."""
        policy = policy or Policy()
        with self._lock:
            self._next_id += 1
            request_id = self._next_id
            request = {
                "id": request_id,
                "mode": "evaluate",
                "command": command,
                **policy_to_request(policy),
                # The guard places the config adds (store.path, key prefix) and the judged
                # environment, in force here (the worker's own environment is bare).
                "places": protected.to_json(protected.current()),
            }
            try:
                proc = self._ensure()
                line = self._exchange(proc, json.dumps(request).encode("utf-8") + b"\n")
                return parse_verdict(line, request_id, command)
            except WorkerError:
                self._replace()
                raise
            except OSError as exc:
                self._replace()
                raise WorkerError(f"classification worker failed ({type(exc).__name__})") from None

    def ping(self) -> bool:
        """Return True when the worker answers a ping within the deadline."""
        with self._lock:
            self._next_id += 1
            try:
                line = self._exchange(
                    self._ensure(),
                    json.dumps({"id": self._next_id, "mode": "ping"}).encode() + b"\n",
                )
                answer = json.loads(line)
            except (WorkerError, OSError, ValueError):
                self._replace()
                return False
            return (
                isinstance(answer, dict)
                and answer.get("kind") == "pong"
                and answer.get("id") == self._next_id
            )

    def _exchange(self, proc: subprocess.Popen[bytes], payload: bytes) -> bytes:
        stdin: IO[bytes] | None = proc.stdin
        stdout: IO[bytes] | None = proc.stdout
        assert stdin is not None and stdout is not None
        end = time.monotonic() + self.deadline
        view = memoryview(payload)
        chunks: list[bytes] = []
        size = 0
        with selectors.DefaultSelector() as sel:
            sel.register(stdout, selectors.EVENT_READ)
            if view:
                sel.register(stdin, selectors.EVENT_WRITE)
            while True:
                left = end - time.monotonic()
                if left <= 0:
                    raise WorkerError(f"classification worker timed out after {self.deadline:g} s")
                for key, _ in sel.select(timeout=left):
                    if key.fileobj is stdin:
                        try:
                            written = os.write(stdin.fileno(), view[:65536])
                        except BlockingIOError:
                            continue
                        except BrokenPipeError:
                            sel.unregister(stdin)
                            view = view[len(view) :]
                            continue
                        view = view[written:]
                        if not view:
                            sel.unregister(stdin)
                        continue
                    try:
                        data = os.read(stdout.fileno(), 1 << 20)
                    except BlockingIOError:
                        continue
                    if not data:
                        raise WorkerError(self._exit_reason(proc))
                    chunks.append(data)
                    size += len(data)
                    if b"\n" in data:
                        joined = b"".join(chunks)
                        return joined[: joined.index(b"\n")]
                    if size > _MAX_ANSWER:
                        raise WorkerError("classification worker answered more than 64 MiB")

    def _exit_reason(self, proc: subprocess.Popen[bytes]) -> str:
        try:
            status = proc.wait(timeout=max(0.1, min(2.0, self.deadline)))
        except subprocess.TimeoutExpired:
            return "classification worker closed its output without answering"
        if status < 0:
            return f"classification worker was killed by signal {-status}"
        return f"classification worker exited with status {status}"


def parse_verdict(line: bytes, request_id: int, command: str) -> Evaluation:
    """Check one answer line against the verdict schema; raise WorkerError when it fails."""
    try:
        answer = json.loads(line)
    except ValueError as exc:
        raise WorkerError(
            f"classification worker returned malformed JSON ({type(exc).__name__})"
        ) from None
    if not isinstance(answer, dict):
        raise WorkerError("classification worker returned a verdict that is not an object")
    if answer.get("id") != request_id:
        raise WorkerError("classification worker answered a different request")
    kind = answer.get("kind")
    if kind not in _KNOWN_KINDS:
        raise WorkerError("classification worker returned an unknown verdict kind")
    if kind != "evaluation":
        raise WorkerError(
            f"classification worker returned a {kind!r} verdict, not allowed for an evaluation"
        )
    return _evaluation(answer, command)


def _evaluation(a: dict[str, Any], command: str) -> Evaluation:
    def strings(key: str) -> tuple[str, ...]:
        value = a.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise WorkerError(f"classification worker verdict has a bad {key!r}")
        return tuple(value)

    def text(key: str) -> str:
        value = a.get(key)
        if not isinstance(value, str):
            raise WorkerError(f"classification worker verdict has a bad {key!r}")
        return value

    danger = a.get("danger")
    level = _LEVELS.get(danger) if isinstance(danger, str) else None
    if level is None:
        raise WorkerError("classification worker verdict has an unknown danger level")
    if not isinstance(a.get("read_only"), bool) or not isinstance(a.get("simple"), bool):
        raise WorkerError("classification worker verdict has a bad flag")
    deny = a.get("deny_match")
    if deny is not None and not isinstance(deny, str):
        raise WorkerError("classification worker verdict has a bad 'deny_match'")
    unanalysable = a.get("unanalysable")
    if unanalysable is not None and not isinstance(unanalysable, str):
        raise WorkerError("classification worker verdict has a bad 'unanalysable'")
    danger_codes = strings("danger_codes")
    _check_level(level, danger_codes)
    if a["read_only"] and level is not Danger.NONE:
        raise WorkerError("classification worker verdict is read-only and dangerous at once")
    reason = text("danger_reason")
    if level is not Danger.NONE and not reason:
        raise WorkerError("classification worker verdict has no danger reason")
    classification = Classification(
        command=command,
        read_only=a["read_only"],
        codes=strings("codes"),
        reason=text("reason"),
        danger=level,
        danger_codes=danger_codes,
        danger_reason=reason,
        instead=text("instead"),
    )
    return Evaluation(classification, deny, a["simple"], strings("projections"), unanalysable)


def _check_level(level: Danger, codes: tuple[str, ...]) -> None:
    from tether.rules import danger

    tiers = {r.code: r.tier for r in danger.RULES}
    if any(c not in tiers for c in codes):
        raise WorkerError("classification worker verdict names an unknown rule")
    expected = Danger.NONE
    if codes:
        expected = Danger.HARDLINE if any(tiers[c] is Tier.HARDLINE for c in codes) else Danger.ASK
    if expected is not level:
        raise WorkerError("classification worker verdict's level does not match its rules")
