"""Permission and ownership changes: the mode parser against the real chmod, and every spelling.

``rules.danger.modes`` says which bits a mode certainly sets and clears whatever the file's
mode was before; the real ``chmod`` (coreutils) is run on files starting from several modes
and must agree. The permission rules must keep their verdict under every getopt spelling of
their options, and benign look-alikes stay unflagged.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tether.rules.base import Danger, Rule, Tier
from tether.rules.danger import assess, cloud, deletion, infra, permissions, privilege, secrets
from tether.rules.danger.modes import Effect, acl_effect, chmod_effect
from tether.rules.danger.paths import OS_ROOTS, SYSTEM_ROOTS
from tether.shell import parse_command

MODES = [
    "0", "000", "600", "644", "755", "0755", "4755", "2750", "1777", "7777", "00644",
    "a-rwx", "u=,g=,o=", "a=", "=", "go-w", "go-rwx", "-x", "-w", "+w", "+x", "u+s", "g+s",
    "o+t", "+t", "+", "a-", "a+rwX", "a-X", "u=X", "u=rwx,go=", "u-r", "o-x", "ug=rw,o=r",
    "u+rw,g-w,o=", "g=u",
    "u=rwx,g=u", "a+r,a-r", "u=r+w", "go=rX", "a-s", "o=rwxt",
]  # fmt: skip
INVALID = ["8", "999", "u", "go", "bogus", "u+q", "a=r,", "rwx", ",", "u+r,"]
STARTS = [0o000, 0o777, 0o4755, 0o1644, 0o640, 0o7777, 0o2070]


def _chmod_from_each_start(path: Path, mode: str) -> list[int]:
    """Run the real chmod MODE on ``path`` set to each start mode; return the modes it leaves.

    With umask 000, the parser's worst case for a mode without a class (``+w``).
    """
    script = (
        'umask 000; m=$1; f=$2; shift 2; for s; do chmod "$s" "$f" && chmod -- "$m" "$f" '
        '&& stat -c %a "$f"; done'
    )
    done = subprocess.run(
        ["sh", "-c", script, "sh", mode, str(path), *(f"{s:o}" for s in STARTS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"chmod {mode}: {done.stderr}"
    return [int(line, 8) for line in done.stdout.split()]


@pytest.mark.parametrize("kind", ["file", "directory"])
@pytest.mark.parametrize("mode", MODES)
def test_the_parser_agrees_with_the_real_chmod(tmp_path: Path, mode: str, kind: str) -> None:
    effect = chmod_effect(mode)
    assert effect is not None, f"{mode!r} is a valid chmod mode"
    target = tmp_path / "f"
    if kind == "file":
        target.write_text("x")
    else:
        target.mkdir()
    results = _chmod_from_each_start(target, mode)
    assert len(results) == len(STARTS)
    for start, after in zip(STARTS, results, strict=True):
        assert after & effect.set == effect.set, (
            f"chmod {mode} on a {kind} from {start:04o} gave {after:04o}: "
            f"the parser says {effect.set:04o} is set"
        )
        assert after & effect.cleared == 0, (
            f"chmod {mode} on a {kind} from {start:04o} gave {after:04o}: "
            f"the parser says {effect.cleared:04o} is cleared"
        )


@pytest.mark.parametrize("mode", INVALID)
def test_modes_chmod_refuses_are_no_change(tmp_path: Path, mode: str) -> None:
    target = tmp_path / "f"
    target.write_text("x")
    done = subprocess.run(["chmod", "--", mode, str(target)], capture_output=True, check=False)
    assert done.returncode != 0, f"the real chmod accepts {mode!r}: the list is wrong"
    assert chmod_effect(mode) is None


def test_the_parser_is_not_vacuous() -> None:
    # Agreement above would hold for a parser that claims nothing; pin what it must claim.
    assert chmod_effect("000") == Effect(0, 0o1777)
    assert chmod_effect("a-rwx") == Effect(0, 0o777)
    assert chmod_effect("u=,g=,o=") == Effect(0, 0o777)
    assert chmod_effect("go-w") == Effect(0, 0o022)
    assert chmod_effect("4755") == Effect(0o4755, 0o1022)
    g_from_u = chmod_effect("u=rwx,g=u")
    assert g_from_u is not None and g_from_u.unknown == 0o070 and g_from_u.set == 0o700


def test_acl_base_entries_are_the_mode_bits() -> None:
    assert acl_effect("u::---").cleared == 0o700
    assert acl_effect("user::r-x,o::---") == Effect(0o500, 0o207)
    assert acl_effect("u:bob:---") == Effect(0, 0), "a named user takes nothing from the owner"
    assert acl_effect("d:u::---") == Effect(0, 0), "a default ACL applies to new files only"


def test_os_roots_are_system_roots() -> None:
    assert OS_ROOTS <= SYSTEM_ROOTS


# Each command keeps its level and code under every getopt spelling of its options.
SPELLINGS: list[tuple[list[str], Danger, str]] = [
    (
        [
            "chmod -R 000 /usr",
            "chmod --recursive 000 /usr",
            "chmod --rec 000 /usr",
            "chmod --recu 000 /usr",
            "chmod -Rv 000 /usr",
            "chmod -vR 000 /usr",
            "chmod -R -v 000 /usr",
            "chmod 000 /usr -R",
            "chmod -c -f -R 000 /usr",
            "sudo chmod -R 000 /usr",
            "env chmod --recursive 000 /usr",
            "sudo -u root env -i chmod -R 000 /usr",
            "chmod -R -- 000 /usr",
            "chmod -R -rwx /usr",
            "chmod -R a-rwx,u=,g= /usr",
            "chmod -R 0 /usr/",
            "chmod -R 000 /usr/../usr",
            "chmod -R 000 //usr",
        ],
        Danger.HARDLINE,
        "DG431",
    ),
    (
        [
            "chown -R user /usr",
            "chown --recursive user:user /usr",
            "chown --recu user /usr",
            "chown -Rh user /usr",
            "chown -hR user /usr",
            "chown user /usr -R",
            "chown --from=root -R user /usr",
            "chown --reference=/tmp/x -R /usr",
            "chgrp -R staff /etc",
            "sudo chown -R $USER /home",
            "setfacl -R -m u::rwx /",
            "setfacl --recursive --modify=o::--- /etc",
        ],
        Danger.HARDLINE,
        "DG431",
    ),
    (
        [
            "chmod 000 /etc",
            "chmod 0 /etc",
            "chmod a-rwx /etc",
            "chmod -rwx /etc",
            "chmod -r /etc",
            "chmod -x /etc",
            "chmod u=,g=,o= /etc",
            "chmod u-r /etc/shadow",
            "chmod --verbose 000 ~",
            "chmod -v -- 0 ~",
            "sudo chmod 0 /bin/sh",
            "chmod 000 $HOME",
            "chmod 000 ~/",
            "chmod 000 /home/user",
            "chmod 600 /etc",
            "chmod 700 /usr",
            "chmod go= /var",
            "setfacl -m u::--- /etc",
            "setfacl --modify=user::--- ~",
            "setfacl -m o::r-- /usr",
            "setfacl --set u::---,g::---,o::--- /bin/sh",
        ],
        Danger.ASK,
        "DG430",
    ),
    (
        [
            "chown -R nobody: ~",
            "chown --recursive nobody ~",
            "chown -R nobody $HOME",
            "chown -R me /usr/local",
            "chown -R root:root ./app",
        ],
        Danger.ASK,
        "DG407",
    ),
    (
        [
            "echo b > /proc/sysrq-trigger",
            "echo c >/proc/sysrq-trigger",
            "echo o >> /proc/sysrq-trigger",
            "printf b > /proc/sysrq-trigger",
            "echo b | tee /proc/sysrq-trigger",
            "echo b | tee -a /proc/sysrq-trigger",
            "echo b | sudo tee /proc/sysrq-trigger >/dev/null",
            "cat /tmp/x > /proc/sysrq-trigger",
            "cd /proc && echo b > sysrq-trigger",
            "echo b > /proc//sysrq-trigger",
            "sudo sh -c 'echo b > /proc/sysrq-trigger'",
            'echo "$X" > /proc/sysrq-trigger',
        ],
        Danger.HARDLINE,
        "DG432",
    ),
]
CASES = [(c, level, code) for commands, level, code in SPELLINGS for c in commands]


@pytest.mark.parametrize(("command", "level", "code"), CASES, ids=[c[0] for c in CASES])
def test_every_spelling_keeps_the_verdict(command: str, level: Danger, code: str) -> None:
    v = assess(parse_command(command))
    assert v.level is level and code in v.codes, f"{command!r}: {v.level.label} {v.codes}"


BENIGN = [
    "chmod 600 ~/.ssh/id_rsa",
    "chmod -R go-w ./build",
    "chmod 000 ./secret.txt",
    "chmod -x script.sh",
    "chmod +x script.sh",
    "chmod 700 ~",
    "chmod 750 ~",
    "chmod go-rwx ~",
    "chmod -R go-rwx ~/.ssh",
    "chmod 700 ~/.ssh",
    "chmod 644 /etc/hosts",
    "chmod 755 /usr/local/bin/tool",
    "chmod 711 /home",
    "chmod 750 /root",
    "chmod -R 755 /opt/app",
    "chmod -R u+rwX,go-w ./src",
    "chmod 0644 ./README.md",
    "chown me file.txt",
    "chown -R me:me ./build",
    "chown -R me /opt/app",
    "setfacl -m u:bob:--- /etc",
    "setfacl -m d:u::--- /etc",
    "setfacl --test -R -m u::--- /",
    "getfacl -R /",
    "echo h > /proc/sysrq-trigger",
    "cat /proc/sysrq-trigger",
    "echo 'chmod -R 000 /usr'",
    "git commit -m 'chmod -R 777 /'",
    "grep -rn 'chown -R' /etc",
]


@pytest.mark.parametrize("command", BENIGN)
def test_benign_look_alikes_stay_unflagged(command: str) -> None:
    v = assess(parse_command(command))
    judged = {"DG406", "DG407", "DG430", "DG431", "DG432"}
    assert not judged & set(v.codes), f"{command!r}: {v.level.label} {v.codes} {v.reason}"


@pytest.mark.parametrize(
    "rule",
    [r for m in (deletion, privilege, permissions, infra, cloud, secrets) for r in m.RULES],
    ids=lambda r: r.code,
)
def test_every_why_names_its_tier(rule: Rule) -> None:
    """Principle 2: the reader learns why a rule blocks outright or only asks."""
    said = "Hardline:" if rule.tier is Tier.HARDLINE else "Ask, not hardline"
    assert said in rule.why, f"{rule.code} {rule.name}: its why should say {said!r}"


# Recursive changes agents and admins run every day: never blocked outright (principle 2).
NOT_HARDLINE = [
    "sudo chown -R $USER /usr/local/lib/node_modules",
    "sudo chown -R $(whoami) /usr/local",
    "sudo chown -R www-data:www-data /var/www",
    "chmod -R 755 /var/www/html",
    "chmod -R g+w /srv/shared",
    "sudo chmod -R 1777 /tmp",
    "sudo chown -R $USER:$USER /home/$USER",
    "chown -R me ~/.npm",
    "sudo chmod -R 700 /root/.ssh",
    "chmod -R 755 /opt/tool",
    "sudo setfacl -R -m u:me:rwx /srv/data",
    "find /var/www -type d -exec chmod 755 {} +",
    "find . -type f -exec chmod 644 {} +",
    "chmod 000 /",
]


@pytest.mark.parametrize("command", NOT_HARDLINE)
def test_common_recursive_changes_are_not_hardline(command: str) -> None:
    v = assess(parse_command(command))
    assert v.level is not Danger.HARDLINE, f"{command!r}: {v.codes} {v.reason}"
