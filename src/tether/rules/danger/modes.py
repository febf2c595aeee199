"""What a chmod mode or a setfacl entry does to the permission bits, parsed, not pattern-matched.

``chmod_effect("a-rwx")`` and ``chmod_effect("0")`` both say "every r/w/x bit cleared";
``chmod_effect("go-w")`` says "group and other write cleared, nothing else touched". The
starting mode is unknown, so an effect is what is certainly set and what is certainly cleared;
a bit copied from another class (``g=u``) is neither. Symbolic modes without a class (``-x``,
``+w``) leave the umask's bits alone; the umask is unknown, so it is read as 000, the worst case
(``chmod +w`` may make a file world-writable).
"""

from __future__ import annotations

from typing import NamedTuple

SETUID, SETGID, STICKY = 0o4000, 0o2000, 0o1000
CLASS_BITS = {"u": 0o4700, "g": 0o2070, "o": 0o1007}
_PERM = {"r": 0o444, "w": 0o222, "x": 0o111, "X": 0, "s": SETUID | SETGID, "t": STICKY}
ALL = 0o7777


class Effect(NamedTuple):
    """The bits a mode certainly sets, certainly clears, and leaves unknown (12-bit masks)."""

    set: int
    cleared: int
    unknown: int = 0

    def then(self, other: Effect) -> Effect:
        """Return the effect of applying ``self`` and then ``other``."""
        return Effect(
            (self.set & ~(other.cleared | other.unknown)) | other.set,
            (self.cleared & ~(other.set | other.unknown)) | other.cleared,
            (self.unknown & ~(other.set | other.cleared)) | other.unknown,
        )

    def clears(self, bits: int) -> bool:
        """Return True when every one of ``bits`` is certainly cleared."""
        return self.cleared & bits == bits


NO_CHANGE = Effect(0, 0)


def chmod_effect(mode: str) -> Effect | None:
    """Return what a chmod ``mode`` (octal or symbolic, comma-separated) does; None if invalid."""
    if not mode:
        return None
    if mode.isdigit():
        if len(mode) > 5 or any(c in "89" for c in mode):
            return None
        value = int(mode, 8)
        # Fewer than five digits leave a directory's setuid/setgid alone (GNU chmod).
        kept = SETUID | SETGID if len(mode) < 5 else 0
        return Effect(value, ~value & ALL & ~kept)
    effect = NO_CHANGE
    for clause in mode.split(","):
        step = _clause(clause)
        if step is None:
            return None
        effect = effect.then(step)
    return effect


def _clause(clause: str) -> Effect | None:
    i = 0
    who = 0
    while i < len(clause) and clause[i] in "ugoa":
        who |= ALL if clause[i] == "a" else CLASS_BITS[clause[i]]
        i += 1
    if who == 0:
        who = ALL  # no class: all of them, but the umask's bits (read as 000, the worst case)
    if i == len(clause):
        return None  # a class with no operator ("u", "go")
    effect = NO_CHANGE
    while i < len(clause):
        op = clause[i]
        if op not in "+-=":
            return None
        i += 1
        start = i
        while i < len(clause) and clause[i] in "rwxXst":
            i += 1
        perms = clause[start:i]
        copied = False
        if not perms and i < len(clause) and clause[i] in "ugo":
            copied = True  # ``g=u``: the bits come from another class, unknown here
            i += 1
        bits = 0
        for p in perms:
            bits |= _PERM[p]
        bits &= who
        # ``X`` is execute only for a directory or a file already executable by someone.
        maybe = who & 0o111 & ~bits if "X" in perms else 0
        if copied:
            step = Effect(0, 0, who & 0o777)
        elif op == "+":
            step = Effect(bits, 0, maybe)
        elif op == "-":
            step = Effect(0, bits, maybe)
        else:
            # ``=`` clears the classes' r/w/x bits and sets the listed ones; setuid/setgid of
            # a directory stay (GNU chmod).
            step = Effect(bits, who & 0o777 & ~bits & ~maybe, maybe)
        effect = effect.then(step)
    return effect


# setfacl's ACL entries for the owner, the owning group and others are the mode bits.
_ACL_TAGS = {"u": "u", "user": "u", "g": "g", "group": "g", "o": "o", "other": "o"}


def acl_effect(spec: str) -> Effect:
    """Return what ``setfacl -m SPEC`` does to the owner/group/other bits.

    Only the base entries (``u::rwx``, ``g::r-x``, ``o::---``) change the mode; named users and
    groups (``u:bob:---``) and the mask do not take access from the owner.
    """
    effect = NO_CHANGE
    for entry in spec.split(","):
        parts = entry.strip().split(":")
        if parts and parts[0] in ("d", "default"):
            continue  # a default ACL applies to files created later
        if len(parts) < 2:
            continue
        who = _ACL_TAGS.get(parts[0])
        qualifier = parts[1] if len(parts) > 2 else ""
        if who is None or qualifier:
            continue
        perms = parts[-1]
        bits = 0
        for p in perms:
            if p in "rwx":
                bits |= _PERM[p]
        if perms.isdigit() and len(perms) == 1:
            bits = int(perms) * 0o111
        mask = CLASS_BITS[who] & 0o777
        effect = effect.then(Effect(bits & mask, ~bits & mask))
    return effect
