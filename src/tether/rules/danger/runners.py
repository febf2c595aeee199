"""Programs that run another command: find what they run so the catalogue can judge it.

The parser peels the common wrappers (sudo, env, timeout, xargs, bash -c …). These are the
rest: privilege changers (``su -c``, ``pkexec``, ``runuser``), sandboxes and tracers
(``chroot``, ``strace``, ``firejail``, ``nsenter``), lock and tty helpers (``flock``,
``script -c``, ``unbuffer``) and container/cluster exec (``docker exec``, ``kubectl exec``).
Each spec says which options take a value, how many positionals precede the command, and which
option carries a shell string instead.
"""

from __future__ import annotations

from typing import NamedTuple

from tether.shell.model import Word


class _Runner(NamedTuple):
    short_values: str = ""
    long_values: frozenset[str] = frozenset()
    positionals: int = 0
    payload_option: str = ""  # e.g. "-c": the next word is a shell command string
    subcommand: str = ""  # e.g. "exec" for ``docker exec``


def _longs(*names: str) -> frozenset[str]:
    return frozenset(names)


_RUNNERS: dict[str, _Runner] = {
    "su": _Runner("cgGs", _longs("--command", "--group", "--supp-group", "--shell"), 0, "-c"),
    "sg": _Runner("", _longs(), 1, "-c"),
    "runuser": _Runner("cgGsu", _longs("--command", "--group", "--user", "--shell"), 0, "-c"),
    "pkexec": _Runner("", _longs("--user")),
    "chroot": _Runner("", _longs("--userspec", "--groups"), 1),
    "flock": _Runner("wEc", _longs("--timeout", "--conflict-exit-code", "--command"), 1, "-c"),
    "script": _Runner("cEIOBT", _longs("--command", "--log-in", "--log-out", "--echo"), 0, "-c"),
    "strace": _Runner("abeEIoOpPsSuUX", _longs("--output", "--expr", "--attach", "--user")),
    "ltrace": _Runner("aAenopsSu", _longs("--output")),
    "firejail": _Runner(),
    "unbuffer": _Runner(),
    "chronic": _Runner(),
    "caffeinate": _Runner("tw"),
    "proxychains": _Runner("f"),
    "proxychains4": _Runner("f"),
    "torsocks": _Runner("uPapi"),
    # -m, -u, -n … take an optional namespace file only when attached (``-m/proc/1/ns/mnt``).
    "nsenter": _Runner("tSGw", _longs("--target", "--setuid", "--setgid", "--wd")),
    "setpriv": _Runner(
        "", _longs("--reuid", "--regid", "--groups", "--inh-caps", "--bounding-set")
    ),
    "systemd-run": _Runner("pEuM", _longs("--unit", "--property", "--uid", "--gid", "--machine")),
    "numactl": _Runner("NmCpi", _longs("--cpunodebind", "--membind", "--physcpubind")),
    "cpulimit": _Runner("lpe", _longs("--limit", "--pid", "--exe")),
    "gtimeout": _Runner("sk", _longs("--signal", "--kill-after"), 1),
    "valgrind": _Runner(),
    "catchsegv": _Runner(),
    "dbus-launch": _Runner(),
    "docker": _Runner("euw", _longs("--env", "--user", "--workdir", "--env-file"), 1, "", "exec"),
    "podman": _Runner("euw", _longs("--env", "--user", "--workdir", "--env-file"), 1, "", "exec"),
    "kubectl": _Runner("cn", _longs("--container", "--namespace", "--context"), 1, "", "exec"),
    "oc": _Runner("cn", _longs("--container", "--namespace"), 1, "", "exec"),
}
RUNNER_NAMES = frozenset(_RUNNERS)


def inner(argv: tuple[Word, ...]) -> tuple[Word, ...] | str | None:
    """Return what a runner runs: an argv, a shell string (``su -c '…'``), or None."""
    if not argv or not argv[0].literal:
        return None
    spec = _RUNNERS.get(argv[0].value.rpartition("/")[2])
    if spec is None:
        return None
    args = argv[1:]
    if spec.subcommand:
        if not args or args[0].value != spec.subcommand:
            return None
        args = args[1:]
    i = 0
    skipped = 0
    # ``su USER -c …`` and ``runuser USER -c …`` name the user as a positional; ``runuser -u
    # USER cmd…`` does not.
    user_positional = argv[0].value == "su" or (
        argv[0].value == "runuser" and not any(w.value.startswith(("-u", "--user")) for w in args)
    )
    while i < len(args):
        word = args[i]
        v = word.value
        if v == "--":
            i += 1
            break
        if spec.payload_option and v in (spec.payload_option, "--command") and i + 1 < len(args):
            payload = args[i + 1]
            return payload.value if payload.literal else None
        if v.startswith("--"):
            name = v.split("=", 1)[0]
            i += 2 if name in spec.long_values and "=" not in v else 1
            continue
        if v.startswith("-") and v != "-":
            letters = v[1:]
            letter = spec.payload_option[1:]
            if letter and letters.endswith(letter) and i + 1 < len(args):
                # A bundle ending in the payload option (``script -qc '…'``).
                last = args[i + 1]
                return last.value if last.literal else None
            taker = next((k for k, c in enumerate(letters) if c in spec.short_values), -1)
            i += 2 if taker == len(letters) - 1 else 1
            continue
        if v == "-" and argv[0].value in ("su", "runuser"):
            i += 1  # ``su -``: a login shell
            continue
        if skipped < spec.positionals or (user_positional and skipped == 0):
            skipped += 1  # the user, container, pod, new root or lock file
            i += 1
            continue
        break
    rest = args[i:]
    if argv[0].value == "su":
        return None  # without -c su starts an interactive shell: nothing to judge here
    return rest or None
