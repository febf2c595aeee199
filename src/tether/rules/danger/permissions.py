"""DG406, DG407, DG430, DG431: permission and ownership changes (chmod, chown, chgrp, setfacl).

Modes are parsed (:mod:`.modes`), not matched as strings: a check asks which bits a mode
certainly sets or clears, for which class, on which place (:mod:`.paths`). The tier follows
the damage (principle 2 of DESIGN.md): a recursive change of / or a system root flattens
owners and modes nothing records, so it is hardline; the rest asks.
"""

from __future__ import annotations

from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.rules.danger.modes import SETGID, SETUID, Effect, acl_effect, chmod_effect
from tether.rules.danger.paths import HOME_ROOTS, OS_ROOTS, Place, braces, place
from tether.shell.model import SimpleCommand, Word
from tether.shell.tools import (
    CHMOD_MODE_LETTERS,
    FIND_EXEC,
    FIND_FILTERS,
)
from tether.shell.words import unwrap

CHMOD_DANGEROUS = Rule(
    code="DG406",
    name="chmod-dangerous",
    tier=Tier.ASK,
    summary="chmod making trees world-writable, or setting setuid/setgid",
    why="Recursive 777 exposes every file to every user; setuid/setgid bits turn a binary "
    "into a privilege escalation. Ask, not hardline: the owner can narrow the mode again, "
    "and a setuid helper is sometimes what the user wants (a recursive change of a system "
    "root is DG431).",
    instead="Grant the narrowest mode needed on the specific file (`chmod 755 script.sh`).",
    match=(
        "chmod -R 777 .",
        "chmod -R 0777 dir",
        "chmod --recursive a+w /var",
        "chmod 4755 /bin/bash",
        "chmod u+s ./tool",
        "chmod 777 /etc/passwd",
        "chmod -R +w .",
        "chmod o+w,g-w /etc/hosts",
    ),
    not_match=(
        "chmod +x script.sh",
        "chmod -R go-w ./build",
        "chmod -R u+w ./build",
        "chmod 644 file",
        "chmod -R 755 build",
        "chmod 777 notes.txt",
    ),
)

CHOWN_RECURSIVE_SYSTEM = Rule(
    code="DG407",
    name="chown-recursive-system",
    tier=Tier.ASK,
    summary="Recursive chown/chgrp of a system or home directory, or to root",
    why="Changing ownership of /etc, /usr or ~ breaks sudo, ssh and services; -R to root "
    "locks the user out of their own files. Ask, not hardline, for a home, a file under a "
    "system directory or an add-on tree (/opt, /usr/local): one owner's files, which root can "
    "hand back; a recursive change of / or a system root is DG431.",
    instead="Change ownership of the specific project path you created.",
    match=(
        "chown -R root /etc",
        "chown --recursive root /etc",
        "chown -R user:user /",
        "chown -R root:root ./app",
        "chown -R nobody: ~",
        "sudo chown --rec nobody ~",
        "chown -R me /usr/local",
    ),
    not_match=(
        "chown user file.txt",
        "chown --recur nobody /opt/app",
        "chown -R me:me ./build",
    ),
)

CHMOD_REMOVE_ACCESS = Rule(
    code="DG430",
    name="chmod-remove-access",
    tier=Tier.ASK,
    summary="chmod/setfacl taking access away on /, a system directory or a home",
    why="`chmod 000 /etc`, `chmod a-rwx ~` or `setfacl -m u::--- /bin/sh` leave the owner "
    "unable to read or enter it (every login, shell and service that needs it fails), and "
    "`chmod 750 /usr` locks every other user and service out. Ask, not hardline: root can "
    "set the mode back on one path (a recursive change of a system root is DG431). Modes "
    "are parsed (octal and symbolic, every clause), so only a real loss of access counts: "
    "narrowing a home to its owner (`chmod 700 ~`) does not.",
    instead="Change the mode of the one file that needs it, keeping read and search for its "
    "owner (`chmod 600 ~/.ssh/id_rsa`).",
    match=(
        "chmod 000 /etc",
        "chmod a-rwx ~",
        "chmod 0 /bin/sh",
        "chmod u=,g=,o= /usr/bin/env",
        "setfacl -m u::--- /etc",
        "sudo chmod 000 /etc",
        "env chmod --verb 000 ~",
        "chmod -r /etc/passwd",
        "chmod 644 /etc",
        "chmod 750 /usr",
        "chmod o-x /",
        "cd / && chmod 000 etc",
        "chmod --reference=/tmp/x /etc",
    ),
    not_match=(
        "chmod 600 ~/.ssh/id_rsa",
        "chmod -R go-w ./build",
        "chmod 000 ./secret.txt",
        "chmod -x script.sh",
        "chmod 700 ~",
        "chmod go-rwx ~",
        "chmod 755 /usr/local/bin/tool",
        "chmod 644 /etc/hosts",
        "setfacl -m u:bob:--- /etc",
        "setfacl -m d:u::--- /etc",
        "chmod 750 /root",
        "chmod u=rwx,go= ~",
    ),
)

PERMISSIONS_RECURSIVE_SYSTEM_ROOT = Rule(
    code="DG431",
    name="permissions-recursive-system-root",
    tier=Tier.HARDLINE,
    summary="Recursive chmod, chown, chgrp or setfacl of / or a system root",
    why="Hardline: /, /etc, /usr, /var, /home and the other roots the system runs from hold "
    "setuid binaries, private keys, sticky temp dirs and service accounts' data, each with "
    "its own owner and mode. A recursive change flattens them all and nothing records what "
    "they were, so it cannot be undone: sudo and ssh refuse to work, and `-R 000` leaves "
    "even root without an executable chmod. That is irreversible machine-level damage.",
    instead="Change the owner or mode of the specific project directory you created "
    "(`chown -R me ./build`); if a system directory really needs it, ask the user to run it.",
    match=(
        "chmod -R 777 /",
        "chmod -R 000 /etc",
        "chown -R user /usr",
        "chmod -R u=,g=,o= /",
        "chmod --recursive go-w /usr",
        "chmod --rec 000 /etc",
        "chmod -Rv 000 /usr",
        "sudo chown -R $USER:$USER /var",
        "chgrp -R staff /etc",
        "setfacl -R -m u::--- /",
        "chmod -R 755 /*",
        "cd / && chmod -R 777 .",
        "chown -R me /usr/./",
        "chmod -R 777 /{usr,etc}",
        "find / -exec chmod 000 {} +",
        "find /etc -exec sudo chown nobody {} \\;",
    ),
    not_match=(
        "chmod -R 755 ./build",
        "chown -R me /opt/app",
        "chown -R me /usr/local",
        "chmod 777 /",
        "chown -R me ~",
        "chmod -R 700 /root",
        "chmod -R 755 /etc/nginx",
        "find / -name '*.sh' -exec chmod +x {} +",
        "find . -exec chmod 644 {} +",
        "setfacl -R -b /",
        "setfacl -R -m u:backup:rX /etc",
    ),
)

RULES = (
    CHMOD_DANGEROUS,
    CHOWN_RECURSIVE_SYSTEM,
    CHMOD_REMOVE_ACCESS,
    PERMISSIONS_RECURSIVE_SYSTEM_ROOT,
)

# Places that are directories: the owner needs read and search (x) there.
_DIRECTORIES = frozenset({Place.ROOT, Place.SYSTEM_ROOT, Place.HOME})
_JUDGED = _DIRECTORIES | {Place.SYSTEM}
_OWNER_READ, _OWNER_SEARCH, _OTHER_SEARCH = 0o400, 0o100, 0o001


def check_permissions(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag chmod/chown/chgrp/setfacl changes that expose, lock out or flatten system trees."""
    name = name_of(cmd)
    if name == "chmod":
        yield from _chmod(cmd, scope)
    elif name in ("chown", "chgrp"):
        yield from _chown(cmd, scope, name)
    elif name == "setfacl":
        yield from _setfacl(cmd, scope)
    elif name == "find":
        yield from _find_exec(cmd, scope)


_CHANGERS = frozenset({"chmod", "chown", "chgrp", "setfacl"})
# Without a narrowing test or a depth limit, ``-exec chmod … {}`` reaches every file and
# directory below the starting points, as ``chmod -R`` would.
_NARROWING = FIND_FILTERS | {"-maxdepth"}


def _find_exec(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Judge ``find START -exec chmod MODE {} +`` with no narrowing predicate as ``chmod -R``."""
    if not any(w.value in FIND_EXEC for w in cmd.args):
        return
    starts, primaries = scope.find(cmd.args)
    if any(p in _NARROWING for p, _ in primaries):
        return
    for primary, taken in primaries:
        inner = unwrap(taken).argv if primary in FIND_EXEC else ()
        if not inner or name_of(SimpleCommand(inner)) not in _CHANGERS:
            continue
        args = tuple(w for w in inner[1:] if w.value != "{}")
        for start in starts or (Word("."),):
            rebuilt = SimpleCommand((inner[0], Word("-R"), *args, start))
            scope.alias(rebuilt, cmd)
            hits = list(check_permissions(rebuilt, scope))
            yield from (Hit(h.code, f"find {start.value} -exec: {h.detail}") for h in hits)
            if hits:
                return


def _targets(cmd: SimpleCommand, scope: Scope, words: tuple[Word, ...]) -> list[tuple[Place, str]]:
    return [place(e, cmd, scope) for w in words for e in braces(w)]


def _system_root(where: Place, path: str) -> bool:
    """Return True for / and the roots the system runs from (a recursive change is hardline)."""
    return where is Place.ROOT or (where is Place.SYSTEM_ROOT and path in OS_ROOTS)


def _recursive_root(how: str, targets: list[tuple[Place, str]], recursive: bool) -> Iterator[Hit]:
    if recursive:
        for where, path in targets:
            if _system_root(where, path):
                yield PERMISSIONS_RECURSIVE_SYSTEM_ROOT.hit(f"{how} of {path} ({where.value})")
                return


def _locks_out(effect: Effect | None, where: Place, path: str, recursive: bool) -> str | None:
    """Return what access ``effect`` takes away at ``where``, or None when it takes none.

    The owner losing read (anywhere judged) or search (on a directory: the roots, a home, and
    every directory below a recursive target); everyone else losing search on a system root
    (homes excepted: closing one to other users is privacy, not damage). ``None`` for the
    effect is a mode only known at run time (``--reference``).
    """
    if where not in _JUDGED:
        return None
    if effect is None:
        return "a mode copied from another file" if where in _DIRECTORIES else None
    if effect.clears(_OWNER_READ):
        return "the owner's read permission"
    if (where in _DIRECTORIES or recursive) and effect.clears(_OWNER_SEARCH):
        return "the owner's search (x) permission"
    if (
        where in (Place.ROOT, Place.SYSTEM_ROOT)
        and path not in HOME_ROOTS
        and effect.clears(_OTHER_SEARCH)
    ):
        return "everyone else's search (x) permission"
    return None


_MODE_OPTIONS = frozenset("-" + c for c in CHMOD_MODE_LETTERS)


def _chmod(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    parsed = options_of("chmod", cmd.args)
    # A mode spelt as options (``-w``, ``-rwx``) is the option's own text; else the first operand.
    spelt = [f"{o}{v or ''}" for o, v in parsed.options if o in _MODE_OPTIONS]
    operands = parsed.operands if spelt or parsed.has("--reference") else parsed.operands[1:]
    mode = ",".join(spelt) if spelt else (parsed.operands[0].value if parsed.operands else "")
    recursive = parsed.has("--recursive")
    targets = _targets(cmd, scope, operands)
    yield from _recursive_root("recursive chmod", targets, recursive)
    effect = None if parsed.has("--reference") else chmod_effect(mode)
    if effect is None and not parsed.has("--reference"):
        return  # not a mode chmod accepts: it changes nothing
    for where, path in targets:
        lost = _locks_out(effect, where, path, recursive)
        if lost:
            yield CHMOD_REMOVE_ACCESS.hit(
                f"chmod {mode or '--reference'} takes away {lost} on {path}"
            )
            break
    if effect is None:
        return
    if effect.set & (SETUID | SETGID):
        yield CHMOD_DANGEROUS.hit(f"chmod {mode} sets setuid/setgid")
    elif effect.set & 0o002 and recursive:
        yield CHMOD_DANGEROUS.hit(f"chmod -R {mode} makes a tree world-writable")
    elif effect.set & 0o002 and any(w in _JUDGED for w, _ in targets):
        yield CHMOD_DANGEROUS.hit(f"chmod {mode} on a system path")


def _chown(cmd: SimpleCommand, scope: Scope, name: str) -> Iterator[Hit]:
    parsed = options_of(name, cmd.args)
    reference = parsed.has("--reference")
    operands = parsed.operands if reference else parsed.operands[1:]
    if not parsed.has("--recursive") or not operands:
        return
    owner = "--reference" if reference else parsed.operands[0].value
    targets = _targets(cmd, scope, operands)
    hard = list(_recursive_root(f"{name} -R {owner}", targets, True))
    yield from hard
    for where, path in targets:
        if where in _JUDGED:
            yield CHOWN_RECURSIVE_SYSTEM.hit(f"{name} -R {owner} {path}")
            return
    if name == "chown" and owner.split(":")[0].split(".")[0] in ("root", "0") and not hard:
        yield CHOWN_RECURSIVE_SYSTEM.hit(f"chown -R {owner}")


def _setfacl(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    parsed = options_of("setfacl", cmd.args)
    if parsed.has("--test") or parsed.has("--default"):
        return  # a dry run; a default ACL applies to files created later
    specs = parsed.values("--modify", "--set")
    effect = Effect(0, 0)
    for spec in specs:
        effect = effect.then(acl_effect(spec))
    # Only the owner/group/other entries are the mode bits: a recursive change of those (or of
    # entries read from a file) flattens modes like chmod -R. Stripping or adding extended
    # entries (-b, -x, u:bob:…) leaves the modes alone: DG419 judges a recursive strip.
    from_file = parsed.has("--modify-file", "--set-file", "--restore")
    if not (effect.set or effect.cleared or from_file):
        return
    recursive = parsed.has("--recursive")
    targets = _targets(cmd, scope, parsed.operands)
    yield from _recursive_root("recursive setfacl", targets, recursive)
    for where, path in targets:
        lost = _locks_out(effect, where, path, recursive)
        if lost:
            yield CHMOD_REMOVE_ACCESS.hit(
                f"setfacl {' '.join(specs)[:40]} takes away {lost} on {path}"
            )
            return


CHECKS = {n: check_permissions for n in ("chmod", "chown", "chgrp", "setfacl", "find")}
