"""The danger catalogue: what a human should look at (ask) and what never runs (hardline).

Rules live by family: DG1xx deletion, DG2xx version-control history, DG3xx remote and hidden
code, DG4xx the machine (disks, power, permissions, sudo), DG5xx data stores and infrastructure,
DG6xx secrets and Tether's own guard
(self-protection). Every check reads the parsed ``CommandModel`` only, never the raw text.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from tether.quoting import clip, quote
from tether.rules.base import NO_DANGER, Danger, DangerVerdict, Rule, Tier
from tether.rules.danger import (
    cloud,
    credentials,
    deletion,
    hidden,
    infra,
    installs,
    permissions,
    privilege,
    remote,
    runners,
    secrets,
    self_files,
    self_protection,
    stores,
    system,
    vcs,
)
from tether.rules.danger._base import AWK_WRITERS, Budget, Hit, Scope, name_of
from tether.rules.danger._registry import registered
from tether.rules.danger.interp import check_interpreter, is_interpreter
from tether.shell.model import CommandModel, SimpleCommand, Word, Wrapper
from tether.shell.programs import WRAPPERS
from tether.shell.words import unwrap, watch_text

if TYPE_CHECKING:
    from tether.rules.readonly.tree import Tree

RULES: tuple[Rule, ...] = tuple(
    sorted(
        (
            *deletion.RULES,
            *vcs.RULES,
            *remote.RULES,
            *installs.RULES,
            *runners.RULES,
            *hidden.RULES,
            *system.RULES,
            *privilege.RULES,
            *permissions.RULES,
            *infra.RULES,
            *stores.RULES,
            *cloud.RULES,
            *secrets.RULES,
            *credentials.RULES,
            *self_protection.RULES,
        ),
        key=lambda r: r.code,
    )
)
_BY_CODE = {r.code: r for r in RULES}

_Check = Callable[[SimpleCommand, Scope], Iterable[Hit]]


def _merge(*tables: Mapping[str, _Check | tuple[_Check, ...]]) -> dict[str, tuple[_Check, ...]]:
    merged: dict[str, list[_Check]] = {}
    for table in tables:
        for name, given in table.items():
            merged.setdefault(name, [])
            for check in given if isinstance(given, tuple) else (given,):
                if check not in merged[name]:
                    merged[name].append(check)
    return {k: tuple(v) for k, v in merged.items()}


_BY_NAME = _merge(
    deletion.CHECKS,
    vcs.CHECKS,
    hidden.CHECKS,
    system.CHECKS,
    privilege.CHECKS,
    permissions.CHECKS,
    infra.CHECKS,
    cloud.CHECKS,
    secrets.CHECKS,
    registered(),  # the checks filed with @program_check (tether.rules.danger._registry)
    runners.CHECKS,  # awk system(), sed e, vim -c '!…', find -exec, docker run, su -c …
    *self_protection.TABLES,
)
# Checks that are not tied to one command name, grouped by what makes them relevant, so the
# common case (a plain command: literal name, no redirects, no wrappers) runs none of them:
# metadata hosts only when a word of the input may name one, the redirect checks only when a
# redirect can write or reach a socket (``2>&1``, ``> /dev/null`` and here-documents cannot).
_METADATA: tuple[_Check, ...] = (secrets.check_metadata,)
_ON_REDIRECTS: tuple[_Check, ...] = (
    hidden.check_redirect_socket,
    system.check_device_redirects,
    privilege.check_system_redirects,
    secrets.check_sensitive_write,
    self_files.check_redirect,
)
_ON_RUNNERS: tuple[_Check, ...] = (
    remote.check_runner,
    remote.check_download_run,
    check_interpreter,
    self_protection.check_interpreter,
)
_WRITERS = frozenset(
    {"tee", "cp", "mv", "install", "ln", "rsync", "sed", "perl", "ruby", "dd", *AWK_WRITERS}
)


# Each table comes as a pair: every check, and the checks for input that names nothing of
# Tether's (self-protection gated off; the same tuple object when nothing was gated).
_Pair = tuple[tuple[_Check, ...], tuple[_Check, ...]]


_NO_WORD = Word("")


_QUIET_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-"})
_BODIES = frozenset({"<<", "<<-", "<<<"})


def _redirects_matter(cmd: SimpleCommand) -> bool:
    """Return True when a redirect of ``cmd`` can write a file or reach a device or socket."""
    for r in cmd.redirects:
        target = r.target
        if target is None or r.op in _BODIES:
            continue
        value = target.value
        if target.literal and (value.isdigit() or value in _QUIET_TARGETS):
            continue  # ``2>&1``, ``>&-``, ``> /dev/null``
        if r.op == "<" and target.literal and not value.startswith("/dev/"):
            continue  # reading a file: no redirect check reads it
        return True
    return False


def _checks_of(cmd: SimpleCommand, name: str, metadata: bool = True) -> _Pair:
    """Return the checks ``cmd`` needs: its name's, then those its shape calls for."""
    argv = cmd.argv
    first = argv[0] if argv else _NO_WORD
    return _table(
        name,
        metadata,
        _redirects_matter(cmd) if cmd.redirects else False,
        "/" in first.value,
        not first.literal,
        cmd.in_function,
        cmd.wrappers != (),
        cmd.assignments != (),
    )


@functools.lru_cache(maxsize=4096)
def _table(
    name: str,
    metadata: bool,
    redirects: bool,
    slash: bool,
    dynamic: bool,
    in_function: bool,
    wrapped: bool,
    assigned: bool,
) -> _Pair:
    # One lookup per command: the name's checks, then those the command's shape calls for.
    own, own_quiet = _checks_for(name)
    generic: tuple[_Check, ...] = _METADATA if metadata else ()
    if redirects:
        generic += _ON_REDIRECTS
    elif name in _WRITERS:
        generic += (secrets.check_sensitive_write,)
    if (
        remote.is_runner(name)
        or is_interpreter(name)
        or name in ("chmod", "powershell", "pwsh", "eval")
    ):
        generic += _ON_RUNNERS
    elif slash:
        generic += (remote.check_download_run, self_protection.check_path_named)
    if dynamic:
        generic += (hidden.check_dynamic_word,)
    if in_function:
        generic += (system.check_fork_bomb,)
    if wrapped or name == "sudo":
        generic += (privilege.check_sudo,)
    if (wrapped or assigned) and name not in self_protection.ENV_NAMES:
        generic += (self_protection.check_env_override,)  # TETHER_X=1 cmd, env TETHER_X=1 cmd
    if wrapped or assigned:
        generic += (runners.check_env_commands,)  # GIT_SSH_COMMAND='…' git fetch, PAGER='…' man
    generic_quiet = self_protection.ungated(generic, name)
    checks = own + generic
    if own is own_quiet and generic is generic_quiet:
        return checks, checks  # nothing gated: the same object, so the caller can tell
    return checks, own_quiet + generic_quiet


_PREFIXES: tuple[tuple[str, _Check], ...] = (
    ("mkfs", system.check_machine),
    *cloud.PREFIXES,
    *self_protection.PREFIXES,
)


def _checks_for(name: str) -> _Pair:
    found = _BY_NAME.get(name, ())
    for prefix, check in _PREFIXES:
        if name.startswith(prefix) and check not in found:
            found = (*found, check)
    return found, self_protection.ungated(found, name)


def _repeel(cmd: SimpleCommand, words: tuple[Word, ...]) -> SimpleCommand | str:
    """Return ``cmd`` with ``words`` in place of its argv, peeled again (or the text it runs).

    The parser stops peeling at a word bash splits (``timeout -s $S 1 ls``): that word's
    pieces may be the last wrapper's own (a signal, a duration, ``-u root``) as well as the
    command, so the wrapper is peeled again with them, as bash would; outer wrappers stay.
    """
    last = _peeled_last(cmd)
    if last is not None:
        peeled = unwrap((Word(last.name), *last.args, *words))
        outer = cmd.wrappers[:-1]
    else:
        peeled = unwrap(words)
        outer = cmd.wrappers
    if peeled.payload is not None:
        return peeled.payload
    return cmd._replace(argv=peeled.argv, wrappers=outer + peeled.wrappers)


def _peeled_last(cmd: SimpleCommand) -> Wrapper | None:
    """Return the wrapper peeled off right before ``cmd``'s words, if any.

    Not a shell (``bash -c`` gave a payload, parsed apart) nor ``env -S STRING`` (the command
    came from the string, not from the words after it).
    """
    if not cmd.wrappers:
        return None
    last = cmd.wrappers[-1]
    if last.name not in WRAPPERS:
        return None
    if last.name == "env" and any(w.value.startswith(("-S", "--s")) for w in last.args):
        return None
    return last


_READINGS = 2  # split command words read through, one after another (each doubles the work)


def _judge(cmd: SimpleCommand, scope: Scope, readings: int = _READINGS) -> list[Hit]:
    given = cmd
    argv = cmd.argv
    hits: list[Hit] = []
    other: list[Hit] = []
    if argv and not argv[0].literal and argv[0].split and readings > 0 and not cmd.resolved:
        # Which word is the command is only known at run time (DG306); what runs when the
        # split word is one word or none is judged too. (A command word the line itself
        # says is the evaluator's: tether.shell.evaluate, the reading judged beside it.)
        other = _readings(cmd, scope, readings - 1)
    metadata = cmd is not given or scope.metadata is not False
    checks, quiet = _checks_of(cmd, name_of(cmd), metadata)
    if checks is not quiet and not self_protection.concerns(scope):
        # Input that names none of Tether's files, hosts or routes skips those checks.
        checks = quiet
    for check in checks:
        hits.extend(check(cmd, scope))
    return hits + other if other else hits


def _readings(cmd: SimpleCommand, scope: Scope, left: int) -> list[Hit]:
    """Judge a command whose first word bash splits as if that word were one word, and none.

    Which word is the command is unknown (DG306 says so), but what runs when the word is one
    word (``timeout $T rm -rf /``) or empty (``$SUDO rm -rf /``) is judged as well: a split
    word must not turn a visible hardline into an ask.
    """
    first, rest = cmd.argv[0], cmd.argv[1:]
    shown = quote(first.value, 40)
    last = _peeled_last(cmd)
    readings: list[tuple[str, SimpleCommand | str]] = []
    if last is not None and last.name == "watch" and first.value == watch_text(rest):
        # The text watch hands to sh: its words are the command when none is shell syntax.
        readings.append((f"if {shown} holds no shell syntax", cmd._replace(argv=rest)))
    elif rest:
        readings.append((f"if {shown} is empty", _repeel(cmd, rest)))
        if last is not None:  # else one word is the command as it stands
            one = (first._replace(split=False), *rest)
            readings.insert(0, (f"if {shown} is one word", _repeel(cmd, one)))
    hits: list[Hit] = []
    for how, reading in readings:
        if isinstance(reading, str):
            found = scope.reparse(reading)
        elif reading.argv and not reading.argv[0].literal and reading.argv[0].value == first.value:
            continue  # peeled again, the same word is still the command: nothing new to judge
        else:
            scope.alias(reading, cmd)
            found = _judge(reading, scope, left)
        hits.extend(Hit(h.code, f"{how}: {h.detail}") for h in found)
    return hits


def _reparse(text: str, depth: int, budget: Budget) -> list[Hit]:
    from tether.shell import parse_command

    model = parse_command(text)
    hits = _hits(model, depth, budget)
    if model.unprovable is not None:
        # Past a parser cap, part of the payload was never seen: it cannot be checked.
        hits.append(
            remote.EVAL_DYNAMIC.hit(f"a nested command could not be analysed: {model.unprovable}")
        )
    return hits


def _hits(
    model: CommandModel, depth: int = 0, budget: Budget | None = None, tree: Tree | None = None
) -> list[Hit]:
    if budget is None:
        budget = Budget(tree=tree)
        budget.source = model
    scope = Scope(model, depth, budget, reparser=_reparse, judge_fn=_judge)
    scope.metadata = secrets.may_name_metadata(model)  # once per input, not once per command
    hits: list[Hit] = []
    if model.errors and not _bash_rejects(model.source):
        # bash runs what the parser could not read (``{sh,-c,'rm -rf /'}``).
        hits.append(
            hidden.UNREADABLE_COMMAND.hit(f"the parser could not read it: {model.errors[0]}")
        )
    for cmd in model.commands:
        hits.extend(_judge(cmd, scope))
    return hits


def _bash_rejects(source: str) -> bool:
    from tether.shell.syntax import bash_rejects  # only for input the parser could not read

    return bash_rejects(source)


def assess(model: CommandModel, tree: Tree | None = None) -> DangerVerdict:
    """Return the strictest danger found in ``model``, with every code, the reasons and advice.

    ``tree``: where the command runs (``tether.rules.readonly.Tree``); with it, a script the
    command reads (``psql -f FILE``, ``sqlite3 DB < FILE``) is read and judged.
    """
    hits = _hits(model, tree=tree)
    if not hits:
        return NO_DANGER
    codes: list[str] = []
    details: list[str] = []
    for hit in hits:
        if hit.code not in codes:
            codes.append(hit.code)
            # A detail quotes the command: one line, escaped, capped (tether.quoting).
            details.append(f"{hit.code} {_BY_CODE[hit.code].name}: {clip(hit.detail, 240)}")
    level = Danger.HARDLINE if any(_BY_CODE[c].tier is Tier.HARDLINE for c in codes) else Danger.ASK
    # Strictest first, so the message leads with what decides the verdict.
    order = sorted(range(len(codes)), key=lambda i: _BY_CODE[codes[i]].tier is not Tier.HARDLINE)
    codes = [codes[i] for i in order]
    details = [details[i] for i in order]
    return DangerVerdict(
        level=level,
        codes=tuple(codes),
        reason="; ".join(details),
        instead=_BY_CODE[codes[0]].instead,
    )


__all__ = ["RULES", "assess"]
