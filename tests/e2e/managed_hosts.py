"""The real hosts against a managed install, run as root inside a private mount namespace.

``test_e2e_managed.py`` runs ``unshare --mount --propagation private PYTHON THIS WORK``. The
managed install (overlays over /etc, /opt, /var/lib, /var/cache and /run, as in
``tests/managed_scenario.py``) puts Tether's hooks in each host's managed settings and starts
the managed daemon. Then each pinned host version runs the hardline probe with the user's own
switches set to turn hooks off, and with nothing of Tether's in the user's settings. What the
model was sent after the probe, and whether the probe ran, go to ``WORK/hosts.json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import Host
from honours import host_versions

import managed_scenario as box

PROBE = "touch probe-ran; mkfs.ext4 /dev/sdz9"  # hardline DG401


def switches(h: Host, by_name: bool = False) -> str:
    """Write the user's own settings that turn hooks off; return which."""
    if h.host == "claude-code":
        path = h.home / ".claude" / "settings.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({"disableAllHooks": True}))
        return f"{path}: disableAllHooks true"
    if h.host == "codex":
        path = h.home / ".codex" / "config.toml"
        path.parent.mkdir(exist_ok=True)
        # configure() rewrites config.toml: the switch goes into a profile-free append below.
        return "config.toml: [features] hooks = false"
    path = h.home / ".gemini" / "settings.json"
    path.parent.mkdir(exist_ok=True)
    current = json.loads(path.read_text()) if path.exists() else {}
    hooks_config = {"enabled": False}
    if by_name:
        hooks_config["disabled"] = ["tether"]  # type: ignore[assignment]
    current["hooksConfig"] = hooks_config
    path.write_text(json.dumps(current))
    return f"{path}: hooksConfig {hooks_config}"


def run_host(host: str, version: str, n: int, by_name: bool = False) -> dict[str, Any]:
    h = Host(host, version, box.WORK / f"e2e-{n}")
    said = switches(h, by_name)
    if host == "codex":  # after configure(): keep the model settings, add the switch
        original = h.configure

        def configure(url: str) -> None:
            original(url)
            path = h.home / ".codex" / "config.toml"
            path.write_text(path.read_text() + "\n[features]\nhooks = false\n")

        h.configure = configure  # type: ignore[method-assign]
    run = h.run([PROBE, "echo done"], install=None)
    return {
        "switch": said,
        "exit": run.proc.returncode,
        "probe_ran": (h.project / "probe-ran").exists(),
        "after_probe": run.after(0)[-600:],
        "stderr": run.proc.stderr[-800:],
    }


def main() -> None:
    box.overlays()
    installed = box.run([str(box.TETHER), "install", "--managed", "--no-start", "--json"])
    assert installed.returncode == 0, installed.stderr
    log = open(box.WORK / "daemon.log", "w")  # noqa: SIM115
    daemon = subprocess.Popen(
        [box.PY, "-I", "-m", "tether.daemon.managed"], stdout=log, stderr=log, env={}
    )
    for _ in range(600):
        if os.path.exists("/run/tether/tether.sock"):
            break
        time.sleep(0.1)
    results: dict[str, Any] = {}
    only = os.environ.get("MANAGED_E2E_ONLY", "")
    try:
        for n, (host, version) in enumerate(host_versions()):
            if only and host != only:
                continue
            results[f"{host} {version}"] = run_host(host, version, n)
        gemini = [v for h, v in host_versions() if h == "gemini"]
        for m, version in enumerate(gemini):
            key = f"gemini {version} hooksConfig.disabled"
            results[key] = run_host("gemini", version, 100 + m, by_name=True)
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)
        log.close()
    (box.WORK / "hosts.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
