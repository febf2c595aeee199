"""Generate ``docs/config.md`` and ``docs/tether.example.yaml`` from the schema.

Regenerate both with ``python -m tether.config.docs --write`` (``--check`` exits 1 when they
are stale; the test suite runs the same comparison).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from tether.config.schema import GROUPS, SCHEMA, SECTIONS, Key

REGENERATE = "python -m tether.config.docs --write"
DOCS = ("config.md", "tether.example.yaml")

_LAYERS = """\
Tether reads these layers, lowest first; each one overrides the ones before it, key by key:

1. built-in defaults (the tables below);
2. the user file, `$XDG_CONFIG_HOME/tether/config.yaml` (default `~/.config/tether/config.yaml`),
   skipped when `TETHER_CONFIG` is set;
3. the project file, `.tether.yaml`, found by walking up from the working directory and
   stopping at the repository root (the first directory containing `.git`);
4. the file named by the `TETHER_CONFIG` environment variable (it replaces the user file);
5. environment variables `TETHER_<SECTION>__<KEY>`, nested keys joined by `__`, e.g.
   `TETHER_LOOPS__WARN_AFTER__EXACT_FAILURE=3`;
6. `--set KEY=VALUE` on any `tether` command, e.g. `--set loops.hard_stop=true`.

Sections merge deeply: a file that sets one key, or leaves a section empty, keeps every other
default. Lists replace the lower layer's list; `tools.shell` merges entry by entry.

Files are YAML 1.2: booleans are `true` and `false` (`yes`, `no`, `on` and `off` are strings
and are refused). In the environment and `--set`, booleans are `true`, `false`, `yes` or `no`;
lists are comma-separated (`a,b`) or a JSON array; mappings are `NAME=ARG,...` or a JSON
object. Unknown keys, wrong types and out-of-range numbers are errors, never ignored:
`tether config check` lists every mistake with its file and line.

**Project files are untrusted until you trust them.** A repository's `.tether.yaml` (and a
`TETHER_CONFIG` file inside the repository or given as a relative path) may only *tighten* the
guard until you review it and run `tether trust` in the repository (`tether trust --list`,
`tether trust --revoke PATH`). Until then, each key it sets applies only in the direction the
column "untrusted project" below allows, and the rest is ignored with one notice
(`tether config check`, `tether doctor`, and once per session to the user). Trust is recorded
by the file's SHA-256, so any change to the file revokes it. The user file, `TETHER_CONFIG`
outside the repository and `TETHER_*` variables are yours (an agent cannot change the hook
process's environment) and apply as written. No layer at all may remap or remove a built-in
shell tool or disable a hardline rule, and a `hooks.deadline` above 25 s is read as 25 s (the
hosts' hook timeout as installed is 30 s). See docs/trust.md.

`tether config get KEY`, `set KEY VALUE` (`--project` for the project file), `unset KEY`,
`list` (every value and the layer it came from), `check [FILE]` and `path` (the files read and
the one `set` writes) work on these keys. `set` keeps the file's comments and order.
"""


# What an untrusted project file may do to a key, by the key's ``loosen`` direction.
UNTRUSTED = {
    "raise": "lower it",
    "lower": "raise it",
    "off": "switch it on",
    "order": "a stricter choice (listed strictest first)",
    "add": "remove entries",
    "remove": "add entries",
    "remap": "nothing (which argument is a command decides what is checked)",
    "change": "nothing",
}


def _type(key: Key) -> str:
    return {"list": "list of strings", "map": "mapping"}.get(key.kind, key.kind)


def _allowed(key: Key) -> str:
    if key.kind in ("int", "float"):
        text = key.expected()
        return text.split(" ", 1)[1] if text.startswith(("an ", "a ")) else text
    if key.kind == "enum":
        return ", ".join(f"`{c}`" for c in key.choices)
    if key.kind == "bool":
        return "`true`, `false`"
    return ""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def env_name(path: str) -> str:
    """Return the environment variable that overrides ``path``."""
    return "TETHER_" + path.upper().replace(".", "__")


def render_markdown() -> str:
    """Return the configuration reference as Markdown."""
    out = [
        "# Configuration reference",
        "",
        f"<!-- Generated from src/tether/config/schema.py by `{REGENERATE}`; do not edit. -->",
        "",
        _LAYERS,
        "Rules across keys, checked on the merged config (every layer together):",
        "",
        *_cross_rules(),
        "",
    ]
    for section, about in SECTIONS.items():
        out += [f"## `{section}`", "", about, ""]
        groups = [g for g in GROUPS if g.startswith(section + ".")]
        if groups:
            out += [f"- `{g}.*`: {GROUPS[g]}" for g in groups] + [""]
        out += [
            "| key | type | default | allowed | untrusted project | meaning |",
            "|---|---|---|---|---|---|",
        ]
        for key in SCHEMA:
            if key.section != section:
                continue
            default = json.dumps(key.default, ensure_ascii=False)
            out.append(
                f"| `{key.path}` | {_type(key)} | `{_cell(default)}` | {_cell(_allowed(key))} "
                f"| {UNTRUSTED[key.loosen]} | {_cell(key.help)} Env: `{env_name(key.path)}`. |"
            )
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _cross_rules() -> list[str]:
    from tether.config.constraints import ORDERED

    rules = [f"- `{high}` {'>' if strict else '≥'} `{low}`" for low, high, strict in ORDERED]
    rules.append(
        "- `approvals.disabled_rules` and `approvals.enabled_rules` hold rule codes the "
        "catalogue knows (`tether rules` lists them; a rule's name is refused with its code); "
        "hardline rules cannot be disabled"
    )
    return rules


def render_example() -> str:
    """Return an example config file: every key commented out at its default value."""
    out = [
        "# Tether configuration example, generated from the schema; do not edit.",
        f"# Regenerate: {REGENERATE}",
        "#",
        "# Copy the lines you need to ~/.config/tether/config.yaml (yours) or .tether.yaml at",
        "# a repository root (the project's) and uncomment them. Every value shown is the",
        "# default; this file as it stands changes nothing. Reference: docs/config.md.",
    ]
    open_groups: list[str] = []
    for key in SCHEMA:
        parts = key.path.split(".")
        parents = parts[:-1]
        common = 0
        while (
            common < min(len(parents), len(open_groups)) and parents[common] == open_groups[common]
        ):
            common += 1
        for depth in range(common, len(parents)):
            indent = "  " * depth
            group = ".".join(parents[: depth + 1])
            if depth == 0:
                out += ["", f"# {SECTIONS[group]}"]
            else:
                out += _comment(indent, GROUPS[group])
            out.append(f"{indent}{parents[depth]}:")
        open_groups = parents
        indent = "  " * len(parents)
        out += _comment(indent, key.help)
        default = json.dumps(key.default, ensure_ascii=False)
        out.append(f"{indent}# {parts[-1]}: {default}")
    return "\n".join(out).rstrip() + "\n"


def _comment(indent: str, text: str) -> list[str]:
    import textwrap

    return [f"{indent}# {line}" for line in textwrap.wrap(text, 98 - len(indent))]


def repo_docs_dir() -> Path:
    """Return the ``docs/`` directory of the source checkout this module lives in."""
    return Path(__file__).resolve().parents[3] / "docs"


def stale(directory: Path) -> list[str]:
    """Return the generated files under ``directory`` that differ from the schema."""
    wanted = dict(zip(DOCS, (render_markdown(), render_example()), strict=True))
    out = []
    for name, text in wanted.items():
        path = directory / name
        try:
            current = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = None
        if current != text:
            out.append(str(path))
    return out


def write(directory: Path) -> list[str]:
    """Write the generated files under ``directory``; return the ones that changed."""
    changed = stale(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / DOCS[0]).write_text(render_markdown(), encoding="utf-8")
    (directory / DOCS[1]).write_text(render_example(), encoding="utf-8")
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """Print, check (``--check``) or rewrite (``--write``) the generated config docs."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tether.config.docs", description=__doc__)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the files in --dir")
    mode.add_argument("--check", action="store_true", help="exit 1 when the files are stale")
    mode.add_argument("--example", action="store_true", help="print the example file")
    parser.add_argument("--dir", type=Path, default=None, help="docs directory (the checkout's)")
    args = parser.parse_args(argv)
    directory = args.dir or repo_docs_dir()
    if args.write:
        for path in write(directory):
            print(f"wrote {path}")
        return 0
    if args.check:
        paths = stale(directory)
        for path in paths:
            print(f"stale: {path} (run: {REGENERATE})", file=sys.stderr)
        return 1 if paths else 0
    sys.stdout.write(render_example() if args.example else render_markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
