"""What containers and runners run: ``docker/podman run``, ``docker compose run|exec``,
``kubectl run``, with bind mounts read as host paths, and the runners of
``tether.shell.programs.RUNNERS`` (``su -c``, ``chroot``, ``docker exec``, ``kubectl exec`` …)."""

from __future__ import annotations

import functools
import re

from tether.shell.model import Word
from tether.shell.options import REQUIRED, Parsed, parse
from tether.shell.payloads._model import Payload, render
from tether.shell.programs import RUNNERS, Runner
from tether.shell.tools import CLUSTER, TOOLS
from tether.shell.words import first_split, unwrap

# --- containers -----------------------------------------------------------------------------------

CONTAINERS = frozenset({"docker", "podman", "nerdctl", "docker-compose", "kubectl", "oc"})


def _bind_mounts(values: list[str], mounts: list[str]) -> tuple[tuple[str, str], ...]:
    """Return (container path, host path) for each writable bind mount given literally."""
    found: list[tuple[str, str]] = []
    for spec in values:
        host, sep, rest = spec.partition(":")
        target, _, mode = rest.partition(":")
        if sep and host.startswith(("/", "~")) and target.startswith("/") and "ro" not in mode:
            found.append((target.rstrip("/") or "/", host))
    for spec in mounts:
        fields = dict(f.partition("=")[::2] for f in spec.split(","))
        host = fields.get("source") or fields.get("src") or ""
        target = fields.get("target") or fields.get("dst") or fields.get("destination") or ""
        if fields.get("type", "bind") != "bind" or "readonly" in fields or "ro" in fields:
            continue
        if host.startswith(("/", "~")) and target.startswith("/"):
            found.append((target.rstrip("/") or "/", host))
    # Longest container path first: the deepest mount decides.
    return tuple(sorted(found, key=lambda m: -len(m[0])))


def host_path(path: str, mounts: tuple[tuple[str, str], ...]) -> str:
    """Return the host path a container path names (unchanged when no bind mount covers it)."""
    for target, host in mounts:
        if target == "/" and target != host:
            continue  # a mount over the container's own root is not what ``-v /:/`` means here
        if path == target or path.startswith(target + "/"):
            tail = path[len(target) :]
            return (host.rstrip("/") + tail) or "/"
    return path


def _host_paths_in(text: str, mounts: tuple[tuple[str, str], ...]) -> str:
    """Rewrite the container paths in shell text that start a word to the host's paths."""
    for target, host in mounts:
        if target == "/":
            continue
        pattern = r"(?<![^\s'\"=:;|&(])" + re.escape(target) + r"(?=[/\s'\";|&)*]|$)"
        text = re.sub(pattern, functools.partial(_host_root, host.rstrip("/")), text)
    return text


def _host_root(root: str, m: re.Match[str]) -> str:
    # ``/host/etc`` -> ``/etc``; ``/host`` alone -> ``/``.
    return root if m.string[m.end() : m.end() + 1] == "/" else root or "/"


def _compose(args: tuple[Word, ...]) -> list[Payload]:
    """Return what ``docker compose run|exec SERVICE CMD…`` runs in the service's container."""
    rest = parse(CLUSTER["docker compose"], args, stop_at=1).operands
    if not rest or rest[0].value not in ("run", "exec"):
        return []
    sub = rest[0].value
    parsed = parse(CLUSTER[f"docker compose {sub}"], rest[1:])
    argv = list(parsed.operands[1:])
    entry = parsed.values("--entrypoint")
    if entry:
        argv = [Word(e) for e in entry[-1].split()] + argv
    mounts = _bind_mounts(parsed.values("--volume"), [])
    if not argv:
        return [Payload(f"docker compose {sub}", mounts=mounts)] if mounts else []
    return [Payload(f"docker compose {sub}", mounts=mounts, argv=_on_host(argv, mounts))]


def _on_host(argv: list[Word], mounts: tuple[tuple[str, str], ...]) -> tuple[Word, ...]:
    """Return ``argv`` with container paths under a bind mount spelt as the host's paths."""
    return tuple(
        Word(host_path(w.value, mounts), w.literal, w.glob) if w.literal and mounts else w
        for w in argv
    )


def _kubectl_run(args: tuple[Word, ...]) -> list[Payload]:
    """Return what ``kubectl run NAME --image=I -- CMD…`` runs in the new pod."""
    rest = parse(CLUSTER["kubectl"], args, stop_at=1).operands
    if not rest or rest[0].value != "run":
        return []
    parsed = parse(CLUSTER["kubectl run"], rest[1:])
    command = rest[1:][parsed.stop :] if parsed.dashdash else ()
    return [Payload("kubectl run", argv=tuple(command))] if command else []


def from_container(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return what ``docker/podman run``, ``compose run|exec`` and ``kubectl run`` run."""
    if name in ("kubectl", "oc"):
        return _kubectl_run(args) if any(w.value == "run" for w in args) else []
    if name == "docker-compose" or any(w.value == "compose" for w in args[:8]):
        rest = args if name == "docker-compose" else parse(CLUSTER[name], args, stop_at=1).operands
        if name == "docker-compose" or (rest and rest[0].value == "compose"):
            return _compose(rest if name == "docker-compose" else rest[1:])
    if not any(w.value in ("run", "create") for w in args):
        return []
    rest = parse(CLUSTER[name], args, stop_at=1).operands
    if rest and rest[0].value == "container":
        rest = rest[1:]
    if not rest or rest[0].value not in ("run", "create"):
        return []
    parsed = parse(TOOLS["docker run"], rest[1:])
    after = parsed.operands
    # A word bash splits before the command (``docker run $IMG ls``) may hold it. Not the
    # everyday ``-v $PWD:/src``: the shell's own working directory, split only where its name
    # has blanks (and then the mount breaks before anything else runs).
    words = tuple(w._replace(split=False) if _is_pwd(w) else w for w in rest[1:])
    split = first_split(words, len(rest) - len(after)) >= 0
    found = _run_payloads(name, parsed, after)
    if not split:
        return found
    how = f"{name} run after a word split at run time"
    return [p._replace(how=how, dynamic=True) for p in found] or [Payload(how, dynamic=True)]


def _is_pwd(word: Word) -> bool:
    """Return True for a word whose one expansion is ``$PWD`` at its start (``$PWD:/src``)."""
    value = word.value
    for head in ("${PWD}", "$PWD"):
        if value.startswith(head):
            rest = value[len(head) :]
            return (
                not rest[:1].isalnum() and rest[:1] != "_" and not any(c in rest for c in "$`*?[{")
            )
    return False


def _run_payloads(name: str, parsed: Parsed, after: tuple[Word, ...]) -> list[Payload]:
    """Return what ``docker/podman run IMAGE CMD…`` runs, with its host mounts."""
    mounts = _bind_mounts(parsed.values("--volume"), parsed.values("--mount"))
    argv = list(after[1:]) if after else []
    entry = parsed.values("--entrypoint")
    if entry:
        argv = [Word(e) for e in entry[-1].split()] + argv
    if not argv:
        return [Payload(f"{name} run", mounts=mounts)] if mounts else []
    words = _on_host(argv, mounts)
    if mounts:
        # ``sh -c 'rm -rf /host/etc'``: the paths inside a shell string are the host's too.
        peeled = unwrap(tuple(argv))
        if peeled.payload is not None:
            return [Payload(f"{name} run", _host_paths_in(peeled.payload, mounts), mounts=mounts)]
    workdir = parsed.values("--workdir")
    if workdir and mounts and host_path(workdir[-1], mounts) != workdir[-1]:
        # The container starts in a host directory: judged after a ``cd`` there.
        text = f"cd {render([Word(host_path(workdir[-1], mounts))])} && {render(words)}"
        return [Payload(f"{name} run", text, mounts=mounts)]
    return [Payload(f"{name} run", mounts=mounts, argv=words)]


# --- runners: su -c, chroot, docker exec, kubectl exec … ------------------------------------------


def runner_payload(argv: tuple[Word, ...]) -> Payload | None:
    """Return what a runner (``su -c``, ``pkexec``, ``chroot``, ``docker exec`` …) runs.

    A word bash splits before the command (``chroot $R ls``, ``su -c ls $U``, ``docker
    --context $C exec …``) may hold the subcommand, the positionals, another ``-c`` and the
    command itself: the payload is then marked dynamic, and keeps what it runs when the word
    is one word, so that reading is judged too (``chroot $R rm -rf /``).
    """
    if not argv or not argv[0].literal:
        return None
    name = argv[0].value.rpartition("/")[2]
    spec = RUNNERS.get(name)
    if spec is None:
        return None
    args = argv[1:]
    split = False
    if spec.subcommand:
        # The tool's own options may come first (``kubectl -n ns exec pod -- …``).
        rest = parse(CLUSTER[name], args, stop_at=1).operands if name in CLUSTER else args
        split = first_split(args, len(args) - len(rest) + 1) >= 0
        if not rest or rest[0].value != spec.subcommand:
            return _unknown(name, None) if split else None
        args = rest[1:]
    found, start = _runs(name, spec, args)
    # su, sg, script permute: a split word anywhere may add ``-c rm …``.
    if split or first_split(args, len(args) if spec.payload else start) >= 0:
        return _unknown(name, found)
    return found


def _unknown(name: str, found: Payload | None) -> Payload:
    """Return the dynamic payload of a runner whose command a split word may move."""
    how = f"{name} after a word split at run time"
    if found is None:
        return Payload(how, dynamic=True)
    return Payload(how, found.text, True, found.mounts, found.argv)


def _drop_second_words(spec: Runner, args: tuple[Word, ...]) -> tuple[Word, ...]:
    """Return ``args`` without the second word of each two-word option before the command
    (``bwrap --bind SRC DEST cmd``: DEST), so the grammar, one word per value, finds ``cmd``."""
    g = spec.grammar
    kept: list[Word] = []
    i = 0
    while i < len(args):
        word = args[i].value
        option = word.partition("=")[0] if word.startswith("--") else word
        if word == "--" or not word.startswith("-") or option not in g.names:
            break
        takes = g.arity[g.names[option]] == REQUIRED and "=" not in word
        kept.extend(args[i : i + 1 + takes])
        i += 1 + takes
        # The second word, unless the value is a word bash may split (``--bind $X cmd``: $X may
        # be SRC and DEST both, and then cmd is the command: the stricter reading is kept).
        if option in spec.pairs and not (takes and args[i - 1].split):
            i += 1
    return (*kept, *args[i:])


def _runs(name: str, spec: Runner, args: tuple[Word, ...]) -> tuple[Payload | None, int]:
    """Return what a runner runs and where in ``args`` its command starts."""
    # su, sg and runuser without -u find -c anywhere (they permute); a command given as
    # operands starts at the first operand after the positionals.
    full = len(args)  # where the command starts is counted in the words as given
    if spec.pairs:
        args = _drop_second_words(spec, args)
    parsed = parse(spec.grammar, args)
    for option, value in parsed.options:
        if option in spec.payload and value is not None:
            if option in parsed.dynamic:
                return Payload(f"{name} -c of a run-time string", dynamic=True), full
            return Payload(name, value), full
    if spec.needs_payload or (name == "runuser" and not parsed.has("--user")):
        return None, full
    command = parse(spec.grammar, args, stop_at=spec.positionals + 1).operands[spec.positionals :]
    start = full - len(command)  # the command is a suffix of args
    if name in ("flock", "sg") and command and command[0].value in ("-c", "--command"):
        if len(command) < 2:
            return None, full
        if not command[1].literal:
            return Payload(f"{name} -c of a run-time string", dynamic=True), full
        return Payload(name, command[1].value), full
    return (Payload(name, argv=tuple(command)) if command else None), start
