"""Hypothesis strategies that compose commands from the read-only catalogue and mutate them.

The bases are the catalogue's own ``match`` examples; the options are those its specs name
(every spelling in the grammar of each spec in the family modules) plus every option token in the
examples and a list of options that make common tools write. Mutations: options in every
getopt spelling (long, ``--opt=v``, ``--opt v``, unique-prefix abbreviations, short,
attached, clustered), placed before or after the operands, ``--``, an option turned into a
bare word (``version``), environment prefixes, every wrapper of ``tether.shell.programs``
(xargs fed from stdin, ``watch`` among them), redirects, pipes and lists, every shell's
``-c``, and substitutions (the command inside ``$(…)``/``<(…)``, or one word computed by one).
The property checked with them is "classified read-only ⇒ the oracle sees no change". Needs
hypothesis (the ``test`` extra).
"""

from __future__ import annotations

import importlib
import re
import shlex
from collections.abc import Iterable
from functools import lru_cache
from typing import TypeVar

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from tether.rules.base import Tier
from tether.rules.readonly.spec import Spec, grammar_of

_FAMILIES = ("files", "search", "text", "vcs", "vcs_rules", "forge", "system", "packages")
# Options that make some common tool write, run a program or read a config that can.
WRITE_OPTIONS = (
    "-o", "--output", "--output-file", "-O", "--out", "-w", "--write", "-i", "--in-place",
    "--log", "--log-file", "--cache-dir", "--prefix", "--config", "--exec", "-exec",
    "--delete", "-delete", "-fprint", "--files0-from", "--compress-program", "--tmp",
    "--temporary-directory", "--save", "--dump", "--edit", "-e", "--export", "--target",
    "--root", "--git-dir", "--work-tree", "--global", "--unset", "--add", "-x", "--force",
)  # fmt: skip
VALUES = ("out.txt", "file.txt", "5", "x", "/tmp/o", "-", "cat", "src")
ENV = (
    "LC_ALL=C", "LANG=C", "GIT_PAGER=cat", "PAGER=cat", "TZ=UTC", "FOO=1", "NO_COLOR=1",
    "GIT_DIR=.", "HOME=/tmp", "BASH_ENV=f.txt", "LD_PRELOAD=x.so", "PATH=.:/usr/bin",
    "GIT_CONFIG_PARAMETERS='core.pager=touch\\ owned'", "PYTHONSTARTUP=f.py", "EDITOR=touch",
)  # fmt: skip
WRAPPERS = (
    "timeout 5", "timeout -s KILL 5", "timeout --sig KILL 5", "timeout --sig=KILL 5",
    "timeout -k 1 5", "nice", "nice -n 5", "nice --adj 5", "nice -5", "env", "env -i",
    "env --chd /", "env -C src", "env -u FOO", "command", "command -p", "time", "time -p",
    "stdbuf -o0", "stdbuf --out 0", "stdbuf -o L", "nohup", "exec", "builtin", "sudo",
    "sudo -u root", "sudo --chd /", "ionice -c3", "chrt -i 0", "setsid", "unbuffer",
    "doas", "doas -u root", "taskset 1", "taskset -c 0", "chrt -o 0", "ionice -n 2",
    # watch: -d/--differences take an optional attached value only (`-d permanent cmd` runs
    # `permanent`); -x runs the command without sh -c.
    "watch", "watch -n 1", "watch -n1 -t", "watch --interval=1", "watch --inter 1", "watch -d",
    "watch --differences=permanent", "watch -d permanent", "watch -x", "watch --exec -t",
    "watch -c -g", "watch -e -q 1",
    # busybox runs the applet its first word names (a wrapper: never proven read-only).
    "busybox",
    # bash's coproc keyword, zsh's repeat and precommand modifiers.
    "coproc", "repeat 2", "noglob", "nocorrect", "-",
)  # fmt: skip
SHELLS = ("bash -c", "sh -c", "bash -lc", "bash -c --", "dash -c", "zsh -c", "ksh -c",
          "mksh -c", "ash -c", "busybox-sh -c", "bash -O extglob -c")  # fmt: skip
# xargs reads operands from stdin; `-i`/`-e`/`-l` take optional attached arguments only.
XARGS = (
    "xargs", "xargs -r", "xargs -n1", "xargs -n 1", "xargs -I{}", "xargs --max-args=1",
    "xargs -0", "xargs -L 1", "xargs -l", "xargs -i", "xargs -e", "xargs -P2", "xargs --null",
    "xargs -t", "xargs --max-a 1", "xargs -a file.txt", "xargs -d ,",
)  # fmt: skip
REDIRECTS = (
    "2>&1", ">/dev/null", "2>/dev/null", "< file.txt", "&>/dev/null", "> out.txt",
    ">> file.txt", "2> err.log", "| head -5", "| sort", "| wc -l", "| tee out.txt",
    "| xargs echo", "|& cat",
)  # fmt: skip
JOINERS = (" && ", " ; ", " | ", " || ")


def _specs(module: object) -> Iterable[Spec]:
    for value in vars(module).values():
        items = value.values() if isinstance(value, dict) else value
        if isinstance(value, Spec):
            yield value
        elif isinstance(value, dict | tuple | list):
            yield from (v for v in items if isinstance(v, Spec))


@lru_cache(maxsize=1)
def bases() -> tuple[str, ...]:
    """Return the catalogue's read-tier ``match`` examples (the commands it proves)."""
    from tether.rules import readonly

    out = {m for rule in readonly.RULES if rule.tier is Tier.READ for m in rule.match}
    return tuple(sorted(out))


@lru_cache(maxsize=1)
def options() -> tuple[str, ...]:
    """Return every option the catalogue's specs and examples name, and the write options."""
    from tether.rules.readonly.engine import CATALOGUE

    specs = [s for entry in CATALOGUE.values() for s in entry.specs]
    for family in _FAMILIES:
        specs += _specs(importlib.import_module(f"tether.rules.readonly.{family}"))
    found: set[str] = set(WRITE_OPTIONS)
    for spec in specs:
        found.update(grammar_of(spec).names)
        found.update(spec.writes)
    for example in bases():
        try:
            words = shlex.split(example)
        except ValueError:
            continue
        found.update(w.split("=")[0] for w in words if w.startswith("-") and len(w) > 1)
    return tuple(sorted(o for o in found if o not in ("-", "--")))


@st.composite
def spelled_option(draw: st.DrawFn) -> list[str]:
    """Draw one option in one of its getopt spellings, as one or two words."""
    opt = draw(st.sampled_from(options()))
    value = draw(st.sampled_from(VALUES))
    if opt.startswith("--"):
        form = draw(st.integers(0, 3))
        if form == 1:
            return [f"{opt}={value}"]
        if form == 2:
            return [opt, value]
        if form == 3 and len(opt) > 4:  # an abbreviation: getopt_long takes unique prefixes
            cut = draw(st.integers(3, len(opt) - 1))
            return [opt[:cut]]
        return [opt]
    if len(opt) == 2:
        form = draw(st.integers(0, 3))
        if form == 1:
            return [opt + value]
        if form == 2:
            return [opt, value]
        if form == 3:  # a cluster with another short option
            other = draw(st.sampled_from([o for o in options() if len(o) == 2 and o[1] != "-"]))
            return [opt + other[1]]
    return [opt]


def _simple_words(text: str) -> list[str] | None:
    """Return the words of a simple command, or None when the text has shell operators."""
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
        words = shlex.split(text)
    except ValueError:
        return None
    if not words or any(t and all(c in "();<>|&" for c in t) for t in tokens):
        return None
    return words


@st.composite
def mutated(draw: st.DrawFn, base: str | None = None) -> str:
    """Draw a catalogue example mutated by up to four mutations."""
    text = base if base is not None else draw(st.sampled_from(bases()))
    words = _simple_words(text)  # None: a compound command, mutated as a whole
    raw = text
    suffix: list[str] = []

    def render() -> str:
        head = " ".join(map(_quote, words)) if words is not None else raw
        return " ".join([head, *suffix])

    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 9))
        if kind <= 3 and words is not None:
            where = draw(st.integers(1, len(words)))
            dashed = [i for i, w in enumerate(words) if w.startswith("--") and len(w) > 2]
            if kind == 3 and dashed and draw(st.booleans()):
                i = draw(st.sampled_from(dashed))  # a bare word where an option was: `version`
                words[i] = words[i].lstrip("-")
            elif kind == 3:
                words.insert(where, "--")
            else:  # an option before the operands, or after them (permutation)
                words[len(words) if kind == 2 else where : where] = draw(spelled_option())
        elif kind == 4 or kind == 5 or kind <= 3:
            prefix = draw(st.sampled_from(ENV if kind == 4 else WRAPPERS + XARGS))
            if prefix.startswith("xargs"):
                raw = f"printf '%s\\n' file.txt | {prefix} {render()}"
                words, suffix = None, []
            elif words is not None:
                words[0:0] = shlex.split(prefix)
            else:
                raw = f"{prefix} {raw}"
        elif kind == 6:
            suffix.append(draw(st.sampled_from(REDIRECTS)))
        elif kind == 7:
            raw = render() + draw(st.sampled_from(JOINERS)) + draw(st.sampled_from(bases()))
            words, suffix = None, []
        elif kind == 9:
            raw = draw(_substituted(words, render()))
            words, suffix = None, []
        else:
            shell = draw(st.sampled_from(SHELLS))
            raw = f"{shell} {shlex.quote(render())}"
            words, suffix = None, []
    return render()


# A substitution's output becomes words of the outer command: one word computed at run time,
# the whole command's output as operands, or a process substitution's file.
SUBSTITUTED = ("echo $({})", 'echo "$({})"', "wc -l $({})", "cat <({})", "diff <({}) file.txt")
_COMPUTE = ("$(printf %s {})", '"$(printf %s {})"', "$(echo {})")


@st.composite
def _substituted(draw: st.DrawFn, words: list[str] | None, text: str) -> str:
    """Draw ``text`` run inside a substitution, or one of its words computed by one."""
    if words is not None and len(words) > 1 and draw(st.booleans()):
        i = draw(st.integers(1, len(words) - 1))
        computed = draw(st.sampled_from(_COMPUTE)).format(shlex.quote(words[i]))
        return " ".join(computed if j == i else _quote(w) for j, w in enumerate(words))
    return draw(st.sampled_from(SUBSTITUTED)).format(text)


def _quote(word: str) -> str:
    """Quote a word; a leading ``NAME=value`` stays an assignment (only its value is quoted)."""
    name, eq, value = word.partition("=")
    if eq and name.isidentifier() and name.isupper():
        return f"{name}={shlex.quote(value)}"
    return shlex.quote(word)


_FILE_WORD = re.compile(r"^[\w-]+\.[A-Za-z0-9]{1,5}$")
_FILE_VALUES = ("x", "src/new.txt")  # values the generator draws that name a file to read


def operand_files(command: str) -> dict[str, str]:
    """Return the files a generated command names that the fixture lacks (relative path ->
    text): created before its run, so that it reads something and goes on to its write."""
    from tether.verify.fixture import TEXT_FILES

    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    out = {}
    for word in words[1:]:
        for part in (word, word.split("=", 1)[-1]):
            if (_FILE_WORD.match(part) or part in _FILE_VALUES) and part not in TEXT_FILES:
                out[part] = "alpha\nbeta\ngamma\n"
    return out


__all__ = [
    "SHELLS", "WRAPPERS", "XARGS", "bases", "mutated", "operand_files", "options",
    "spelled_option",
]  # fmt: skip


T = TypeVar("T")


def draw(strategy: st.SearchStrategy[T], n: int, seed_value: int) -> list[T]:
    """Return ``n`` examples of ``strategy`` (hypothesis's generate phase only, no shrinking,
    seeded): how the long runs in benchmarks/ take their examples."""
    out: list[T] = []

    @settings(
        max_examples=n,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @seed(seed_value)
    @given(strategy)
    def collect(example: T) -> None:
        out.append(example)

    collect()
    return out
