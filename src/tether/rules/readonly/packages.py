"""RO7xx: version queries and package-manager reads (pip list/show, …).

RO703 (npm ls/view/outdated/…) is retired: run in the execution oracle, every npm command
but ``--version`` writes its debug log and update-check state under ``~/.npm``.
"""

from __future__ import annotations

from tether.rules.readonly.catalogue import Entry, entries, rule
from tether.rules.readonly.grammar import (
    DYNAMIC_ARGUMENT,
    WRITE_OPTION,
    WRITE_SUBCOMMAND,
    Check,
    opts,
    read,
    write,
)
from tether.shell.model import Word

RULES = (
    rule(
        "RO701",
        "version-query",
        "`TOOL --version` (alone) is read-only for known interpreters and build tools.",
        "With exactly a version flag these programs print their version and exit before "
        "reading any script, project or config that could run code.",
        "Nothing to change.",
        ("python3 --version", "python -V", "node --version", "gcc --version", "docker --version"),
        ("python3 --version x.py", "python reproduce_issue.py", "cargo --version"),
    ),
    rule(
        "RO702",
        "pip-query",
        "`pip list/show/freeze/check` (also as `python -m pip`) are read-only.",
        "They print installed distributions; `--log FILE` writes and `--python` runs another "
        "interpreter, so both are refused; `install`/`uninstall` change the environment.",
        "Nothing to change.",
        ("pip list", "pip show django", "pip3 freeze", "python -m pip show numpy"),
        ("pip install pytest", "pip list --log out.txt", "pip uninstall x"),
    ),
)

# Only tools whose version flag is handled before any project file is read: not cargo/rustc
# (rust-toolchain.toml can name a custom toolchain binary), yarn (.yarnrc.yml yarnPath), go
# (go.mod toolchain), django-admin (imports settings), or plugin-loading linters.
_TOOLS = opts(
    "python python3 python2 pypy pypy3 pip pip3 node nodejs npm npx deno bun rustup java javac "
    "gcc g++ cc clang clang++ make cmake ruby perl php uv pipx conda tsc sphinx-build black "
    "ruff mypy isort docker"
)
_VERSION_FLAGS = frozenset({"--version", "-V", "-version", "version", "-v"})
_PIP_READS = frozenset({"list", "show", "freeze", "check", "--version", "-V"})
_PIP_DENY = ("--log", "--log-file", "--local-log", "--python", "--help")
# npm subcommands that only query, but npm logs every run under ~/.npm (tether verify saw it).
_NPM_QUERIES = opts("ls list view info show v outdated root prefix")


def _literal(args: tuple[Word, ...]) -> list[str] | Check:
    for w in args:
        if not w.literal:
            return write(DYNAMIC_ARGUMENT, f"'{w.value[:60]}' expands at run time")
    return [w.value for w in args]


def _pip(name: str, words: list[str]) -> Check:
    sub = next((w for w in words if not w.startswith("-")), words[0] if words else "")
    if sub not in _PIP_READS:
        return write(WRITE_SUBCOMMAND, f"{name} {sub[:40]}: not a read subcommand")
    for w in words:
        if w.partition("=")[0] in _PIP_DENY:
            return write(WRITE_OPTION, f"{name} {w[:40]}: writes a file or runs another program")
    return read("RO702", f"{name} {sub} only reads")


def _version_or_pip(name: str, args: tuple[Word, ...]) -> Check:
    words = _literal(args)
    if isinstance(words, Check):
        return words
    # `-v` is verbose (not version) for some tools; only accept it where it is version.
    if (
        len(words) == 1
        and words[0] in _VERSION_FLAGS
        and (words[0] != "-v" or name in ("node", "nodejs", "npm", "npx", "yarn", "pnpm", "bun"))
    ):
        return read("RO701", f"{name} {words[0]} only prints its version")
    if name in ("pip", "pip3"):
        return _pip(name, words)
    if name.startswith("python") and words[:2] == ["-m", "pip"]:
        return _pip(f"{name} -m pip", words[2:])
    if name == "npm" and words and words[0] in _NPM_QUERIES:
        why = "writes its debug log and update-check state under ~/.npm on every run"
        return write(WRITE_SUBCOMMAND, f"npm {words[0]}: {why}")
    return write("RW013", f"{name}: runs code whose effects cannot be proven")


ENTRIES: dict[str, Entry] = entries("RO701", " ".join(sorted(_TOOLS)), _version_or_pip)
