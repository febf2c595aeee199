"""DG605: shell commands that delete, move, overwrite or lock Tether's guard files.

Which paths count is :func:`tether.rules.protected.protected` (host hook settings, Tether's
config, state, cache and installed package); this module says which argument of which program
a write lands on: redirects, ``tee``, ``cp``/``mv``/``ln``/``install``, ``rm``, ``chmod``,
``truncate``, in-place editors, downloads (``curl -o``, ``wget -O``), ``git checkout --``,
``find -delete``, ``sqlite3`` on the state database, ``apply_patch`` and interpreter one-liners
that open such a file for writing. Reads (``cat``, ``grep``, ``cp`` *from* it) stay allowed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator

from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.rules.danger.paths import resolve
from tether.rules.file_tools import patch_files
from tether.rules.protected import may_name_guard_file, protected, relocated
from tether.shell.model import SimpleCommand, Word

CODE = "DG605"
WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})

_REMOVERS = frozenset({"rm", "unlink", "rmdir", "shred", "srm", "trash", "trash-put", "gio"})
_OWNERSHIP = frozenset({"chmod", "chown", "chgrp", "chattr", "setfacl", "chflags", "xattr"})
_COPIERS = frozenset({"cp", "install", "ln", "rsync", "link"})
_EDITORS = frozenset(
    {"vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "pico", "micro", "kak", "hx", "sponge",
     "patch", "sd", "truncate"}
)  # fmt: skip
_IN_PLACE = frozenset({"sed", "gsed", "perl", "ruby", "yq"})
NAMES = frozenset(
    {*_REMOVERS, *_OWNERSHIP, *_COPIERS, *_EDITORS, *_IN_PLACE, "mv", "tee", "dd", "curl",
     "wget", "git", "find", "sqlite3", "apply_patch"}
)  # fmt: skip


def _what(word: Word, cmd: SimpleCommand, scope: Scope, *, tree: bool = False) -> str | None:
    value = word.value
    if not word.literal and not value.startswith(("$", "~")):
        return None
    path = resolve(word, cmd, scope)
    if path is None:
        path = value  # `$XDG_STATE_HOME/tether/…`: protected() knows these spellings
    if not path.startswith(("/", "~", "$")):
        cwd = scope.cwd(cmd)
        if cwd not in (None, "."):
            path = f"{cwd}/{path}"
    return protected(path, tree=tree)


def _first(
    words: Iterable[Word], cmd: SimpleCommand, scope: Scope, *, tree: bool = False
) -> tuple[str, str] | None:
    for w in words:
        what = _what(w, cmd, scope, tree=tree)
        if what is not None:
            return w.value, what
    return None


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
    # A lone command runs where it was started; otherwise an earlier `cd` may have moved it.
    return len(scope.model.commands) == 1 or scope.cwd(cmd) == "."


# The checks return plain tuples, not generators, on their fast paths: they run on most commands.
def check_redirect(cmd: SimpleCommand, scope: Scope) -> Iterable[Hit]:
    """Flag ``>``, ``>>``, ``:>`` and friends onto a guard file."""
    targets = [r.target for r in cmd.redirects if r.op in WRITE_OPS and r.target is not None]
    if not targets or _unlikely(targets, cmd, scope):
        return ()
    return tuple(_hit("redirect into", _first(targets, cmd, scope)))


_TREE_OPS = _REMOVERS | _OWNERSHIP | {"mv"}


def check_file_change(cmd: SimpleCommand, scope: Scope) -> Iterable[Hit]:
    """Flag deletes, moves, copies onto, permission changes and edits of guard files."""
    name = name_of(cmd)
    args = cmd.args
    if not concerns(scope) and not _spelled_from_root(args):
        return ()  # names no guard file, no directory that could hold one, no `.t*` glob
    special = _SPECIAL.get(name)
    if special is not None:
        return special(cmd, scope)
    if _unlikely(args, cmd, scope, tree=name in _TREE_OPS):
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
        yield from _hit(name, _first(operands, cmd, scope, tree=tree))
    elif name in _OWNERSHIP:
        yield from _hit(name, _first(operands, cmd, scope, tree=recursive))
    elif name in _COPIERS:
        target_dir = parsed.values("--target-directory", "-t")
        dest = [Word(target_dir[0])] if target_dir else operands[-1:] if len(operands) >= 2 else []
        yield from _hit(f"{name} onto", _first(dest, cmd, scope))
    elif name == "tee" or name in _EDITORS:
        yield from _hit(name, _first(operands, cmd, scope))
    elif name in _IN_PLACE and _in_place(name, args):
        if name in ("sed", "gsed") and not parsed.has("--expression", "--file", "-e", "-f"):
            operands = operands[1:]  # the first operand is the script
        yield from _hit(f"{name} -i on", _first(operands, cmd, scope))


def _in_place(name: str, args: Iterable[Word]) -> bool:
    for w in args:
        v = w.value
        if v.startswith("--in-place") or (name == "yq" and v == "--inplace"):
            return True
        if v.startswith("-") and not v.startswith("--") and "i" in v[1:]:
            return True
    return False


def _git(cmd: SimpleCommand, scope: Scope) -> Iterable[Hit]:
    words = [w for w in cmd.args if not w.value.startswith("-")]
    verb = words[0].value if words else ""
    if verb not in ("checkout", "restore", "rm", "mv"):
        return ()
    return tuple(_hit(f"git {verb}", _first(words[1:], cmd, scope, tree=verb != "checkout")))


def _curl(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    args = cmd.args
    outputs: list[Word] = []
    remote_name = False
    for i, w in enumerate(args):
        v = w.value
        if v in ("-o", "--output") and i + 1 < len(args):
            outputs.append(args[i + 1])
        elif v.startswith("--output="):
            outputs.append(Word(v.split("=", 1)[1], w.literal))
        elif v.startswith("-o") and len(v) > 2 and not v.startswith("--"):
            outputs.append(Word(v[2:], w.literal))
        elif v in ("-O", "--remote-name", "--remote-name-all"):
            remote_name = True
    if remote_name:  # saved under the URL's last segment, in the working directory
        outputs += [
            Word(w.value.rstrip("/").rpartition("/")[2].split("?")[0])
            for w in args
            if "://" in w.value
        ]
    yield from _hit("curl writes", _first(outputs, cmd, scope))


def _wget(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    args = cmd.args
    outputs: list[Word] = []
    for i, w in enumerate(args):
        v = w.value
        if v in ("-O", "--output-document", "-P", "--directory-prefix") and i + 1 < len(args):
            outputs.append(args[i + 1])
        elif v.startswith(("--output-document=", "--directory-prefix=")):
            outputs.append(Word(v.split("=", 1)[1], w.literal))
        elif v.startswith(("-O", "-P")) and len(v) > 2:
            outputs.append(Word(v[2:], w.literal))
    yield from _hit("wget writes", _first(outputs, cmd, scope))


def _find(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    vals = [w.value for w in cmd.args]
    if not any(v in ("-delete", "-exec", "-execdir", "-ok", "-okdir") for v in vals):
        return
    starts = []
    for w in cmd.args:
        if w.value.startswith(("-", "(", "!")):
            break
        starts.append(w)
    found = _first(starts, cmd, scope, tree=True)
    if found is None:
        names = [Word(vals[i + 1]) for i, v in enumerate(vals[:-1]) if v in ("-name", "-iname")]
        found = next(((w.value, what) for w in names if (what := protected(w.value))), None)
    yield from _hit("find deletes or runs on", found)


def _sqlite3(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    if any(w.value in ("-readonly", "--readonly") for w in cmd.args):
        return
    operands = [w for w in cmd.args if not w.value.startswith("-")]
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
    outs = [Word(w.value[3:], w.literal) for w in cmd.args if w.value.startswith("of=")]
    yield from _hit("dd writes", _first(outs, cmd, scope))


def _apply_patch(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    texts = [r.body for r in cmd.redirects if r.body]
    texts += [r.target.value for r in cmd.redirects if r.op == "<<<" and r.target is not None]
    texts += [w.value for w in cmd.args]
    files = [Word(f) for text in texts for f in patch_files(text)]
    yield from _hit("apply_patch changes", _first(files, cmd, scope))


_SPECIAL: dict[str, Callable[[SimpleCommand, Scope], Iterable[Hit]]] = {
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
            what = protected(joined)
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
TREE_NAMES = frozenset({"rm", "rmdir", "mv", "chmod", "chown", "chgrp", "chattr", "find"})


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
        low = scope.model.source.lower()
        # Plain `in` tests: several times faster than one regex here, and this runs on every input.
        found = (
            "tether" in low
            or "claude" in low
            or "codex" in low
            or "gemini" in low
            or "/v1/" in low
            or relocated(low)  # a $CODEX_HOME or $TETHER_CONFIG outside the usual places
        )
        scope.cache[_GATE] = found
    return bool(found)


def _dot_glob(low: str) -> bool:
    """Return True when a word may be a glob for a dot file (``.*``, ``x/.t*``, ``.?ether*``)."""
    return _dot_glob_pattern().search(low) is not None


@functools.cache
def _dot_glob_pattern() -> re.Pattern[str]:
    return re.compile(r"""(?:^|[\s/'"])\.[*?\[t][^\s]*[*?\[]|(?:^|[\s/'"])\.[*?\[]""")
