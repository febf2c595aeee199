"""Property-based round trips: ``set`` then ``get`` returns the value, for every key type; any
file ``check`` accepts loads to the values it declares and the loop guard and approval policy
accept it; ``check`` and loading always agree.

Each example uses its own temporary HOME and passes ``environ`` explicitly, so no real config is
read and the cache never sees a file younger than its racy window.
"""

from __future__ import annotations

import io
import json
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tether.approval.policy import Policy
from tether.config import load_config
from tether.config.check import check_file
from tether.config.constraints import ORDERED, RULE_LISTS, check_constraints
from tether.config.edit import set_key, set_value
from tether.config.schema import KEYS, SCHEMA, Key
from tether.config.trust import trust
from tether.config.validate import format_text
from tether.errors import ConfigError
from tether.loops.settings import SHELL_TOOLS
from tether.loops.settings import from_config as loop_settings
from tether.rules import all_rules

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Strings as a user might type them, including YAML's troublemakers ("yes", "null", "1e3",
# "- x", "key: v", "#", quotes, tabs, non-ASCII); surrogates cannot be written as UTF-8.
TRICKY = ("yes", "no", "null", "~", "1e3", "0x10", "- x", "k: v", "#c", "'", '"', "")
TRICKY += ("a\x85b", "\u2028", "tab\there", " lead", "trail ")
TEXT = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=30),
    st.sampled_from(TRICKY),
)


def bounds(key: Key) -> tuple[int, int]:
    """Return the range of ``key`` that keeps the cross-key rules with the other defaults."""
    low, high = int(key.minimum or 0), int(key.maximum or 2**31)
    for lower, upper, strict in ORDERED:
        if key.path == lower:
            high = min(high, KEYS[upper].default - strict)
        if key.path == upper:
            low = max(low, KEYS[lower].default + strict)
    return low, high


def merged_ok(values: dict[str, Any]) -> bool:
    """Return True when ``values`` over the defaults keep every cross-key rule."""
    merged = {k.path: k.default for k in SCHEMA} | values
    return not check_constraints(merged, {})


def values_for(key: Key) -> st.SearchStrategy[Any]:
    """Every valid value of one key (with every other key at its default)."""
    if key.kind == "bool":
        return st.booleans()
    if key.kind == "int":
        return st.integers(*bounds(key))
    if key.kind == "float":
        return st.floats(key.minimum, key.maximum, allow_nan=False, allow_infinity=False)
    if key.kind == "enum":
        return st.sampled_from(key.choices)
    if key.kind == "str":
        return TEXT
    if key.path in RULE_LISTS:  # codes the catalogue knows (hardline ones cannot be disabled)
        hardline = key.path.endswith("disabled_rules")
        codes = [r.code for r in all_rules() if not (hardline and r.tier.value == "hardline")]
        return st.lists(st.sampled_from(codes), max_size=4)
    if key.kind == "list":
        return st.lists(TEXT, max_size=5)
    # A new shell tool: no layer may remap or remove a built-in one (tests/test_trust.py).
    return st.dictionaries(
        TEXT.filter(lambda name: bool(name) and name not in SHELL_TOOLS), TEXT, max_size=4
    )


KEY_AND_VALUE = st.sampled_from(SCHEMA).flatmap(lambda k: st.tuples(st.just(k), values_for(k)))


@contextmanager
def sandbox() -> Iterator[tuple[Path, dict[str, str]]]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "repo" / ".git").mkdir(parents=True)
        env = {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_CACHE_HOME": str(home / "cache"),
        }
        yield home, env


def effective(key: Key, value: Any) -> Any:
    """What ``get`` returns after one layer sets ``value`` (mappings merge over the built-ins)."""
    if key.kind == "map":
        merged = {**key.default, **value}
        return {name: arg for name, arg in merged.items() if arg}
    if key.kind == "float":
        return float(value)
    return value


@SETTINGS
@given(KEY_AND_VALUE)
def test_set_text_then_get_returns_the_value(key_and_value: tuple[Key, Any]) -> None:
    key, value = key_and_value
    text = format_text(key, value)
    with sandbox() as (home, env):
        user = home / "config" / "tether" / "config.yaml"
        set_key(user, key.path, text)
        config = load_config(cwd=home / "repo", environ=env)
        assert config.get(key.path) == effective(key, value)
        assert config.origin(key.path) == f"user:{user}"
        # the same text through --set and the environment
        over = load_config(cwd=home / "repo", environ=env, overrides=[f"{key.path}={text}"])
        assert over.get(key.path) == effective(key, value)


@SETTINGS
@given(st.lists(KEY_AND_VALUE, min_size=1, max_size=6))
def test_successive_sets_keep_every_value(pairs: list[tuple[Key, Any]]) -> None:
    assume(merged_ok({key.path: value for key, value in pairs}))
    with sandbox() as (home, env):
        user = home / "config" / "tether" / "config.yaml"
        user.parent.mkdir(parents=True)
        user.write_text("# keep me\nloops:\n  window: 7  # and me\n\nstore:\n", encoding="utf-8")
        final: dict[str, Any] = {"loops.window": 7}
        for key, value in pairs:
            set_value(user, key.path, value)
            final[key.path] = value
        config = load_config(cwd=home / "repo", environ=env)
        for path, value in final.items():
            assert config.get(path) == effective(KEYS[path], value)
        text = user.read_text(encoding="utf-8")
        assert text.startswith("# keep me\n")
        assert "# and me" in text


def tree(pairs: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path, value in pairs.items():
        node = out
        *parents, leaf = path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out


def quoted(value: Any) -> Any:
    """Double-quote strings YAML cannot hold raw (so the file says what the test means)."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    if isinstance(value, dict):
        return {quoted(k): quoted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [quoted(v) for v in value]
    if isinstance(value, str) and not value.isprintable():
        return DoubleQuotedScalarString(value)
    return value


def dump(document: dict[str, Any], style: str) -> str:
    if style == "json":
        # JSON is YAML 1.2, except that YAML refuses raw DEL and C1 controls (JSON's escapes
        # are fine) and reads a surrogate-pair escape as two lone surrogates.
        text = json.dumps(document, ensure_ascii=False, indent=1)
        return re.sub("[\x7f-\x9f\ufffe\uffff]", lambda m: f"\\u{ord(m.group()):04x}", text)
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.default_flow_style = style == "flow"
    stream = io.StringIO()
    yaml.dump(quoted(document), stream)
    return stream.getvalue()


@SETTINGS
@given(
    st.dictionaries(st.sampled_from([k.path for k in SCHEMA]), st.just(None), max_size=8).flatmap(
        lambda keys: st.fixed_dictionaries({p: values_for(KEYS[p]) for p in keys})
    ),
    st.sampled_from(["block", "flow", "json"]),
)
def test_a_file_check_accepts_loads_to_its_values(values: dict[str, Any], style: str) -> None:
    assume(merged_ok(values))
    with sandbox() as (home, env):
        path = home / "repo" / ".tether.yaml"
        path.write_text(dump(tree(values), style), encoding="utf-8")
        report = check_file(path)
        assert report.ok, report.problems
        trust(path, env)  # what an untrusted file may do: tests/test_trust.py
        config = load_config(cwd=home / "repo", environ=env)
        for key_path, value in values.items():
            assert config.get(key_path) == effective(KEYS[key_path], value)
        # ...and what loads, the runtime accepts: a hook never refuses a checked config.
        loop_settings(config)
        Policy.from_config(config)


# Anything YAML can hold, at any known or unknown place: check and load must agree.
ANY_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)
ANY_PATH = st.sampled_from([k.path for k in SCHEMA] + ["loops", "loops.warn_after", "loops.x"])


@SETTINGS
@given(st.dictionaries(ANY_PATH, ANY_VALUE, max_size=4))
def test_check_and_load_always_agree(values: dict[str, Any]) -> None:
    document: dict[str, Any] = {}
    for path, value in values.items():
        node = document
        *parents, leaf = path.split(".")
        for part in parents:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[leaf] = value
    with sandbox() as (home, env):
        path = home / "repo" / ".tether.yaml"
        path.write_text(dump(document, "block"), encoding="utf-8")
        report = check_file(path)
        trust(path, env)  # check judges the file as written; untrusted, less of it applies
        try:
            load_config(cwd=home / "repo", environ=env)
        except ConfigError as exc:
            assert not report.ok
            # The same file is the "project" layer to the loader and a "file" to check_file:
            # the messages must agree on everything but that name for it.
            loaded = [
                line.replace(f"project:{path}", f"file:{path}") for line in str(exc).splitlines()
            ]
            assert loaded == [str(p) for p in report.problems]
        else:
            assert report.ok, report.problems
