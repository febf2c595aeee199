"""DG605: shell commands that delete, move, overwrite or lock Tether's guard files.

Which paths count is :func:`tether.rules.protected.protected` (host hook settings, Tether's
config, state, cache and installed package); this module says which argument of which program
a write lands on: redirects, ``tee``, ``cp``/``mv``/``ln``/``install``/``rsync`` (the
destination, what each source becomes inside it, and anything under it when a directory's
contents are copied), ``tar x``/``unzip`` (``-C``/``-d`` and the members named), ``rm``,
``chmod``, ``truncate``, in-place editors, downloads (``curl -o``, ``wget -O``), ``git
checkout``/``restore`` (also under ``git -C DIR``), ``find -delete``, ``sqlite3`` on the state
database, ``apply_patch`` and interpreter one-liners that open such a file for writing. Reads
(``cat``, ``grep``, ``cp`` *from* it) stay allowed. After a ``cd`` to a place the input does not
name (``cd "$X"``, ``cd $(…)``), a relative path counts when a guard file could bear its name.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator

from tether.rules.danger._base import (
    AWK_WRITERS,
    Hit,
    Scope,
    edited_in_place,
    name_of,
    options_of,
)
from tether.rules.danger.archives import EXTRACTORS, extraction
from tether.rules.danger.paths import resolve
from tether.rules.file_tools import patch_files
from tether.rules.protected import (
    glob_may_name,
    may_name_guard_file,
    protected,
    relocated,
    somewhere,
)
from tether.shell.model import SimpleCommand, Word
from tether.shell.options import Parsed, parse
from tether.shell.programs import WRAPPERS
from tether.shell.tools import (
    FIND_EXEC,
    GIT,
    GIT_SUBCOMMANDS,
    OUTPUTS,
    single_dash,
)
from tether.shell.words import unwrap

CODE = "DG605"
WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})

_REMOVERS = frozenset({"rm", "unlink", "rmdir", "shred", "srm", "trash", "trash-put", "gio"})
_OWNERSHIP = frozenset({"chmod", "chown", "chgrp", "chattr", "setfacl", "chflags", "xattr"})
_COPIERS = frozenset({"cp", "install", "ln", "rsync", "link"})
_EDITORS = frozenset(
    {"vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "pico", "micro", "kak", "hx", "sponge",
     "patch", "sd", "truncate"}
)  # fmt: skip
_IN_PLACE = frozenset({"sed", "gsed", "perl", "ruby", "yq", *AWK_WRITERS})
# Programs that write their result to a file an option or operand names (``sort -o F``,
# ``uniq IN OUT``, ``xxd -r IN OUT``, ``openssl … -out F``, ``iconv -o F``): tools.OUTPUTS.
_WRITERS = frozenset(name for name in OUTPUTS if " " not in name) | {"qemu-img"}
NAMES = frozenset(
    {*_REMOVERS, *_OWNERSHIP, *_COPIERS, *_EDITORS, *_IN_PLACE, *EXTRACTORS, *_WRITERS, "mv",
     "tee", "dd", "curl", "wget", "git", "find", "sqlite3", "apply_patch"}
)  # fmt: skip
# Where a directory's unknown contents may put a guard file, relative to the directory.
_PROBES = (
    ".claude/settings.json", ".gemini/settings.json", ".codex/config.toml", ".tether.yaml",
    ".config/tether/config.yaml", ".local/state/tether/state.db",
)  # fmt: skip


def _what(word: Word, cmd: SimpleCommand, scope: Scope, *, tree: bool = False) -> str | None:
    value = word.value
    if not word.literal and not value.startswith(("$", "~")):
        return None
    path = resolve(word, cmd, scope)
    if path is None:
        path = value  # `$XDG_STATE_HOME/tether/…`: protected() knows these spellings
    if not path.startswith(("/", "~", "$")):
        cwd = _chdir(cmd)
        cwd = scope.cwd(cmd) if cwd == "" else cwd
        if cwd is None:  # moved somewhere the input does not say: any guard file may be here
            return protected(path, tree=tree) or somewhere(path, tree=tree)
        if cwd != ".":
            path = f"{cwd}/{path}"
    return protected(path, tree=tree)


def _chdir(cmd: SimpleCommand) -> str | None:
    """Return the directory a wrapper runs ``cmd`` in (``env -C DIR``, ``sudo -D DIR``).

    "" when no wrapper moves it, None when one moves it somewhere only known at run time.
    """
    found: str | None = ""
    for wrapper in cmd.wrappers:
        if wrapper.name not in ("env", "sudo"):
            continue
        parsed = parse(WRAPPERS[wrapper.name].grammar, wrapper.args)
        for value in parsed.values("--chdir"):
            literal = "--chdir" not in parsed.dynamic or value.startswith("~")
            found = value.rstrip("/") or "/" if literal else None
    return found


def _first(
    words: Iterable[Word], cmd: SimpleCommand, scope: Scope, *, tree: bool = False
) -> tuple[str, str] | None:
    for w in words:
        what = _what(w, cmd, scope, tree=tree)
        if what is None and "{" in w.value:  # `mv ~/.claude{,.bak}`: each word bash makes
            what = next(
                (
                    f
                    for b in _braces(w.value)
                    if (f := _what(Word(b, w.literal), cmd, scope, tree=tree))
                ),
                None,
            )
        if what is not None:
            return w.value, what
    return None


_BRACE = re.compile(r"\{([^{}]*,[^{}]*)\}")
_MAX_BRACES = 32


def _braces(value: str) -> list[str]:
    """Return the words a brace expansion makes (``a{b,c}`` -> ``ab``, ``ac``), capped."""
    found: list[str] = []
    todo = [value]
    while todo and len(found) < _MAX_BRACES:
        word = todo.pop()
        m = _BRACE.search(word)
        if m is None:
            found.append(word)
            continue
        todo += [word[: m.start()] + alt + word[m.end() :] for alt in m.group(1).split(",")]
    return found


def _hit(verb: str, found: tuple[str, str] | None) -> Iterator[Hit]:
    if found is not None:
        yield Hit(CODE, f"{verb} {found[0]} ({found[1]})")


def _unlikely(
    words: Iterable[Word], cmd: SimpleCommand, scope: Scope, *, tree: bool = False
) -> bool:
    """Return True when none of ``words`` can name a guard file (the cheap common case).

    With ``tree``, a directory holding guard files counts too; those are spelled from ``/``,
    ``~`` or ``$`` (``~/.config``, ``$XDG_CONFIG_HOME``), or carry a marker (``.claude``).
    """
    text = " " + " ".join([w.value for w in words])
    if may_name_guard_file(text) or (tree and (" /" in text or " ~" in text or " $" in text)):
        return False
    # A lone command runs where it was started; otherwise an earlier `cd` may have moved it,
    # and `env -C DIR` or `sudo -D DIR` moves it itself.
    here = len(scope.model.commands) == 1 or scope.cwd(cmd) == "."
    return here and (not cmd.wrappers or _chdir(cmd) == "")


# The checks return plain tuples, not generators, on their fast paths: they run on most commands.
def check_redirect(cmd: SimpleCommand, scope: Scope) -> Iterable[Hit]:
    """Flag ``>``, ``>>``, ``:>`` and friends onto a guard file."""
    targets = [r.target for r in cmd.redirects if r.op in WRITE_OPS and r.target is not None]
    if not targets:
        return ()
    # The targets first (protected() looks for a marker in each resolved path before anything
    # else), then the input-wide gate, which reads the whole input, a heredoc's body too. So
    # `cd /repo && cat > x.py <<EOF …` costs a look at /repo/x.py. (Not in the gated set.)
    found = _first(targets, cmd, scope)
    if found is None or not concerns(scope):
        return ()
    return tuple(_hit("redirect into", found))


_TREE_OPS = _REMOVERS | _OWNERSHIP | {"mv"}


def check_file_change(cmd: SimpleCommand, scope: Scope) -> Iterable[Hit]:
    """Flag deletes, moves, copies onto, permission changes and edits of guard files."""
    name = name_of(cmd)
    args = cmd.args
    if name == "find":  # `find . -name settings.json -delete` names no directory of ours
        return tuple(_find(cmd, scope))
    if not concerns(scope) and not _spelled_from_root(args):
        return ()  # names no guard file, no directory that could hold one, no `.t*` glob
    special = _SPECIAL.get(name)
    if special is not None:
        return special(cmd, scope)
    if _unlikely(args, cmd, scope, tree=name in _TREE_OPS or name in _COPIERS):
        return ()
    return _file_change(cmd, scope, name)


def _spelled_from_root(args: Iterable[Word]) -> bool:
    """Return True when an operand starts at ``/``, ``~`` or ``$``, or globs dot files."""
    text = " " + " ".join([w.value for w in args])
    return (
        " /" in text
        or " ~" in text
        or " $" in text
        or (("*" in text or "?" in text or "[" in text) and _dot_glob(text))
    )


def _file_change(cmd: SimpleCommand, scope: Scope, name: str) -> Iterator[Hit]:
    args = cmd.args
    parsed = options_of(name, args)  # the program's own grammar: values are not operands
    operands = list(parsed.operands)
    recursive = parsed.has("--recursive", "-r", "-R")
    if name in _REMOVERS or name == "mv":
        tree = name == "mv" or name == "rmdir" or recursive
        found = _first(operands, cmd, scope, tree=tree)
        if found is None and name == "mv":
            found = _landing(name, parsed, cmd, scope)
        yield from _hit(name, found)
    elif name in _OWNERSHIP:
        yield from _hit(name, _first(operands, cmd, scope, tree=recursive))
    elif name in _COPIERS:
        yield from _hit(f"{name} onto", _landing(name, parsed, cmd, scope))
    elif name == "tee" or name in _EDITORS:
        yield from _hit(name, _first(operands, cmd, scope))
    elif name in _IN_PLACE and (edited := _in_place(name, args, scope)):
        yield from _hit(f"{name} -i on", _first(list(edited), cmd, scope))
    elif name in _WRITERS:
        from tether.rules.danger.devices import output_targets  # devices reads guard paths too

        yield from _hit(f"{name} writes", _first(output_targets(name, cmd), cmd, scope))


def _landing(name: str, parsed: Parsed, cmd: SimpleCommand, scope: Scope) -> tuple[str, str] | None:
    """Return the first guard path a copy or move lands on: the destination, what a source
    becomes inside it, or (when a directory's contents go there) anything under it."""
    operands = list(parsed.operands)
    target = parsed.values("--target-directory", "-t")
    if target:
        dest, sources = Word(target[0]), operands
    elif len(operands) >= 2:
        dest, sources = operands[-1], operands[:-1]
    else:
        return None
    found = _first([dest], cmd, scope)
    if found is not None:
        return found
    recursive = name == "mv" or parsed.has("--recursive", "-r", "-R", "--archive", "-a")
    contents = False
    landings = []
    for src in sources:
        value = src.value.rstrip("/") if name != "rsync" else src.value
        if value.endswith(("/.", "/*")) or (name == "rsync" and value.endswith("/")) or not value:
            contents = recursive
        base = value.rpartition("/")[2]
        # A copy of the live guard (`cp -r ~/.claude ~/backup`) installs nothing new; a copy of
        # some other `.claude` (`cp -r backup/.claude ~/`) may install a new one.
        own = _live(value) and _what(src, cmd, scope, tree=True) is not None
        if base not in ("", ".", "..") and not own:
            landings.append(Word(f"{dest.value.rstrip('/')}/{base}", dest.literal and src.literal))
    # A whole directory arriving as `.claude` matters where hosts look: the workspace or a home.
    found = _first(landings, cmd, scope, tree=recursive and _hosts_read(dest.value))
    if found is not None or not (recursive or name in ("ln", "link")):
        return found
    # `ln -s /tmp/evil .claude`: where no .claude exists yet, the link becomes it.
    return _under(dest, cmd, scope, contents=contents)


_HOMES = ("~", "$HOME", "${HOME}", "/home/", "/root", "/Users/")
_HOME_ROOTS = re.compile(r"(?:~|\$HOME|\$\{HOME\}|/root|/home/[^/]+|/Users/[^/]+|\.|)")


def _live(path: str) -> bool:
    """Return True for a guard directory hosts read now: one right in a home or the workspace."""
    parent = path.rstrip("/").rpartition("/")[0] if "/" in path.rstrip("/") else ""
    return _HOME_ROOTS.fullmatch(parent) is not None


def _hosts_read(path: str) -> bool:
    """Return True for a path where hosts read settings: the workspace (relative) or a home."""
    return not path.startswith(("/", "$")) or path.startswith(_HOMES)


def _under(
    dest: Word, cmd: SimpleCommand, scope: Scope, *, contents: bool
) -> tuple[str, str] | None:
    """Return a guard path under directory ``dest`` that unknown files written there may hit.

    A host's directory (``.claude/``) always counts: when it does not exist yet, ``cp -r x
    .claude`` makes it. Any other directory counts when a directory's contents go into it
    (``rsync -a x/ ~/``, ``tar -x -C ~``): a ``.claude/settings.json`` may be among them.
    """
    leaf = dest.value.rstrip("/").rpartition("/")[2].lower()
    if leaf in (".claude", ".gemini", ".codex"):
        return _first([dest], cmd, scope, tree=True)
    # Unknown contents matter only where hosts read settings: `rsync -a x/ /srv/app/` may bring a
    # `.claude/` along, but no host reads it unless the agent works there (then it is relative).
    if not contents or not _hosts_read(dest.value):
        return None
    base = dest.value.rstrip("/") or "/"
    probes = [Word(f"{base}/{probe}", dest.literal) for probe in _PROBES]
    return _first([dest, *probes], cmd, scope, tree=True)


# unzip modes that write no file: list, test, to stdout, comment, zipinfo, stamp the archive.
def _extract(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag ``tar x`` and ``unzip`` writing into a guard directory or naming a guard member."""
    found = extraction(name_of(cmd), cmd.args)
    if found is None:
        return
    dirs, members = found
    hit = None
    for d in dirs:
        dest = Word(d)
        hit = hit or _first([dest], cmd, scope) or _under(dest, cmd, scope, contents=True)
    for base in [d.rstrip("/") for d in dirs] or [""]:
        if hit is None:
            joined = [Word(f"{base}/{m.value}" if base else m.value, m.literal) for m in members]
            hit = _first(joined, cmd, scope, tree=True)
    yield from _hit(f"{name_of(cmd)} extracts into", hit)


def _in_place(name: str, args: tuple[Word, ...], scope: Scope) -> tuple[Word, ...]:
    """Return the files an in-place editor changes (none when it only prints)."""
    if name == "yq":
        parsed = scope.options("yq", args)
        return parsed.operands if parsed.has("--in-place") else ()
    return edited_in_place("sed" if name == "gsed" else name, args, scope)


def _git(cmd: SimpleCommand, scope: Scope) -> Iterable[Hit]:
    top = parse(GIT, cmd.args, stop_at=1)  # git's own options: -C DIR, -c k=v, --git-dir …
    if not top.operands:
        return ()
    verb = top.operands[0].value
    if verb == "config":  # `git config -f FILE k v` writes FILE (a guard file's own syntax)
        return tuple(_hit("git config -f", _first(_config_files(top.operands[1:]), cmd, scope)))
    if verb not in ("checkout", "restore", "rm", "mv"):
        return ()
    words = list(parse(GIT_SUBCOMMANDS[verb], top.operands[1:]).operands)
    where = top.values("-C")
    if where:  # `git -C ~/.claude checkout -- settings.json`: paths are under that directory
        base = "/".join(v.rstrip("/") for v in where)
        words = [Word(f"{base}/{w.value}", w.literal) for w in words]
        words.append(Word(base))
    return tuple(_hit(f"git {verb}", _first(words, cmd, scope, tree=True)))


def _config_files(args: Iterable[Word]) -> list[Word]:
    """The files ``git config`` names with ``-f FILE``, ``-fFILE``, ``--file FILE|=FILE``."""
    found: list[Word] = []
    words = list(args)
    for i, w in enumerate(words):
        v = w.value
        if v == "--":
            break
        if v in ("-f", "--file") and i + 1 < len(words):
            found.append(words[i + 1])
        elif v.startswith("--file="):
            found.append(Word(v[7:], w.literal))
        elif v.startswith("-f") and len(v) > 2 and not v.startswith("--"):
            found.append(Word(v[2:], w.literal))
    return found


def _curl(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    parsed = options_of("curl", cmd.args)
    base = parsed.values("--output-dir")
    outputs = [Word(v, "--output" not in parsed.dynamic) for v in parsed.values("--output")]
    if parsed.has("--remote-name", "--remote-name-all"):
        # saved under the URL's last segment, in the working directory (or --output-dir)
        outputs += [
            Word(w.value.rstrip("/").rpartition("/")[2].split("?")[0])
            for w in parsed.operands
            if "://" in w.value
        ]
    if base:
        outputs = [Word(f"{base[-1].rstrip('/')}/{w.value}") for w in outputs]
    yield from _hit("curl writes", _first(outputs, cmd, scope))


def _wget(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    parsed = options_of("wget", cmd.args)
    outputs = [
        Word(v, o not in parsed.dynamic)
        for o, v in parsed.options
        if o in ("--output-document", "--directory-prefix") and v is not None
    ]
    yield from _hit("wget writes", _first(outputs, cmd, scope))


def _find(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    starts, primaries = scope.find(cmd.args)
    if not any(p == "-delete" or p in FIND_EXEC for p, _ in primaries):
        return
    found = _first(starts, cmd, scope, tree=True)
    if found is None:
        names = [w for p, taken in primaries if p in ("-name", "-iname") for w in taken]
        found = next(((w.value, what) for w in names if (what := protected(w.value))), None)
        # `find . -name settings.json -delete` walks into .claude/ (find sees dot dirs).
        if (
            found is None
            and _find_changes(primaries, scope)
            and all(_hosts_read(w.value) for w in starts)
        ):
            found = next(((w.value, what) for w in names if (what := somewhere(w.value))), None)
    yield from _hit("find deletes or runs on", found)


_FIND_CHANGERS = _REMOVERS | _OWNERSHIP | _EDITORS | {"mv", "tee", "cp"}


def _find_changes(primaries: tuple[tuple[str, tuple[Word, ...]], ...], scope: Scope) -> bool:
    """Return True when a find deletes, or runs a program that changes the files it finds."""
    for primary, taken in primaries:
        if primary == "-delete":
            return True
        if primary in FIND_EXEC and taken:
            inner = unwrap(taken).argv or taken  # `-exec sudo rm {} +`, `-exec busybox rm …`
            program = name_of(SimpleCommand(inner))
            if program in _FIND_CHANGERS or (
                program in _IN_PLACE and _in_place(program, inner[1:], scope)
            ):
                return True
    return False


def _sqlite3(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    parsed = single_dash("sqlite3", cmd.args)
    if parsed.has("--readonly"):
        return
    operands = parsed.operands
    found = _first(operands[:1], cmd, scope)
    sql = operands[1].value.strip().lower() if len(operands) > 1 else ""
    if found is not None and not (_read_sql(sql) and len(operands) == 2):
        yield from _hit("sqlite3 opens for writing", found)


@functools.cache
def _read_statement() -> re.Pattern[str]:
    return re.compile(r"^(?:select|explain|\.tables|\.schema|\.dump|pragma\s+\w+\s*;?$)[^;]*;?$")


def _read_sql(sql: str) -> bool:
    return bool(sql) and _read_statement().match(sql) is not None


def _dd(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    operands = options_of("dd", cmd.args).operands  # dd's operands are key=value words
    outs = [Word(w.value[3:], w.literal) for w in operands if w.value.startswith("of=")]
    yield from _hit("dd writes", _first(outs, cmd, scope))


def _apply_patch(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    texts = [r.body for r in cmd.redirects if r.body]
    texts += [r.target.value for r in cmd.redirects if r.op == "<<<" and r.target is not None]
    texts += [w.value for w in cmd.args]
    files = [Word(f) for text in texts for f in patch_files(text)]
    yield from _hit("apply_patch changes", _first(files, cmd, scope))


_SPECIAL: dict[str, Callable[[SimpleCommand, Scope], Iterable[Hit]]] = {
    **dict.fromkeys(EXTRACTORS, _extract),
    "git": _git,
    "curl": _curl,
    "wget": _wget,
    "find": _find,
    "sqlite3": _sqlite3,
    "dd": _dd,
    "apply_patch": _apply_patch,
}


# --- interpreter one-liners ------------------------------------------------------------------


@functools.cache
def _literal() -> re.Pattern[str]:
    return re.compile(r"""'([^'\\\n]{1,4096})'|"([^"\\\n]{1,4096})\"""")


@functools.cache
def _writes() -> re.Pattern[str]:
    # Compiled on first use (only interpreter one-liners need it).
    return re.compile(
        r"open\s*\([^)]{0,400},\s*(?:mode\s*=\s*)?['\"][rb]?[wax+]"
        r"|\.write_(?:text|bytes)\s*\(|\.(?:unlink|rename|chmod|touch|rmdir)\s*\("
        r"|\bos\.(?:remove|unlink|rename|replace|chmod|chown|truncate|rmdir|removedirs|symlink"
        r"|link|open)\b|\bshutil\.\w+|\brmtree\b|\b(?:json|yaml|toml|pickle)\.dump\b"
        r"|\bsqlite3\.connect\b|(?:write|append|copy|rename|unlink|rm|truncate|chmod|symlink)"
        r"File(?:Sync)?\b|\bfs\.(?:rm|unlink|rename|writeFile|truncate)|\bunlinkSync\b"
        r"|\brmSync\b|\bFile\.(?:write|delete|open|unlink|rename|chmod)|\bIO\.write\b"
        r"|\bFileUtils\b|\bfile_put_contents\b|\bunlink\b|\brename\b|\btruncate\b"
        r"|\bchmod\b|\bflushall\b|\bflushdb\b"
        r"|\.bind\s*\("  # a unix socket bound there: a new file (a daemon posed as)
    )


def code_targets(code: str) -> Iterator[tuple[str, str]]:
    """Yield ``(path, what)`` for guard paths a program text names (literals, or joined)."""
    literals = [a or b for a, b in _literal().findall(code)][:256]
    for i, literal in enumerate(literals):
        if not _has_marker(literal.lower()):
            continue
        # '~/.claude/settings.json', or os.path.join(home, '.claude', 'settings.json')
        for n in (1, 2, 3):
            if i + n > len(literals):
                break
            joined = "/".join(literals[i : i + n])
            what = protected(joined, tree=True)  # shutil.rmtree('.claude') takes it all
            if what is not None:
                yield joined, what
                break


def _has_marker(low: str) -> bool:
    return "tether" in low or "claude" in low or "codex" in low or "gemini" in low or relocated(low)


def check_interpreter_write(cmd: SimpleCommand, scope: Scope, code: str) -> Iterator[Hit]:
    """Flag an inline program that names a guard file and writes, moves or deletes files."""
    if not _has_marker(code.lower()):
        return
    for path, what in code_targets(code):
        if _writes().search(code):
            yield Hit(CODE, f"{name_of(cmd)} code writes {path} ({what})")
        return


CHECKS = {n: check_file_change for n in NAMES}


# --- the gate: most input never mentions Tether, its hosts or its sidecar ---------------------

_GATE = "self_protection.concerns"
# Names whose check still runs on input that names no guard file: `rm -rf ~/.config` and
# `find ~/.local/state -delete` take guard files along without naming them.
# Copies and extractions too: `rsync -a x/ ~/` and `tar -x -C ~` may put one there.
TREE_NAMES = frozenset(
    {"rm", "rmdir", "mv", "chmod", "chown", "chgrp", "chattr", "find", *_COPIERS, *EXTRACTORS}
)


def _evaluated_words(commands: tuple[SimpleCommand, ...]) -> str:
    """The words of the evaluator's reading (``d=cl; cat > ~/.${d}aude/…`` reads
    ``~/.claude/…``): what the gate must see beside the text as typed."""
    words = [
        w.value
        for c in commands
        if c.evaluated
        for w in (*c.argv, *(r.target for r in c.redirects if r.target is not None))
    ]
    return " " + " ".join(words).lower() if words else ""


def concerns(scope: Scope) -> bool:
    """Return True when the input may touch Tether (computed once per parsed input).

    Every self-protection finding needs the input's text to name a guard path or marker
    (``tether``, ``claude``, ``codex``, ``gemini``, a relocated ``$CODEX_HOME``…) or a sidecar
    route, except a delete, move or ``chmod`` of a directory holding guard files
    (``rm -rf ~/.config``) or of a dot-file glob (``rm .t*``): :data:`TREE_NAMES` keep their
    check, which looks for those itself.
    """
    found = scope.cache.get(_GATE)
    if found is None:
        commands = scope.model.commands
        low = scope.model.source.lower()
        text = _unquoted(low, commands) + _evaluated_words(commands)
        # Plain `in` tests: several times faster than one regex here, and this runs on every input.
        found = (
            "tether" in text
            or "claude" in text
            or "codex" in text
            or "gemini" in text
            or "/v1/" in text
            or relocated(low, text)  # a $CODEX_HOME or $TETHER_CONFIG outside the usual places
            or (("?" in text or "*" in text or "[" in text) and glob_may_name(text))
            # A lone command without wrappers runs where it was started.
            or (
                (len(commands) > 1 or (commands != () and commands[0].wrappers != ()))
                and _moves_blind(scope, text)
            )
        )
        scope.cache[_GATE] = found
    return bool(found)


def _unquoted(low: str, commands: tuple[SimpleCommand, ...]) -> str:
    """Return the input's text as its words read once bash removes the quoting (a superset).

    The checks read words, so the gate must too: ``te''ther``, ``"tet"her``, ``te\\ther`` and a
    line continuation all spell ``tether``. ANSI-C quotes (``$'\\x74'ether``) are decoded by the
    parser: their input adds the words themselves.
    """
    escaped = "\\" in low
    if not escaped and "'" not in low and '"' not in low:
        return low  # nothing quoted: the words are the text
    text = low.replace("\\\n", "").replace("\\", "") if escaped else low
    text = text.replace("'", "").replace('"', "")
    if "$'" in low:
        words = [w.value for c in commands for w in _words_of(c)]
        text += "\n" + "\n".join(words).lower()
    return text


def _words_of(cmd: SimpleCommand) -> Iterator[Word]:
    """Yield every word of ``cmd`` a check may read: argv, assignments, redirects, wrappers."""
    yield from cmd.argv
    yield from (a.value for a in cmd.assignments)
    yield from (r.target for r in cmd.redirects if r.target is not None)
    for wrapper in cmd.wrappers:
        yield from wrapper.args


def _moves_blind(scope: Scope, text: str) -> bool:
    """Return True when a command runs after a ``cd`` to a place the input does not name.

    ``text`` is the input's unquoted lower-cased text: only a ``cd``/``pushd`` moves a later
    command (a lone command runs where it was started), and only a wrapper's option
    (``env -C``, ``sudo -D``, in any spelling or cluster) moves a wrapped one.
    """
    commands = scope.model.commands
    return (len(commands) > 1 and ("cd" in text or "pushd" in text) and scope.lost_track()) or (
        # Only env and sudo move a wrapped command; their names are in the text when they run.
        ("env" in text or "sudo" in text)
        and any(_chdir(cmd) is None for cmd in commands if cmd.wrappers)
    )


def _dot_glob(low: str) -> bool:
    """Return True when a word may be a glob for a dot file (``.*``, ``x/.t*``, ``.?ether*``)."""
    return _dot_glob_pattern().search(low) is not None


@functools.cache
def _dot_glob_pattern() -> re.Pattern[str]:
    return re.compile(r"""(?:^|[\s/'"])\.[*?\[t][^\s]*[*?\[]|(?:^|[\s/'"])\.[*?\[]""")
