"""The one getopt engine: split a program's arguments into options and operands as it would.

A ``Grammar`` describes one program (or one subcommand): its short options with their arity
(flag, required argument, optional argument that only attaches: getopt's ``x``, ``x:``,
``x::``), its long options (``--opt``, ``--opt=v`` / ``--opt v``, ``--opt[=v]``), whether long
options may be abbreviated to a unique prefix (getopt_long, optparse, argparse) or must be
spelt whole (bash, git for some tools), whether options may follow operands (GNU permutation)
or end at the first operand (a leading ``+`` in getopt's optstring, POSIXLY_CORRECT), ``--``,
``-NUM`` numbers, ``+x`` options (shells), a first word that is a cluster without its dash
(``tar xzf a.tgz``: each letter that takes a value takes the next word, in order) and list
options that take every word up to the next option (unzip's ``-x a b c``). ``parse``
returns every option under one canonical name (the long name when the option has one), the
operands, and the first problem: an unknown or ambiguous option, a missing value, a value
given to a flag. Every judge of a command (wrapper peeling, runners, the read-only and
danger catalogues) reads arguments through this module; none has a parser of its own.

Grammars are written compactly, one word per option::

    grammar("timeout", "k|kill-after: s|signal: v|verbose foreground", permute=False)

``k|kill-after:`` is ``-k`` and ``--kill-after`` taking a value, ``d|differences::`` takes an
optional attached value, ``E:`` is a short option only, ``foreground`` a long option only,
``x*`` takes the words that follow it up to the next option.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple, TypeVar

from tether.shell.model import Word

FLAG, REQUIRED, OPTIONAL, LIST = 0, 1, 2, 3
_ARITY = {"": FLAG, ":": REQUIRED, "::": OPTIONAL, "*": LIST}
GNU_STANDARD = "help version"  # every GNU tool's two exits


class Grammar(NamedTuple):
    """The option grammar of one program (or subcommand); build it with ``grammar()``."""

    name: str
    # "-k" / "--kill-after" -> canonical name ("--kill-after").
    names: Mapping[str, str]
    # canonical name -> FLAG, REQUIRED or OPTIONAL.
    arity: Mapping[str, int]
    longs: tuple[str, ...]
    abbreviate: bool = True
    permute: bool = True
    numeric: bool = False
    plus: bool = False
    # The first word may be a cluster without a dash (``tar xzf a.tgz``, old-style options).
    old_style: bool = False
    # Options that end the option list once read with their value (python's ``-c CMD``,
    # ``-m MOD``): every later word is an operand, as after ``--``.
    ends: frozenset[str] = frozenset()
    # Derived from ``names`` and ``arity``, for ``only_flags``: the letters of the short
    # options that are flags, and the long flags spelt whole.
    flag_letters: str = ""
    flag_longs: frozenset[str] = frozenset()

    def canon(self, name: str) -> str:
        """Return the canonical name of an option spelt ``name`` (unknown names unchanged)."""
        found = self.names.get(name)
        if found is None and name.startswith("--"):
            found = self.resolve(name)
        return found or name

    def resolve(self, name: str) -> str | None:
        """Return the canonical option a long ``name`` means, or None if unknown or ambiguous."""
        exact = self.names.get(name)
        if exact is not None or not self.abbreviate:
            return exact
        hits = {self.names[n] for n in self.longs if n.startswith(name)}
        return hits.pop() if len(hits) == 1 else None

    def candidates(self, name: str) -> list[str]:
        """Return the long options ``name`` is a prefix of (for messages)."""
        return [n for n in self.longs if n.startswith(name)] if self.abbreviate else []

    def knows(self, name: str) -> bool:
        """Return True when ``name`` is an option of this grammar (spelt in full)."""
        return name in self.names


def grammar(
    name: str,
    options: str,
    *,
    abbreviate: bool = True,
    permute: bool = True,
    numeric: bool = False,
    plus: bool = False,
    old_style: bool = False,
    ends: Iterable[str] = (),
) -> Grammar:
    """Build a grammar from option words (``k|kill-after:``, ``foreground``, ``d::``)."""
    names: dict[str, str] = {}
    arity: dict[str, int] = {}
    for item in options.split():
        body = item.rstrip(":*")
        kind = _ARITY.get(item[len(body) :])
        if kind is None or not body:
            raise ValueError(
                f"{name}: option {item!r}: expected a name, then ':', '::', '*' or nothing"
            )
        spellings = [("-" if len(s) == 1 else "--") + s for s in body.split("|")]
        canonical = next((s for s in spellings if s.startswith("--")), spellings[0])
        for spelling in spellings:
            if spelling in names:
                raise ValueError(f"{name}: option {spelling} is listed twice")
            names[spelling] = canonical
        arity[canonical] = kind
    longs = tuple(n for n in names if n.startswith("--"))
    return Grammar(
        name,
        MappingProxyType(names),
        MappingProxyType(arity),
        longs,
        abbreviate,
        permute,
        numeric,
        plus,
        old_style,
        frozenset(names.get(e, e) for e in ends),
        "".join(n[1] for n, c in names.items() if len(n) == 2 and arity[c] == FLAG),
        frozenset(n for n in longs if arity[names[n]] == FLAG),
    )


class Parsed(NamedTuple):
    """Arguments split by a grammar.

    ``options`` holds ``(canonical name, value or None)`` in order; ``operands`` the other
    words; ``stop`` the index (into the arguments) of the first word not read as an option or
    its value when the grammar stops at the first operand (else the number of arguments);
    ``error`` the first problem, or None; ``unknown`` the option spellings not in the grammar.
    """

    options: tuple[tuple[str, str | None], ...]
    operands: tuple[Word, ...]
    stop: int
    error: str | None = None
    unknown: tuple[str, ...] = ()
    # Canonical names of options whose value is a separate word that expands at run time.
    dynamic: tuple[str, ...] = ()
    dashdash: bool = False  # options were ended by ``--``
    # Canonical names an ambiguous prefix could mean (``--forc``: --force, --force-with-…).
    ambiguous: tuple[str, ...] = ()

    def has(self, *names: str) -> bool:
        """Return True when any of the canonical ``names`` was given."""
        return any(option in names for option, _value in self.options)

    def maybe(self, *names: str) -> bool:
        """Return True when any of ``names`` was given or an ambiguous prefix may mean one.

        For checks that ask a human: the tool refuses an ambiguous prefix today, but another
        version with fewer options of that prefix would take it.
        """
        return self.has(*names) or any(n in self.ambiguous for n in names)

    def values(self, *names: str) -> list[str]:
        """Return the values given to any of the canonical ``names``, in order."""
        return [v for o, v in self.options if o in names and v is not None]

    def names(self) -> list[str]:
        """Return the canonical names of the options given, in order."""
        return [o for o, _ in self.options]


def parse(g: Grammar, args: Iterable[Word], *, stop_at: int = -1) -> Parsed:
    """Split ``args`` the way the program ``g`` describes would.

    Unknown options are kept (as flags, under their own spelling) and reported in
    ``error``/``unknown``: a judge that must prove something refuses them; one that peels a
    wrapper carries on with the most likely reading. ``stop_at`` ends parsing after that many
    operands (a subcommand word, a wrapper's positional) even for a permuting grammar.
    """
    words: Sequence[Word] = args if isinstance(args, (tuple, list)) else tuple(args)
    shift = 0
    if g.old_style and words:
        words, shift = _old_style(g, words)
    n = len(words)
    marks = "-+" if g.plus else "-"
    for w in words:
        if w.value[:1] in marks and len(w.value) > 1 and (w.literal or _option_head(w.value)):
            break
    else:
        # No options at all (most commands): every word is an operand.
        last = stop_at - 1 if 0 < stop_at <= n else n
        return Parsed((), tuple(words), last if g.permute else 0)
    if not shift and marks == "-":
        quick = _plain(g, words, stop_at)
        if quick is not None:
            return quick
    options: list[tuple[str, str | None]] = []
    operands: list[Word] = []
    unknown: list[str] = []
    dynamic: list[str] = []
    dashdash = False
    ambiguous: list[str] = []
    error: str | None = None
    stop = n
    i = 0
    names, arity, permute = g.names, g.arity, g.permute
    while i < n:
        word = words[i]
        v = word.value
        if len(v) < 2 or v[0] not in marks or not (word.literal or _option_head(v)):
            if not permute or len(operands) + 1 == stop_at:
                stop = i
                operands.extend(words[i:])
                break
            operands.append(word)
            i += 1
            continue
        i += 1
        if v == "--":
            stop = i
            dashdash = True
            operands.extend(words[i:])
            break
        if v.startswith("--"):
            spelt, eq, value = v.partition("=")
            if not word.literal and not (eq and _dynamic_start(v) > len(spelt)):
                # ``--$X``, ``--ch$X``: an option whose name is only known at run time.
                error = error or f"{g.name}: option '{v[:40]}' is only known at run time"
                unknown.append(v)
                dynamic.append(v)
                options.append((v, None))
                continue
            canonical = g.resolve(spelt)
            if canonical is None:
                hits = g.candidates(spelt)
                why = f"ambiguous ({', '.join(hits[:4])})" if len(hits) > 1 else "not known"
                ambiguous.extend(g.names[h] for h in hits)
                error = error or f"{g.name}: option '{spelt}' is {why}"
                unknown.append(spelt)
                if not eq and hits and i < n and all(arity[names[h]] == REQUIRED for h in hits):
                    # Every option it may mean takes a value: the next word is one either way
                    # (``--kill- main``: --kill-whom in one version, --kill-value in another).
                    value, eq = words[i].value, "="
                    i += 1
                options.append((spelt, value if eq else None))
                continue
            kind = arity[canonical]
            if kind == LIST:
                i = _list(words, i, canonical, value if eq else None, marks, options)
                continue
            if eq:
                if kind == FLAG:
                    error = error or f"{g.name}: option '{canonical}' takes no value"
                options.append((canonical, value))
                if not word.literal:  # ``--chdir="$D"``: the name is literal, the value is not
                    dynamic.append(canonical)
                    error = error or f"{g.name}: the value of '{canonical}' expands at run time"
            elif kind == REQUIRED:
                if i >= n:
                    error = error or f"{g.name}: option '{canonical}' needs a value"
                    options.append((canonical, None))
                else:
                    options.append((canonical, words[i].value))
                    if not words[i].literal:
                        dynamic.append(canonical)
                        error = error or f"{g.name}: the value of '{canonical}' expands at run time"
                    i += 1
            else:
                options.append((canonical, None))
                continue
            if canonical in g.ends:  # python's -c CMD / -m MOD: the rest are operands
                stop = i
                operands.extend(words[i:])
                break
            continue
        if g.numeric and v[1:].isdigit():
            options.append(("-NUM", v[1:]))
            continue
        sign = v[0]
        j = 1
        literal_end = len(v) if word.literal else _dynamic_start(v)
        while j < len(v):
            if j >= literal_end:
                # ``-x$Y``: the letters from here on are only known at run time.
                error = error or f"{g.name}: option letters '{v[j:][:40]}' expand at run time"
                unknown.append(sign + v[j:])
                dynamic.append(sign + v[j:])
                options.append((sign + v[j:], None))
                break
            letter = v[j]
            spelt = sign + letter
            j += 1
            canonical = names.get("-" + letter)
            if canonical is None:
                error = error or f"{g.name}: option '{spelt}' is not known"
                unknown.append(spelt)
                options.append((spelt, None))
                continue
            kind = arity[canonical]
            if sign == "+":
                canonical = "+" + canonical.lstrip("-")
            if kind == FLAG:
                options.append((canonical, None))
                continue
            if kind == LIST:
                i = _list(words, i, canonical, v[j:] or None, marks, options)
                break
            if j < len(v):
                options.append((canonical, v[j:]))
                if j >= literal_end:  # ``-u"$U"``: an attached value that expands at run time
                    dynamic.append(canonical)
                    error = error or f"{g.name}: the value of '{spelt}' expands at run time"
            elif kind == OPTIONAL:
                options.append((canonical, None))
            elif i < n:
                options.append((canonical, words[i].value))
                if not words[i].literal:
                    dynamic.append(canonical)
                    error = error or f"{g.name}: the value of '{spelt}' expands at run time"
                i += 1
            else:
                error = error or f"{g.name}: option '{spelt}' needs a value"
                options.append((canonical, None))
            if canonical in g.ends:  # took its value: the rest are operands (python -mMOD)
                stop = i
                operands.extend(words[i:])
                i = n
            break
    stop -= shift
    if error is None:
        return Parsed(tuple(options), tuple(operands), stop, None, (), (), dashdash)
    return Parsed(
        tuple(options),
        tuple(operands),
        stop,
        error,
        tuple(unknown),
        tuple(dynamic),
        dashdash,
        tuple(ambiguous),
    )


def only_flags(g: Grammar, words: Sequence[Word]) -> bool:
    """Return True when every option in ``words`` is a known flag spelt whole (``-rn``, ``--all``).

    ``parse(g, words)`` then reports no problem: a judge that only asks whether the options
    are known (a command none of whose options writes) need not split them. False means
    "ask ``parse``", not "unknown". A word that does not start with ``-`` is an operand, as
    ``parse`` reads it whatever it expands to.
    """
    if g.plus or g.old_style:
        return False
    letters, longs = g.flag_letters, g.flag_longs
    for word in words:
        v = word.value
        if v[:1] != "-" or len(v) < 2:
            continue
        if not word.literal or word.glob:
            return False
        if v[1] == "-":
            if v not in longs:
                return False
        elif v[1:].strip(letters):
            return False
    return True


def _plain(g: Grammar, words: Sequence[Word], stop_at: int) -> Parsed | None:
    """Return the parse of ``words`` in the common shape, or None for ``parse``'s full loop.

    The common shape: literal words that cannot expand to others, and options that are known
    flags spelt whole (``-n``, ``-rn``, ``--count``) or known options taking a value
    (``-n 20``, ``-n20``, ``--lines=20``, ``--lines 20``, python's ``-m MOD``, which ends the
    list). Anything else (an unknown, ambiguous or abbreviated option, ``--``, ``-NUM``, a list
    option, a value that expands) is left to the full loop, which this returns the same result as
    (``tests/test_shell_options.py`` compares them).
    """
    names, arity, permute, ends = g.names, g.arity, g.permute, g.ends
    stops = not permute or stop_at > 0  # an operand may end the options
    options: list[tuple[str, str | None]] = []
    operands: list[Word] = []
    n = len(words)
    i = 0
    while i < n:
        word = words[i]
        if not word.literal or word.glob:
            return None
        v = word.value
        if len(v) < 2 or v[0] != "-":
            if stops and (not permute or len(operands) + 1 == stop_at):
                return Parsed(tuple(options), (*operands, *words[i:]), i)
            operands.append(word)
            i += 1
            continue
        i += 1
        if v[1] == "-":
            spelt, eq, value = v.partition("=")
            canonical = names.get(spelt)
            if canonical is None:
                return None
            kind = arity[canonical]
            if kind == FLAG and not eq:
                options.append((canonical, None))
                continue
            if kind == REQUIRED and not eq:
                if i >= n or not words[i].literal or words[i].glob:
                    return None
                value, eq = words[i].value, "="
                i += 1
            if not eq or kind in (FLAG, LIST):
                return None
            options.append((canonical, value))
            if canonical in ends:  # python's -c CMD / -m MOD: the rest are operands
                return Parsed(tuple(options), (*operands, *words[i:]), i)
            continue
        if g.numeric and v[1:].isdigit():
            return None
        for j in range(1, len(v)):
            canonical = names.get("-" + v[j])
            if canonical is None:
                return None
            kind = arity[canonical]
            if kind == FLAG:
                options.append((canonical, None))
                continue
            if kind == LIST:
                return None
            if j + 1 < len(v):
                options.append((canonical, v[j + 1 :]))
            elif kind == OPTIONAL:
                options.append((canonical, None))
            elif i < n and words[i].literal and not words[i].glob:
                options.append((canonical, words[i].value))
                i += 1
            else:
                return None
            if canonical in ends:  # took its value: the rest are operands (python -mMOD)
                return Parsed(tuple(options), (*operands, *words[i:]), i)
            break
    return Parsed(tuple(options), tuple(operands), n)


# Where a word that expands at run time stops being literal: its value keeps the source text
# of the dynamic parts (``$X``, ``${X}``, ``$(…)``, backticks, ``{a,b}`` braces).
_DYNAMIC = re.compile(r"[$`{]")


def _dynamic_start(value: str) -> int:
    """Return the index where the dynamic part of a non-literal word's value starts.

    0 when no mark of one is seen: the whole word is then taken as dynamic.
    """
    found = _DYNAMIC.search(value)
    return found.start() if found else 0


def _option_head(value: str) -> bool:
    """Return True when a non-literal word still starts with a literal option spelling.

    ``--chdir="$D"`` and ``-u"$U"`` are options whose value expands at run time; bash hands the
    program a word that starts with the same dash and letters. ``"$X"`` and ``-$X`` are not
    known to be options (they may be anything).
    """
    return _dynamic_start(value) >= 2


def _old_style(g: Grammar, words: Sequence[Word]) -> tuple[Sequence[Word], int]:
    """Spell an old-style first word (``xzf a.tgz``) as options (``-x -z -f a.tgz``).

    Each letter that takes a value takes the next word, in order, as GNU tar reads it. Return
    the words and how many more there are than before (to map ``stop`` back).
    """
    first = words[0]
    v = first.value
    if not first.literal or not v or v[0] == "-" or "-" in v or "=" in v:
        return words, 0
    out: list[Word] = []
    k = 1
    for letter in v:
        out.append(Word("-" + letter))
        canonical = g.names.get("-" + letter)
        if canonical is not None and g.arity[canonical] == REQUIRED and k < len(words):
            out.append(words[k])
            k += 1
    return (*out, *words[k:]), len(out) - k


def _list(
    words: Sequence[Word],
    i: int,
    canonical: str,
    attached: str | None,
    marks: str,
    options: list[tuple[str, str | None]],
) -> int:
    """Read a list option's values (every word up to the next option); return the next index."""
    taken = 0 if attached is None else 1
    if attached is not None:
        options.append((canonical, attached))
    while i < len(words):
        w = words[i]
        if w.literal and len(w.value) > 1 and w.value[0] in marks:
            break
        options.append((canonical, w.value))
        taken += 1
        i += 1
    if not taken:
        options.append((canonical, None))
    return i


T = TypeVar("T")


class LazyTable(Mapping[str, T]):
    """A table of specs built on first use: a hook process reads one or two of them.

    Building every grammar at import costs a few milliseconds per tool call; names are
    known without building anything (``name in table`` is free).
    """

    __slots__ = ("_built", "_makers")

    def __init__(self, makers: Mapping[str, Callable[[], T]]) -> None:
        self._makers = dict(makers)
        self._built: dict[str, T] = {}

    def __getitem__(self, key: str) -> T:
        found = self._built.get(key)
        if found is None:
            found = self._built[key] = self._makers[key]()
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._makers

    # Mapping.get is overloaded on the default's type; its override here keeps the one signature
    # the callers use (T | None), hence the ignore below.
    def get(self, key: str, default: T | None = None) -> T | None:  # type: ignore[override]
        """Return the entry for ``key``, or ``default`` (without raising on a miss)."""
        found = self._built.get(key)
        if found is not None:
            return found
        return self[key] if key in self._makers else default

    def __iter__(self) -> Iterator[str]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)

    def __repr__(self) -> str:
        return f"LazyTable({sorted(self._makers)!r})"


def describe(g: Grammar) -> str:
    """Return the grammar as text: how it reads its arguments, then every option."""
    import textwrap  # only for ``tether rules``, never on the hook path

    by_option: dict[str, list[str]] = {}
    for spelt, canonical in g.names.items():
        by_option.setdefault(canonical, []).append(spelt)
    shown = []
    for canonical, names in by_option.items():
        kind = g.arity[canonical]
        suffix = {REQUIRED: " V", OPTIONAL: "[=V]", LIST: " V…"}.get(kind, "")
        shown.append("/".join(names) + suffix)
    order = "options may follow operands" if g.permute else "options end at the first operand"
    prefixes = "unique prefixes" if g.abbreviate else "long options spelt whole"
    old = "; the first word may be a cluster without '-'" if g.old_style else ""
    ends = f"; {'/'.join(sorted(g.ends))} end the options" if g.ends else ""
    head = f"{g.name} ({order}; {prefixes}{'; -NUM' if g.numeric else ''}{old}{ends}):"
    body = textwrap.fill(", ".join(shown) or "no options", width=92, initial_indent="  ",
                         subsequent_indent="  ", break_on_hyphens=False)  # fmt: skip
    return head + "\n" + body


def spellings(g: Grammar, canonical: str) -> list[str]:
    """Return every way getopt accepts ``canonical`` on its own: each name, each abbreviation."""
    out: list[str] = []
    for spelt, target in g.names.items():
        if target != canonical:
            continue
        out.append(spelt)
        if spelt.startswith("--") and g.abbreviate:
            for k in range(3, len(spelt)):
                prefix = spelt[:k]
                if prefix not in g.names and g.resolve(prefix) == canonical:
                    out.append(prefix)
    return out


__all__ = [
    "FLAG",
    "GNU_STANDARD",
    "LIST",
    "OPTIONAL",
    "REQUIRED",
    "Grammar",
    "LazyTable",
    "Parsed",
    "describe",
    "grammar",
    "only_flags",
    "parse",
    "spellings",
]
