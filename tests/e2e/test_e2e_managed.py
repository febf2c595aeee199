"""The real hosts honour a managed install: the user's own switches do not turn Tether off.

``managed_hosts.py`` runs inside a private mount namespace (nothing outside changes): ``tether
install --managed``, the managed daemon, then every pinned host version with the user's
settings set to turn hooks off and nothing of Tether's in them: Claude Code
``disableAllHooks: true``, Codex ``[features] hooks = false``, Gemini CLI ``hooksConfig.enabled:
false``. The hardline probe must be denied, never run, with the reason in what the model read.
Gemini CLI has no managed-hooks-only switch: its ``hooksConfig.disabled`` naming the hook turns
the managed hook off, as docs/trust.md says; the test keeps that claim true.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from honours import host_versions

SCRIPT = Path(__file__).with_name("managed_hosts.py")


@pytest.fixture(scope="module")
def hosts() -> Iterator[dict[str, Any]]:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.fail("the managed e2e test needs root and unshare (CI runs as root)")
    work = Path(tempfile.mkdtemp(prefix="tether-managed-e2e-", dir="/tmp"))
    os.chmod(work, 0o755)
    try:
        done = subprocess.run(
            [
                "unshare",
                "--mount",
                "--propagation",
                "private",
                sys.executable,
                str(SCRIPT),
                str(work),
            ],
            capture_output=True,
            text=True,
            timeout=1500,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        yield json.loads((work / "hosts.json").read_text())
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize(("host", "version"), host_versions(), ids=lambda v: str(v))
def test_the_managed_hook_denies_whatever_the_users_settings_say(
    hosts: dict[str, Any], host: str, version: str
) -> None:
    run = hosts[f"{host} {version}"]
    assert run["exit"] == 0, run
    assert run["probe_ran"] is False, run
    assert "DG401" in run["after_probe"], run


def test_gemini_cli_turns_the_managed_hook_off_by_name(hosts: dict[str, Any]) -> None:
    runs = [v for k, v in hosts.items() if k.endswith("hooksConfig.disabled")]
    assert runs, hosts.keys()
    for run in runs:  # not held: docs/trust.md and the doctor say so
        assert run["probe_ran"] is True and "DG401" not in run["after_probe"], run
