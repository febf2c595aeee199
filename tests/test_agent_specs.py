"""The agent CLIs' and Tether's own grammars (``tether.shell.agents``) against the real programs.

DG610 (a nested claude/codex/gemini run with its hooks off) and DG604/DG607 (Tether's own CLI
changing the guard, the package removed) read options with these grammars, so a respelt option
(``codex -cfeatures.hooks=false``, ``tether doctor --fi``) is the option. The grammars are
compared with the real thing: Tether's argparse parsers, and the host CLIs that ``.ci/run``
installs from npm for the end-to-end tests (their ``--help``, and how they take a spelling).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import subprocess
from pathlib import Path

import pytest

from test_danger_spellings import _forms
from tether.classify import classify_command
from tether.cli import COMMANDS
from tether.shell.agents import (
    AGENT_CLIS,
    CLAUDE_CHECKED,
    CODEX_CHECKED,
    GEMINI_CHECKED,
    TETHER_ACTIONS,
    TETHER_COMMANDS,
)
from tether.shell.options import FLAG, LIST, OPTIONAL, REQUIRED, Grammar

# --- Tether's own CLI -----------------------------------------------------------------------


def _argparse_options(parser: argparse.ArgumentParser) -> dict[str, int]:
    """Return each option spelling of ``parser`` -> the engine's arity for it."""
    found: dict[str, int] = {}
    for action in parser._actions:
        if not action.option_strings:
            continue
        n = action.nargs
        kind = FLAG if n == 0 else REQUIRED if n is None else OPTIONAL if n == "?" else LIST
        for spelling in action.option_strings:
            found[spelling] = kind
    return found


def _actions(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _grammar_options(g: Grammar) -> dict[str, int]:
    return {spelt: g.arity[canonical] for spelt, canonical in g.names.items()}


def _parsers() -> dict[str, argparse.ArgumentParser]:
    found = {}
    for name, (module, _help) in COMMANDS.items():
        parser = argparse.ArgumentParser(prog=f"tether {name}")
        importlib.import_module(module).add_arguments(parser, name)
        found[name] = parser
    return found


PARSERS = _parsers()


def test_every_tether_command_has_a_grammar() -> None:
    assert sorted(TETHER_COMMANDS) == sorted(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_tether_command_grammar_is_its_argparse_parser(name: str) -> None:
    parser = PARSERS[name]
    g = TETHER_COMMANDS[name]
    assert _grammar_options(g) == _argparse_options(parser)
    assert g.abbreviate is parser.allow_abbrev  # argparse takes unique prefixes
    actions = _actions(parser)
    assert sorted(a for a in TETHER_ACTIONS if a.startswith(f"{name} ")) == sorted(
        f"{name} {a}" for a in actions
    )
    for action, sub in actions.items():
        assert _grammar_options(TETHER_ACTIONS[f"{name} {action}"]) == _argparse_options(sub)


# Each spelling is what the real `tether` does (checked by running it: `tether doctor --fi`
# fixes, `tether config set K V --he` prints the help, `tether uninst` is refused).
GUARD = [
    ("tether doctor --fi", True),
    ("tether doctor --json --fix", True),
    ("tether serve --se approvals.mode=off", True),
    ("tether serve --port 1 --set=approvals.mode=off", True),
    ("tether config set --proj approvals.mode off", True),
    ("tether config set approvals.mode off --pro", True),
    ("tether session reset --set store.kind=memory abc", True),
    ("uvx --from tether tether config set approvals.mode off", True),
    ("uvx tether@latest uninstall claude-code", True),
    ("pipx run --spec tether tether install codex", True),
    ("python3 -mtether config set approvals.mode off", True),
    ("python -I -m tether uninstall codex", True),
    (".venv/bin/python -m tether install codex", True),
    ("sudo -u dev tether uninstall gemini", True),
    ("timeout 60 tether trust .tether.yaml", True),
    ("env A=1 tether config unset approvals.deny", True),
    ("tether config set approvals.mode off --he", False),  # prints set's help
    ("tether install claude-code --he", False),
    ("tether doctor --js", False),
    ("tether serve --port 8765", False),
    ("tether uninst claude-code", False),  # the dispatcher refuses an abbreviated command
    ("tether config get approvals.mode", False),
    ("tether config --help set approvals.mode off", False),
    ("tether trust --list", False),
    ("python -m tether config get approvals.mode", False),
    ("python -c 'print(1)' -m tether uninstall codex", False),  # -c ends python's options
]


@pytest.mark.parametrize(("command", "flagged"), GUARD, ids=[c for c, _ in GUARD])
def test_tether_is_read_with_its_own_grammar(command: str, flagged: bool) -> None:
    codes = classify_command(command).danger_codes
    assert ("DG604" in codes) is flagged, codes


PIP = [
    ("python -I -m pip uninstall -y tether", True),
    ("python3 -mpip uninstall tether", True),
    ("python3 -m pip --log x uninstall tether", True),
    ("python3 -c 'import pip' -m pip uninstall tether", False),
    ("python3 -m pip uninstall requests", False),
]


@pytest.mark.parametrize(("command", "flagged"), PIP, ids=[c for c, _ in PIP])
def test_python_m_pip_is_read_with_pythons_grammar(command: str, flagged: bool) -> None:
    assert ("DG607" in classify_command(command).danger_codes) is flagged


# --- the host CLIs ----------------------------------------------------------------------------

NPM = Path(os.environ.get("TETHER_E2E_NPM") or Path.home() / ".cache" / "tether-e2e" / "npm")
_LONG = re.compile(r"(?<![\w-])--[a-z0-9][A-Za-z0-9-]*[A-Za-z0-9]")


def _versions(checked: str) -> list[str]:
    return re.findall(r"\d+\.\d+\.\d+", checked)


def _exe(package: str, program: str, version: str) -> Path:
    exe = NPM / f"{package}-{version}" / "node_modules" / ".bin" / program
    if not exe.exists():
        pytest.fail(f"{exe} is missing: .ci/run installs the host CLIs from npm")
    return exe


def _run(argv: list[str | Path], home: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "NO_COLOR": "1"}
    return subprocess.run(  # the host CLIs read only their private home here
        [str(a) for a in argv], capture_output=True, text=True, timeout=120, env=env,
        stdin=subprocess.DEVNULL, check=False, cwd=home,
    )  # fmt: skip


HELPS = [
    *((("claude", "claude-code", v), ["--help"]) for v in _versions(CLAUDE_CHECKED)),
    *(
        (("codex", "codex", v), sub)
        for v in _versions(CODEX_CHECKED)
        for sub in (["--help"], ["exec", "--help"], ["features", "--help"])
    ),
    *((("gemini", "gemini-cli", v), ["--help"]) for v in _versions(GEMINI_CHECKED)),
]
# Words of the help texts that are not options of the program itself.
_PROSE = {"claude": {"--all"}}  # `claude respawn --all`, a subcommand's option


@pytest.mark.parametrize(
    ("host", "argv"), HELPS, ids=[f"{h[0]} {h[2]} {' '.join(a)}" for h, a in HELPS]
)
def test_a_host_cli_lists_no_option_its_grammar_does_not_know(
    host: tuple[str, str, str], argv: list[str], tmp_path: Path
) -> None:
    name, package, version = host
    done = _run([_exe(package, name, version), *argv], tmp_path)
    listed = set(_LONG.findall(done.stdout + done.stderr)) - _PROSE.get(name, set())
    assert len(listed) >= 4, f"{name} {' '.join(argv)} printed no options: {done.stderr[:200]}"
    g = AGENT_CLIS[name]
    assert sorted(o for o in listed if o not in g.names) == []


# `codex … features list` prints the hooks feature as Codex reads it: each spelling of a config
# override is run by the real Codex and judged; DG610 must fire exactly when the hooks are off.
CODEX_SPELLINGS = [
    ["-c", "features.hooks=false"],
    ["-cfeatures.hooks=false"],
    ["--config=features.hooks=false"],
    ["--config", "features.hooks=false"],
    ["--disable", "hooks"],
    ["--disable=hooks"],
    ["-c", "features={hooks=false}"],
    ["-c", 'features={"hoo\\u006bs"=false}'],  # a TOML escape inside the value
    ["-m", "o3", "-cfeatures.hooks=false"],
    ["-c", "model=o3"],
    ["--enable", "hooks"],
    ["--conf", "features.hooks=false"],  # clap takes no prefixes: refused
    ["--disab", "hooks"],
]


def _quoted(words: list[str]) -> str:
    return " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)


@pytest.mark.parametrize("words", CODEX_SPELLINGS, ids=[" ".join(w) for w in CODEX_SPELLINGS])
def test_codex_hooks_off_is_flagged_exactly_when_the_real_codex_turns_them_off(
    words: list[str], tmp_path: Path
) -> None:
    (version,) = _versions(CODEX_CHECKED)
    done = _run([_exe("codex", "codex", version), *words, "features", "list"], tmp_path)
    rows = [line.split() for line in done.stdout.splitlines()]
    off = ["hooks", "stable", "false"] in rows
    refused = done.returncode != 0
    for wrapped in ("codex {} exec x", "sudo codex {} exec x", "timeout 9 codex {} exec x",
                    "env A=1 codex {} exec x", "bash -c \"codex {} exec x\""):  # fmt: skip
        command = wrapped.format(_quoted(words))
        if wrapped.startswith("bash"):
            command = "bash -c " + _quoted([f"codex {_quoted(words)} exec x"])
        flagged = "DG610" in classify_command(command).danger_codes
        assert flagged is (off and not refused), (command, done.stdout[-300:], done.stderr[-300:])


# Claude Code (commander) takes `--settings=F` and `--settings F`, never a prefix: a missing
# settings file is an error only when the option is read as --settings.
@pytest.mark.parametrize(
    ("words", "read"),
    [(["--settings=/nonexistent.json"], True), (["--settings", "/nonexistent.json"], True),
     (["--settin=/nonexistent.json"], False), (["--setting", "/nonexistent.json"], False)],
)  # fmt: skip
def test_claude_takes_no_abbreviated_option(words: list[str], read: bool, tmp_path: Path) -> None:
    for version in _versions(CLAUDE_CHECKED):
        done = _run([_exe("claude-code", "claude", version), *words, "--version"], tmp_path)
        assert ("Settings file not found" in done.stdout + done.stderr) is read
    assert AGENT_CLIS["claude"].resolve(words[0].partition("=")[0]) == (
        "--settings" if read else None
    )


HOOKS_OFF = [
    ("claude --safe-mode -p x", True),
    ("claude --restricted -p x", True),
    ("claude -p x --bare", True),
    ("claude --add-dir a b --bare -p x", True),  # --add-dir takes words up to the next option
    ("claude --settings='{\"disableAllHooks\": true}' -p x", True),
    ("claude --setting-sources=local -p x", True),
    ("CLAUDE_CODE_SAFE_MODE=1 claude -p x", True),
    ("sudo HOME=/tmp/h claude -p x", True),
    ("env -i CODEX_HOME=/tmp/x codex exec x", True),
    ("codex exec --ignore-user-config x", True),  # Codex's hook trust lives in config.toml
    ("codex features disable hooks", True),
    ("codex exec -- '-c features.hooks=false'", False),  # after --: the prompt
    ("claude -p 'use --bare'", False),
    ("claude --bar -p x", False),  # commander refuses it
    ("claude --add-dir --bare -p x", True),
    ("gemini --yolo -p x", False),
    ("codex features enable hooks", False),
]


@pytest.mark.parametrize(("command", "flagged"), HOOKS_OFF, ids=[c for c, _ in HOOKS_OFF])
def test_host_hooks_off_in_every_spelling(command: str, flagged: bool) -> None:
    assert ("DG610" in classify_command(command).danger_codes) is flagged


# Every option of each grammar, in every spelling it takes, in front of the hooks-off option:
# a value-taking option must not swallow it, a list option ends at it; the verdict stays.
def _every_option() -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    templates = {
        "codex": ("codex {o} -cfeatures.hooks=false exec x", "codex {o} exec x"),
        "claude": ("claude {o} --safe-mode -p x", "claude {o} -p x"),
    }
    exits = {"--help", "--version", "--ignore-user-config", *_CLAUDE_SWITCHES}
    for name, (off, on) in templates.items():
        g = AGENT_CLIS[name]
        for canonical, kind in g.arity.items():
            if canonical in exits:
                continue
            value = None if kind in (FLAG, OPTIONAL) else _VALUES.get(canonical, "v")
            forms = _forms(g, canonical, value) if kind != LIST else [f"{canonical} a b"]
            for form in forms:
                out += [(off.format(o=form), True), (on.format(o=form), False)]
    g = TETHER_COMMANDS["doctor"]
    for canonical, kind in g.arity.items():
        if canonical not in ("--help", "--fix"):
            for form in _forms(g, canonical, None if kind == FLAG else "v"):
                out += [(f"tether doctor {form} --fix", True), (f"tether doctor {form}", False)]
    return out


_CLAUDE_SWITCHES = ("--bare", "--safe-mode", "--restricted")
_VALUES = {"--setting-sources": "user,project,local"}  # the sources that keep the hooks
EVERY = _every_option()


@pytest.mark.parametrize(("command", "flagged"), EVERY, ids=[c for c, _ in EVERY])
def test_every_option_in_every_spelling_keeps_the_verdict(command: str, flagged: bool) -> None:
    codes = classify_command(command).danger_codes
    assert ("DG610" in codes or "DG604" in codes) is flagged, codes
