"""``tether config get|set|unset|list|check|path|docs``: read and change configuration."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether.cli._common import add_config_arguments

if TYPE_CHECKING:
    from tether.config.paths import Paths

ACTIONS = "get KEY, set KEY VALUE, unset KEY, list, check [FILE], path or docs"


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add the config actions and their options."""
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    get = actions.add_parser("get", help="print one effective value (or a group of them)")
    get.add_argument("key", metavar="KEY", help="dotted key, e.g. loops.hard_stop")
    set_ = actions.add_parser(
        "set", help="write one value to the user file ($TETHER_CONFIG if set; --project)"
    )
    set_.add_argument("key", metavar="KEY")
    set_.add_argument(
        "value",
        metavar="VALUE",
        help="typed by the schema: true/false/yes/no, integers, enum names; lists as a,b or a "
        "JSON array; mappings as NAME=ARG,... or a JSON object",
    )
    unset = actions.add_parser("unset", help="remove one key from the file 'set' writes")
    unset.add_argument("key", metavar="KEY")
    listing = actions.add_parser("list", help="every effective value and the layer it came from")
    listing.add_argument("prefix", nargs="?", default="", metavar="SECTION", help="only these")
    check = actions.add_parser(
        "check", help="report every mistake in the config at once (exit 1 if any)"
    )
    check.add_argument("file", nargs="?", type=Path, metavar="FILE", help="check only this file")
    path = actions.add_parser("path", help="which files are read and which one 'set' writes")
    docs = actions.add_parser("docs", help="print the generated reference (Markdown)")
    docs.add_argument("--example", action="store_true", help="print the example file instead")
    for sub in (set_, unset, path):
        sub.add_argument(
            "--project", action="store_true", help="the project file (.tether.yaml) instead"
        )
    for sub in (get, listing, check, path):
        sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    # On each action: argparse lets a sub-parser's defaults overwrite the parent's values.
    for sub in (get, listing, check):
        add_config_arguments(sub)


def run(args: argparse.Namespace, name: str) -> int:
    """Run one config action."""
    action = args.action
    if not action:
        sys.stderr.write(f"tether {name}: choose an action: {ACTIONS}\n")
        return 2
    handler = {
        "get": _get,
        "set": _set,
        "unset": _unset,
        "list": _list,
        "check": _check,
        "path": _path,
        "docs": _docs,
    }[action]
    return handler(args)


def _paths() -> Paths:
    from tether.config.paths import discover

    return discover(None, os.environ)


def _load(args: argparse.Namespace) -> Any:
    from tether.cli._common import config_from_args

    return config_from_args(args)


def _get(args: argparse.Namespace) -> int:
    from tether.config.schema import KEYS
    from tether.config.validate import format_text

    config = _load(args)
    value = config.get(args.key)
    if args.json:
        print(json.dumps(value, ensure_ascii=False))
    elif args.key in KEYS:
        print(format_text(KEYS[args.key], value))
    elif isinstance(value, dict):
        for key, item in _flatten(args.key, value):
            text = format_text(KEYS[key], item) if key in KEYS else json.dumps(item)
            print(f"{key} = {text}")
    else:
        print(value)
    return 0


def _flatten(prefix: str, tree: dict[str, Any]) -> list[tuple[str, Any]]:
    from tether.config.schema import KEYS

    out: list[tuple[str, Any]] = []
    for name, value in tree.items():
        path = f"{prefix}.{name}"
        if isinstance(value, dict) and path not in KEYS:
            out += _flatten(path, value)
        else:
            out.append((path, value))
    return out


def _target(args: argparse.Namespace) -> Path:
    return Path(_paths().write_target(project=args.project))


def _set(args: argparse.Namespace) -> int:
    from tether.config.edit import set_key
    from tether.config.schema import KEYS
    from tether.config.validate import format_text
    from tether.errors import ConfigError

    paths = _paths()
    target = Path(paths.write_target(project=args.project))
    try:
        _check_edit(paths, target, args)
        edit = set_key(target, args.key, args.value)
    except ConfigError as exc:
        sys.stderr.write(f"tether config set: {exc}\nnothing was written to {target}\n")
        return 2
    key = KEYS.get(args.key)
    shown = format_text(key, edit.value) if key else json.dumps(edit.value)
    verb = "set" if edit.written else "unchanged:"
    print(f"{verb} {args.key} = {shown} in {edit.path}")
    _note_shadowing(args.key, (target, edit.path))
    _note_untrusted(args.key)
    return 0


def _note_untrusted(dotted: str) -> None:
    """Say so when the value just written is ignored because its project file is not trusted."""
    from tether.config import load_config
    from tether.errors import ConfigError

    try:
        ignored = load_config().ignored
    except ConfigError:
        return
    for item in ignored:
        if item.key == dotted or item.key.startswith(dotted + "."):
            sys.stderr.write(
                f"note: {item.key} is ignored: {item.source} is not trusted and this {item.reason}"
                f"; review the file, then run `tether trust {item.source}`\n"
            )


def _check_edit(paths: Paths, target: Path, args: argparse.Namespace) -> None:
    """Refuse a value the merged config would reject (e.g. a warning after the hard stop)."""
    from tether.config import load_config
    from tether.config.constraints import check_edit
    from tether.config.edit import typed_value
    from tether.config.validate import ConfigProblems
    from tether.errors import ConfigError

    value = typed_value(args.key, args.value)
    try:
        config = load_config()
    except ConfigError:
        return  # the edit itself reports a broken target file; other layers: 'check'
    layer = "project" if args.project else "TETHER_CONFIG" if paths.explicit else "user"
    problems = check_edit(config, layer, target, args.key, value)
    if problems:
        raise ConfigProblems(problems)


def _note_shadowing(dotted: str, written: tuple[Path, ...]) -> None:
    """Say so when a higher layer hides the value just written (it would look ignored)."""
    from tether.config import load_config
    from tether.config.validate import resolve
    from tether.errors import ConfigError

    try:
        origin = load_config().origin(resolve(dotted)[0].path)
    except ConfigError:  # a broken other layer is reported by 'check'; the write succeeded
        return
    if origin != "default" and origin.split(":", 1)[-1] not in {str(p) for p in written}:
        sys.stderr.write(
            f"note: {dotted} is overridden by {origin}; 'tether config list' shows what applies\n"
        )


def _unset(args: argparse.Namespace) -> int:
    from tether.config.edit import unset_key
    from tether.errors import ConfigError

    target = _target(args)
    try:
        edit = unset_key(target, args.key)
    except ConfigError as exc:
        sys.stderr.write(f"tether config unset: {exc}\nnothing was written to {target}\n")
        return 2
    if edit.written:
        print(f"removed {args.key} from {edit.path}")
    else:
        print(f"{args.key} is not set in {edit.path}; nothing changed")
    return 0


def _list(args: argparse.Namespace) -> int:
    from tether.config.schema import KEYS
    from tether.config.validate import format_text

    config = _load(args)
    prefix = args.prefix
    keys = [k for k in KEYS if not prefix or k == prefix or k.startswith(prefix + ".")]
    if not keys:
        config.get(prefix)  # raises with a "did you mean"
    if args.json:
        data = {k: {"value": config.get(k), "origin": config.origin(k)} for k in keys}
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    width = max(len(k) for k in keys)
    for key in keys:
        value = config.get(key)
        # Quote strings here so that empty ones and edge spaces stay visible in the table.
        text = json.dumps(value) if isinstance(value, str) else format_text(KEYS[key], value)
        print(f"{key:<{width}}  {text}  ({config.origin(key)})")
    if config.ignored:
        from tether.config.core import trust_notice

        sys.stderr.write(f"note: {trust_notice(config.ignored)}\n")
    return 0


def _check(args: argparse.Namespace) -> int:
    from tether.config.check import check_all, check_file

    if args.file is not None:
        report = check_file(args.file)
    else:
        report = check_all(_paths(), os.environ, args.config_overrides)
    if args.json:
        data = {
            "ok": report.ok,
            "checked": [{"layer": layer, "path": path} for layer, path in report.checked],
            "problems": [
                {"source": p.source, "line": p.line, "key": p.key, "message": p.message}
                for p in report.problems
            ],
            "ignored": [item._asdict() for item in report.ignored],
        }
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0 if report.ok else 1
    for problem in report.problems:
        sys.stderr.write(f"{problem}\n")
    if report.ignored:
        from tether.config.core import trust_notice

        for item in report.ignored:
            print(f"note: {item}")
        print(f"note: {trust_notice(report.ignored)}")
    if not report.checked:
        print("ok: no config files found; the built-in defaults apply")
    elif report.ok:
        print("ok: " + ", ".join(f"{layer} {path}" for layer, path in report.checked))
    else:
        count = len(report.problems)
        sys.stderr.write(f"{count} problem{'s' if count != 1 else ''} found\n")
    return 0 if report.ok else 1


def _path(args: argparse.Namespace) -> int:
    from tether.config.paths import cache_dir, key_file, trust_file

    paths = _paths()
    target = paths.write_target(project=args.project)
    project = paths.project or paths.project_root / ".tether.yaml"
    explicit = paths.explicit
    rows = [
        ("user", str(paths.user), paths.user.exists(), explicit is None),
        ("project", str(project), project.exists(), True),
        (
            "TETHER_CONFIG",
            str(explicit or ""),
            bool(explicit and explicit.exists()),
            bool(explicit),
        ),
    ]
    if args.json:
        data = {
            "files": [
                {"layer": layer, "path": path, "exists": exists, "read": used and exists}
                for layer, path, exists, used in rows
            ],
            "writes": str(target),
            "cache": str(cache_dir(os.environ)),
            "trust": str(trust_file(os.environ)),
            "key": str(key_file(os.environ)),
        }
        print(json.dumps(data, indent=2))
        return 0
    for layer, path, exists, used in rows:
        if layer == "TETHER_CONFIG" and not used:
            state = "not set"
        elif not used:
            state = "not read: TETHER_CONFIG replaces it"
        else:
            state = "read" if exists else "missing"
        print(f"{layer + ':':<15}{path}{'  ' if path else ''}({state})")
    print(f"{'set writes:':<15}{target}")
    print(f"{'cache:':<15}{cache_dir(os.environ)}")
    print(f"{'trust:':<15}{trust_file(os.environ)}  (`tether trust --list`)")
    print(f"{'key:':<15}{key_file(os.environ)}  (authenticates the cache and trust records)")
    return 0


def _docs(args: argparse.Namespace) -> int:
    from tether.config.docs import render_example, render_markdown

    sys.stdout.write(render_example() if args.example else render_markdown())
    return 0
