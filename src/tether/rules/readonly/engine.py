"""Judge a parsed command line: every simple command, redirect, wrapper and prefix must read.

The default answer is "writes": a command is read-only only when each part is proven by a
catalogue entry. The first failing part decides the reason; every failing code is listed.
"""

from __future__ import annotations

import os
import re

from tether.quoting import clip, quote
from tether.rules.base import ReadVerdict
from tether.rules.readonly import files, forge, ops, packages, search, system, text, vcs
from tether.rules.readonly.catalogue import Entry
from tether.rules.readonly.spec import UNKNOWN_OPTION, Check, opts, read, write
from tether.rules.readonly.tree import (
    Tree,
    TreeProof,
    git_directories,
    pip_config,
    python_module,
    rust_toolchain,
)
from tether.shell.model import CommandModel, Redirect, SimpleCommand, Word, Wrapper
from tether.shell.options import Parsed, parse
from tether.shell.programs import SHELLS, WRAPPERS
from tether.shell.tools import GIT

CATALOGUE: dict[str, Entry] = {
    **files.ENTRIES,
    **search.ENTRIES,
    **text.ENTRIES,
    **vcs.ENTRIES,
    **forge.ENTRIES,
    **system.ENTRIES,
    **packages.ENTRIES,
    **ops.ENTRIES,
}

_SHELL_ESCAPES = opts(
    "less more most pg man vim vi nvim view vimdiff nano pico emacs ed ex joe micro top htop info"
)
_INTERPRETERS = opts(
    "bash sh zsh dash ksh fish csh tcsh source . eval lua Rscript julia pytest tox nox ninja "
    "cargo rustc go yarn pnpm gradle mvn dotnet poetry flake8 pylint django-admin kotlin swift"
)

# `for NAME in …` / `select NAME in …` assign NAME, which tether.shell does not report as an
# assignment; an upper-case (environment) name such as PATH or IFS changes what later
# commands run. `((…))` arithmetic commands assign too.
# Each pattern starts with a literal, so the regex engine skips to its candidates instead of
# trying every position of a long heredoc; the lookbehinds that follow look at the character
# before the keyword (a separator, or the start of the text) and at a `$` before `((`.
_LOOP_VAR = re.compile(
    r"(?:for(?<![^\s;&|(){}]for)|select(?<![^\s;&|(){}]select))\s+([A-Za-z_][A-Za-z0-9_]*)"
)
_SAFE_VAR = re.compile(r"[a-z_][a-z0-9_]*")
# zsh ties these arrays to PATH, FPATH, MODULE_PATH, CDPATH, MANPATH, MAILPATH: `for path in
# /tmp` in zsh (the login shell of macOS, so the one a host may run commands with) sets PATH.
_ZSH_TIED = frozenset({"path", "fpath", "module_path", "cdpath", "manpath", "mailpath"})
_ARITHMETIC = re.compile(r"\(\((?<!\$\(\()")
# `[[ A -eq B ]]` evaluates A and B as arithmetic expressions, and `-v NAME` evaluates NAME's
# subscript: a name there reads a variable whose value may be `a[$(cmd)]`, which runs cmd, and
# `[[ 'a[$(cmd)]' -eq 0 ]]` runs the substitution the shell itself left quoted (bash and zsh;
# `test`/`[` compare -eq operands as plain integers). Only numbers, and the special
# parameters that always hold one, are safe operands.
_TESTS = frozenset({"test", "[", "[["})
_ARITHMETIC_TEST = re.compile(r"(\S*)\s+-(?:eq|ne|lt|le|gt|ge)\s+(\S*)")
_VARIABLE_TEST = re.compile(r"(?:^|\s)[\"']?-[vR][\"']?\s+(\S*)")
_NUMBER = re.compile(r"[+-]?[0-9]+|(\"?)(?:\$[?#$!]|\$\{#[A-Za-z_][A-Za-z0-9_]*(?:\[[@*]\])?\})\1")
_VARIABLE_NAME = re.compile(r"([\"']?)[A-Za-z_][A-Za-z0-9_]*\1")
_NETWORK_FILES = ("/dev/tcp/", "/dev/udp/")
_MAX_REASONS = 12  # a read-only verdict lists at most this many distinct reasons
_NULL_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_WRITE_OPS = frozenset({">", ">>", "&>", "&>>", ">|", ">&"})
_DUP_OPS = frozenset({">&", "<&"})
_DATA_OPS = frozenset({"<<", "<<-", "<<<"})

_PRIVILEGE = frozenset({"sudo", "doas", "su", "pkexec", "run0", "runuser", "sudoedit"})
_PASSIVE_WRAPPERS = frozenset(
    {"timeout", "nice", "ionice", "stdbuf", "setsid", "command", "watch", "chrt", "taskset"}
)
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "busybox-sh"})
_UNSAFE_WRAPPERS = frozenset({"nohup", "exec"})

# In arguments of pure commands: `$NAME`, `${NAME}`, lengths (`${#NAME}`, `${#a[@]}`) and
# special parameters only print, and a `$(…)` runs commands that are proven on their own; other
# expansions can assign (`${x=…}`) or run commands (`${x@P}`, `${a[i]}`, `$((a[$(cmd)]))`).
_DOLLAR = re.compile(
    r"\$(?![A-Za-z_][A-Za-z0-9_]*|\{#?[A-Za-z_][A-Za-z0-9_]*\}|\{#[A-Za-z_][A-Za-z0-9_]*\[[@*]\]\}"
    r"|[0-9@*#?$!-]|\((?!\())"
)
_LOCALE_VALUE = re.compile(r"[A-Za-z0-9_.@:+/-]*")
_PAGER_VALUES = frozenset({"cat", ""})
_ENV_ALLOWED: dict[str, frozenset[str] | None] = {
    "LC_ALL": None,
    "LANG": None,
    "LANGUAGE": None,
    "LC_CTYPE": None,
    "LC_COLLATE": None,
    "LC_MESSAGES": None,
    "LC_NUMERIC": None,
    "LC_TIME": None,
    "TZ": None,
    "NO_COLOR": None,
    "CLICOLOR": None,
    "FORCE_COLOR": None,
    "COLUMNS": None,
    "LINES": None,
    "TERM": frozenset({"dumb", "xterm", "xterm-256color"}),
    "GH_PAGER": _PAGER_VALUES,
    "GIT_PAGER": _PAGER_VALUES,
    "PAGER": _PAGER_VALUES,
    "MANPAGER": _PAGER_VALUES,
    "GH_NO_UPDATE_NOTIFIER": None,
    "GH_PROMPT_DISABLED": None,
    "GIT_TERMINAL_PROMPT": frozenset({"0"}),
    "GIT_OPTIONAL_LOCKS": frozenset({"0"}),
}


def unquoted_expansion(text: str) -> str | None:
    """Return the first unquoted glob or brace expansion in shell source ``text``, if any.

    A safety net under ``Word.literal``: `sort {-o,output} in` and `sed s/a/*/ f` expand to
    other words (options included) at run time, while `sed 's/a/*/' f` does not.
    """
    if "*" not in text and "?" not in text and "[" not in text and "{" not in text:
        return None  # nothing that could expand (most commands): no walk over the text
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = text.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if c == "$" and i + 1 < n and text[i + 1] == "'":
            i += 2  # $'…' (ANSI-C): backslash escapes a quote inside
            while i < n and text[i] != "'":
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if c == "$" and i + 1 < n and text[i + 1] in "?{":
            i += 2
            continue
        if c in "*?[":
            return c
        if c == "{":
            close = text.find("}", i)
            inner = text[i + 1 : close] if close > 0 else ""
            if "," in inner or ".." in inner:
                return "{" + inner[:20] + "}"
        i += 1
    return None


# tether.shell keeps at most 200 bytes of a command's source in ``SimpleCommand.text``
# (tests/test_readonly.py checks this stays below the parser's cap); past it the source scan
# may miss a glob, so the word values are checked instead (quoting is lost there, so any glob
# or brace character counts).
TEXT_SCAN_LIMIT = 190
_GLOB_CHARS = re.compile(r"[*?\[]|\{[^{}]*(?:,|\.\.)[^{}]*\}")


def _long(text: str) -> bool:
    """Return True when ``text`` may have been cut at the parser's cap."""
    return len(text.encode("utf-8", "surrogatepass")) >= TEXT_SCAN_LIMIT


def expansion_in(cmd: SimpleCommand) -> str | None:
    """Return why ``cmd`` may expand a glob or brace into other words, or None."""
    found = unquoted_expansion(cmd.text)
    if found:
        return f"unquoted '{found}' expands to other words at run time"
    if not _long(cmd.text):
        return None
    for word in cmd.argv:
        hit = _GLOB_CHARS.search(word.value)
        if hit:
            return f"'{hit.group(0)[:22]}' may expand (quoting is not visible in a long command)"
    return None


def _env_ok(name: str, value: Word) -> bool:
    if name not in _ENV_ALLOWED or not value.literal:
        return False
    allowed = _ENV_ALLOWED[name]
    if allowed is None:
        return _LOCALE_VALUE.fullmatch(value.value) is not None
    return value.value in allowed


def _redirect(r: Redirect) -> Check:
    target = r.target
    shown = f"{r.fd if r.fd is not None else ''}{r.op}"
    if r.op in _DATA_OPS:
        # Heredoc bodies and here-strings are data for a reader; a shell reading them is
        # parsed (and judged) as commands by tether.shell.
        return read("RO001", f"{shown} feeds data to the command")
    if target is None or not target.literal:
        return write("RW008", f"redirect '{shown}' has a target that expands at run time")
    if target.value.startswith(_NETWORK_FILES):
        return write("RW008", f"redirect '{shown}' to '{target.value[:60]}' opens a connection")
    if r.op in _DUP_OPS and (target.value.isdigit() or target.value == "-"):
        return read("RO001", f"{shown}{target.value} only duplicates a descriptor")
    if r.op in _WRITE_OPS and target.value in _NULL_TARGETS:
        return read("RO001", f"{shown}{target.value} discards output")
    if r.op == "<":
        return read("RO001", f"<{target.value[:40]} reads a file")
    return write("RW008", f"redirect '{shown}' to '{target.value[:60]}' writes a file")


def _wrapper(w: Wrapper) -> Check | None:
    """Return a write Check when the wrapper itself is not read-only, else None."""
    if w.name in _PRIVILEGE:
        return write("RW010", f"{w.name}: runs the command with raised privileges")
    spec = WRAPPERS.get(w.name)
    grammar = spec.grammar if spec is not None else SHELLS.get(w.name)
    if grammar is not None:
        parsed = parse(grammar, w.args)
        if parsed.error:
            return write(UNKNOWN_OPTION, f"{parsed.error}: not known to be safe")
    else:
        parsed = None
    if w.name in _SHELLS and parsed is not None:
        return _shell_start(w.name, parsed)
    if w.name == "xargs" and parsed is not None and parsed.has("--process-slot-var"):
        return write(
            "RW009", "xargs --process-slot-var: sets a variable in the command's environment"
        )
    if w.name in _PASSIVE_WRAPPERS or w.name == "xargs":
        return None
    if w.name == "time" and parsed is not None:
        if parsed.has("--output", "--append"):
            return write("RW008", "time -o: writes its report to a file")
        return None
    if w.name == "env" and parsed is not None:
        if parsed.has("--split-string"):
            return write(UNKNOWN_OPTION, "env -S: splits its string by rules of its own")
        for a in w.args[parsed.stop :]:
            name, eq, value = a.value.partition("=")
            if eq and not _env_ok(name, Word(value, a.literal)):
                return write("RW009", f"env {name}=…: changes what the command runs")
        return None
    return write("RW011", f"{w.name}: this wrapper is not proven read-only")


# Shell options that read start-up files or make later words environment: an interactive or
# login shell reads ~/.bashrc, ~/.profile, $ENV; --rcfile/--init-file name the file; -k (-o
# keyword) turns every NAME=value word into the command's environment; the debugger loads a
# script.
_SHELL_STARTS = {
    "-i": "runs as an interactive shell, which reads ~/.bashrc or $ENV first",
    "-l": "runs as a login shell, which reads ~/.profile and others first",
    "--login": "runs as a login shell, which reads ~/.profile and others first",
    "--rcfile": "reads and runs a start-up file first",
    "--init-file": "reads and runs a start-up file first",
    "-k": "makes NAME=value words anywhere the command's environment",
    "--debugger": "loads the debugger's start-up script",
}
_SHELL_SET_OPTIONS = frozenset({"keyword", "interactive", "login", "rcs", "globalrcs"})


def _shell_start(name: str, parsed: Parsed) -> Check | None:
    """Return why a shell's own options make it run more than its command (None: they don't)."""
    for option, why in _SHELL_STARTS.items():
        if parsed.has(option):
            return write("RW009", f"{name} {option}: {why}")
    for value in parsed.values("-o") + parsed.values("-O"):
        if value.lower().replace("_", "") in _SHELL_SET_OPTIONS or value == "extdebug":
            return write("RW009", f"{name} -o {value}: reads start-up files or environment words")
    if name == "zsh" and not parsed.has("-f", "--no-rcs"):
        return write("RW009", "zsh reads ~/.zshenv (and $ZDOTDIR's) before any command: zsh -f")
    return None


def _evaluated_operand(name: str, text: str) -> str | None:
    """Return an operand of test command ``text`` that the shell evaluates as arithmetic."""
    if "$" in text:
        found = _DOLLAR.search(text)  # `[[ ${a[i]} ]]` evaluates i, `${x@P}` runs $(…) in x
        if found is not None:
            return text[found.start() : found.start() + 24].split()[0]
    if "-v" in text or "-R" in text:
        for found in _VARIABLE_TEST.finditer(text):
            if _VARIABLE_NAME.fullmatch(found.group(1)) is None:
                return found.group(1)
    if name == "[[" and "-" in text:
        for found in _ARITHMETIC_TEST.finditer(text):
            for operand in found.groups():
                if _NUMBER.fullmatch(operand) is None:
                    return operand
    return None


def _command(cmd: SimpleCommand, functions: tuple[str, ...] = ()) -> list[Check]:
    """Return the checks of one simple command (all read-only, or ending in the failure)."""
    checks: list[Check] = []
    for a in cmd.assignments:
        # `IFS=… read` sets IFS for that read only (read is a regular builtin, not a special
        # one, so the prefix assignment does not persist in bash, zsh, ksh or dash).
        if cmd.argv and a.name == "IFS" and cmd.name == "read" and a.value.literal:
            checks.append(read("RO003", "IFS=… only splits the line read"))
        elif cmd.argv and _env_ok(a.name, a.value):
            checks.append(read("RO003", f"{a.name}={a.value.value[:20]} only changes formatting"))
        else:
            return [write("RW009", f"{a.name}=…: an assignment can change what later commands run")]
    for w in cmd.wrappers:
        bad = _wrapper(w)
        if bad:
            return [bad]
        checks.append(read("RO002", f"{w.name} runs the command unchanged"))
    for r in cmd.redirects:
        c = _redirect(r)
        if not c.read_only:
            return [c]
        checks.append(c)
    if not cmd.argv:
        if cmd.assignments or cmd.redirects:
            return checks or [write("RW003", "no command")]
        return [write("RW003", "empty command")]
    head = cmd.argv[0]
    if not head.literal:
        return [write("RW005", f"the command word '{head.value[:40]}' expands at run time")]
    name = cmd.name
    if name in functions:
        return [write("RW015", f"{name}: calls a function defined here, which may recurse")]
    if "/" in name:
        return [write("RW006", f"'{name[:60]}' is not a system executable")]
    if name in _TESTS:
        if _long(cmd.text):
            return [write("RW027", f"{name}: too long to read every operand it evaluates")]
        found = _evaluated_operand(name, cmd.text)
        if found is not None:
            return [write("RW027", f"{name}: '{found[:40]}' is evaluated as arithmetic")]
    entry = CATALOGUE.get(name)
    if entry is None:
        if name in _PRIVILEGE:
            return [write("RW010", f"{name}: runs with raised privileges")]
        if name in _UNSAFE_WRAPPERS:
            return [write("RW011", f"{name}: replaces the shell or creates files")]
        if name in _SHELL_ESCAPES:
            return [write("RW012", f"{name}: can spawn a shell or write files")]
        if name in _INTERPRETERS:
            return [write("RW013", f"{name}: runs code whose effects cannot be proven")]
        return [write("RW007", f"{name[:60]}: not in the read-only catalogue")]
    if cmd.wrappers and not entry.pure and any(w.name == "xargs" for w in cmd.wrappers):
        return [write("RW025", f"xargs {name}: appends operands that may be options of {name}")]
    if entry.pure:
        for arg in cmd.args:
            if not arg.literal and _DOLLAR.search(arg.value):
                return [
                    write("RW025", f"{name}: '{arg.value[:40]}' is an expansion that can run code")
                ]
    result = entry.check(name, cmd.args)
    if result.read_only and not entry.pure:
        found = expansion_in(cmd)
        if found:
            result = write("RW025", f"{name}: {found}")
    checks.append(result)
    return checks


def _shown(cmd: SimpleCommand) -> str:
    return quote(cmd.text or " ".join(w.value for w in cmd.argv), 60)


def assess_model(model: CommandModel, tree: Tree | None = None) -> ReadVerdict:
    """Return whether every command in ``model`` is provably read-only (given the working
    tree ``tree`` the command runs in, when a command's effect depends on it)."""
    verdict = _assess_git_tree(model, _assess_model(model), tree)
    if not verdict.read_only or not any(
        s in model.source for s in ("python", "pypy", "pip", "rustup")
    ):
        return verdict
    return _assess_other_trees(model, verdict, tree)


# Python options that keep the working directory off sys.path (-I isolates, -P: 3.11+).
_SAFE_PATH = frozenset({"-I", "-P"})


def _tree_readers(model: CommandModel) -> list[tuple[str, str, list[str]]]:
    """Return what of the tree each command would obey: ("python", MOD, places) for
    ``python -m MOD`` without -I/-P, ("pip", "", places) for pip without --isolated (the
    user's pip.conf), ("rustup", "", places) for rustup; ``places`` are the
    directories it may run in (the working directory and each ``cd`` before it)."""
    found: list[tuple[str, str, list[str]]] = []
    places = ["."]
    for cmd in model.commands:
        name = cmd.name
        words = [w.value for w in cmd.args]
        if name.startswith(("python", "pypy")):
            flags = words[: words.index("-m")] if "-m" in words else []
            module = words[words.index("-m") + 1 : words.index("-m") + 2] if "-m" in words else []
            if "-m" in words and not _SAFE_PATH & set(flags):
                found.append(("python", (module or [""])[0].split(".")[0], list(places)))
            if module == ["pip"] and "--isolated" not in words:
                found.append(("pip", "", list(places)))
        elif name in ("pip", "pip3") and "--isolated" not in words:
            found.append(("pip", "", list(places)))
        elif name == "rustup":
            found.append(("rustup", "", list(places)))
        elif name in ("cd", "pushd") and cmd.args:
            target = [w for w in words if not w.startswith("-")][:1]
            if target:
                step = target[0]
                places.append(step if step[:1] in ("/", "~") else os.path.join(places[-1], step))
    return found


def _assess_other_trees(
    model: CommandModel, verdict: ReadVerdict, tree: Tree | None
) -> ReadVerdict:
    readers = _tree_readers(model)
    if tree is None:
        # The user's pip.conf is home configuration, trusted like ~/.gitconfig when no tree
        # is given; given one, a setting in it that writes or runs is found (RW020).
        readers = [r for r in readers if r[0] != "pip"]
    if not readers:
        return verdict
    what = {
        "python": "python -m imports the module from the directory it runs in first",
        "rustup": "rustup runs the rustc of the toolchain a rust-toolchain.toml there names",
        "pip": "pip obeys the user's pip.conf, where log = FILE or python = … write or run",
    }
    if tree is None:
        kinds = "; ".join(what[k] for k in dict.fromkeys(k for k, _, _ in readers))
        return ReadVerdict(
            False,
            ("RW029",),
            f"proven read-only but for the working tree: {kinds}; the review was not given "
            "the working tree to check",
        )
    checked: list[str] = list(verdict.checked)
    for kind, module, places in readers:
        if kind == "python":
            proof: TreeProof = python_module(tree, places, module)
        elif kind == "pip":
            proof = pip_config(tree)
        else:
            proof = rust_toolchain(tree, places)
        checked += proof.checked
        if proof.planted is not None:
            return ReadVerdict(
                False,
                ("RW020",),
                f"the working tree holds {proof.planted}: {what[kind]}",
                tuple(dict.fromkeys(checked)),
            )
    shown = ", ".join(
        sorted(
            {m for k, m, _ in readers if k == "python"}
            | {"rust-toolchain" for k, _, _ in readers if k == "rustup"}
            | {"pip.conf log/python setting" for k, _, _ in readers if k == "pip"}
        )
    )
    return verdict._replace(
        reason=f"{verdict.reason}; the working tree plants no {shown}",
        checked=tuple(dict.fromkeys(checked)),
    )


def _assess_git_tree(model: CommandModel, verdict: ReadVerdict, tree: Tree | None) -> ReadVerdict:
    """The git part of ``assess_model``: repositories git would find from -C/cd/--git-dir."""
    source = model.source
    if not verdict.read_only or "git" not in source:
        return verdict
    if not any(s in source for s in ("-C", "cd", "pushd", "--git-dir")):
        return verdict  # git in the working directory itself
    directories = _git_directories(model)
    if not directories:
        return verdict
    shown = ", ".join(directories)[:120]
    if tree is None:
        return ReadVerdict(
            False,
            ("RW029",),
            f"proven read-only but for the working tree: git reads the repository at {shown}, "
            "whose config can name programs git runs (fsmonitor, pager, textconv); the "
            "review was not given the working tree to check",
        )
    proof = git_directories(tree, directories)
    if proof.planted is not None:
        return ReadVerdict(
            False,
            ("RW020",),
            f"git would read the repository at {proof.planted}, which the working tree holds: "
            "its config can name programs git runs",
            proof.checked,
        )
    return verdict._replace(
        reason=f"{verdict.reason}; no repository planted at {shown}", checked=proof.checked
    )


def _git_directories(model: CommandModel) -> list[str]:
    """Return the directories git starts from other than the working directory: ``-C DIR``
    (joined), ``--git-dir``, and each directory a ``cd``/``pushd`` before it moved to.

    Every place the line may stand in when git runs counts (``(cd a); git -C b`` checks b and
    a/b): a subshell or a failed ``cd`` leaves an earlier one."""
    found: list[str] = []
    places = ["."]
    for cmd in model.commands:
        if cmd.name == "git":
            top = parse(GIT, cmd.args, stop_at=1)
            hops = top.values("-C")
            if any(h[:1] == "~" for h in hops):
                hops = hops[max(i for i, h in enumerate(hops) if h[:1] == "~") :]
                found.append(os.path.join(*hops))
            for place in places:
                found.append(os.path.join(place, *hops))
                found += [os.path.join(place, d) for d in top.values("--git-dir")]
        elif cmd.name in ("cd", "pushd") and cmd.args:
            target = [w.value for w in cmd.args if not w.value.startswith("-")][:1]
            if target:
                step = target[0]
                places.append(step if step[:1] in ("/", "~") else os.path.join(places[-1], step))
    # The working directory itself (``-C .``) is the one the host runs in: nothing to find.
    unique = dict.fromkeys(os.path.normpath(d) for d in found)
    return [d for d in unique if d != "."]


def _assess_model(model: CommandModel) -> ReadVerdict:
    if "\x00" in model.source:
        return ReadVerdict(False, ("RW014",), "the command contains a NUL byte")
    if model.unprovable:
        return ReadVerdict(False, ("RW002",), f"not analysed: {model.unprovable}")
    if model.errors:
        return ReadVerdict(False, ("RW001",), f"does not parse cleanly: {model.errors[0]}")
    if not model.commands:
        return ReadVerdict(False, ("RW003",), "empty command: nothing to prove")
    if model.substitutions and "`" in model.source:
        # `$(…)` and `<(…)` are proven by their inner commands, which the parser lists in
        # ``model.commands``; inside backticks a backslash-escaped backtick opens a nested
        # substitution that tree-sitter-bash reads as a literal character.
        return ReadVerdict(
            False, ("RW004",), "a backtick substitution: spell it $(…) to have it proven"
        )
    source = model.source
    if "for" in source or "select" in source:
        for found in _LOOP_VAR.finditer(source):
            var = found.group(1)
            if not _SAFE_VAR.fullmatch(var) or var.endswith("proxy") or var in _ZSH_TIED:
                return ReadVerdict(
                    False, ("RW009",), f"the loop assigns {var}, which can change what runs"
                )
    if "((" in source and _ARITHMETIC.search(source):
        return ReadVerdict(False, ("RW009",), "an arithmetic command (( … )) assigns variables")
    # Dicts keep first-seen order with O(1) membership: inputs hold up to 50,000 commands.
    codes: dict[str, None] = {}
    reasons: dict[str, None] = {}
    fail_codes: dict[str, None] = {}
    first_failure = ""
    failures = 0
    effects: set[str] | None = None  # the effects every failing part is limited to
    for cmd in model.commands:
        checks = _command(cmd, model.functions)
        last = checks[-1]
        if not last.read_only:
            effects = set(last.effects) if effects is None else effects & set(last.effects)
            fail_codes[last.code] = None
            if not failures:
                first_failure = f"{_shown(cmd)}: {clip(last.reason, 240)} ({last.code})"
            failures += 1
            continue
        for c in checks:
            codes[c.code] = None
            if len(reasons) < _MAX_REASONS:
                reasons[c.reason] = None
    if failures:
        more = f" (and {failures - 1} more)" if failures > 1 else ""
        limited = tuple(sorted(effects)) if effects else ()
        return ReadVerdict(False, tuple(fail_codes), first_failure + more, effects=limited)
    return ReadVerdict(True, tuple(codes), "read-only: " + "; ".join(reasons))
