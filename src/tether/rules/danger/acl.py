"""DG419: stripping or rewriting ACLs recursively on the root, a system directory or a home."""

from __future__ import annotations

from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, options_of
from tether.rules.danger._registry import program_check
from tether.rules.danger.paths import Place, place
from tether.shell.model import SimpleCommand

ACL_RECURSIVE_SYSTEM = Rule(
    code="DG419",
    name="acl-recursive-system",
    tier=Tier.ASK,
    summary="Strip or rewrite ACLs recursively on the root, a system directory or a home",
    why="Ask, not hardline: `setfacl -R -b /` (or -k, -x, --set) removes every extended "
    "permission under the tree, so services lose access to their logs and sockets and "
    "shared directories change who may write; only a `getfacl -R` backup restores them, "
    "but base modes and data stay.",
    instead="Change the ACL of the one directory you need (`setfacl -m u:NAME:rx DIR`), "
    "save the current ones first (`getfacl -R DIR > acl.bak`), or ask the user.",
    match=(
        "setfacl -b -R /",
        "setfacl -Rb /etc",
        "sudo setfacl --remove-all --recursive /var",
        "setfacl -R -k /usr/lib",
        "setfacl -R --set u::rwx,g::r-x,o::--- ~",
        "setfacl -R -m o::rwx /",
        "setfacl --rec --remove-a /home",
    ),
    not_match=(
        "setfacl -b file.txt",
        "setfacl -R -b ./build",
        "setfacl -m u:www-data:rx /var/www/html",
        "setfacl -R -m u:www-data:rwx /var/www",
        "getfacl -R /",
        "setfacl --test -R -b /",
    ),
)

RULES = (ACL_RECURSIVE_SYSTEM,)

_STRIP = (
    "--remove-all",
    "--remove-default",
    "--remove",
    "--remove-file",
    "--set",
    "--set-file",
)
_GRANT = ("--modify", "--modify-file")


@program_check("setfacl", rules=(ACL_RECURSIVE_SYSTEM,))
def check_acl(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag recursive ACL strips and rewrites of system trees."""
    parsed = options_of("setfacl", cmd.args)
    if not parsed.has("--recursive") or parsed.has("--test", "--help", "--version"):
        return
    strips, grants = parsed.has(*_STRIP), parsed.has(*_GRANT)
    if not (strips or grants):
        return
    # -m and -M take the ACL as their value; -b, -k are flags: the operands are the paths.
    worst = {Place.ROOT, Place.SYSTEM_ROOT, Place.HOME}
    if strips:
        worst.add(Place.SYSTEM)
    for w in parsed.operands:
        where, path = place(w, cmd, scope)
        if where in worst:
            yield ACL_RECURSIVE_SYSTEM.hit(f"setfacl -R on {path} ({where.value})")
            return
