"""The disguise generator: the catalogue's dangerous examples, spelled the ways bash evaluates.

Each hardline and ask ``match`` example of the danger catalogue is wrapped in one disguise
class of issue 23 (or a composition of two or three): a brace expansion, a variable or an
array assigned earlier in the line, a parameter operator, ``IFS``, ``set --``,
``sh -c '…' _ ARG``, ``printf -v``, ``read <<<``, a function or an alias, ``eval``,
``source``, a static command substitution, ANSI-C quoting, a ``/proc/self/root`` or ``//``
path spelling, a ``cd`` chain, a symlink made earlier, a loop or ``xargs`` feeding the
operands. Every disguise is *static*: what it runs is determined by the text alone.

``check`` states the invariant the traced oracle checks (``Oracle.run(trace=True)``): for
every argv the run executed, Tether's verdict on the original command is at least as strict
as its verdict on that argv alone (and on the argv with its path operands spelled
canonically: ``/proc/self/root/x`` and ``//x`` are ``/x``, a relative operand is joined to
the process's working directory when that is outside the fixture). Every disguise is static,
so the bar is the argv's own verdict, except for an argv that still holds a glob (it matched
nothing in the sandbox: the filesystem, not the text, decided it), where the bar is ask. An
example is *exercised* when the run executed an argv (other than the sandbox's ``bash -c
COMMAND`` itself) at least as dangerous as the example itself, or, for a builtin or a
redirection, attempted a destructive syscall outside the fixture and ``/tmp``.
Needs hypothesis (the ``test`` extra).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from hypothesis import strategies as st

from tether import classify_command
from tether.rules.base import Danger, Tier
from tether.verify.trace import Trace

# (prelude statements, the words of the command as shell text); a class rewrites it.
Form = tuple[list[str], list[str]]
_IDENT = re.compile(r"^[A-Za-z0-9_./:@%+=-]+$")
_GLOB = re.compile(r"[*?[]")
_LIVE = re.compile(r"[\w./~*?+=:,@%^-]+")


class Example(NamedTuple):
    """One catalogue example: its rule code, tier and text (and its words when simple)."""

    code: str
    tier: Tier
    text: str
    words: tuple[str, ...] | None


class Disguised(NamedTuple):
    """A disguised example: the command, the classes applied (innermost first), its base."""

    command: str
    classes: tuple[str, ...]
    base: Example


class Finding(NamedTuple):
    """The invariant on one traced run: exercised or not, and every violating argv."""

    exercised: bool
    verdict: Danger
    violations: tuple[tuple[str, Danger], ...]


@lru_cache(maxsize=1)
def examples() -> tuple[Example, ...]:
    """Return every hardline and ask example of the danger catalogue."""
    from tether.rules import danger
    from tether.verify.generator import _simple_words

    out = []
    for rule in danger.RULES:
        if rule.tier not in (Tier.HARDLINE, Tier.ASK):
            continue
        for text in rule.match:
            words = _simple_words(text)
            simple = words is not None and not any("=" in w.split("/")[0] for w in words[:1])
            kept = tuple(words) if words is not None and simple else None
            out.append(Example(rule.code, rule.tier, text, kept))
    return tuple(out)


def programs() -> tuple[str, ...]:
    """Return the program names the examples run (for stubs of the ones not installed)."""
    names = set()
    for ex in examples():
        if ex.words:
            for w in ex.words:
                if "/" not in w and _IDENT.match(w) and w not in ("sudo", "env", "doas"):
                    names.add(w)
                    break
    return tuple(sorted(n for n in names if n.isidentifier() or re.match(r"^[\w.+-]+$", n)))


def _q(word: str) -> str:
    """Quote a word as the example meant it: a tilde or a glob stays live."""
    return word if _LIVE.fullmatch(word) else shlex.quote(word)


def _pick(draw: st.DrawFn, words: list[str], operand: bool) -> int:
    start = 1 if operand and len(words) > 1 else 0
    return draw(st.integers(start, len(words) - 1))


# Word classes: replace one word by an expression bash evaluates to it.
def _var(draw: st.DrawFn, f: Form) -> Form:
    pre, words = f
    i = _pick(draw, words, draw(st.booleans()))
    kw = draw(st.sampled_from(["", "declare ", "export ", "typeset ", "readonly "]))
    name = f"v{len(pre)}"
    return [*pre, f"{kw}{name}={words[i]}"], [*words[:i], f'"${name}"', *words[i + 1 :]]


def _param_op(draw: st.DrawFn, f: Form) -> Form:
    pre, words = f
    i = _pick(draw, words, True)
    w, name = words[i], f"p{len(pre)}"
    op = draw(st.integers(0, 4))
    if op == 0:
        return pre, [*words[:i], f'"${{{name}:-{w}}}"', *words[i + 1 :]]
    sets = [f"{name}={w}QQ", f"{name}=zz:{w}", f"{name}=QQ{w}", f"{name}={w}/zz"][op - 1]
    expr = [f"${{{name}%QQ}}", f"${{{name}#zz:}}", f"${{{name}/QQ/}}", f"${{{name}%/zz}}"][op - 1]
    return [*pre, sets], [*words[:i], f'"{expr}"', *words[i + 1 :]]


def _printf_v(draw: st.DrawFn, f: Form) -> Form:
    pre, words = f
    i = _pick(draw, words, draw(st.booleans()))
    name = f"f{len(pre)}"
    return [*pre, f"printf -v {name} %s {words[i]}"], [*words[:i], f'"${name}"', *words[i + 1 :]]


def _read(draw: st.DrawFn, f: Form) -> Form:
    pre, words = f
    i = _pick(draw, words, draw(st.booleans()))
    name = f"r{len(pre)}"
    return [*pre, f"read -r {name} <<< {words[i]}"], [*words[:i], f'"${name}"', *words[i + 1 :]]


def _subst(draw: st.DrawFn, f: Form) -> Form:
    pre, words = f
    i = _pick(draw, words, draw(st.booleans()))
    how = draw(st.sampled_from(["$(printf %s {})", "$(echo {})", "`printf %s {}`"]))
    return pre, [*words[:i], '"' + how.format(words[i]) + '"', *words[i + 1 :]]


def _ansi_c(draw: st.DrawFn, f: Form) -> Form:
    pre, words = f
    i = _pick(draw, words, draw(st.booleans()))
    raw = shlex.split(words[i])[0] if words[i] else ""
    if not raw:
        return f
    return pre, [*words[:i], "$'" + "".join(f"\\x{ord(c):02x}" for c in raw) + "'", *words[i + 1 :]]


def _path(draw: st.DrawFn, f: Form) -> Form:
    pre, words = f
    paths = [i for i, w in enumerate(words) if i and w.startswith("/")]
    if not paths:
        return f
    i = draw(st.sampled_from(paths))
    spell = draw(st.sampled_from(["/proc/self/root{}", "/{}", "/./{}", "/tmp/..{}"]))
    return pre, [*words[:i], spell.format(words[i]), *words[i + 1 :]]


def _cd(draw: st.DrawFn, f: Form) -> Form:
    pre, words = f
    paths = [i for i, w in enumerate(words) if i and w.startswith("/") and w != "/"]
    if not paths:
        return [*pre, "cd / && cd - >/dev/null"], words
    i = draw(st.sampled_from(paths))
    return [*pre, "cd /"], [*words[:i], "." + words[i], *words[i + 1 :]]


def _symlink(draw: st.DrawFn, f: Form) -> Form:
    pre, words = f
    paths = [i for i, w in enumerate(words) if i and w.startswith("/")]
    if not paths:
        return f
    i = draw(st.sampled_from(paths))
    name = f"/tmp/l{len(pre)}"
    return [*pre, f"ln -sfn / {name}"], [*words[:i], name + words[i], *words[i + 1 :]]


WORD_CLASSES: dict[str, Callable[[st.DrawFn, Form], Form]] = {
    "variable": _var, "param-operator": _param_op, "printf-v": _printf_v, "read": _read,
    "substitution": _subst, "ansi-c": _ansi_c, "path-spelling": _path, "cd-chain": _cd,
    "symlink": _symlink,
}  # fmt: skip


# Argv classes: the whole argv built by something bash evaluates.
def _render(f: Form) -> str:
    pre, words = f
    return "; ".join([*pre, " ".join(words)])


def _argv_class(name: str, draw: st.DrawFn, f: Form) -> str:
    pre, words = f
    w = " ".join(words)
    head = "; ".join(pre) + "; " if pre else ""
    if name == "brace":
        return head + "{" + ",".join(words) + "}"
    if name == "array":
        return head + f'a=({w}); "${{a[@]}}"'
    if name == "ifs":
        if any("," in x or " " in x or '"' in x for x in words):
            return head + f'a=({w}); "${{a[@]}}"'
        return head + "IFS=,; c=" + ",".join(words) + "; $c"
    if name == "set--":
        return head + f'set -- {w}; "$@"'
    if name == "sh-c-arg":
        shell = draw(st.sampled_from(["sh", "bash", "dash"]))
        return head + f"{shell} -c '\"$@\"' _ {w}"
    if name == "function":
        return head + f"f() {{ {w}; }}; f"
    if name == "alias":
        return "shopt -s expand_aliases\n" + head + f"alias t={words[0]}\nt " + " ".join(words[1:])
    if name == "loop":
        return head + f"for x in {words[-1]}; do " + " ".join(words[:-1]) + ' "$x"; done'
    if name == "xargs":
        how = draw(st.integers(0, 2))
        rest = " ".join(words[:-1])
        if how == 0:
            return head + f"echo {words[-1]} | xargs {rest}"
        if how == 1:
            return head + f"xargs {rest} <<< {words[-1]}"
        return head + f"echo {words[-1]} > /tmp/ops; xargs -a /tmp/ops {rest}"
    return _render(f)


ARGV_CLASSES = ("brace", "array", "ifs", "set--", "sh-c-arg", "function", "alias", "loop", "xargs")


# Text classes: the whole command line run by something else.
def _text_class(name: str, text: str) -> str:
    if name == "eval":
        return f"eval {_q(text)}"
    if name == "source":
        return f"source /dev/stdin <<< {_q(text)}"
    if name == "process-source":
        return f". <(printf '%s\\n' {_q(text)})"
    if name == "bash-c":
        return f"bash -c {_q(text)}"
    if name == "subshell":
        return f"( {text} )"
    if name == "function-text":
        return f"g() {{\n{text}\n}}; g"
    return text


TEXT_CLASSES = ("eval", "source", "process-source", "bash-c", "subshell", "function-text")
CLASSES = ("plain", *WORD_CLASSES, *ARGV_CLASSES, *TEXT_CLASSES)


@st.composite
def disguised(draw: st.DrawFn, base: Example | None = None, depth: int = 3) -> Disguised:
    """Draw a catalogue example wrapped in one to ``depth`` disguise classes."""
    ex = base if base is not None else draw(st.sampled_from(examples()))
    applied: list[str] = []
    budget = draw(st.integers(1, depth))
    if ex.words is not None:
        form: Form = ([], [_q(w) for w in ex.words])
        for _ in range(draw(st.integers(0, min(2, budget)))):
            name = draw(st.sampled_from(tuple(WORD_CLASSES)))
            new = WORD_CLASSES[name](draw, form)
            if new != form:
                form, budget = new, budget - 1
                applied.append(name)
        if budget > 0 and draw(st.booleans()):
            name = draw(st.sampled_from(ARGV_CLASSES))
            text = _argv_class(name, draw, form)
            applied.append(name)
            budget -= 1
        else:
            text = _render(form)
    else:
        text = ex.text
    while budget > 0 and (not applied or draw(st.booleans())):
        name = draw(st.sampled_from(TEXT_CLASSES))
        text = _text_class(name, text)
        applied.append(name)
        budget -= 1
    return Disguised(text, tuple(applied) or ("plain",), ex)


_FIXTURE = "/home/tether/"
_SCRATCH = (_FIXTURE, "/tmp/")  # where a disguise's own set-up writes


def _canonical(argv: tuple[str, ...], cwd: str) -> tuple[str, ...]:
    """Return the argv with its path operands spelled canonically."""
    out = [argv[0]]
    for w in argv[1:]:
        if w.startswith("/"):
            path = re.sub(r"^/proc/(?:self|\d+)/root(?=/|$)", "", os.path.normpath(w)) or "/"
            out.append(os.path.normpath("/" + path.lstrip("/")))
        elif w and not w.startswith("-") and not cwd.startswith(_FIXTURE) and "=" not in w:
            out.append(os.path.normpath(os.path.join(cwd, w)))
        else:
            out.append(w)
    return tuple(out)


def level(command: str) -> Danger:
    """Return Tether's danger verdict on a command."""
    return classify_command(command).danger


def check(command: str, trace: Trace, base_level: Danger) -> Finding:
    """Check the invariant on one traced run of ``command``."""
    verdict = level(command)
    violations: list[tuple[str, Danger]] = []
    reached = Danger.NONE
    for process in trace.processes:
        argv = process.argv
        if not argv or (argv[0].endswith("bash") and argv[1:] == ("-c", command)):
            continue  # the sandbox's shell running the command itself
        for form in {argv, _canonical(argv, process.cwd)}:
            text = shlex.join(form)
            alone = level(text)
            reached = max(reached, alone)
            # A word still holding a glob matched nothing in the sandbox: it depends on the
            # filesystem, not on the text alone, so the bar is ask.
            bar = min(alone, Danger.ASK) if any(_GLOB.search(w) for w in form[1:]) else alone
            if bar > verdict:
                violations.append((text, bar))
    # A builtin or a redirection runs no program: its destructive syscall is what it reached.
    attempted = any(
        op.call in ("kill", "reboot") or not all(p.startswith(_SCRATCH) for p in op.paths)
        for op in trace.operations
    )
    exercised = reached >= base_level or attempted
    return Finding(exercised, verdict, tuple(dict.fromkeys(violations)))


def dangerous_level(tier: Tier) -> Danger:
    """Return the danger level of a catalogue tier."""
    return Danger.HARDLINE if tier is Tier.HARDLINE else Danger.ASK
