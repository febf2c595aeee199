"""Programs that run another command: what they run is judged like a typed command.

``tether.shell.payloads`` knows which programs run a shell command from their arguments (awk,
sed, vim, git aliases, find -exec, docker run, su -c, kubectl exec …); this check parses each
payload again through ``Scope.reparse`` (the depth and size caps every nested payload has) and
reports the inner rule's code. A payload built at run time asks (DG304). A container given the
host's root read-write asks (DG308), and its paths are judged as the host's.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.rules.danger._stdin import stdin_texts
from tether.rules.danger.remote import EVAL_DYNAMIC
from tether.shell.decode import static_input
from tether.shell.model import CommandModel, SimpleCommand, Word
from tether.shell.options import parse
from tether.shell.payloads import (
    ENV_COMMANDS,
    NAMES,
    Payload,
    env_payloads,
    from_git_env,
    make_payloads,
    payloads,
    render,
    tcl_payloads,
)
from tether.shell.programs import WRAPPERS
from tether.shell.words import unwrap

CONTAINER_MOUNTS_HOST_ROOT = Rule(
    code="DG308",
    name="container-mounts-host-root",
    tier=Tier.ASK,
    summary="A container is given the host's root or a system directory read-write",
    why="`docker run -v /:/host …` lets whatever runs in the container (as root there) "
    "rewrite the host's files: `chroot /host` is a root shell on this machine. Tier ask: it "
    "is how some admin tools work, but nothing the container does is contained.",
    instead="Mount only the directory the task needs, read-only where possible "
    '(`-v "$PWD":/src:ro`).',
    match=(
        "docker run -it -v /:/host alpine chroot /host",
        "docker run --rm --volume=/:/mnt ubuntu ls /mnt",
        "podman run -v /etc:/etc2 img true",
        "docker run --mount type=bind,source=/,target=/host img sh",
        "sudo docker container run -v /:/h img",
    ),
    not_match=(
        "docker run -v /:/host:ro alpine ls /host",
        'docker run -v "$PWD":/src img make',
        "docker run -v /srv/cache:/cache img",
        "docker ps -v /:/x",
        "echo docker run -v /:/host img",
    ),
)

RULES = (CONTAINER_MOUNTS_HOST_ROOT,)

# Host directories whose read-write mount hands the machine to the container.
_HOST_ROOTS = frozenset(
    {"/", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/root", "/var"}
)


def _judge(payload: Payload, scope: Scope, cmd: SimpleCommand) -> Iterator[Hit]:
    if payload.dynamic:
        yield EVAL_DYNAMIC.hit(f"{payload.how}: the command is only known at run time")
        if not payload.argv and not payload.text:
            return
        # A split word may move the command; what runs when it does not is judged as well.
    hits = _judge_argv(payload.argv, scope, cmd) if payload.argv else scope.reparse(payload.text)
    for hit in hits:
        yield Hit(hit.code, f"{payload.how} runs {hit.detail}")


def _judge_argv(argv: tuple[Word, ...], scope: Scope, cmd: SimpleCommand) -> list[Hit]:
    """Judge a command given as words, one nesting level down (the caps of ``reparse``)."""
    peeled = unwrap(argv)  # the parser's own peeling: sudo, env, ``sh -c '…'`` …
    if peeled.payload is not None:
        return scope.reparse(peeled.payload)
    if not peeled.argv or not scope.take(" ".join(w.value for w in peeled.argv)):
        return []
    inner = SimpleCommand(
        peeled.argv,
        assignments=cmd.assignments,
        wrappers=cmd.wrappers + peeled.wrappers,
        shell_depth=cmd.shell_depth + 1,
    )
    child = Scope(
        CommandModel(source=render(peeled.argv), commands=(inner,)),
        scope.depth + 1,
        scope.budget,
        reparser=scope.reparser,
        judge_fn=scope.judge_fn,
    )
    return child.judge(inner)


def check_payloads(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Judge the commands awk, sed, vim, git, find, docker, su, kubectl … run for ``cmd``."""
    for payload in payloads(cmd.argv, name_of(cmd)):
        roots = sorted({h for _, h in payload.mounts if posixpath.normpath(h) in _HOST_ROOTS})
        if roots:
            yield CONTAINER_MOUNTS_HOST_ROOT.hit(
                f"{name_of(cmd)} mounts the host's {', '.join(roots)} read-write"
            )
        yield from _judge(payload, scope, cmd)


def check_env_commands(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Judge commands given in the environment (``GIT_SSH_COMMAND='…' git fetch``)."""
    pairs = [(a.name, a.value) for a in cmd.assignments]
    for wrapper in cmd.wrappers:
        if wrapper.name in ("env", "sudo") and any("=" in w.value for w in wrapper.args):
            # The wrapper's own grammar: its NAME=value operands, not its options' values.
            for w in parse(WRAPPERS[wrapper.name].grammar, wrapper.args).operands:
                key, eq, value = w.value.partition("=")
                if eq:
                    pairs.append((key, Word(value, w.literal)))
    if name_of(cmd) == "git":  # FOO='!…' git --config-env=alias.x=FOO x
        for payload in from_git_env(cmd.args, dict(pairs)):
            yield from _judge(payload, scope, cmd)
    pairs = [(key, value) for key, value in pairs if key in ENV_COMMANDS]
    if not pairs:
        return
    for payload in env_payloads(pairs):
        if payload.dynamic:
            continue  # ``EDITOR="$EDITOR"``-like settings are everyday; only literals are read
        yield from _judge(payload, scope, cmd)


def check_at_job(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Judge the job ``at``/``batch`` read from stdin: a shell script run later, on this host."""
    if options_of("at", cmd.args).has("-f", "-l", "-d", "-r", "-c", "-V"):
        return  # a job file, or listing / removing / showing jobs: nothing read from stdin
    texts = [r.body for r in cmd.redirects if r.op in ("<<", "<<-") and r.body]
    texts += [r.target.value for r in cmd.redirects if r.op == "<<<" and r.target is not None]
    if cmd.stage > 0:
        piped = static_input(scope.upstream(cmd)[::-1])
        texts += [piped] if piped is not None else []
    for text in texts:
        for hit in scope.reparse(text):
            yield Hit(hit.code, f"{name_of(cmd)} job runs {hit.detail}")


def check_expect(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Judge expect's ``-c`` script and the script it reads on stdin (``expect <<'EOF'``)."""
    yield from check_payloads(cmd, scope)
    parsed = options_of("expect", cmd.args)
    script = [*parsed.values("-f", "-b"), *(w.value for w in parsed.operands[:1])]
    if script and script[0] != "-":
        return  # a script file: not readable here
    for text in stdin_texts(cmd, scope):
        for payload in tcl_payloads(text):
            yield from _judge(payload, scope, cmd)


def check_make(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Judge make's ``--eval`` text and assignments, and a makefile read on stdin (``-f -``)."""
    yield from check_payloads(cmd, scope)
    if "-" not in options_of("make", cmd.args).values("--file"):
        return
    for text in stdin_texts(cmd, scope):
        for payload in make_payloads(text):
            yield from _judge(payload, scope, cmd)


def check_env_split(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag ``env -S "$S"``: a command line only known at run time (a literal one is peeled)."""
    if "--split-string" in parse(WRAPPERS["env"].grammar, cmd.args).dynamic:
        yield EVAL_DYNAMIC.hit("env -S of a string only known at run time")


CHECKS = {
    **dict.fromkeys(NAMES, check_payloads),
    "env": check_env_split,
    "at": check_at_job,
    "batch": check_at_job,
    "expect": check_expect,
    "make": check_make,
    "gmake": check_make,
}
