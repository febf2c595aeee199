"""DG433: the immutable and append-only attributes set on the root or system files.

``chattr +i`` / ``+a`` (e2fsprogs) and BSD/macOS ``chflags schg`` / ``uchg`` / ``sappnd``
stop every write to a file, root's included, until someone clears the attribute.
"""

from __future__ import annotations

from collections.abc import Iterator

from tether.quoting import quote
from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.rules.danger._registry import program_check
from tether.rules.danger.paths import Place, braces, place
from tether.shell.model import SimpleCommand, Word

IMMUTABLE_SYSTEM_FILES = Rule(
    code="DG433",
    name="immutable-system-files",
    tier=Tier.ASK,
    summary="Make the root, a system directory or a system file immutable or append-only "
    "(chattr +i, chattr +a, chflags schg)",
    why="Ask, not hardline: an immutable (`chattr +i`, `chflags schg`/`uchg`) or append-only "
    "(`+a`, `sappnd`) file refuses every change, root's included, so package updates fail, "
    "`passwd` and `useradd` cannot rewrite /etc/passwd or /etc/shadow, and services that "
    "rewrite their files stop working until someone finds the attribute; `chattr -R +i /` "
    "does that to the whole machine. Root can clear it again (`chattr -R -i`), so it is "
    "reversible, which keeps it out of the hardline tier.",
    instead="Leave system files' attributes alone; protect a project file inside the "
    "workspace (`chattr +i ./lock`) or ask the user to change system files' attributes.",
    match=(
        "chattr -R +i /",
        "chattr +i /etc/passwd",
        "chattr -R +a /",
        "sudo chattr +i /etc/resolv.conf",
        "chattr -V +ia /etc/shadow",
        "chattr -Rf =i /usr",
        "chattr -p 1 +i /etc/hosts",
        "chattr +i -- /boot/vmlinuz",
        "chattr +i ~",
        "chattr -R +i /etc/{passwd,shadow}",
        "chflags -R schg /",
        "chflags uchg,sappnd /etc/hosts",
        "busybox chattr +i /etc/passwd",
    ),
    not_match=(
        "chattr +i ./lock",
        "chattr +i build/output.bin",
        "chattr -i /etc/resolv.conf",
        "chattr -R -i /",
        "chattr +c /var/log/big",
        "chattr =e /etc/hosts",
        "lsattr /etc/passwd",
        "chflags nouchg /etc/hosts",
        "chflags hidden /Users/me/x",
        "echo chattr +i /etc/passwd",
    ),
)

RULES = (IMMUTABLE_SYSTEM_FILES,)

# chattr's attribute letters (``chattr`` usage, e2fsprogs 1.47) and the two that lock a file.
_CHATTR_LETTERS = frozenset("aAcCdDeFijmPsStTux")
_LOCKS = frozenset("ia")
# chflags(1) flag names that lock a file (``no`` in front clears one).
_CHFLAGS_LOCKS = frozenset(
    {"schg", "schange", "simmutable", "uchg", "uchange", "uimmutable", "sappnd", "sappend",
     "uappnd", "uappend"}
)  # fmt: skip
_LOCKED_PLACES = (Place.ROOT, Place.SYSTEM_ROOT, Place.SYSTEM, Place.HOME)


def chattr_parts(args: tuple[Word, ...]) -> tuple[str, tuple[Word, ...]]:
    """Split chattr's words as chattr.c does: the letters it adds or sets, then the files.

    Words starting with ``-``, ``+`` or ``=`` come first: ``-RVf`` are options in any cluster,
    ``-p N``/``-v N`` take the next word, other letters after ``-`` remove an attribute; ``+``
    adds and ``=`` sets the letters after it. ``--`` or the first other word starts the files.
    """
    added = ""
    i = 0
    while i < len(args):
        v = args[i].value
        i += 1
        if v == "--":
            break
        if v[:1] == "-":
            i += sum(1 for c in v[1:] if c in "pv")  # -p PROJECT, -v VERSION
        elif v[:1] in ("+", "="):
            added += v[1:]
        else:
            i -= 1
            break
    return added, args[i:]


@program_check("chattr", "chflags", rules=(IMMUTABLE_SYSTEM_FILES,))
def check_attributes(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag the immutable or append-only attribute set on the root or system files."""
    name = name_of(cmd)
    args = cmd.args
    if name == "chattr":
        added, files = chattr_parts(args)
        if not set(added) <= _CHATTR_LETTERS:
            return  # chattr refuses an unknown letter and changes nothing
        locks = sorted(set(added) & _LOCKS)
        how = f"chattr +{''.join(locks)}"
    elif name == "chflags":
        words = list(options_of(name, args).operands)  # -R -H -L -P -f -h -v -x, then FLAGS
        if len(words) < 2:
            return
        locks = [f for f in words[0].value.lower().split(",") if f in _CHFLAGS_LOCKS]
        how, files = f"chflags {words[0].value}", tuple(words[1:])
    else:
        return
    if not locks:
        return
    for word in (e for w in files for e in braces(w)):
        where, path = place(word, cmd, scope)
        if where in _LOCKED_PLACES:
            yield IMMUTABLE_SYSTEM_FILES.hit(f"{how} on {quote(path)} ({where.value})")
            return
