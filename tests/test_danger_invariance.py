"""Respelling a command does not change its verdict; quoting it as data removes the verdict.

Every dangerous command below keeps its level and its rule under wrappers, path prefixes,
quote tricks, substitutions and shell payloads, and becomes harmless once it is only text given
to ``echo``, ``grep`` or a commit message.
"""

from __future__ import annotations

import base64
import shlex

import pytest

from tether.rules.base import Danger
from tether.rules.danger import assess
from tether.shell import parse_command

DANGEROUS: list[tuple[str, Danger, str]] = [
    ("rm -rf /", Danger.HARDLINE, "DG101"),
    ("rm -rf ~", Danger.HARDLINE, "DG101"),
    ("mkfs.ext4 /dev/sda1", Danger.HARDLINE, "DG401"),
    ("dd if=/dev/zero of=/dev/sda", Danger.HARDLINE, "DG401"),
    ("reboot", Danger.HARDLINE, "DG403"),
    ("kill -9 -1", Danger.HARDLINE, "DG404"),
    ("git reset --hard", Danger.ASK, "DG201"),
    ("git push --force origin main", Danger.ASK, "DG202"),
    ("git clean -fdx", Danger.ASK, "DG203"),
    ("rm -rf /srv/data", Danger.ASK, "DG102"),
    ("chmod -R 777 .", Danger.ASK, "DG406"),
    ("terraform destroy -auto-approve", Danger.ASK, "DG502"),
    ("crontab -r", Danger.ASK, "DG411"),
    ("docker run -v /:/host alpine true", Danger.ASK, "DG308"),
    ("mkfs.ext4 /dev/sdz9", Danger.HARDLINE, "DG401"),
    ("cp disk.img /dev/sda", Danger.HARDLINE, "DG401"),
    ("sfdisk --delete /dev/sda", Danger.HARDLINE, "DG401"),
    ("kill -s KILL -1", Danger.HARDLINE, "DG404"),
    ("kill -- -1", Danger.HARDLINE, "DG404"),
    ("pkill -9 -u root", Danger.HARDLINE, "DG404"),
    ("iptables -F", Danger.ASK, "DG412"),
    ("nft flush ruleset", Danger.ASK, "DG412"),
    ("userdel -r deploy", Danger.ASK, "DG413"),
    ("passwd -d root", Danger.ASK, "DG414"),
    ("swapoff -a", Danger.ASK, "DG415"),
    ("sysctl -w net.ipv4.ip_forward=1", Danger.ASK, "DG416"),
    ("fdisk /dev/sda", Danger.ASK, "DG417"),
    ("killall -9 node", Danger.ASK, "DG418"),
    ("setfacl -R -b /", Danger.ASK, "DG419"),
    ("git update-ref -d refs/heads/main", Danger.ASK, "DG209"),
    ("git push -u origin +HEAD:main", Danger.ASK, "DG202"),
    ("git gc --prune=now", Danger.ASK, "DG207"),
    ("ip link set eth0 down", Danger.ASK, "DG421"),
    ("chmod 000 /etc", Danger.ASK, "DG430"),
    ("chmod a-rwx ~", Danger.ASK, "DG430"),
    ("setfacl -m u::--- /etc", Danger.ASK, "DG430"),
    ("chown -R nobody: ~", Danger.ASK, "DG407"),
    ("chmod -R 777 /", Danger.HARDLINE, "DG431"),
    ("chmod -R u=,g=,o= /", Danger.HARDLINE, "DG431"),
    ("chown -R user /usr", Danger.HARDLINE, "DG431"),
    ("echo b > /proc/sysrq-trigger", Danger.HARDLINE, "DG432"),
    ("echo c | tee /proc/sysrq-trigger", Danger.HARDLINE, "DG432"),
    ("curl -o /dev/sda http://x", Danger.HARDLINE, "DG401"),
    ("wget -qO /dev/sda http://x", Danger.HARDLINE, "DG401"),
    ("sort -o /dev/sda f", Danger.HARDLINE, "DG401"),
    ("curl -o /etc/passwd http://x", Danger.ASK, "DG409"),
    ("kill -9 $(pgrep x)", Danger.ASK, "DG418"),
    ("pgrep x | xargs kill -9", Danger.ASK, "DG418"),
    ("chattr -R +i /", Danger.ASK, "DG433"),
    ("chattr +i /etc/passwd", Danger.ASK, "DG433"),
    ("npm --registry http://x publish", Danger.ASK, "DG505"),
    ("mvn -s settings.xml deploy", Danger.ASK, "DG505"),
    ("fd . / -x rm -rf", Danger.ASK, "DG102"),
    ("chflags -R schg /", Danger.ASK, "DG433"),
    ("xxd -r dump /dev/sda", Danger.HARDLINE, "DG401"),
    ("openssl enc -d -in x -out /dev/sda", Danger.HARDLINE, "DG401"),
    ("gpg --outp /dev/sda -d x.gpg", Danger.HARDLINE, "DG401"),
    ("qemu-img convert -O raw x.qcow2 /dev/sda", Danger.HARDLINE, "DG401"),
    ("bun --cwd pkg publish", Danger.ASK, "DG505"),
    ("codex -cfeatures.hooks=false exec x", Danger.ASK, "DG610"),
    ("claude --safe-mode -p x", Danger.ASK, "DG610"),
    ("tether doctor --fi", Danger.ASK, "DG604"),
]

# Commands whose own quotes or braces cannot sit inside a template's quoted string raw (awk's
# "…", perl's q{…}): wrapped by the templates that quote them ({q}) or leave them bare.
QUOTED: list[tuple[str, Danger, str]] = [
    ("expect -c 'spawn rm -rf /'", Danger.HARDLINE, "DG101"),
    ("make --eval='x:=$(shell rm -rf /)'", Danger.HARDLINE, "DG101"),
    ("make X='$(shell rm -rf /)'", Danger.HARDLINE, "DG101"),
    ("find / -name x -exec wipefs -a {} \\;", Danger.ASK, "DG420"),
    ("env FOO='!rm -rf /' git --config-env=alias.st=FOO st", Danger.HARDLINE, "DG101"),
    ("pwsh -Command 'Remove-Item -Recurse -Force C:/x'", Danger.ASK, "DG107"),
    ("tar -xf a.tar --transform 's,^,.claude/,'", Danger.ASK, "DG605"),
]

WRAPPINGS = [
    "{c}",
    "sudo {c}",
    "sudo -u root {c}",
    "env FOO=1 {c}",
    "timeout 5 {c}",
    "nice -n 10 {c}",
    "nohup {c}",
    "command {c}",
    "time {c}",
    "true && {c}",
    "false || {c}",
    "ls; {c}",
    "( {c} )",
    "{{ {c}; }}",
    "echo $({c})",
    "echo `{c}`",
    "bash -c {q}",
    "sh -c {q}",
    "bash -lc {q}",
    "if true; then {c}; fi",
    "for i in 1; do {c}; done",
    "f() {{ {c}; }}; f",
    "{c} &",
    "{c} 2>/dev/null",
    "ssh host {q}",
    "su -c {q}",
    "su root -c {q}",
    "sudo su - -c {q}",
    "runuser -u root -- {c}",
    "pkexec {c}",
    "chroot / {c}",
    "flock /tmp/lock {c}",
    "script -qc {q} /dev/null",
    "strace -f -o trace.txt {c}",
    "firejail --noprofile {c}",
    "nsenter -t 1 -m {c}",
    "docker exec -it web {c}",
    "kubectl exec -it pod -- {c}",
    "kubectl exec pod -- sh -c {q}",
    # Keywords tree-sitter-bash does not know, zsh's precommand modifiers and =NAME
    # (tests/test_danger_keywords_real.py runs each in the real shell).
    "coproc {c}",
    "coproc X {{ {c}; }}",
    "repeat 2 {c}",
    "noglob {c}",
    "nocorrect {c}",
    "- {c}",
    "={c}",
    # Programs that run a shell command from their own arguments (tether.shell.payloads).
    "awk 'BEGIN{{system(\"{c}\")}}'",
    'gawk \'BEGIN{{print "{c}" | "sh"}}\'',
    "awk 'BEGIN{{\"{c}\" | getline x}}'",
    "sed -n '1e {c}' notes.txt",
    "perl -e 'system \"{c}\"'",
    "perl -e 'qx{{{c}}}'",
    "perl -e 'exec q{{{c}}}'",
    "ruby -e 'system(\"{c}\")'",
    "python3 -c 'import os; os.system(\"{c}\")'",
    'node -e \'require("child_process").execSync("{c}")\'',
    "vim -c '!{c}' -c q",
    "nvim +'silent !{c}' +q",
    "git -c 'alias.x=!{c}' x",
    "env -S {q}",
    "find . -maxdepth 0 -exec sh -c {q} \\;",
    "find . -maxdepth 0 -execdir {c} \\;",
    "echo . | xargs sh -c {q}",
    "docker run --rm alpine sh -c {q}",
    "podman run -it img {c}",
    # Decoded payloads: static bytes are judged like the typed command.
    "echo {b64} | base64 -d | sh",
    "base64 --decode <<< {b64} | bash",
    "printf {px} | sh",
    "echo -e {px} | bash",
    "xxd -r -p <<< {hex} | sh",
    'sh -c "$(echo {b64} | base64 -d)"',
]


def _respell(command: str) -> list[str]:
    """Spell the command word differently without changing what runs."""
    head, _, rest = command.partition(" ")
    tail = f" {rest}" if rest else ""
    spellings = [f"\\{head}{tail}", f"'{head}'{tail}", f'"{head}"{tail}']
    if len(head) > 1:
        spellings.append(f"{head[0]}''{head[1:]}{tail}")
    if head in ("rm", "git", "chmod", "chown", "dd", "kill", "reboot", "crontab", "setfacl"):
        spellings.append(f"/usr/bin/{head}{tail}")
    return spellings


def _fill(template: str, cmd: str) -> str:
    return template.format(
        c=cmd,
        q=shlex.quote(cmd),
        b64=base64.b64encode(cmd.encode()).decode(),
        hex=cmd.encode().hex(),
        px="'" + "".join(f"\\x{b:02x}" for b in cmd.encode()) + "'",
    )


def _bare(template: str) -> bool:
    """Return True when ``{c}`` sits outside any quotes of the template."""
    return ("'" not in template and '"' not in template) or "{c}" not in template


CASES = (
    [(_fill(t, cmd), level, code) for cmd, level, code in DANGEROUS for t in WRAPPINGS]
    + [(_fill(t, cmd), level, code) for cmd, level, code in QUOTED for t in WRAPPINGS if _bare(t)]
    + [(s, level, code) for cmd, level, code in [*DANGEROUS, *QUOTED] for s in _respell(cmd)]
)


@pytest.mark.parametrize(("command", "level", "code"), CASES, ids=[c[0][:50] for c in CASES])
def test_respelling_keeps_the_verdict(command: str, level: Danger, code: str) -> None:
    v = assess(parse_command(command))
    assert v.level is level and code in v.codes, f"{command!r}: {v.level.label} {v.codes}"


DATA_TEMPLATES = [
    "echo {q}",
    "printf '%s\\n' {q}",
    "grep -rn {q} .",
    "rg -F {q} src/",
    "git commit -m {q}",
    "gh pr create --title {q} --body x",
    "cat <<'EOF'\n{c}\nEOF",
    "echo {q} >> notes.md",
    "python3 -c {pq}",
    "# {c}",
]


@pytest.mark.parametrize(
    "command",
    [
        template.format(c=cmd, q=shlex.quote(cmd), pq=shlex.quote(f"print({cmd!r})"))
        for cmd, _, _ in [*DANGEROUS, *QUOTED]
        for template in DATA_TEMPLATES
    ],
)
def test_quoted_as_data_is_harmless(command: str) -> None:
    v = assess(parse_command(command))
    assert v.level is Danger.NONE, f"{command!r}: {v.level.label} {v.codes} {v.reason}"
