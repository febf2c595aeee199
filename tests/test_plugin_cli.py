"""``tether plugin HOST``: each host's package carries exactly the hooks ``tether install`` writes.

Installing the packages into the real hosts, and the session they guard, is in
``tests/e2e/test_e2e_plugins.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tether.hosts import HOSTS, plugins, settings

TETHER = Path(sys.executable).with_name("tether")
FILES = {
    "claude-code": [".claude-plugin/marketplace.json", "tether/.claude-plugin/plugin.json",
                    "tether/hooks/hooks.json"],
    "codex": [".agents/plugins/marketplace.json", "tether/.codex-plugin/plugin.json",
              "tether/hooks/hooks.json"],
    "gemini": ["gemini-extension.json", "hooks/hooks.json"],
}  # fmt: skip


@pytest.mark.parametrize("host", list(HOSTS))
def test_the_package_hooks_are_the_install_entries(host: str, tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("TETHER_")},
           "HOME": str(home), "CODEX_HOME": str(home / ".codex")}  # fmt: skip
    built = subprocess.run(
        [str(TETHER), "plugin", host, "--out", str(tmp_path / "pkg"), "--json"],
        capture_output=True, text=True, env=env, cwd=project, timeout=60,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    report = json.loads(built.stdout)
    assert report["installed"] is False and report["commands"]
    for name in FILES[host]:
        assert (tmp_path / "pkg" / name).is_file(), name
    package = json.loads(Path(report["hooks_file"]).read_text())
    installed = subprocess.run(
        [str(TETHER), "install", host, "--dry-run", "--json", "--codex", "/nonexistent"],
        capture_output=True, text=True, env=env, cwd=project, timeout=60,
    )  # fmt: skip
    assert package["hooks"] == json.loads(installed.stdout)["hooks"]
    assert set(package["hooks"]) == set(settings.install_events(host))
    names = [json.loads((tmp_path / "pkg" / n).read_text()).get("name") for n in FILES[host][:-1]]
    assert set(names) == {"tether"}


def test_the_installed_copies_are_found(tmp_path: Path) -> None:
    """What the doctor checks: the host's own copy of the package, not the one Tether built."""
    copy = tmp_path / ".claude" / "plugins" / "cache" / "tether" / "tether" / "1.0" / "hooks"
    copy.mkdir(parents=True)
    (copy / "hooks.json").write_text(json.dumps({"hooks": plugins.hooks_table("claude-code")}))
    other = copy.parents[2] / "other" / "1.0" / "hooks"
    other.mkdir(parents=True)
    (other / "hooks.json").write_text(json.dumps({"hooks": {"Stop": []}}))
    env = {"HOME": str(tmp_path)}
    assert plugins.installed("claude-code", env) == [copy / "hooks.json"]
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps({"enabledPlugins": {"tether@tether": False}})
    )
    [off] = plugins.disabled("claude-code", [copy / "hooks.json"], env)
    assert '"tether@tether": false' in off
    assert settings.installed_commands(json.loads((copy / "hooks.json").read_text()), "claude-code")
