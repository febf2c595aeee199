"""Where an archive extractor writes: ``tar x`` and ``unzip``, read with their grammars.

One reading for every judge of an extraction: the self-protection gate (DG605, a guard file
among the places) and the system-file writes (DG409, ``tar -xf a.tar -C /etc``).
"""

from __future__ import annotations

import itertools
import posixpath

from tether.rules.danger._base import options_of
from tether.shell.model import Word
from tether.shell.options import parse
from tether.shell.tools import UNZIP_MEMBERS

EXTRACTORS = frozenset({"tar", "gtar", "bsdtar", "unzip"})
_UNZIP_READS = ("-l", "-t", "-p", "-c", "-v", "-z", "-Z", "-T", "-h")


def extraction(name: str, args: tuple[Word, ...]) -> tuple[list[str], list[Word]] | None:
    """Return the directories ``name ARGS`` extracts into and the members it names.

    None when it does not extract (``tar -t``, ``unzip -l``); no directories means the
    working directory.
    """
    if name == "unzip":
        return _unzip(args)
    parsed = options_of(name, args)
    if not parsed.has("--extract"):
        return None
    # -C is a chdir, read in order: `-C a -C b` extracts into a/b (or b when absolute).
    # Members land in the one in effect where they are named, so each counts; without
    # members everything lands in the last.
    chdirs = itertools.accumulate(parsed.values("--directory"), posixpath.join)
    dirs = [posixpath.normpath(d) for d in chdirs]
    members = list(parsed.operands)
    dirs = dirs if members else dirs[-1:]
    top = parsed.values("--one-top-level")
    if top and dirs:
        dirs.append(posixpath.join(dirs[-1], top[-1]))
    elif top:
        dirs.append(top[-1])
    # --transform 's,^,.claude/,' renames every member into .claude/: the literal start of
    # each replacement is a place members land (under the last -C).
    for new in (r for e in parsed.values("--transform") for r in tar_replacements(e)):
        dirs.append(posixpath.normpath(posixpath.join(dirs[-1] if dirs else "", new)))
    return dirs, members


def tar_replacements(expression: str) -> list[str]:
    """Return the literal start of each replacement in a tar ``--transform`` expression.

    GNU tar reads ``s/REGEX/REPLACEMENT/FLAGS`` (any delimiter, several joined by ``;``); the
    replacement's text before a back-reference (``\\1``, ``&``) starts every renamed member.
    """
    out: list[str] = []
    for part in expression.split(";"):
        part = part.strip()
        if len(part) < 4 or part[0] != "s":
            continue
        delimiter, current, i = part[1], "", 2
        pieces: list[str] = []
        while i < len(part) and len(pieces) < 2:
            c = part[i]
            if c == "\\" and i + 1 < len(part):
                current += part[i : i + 2]
                i += 2
                continue
            if c == delimiter:
                pieces.append(current)
                current = ""
            else:
                current += c
            i += 1
        if len(pieces) == 2:
            literal = pieces[1].split("\\", 1)[0].split("&", 1)[0]
            if literal:
                out.append(literal)
    return out


def _unzip(args: tuple[Word, ...]) -> tuple[list[str], list[Word]] | None:
    """Return where unzip extracts (its ``-d`` directories) and the members it names."""
    parsed = options_of("unzip", args)  # options end at the archive
    if parsed.has(*_UNZIP_READS) or not parsed.operands:
        return None
    before = parsed.values("-d")
    if len(before) > 1:
        return None  # "-d option used more than once": UnZip 6.00 extracts nothing
    after = parse(UNZIP_MEMBERS, parsed.operands[1:])  # members, -d DIR, -x NAME…
    # (A -x before the archive starts no list: UnZip 6.00 still extracts the members named.)
    # One -d counts, the first given; UnZip reads a later `-d X` as two member patterns, which
    # match only members named exactly so (checked by running it).
    return (before + after.values("-d"))[:1], list(after.operands)
