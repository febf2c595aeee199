"""Run a real host CLI, installed from npm, against a fake model with Tether's hooks installed.

Everything is private to one temporary directory: HOME, the XDG dirs (so Tether's SQLite state),
the project the agent works in. Tether is installed the way a user installs it
(``tether install HOST``); the host is started headless with the model's script.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from fake_models import FINAL, FakeModel, Script

TETHER = Path(sys.executable).with_name("tether")
CACHE_ENV = "TETHER_E2E_NPM"
CACHE = Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "tether-e2e" / "npm")
PACKAGES = {
    "claude-code": ("@anthropic-ai/claude-code", "claude"),
    "codex": ("@openai/codex", "codex"),
    "gemini": ("@google/gemini-cli", "gemini"),
}
TIMEOUT = 240.0
FINAL_MARK = FINAL.encode()  # the fake model's last words, on the interactive screen


def binary(host: str, version: str) -> Path:
    """Return where ``.ci/run`` installs ``host`` at ``version``."""
    package, program = PACKAGES[host]
    name = package.rsplit("/", 1)[1]
    return CACHE / f"{name}-{version}" / "node_modules" / ".bin" / program


class Run(NamedTuple):
    """One finished host run."""

    proc: subprocess.CompletedProcess[str]
    script: Script
    project: Path
    env: dict[str, str]

    def after(self, i: int) -> str:
        """Return what the model was sent after tool call ``i``."""
        return self.script.after(i)


class Host:
    """One host version in a private home, with Tether installed in it."""

    def __init__(self, host: str, version: str, root: Path) -> None:
        self.host, self.version, self.root = host, version, root
        self.exe = binary(host, version)
        self.home = root / "home"
        self.project = root / "project"
        self.home.mkdir(parents=True)
        self.project.mkdir()
        self.wrap: list[str] = []  # a prefix for every process (a private mount namespace)
        self.codex_extra = ""  # more config.toml for Codex, kept by configure()
        self.gemini_extra: dict[str, Any] = {}  # more settings.json for Gemini CLI
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(
                ("TETHER_", "ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "CODEX_")
            )
            and k not in ("CLAUDECODE", "XDG_RUNTIME_DIR")  # the daemon's socket: ours alone
            # A CI machine's markers make Gemini CLI headless even on a pty (isHeadlessMode),
            # and the hosts word some prompts differently: the user these tests play has none.
            and k not in ("CI", "GITHUB_ACTIONS", "CONTINUOUS_INTEGRATION")
        }
        self.env.update(
            {
                "HOME": str(self.home),
                "PATH": f"{self.exe.parent}:{TETHER.parent}:/usr/local/bin:/usr/bin:/bin",
                "XDG_STATE_HOME": str(root / "state"),
                "XDG_CONFIG_HOME": str(root / "config"),
                "XDG_CACHE_HOME": str(root / "cache"),
                "NO_COLOR": "1",
            }
        )

    def tether(
        self, *args: str, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``tether ARGS`` as the user would, in the project."""
        return subprocess.run(
            [*self.wrap, str(TETHER), *args],
            capture_output=True,
            text=True,
            cwd=self.project,
            env={**self.env, **(env or {})},
            timeout=120,
        )

    def configure(self, url: str) -> None:
        """Point the host at the fake model at ``url`` (before ``tether install`` merges in)."""
        if self.host == "codex":
            path = self.home / ".codex" / "config.toml"
            path.parent.mkdir(exist_ok=True)
            # Keep the hook trust Codex wrote (``tether install codex``); replace the rest.
            old = tomllib.loads(path.read_text()) if path.exists() else {}
            state = old.get("hooks", {}).get("state", {})
            trust = "".join(
                f"\n[hooks.state.{json.dumps(key)}]\n"
                f"trusted_hash = {json.dumps(v['trusted_hash'])}\n"
                for key, v in state.items()
                if "trusted_hash" in v
            )
            # And the plugins `codex plugin marketplace add` / `add` recorded.
            for table in ("marketplaces", "plugins"):
                for key, entry in old.get(table, {}).items():
                    trust += f"\n[{table}.{json.dumps(key)}]\n" + "".join(
                        f"{k} = {json.dumps(v)}\n" for k, v in entry.items()
                    )
            path.write_text(
                'model = "gpt-fake"\nmodel_provider = "fake"\napproval_policy = "never"\n'
                'sandbox_mode = "danger-full-access"\n\n[model_providers.fake]\nname = "fake"\n'
                f'base_url = "{url}/v1"\nwire_api = "responses"\nenv_key = "FAKE_OPENAI_KEY"\n'
                + trust
                + self.codex_extra
            )
        elif self.host == "gemini":
            path = self.home / ".gemini" / "settings.json"
            path.parent.mkdir(exist_ok=True)
            current = json.loads(path.read_text()) if path.exists() else {}
            current.update(
                {
                    "security": {"auth": {"selectedType": "gemini-api-key"}},
                    "model": {"name": "gemini-2.5-flash", "disableLoopDetection": True},
                    **self.gemini_extra,
                }
            )
            path.write_text(json.dumps(current, indent=2))

    def run(
        self,
        commands: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        install: Sequence[str] | None = (),
        bypass_trust: bool = False,
        skip_trust: bool = True,
    ) -> Run:
        """Install Tether (``tether install HOST`` + ``install``; None: leave the hooks as they
        are), then run the host on ``commands``."""
        script = Script(commands)
        with FakeModel(script) as model:
            self.configure(model.url)
            if install is not None:
                done = self.tether("install", self.host, *install)
                assert done.returncode == 0, done.stdout + done.stderr
            run_env = {**self.env, **(env or {}), **self._model_env(model.url)}
            proc = subprocess.run(
                [*self.wrap, *self._argv(bypass_trust, skip_trust)],
                capture_output=True,
                text=True,
                cwd=self.project,
                env=run_env,
                timeout=TIMEOUT,
                stdin=subprocess.DEVNULL,
            )
        return Run(proc, script, self.project, run_env)

    def _model_env(self, url: str) -> dict[str, str]:
        if self.host == "claude-code":
            return {
                "ANTHROPIC_BASE_URL": url,
                "ANTHROPIC_API_KEY": "sk-ant-fake",
                "DISABLE_AUTOUPDATER": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            }
        if self.host == "codex":
            return {"FAKE_OPENAI_KEY": "sk-fake", "CODEX_HOME": str(self.home / ".codex")}
        return {"GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": url}

    def _argv(self, bypass_trust: bool, skip_trust: bool = True) -> list[str]:
        exe = str(self.exe)
        if self.host == "claude-code":
            return [exe, "-p", "go", "--allowedTools", "Bash", "--output-format", "text"]
        if self.host == "codex":
            extra = ["--dangerously-bypass-hook-trust"] if bypass_trust else []
            return [exe, "exec", "--skip-git-repo-check", *extra, "go"]
        return [exe, "-p", "go", *(["--skip-trust"] if skip_trust else []), "--yolo"]

    def run_interactive(self, commands: Sequence[str], *, seconds: float = 90.0) -> Run:
        """Run Gemini CLI interactively in a pty (``-i go``, no ``--skip-trust``): the session
        folder trust governs. Ends once the script is done (or after ``seconds``).

        Shell calls are allowed without a prompt by the user settings (``tools.allowed``); an
        untrusted folder forces the default approval mode, which would otherwise ask.
        """
        import pty
        import select
        import signal
        import time

        assert self.host == "gemini"
        self.gemini_extra.setdefault("tools", {"allowed": ["run_shell_command"]})
        script = Script(commands)
        with FakeModel(script) as model:
            self.configure(model.url)
            run_env = {**self.env, **self._model_env(model.url), "TERM": "xterm-256color"}
            pid, fd = pty.fork()
            if pid == 0:  # the child: the host in the project, on the pty
                os.chdir(self.project)
                os.execve(str(self.exe), [str(self.exe), "-i", "go"], run_env)
            screen = b""
            deadline = time.monotonic() + seconds
            try:
                while time.monotonic() < deadline:
                    ready, _, _ = select.select([fd], [], [], 0.5)
                    if ready:
                        try:
                            screen += os.read(fd, 65536)
                        except OSError:
                            break
                    done = script.calls >= len(commands) and len(script.requests) > len(commands)
                    if done and FINAL_MARK in screen:
                        break
            finally:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                os.close(fd)
        text = screen.decode("utf-8", "replace")
        proc = subprocess.CompletedProcess([str(self.exe), "-i", "go"], 0, text, "")
        return Run(proc, script, self.project, run_env)


def daemons_under(root: Path) -> list[int]:
    """Return the pids of Tether daemons whose socket lies under ``root`` (one test's dirs).

    The daemon is started as ``PYTHON -I -c BOOT PACKAGE_ROOT SOCKET``: its socket path, under
    the test's private XDG_STATE_HOME, is in its command line.
    """
    mark = str(root).encode()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"-c" in argv and any(a.startswith(mark) and a.endswith(b".sock") for a in argv):
            found.append(int(proc.name))
    return found


def stop_daemons(root: Path, timeout: float = 10.0) -> list[int]:
    """Stop every daemon serving a socket under ``root`` (by pid); return their pids."""
    import signal
    import time

    pids = daemons_under(root)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() for p in pids):
        time.sleep(0.1)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
    return pids


def describe(run: Run) -> str:
    """Return a run's story for an assertion message."""
    tail: dict[str, Any] = {
        "exit": run.proc.returncode,
        "results": run.script.results,
        "stderr": run.proc.stderr[-1500:],
    }
    return json.dumps(tail, indent=1, ensure_ascii=False)
