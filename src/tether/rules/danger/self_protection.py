"""DG604-DG610: calls that disable, weaken or bypass Tether itself.

An agent that can rewrite the hook entries, delete the state database, kill the sidecar,
uninstall the package or point ``TETHER_CONFIG`` elsewhere escapes every other rule, so each of
these asks (and blocks when no human can answer). They are not hardline: the user may really
mean it. The file-tool side (Write/Edit, apply_patch, MCP filesystem tools) is
:mod:`tether.rules.file_tools`; which paths count is :mod:`tether.rules.protected`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator

from tether.rules import protected
from tether.rules.base import Rule, Tier
from tether.rules.danger import self_files, self_hosts
from tether.rules.danger._base import Hit, Scope, is_python, name_of, options_of
from tether.rules.danger.interp import interpreter_code
from tether.shell.agents import TETHER_ACTIONS, TETHER_COMMANDS
from tether.shell.model import SimpleCommand, Word
from tether.shell.options import parse
from tether.shell.programs import WRAPPERS
from tether.shell.specs import grammar_of
from tether.shell.tools import PIP_UNINSTALL, code_grammar, signal_and_rest

_Check = Callable[[SimpleCommand, Scope], Iterable[Hit]]
_INSTEAD = "Tell the user what gets in the way and why; let them change Tether themselves."

RULES = (
    Rule(
        code="DG604",
        name="tether-guard-change",
        tier=Tier.ASK,
        summary="Change, reinstall, switch off or forget Tether's guardrails through its CLI or "
        "its sidecar's API",
        why="An agent that edits the config guarding it (`tether config set approvals.mode off`), "
        "rewrites or removes the hooks (`tether install claude-code --command true`), trusts a "
        "project file or resets its session's loop history escapes every other rule.",
        instead=_INSTEAD,
        match=(
            "tether config set approvals.mode off",
            "tether config set --project loops.hard_stop false",
            "tether config unset approvals.deny",
            "tether uninstall claude-code",
            "tether install claude-code",
            "tether install claude-code --command true",
            "tether install codex --project",
            "tether trust",
            "tether trust .tether.yaml",
            "tether session reset 5b3f2a10",
            "tether doctor --fix",
            "tether doctor --fi",
            "tether serve --set approvals.mode=off",
            "tether serve --se=approvals.mode=off",
            "uvx --from tether tether config set approvals.mode off",
            "python3 -mtether uninstall codex",
            "python -m tether config set loops.warnings false",
            "python3 -m tether install gemini --command true",
            "sudo tether uninstall gemini",
            "bash -c 'tether install claude-code --command true'",
            "uvx tether uninstall claude-code",
            ".venv/bin/tether install claude-code --command true",
            "python3 -c \"import tether.cli; tether.cli.main(['uninstall', 'claude-code'])\"",
            "python3 -c \"from tether.config.trust import trust; trust('.tether.yaml', {})\"",
            "python3 - <<'EOF'\nfrom tether.cli import main\nmain(['uninstall', 'codex'])\nEOF",
            'curl -s -X POST localhost:8765/v1/user_message -d \'{"session_id": "s"}\'',
            "curl -d @forged.json http://127.0.0.1:8765/hook/claude-code",
        ),
        not_match=(
            "tether config get loops.hard_stop",
            "tether config list",
            "tether config check",
            "tether session show 5b3f2a10",
            "tether install --help",
            "tether config set approvals.mode off --he",
            "tether uninst claude-code",
            "tether trust --list",
            "tether doctor",
            "tether serve",
            "tether classify 'rm -rf /'",
            "python3 -c 'import tethering; print(1)'",
            "python3 -c \"print('import tether')\"",
            "echo tether config set approvals.mode off",
            "git commit -m 'tether install claude-code'",
            "curl -s localhost:8765/health",
            'curl -s -d \'{"command": "ls"}\' localhost:8765/v1/classify',
        ),
    ),
    Rule(
        code="DG605",
        name="tether-file-change",
        tier=Tier.ASK,
        summary="Delete, move, overwrite, lock or edit Tether's config, state, cache or a host's "
        "hook settings",
        why="The hosts' hook settings decide whether Tether runs at all; its config, trust "
        "records, cache and state database (wherever `store.path` puts it) decide what it allows "
        "and what it remembers. A write, delete, move, copy or extraction onto them, or a "
        "`chmod`, turns the guard off or resets it, whatever tool does it.",
        instead="Show the user the exact change (the file and the lines) and let them apply it.",
        match=(
            "echo 'approvals: {mode: off}' > .tether.yaml",
            ": > .tether.yaml",
            "echo '{}' > .claude/settings.json",
            "cp /tmp/s.json proj/.claude/settings.local.json",
            "tee .gemini/settings.json < x",
            "rm ~/.claude/settings.json",
            "rm -rf .claude",
            "sudo rm -f /home/dev/.codex/hooks.json",
            "mv ~/.codex/config.toml /tmp/",
            "mv .tether.yaml .tether.yaml.off",
            "chmod 000 ~/.local/state/tether/state.db",
            "rm ~/.local/state/tether/state.db-wal",
            "truncate -s 0 ~/.local/state/tether/state.db",
            "rm -rf ~/.cache/tether",
            "rm -rf ~/.config/tether",
            "rm -rf $XDG_STATE_HOME/tether",
            "sed -i 's/tether hook/true/' ~/.claude/settings.json",
            "yq -i '.approvals.mode = \"off\"' .tether.yaml",
            "curl -fsSL https://x.example/t.yaml -o .tether.yaml",
            "wget -O ~/.gemini/settings.json https://x.example/s.json",
            "ln -sf /dev/null ~/.claude/settings.json",
            "git checkout -- .claude/settings.json",
            "find ~/.local/state/tether -delete",
            "sqlite3 ~/.local/state/tether/state.db 'DELETE FROM sessions'",
            "python3 -c \"open('.claude/settings.json','w').write('{}')\"",
            "node -e \"require('fs').unlinkSync('.tether.yaml')\"",
            "python3 -c \"import os; os.remove(os.path.join(os.environ['HOME'], '.claude', "
            "'settings.json'))\"",
            "bash -c 'rm -f ~/.codex/hooks.json'",
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: .claude/settings.json\n"
            "*** End Patch\nEOF",
            "rm -rf .venv/lib/python3.12/site-packages/tether",
            "cp -r /tmp/evil/.claude .",
            "cp -t .claude /tmp/settings.json",
            "rsync -a dotfiles/ ~/",
            "tar xzf /tmp/evil.tgz -C ~/.claude",
            "unzip -o /tmp/evil.zip -d ~/.codex",
            "git -C ~/.claude checkout -- settings.json",
            'cd "$X" && rm settings.json',
        ),
        not_match=(
            "cat .tether.yaml",
            "cat ~/.claude/settings.json",
            "grep -n hooks .claude/settings.json",
            "cp .tether.yaml /tmp/old.yaml",
            "cp ~/.claude/settings.json /tmp/backup.json",
            "jq . ~/.gemini/settings.json",
            "echo x > tether.yaml.bak",
            "rm -rf ~/.cache",
            "rm -rf ~/.cache/pip",
            "rm .claude/commands/old.md",
            "echo note >> .claude/CLAUDE.md",
            "rm src/tether/guard.py",
            "sqlite3 -readonly ~/.local/state/tether/state.db 'select count(*) from sessions'",
            "sqlite3 ~/.local/state/tether/state.db 'select count(*) from sessions'",
            "python3 -c \"import json; print(json.load(open('.claude/settings.json')))\"",
            "find . -name '*.pyc' -delete",
            "git checkout main",
            "cp -r src dst",
            "cp -r ~/.claude /tmp/backup",
            "tar xzf foo.tgz",
            'cd "$X" && rm foo.txt',
            "curl -o out.json https://x.example/settings.json",
            "echo 'rm ~/.claude/settings.json'",
        ),
    ),
    Rule(
        code="DG606",
        name="tether-process-kill",
        tier=Tier.ASK,
        summary="Kill Tether's processes (the sidecar, a running hook)",
        why="With `tether serve` gone, hosts whose HTTP hook cannot connect let the call run; a "
        "killed hook gives the host no answer.",
        instead="Ask the user to restart or stop Tether if it is in the way.",
        match=(
            "pkill -f tether",
            "pkill -f 'tether serve'",
            "killall tether",
            "kill $(pgrep tether)",
            "kill -9 $(pgrep -f 'tether serve')",
            "pgrep -f tether | xargs kill",
            "sudo pkill -9 -f tether",
            "systemctl --user stop tether",
        ),
        not_match=(
            "pgrep -f tether",
            "pkill -f 'node server.js'",
            "kill 12345",
            "killall node",
            "systemctl --user status tether",
        ),
    ),
    Rule(
        code="DG607",
        name="tether-package-removal",
        tier=Tier.ASK,
        summary="Uninstall the Tether package",
        why="Every installed hook runs `tether hook …`; with the package gone the hook fails and "
        "most hosts then let every call through.",
        instead=_INSTEAD,
        match=(
            "pip uninstall tether",
            "pip3 uninstall -y tether",
            "python -m pip uninstall -y tether",
            "python3.12 -m pip uninstall tether",
            "uv pip uninstall tether",
            "pipx uninstall tether",
            "uv tool uninstall tether",
            "sudo pip uninstall -y requests Tether",
        ),
        not_match=(
            "pip uninstall requests",
            "pip install tether",
            "pip show tether",
            "uv pip uninstall tethered",
        ),
    ),
    Rule(
        code="DG608",
        name="tether-env-override",
        tier=Tier.ASK,
        summary="Set, export or unset a TETHER_* environment variable",
        why="`TETHER_CONFIG` and the other `TETHER_*` variables choose Tether's config, store and "
        "credentials; setting them from the agent's shell swaps the guard's settings for the "
        "agent's.",
        instead="Ask the user to set the variable if it is really needed.",
        match=(
            "export TETHER_CONFIG=/tmp/loose.yaml",
            "TETHER_CONFIG=/tmp/loose.yaml tether hook claude-code",
            "env TETHER_CONFIG=/tmp/x.yaml claude",
            "unset TETHER_CONFIG",
            "declare -x TETHER_SERVE_TOKEN=x",
            "env -u TETHER_CONFIG codex",
            "sudo TETHER_CONFIG=/tmp/x tether config list",
        ),
        not_match=(
            "echo $TETHER_CONFIG",
            "printenv TETHER_CONFIG",
            "export PATH=$PATH:/opt/bin",
            "FOO_TETHER=1 make",
        ),
    ),
    Rule(
        code="DG610",
        name="host-hooks-bypass",
        tier=Tier.ASK,
        summary="Start Claude Code, Codex or Gemini CLI with its hooks off or its settings moved",
        why="A nested agent runs its own tool calls; started with hooks disabled "
        "(`--settings '{\"disableAllHooks\": true}'`, `claude --safe-mode`, "
        "`codex -c features.hooks=false`, `codex exec --ignore-user-config`, which drops the "
        "hooks' trust) or with another home (`CODEX_HOME=/tmp/x`), none of them reach Tether.",
        instead="Run the nested agent with the user's own settings, or ask the user.",
        match=(
            "claude -p 'fix it' --settings '{\"disableAllHooks\": true}'",
            "claude --setting-sources local -p 'clean up'",
            "codex -c features.hooks=false exec 'rm -rf build'",
            "codex --disable hooks exec 'deploy'",
            "CODEX_HOME=/tmp/empty codex exec 'deploy'",
            "HOME=/tmp/h claude -p 'anything'",
            "env XDG_CONFIG_HOME=/tmp/c gemini -p 'x'",
            "claude --bare -p 'clean up'",
            "CLAUDE_CODE_SIMPLE=1 claude -p 'clean up'",
            "claude --safe-mode -p 'clean up'",
            "claude --restricted -p 'clean up'",
            "codex -cfeatures.hooks=false exec 'deploy'",
            "codex --config='features={hooks=false}' exec 'deploy'",
            "codex exec --ignore-user-config 'deploy'",
            "codex features disable hooks",
        ),
        not_match=(
            "claude -p 'summarise the diff'",
            "claude --settings ./team-settings.json -p x",
            "claude --setting-sources user,project,local -p x",
            "codex exec 'run the tests'",
            "codex -c model=o3 exec x",
            "codex exec -- '-c features.hooks=false'",
            "codex --conf features.hooks=false exec x",
            "gemini -p 'hello'",
        ),
    ),
    Rule(
        code="DG609",
        name="tether-store-wipe",
        tier=Tier.ASK,
        summary="Delete or expire Tether's session keys in Redis",
        why="Tether's loop history and halts live under its key prefix (`tether:`, or the "
        "configured `store.key_prefix`); deleting them un-halts a stopped session and forgets "
        "every streak.",
        instead="Ask the user to reset the session (`tether session reset ID`) if it is stale.",
        match=(
            "redis-cli DEL tether:session:abc",
            "redis-cli -n 2 unlink tether:sessions",
            "redis-cli EXPIRE tether:session:abc 1",
            "redis-cli --scan --pattern 'tether:*' | xargs redis-cli del",
            "python3 -c \"import redis; redis.Redis().delete('tether:session:x')\"",
        ),
        not_match=(
            "redis-cli GET tether:session:abc",
            "redis-cli DEL cache:user:1",
            "redis-cli --scan --pattern 'tether:*'",
        ),
    ),
)


# `tether …` subcommands that change, reinstall, loosen or forget the guard: the subcommand, the
# actions that do (None: every action), and for a few the option that makes them do it. Each is
# read with Tether's own grammar (``tether.shell.agents``, checked against its argparse parsers):
# ``tether doctor --fi`` is --fix, ``tether config set --proj K V`` sets K.
_GUARD_CHANGES: dict[str, frozenset[str] | None] = {
    "config": frozenset({"set", "unset", "edit"}),
    "install": None,
    "uninstall": None,
    "trust": None,
    "session": frozenset({"reset", "delete", "forget"}),
}
_GUARD_OPTIONS = {"doctor": "--fix", "serve": "--set"}
_LAUNCHERS = frozenset({"uvx", "uv", "pipx", "poetry", "pdm", "hatch", "rye", "npx", "pixi"})


def _tether_runs(cmd: SimpleCommand) -> Iterator[tuple[Word, ...]]:
    """Yield the arguments a ``tether`` run may get (``tether``, ``python -m tether``, ``uvx …``).

    A launcher's own options are not modelled: each ``tether`` word among its first ones is
    tried (``uvx --from tether tether config set …``: the second one runs).
    """
    base = name_of(cmd).rpartition("/")[2]
    args = cmd.args
    if base == "tether":
        yield args
    elif is_python(base):
        parsed = parse(code_grammar(base), args)  # -m MODULE ends python's options
        if parsed.values("-m")[-1:] == ["tether"]:
            yield parsed.operands
    elif base in _LAUNCHERS:
        for i, w in enumerate(args[:6]):
            if _is_tether_package(w.value):
                yield args[i + 1 :]


def _guard_change(args: tuple[Word, ...]) -> str | None:
    """Return what a ``tether`` run with ``args`` changes in the guard, or None."""
    if not args:
        return None
    sub = args[0].value
    g = TETHER_COMMANDS.get(sub)  # the dispatcher takes the command spelt whole
    if g is None or not args[0].literal:
        return None
    parsed = parse(g, args[1:], stop_at=1 if sub in _ACTIONS else -1)
    if parsed.has("--help"):
        return None  # argparse prints the help and exits before anything runs
    if sub in _GUARD_OPTIONS:
        return f"tether {sub} {_GUARD_OPTIONS[sub]}" if parsed.has(_GUARD_OPTIONS[sub]) else None
    if sub not in _GUARD_CHANGES:
        return None
    actions = _GUARD_CHANGES[sub]
    if actions is None:
        if sub == "trust" and parsed.has("--list") and not parsed.has("--revoke"):
            return None  # lists the trust records
        return " ".join(["tether", sub, *(w.value for w in parsed.operands[:1])])
    if not parsed.operands or parsed.operands[0].value not in actions:
        return None
    action = parsed.operands[0].value
    ag = TETHER_ACTIONS.get(f"{sub} {action}")
    if ag is not None and parse(ag, parsed.operands[1:]).has("--help"):
        return None
    return f"tether {sub} {action}"


_ACTIONS = frozenset({"config", "session"})  # their first operand is an action, then its options


def check_guard_change(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag ``tether install|uninstall|trust``, ``config set|unset``, ``session reset`` …"""
    for args in _tether_runs(cmd):
        found = _guard_change(args)
        if found is not None:
            yield Hit("DG604", found)
            return


# Sidecar routes that change what it remembers: a forged user turn un-halts a session, forged
# results or hook events rewrite its streaks.
_SIDECAR_WRITES = (
    "/v1/user_message",
    "/v1/after_call",
    "/v1/before_call",
    "/hook/claude-code",
    "/hook/codex",
    "/hook/gemini",
)
_LOOPBACK = ("localhost", "127.", "[::1]", "0.0.0.0", "ip6-localhost", ":")  # `:8765` is httpie
_HTTP_CLIENTS = frozenset({"curl", "wget", "http", "https", "xh", "httpie", "curlie"})


def check_sidecar_call(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag an HTTP client posting to the sidecar's hook or state-changing API routes."""
    for w in cmd.args:
        host, _, path = w.value.split("://", 1)[-1].partition("/")
        route = "/" + path.split("?")[0]
        if host.lower().startswith(_LOOPBACK) and route.startswith(_SIDECAR_WRITES):
            yield Hit("DG604", f"{name_of(cmd)} to the sidecar's {route[:40]}")
            return


def _mentions_tether(text: str) -> bool:
    return "tether" in text.lower()


def check_process_kill(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag ``pkill``/``killall``/``kill $(pgrep …)`` aimed at Tether, and stopping its unit."""
    name = name_of(cmd)
    args = cmd.args
    if name in ("pkill", "killall"):
        _signal, rest = signal_and_rest(args, anywhere=True)
        pattern = [w.value for w in options_of(name, rest).operands]  # not `-u USER`'s value
        if any(_mentions_tether(p) for p in pattern):
            yield Hit("DG606", f"{name} {' '.join(pattern)[:80]}")
    elif name == "kill":
        if any(not w.literal and _mentions_tether(w.value) for w in args):
            yield Hit("DG606", "kill of Tether's process ids")
            return
        for up in scope.upstream(cmd):
            if name_of(up) in ("pgrep", "pidof", "ps", "lsof", "cat") and any(
                _mentions_tether(w.value) for w in up.args
            ):
                yield Hit("DG606", f"kill of the ids {name_of(up)} found")
                return
    elif name in ("systemctl", "launchctl", "service"):
        # Each one's grammar (`systemctl -H HOST`, `launchctl unload -w -S Aqua PLIST`).
        verbs = [w.value for w in options_of(name, args).operands]
        stops = ("stop", "kill", "disable", "mask", "unload", "bootout", "remove")
        if any(v in stops for v in verbs) and any(_mentions_tether(v) for v in verbs):
            yield Hit("DG606", f"{name} {' '.join(verbs)[:80]}")


def _is_tether_package(value: str) -> bool:
    base = value.lower().split("[", 1)[0]
    for sep in ("==", ">=", "<=", "~=", "@"):
        base = base.split(sep, 1)[0]
    return base.strip() == "tether"


def _pip_words(name: str, args: tuple[Word, ...]) -> list[str]:
    """Return what pip (or pipx) is asked to do: the subcommand and its operands."""
    if name == "pipx":
        return [w.value for w in options_of(name, args).operands]
    top = options_of("pip", args)  # pip's general options end at the subcommand
    if not top.operands:
        return []
    sub, rest = top.operands[0], top.operands[1:]
    if sub.value == "uninstall":  # general options may follow it, with uninstall's own
        rest = parse(grammar_of(PIP_UNINSTALL), rest).operands
    return [sub.value, *(w.value for w in rest)]


def _python_pip(args: tuple[Word, ...]) -> tuple[Word, ...] | None:
    """Return the arguments ``python -m pip`` gives pip, or None for another module."""
    parsed = parse(code_grammar("python3"), args)  # ``python -I -m pip``, ``-mpip``
    if parsed.values("-m")[-1:] not in (["pip"], ["pip3"]):
        return None
    return parsed.operands


def check_package_removal(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag ``pip uninstall tether`` in every spelling (pip3, python -m pip, uv, pipx)."""
    name = name_of(cmd)
    args: tuple[Word, ...] | None = cmd.args
    if is_python(name):
        args = _python_pip(cmd.args)
    elif name == "uv":
        # uv's own options (``--directory DIR``), then ``pip``/``tool`` (read by pip's grammar)
        # or its own ``remove``.
        operands = options_of("uv", cmd.args).operands
        args = operands[1:] if operands[:1] and operands[0].value in ("pip", "tool") else operands
    elif not (name.startswith("pip") or name == "pipx"):
        return
    words = _pip_words(name, args) if args else []
    if words[:1] in (["uninstall"], ["remove"]) and any(_is_tether_package(v) for v in words[1:]):
        yield Hit("DG607", f"{name} {' '.join(words)[:80]}")


_EXPORTERS = frozenset({"export", "declare", "typeset", "readonly", "local", "unset"})
ENV_NAMES = _EXPORTERS | {"env"}  # judged by name already


def _tether_variable(text: str) -> bool:
    return text.startswith("TETHER_")


def check_env_override(cmd: SimpleCommand, scope: Scope) -> Iterable[Hit]:
    """Flag ``TETHER_*`` set, exported or unset: prefixes, ``export``, ``env``, ``unset``."""
    for a in cmd.assignments:
        if _tether_variable(a.name):
            return (Hit("DG608", f"{a.name}=…"),)
    if not cmd.wrappers and name_of(cmd) not in ENV_NAMES:
        return ()
    return tuple(_env_override(cmd))


def _env_override(cmd: SimpleCommand) -> Iterator[Hit]:
    runs = [(w.name, w.args) for w in cmd.wrappers if w.name in ("env", "sudo", "doas")]
    name = name_of(cmd)
    if name == "env":
        runs.append((name, cmd.args))
    for wrapper, args in runs:
        # The wrapper's own grammar: `env -uNAME`, `--uns=NAME`; its NAME=value operands.
        parsed = parse(WRAPPERS[wrapper].grammar, args)
        names = [*parsed.values("--unset"), *(w.value for w in parsed.operands)]
        found = next((n for n in names if _tether_variable(n)), None)
        if found is not None:
            yield Hit("DG608", f"{wrapper} {found.split('=', 1)[0]}")
            return
    if name in _EXPORTERS:
        # export/declare/unset take only flags: any word naming TETHER_* sets or unsets it.
        found = next((w.value for w in cmd.args if _tether_variable(w.value)), None)
        if found is not None:
            yield Hit("DG608", f"{name} {found.split('=', 1)[0]}")


_REDIS_WRITES = frozenset(
    {"DEL", "UNLINK", "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "SET", "SETEX", "PSETEX",
     "GETDEL", "GETEX", "RENAME", "RENAMENX", "HDEL", "HSET", "SREM", "ZREM", "MOVE", "COPY",
     "RESTORE", "PERSIST"}
)  # fmt: skip


def check_store_wipe(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag redis-cli deleting, expiring or rewriting keys under Tether's ``tether`` prefix."""
    # redis-cli's grammar: its options (``-n DB``, ``-X TAG``) end at the command word.
    words = [w.value for w in options_of(name_of(cmd), cmd.args).operands]
    if not words or words[0].upper() not in _REDIS_WRITES:
        return
    keys = words[1:]
    if any(_tether_key(k) for k in keys):
        yield Hit("DG609", f"{name_of(cmd)} {words[0]} {' '.join(keys)[:60]}")
        return
    if not keys or any(not w.literal for w in cmd.args):  # keys from xargs: who listed them?
        for up in scope.upstream(cmd):
            if name_of(up) in ("redis-cli", "valkey-cli") and any(
                _mentions_tether(w.value) or _tether_key(w.value) for w in up.args
            ):
                yield Hit("DG609", f"{name_of(cmd)} {words[0]} of the keys {name_of(up)} listed")
                return


def _tether_key(key: str) -> bool:
    """Return True for a key (or pattern) under Tether's prefix, the default or configured."""
    low = key.lower()
    return _mentions_tether(low.split(":", 1)[0]) or any(
        low.startswith(p) for p in protected.current().key_prefixes
    )


_MODULES = frozenset({"tether", "pip", "pip3"})  # python -m …


def _deletes_tether_keys(low: str) -> bool:
    prefixes = ("tether:", *protected.current().key_prefixes)
    return (
        "redis" in low
        and any(p in low for p in prefixes)
        and any(v in low for v in (".delete(", ".unlink(", ".expire(", "flushall", "flushdb"))
    )


def check_interpreter(cmd: SimpleCommand, scope: Scope) -> Iterable[Hit]:
    """Judge an interpreter: guard-file writes and Redis deletes inline, ``-m tether|pip``."""
    codes = interpreter_code(cmd)
    module = _python_module(cmd)
    if not codes and module not in _MODULES:
        return ()
    return tuple(_interpreter(cmd, scope, codes, module))


def _python_module(cmd: SimpleCommand) -> str | None:
    """Return the module ``python -m MODULE`` runs (``-mtether``, ``-I -m pip``), or None."""
    base = name_of(cmd).rpartition("/")[2]
    if not is_python(base) or not any(w.value[:1] == "-" and "m" in w.value for w in cmd.args):
        return None
    found = parse(code_grammar(base), cmd.args).values("-m")
    return found[-1] if found else None


@functools.cache
def _imports_tether() -> re.Pattern[str]:
    # `import tether`, `from tether.cli import main`, `__import__("tether")`, `import_module(…)`
    return re.compile(
        r"(?:^|[\s;(,])(?:import\s+tether\b|from\s+tether(?:\.[\w.]+)?\s+import\b)"
        r"|(?:__import__|import_module)\s*\(\s*['\"]tether\b",
        re.MULTILINE,
    )


def _interpreter(
    cmd: SimpleCommand, scope: Scope, codes: list[str], module: str | None
) -> Iterator[Hit]:
    python = is_python(name_of(cmd).rpartition("/")[2])
    for code in codes:
        low = code.lower()
        if python and "tether" in low and _imports_tether().search(code):
            # Tether's own API does what its CLI does (tether.cli.main(['uninstall', …]),
            # tether.config.trust.trust(…)): judged as running `tether` with any arguments.
            yield Hit("DG604", f"{name_of(cmd)} code imports Tether's own Python API")
            continue
        yield from self_files.check_interpreter_write(cmd, scope, code)
        if _deletes_tether_keys(low):
            yield Hit("DG609", f"{name_of(cmd)} code deletes Tether's Redis keys")
    if module in _MODULES:
        yield from check_guard_change(cmd, scope)
        yield from check_package_removal(cmd, scope)


def check_path_named(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """For commands run by path (``.venv/bin/tether``, ``~/.local/bin/pip``): judge the base."""
    base = name_of(cmd).rpartition("/")[2]
    if base == "tether":
        yield from check_guard_change(cmd, scope)
    elif base.startswith("pip") or base == "uv":
        yield from check_package_removal(cmd, scope)
    elif is_python(base):
        yield from check_guard_change(cmd, scope)
        yield from _package_removal_as(cmd, scope, base)


def _package_removal_as(cmd: SimpleCommand, scope: Scope, base: str) -> Iterator[Hit]:
    args = _python_pip(cmd.args)
    words = _pip_words("pip", args) if args is not None else []
    if words[:1] == ["uninstall"] and any(_is_tether_package(v) for v in words[1:]):
        yield Hit("DG607", f"{base} -m pip {' '.join(words)[:80]}")


# Name tables, merged by the catalogue (a name may have several checks).
TABLES = (
    self_files.CHECKS,
    self_hosts.CHECKS,
    {n: check_guard_change for n in ("tether", *_LAUNCHERS)},
    {n: check_sidecar_call for n in _HTTP_CLIENTS},
    {n: check_process_kill for n in ("pkill", "killall", "kill", "systemctl", "launchctl")},
    {"service": check_process_kill},
    {"uv": check_package_removal},
    {n: check_env_override for n in (*_EXPORTERS, "env")},
    {n: check_store_wipe for n in ("redis-cli", "valkey-cli")},
)
PREFIXES = (("pip", check_package_removal),)  # pip, pip3, pip3.12, pipx


# --- the gate: most input never mentions Tether, its hosts or its sidecar -----------------------

concerns = self_files.concerns
_TREE_NAMES = self_files.TREE_NAMES


def ungated(checks: tuple[_Check, ...], name: str) -> tuple[_Check, ...]:
    """Return ``checks`` without the self-protection ones that need a marker in the input.

    ``checks`` itself (the same object) when none of them is gated, so a caller can tell.
    """
    keep_files = name in _TREE_NAMES
    kept = tuple(
        c for c in checks if c not in _GATED or (keep_files and c is self_files.check_file_change)
    )
    return checks if len(kept) == len(checks) else kept


_GATED: frozenset[_Check] = frozenset(
    {
        *(check for table in TABLES for check in table.values()),
        *(check for _, check in PREFIXES),
        check_interpreter,
        check_path_named,
        check_env_override,
    }
)
