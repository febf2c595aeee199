"""Every setting that turns a host's hooks off, read as the host reads it (tether.hosts.switches).

Tables of settings files and what the doctor must say about them; the real binaries honouring
each switch (and the doctor naming it) are in ``tests/e2e/test_e2e_switches.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tether.hosts import switches
from tether.hosts.settings import default_command


def put(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    return home, project, {"HOME": str(home)}


def fails(found: list[switches.Switch]) -> list[str]:
    return [f.message for f in found if f.status == "fail"]


# -- Claude Code -------------------------------------------------------------------------------

CLAUDE_LAYERS = {
    "user": ".claude/settings.json",
    "project": ".claude/settings.json",
    "local": ".claude/settings.local.json",
}


@pytest.mark.parametrize(
    ("layers", "off_in"),
    [
        ({"user": True}, "user"),
        ({"project": True}, "project"),
        ({"local": True}, "local"),
        ({"user": True, "project": False}, None),  # project wins over user
        ({"project": True, "local": False}, None),  # local wins over project
        ({"user": False, "local": True}, "local"),
        ({"user": "true"}, None),  # only the boolean true counts
    ],
)
def test_claude_disable_all_hooks_by_precedence(
    dirs: tuple[Path, Path, dict[str, str]], tmp_path: Path, layers: dict[str, Any], off_in: str
) -> None:
    home, project, env = dirs
    files = {}
    for layer, value in layers.items():
        base = home if layer == "user" else project
        files[layer] = put(base / CLAUDE_LAYERS[layer], {"disableAllHooks": value})
    found = switches.claude_code(project, env, managed=tmp_path / "managed")
    if off_in is None:
        assert fails(found) == []
    else:
        [message] = fails(found)
        assert message.startswith(f'"disableAllHooks": true in {files[off_in]}')


@pytest.mark.parametrize(
    ("managed", "drop_in", "expect"),
    [
        ({"disableAllHooks": True}, None, "turns off every hook"),
        ({"allowManagedHooksOnly": True}, None, "runs only hooks in managed settings"),
        ({"allowManagedHooksOnly": True}, {"allowManagedHooksOnly": False}, None),
        ({}, {"allowManagedHooksOnly": True}, "runs only hooks in managed settings"),
        ({"strictPluginOnlyCustomization": True}, None, "do not run"),
        ({"strictPluginOnlyCustomization": ["hooks"]}, None, "do not run"),
        ({"strictPluginOnlyCustomization": ["skills"]}, None, None),
    ],
)
def test_claude_managed_settings(
    dirs: tuple[Path, Path, dict[str, str]],
    tmp_path: Path,
    managed: dict[str, Any],
    drop_in: dict[str, Any] | None,
    expect: str | None,
) -> None:
    _, project, env = dirs
    root = tmp_path / "etc-claude-code"
    put(root / "managed-settings.json", managed)
    if drop_in is not None:
        put(root / "managed-settings.d" / "50-policy.json", drop_in)
    found = fails(switches.claude_code(project, env, managed=root))
    if expect is None:
        assert found == []
    else:
        [message] = found
        assert expect in message and "(managed settings)" in message


def test_claude_hooks_in_managed_settings_survive_what_turns_user_hooks_off(
    dirs: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    home, project, env = dirs
    root = tmp_path / "etc-claude-code"
    put(root / "managed-settings.json", {"allowManagedHooksOnly": True})
    put(home / ".claude" / "settings.json", {"disableAllHooks": True})
    assert fails(switches.claude_code(project, env, managed=root, tether_in_managed=True)) == []


def test_claude_environment_switches(
    dirs: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    _, project, env = dirs
    env = {**env, "CLAUDE_CODE_SIMPLE": "1", "CLAUDE_CODE_SAFE_MODE": "true"}
    found = switches.claude_code(project, env, managed=tmp_path / "none")
    assert [f.status for f in found] == ["warn", "warn"]
    assert "--bare" in found[0].message and "--safe-mode" in found[1].message


# -- Codex -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("features", "expect"),
    [
        ("hooks = false", "[features] hooks = false in"),
        ("codex_hooks = false", "[features] codex_hooks = false in"),
        ("codex_hooks = false\nhooks = true", None),  # the newer name wins
        ("hooks = true", None),
    ],
)
def test_codex_feature_flag(
    dirs: tuple[Path, Path, dict[str, str]], tmp_path: Path, features: str, expect: str | None
) -> None:
    home, project, env = dirs
    config = put(home / ".codex" / "config.toml", f'model = "x"\n\n[features]\n{features}\n')
    found = fails(switches.codex(project, env, system=tmp_path / "etc-codex"))
    if expect is None:
        assert found == []
    else:
        [message] = found
        assert message.startswith(f"{expect} {config}")


def test_codex_managed_config_and_requirements(
    dirs: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    home, project, env = dirs
    system = tmp_path / "etc-codex"
    put(home / ".codex" / "config.toml", "[features]\nhooks = true\n")
    put(system / "managed_config.toml", "[features]\nhooks = false\n")  # managed wins
    put(system / "requirements.toml", "allow_managed_hooks_only = true\n")
    found = fails(switches.codex(project, env, system=system))
    assert len(found) == 2
    assert str(system / "managed_config.toml") in found[0]
    assert "allow_managed_hooks_only = true" in found[1]


def test_codex_managed_hooks_are_not_a_kill_switch_for_a_managed_install(
    dirs: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    """A managed install puts Tether's hooks in requirements.toml beside the requirement."""
    _, project, env = dirs
    system = tmp_path / "etc-codex"
    command = f"{default_command('codex')} --managed /run/tether/tether.sock"
    toml = (
        'allow_managed_hooks_only = true\n\n[[hooks.PreToolUse]]\nmatcher = ".*"\n'
        f'[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = {json.dumps(command)}\n'
    )
    put(system / "requirements.toml", toml)
    assert fails(switches.codex(project, env, system=system)) == []


def test_codex_project_hooks_need_a_trusted_project(
    dirs: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    home, project, env = dirs
    system = tmp_path / "etc-codex"
    [message] = fails(switches.codex(project, env, project_hooks=True, system=system))
    assert f'[projects."{project.resolve()}"] trust_level = "trusted"' in message
    put(
        home / ".codex" / "config.toml",
        f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n',
    )
    assert fails(switches.codex(project, env, project_hooks=True, system=system)) == []
    # The project's own config counts only in a trusted project.
    put(project / ".codex" / "config.toml", "[features]\nhooks = false\n")
    assert len(fails(switches.codex(project, env, project_hooks=True, system=system))) == 1


# -- Gemini CLI --------------------------------------------------------------------------------


def trust(home: Path, rules: dict[str, str]) -> None:
    put(home / ".gemini" / "trustedFolders.json", rules)


@pytest.mark.parametrize(
    ("user", "workspace", "system", "off_in"),
    [
        ({"enabled": False}, None, None, "user"),
        ({"enabled": False}, {"enabled": True}, None, None),  # workspace wins over user
        ({"enabled": True}, {"enabled": False}, None, "workspace"),
        (None, {"enabled": True}, {"enabled": False}, "system"),  # system wins over all
        ({"disabled": ["tether"]}, None, None, "user"),
        (None, {"disabled": ["some-other-hook"]}, None, None),
    ],
)
def test_gemini_hooks_config(
    dirs: tuple[Path, Path, dict[str, str]],
    tmp_path: Path,
    user: dict[str, Any] | None,
    workspace: dict[str, Any] | None,
    system: dict[str, Any] | None,
    off_in: str | None,
) -> None:
    home, project, env = dirs
    trust(home, {str(project): "TRUST_FOLDER"})
    files = {
        "user": home / ".gemini" / "settings.json",
        "workspace": project / ".gemini" / "settings.json",
        "system": tmp_path / "etc" / "settings.json",
    }
    for name, value in (("user", user), ("workspace", workspace), ("system", system)):
        if value is not None:
            put(files[name], {"hooksConfig": value})
    found = fails(switches.gemini(project, env, system=files["system"]))
    if off_in is None:
        assert found == []
    else:
        [message] = found
        assert message.startswith("hooksConfig.") and f" in {files[off_in]}" in message


def test_gemini_disabled_names_tethers_command_too(
    dirs: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    home, project, env = dirs
    trust(home, {str(project): "TRUST_FOLDER"})
    command = default_command("gemini")
    put(home / ".gemini" / "settings.json", {"hooksConfig": {"disabled": [command]}})
    names = ["tether", command]
    [message] = fails(switches.gemini(project, env, tether_names=names, system=tmp_path / "x"))
    assert json.dumps(command) in message


@pytest.mark.parametrize(
    ("rules", "env_extra", "settings", "status"),
    [
        ({"{project}": "DO_NOT_TRUST"}, {}, None, "fail"),
        ({"{home}": "TRUST_FOLDER", "{project}": "DO_NOT_TRUST"}, {}, None, "fail"),  # longest
        ({"{project}": "TRUST_FOLDER"}, {}, None, None),
        ({"{project}/child": "TRUST_PARENT"}, {}, None, None),  # its parent: the project
        ({"{parent}": "TRUST_FOLDER"}, {}, None, None),  # a subfolder of a trusted one
        ({}, {}, None, "warn"),  # Gemini CLI will ask
        ({"{project}": "DO_NOT_TRUST"}, {"GEMINI_CLI_TRUST_WORKSPACE": "true"}, None, None),
        ({"{project}": "TRUST_FOLDER"}, {"GEMINI_CLI_TRUST_WORKSPACE": "false"}, None, "fail"),
        (
            {"{project}": "DO_NOT_TRUST"},
            {},
            {"security": {"folderTrust": {"enabled": False}}},
            None,
        ),
    ],
)
def test_gemini_folder_trust(
    dirs: tuple[Path, Path, dict[str, str]],
    tmp_path: Path,
    rules: dict[str, str],
    env_extra: dict[str, str],
    settings: dict[str, Any] | None,
    status: str | None,
) -> None:
    home, project, env = dirs
    where = {"project": str(project), "home": str(home), "parent": str(project.parent)}
    trust(home, {k.format(**where): v for k, v in rules.items()})
    if settings is not None:
        put(home / ".gemini" / "settings.json", settings)
    found = switches.gemini(project, {**env, **env_extra}, system=tmp_path / "none")
    if status is None:
        assert found == []
    else:
        [finding] = found
        assert finding.status == status and "runs no hooks" in finding.message
    if status == "fail":  # an extension's hooks still run there
        assert switches.gemini(project, {**env, **env_extra}, extension=True,
                               system=tmp_path / "none") == []  # fmt: skip


# -- matchers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "matcher", "status"),
    [
        ("claude-code", "*", None),
        ("claude-code", "", None),
        ("claude-code", "Write|Edit|MultiEdit|NotebookEdit", "fail"),
        ("claude-code", "Bash", "warn"),
        ("claude-code", "Bashful", "fail"),  # names are compared exactly
        ("claude-code", "Bash|Write|Edit|MultiEdit|NotebookEdit", None),
        ("claude-code", "^(Bash|Write|Edit|MultiEdit|NotebookEdit)$", None),  # a regex
        ("codex", ".*", None),
        ("codex", "^apply_patch$", "fail"),
        ("codex", "Bash", "warn"),
        ("gemini", ".*", None),
        ("gemini", "write_file|replace", "fail"),
        ("gemini", "run_shell_command", "warn"),
        ("gemini", " * ", None),  # Gemini trims it
    ],
)
def test_matcher_coverage(host: str, matcher: str, status: str | None, tmp_path: Path) -> None:
    pre = switches.PRE[host]
    data = {"hooks": {pre: [{"matcher": matcher, "hooks": [
        {"type": "command", "command": default_command(host)}]}]}}  # fmt: skip
    found = switches.matcher_gaps(host, data, tmp_path / "settings.json")
    worst = "fail" if any(f.status == "fail" for f in found) else found[0].status if found else None
    assert worst == status, found
    if status == "fail":
        assert switches.SHELL_TOOL[host] in found[0].message
