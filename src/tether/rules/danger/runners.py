"""Programs that run another command: find what they run so the catalogue can judge it.

The parser peels the common wrappers (sudo, env, timeout, xargs, bash -c …). These are the
rest: privilege changers (``su -c``, ``pkexec``, ``runuser``), sandboxes and tracers
(``chroot``, ``strace``, ``firejail``, ``nsenter``), lock and tty helpers (``flock``,
``script -c``, ``unbuffer``) and container/cluster exec (``docker exec``, ``kubectl exec``).
Their grammars live in ``tether.shell.programs.RUNNERS``, read by the one getopt engine.
"""

from __future__ import annotations

from tether.shell.model import Word
from tether.shell.options import parse
from tether.shell.programs import RUNNERS
from tether.shell.tools import CLUSTER

RUNNER_NAMES = frozenset(RUNNERS)


def _literal(word: Word) -> str | None:
    return word.value if word.literal else None


def inner(argv: tuple[Word, ...]) -> tuple[Word, ...] | str | None:
    """Return what a runner runs: an argv, a shell string (``su -c '…'``), or None."""
    if not argv or not argv[0].literal:
        return None
    name = argv[0].value.rpartition("/")[2]
    spec = RUNNERS.get(name)
    if spec is None:
        return None
    args = argv[1:]
    if spec.subcommand:
        # The tool's own options may come first (``kubectl -n ns exec pod -- …``).
        rest = parse(CLUSTER[name], args, stop_at=1).operands if name in CLUSTER else args
        if not rest or rest[0].value != spec.subcommand:
            return None
        args = rest[1:]
    # su, sg and runuser without -u find -c anywhere (they permute); a command given as
    # operands starts at the first operand after the positionals.
    parsed = parse(spec.grammar, args)
    for option, value in parsed.options:
        if option in spec.payload and value is not None:
            return None if option in parsed.dynamic else value
    if spec.needs_payload or (name == "runuser" and not parsed.has("--user")):
        return None
    command = parse(spec.grammar, args, stop_at=spec.positionals + 1).operands[spec.positionals :]
    if name in ("flock", "sg") and command and command[0].value in ("-c", "--command"):
        return _literal(command[1]) if len(command) > 1 else None
    return command or None
