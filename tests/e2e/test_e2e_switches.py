"""Every switch that turns a host's hooks off: the real binary runs the probe, the doctor fails.

For each switch, Tether is installed the usual way, the switch is set where a user (or an
administrator) would set it, and the real host runs the hardline probe: it must run (the host
called no hook: the switch is real), and ``tether doctor`` must fail naming the setting and the
file. Without the switch the same probe is denied (``test_e2e_hosts.py``). Managed settings
live under ``/etc``; each such test runs the host and the doctor in a private mount namespace
with an overlay on ``/etc``, so nothing outside the test sees them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from harness import Host, describe
from honours import PINS
from test_e2e_hosts import PROBE

PROBE_RAN = "probe-ran"


def put(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def private_etc(h: Host, files: dict[str, Any]) -> Path:
    """Run ``h``'s processes with ``files`` (paths under /etc) added by an overlay on /etc."""
    upper, work = h.root / "etc-upper", h.root / "etc-work"
    work.mkdir(parents=True)
    for rel, data in files.items():
        put(upper / rel, data)
    mount = f"mount -t overlay overlay -o lowerdir=/etc,upperdir={upper},workdir={work} /etc"
    user = [] if os.getuid() == 0 else ["--map-root-user"]
    h.wrap = ["unshare", "--mount", "--propagation", "private", *user,
              "sh", "-c", f'{mount} && exec "$@"', "sh"]  # fmt: skip
    return upper


def failures(h: Host, host: str) -> list[str]:
    """Return the doctor's failures for ``host``, after checking it exits 1."""
    proc = h.tether("doctor", "--json", "--host", host)
    report = json.loads(proc.stdout)
    assert proc.returncode == 1, report
    return [c["message"] for c in report["checks"] if c["status"] == "fail"]


def assert_unguarded(h: Host, run: Any) -> None:
    """The probe ran: the host called none of Tether's hooks."""
    assert (h.project / PROBE_RAN).exists(), describe(run)
    assert "Tether" not in json.dumps(run.script.results), describe(run)


CLAUDE = [(v,) for v in PINS["claude-code"]]
CLAUDE_SWITCHES = {
    # name: (file relative to HOME, the project or /etc; its content; the doctor's words)
    "user": ("home", ".claude/settings.json", {"disableAllHooks": True}, '"disableAllHooks": true'),
    "project": ("project", ".claude/settings.json", {"disableAllHooks": True},
                '"disableAllHooks": true'),
    "local": ("project", ".claude/settings.local.json", {"disableAllHooks": True},
              '"disableAllHooks": true'),
    "managed": ("etc", "claude-code/managed-settings.json", {"disableAllHooks": True},
                '"disableAllHooks": true'),
    "managed-only": ("etc", "claude-code/managed-settings.d/10-policy.json",
                     {"allowManagedHooksOnly": True}, '"allowManagedHooksOnly": true'),
}  # fmt: skip


@pytest.mark.parametrize("switch", list(CLAUDE_SWITCHES))
@pytest.mark.parametrize("version", PINS["claude-code"])
def test_claude_code_switches(version: str, switch: str, make_host: Any) -> None:
    h: Host = make_host("claude-code", version)
    assert h.tether("install", "claude-code").returncode == 0
    base, rel, content, words = CLAUDE_SWITCHES[switch]
    if base == "etc":
        private_etc(h, {rel: content})
        where = Path("/etc") / rel
    else:
        root = h.home if base == "home" else h.project
        where = root / rel
        current = json.loads(where.read_text()) if where.exists() else {}
        put(where, {**current, **content})
    run = h.run([PROBE], install=None)
    assert_unguarded(h, run)
    found = failures(h, "claude-code")
    assert any(words in m and str(where) in m for m in found), found


def test_codex_features_hooks_false(make_host: Any) -> None:
    h: Host = make_host("codex", PINS["codex"][0])
    assert h.tether("install", "codex").returncode == 0  # trusted by Codex
    h.codex_extra = "\n[features]\nhooks = false\n"
    run = h.run([PROBE], install=None)
    assert_unguarded(h, run)
    config = h.home / ".codex" / "config.toml"
    found = failures(h, "codex")
    assert any(f"[features] hooks = false in {config}" in m for m in found), found


@pytest.mark.parametrize(
    ("hooks_config", "words"),
    [({"enabled": False}, "hooksConfig.enabled: false in"),
     ({"disabled": ["tether"]}, 'hooksConfig.disabled in')],
)  # fmt: skip
def test_gemini_hooks_config(hooks_config: dict[str, Any], words: str, make_host: Any) -> None:
    h: Host = make_host("gemini", PINS["gemini"][0])
    assert h.tether("install", "gemini").returncode == 0
    h.gemini_extra = {"hooksConfig": hooks_config}
    run = h.run([PROBE], install=None)
    assert_unguarded(h, run)
    settings = h.home / ".gemini" / "settings.json"
    found = failures(h, "gemini")
    assert any(words in m and str(settings) in m for m in found), found


def test_gemini_folder_trust_without_skip_trust(make_host: Any) -> None:
    """Interactive, no --skip-trust, the folder marked untrusted: no hook from settings runs.

    A headless run refuses to start in such a folder, so only an interactive session shows it;
    nothing in the other tests (which pass --skip-trust) would.
    """
    h: Host = make_host("gemini", PINS["gemini"][0])
    assert h.tether("install", "gemini").returncode == 0
    folders = put(h.home / ".gemini" / "trustedFolders.json", {str(h.project): "DO_NOT_TRUST"})
    run = h.run_interactive([PROBE])
    assert (h.project / PROBE_RAN).exists(), run.proc.stdout[-2000:]
    sessions = json.loads(h.tether("session", "list", "--json").stdout)
    assert sessions == [], sessions  # not one event reached Tether
    found = failures(h, "gemini")
    assert any("does not trust" in m and str(folders) in m for m in found), found
    # Trusted, the same interactive session is guarded.
    (h.project / PROBE_RAN).unlink()
    put(folders, {str(h.project): "TRUST_FOLDER"})
    guarded = h.run_interactive([PROBE])
    assert not (h.project / PROBE_RAN).exists(), guarded.proc.stdout[-2000:]
    assert "DG401" in guarded.after(0)


def test_codex_install_with_a_wrapper_is_trusted_and_runs(make_host: Any) -> None:
    """`--command` with a wrapper: the hooks Codex trusts are the ones written, and they run.

    Before, any wrapper made install report "Codex does not list Tether's hooks" (it did; they
    were not recognised as Tether's), and Codex skipped them.
    """
    h: Host = make_host("codex", PINS["codex"][0])
    from tether.hosts.settings import default_command

    wrapped = f"nice -n 1 {default_command('codex')}"
    installed = h.tether("install", "codex", "--command", wrapped, "--json")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert json.loads(installed.stdout)["codex"]["active"] is True
    run = h.run([PROBE], install=None)
    assert not (h.project / PROBE_RAN).exists(), describe(run)
    assert "DG401" in run.after(0)
    refused = h.tether("install", "codex", "--command", "/opt/my-wrapper.sh")
    assert refused.returncode == 2 and "cannot be managed by Tether" in refused.stderr


def test_codex_project_hooks_in_an_untrusted_project(make_host: Any) -> None:
    """`--project` where Codex does not trust the project: the exact setting, then it works."""
    h: Host = make_host("codex", PINS["codex"][0])
    h.configure("http://127.0.0.1:9")  # a config.toml without the project's trust
    installed = h.tether("install", "codex", "--project")
    assert installed.returncode == 1, installed.stdout
    entry = f'[projects."{h.project.resolve()}"] trust_level = "trusted"'
    assert entry in installed.stdout, installed.stdout
    assert any(entry in m for m in failures(h, "codex"))
    run = h.run([PROBE], install=None)
    assert_unguarded(h, run)  # Codex did not read the project's hooks
    (h.project / PROBE_RAN).unlink()
    # The user trusts the project (what Codex's own prompt writes), and installs again.
    h.codex_extra = f'\n[projects."{h.project.resolve()}"]\ntrust_level = "trusted"\n'
    h.configure("http://127.0.0.1:9")
    again = h.tether("install", "codex", "--project")
    assert again.returncode == 0, again.stdout
    guarded = h.run([PROBE], install=None)
    assert not (h.project / PROBE_RAN).exists(), describe(guarded)
