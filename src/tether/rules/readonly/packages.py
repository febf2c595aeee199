"""RO7xx: version queries and package-manager reads (pip list/show, …).

RO703 (npm ls/view/outdated/…) is retired: run in the execution oracle, every npm command
but ``--version`` writes its debug log and update-check state under ``~/.npm``.
"""

from __future__ import annotations

from tether.rules.readonly.catalogue import Entry, entries, rule
from tether.rules.readonly.spec import (
    DYNAMIC_ARGUMENT,
    WRITE_SUBCOMMAND,
    Check,
    Spec,
    cache_write,
    opts,
    parse,
    read,
    write,
)
from tether.shell.model import Word
from tether.shell.options import Grammar, Parsed
from tether.shell.options import parse as parse_options
from tether.shell.specs import grammar_of
from tether.shell.tools import (
    CLUSTER,
    PIP,
    PIP_CHECKED,
    PIP_GENERAL,
    PIP_WRITES,
    TOOLS,
    code_grammar,
)

RULES = (
    rule(
        "RO701",
        "version-query",
        "`TOOL --version` (alone) is read-only for known interpreters and build tools.",
        "With exactly a version flag these programs print their version and exit before "
        "reading any script, project or config that could run code. The flag is the tool's "
        "own, read with its grammar (`node -v`, `python -V`, `make --vers`); another one is "
        "not a version query (`npm -V` prints usage and writes ~/.npm/_logs).",
        "Nothing to change.",
        ("python3 --version", "python -V", "node --version", "gcc --version", "docker --version"),
        ("python3 --version x.py", "python reproduce_issue.py", "cargo --version", "npm -V"),
    ),
    rule(
        "RO702",
        "pip-query",
        "`pip list/show/freeze/check` (also as `python -I -m pip`, or `python -m pip` when "
        "the working tree plants no `pip`) are read-only.",
        "They print installed distributions; `--log FILE` writes and `--python` runs another "
        "interpreter, so both are refused; `install`/`uninstall` change the environment. "
        "`pip list` is an index command: once a week it asks PyPI for a newer pip and writes "
        "the answer under ~/.cache/pip/selfcheck, so it reads only with "
        "`--disable-pip-version-check` or `--no-index`; `--outdated`/`--uptodate` fetch the "
        "index and cache the responses.",
        "Use `pip freeze` or `pip --disable-pip-version-check list`.",
        (
            "pip --disable-pip-version-check list",
            "pip list --no-index",
            "pip show django",
            "pip3 freeze",
            "python -I -m pip show numpy",
        ),
        (
            "pip install pytest",
            "pip list --log out.txt",
            "pip uninstall x",
            "pip list",
            "pip list --outdated --disable-pip-version-check",
        ),
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
# Each tool's version query is read with the tool's one grammar where the shell has one
# (python3, node, bun, php, npm, make, perl, ruby, docker: tools.code_grammar, CLUSTER) and
# otherwise with a spec of its version options alone (from its --help or manual): the command
# is read-only when every option given is one the tool documents as printing its version and
# nothing else follows. `-v` is --version for node, npm and make but verbose for python;
# java, gcc and cmake spell their options as whole words, so only `--version` is read.
_VERSION_NAMES = {"python": ("-V", "--version"), "perl": ("-v", "-V"), "php": ("-v",)}
_VERSION_SPECS = {
    spec.name: spec
    for spec in (
        Spec("rustup", options="V|version", abbreviate=False, checked="rustup 1.29.0"),
        Spec("pipx", options="version", checked="pipx (manual page)"),
        Spec("conda", options="V|version", checked="conda (manual page)"),
        Spec("tsc", options="v|version", abbreviate=False, checked="tsc (manual page)"),
        Spec("sphinx-build", options="version", checked="sphinx-build (manual page)"),
        Spec("black", options="version", abbreviate=False, checked="black (manual page)"),
        Spec("ruff", options="V|version", abbreviate=False, checked="ruff (manual page)"),
        Spec("mypy", options="V|version", checked="mypy (manual page)"),
        Spec("isort", options="V|version", checked="isort (manual page)"),
        *(
            Spec(n, options="version", abbreviate=False, checked="gcc/clang (manual page)")
            for n in ("gcc", "g++", "cc", "clang", "clang++")
        ),
        Spec("java", options="version", abbreviate=False, checked="OpenJDK 17 (manual page)"),
        Spec("javac", options="version", abbreviate=False, checked="OpenJDK 17 (manual page)"),
        Spec("cmake", options="version", abbreviate=False, checked="cmake (manual page)"),
    )
}
# A bare ``version`` word is a subcommand that prints versions only for these; for the rest
# it is a script, a make target or a source file to run or build (``node version``). Not
# npm: ``npm version`` writes its log and update-notifier state under ~/.npm (tether verify).
_VERSION_WORD = frozenset({"docker", "uv"})
# npm subcommands that only query, but npm logs every run under ~/.npm (tether verify saw it).
_NPM_QUERIES = opts("ls list view info show v outdated root prefix")


def _version_grammar(name: str) -> Grammar:
    spec = _VERSION_SPECS.get(name)
    if spec is not None:
        return grammar_of(spec)
    if name == "npx":
        return TOOLS["npm"]  # npx is `npm exec`: npm's own option parser
    return CLUSTER.get(name) or code_grammar(name)  # code_grammar falls back to the tool's


def _version_query(name: str, args: tuple[Word, ...]) -> bool:
    """Return True when ``name ARGS`` only asks the tool for its version."""
    parsed = parse_options(_version_grammar(name), args)
    if parsed.error is not None or parsed.operands or not parsed.options:
        return False
    base = name.rstrip("0123456789.")
    wanted = _VERSION_NAMES.get("python" if base in ("python", "pypy") else base, ("--version",))
    return all(option in wanted for option in parsed.names())


# pip: its general options are one spec shared with the danger catalogue (shell.tools.PIP).
_PIP = PIP


def _pip_spec(sub: str, options: str) -> Spec:
    return Spec(
        f"pip {sub}",
        options=f"{PIP_GENERAL} {options}",
        writes=PIP_WRITES,
        checked=PIP_CHECKED,
    )


_PIP_READS = {
    "list": _pip_spec(
        "list",
        "o outdated u uptodate e editable l local user pre not-required exclude-editable "
        "include-editable no-index path: format: exclude: i: index-url: extra-index-url: f: "
        "find-links:",
    ),
    "show": _pip_spec("show", "f files"),
    "freeze": _pip_spec(
        "freeze", "l local user all exclude-editable r: requirement: path: exclude:"
    ),
    "check": _pip_spec("check", ""),
    # `pip config list` and `pip cache dir|info|list` (the verbs are operands: pip 23 reads
    # its options around them); the other verbs set, edit, remove or purge.
    "config list": _pip_spec("config list", "editor: global user site"),
    "cache dir": _pip_spec("cache dir", "format:"),
}
_PIP_VERBS = {"config": frozenset({"list"}), "cache": frozenset({"dir", "info", "list"})}


def _literal(args: tuple[Word, ...]) -> list[str] | Check:
    for w in args:
        if not w.literal:
            return write(DYNAMIC_ARGUMENT, f"'{w.value[:60]}' expands at run time")
    return [w.value for w in args]


def _pip(name: str, args: tuple[Word, ...]) -> Check:
    general = parse(_PIP, args)
    if isinstance(general, Check):
        return general
    if not general.operands:
        if general.has("-V", "--version"):
            return read("RO702", f"{name} --version only prints its version")
        return write(WRITE_SUBCOMMAND, f"{name}: no read subcommand")
    sub = general.operands[0].value
    if sub in _PIP_VERBS:
        return _pip_verb(name, sub, args[len(args) - len(general.operands) + 1 :])
    spec = _PIP_READS.get(sub)
    if spec is None:
        return write(WRITE_SUBCOMMAND, f"{name} {sub[:40]}: not a read subcommand")
    parsed = parse(spec, args[len(args) - len(general.operands) + 1 :])
    if isinstance(parsed, Check):
        return parsed
    if sub == "list":
        return _pip_list(name, general.has("--disable-pip-version-check"), parsed)
    return read("RO702", f"{name} {sub} only reads")


def _pip_verb(name: str, sub: str, args: tuple[Word, ...]) -> Check:
    """Judge ``pip config VERB`` and ``pip cache VERB``: only the listing verbs read
    (``pip cache dir/info/list`` print where and what the cache holds, creating nothing)."""
    parsed = parse(_PIP_READS["config list" if sub == "config" else "cache dir"], args)
    if isinstance(parsed, Check):
        return parsed
    verbs = [w.value for w in parsed.operands]
    if not verbs or verbs[0] not in _PIP_VERBS[sub] or len(verbs) > 1 + (verbs[0] == "list"):
        shown = " ".join(verbs)[:40]
        return write(WRITE_SUBCOMMAND, f"{name} {sub} {shown}: not a listing form")
    if sub == "config" and len(verbs) > 1:
        return write(WRITE_SUBCOMMAND, f"{name} config list: takes no operand")
    return read("RO702", f"{name} {sub} {verbs[0]} only reads")


def _pip_list(name: str, no_check: bool, parsed: Parsed) -> Check:
    """Judge ``pip list``: an index command (pip 23 ``IndexGroupCommand``).

    Decided from pip's source, since the oracle runs without a network and so cannot see it:
    when the weekly state is stale, an index command fetches PyPI's page for pip (cached
    under ~/.cache/pip/http-v2) and writes ~/.cache/pip/selfcheck/*.json, unless
    ``--disable-pip-version-check`` or ``--no-index``. The oracle saw no change from
    ``pip list`` once the sandbox had the machine's RUSTUP_HOME: the 17 corpus writes were
    rustup's first run through a shim, not pip. ``freeze``, ``show`` and ``check`` are not
    index commands.
    """
    if parsed.has("-o", "--outdated", "-u", "--uptodate"):
        why = "fetches the package index and caches its responses under ~/.cache/pip"
        return cache_write(f"{name} list --outdated: {why}")
    if not (no_check or parsed.has("--disable-pip-version-check", "--no-index")):
        why = "checks PyPI for a newer pip weekly and writes ~/.cache/pip/selfcheck"
        return cache_write(f"{name} list: {why} (add --disable-pip-version-check)")
    return read("RO702", f"{name} list only reads")


def version_or_pip(name: str, args: tuple[Word, ...]) -> Check:
    words = _literal(args)
    if isinstance(words, Check):
        return words
    if name in ("pip", "pip3"):
        return _pip(name, args)
    if _version_query(name, args):
        return read("RO701", f"{name} {' '.join(words)} only prints its version")
    if words == ["version"] and name in _VERSION_WORD:
        return read("RO701", f"{name} version only prints versions")
    if name.startswith("python") and words[:2] == ["-m", "pip"]:
        return _pip(f"{name} -m pip", args[2:])  # the working tree is checked (engine)
    if name.startswith("python") and words[0:1] in (["-I"], ["-P"]) and words[1:3] == ["-m", "pip"]:
        return _pip(f"{name} {words[0]} -m pip", args[3:])
    if name == "npm" and words and words[0] in _NPM_QUERIES:
        why = "writes its debug log and update-check state under ~/.npm on every run"
        return cache_write(f"npm {words[0]}: {why}")
    return write("RW013", f"{name}: runs code whose effects cannot be proven")


ENTRIES: dict[str, Entry] = {
    **entries("RO701", " ".join(sorted(_TOOLS)), version_or_pip),
    **entries("RO701", "pip pip3", version_or_pip, _PIP, *_PIP_READS.values()),
}
