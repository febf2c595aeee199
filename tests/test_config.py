"""The config schema, layered loading, validation, the load cache and the generated docs.

Every test runs with HOME and the XDG directories inside tmp_path, so the developer's real
config is never read.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tether.config import DEFAULT_CONFIG, Config, load_config
from tether.config import docs as config_docs
from tether.config.schema import KEYS, SCHEMA, SECTIONS
from tether.config.validate import ConfigProblems
from tether.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Dirs:
    home: Path
    repo: Path
    user_file: Path
    project_file: Path
    env: dict[str, str]


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Dirs:
    """A fake HOME with XDG dirs and a git repository as the working directory."""
    for name in list(os.environ):
        if name.startswith("TETHER_"):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "pkg").mkdir(parents=True)
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_STATE_HOME": str(home / "state"),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(repo)
    user = home / "config" / "tether" / "config.yaml"
    user.parent.mkdir(parents=True)
    return Dirs(home, repo, user, repo / ".tether.yaml", env)


def write(path: Path, text: str, *, age: float = 0.0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if age:
        then = time.time() - age
        os.utime(path, (then, then))
    return path


def write_project(dirs: Dirs, text: str, *, age: float = 0.0) -> Path:
    """Write the project file and trust its content, as its user would after reviewing it.

    These tests are about layering; what an untrusted project file may do is in
    tests/test_trust.py.
    """
    from tether.config.trust import trust

    path = write(dirs.project_file, text, age=age)
    trust(path, dirs.env)
    return path


# --- the schema declares every agreed key ---------------------------------------------------

AGREED = {
    "loops.warnings": True,
    "loops.hard_stop": False,
    "loops.window": 64,
    "loops.warn_after.exact_failure": 2,
    "loops.warn_after.same_tool_failure": 3,
    "loops.warn_after.idempotent_no_progress": 2,
    "loops.warn_after.mutating_no_progress": 4,
    "loops.warn_after.cycle": 2,
    "loops.warn_after.turn_calls": 60,
    "loops.hard_stop_after.exact_failure": 5,
    "loops.hard_stop_after.same_tool_failure": 8,
    "loops.hard_stop_after.idempotent_no_progress": 5,
    "loops.hard_stop_after.mutating_no_progress": 6,
    "loops.hard_stop_after.cycle": 4,
    "loops.hard_stop_after.turn_calls": 120,
    "loops.poll.max_count": 60,
    "loops.poll.max_seconds": 3600,
    "progress.enabled": False,
    "progress.warn_after": 15,
    "progress.halt_after": 25,
    "progress.scope": "subagents",
    "approvals.mode": "manual",
    "approvals.unattended": "block",
    "approvals.allow": [],
    "approvals.deny": [],
    "approvals.disabled_rules": [],
    "approvals.enabled_rules": [],
    "approvals.isolation.threshold": 4096,
    "approvals.isolation.deadline": 10.0,
    "approvals.isolation.memory_mb": 512,
    "store.backend": "sqlite",
    "store.path": "",
    "store.url": "redis://127.0.0.1:6379/0",
    "store.ttl_days": 7,
    "store.key_prefix": "tether:",
    "hooks.deadline": 15.0,
}


@pytest.mark.parametrize(("key", "default"), sorted(AGREED.items()))
def test_agreed_key_has_its_default(key: str, default: Any) -> None:
    assert KEYS[key].default == default
    assert type(DEFAULT_CONFIG.get(key)) is type(default)


def test_tools_defaults_cover_the_common_hosts() -> None:
    shell = DEFAULT_CONFIG.get("tools.shell")
    assert shell == {
        "Bash": "command",
        "bash": "command",
        "shell": "command",
        "terminal": "command",
        "execute_bash": "command",
        "run_shell_command": "command",
        "exec_command": "cmd",
        "local_shell": "command",
    }
    # The lists add to the loop guard's built-ins, so their defaults are empty.
    for name in ("tools.read", "tools.write", "tools.poll", "tools.failure_tolerant"):
        assert DEFAULT_CONFIG.get(name) == []


def test_the_loop_guard_adds_configured_tools_to_its_builtins(dirs: Dirs) -> None:
    from tether.loops.settings import from_config

    write(dirs.user_file, "tools:\n  read: [my_reader]\n  shell:\n    my_sh: script\n")
    tools = from_config(load_config(environ=dirs.env)).tools
    assert {"my_reader", "Read", "Grep"} <= tools.read
    assert tools.shell["my_sh"] == "script" and tools.shell["Bash"] == "command"


def test_every_key_is_read_somewhere_outside_the_config_package() -> None:
    # The other half of "no setting silently does nothing": a declared key nothing reads is
    # as bad as a read key nobody declared (which Config.get refuses).
    sources = [
        path.read_text(encoding="utf-8")
        for path in (REPO_ROOT / "src" / "tether").rglob("*.py")
        if "config" not in path.relative_to(REPO_ROOT / "src" / "tether").parts[:1]
    ]
    text = "\n".join(sources)
    unread = [
        key.path
        for key in SCHEMA
        if f'"{key.path}"' not in text and f'"{key.path.rsplit(".", 1)[0]}.{{' not in text
    ]
    assert not unread, f"declared but never read outside tether.config: {unread}"


def test_runtime_consumers_accept_what_the_loader_accepts(dirs: Dirs) -> None:
    from tether.approval.policy import Policy
    from tether.loops.settings import from_config
    from tether.store.open import open_store

    write(dirs.user_file, config_docs.render_example())
    config = load_config(environ=dirs.env, overrides=["store.backend=memory"])
    from_config(config)
    Policy.from_config(config)
    open_store(config).close()
    extreme = {
        key.path: key.maximum if key.kind == "int" and key.maximum else key.default
        for key in SCHEMA
        if key.kind == "int" and "warn_after" not in key.path
    }
    from_config(DEFAULT_CONFIG.with_values(extreme))
    Policy.from_config(DEFAULT_CONFIG.with_values(extreme))


CROSS = [
    # (file text, the line reported, the key blamed, words in the message)
    ("loops:\n  warn_after:\n    cycle: 5\n", 3, "loops.hard_stop_after.cycle", "at least"),
    (
        "loops:\n  hard_stop_after:\n    exact_failure: 1\n",
        3,
        "loops.hard_stop_after.exact_failure",
        "at least",
    ),
    ("# p\nprogress:\n  warn_after: 25\n", 3, "progress.halt_after", "greater than"),
    ("progress:\n  halt_after: 15\n", 2, "progress.halt_after", "greater than"),
]


@pytest.mark.parametrize(("text", "line", "key", "words"), CROSS)
def test_cross_key_rules_are_refused_on_the_merged_config(
    dirs: Dirs, text: str, line: int, key: str, words: str
) -> None:
    write_project(dirs, text)
    with pytest.raises(ConfigError) as caught:
        load_config(environ=dirs.env)
    assert f"{dirs.project_file}:{line}: {key}: expected {words}" in str(caught.value)
    assert f"from project:{dirs.project_file}" in str(caught.value)


RULE_CODES = [
    # (list, items, expected message or None when accepted)
    ("approvals.disabled_rules", ["DG201"], None),
    ("approvals.disabled_rules", ["dg201"], None),  # the policy upper-cases codes
    ("approvals.enabled_rules", ["DG101"], None),
    ("approvals.disabled_rules", ["DG101"], "'DG101' (rm-recursive-root) is a hardline rule"),
    ("approvals.disabled_rules", ["rm-recursive-root"], "a rule's name; write its code, 'DG101'"),
    ("approvals.enabled_rules", ["DG2011"], "unknown rule code 'DG2011' (did you mean 'DG201'?)"),
    ("approvals.disabled_rules", ["nonsense"], "unknown rule code 'nonsense'; 'tether rules'"),
]


@pytest.mark.parametrize(("key", "items", "message"), RULE_CODES)
def test_rule_codes_the_policy_would_ignore_are_refused(
    dirs: Dirs, key: str, items: list[str], message: str | None
) -> None:
    section, name = key.split(".")
    write_project(dirs, f"{section}:\n  {name}: {json.dumps(items)}\n")
    if message is None:
        assert load_config(environ=dirs.env).get(key) == items
        return
    with pytest.raises(ConfigError) as caught:
        load_config(environ=dirs.env)
    assert f"{dirs.project_file}:2: {key}: " in str(caught.value)
    assert message in str(caught.value)
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(environ=dirs.env, overrides=[f"{key}={','.join(items)}"])


def test_cross_key_rules_see_every_layer(dirs: Dirs) -> None:
    write(dirs.user_file, "loops:\n  hard_stop_after:\n    cycle: 9\n")
    write_project(dirs, "loops:\n  warn_after:\n    cycle: 7\n")
    assert load_config(environ=dirs.env).get("loops.warn_after.cycle") == 7
    with pytest.raises(ConfigError, match=r"got 6 \(from --set\)"):
        load_config(environ=dirs.env, overrides=["loops.hard_stop_after.cycle=6"])


def test_every_key_is_described_and_its_default_is_valid() -> None:
    from tether.config.validate import check_value

    for key in SCHEMA:
        assert key.section in SECTIONS, key.path
        assert key.help.endswith("."), key.path
        assert check_value(key, key.default) == key.default, key.path


def test_empty_file_loads_to_the_declared_defaults(dirs: Dirs) -> None:
    write(dirs.user_file, "")
    write_project(dirs, "# nothing yet\n")
    config = load_config(environ=dirs.env)
    assert dict(config.values) == {key.path: key.default for key in SCHEMA}
    assert config.values == DEFAULT_CONFIG.values
    assert config.files == (("user", str(dirs.user_file)), ("project", str(dirs.project_file)))


def test_empty_sections_never_wipe_defaults(dirs: Dirs) -> None:
    write(dirs.user_file, "loops:\nstore:\napprovals:\n  isolation:\n")
    write_project(dirs, "loops:\n  warn_after:\n    cycle: 3\n")
    config = load_config(environ=dirs.env)
    assert config.get("loops.warn_after") == {**DEFAULT_CONFIG.get("loops.warn_after"), "cycle": 3}
    assert config.section("store") == DEFAULT_CONFIG.section("store")


# --- layers ---------------------------------------------------------------------------------


def test_layers_apply_lowest_first(dirs: Dirs) -> None:
    write(
        dirs.user_file,
        "loops:\n  window: 10\n  warn_after:\n    cycle: 3\n    exact_failure: 3\n"
        "  hard_stop_after:\n    cycle: 10\n"
        "store:\n  backend: memory\n",
    )
    write_project(dirs, "loops:\n  window: 20\n  warn_after:\n    cycle: 4\n")
    env = {**dirs.env, "TETHER_LOOPS__WARN_AFTER__CYCLE": "5", "TETHER_LOOPS__HARD_STOP": "yes"}
    config = load_config(cwd=dirs.repo / "src" / "pkg", environ=env, overrides=["loops.window=30"])
    expected = {
        "loops.window": (30, "--set"),
        "loops.warn_after.cycle": (5, "env:TETHER_LOOPS__WARN_AFTER__CYCLE"),
        "loops.hard_stop": (True, "env:TETHER_LOOPS__HARD_STOP"),
        "loops.warn_after.exact_failure": (3, f"user:{dirs.user_file}"),
        "store.backend": ("memory", f"user:{dirs.user_file}"),
        "loops.warn_after.same_tool_failure": (3, "default"),
    }
    for key, (value, origin) in expected.items():
        assert (config.get(key), config.origin(key)) == (value, origin), key


def test_tether_config_replaces_the_user_file_and_wins_over_the_project(dirs: Dirs) -> None:
    write(dirs.user_file, "store:\n  backend: memory\n")
    write_project(dirs, "loops:\n  window: 20\n  hard_stop: true\n")
    fleet = write(dirs.home / "fleet.yaml", "loops:\n  window: 99\n")
    config = load_config(environ={**dirs.env, "TETHER_CONFIG": str(fleet)})
    assert config.get("store.backend") == "sqlite"  # the user file was not read
    assert config.get("loops.window") == 99
    assert config.get("loops.hard_stop") is True
    assert [layer for layer, _ in config.files] == ["project", "TETHER_CONFIG"]


def test_tether_config_expands_home_and_resolves_relative_to_cwd(dirs: Dirs) -> None:
    write(dirs.home / "fleet.yaml", "loops:\n  window: 99\n")
    write(dirs.repo / "conf" / "t.yaml", "loops:\n  window: 98\n")
    home = load_config(environ={**dirs.env, "TETHER_CONFIG": "~/fleet.yaml"})
    assert home.get("loops.window") == 99
    relative = load_config(cwd=dirs.repo, environ={**dirs.env, "TETHER_CONFIG": "conf/t.yaml"})
    assert relative.get("loops.window") == 98


def test_a_missing_tether_config_file_is_an_error(dirs: Dirs) -> None:
    with pytest.raises(ConfigError, match=r"gone\.yaml: file not found"):
        load_config(environ={**dirs.env, "TETHER_CONFIG": str(dirs.home / "gone.yaml")})


@pytest.mark.parametrize(
    ("layout", "cwd", "found"),
    [
        # (files to create, working dir, project file expected), paths relative to tmp_path
        (("r/.git/", "r/.tether.yaml", "r/sub/.git/"), "r/sub", None),  # a nested repository
        (("r/.git/", "r/.tether.yaml"), "r/a/b", "r/.tether.yaml"),
        (("r/.git/", "r/a/.tether.yaml"), "r/a/b", "r/a/.tether.yaml"),
        (("r/.git/", ".tether.yaml"), "r/a", None),  # outside the repository
        (("r/.git", "r/.tether.yaml"), "r", "r/.tether.yaml"),  # .git file (worktree)
    ],
)
def test_project_file_is_found_upward_up_to_the_repository_root(
    tmp_path: Path, layout: tuple[str, ...], cwd: str, found: str | None
) -> None:
    from tether.config.paths import find_project

    base = tmp_path / "x"
    for item in layout:
        path = base / item
        if item.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            write(path, "")
    (base / cwd).mkdir(parents=True, exist_ok=True)
    project, _ = find_project(base / cwd)
    assert project == (base / found if found else None)


def test_tools_shell_merges_entries_and_empty_removes_an_added_one(dirs: Dirs) -> None:
    write(dirs.user_file, "tools:\n  shell:\n    my_sh: script\n    old_sh: cmd\n")
    write_project(dirs, "tools:\n  shell:\n    old_sh: ''\n")
    shell = load_config(environ=dirs.env).get("tools.shell")
    assert shell["my_sh"] == "script" and shell["Bash"] == "command"
    assert "old_sh" not in shell


def test_lists_replace_the_lower_layer(dirs: Dirs) -> None:
    write(dirs.user_file, "tools:\n  read: [Read, MyReader]\n")
    config = load_config(environ=dirs.env, overrides=["approvals.deny=git push*,rm *"])
    assert config.get("tools.read") == ["Read", "MyReader"]
    assert config.get("approvals.deny") == ["git push*", "rm *"]


# --- strict values --------------------------------------------------------------------------

BAD_FILES = [
    ("loops:\n  hardstop: true\n", 2, "'loops.hardstop' (did you mean 'loops.hard_stop'"),
    ("loops:\n  warn_after:\n    exact_failure: two\n", 3, "expected an integer from 1 to"),
    ("loops:\n  hard_stop: yes\n", 2, "YAML 1.2 reads it as a string: write true or false"),
    ("loops:\n  window: 0\n", 2, "expected an integer from 2 to 10000, got 0"),
    ("loops:\n  window: 5.0\n", 2, "got 5.0 (a number)"),
    ("loops:\n  window: true\n", 2, "got true (a boolean)"),
    ("approvals:\n  mode: smart\n", 2, "expected one of 'manual', 'off'"),
    ("approvals:\n  mode: of\n", 2, "(did you mean 'off'?)"),
    ("approvals:\n  deny: rm -rf\n", 2, "expected a list of strings"),
    ("approvals:\n  deny: [1]\n", 2, "item 0: expected a string, got 1"),
    ("tools:\n  shell: [Bash]\n", 2, "expected a mapping of strings to strings"),
    ("tools:\n  shell:\n    Bash: 3\n", 2, "'Bash': expected a string"),
    ("hooks:\n  deadline: .nan\n", 2, "expected a number from 0.1 to 25"),
    ("store: sqlite\n", 1, "store: expected a mapping"),
    ("loops:\n  hard_stop:\n", 2, "got nothing (null)"),
    ("[1, 2]\n", 1, "expected a mapping of sections"),
    ("loops:\n  window: 3\n  window: 4\n", 3, "duplicate key"),
    ("loops:\n  window: [\n", 3, "invalid YAML"),
    ("lops:\n  window: 3\n", 1, "(did you mean 'loops'?)"),
    ("loops:\n  exact_failure: 3\n", 2, "(did you mean 'loops.warn_after.exact_failure'?)"),
]


@pytest.mark.parametrize(("text", "line", "message"), BAD_FILES)
def test_bad_files_are_refused_with_file_line_and_reason(
    dirs: Dirs, text: str, line: int, message: str
) -> None:
    write_project(dirs, text)
    with pytest.raises(ConfigError) as caught:
        load_config(environ=dirs.env)
    assert f"{dirs.project_file}:{line}: " in str(caught.value)
    assert message in str(caught.value)


def test_every_mistake_is_reported_at_once(dirs: Dirs) -> None:
    write(dirs.user_file, "loops:\n  hardstop: true\n  window: -1\n")
    write_project(dirs, "store:\n  backend: postgres\n")
    env = {**dirs.env, "TETHER_LOOPS__WINDOWS": "3", "TETHER_HOOKS__DEADLINE": "soon"}
    with pytest.raises(ConfigProblems) as caught:
        load_config(environ=env, overrides=["progress.enabled=maybe"])
    wheres = [(p.source, p.line) for p in caught.value.problems]
    assert wheres == [
        (str(dirs.user_file), 2),
        (str(dirs.user_file), 3),
        (str(dirs.project_file), 2),
        ("env:TETHER_HOOKS__DEADLINE", None),
        ("env:TETHER_LOOPS__WINDOWS", None),
        ("--set", None),
    ]


TEXT_VALUES = [
    # (key, text from env/--set, expected value or None when refused)
    ("loops.hard_stop", "true", True),
    ("loops.hard_stop", "YES", True),
    ("loops.hard_stop", "no", False),
    ("loops.hard_stop", "False", False),
    ("loops.hard_stop", "1", None),
    ("loops.hard_stop", "on", None),
    ("loops.hard_stop", "", None),
    ("loops.window", "12", 12),
    ("loops.window", "+12", 12),
    ("loops.window", "1_2", None),
    ("loops.window", "12.0", None),
    ("loops.window", "０", None),  # a full-width digit is not an ASCII integer
    ("loops.window", "10001", None),
    ("hooks.deadline", "2", 2.0),
    ("hooks.deadline", "2.5", 2.5),
    ("hooks.deadline", "inf", None),
    ("hooks.deadline", "nan", None),
    ("hooks.deadline", "0.01", None),
    ("progress.scope", "all", "all"),
    ("progress.scope", "All", None),
    ("store.url", "  redis://x  ", "  redis://x  "),
    ("approvals.allow", "", []),
    ("approvals.allow", "a, b ,", ["a", "b"]),
    ("approvals.allow", '["git {push,pull}*"]', ["git {push,pull}*"]),
    ("approvals.allow", "[1]", None),
    ("approvals.allow", "[oops", None),
    ("tools.shell", "mine=cmd", {**KEYS["tools.shell"].default, "mine": "cmd"}),
    ("tools.shell", '{"mine": "cmd"}', {**KEYS["tools.shell"].default, "mine": "cmd"}),
    ("tools.shell", "mine", None),
]


@pytest.mark.parametrize(("key", "text", "expected"), TEXT_VALUES)
def test_text_values_are_typed_strictly(dirs: Dirs, key: str, text: str, expected: Any) -> None:
    if expected is None:
        with pytest.raises(ConfigError, match=re.escape(key)):
            load_config(environ=dirs.env, overrides=[f"{key}={text}"])
    else:
        assert load_config(environ=dirs.env, overrides=[f"{key}={text}"]).get(key) == expected
        env_name = config_docs.env_name(key)
        assert load_config(environ={**dirs.env, env_name: text}).get(key) == expected


def test_one_mapping_entry_can_be_set_but_not_from_the_environment(dirs: Dirs) -> None:
    config = load_config(
        environ=dirs.env, overrides=["tools.shell.MyTool=cmd", "tools.shell.Other=x"]
    )
    assert config.get("tools.shell.MyTool") == "cmd"
    assert config.get("tools.shell.Other") == "x" and "Bash" in config.get("tools.shell")
    assert "Other" not in load_config(
        environ=dirs.env, overrides=["tools.shell.Other=x", "tools.shell.Other="]
    ).get("tools.shell")
    env = {**dirs.env, "TETHER_TOOLS__SHELL__MYTOOL": "cmd"}
    with pytest.raises(ConfigError, match=re.escape("TETHER_TOOLS__SHELL='NAME=ARG,...' instead")):
        load_config(environ=env)
    env = {**dirs.env, "TETHER_TOOLS__SHELL": "MyTool=cmd"}
    assert load_config(environ=env).get("tools.shell.MyTool") == "cmd"


def test_set_without_equals_is_refused(dirs: Dirs) -> None:
    with pytest.raises(ConfigError, match="expected KEY=VALUE"):
        load_config(environ=dirs.env, overrides=["loops.hard_stop"])


# --- the Config value -----------------------------------------------------------------------


def test_get_unknown_key_suggests_the_right_one() -> None:
    with pytest.raises(ConfigError, match=r"did you mean 'loops.hard_stop'"):
        DEFAULT_CONFIG.get("loops.hardstop")
    with pytest.raises(ConfigError, match="no config section 'loop'"):
        DEFAULT_CONFIG.section("loop")


def test_get_returns_copies_and_groups() -> None:
    deny = DEFAULT_CONFIG.get("tools.read")
    deny.append("Mutated")
    assert "Mutated" not in DEFAULT_CONFIG.get("tools.read")
    assert DEFAULT_CONFIG.get("tools.shell.exec_command") == "cmd"
    assert DEFAULT_CONFIG.section("approvals")["isolation"] == {
        "threshold": 4096,
        "deadline": 10.0,
        "memory_mb": 512,
    }
    assert DEFAULT_CONFIG.to_dict()["loops"]["poll"] == {"max_count": 60, "max_seconds": 3600}


def test_with_values_checks_types() -> None:
    config = DEFAULT_CONFIG.with_values({"loops.hard_stop": True})
    assert isinstance(config, Config) and config.get("loops.hard_stop") is True
    assert config.origin("loops.hard_stop") == "--set"
    with pytest.raises(ConfigError, match="expected a boolean"):
        DEFAULT_CONFIG.with_values({"loops.hard_stop": "yes"})


# --- the cache (hook path) ------------------------------------------------------------------

PROBE = (
    "import sys, json; from tether.config import load_config; c = load_config(); "
    "print(json.dumps([c.get('loops.window'), 'ruamel.yaml' in sys.modules]))"
)


def probe(dirs: Dirs) -> list[Any]:
    env = {**os.environ, **dirs.env}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=dirs.repo, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    import json

    result: list[Any] = json.loads(done.stdout)
    return result


def test_a_fresh_cache_spares_the_yaml_parser_and_changes_invalidate_it(dirs: Dirs) -> None:
    write(dirs.user_file, "loops:\n  window: 10\n", age=60)
    write_project(dirs, "loops:\n  window: 20\n", age=60)
    assert probe(dirs) == [20, True]  # miss: parsed with ruamel, cache written
    assert probe(dirs) == [20, False]  # hit: no YAML library imported
    write_project(dirs, "loops:\n  window: 30\n", age=30)
    assert probe(dirs) == [30, True]
    dirs.project_file.unlink()
    assert probe(dirs) == [10, True]
    assert probe(dirs) == [10, False]


def test_cache_entries_are_private(dirs: Dirs) -> None:
    write_project(dirs, "store:\n  url: redis://:secret@db:6379/0\n", age=60)
    load_config(environ=dirs.env)
    (entry,) = (dirs.home / "cache" / "tether").glob("config-*.json")
    assert entry.stat().st_mode & 0o777 == 0o600
    assert entry.parent.stat().st_mode & 0o777 == 0o700


def test_recently_modified_files_are_not_cached(dirs: Dirs) -> None:
    cache = dirs.home / "cache" / "tether"
    write_project(dirs, "loops:\n  window: 20\n")  # just now: could be rewritten unseen
    assert load_config(environ=dirs.env).get("loops.window") == 20
    assert not list(cache.glob("config-*.json"))
    then = time.time() - 60
    os.utime(dirs.project_file, (then, then))
    assert load_config(environ=dirs.env).get("loops.window") == 20
    assert len(list(cache.glob("config-*.json"))) == 1


def test_a_corrupt_cache_is_a_miss(dirs: Dirs) -> None:
    write_project(dirs, "loops:\n  window: 20\n", age=60)
    assert probe(dirs) == [20, True]
    (entry,) = (dirs.home / "cache" / "tether").glob("config-*.json")
    entry.write_text("{not json", encoding="utf-8")
    assert probe(dirs) == [20, True]
    assert probe(dirs) == [20, False]


def test_invalid_files_are_never_cached(dirs: Dirs) -> None:
    write_project(dirs, "loops:\n  window: lots\n", age=60)
    for _ in range(2):
        with pytest.raises(ConfigError, match=r"loops\.window"):
            load_config(environ=dirs.env)
    assert not list((dirs.home / "cache").glob("**/config-*.json"))


def test_overrides_apply_on_top_of_a_cached_load(dirs: Dirs) -> None:
    write_project(dirs, "loops:\n  window: 20\n", age=60)
    assert load_config(environ=dirs.env).get("loops.window") == 20
    assert load_config(environ=dirs.env, overrides=["loops.window=5"]).get("loops.window") == 5
    env = {**dirs.env, "TETHER_LOOPS__WINDOW": "6"}
    assert load_config(environ=env).get("loops.window") == 6
    assert load_config(environ=dirs.env).get("loops.window") == 20


# --- generated docs -------------------------------------------------------------------------


def test_generated_docs_are_current() -> None:
    stale = config_docs.stale(REPO_ROOT / "docs")
    assert not stale, (
        f"generated config docs are stale: {stale}; regenerate with: {config_docs.REGENERATE}"
    )


def test_reference_documents_every_key() -> None:
    text = config_docs.render_markdown()
    for key in SCHEMA:
        assert f"| `{key.path}` |" in text
        assert config_docs.env_name(key.path) in text


def test_example_file_loads_to_defaults_as_is_and_uncommented(dirs: Dirs) -> None:
    example = config_docs.render_example()
    write(dirs.user_file, example)
    assert load_config(environ=dirs.env).values == DEFAULT_CONFIG.values
    leaves = {key.path.rsplit(".", 1)[1] for key in SCHEMA}

    def uncomment(match: re.Match[str]) -> str:
        indent, name, value = match.groups()
        try:
            json.loads(value)
        except ValueError:
            return match.group(0)  # a wrapped description line, not a setting
        return f"{indent}{name}: {value}" if name in leaves else match.group(0)

    uncommented = re.sub(r"(?m)^(\s*)# ([a-z_]+): (.*)$", uncomment, example)
    assert uncommented.count("# ") == example.count("# ") - len(SCHEMA)
    write(dirs.user_file, uncommented)
    config = load_config(environ=dirs.env)
    assert config.values == DEFAULT_CONFIG.values
    assert {config.origin(k.path) for k in SCHEMA} == {f"user:{dirs.user_file}"}
