"""Tether installed as each host's own package: a Claude Code plugin, a Codex plugin, a Gemini
CLI extension (``tether plugin HOST --install`` runs the host's own install commands).

The package's hooks are the entries ``tether install`` writes; the same session (hardline
probe, read, loop warned and refused, halt) must give the same results through it as through
``tether install`` (``test_e2e_hosts.py``), and the doctor must find the package.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from harness import Host
from honours import host_versions
from test_e2e_hosts import assert_session, session

CASES = host_versions()
IDS = [f"{h}-{v}" for h, v in CASES]


@pytest.mark.parametrize(("host", "version"), CASES, ids=IDS)
def test_the_package_route_guards_like_tether_install(
    host: str, version: str, make_host: Any
) -> None:
    h: Host = make_host(host, version)
    built = h.tether("plugin", host, "--install", "--exe", str(h.exe), "--json")
    assert built.returncode == 0, built.stdout + built.stderr
    report = json.loads(built.stdout)
    assert report["installed"] is True
    # Nothing in the settings files: the package alone guards.
    for name in (".claude/settings.json", ".codex/hooks.json", ".gemini/settings.json"):
        path = h.home / name
        assert not path.exists() or "hook.py" not in path.read_text(), path
    run = session(h, install=None)
    assert_session(h, run)
    doctor = json.loads(h.tether("doctor", "--json", "--host", host).stdout)
    found = [c for c in doctor["checks"] if c["area"] == host and "installed in" in c["message"]]
    assert found and "plugin" in found[0]["message"], doctor["checks"]


def test_the_gemini_extension_guards_an_untrusted_folder(make_host: Any) -> None:
    """Hooks from settings files do not run in a folder Gemini CLI does not trust; an
    extension's do (the doctor's advice for such folders)."""
    from test_e2e_hosts import PROBE
    from test_e2e_switches import PROBE_RAN, put

    h: Host = make_host("gemini", "0.61.0")
    built = h.tether("plugin", "gemini", "--install", "--exe", str(h.exe))
    assert built.returncode == 0, built.stdout + built.stderr
    put(h.home / ".gemini" / "trustedFolders.json", {str(h.project): "DO_NOT_TRUST"})
    run = h.run_interactive([PROBE])
    assert not (h.project / PROBE_RAN).exists(), run.proc.stdout[-2000:]
    assert "DG401" in run.after(0)
    doctor = json.loads(h.tether("doctor", "--json", "--host", "gemini").stdout)
    assert not [c for c in doctor["checks"] if "does not trust" in c["message"]]
