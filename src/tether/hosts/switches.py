"""Every setting that keeps a host from running Tether's hooks, read the way the host reads it.

Each finding names the setting and the file it is in, because that is what the user must edit.
What each host does was read from its bundled code (Claude Code 2.1.197 and 2.1.332, Codex
0.171.0, Gemini CLI 0.61.0) and is checked against the real binaries by ``tests/e2e``:

Claude Code
    ``"disableAllHooks": true`` in the managed settings turns every hook off; in the user,
    project or local settings (the one of highest precedence that sets it wins: local >
    project > user) it turns off all but managed hooks. Managed ``"allowManagedHooksOnly":
    true`` and ``"strictPluginOnlyCustomization"`` (true, or a list naming ``"hooks"``) keep
    only managed hooks (and, for the latter, plugins'). Managed settings are
    ``/etc/claude-code/managed-settings.json`` then ``managed-settings.d/*.json`` in name
    order, each overriding the last. ``CLAUDE_CODE_SIMPLE`` (``--bare``) skips hooks and
    ``CLAUDE_CODE_SAFE_MODE`` (``--safe-mode``) keeps managed ones only.
Codex CLI
    ``[features] hooks = false`` (before 0.124: ``codex_hooks``) in ``config.toml`` turns hooks
    off; ``allow_managed_hooks_only = true`` in ``/etc/codex/requirements.toml`` keeps only
    managed ones; a project's ``.codex/`` is read only when ``[projects."PATH"] trust_level =
    "trusted"``. Untrusted or modified hooks are reported by ``codex app-server`` itself
    (``tether.hosts.codex_trust``).
Gemini CLI
    ``hooksConfig.enabled: false`` turns every hook off (system settings override workspace,
    workspace user, user the system defaults); ``hooksConfig.disabled`` lists hooks by name
    (Tether's is ``tether``) or command. With folder trust on (``security.folderTrust.enabled``,
    the default), a folder not trusted in ``~/.gemini/trustedFolders.json`` runs no hooks from
    any settings file in an interactive session, and a headless one refuses to start without
    ``--skip-trust``; extensions' hooks still run.

Every host: the matcher of Tether's pre-call entry must name the host's shell tool (a gap is
a call that runs unjudged; coverage receipts count them afterwards).
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

CLAUDE_MANAGED = Path("/etc/claude-code")
CODEX_SYSTEM = Path("/etc/codex")
GEMINI_SYSTEM = Path("/etc/gemini-cli/settings.json")

# Tools whose calls must reach Tether's pre-call hook: the shell (a gap fails), file writers
# (a gap warns).
SHELL_TOOL = {"claude-code": "Bash", "codex": "Bash", "gemini": "run_shell_command"}
WRITERS = {
    "claude-code": ("Write", "Edit", "MultiEdit", "NotebookEdit"),
    "codex": ("apply_patch",),
    "gemini": ("write_file", "replace"),
}
PRE = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
POST = {"claude-code": "PostToolUse", "codex": "PostToolUse", "gemini": "AfterTool"}
_TRUE = ("1", "true", "yes", "on")


class Switch(NamedTuple):
    """One setting that keeps Tether's hooks from running (or may)."""

    status: str  # fail | warn | info
    message: str
    fix: str


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in _TRUE


# -- matchers ----------------------------------------------------------------------------------


def matches(host: str, matcher: object, tool: str) -> bool:
    """Return whether a hook group's ``matcher`` selects ``tool``, as ``host`` decides it."""
    if matcher is None:
        return True
    if not isinstance(matcher, str):
        return False
    text = matcher.strip() if host == "gemini" else matcher
    if text in ("", "*"):
        return True
    if host == "claude-code" and re.fullmatch(r"[A-Za-z0-9_|]+", text):
        return tool in text.split("|")  # a list of names, compared exactly
    try:
        return re.search(text, tool) is not None
    except re.error:
        return text == tool


def matcher_gaps(host: str, data: Mapping[str, Any], path: Path) -> list[Switch]:
    """Return the host's tools that Tether's pre-call entries in ``data`` do not select."""
    from tether.hosts.settings import is_tether_command

    hooks = data.get("hooks")
    groups = hooks.get(PRE[host]) if isinstance(hooks, Mapping) else None
    matchers = [
        g.get("matcher")
        for g in (groups if isinstance(groups, list) else ())
        if isinstance(g, dict)
        and any(
            isinstance(h, dict) and is_tether_command(h.get("command"), host)
            for h in g.get("hooks") or ()
        )
    ]
    if not matchers:
        return []
    shown = " and ".join(json.dumps(m) for m in matchers)
    out: list[Switch] = []
    shell = SHELL_TOOL[host]
    if not any(matches(host, m, shell) for m in matchers):
        out.append(
            Switch(
                "fail",
                f"{path}: the matcher {shown} of Tether's {PRE[host]} entry does not select "
                f"{shell}: shell commands run without a guard decision",
                f'set the matcher to "{"*" if host == "claude-code" else ".*"}" '
                f"(`tether install {host}` leaves a narrowed matcher alone)",
            )
        )
    missed = [t for t in WRITERS[host] if not any(matches(host, m, t) for m in matchers)]
    if missed:
        out.append(
            Switch(
                "warn",
                f"{path}: the matcher {shown} of Tether's {PRE[host]} entry does not select "
                f"{', '.join(missed)}: those calls run without a guard decision (writes to "
                "Tether's own files included)",
                "widen the matcher to select them",
            )
        )
    return out


# -- Claude Code -------------------------------------------------------------------------------


def claude_managed_files(root: Path = CLAUDE_MANAGED) -> list[Path]:
    """Return the managed settings files in the order Claude Code merges them."""
    files = [root / "managed-settings.json"]
    try:
        drop = sorted(
            p for p in (root / "managed-settings.d").iterdir()
            if p.name.endswith(".json") and not p.name.startswith(".")
        )  # fmt: skip
    except OSError:
        drop = []
    return [p for p in files + drop if p.is_file()]


def _last(files: Iterable[Path], key: str) -> tuple[Path, Any] | None:
    """Return the file that sets ``key`` last (highest precedence last) and its value."""
    found = None
    for path in files:
        data = _json(path)
        if key in data:
            found = (path, data[key])
    return found


def claude_code(
    cwd: Path,
    environ: Mapping[str, str],
    *,
    tether_in_managed: bool = False,
    managed: Path = CLAUDE_MANAGED,
) -> list[Switch]:
    """Return the settings that keep Claude Code from running Tether's hooks."""
    out: list[Switch] = []
    policy = claude_managed_files(managed)
    home = Path(environ.get("HOME") or os.path.expanduser("~"))
    layers = [  # lowest precedence first
        home / ".claude" / "settings.json",
        cwd / ".claude" / "settings.json",
        cwd / ".claude" / "settings.local.json",
    ]
    off = _last(policy, "disableAllHooks")
    if off is not None and off[1] is True:
        out.append(
            Switch(
                "fail",
                f'"disableAllHooks": true in {off[0]} (managed settings) turns off every hook, '
                "Tether's included",
                f'ask whoever manages {off[0]} to remove "disableAllHooks"',
            )
        )
        return out
    only = _last(policy, "allowManagedHooksOnly")
    if only is not None and only[1] is True and not tether_in_managed:
        out.append(
            Switch(
                "fail",
                f'"allowManagedHooksOnly": true in {only[0]} (managed settings): Claude Code '
                "runs only hooks in managed settings, and Tether's are not there",
                f"add Tether's hooks to {only[0]} (a managed install), or ask whoever manages "
                'it to remove "allowManagedHooksOnly"',
            )
        )
    strict = _last(policy, "strictPluginOnlyCustomization")
    if (
        strict is not None
        and (strict[1] is True or (isinstance(strict[1], list) and "hooks" in strict[1]))
        and not tether_in_managed
    ):
        out.append(
            Switch(
                "fail",
                f'"strictPluginOnlyCustomization": {json.dumps(strict[1])} in {strict[0]} '
                "(managed settings): hooks from user and project settings do not run",
                "install Tether as a plugin (`tether plugin claude-code`) or in managed settings",
            )
        )
    user_off = _last([p for p in layers if p.is_file()], "disableAllHooks")
    if user_off is not None and user_off[1] is True and not tether_in_managed:
        out.append(
            Switch(
                "fail",
                f'"disableAllHooks": true in {user_off[0]} turns off every hook but managed '
                "ones: Tether's hooks never run",
                f'remove "disableAllHooks" from {user_off[0]} (or set it to false)',
            )
        )
    if _truthy(environ.get("CLAUDE_CODE_SIMPLE")):
        out.append(
            Switch(
                "warn",
                "CLAUDE_CODE_SIMPLE is set here: Claude Code started with it (or with --bare) "
                "runs no hooks",
                "unset CLAUDE_CODE_SIMPLE and do not start Claude Code with --bare",
            )
        )
    if _truthy(environ.get("CLAUDE_CODE_SAFE_MODE")) and not tether_in_managed:
        out.append(
            Switch(
                "warn",
                "CLAUDE_CODE_SAFE_MODE is set here: Claude Code started with it (or with "
                "--safe-mode) runs only managed hooks",
                "unset CLAUDE_CODE_SAFE_MODE",
            )
        )
    return out


# -- Codex -------------------------------------------------------------------------------------


def codex_home(environ: Mapping[str, str]) -> Path:
    """Return ``$CODEX_HOME`` (``~/.codex``)."""
    home = Path(environ.get("HOME") or os.path.expanduser("~"))
    return Path(environ["CODEX_HOME"]) if environ.get("CODEX_HOME") else home / ".codex"


def _project_trusted(config: Mapping[str, Any], cwd: Path) -> bool:
    projects = config.get("projects")
    if not isinstance(projects, Mapping):
        return False
    for folder in (cwd, *cwd.parents):
        entry = projects.get(str(folder))
        if isinstance(entry, Mapping):
            return entry.get("trust_level") == "trusted"
    return False


def codex(
    cwd: Path,
    environ: Mapping[str, str],
    *,
    project_hooks: bool = False,
    system: Path = CODEX_SYSTEM,
) -> list[Switch]:
    """Return the settings that keep Codex from running Tether's hooks."""
    out: list[Switch] = []
    user = codex_home(environ) / "config.toml"
    user_config = _toml(user)
    trusted = _project_trusted(user_config, cwd.resolve())
    layers = [system / "config.toml", user]
    if trusted:
        layers.append(cwd / ".codex" / "config.toml")
    layers.append(system / "managed_config.toml")
    setting: tuple[Path, str, Any] | None = None
    for path in layers:
        features = _toml(path).get("features")
        if isinstance(features, Mapping):
            for name in ("codex_hooks", "hooks"):  # the newer name wins within a file
                if name in features:
                    setting = (path, name, features[name])
    if setting is not None and setting[2] is False:
        path, name, _ = setting
        out.append(
            Switch(
                "fail",
                f"[features] {name} = false in {path} turns Codex's hooks off: Tether's never run",
                f"remove `{name} = false` from [features] in {path} (or set it to true)",
            )
        )
    required = _toml(system / "requirements.toml")
    if required.get("allow_managed_hooks_only") is True and not _holds_tether(
        required.get("hooks"), "codex"
    ):
        out.append(
            Switch(
                "fail",
                f"allow_managed_hooks_only = true in {system / 'requirements.toml'}: Codex runs "
                "only managed hooks, and Tether's are not among them",
                "ask whoever manages it to remove the requirement, or install Tether's hooks "
                "as managed hooks",
            )
        )
    if project_hooks and not trusted:
        out.append(
            Switch(
                "fail",
                f"{cwd / '.codex' / 'hooks.json'} holds Tether's hooks, but Codex reads a "
                f'project\'s .codex/ only once it is trusted: [projects."{cwd.resolve()}"] '
                f'trust_level = "trusted" is not in {user}',
                "start `codex` here once and trust the project (or add that entry), then run "
                "`tether install codex --project` again to trust the hooks",
            )
        )
    return out


def _holds_tether(tree: object, host: str) -> bool:
    """Return whether any string in ``tree`` (a managed hooks table) runs Tether's hook."""
    from tether.hosts.settings import is_tether_command

    stack = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if is_tether_command(item, host):
                return True
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


# -- Gemini CLI --------------------------------------------------------------------------------


def gemini_trust(cwd: Path, environ: Mapping[str, str]) -> tuple[bool | None, str]:
    """Return whether Gemini CLI trusts ``cwd`` (None: it would ask) and where that is said."""
    if _truthy(environ.get("GEMINI_RESTRICTED_MODE")) or (
        environ.get("GEMINI_CLI_TRUST_WORKSPACE") == "false"
    ):
        return False, "the environment (GEMINI_RESTRICTED_MODE / GEMINI_CLI_TRUST_WORKSPACE)"
    if environ.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return True, "GEMINI_CLI_TRUST_WORKSPACE=true"
    home = Path(environ.get("HOME") or os.path.expanduser("~"))
    path = Path(
        environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or home / ".gemini" / "trustedFolders.json"
    )
    rules = _json(path)
    here = os.path.realpath(cwd)
    best, level = -1, None
    for rule, trust in rules.items():
        folder = os.path.dirname(rule) if trust == "TRUST_PARENT" else rule
        real = os.path.realpath(folder)
        if (here == real or here.startswith(real.rstrip("/") + "/")) and len(rule) > best:
            best, level = len(rule), trust
    if level == "DO_NOT_TRUST":
        return False, str(path)
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return True, str(path)
    return None, str(path)


def gemini(
    cwd: Path,
    environ: Mapping[str, str],
    *,
    tether_names: Iterable[str] = ("tether",),
    extension: bool = False,
    system: Path | None = None,
) -> list[Switch]:
    """Return the settings that keep Gemini CLI from running Tether's hooks.

    ``tether_names``: the names and commands of Tether's installed hooks (``hooksConfig.disabled``
    matches either); ``extension``: Tether's hooks come from an extension (folder trust does not
    stop those).
    """
    out: list[Switch] = []
    home = Path(environ.get("HOME") or os.path.expanduser("~"))
    system_file = system or Path(environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or GEMINI_SYSTEM)
    defaults = Path(
        environ.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
        or system_file.with_name("system-defaults.json")
    )
    trusted, said = gemini_trust(cwd, environ)
    folder_trust = True
    layers = [defaults, home / ".gemini" / "settings.json"]
    if trusted is not False:
        layers.append(cwd / ".gemini" / "settings.json")
    layers.append(system_file)
    enabled: tuple[Path, Any] | None = None
    for path in layers:
        data = _json(path)
        config = data.get("hooksConfig")
        if isinstance(config, Mapping):
            if "enabled" in config:
                enabled = (path, config["enabled"])
            disabled = config.get("disabled")
            hit = [n for n in tether_names if isinstance(disabled, list) and n in disabled]
            if hit:
                out.append(
                    Switch(
                        "fail",
                        f"hooksConfig.disabled in {path} lists {json.dumps(hit[0])}: Gemini CLI "
                        "skips Tether's hooks",
                        f"remove {json.dumps(hit[0])} from hooksConfig.disabled in {path} (or "
                        "run /hooks enable in Gemini CLI)",
                    )
                )
        security = data.get("security")
        trust = security.get("folderTrust") if isinstance(security, Mapping) else None
        if isinstance(trust, Mapping) and isinstance(trust.get("enabled"), bool):
            folder_trust = trust["enabled"]
    if enabled is not None and enabled[1] is False:
        out.insert(
            0,
            Switch(
                "fail",
                f"hooksConfig.enabled: false in {enabled[0]} turns off every Gemini CLI hook, "
                "Tether's included",
                f"remove hooksConfig.enabled from {enabled[0]} (or set it to true)",
            ),
        )
    if folder_trust and not extension and environ.get("GEMINI_CLI_TRUST_WORKSPACE") != "true":
        if trusted is False:
            out.append(
                Switch(
                    "fail",
                    f"Gemini CLI does not trust {cwd} ({said}): an interactive session here "
                    "runs no hooks from any settings file, Tether's included (a headless one "
                    "refuses to start without --skip-trust)",
                    f"trust the folder (/permissions in Gemini CLI, or TRUST_FOLDER for it in "
                    f"{said}), or install Tether as an extension (`tether plugin gemini`): "
                    "extensions' hooks run in untrusted folders",
                )
            )
        elif trusted is None:
            out.append(
                Switch(
                    "warn",
                    f"Gemini CLI has not been told whether to trust {cwd} ({said}): it will ask; "
                    "answered no, a session here runs no hooks from settings files, Tether's "
                    "included",
                    "trust the folder when Gemini CLI asks, or install Tether as an extension "
                    "(`tether plugin gemini`)",
                )
            )
    return out


__all__ = [
    "Switch",
    "claude_code",
    "claude_managed_files",
    "codex",
    "gemini",
    "gemini_trust",
    "matcher_gaps",
    "matches",
]
