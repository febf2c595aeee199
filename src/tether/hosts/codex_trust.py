"""Codex hook trust: installed is not active until Codex trusts the hook.

Codex (0.124 and newer) runs a hook from ``hooks.json`` only when ``config.toml`` holds
``[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash = "sha256:…"`` matching the
hash Codex computes over the handler (command, matcher, timeout, …); anything else is skipped
without a word. The hash's recipe is Codex's internal detail, so Tether never computes it:
it asks the installed ``codex app-server`` (JSON-RPC over stdio, the API Codex's own editors
use) for ``hooks/list``, which reports each hook's ``currentHash`` and ``trustStatus``, and
writes the trust through the same server's ``config/batchWrite``, so Codex itself edits its
config file. ``tether install codex`` trusts what it wrote and checks the result;
``tether doctor`` reports any Tether hook Codex would skip; ``tether uninstall codex`` takes out
the trust entries of the hooks it removed, and only those (``deactivate``).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, NamedTuple

from tether.errors import InputError
from tether.hosts.settings import is_tether_command

TIMEOUT = 30.0  # seconds for the whole exchange (the app-server starts in about a second)
TRUSTED = "trusted"
# The one step left when Codex cannot be asked; printed by install and doctor.
MANUAL_STEP = (
    "open Codex in this directory, type /hooks and trust Tether's hooks "
    "(or run `tether install codex` again once `codex` is on PATH)"
)


class CodexError(InputError):
    """Codex's app-server could not be started or did not answer as expected."""


class HookState(NamedTuple):
    """One hook as Codex sees it (a row of ``hooks/list``)."""

    key: str  # "<file>:<event>:<group>:<handler>", the key of its trust entry
    event: str
    command: str
    source: str  # the hooks.json (or config.toml) it came from
    status: str  # trusted | untrusted | modified | … (Codex's word)
    current_hash: str
    enabled: bool

    @property
    def active(self) -> bool:
        """Return whether Codex runs this hook."""
        return self.enabled and self.status == TRUSTED


def find_codex(environ: Mapping[str, str] | None = None) -> str | None:
    """Return the ``codex`` executable on PATH, or None."""
    env = os.environ if environ is None else environ
    return shutil.which("codex", path=env.get("PATH", os.defpath))


def tether_hooks(
    codex: str, cwd: Path, environ: Mapping[str, str] | None = None
) -> list[HookState]:
    """Return the hooks Codex discovers for ``cwd`` whose command runs ``tether hook codex``."""
    with AppServer(codex, cwd, environ) as server:
        return _ours(server.hooks(cwd))


def trust(
    codex: str, cwd: Path, environ: Mapping[str, str] | None = None
) -> tuple[list[HookState], list[HookState]]:
    """Trust Tether's hooks for ``cwd`` through Codex; return (trusted now, before) states."""
    with AppServer(codex, cwd, environ) as server:
        before = _ours(server.hooks(cwd))
        state = {h.key: {"trusted_hash": h.current_hash} for h in before if not h.active}
        if not state:
            return before, before
        server.call(
            "config/batchWrite",
            {"edits": [{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": state}]},
        )
        return _ours(server.hooks(cwd)), before


def _ours(hooks: Sequence[HookState]) -> list[HookState]:
    return [h for h in hooks if is_tether_command(h.command, "codex")]


class AppServer:
    """A ``codex app-server`` process spoken to in JSON-RPC lines, with one overall deadline."""

    def __init__(self, codex: str, cwd: Path, environ: Mapping[str, str] | None = None) -> None:
        self.codex = codex
        self.deadline = time.monotonic() + TIMEOUT
        self._errors: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        try:
            self.proc = subprocess.Popen(
                [codex, "app-server"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._errors,
                cwd=cwd,
                env=None if environ is None else dict(environ),
            )
        except OSError as exc:
            self._errors.close()
            raise CodexError(f"could not start `{codex} app-server`: {exc}") from None
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._next = 0
        self.call("initialize", {"clientInfo": {"name": "tether", "version": "1"}})
        self._send({"jsonrpc": "2.0", "method": "initialized"})

    def __enter__(self) -> AppServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the server process."""
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.kill()
        self.proc.wait()
        self._errors.close()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(b"")

    def _send(self, message: Mapping[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise CodexError(f"`{self.codex} app-server` stopped reading: {exc}") from None

    def call(self, method: str, params: Mapping[str, Any]) -> Any:
        """Send one request and return its ``result``; raise CodexError on error or timeout."""
        self._next += 1
        ident = self._next
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": dict(params)})
        while True:
            remaining = self.deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(remaining, 0.0))
            except queue.Empty:
                raise CodexError(
                    f"`{self.codex} app-server` did not answer {method} within {TIMEOUT:g} s"
                ) from None
            if not line:
                raise CodexError(f"`{self.codex} app-server` exited during {method}{self._why()}")
            try:
                message = json.loads(line)
            except ValueError:
                continue  # not a JSON-RPC line (a banner): skip it
            if not isinstance(message, dict) or message.get("id") != ident:
                continue  # a notification, or an answer to someone else
            error = message.get("error")
            if error is not None:
                text = error.get("message") if isinstance(error, dict) else error
                raise CodexError(f"`{self.codex} app-server` refused {method}: {text}")
            return message.get("result")

    def _why(self) -> str:
        self.proc.wait(timeout=5)
        self._errors.seek(0)
        tail = self._errors.read()[-400:].decode("utf-8", "replace").strip()
        return (
            f" (exit {self.proc.returncode}): {tail}" if tail else f" (exit {self.proc.returncode})"
        )

    def hooks(self, cwd: Path) -> list[HookState]:
        """Return every hook Codex discovers for ``cwd`` (``hooks/list``)."""
        result = self.call("hooks/list", {"cwds": [str(cwd)]})
        rows = result.get("data") if isinstance(result, dict) else None
        if not isinstance(rows, list):
            raise CodexError(
                f"`{self.codex} app-server` hooks/list: expected 'data', got {result!r:.200}"
            )
        found: list[HookState] = []
        for row in rows:
            for h in row.get("hooks", []) if isinstance(row, dict) else []:
                if not isinstance(h, dict) or h.get("handlerType", "command") != "command":
                    continue
                found.append(
                    HookState(
                        key=str(h.get("key", "")),
                        event=str(h.get("eventName", "")),
                        command=str(h.get("command", "")),
                        source=str(h.get("sourcePath", "")),
                        status=str(h.get("trustStatus", "")),
                        current_hash=str(h.get("currentHash", "")),
                        enabled=h.get("enabled") is not False,
                    )
                )
        return found


def activate(
    codex: str | None, cwd: Path, environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Trust Tether's hooks through Codex and check they are active; return a JSON-ready report.

    ``active`` is False (with the one step left in ``message``) when Codex cannot be found or
    asked, does not list Tether's hooks, or still would not run one of them.
    """
    found = codex or find_codex(environ)
    report: dict[str, Any] = {"active": False, "codex": found, "hooks": []}
    if found is None:
        report["message"] = (
            "codex: NOT ACTIVE YET: `codex` is not on PATH, so Tether could not ask Codex to "
            f"trust the hooks it just wrote, and Codex skips untrusted hooks silently. To do: "
            f"{MANUAL_STEP}; pass --codex PATH if it is installed elsewhere."
        )
        return report
    try:
        now, before = trust(found, cwd, environ)
    except CodexError as exc:
        report["message"] = f"codex: NOT ACTIVE YET: {exc}. To do: {MANUAL_STEP}."
        return report
    report["hooks"] = [
        {"key": h.key, "event": h.event, "status": h.status, "enabled": h.enabled} for h in now
    ]
    inactive = [h for h in now if not h.active]
    if not now:
        from tether.hosts.switches import codex as switches

        project = (cwd / ".codex" / "hooks.json").is_file()
        causes = switches(cwd, os.environ if environ is None else environ, project_hooks=project)
        if causes:  # say the one setting in the way, and the step that removes it
            report["message"] = (
                f"codex: NOT ACTIVE YET: `{found}` does not list Tether's hooks for {cwd}: "
                f"{causes[0].message}. To do: {causes[0].fix}."
            )
        else:
            report["message"] = (
                f"codex: NOT ACTIVE YET: `{found}` does not list Tether's hooks for {cwd} "
                f"(a Codex older than 0.124, without hooks?). To do: {MANUAL_STEP}."
            )
    elif inactive:
        names = ", ".join(
            f"{h.event} ({h.status}{'' if h.enabled else ', disabled'})" for h in inactive
        )
        report["message"] = (
            f"codex: NOT ACTIVE YET: Codex would still skip {names}. To do: {MANUAL_STEP}."
        )
    else:
        newly = sum(not h.active for h in before)
        report["active"] = True
        report["message"] = f"codex: active: Codex trusts Tether's {len(now)} hooks" + (
            f" ({newly} trusted just now through `{found} app-server`)" if newly else ""
        )
    return report


def deactivate(
    codex: str | None,
    cwd: Path,
    hooks_file: Path,
    write: Callable[[], object],
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Run ``write`` (which removes Tether's hooks from ``hooks_file``), then forget their trust.

    Codex is asked for the hooks before and after: the trust entries of Tether's hooks in
    ``hooks_file`` are removed from the user's ``config.toml`` (through ``config/batchWrite``,
    so Codex edits its own file) and every other entry is kept. A hook of someone else that
    moved up in the file (its key names its position) and so lost its trust gets it back at its
    new key, with the hash Codex had trusted. Returns a JSON-ready report; ``write`` runs even
    when Codex cannot be asked.
    """
    found = codex or find_codex(environ)
    report: dict[str, Any] = {"codex": found, "removed": [], "moved": []}
    try:
        before = _listed(found, cwd, environ) if found else None
    except CodexError as exc:
        before, report["error"] = None, str(exc)
    write()
    if before is None:
        report["message"] = (
            "codex: any trust entries of Tether's hooks stay in Codex's config.toml ("
            + (report.get("error") or "`codex` is not on PATH")
            + "); they trust nothing once the hooks are gone. To remove them: run Codex's "
            "/hooks screen, or reinstall and uninstall with `codex` on PATH."
        )
        return report
    assert found is not None
    mine = [h for h in _ours(before) if _same_file(h, hooks_file)]
    try:
        with AppServer(found, cwd, environ) as server:
            after = server.hooks(cwd)
            moved = moved_trust(before, after, hooks_file)
            path = _user_config(environ)
            state = _state(path)
            gone = [h.key for h in mine if h.key in state and h.key not in moved]
            if gone or moved:
                kept = {k: v for k, v in state.items() if k not in gone}
                kept.update(moved)
                server.call(
                    "config/batchWrite",
                    {
                        "edits": [
                            {"keyPath": "hooks.state", "mergeStrategy": "replace", "value": kept}
                        ]
                    },
                )
    except CodexError as exc:
        report["message"] = f"codex: could not remove the trust of Tether's hooks: {exc}"
        return report
    report["removed"], report["moved"] = gone, sorted(moved)
    report["message"] = f"codex: removed the trust of Tether's {len(gone)} hooks from {path}" + (
        f"; {len(moved)} other hooks that moved up in {hooks_file} keep their trust"
        if moved
        else ""
    )
    return report


def moved_trust(
    before: Sequence[HookState], after: Sequence[HookState], hooks_file: Path
) -> dict[str, dict[str, str]]:
    """Return trust entries for hooks in ``hooks_file`` that lost their trust by moving up.

    A hook counts as moved when as many identical ones (event, command, hash) were trusted in
    that file before as are trusted after plus this one: never more than the user trusted.
    """

    def sig(h: HookState) -> tuple[str, str, str]:
        return (h.event, h.command, h.current_hash)

    def here(hooks: Sequence[HookState]) -> list[HookState]:
        return [
            h
            for h in hooks
            if _same_file(h, hooks_file) and not is_tether_command(h.command, "codex")
        ]

    was = Counter(sig(h) for h in here(before) if h.active)
    now = Counter(sig(h) for h in here(after) if h.active)
    moved: dict[str, dict[str, str]] = {}
    for h in here(after):
        if not h.active and now[sig(h)] < was[sig(h)]:
            moved[h.key] = {"trusted_hash": h.current_hash}
            now[sig(h)] += 1
    return moved


def _listed(codex: str, cwd: Path, environ: Mapping[str, str] | None) -> list[HookState]:
    with AppServer(codex, cwd, environ) as server:
        return server.hooks(cwd)


def _same_file(hook: HookState, hooks_file: Path) -> bool:
    """Return whether ``hook`` comes from ``hooks_file`` (user and project scope stay apart)."""
    if hook.source:
        return os.path.realpath(hook.source) == os.path.realpath(hooks_file)
    return hook.key.startswith(f"{hooks_file}:")


def _user_config(environ: Mapping[str, str] | None) -> Path:
    env = os.environ if environ is None else environ
    home = env.get("CODEX_HOME") or os.path.join(env.get("HOME", "~"), ".codex")
    return Path(os.path.expanduser(home)) / "config.toml"


def _state(path: Path) -> dict[str, Any]:
    """Return ``[hooks.state]`` of Codex's ``config.toml`` at ``path`` ({} when none)."""
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise CodexError(f"cannot read {path}: {exc}") from None
    hooks = doc.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    return dict(state) if isinstance(state, dict) else {}
