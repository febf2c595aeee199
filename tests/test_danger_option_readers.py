"""The programs whose hand parsers went onto the engine keep their verdicts in every spelling.

systemctl (DG410, DG403) reads its verb through systemd 252's whole grammar: every global
option that takes a value, in every getopt spelling (``-Hh``, ``-H h``, ``--host=h``,
``--ho h``), keeps ``stop`` the verb, and given ``stop`` as its value keeps ``status`` the verb.
tar and unzip (DG605) read ``-C``/``-d``, the mode and the members through their grammars
(``tests/test_danger_extract_real.py`` runs the real tools), as DG605 reads sqlite3, curl,
wget, ``find -exec``, yq and ``sudo -D``. ``busybox APPLET`` is peeled in one place, the
wrapper table, so every check sees the applet. Each command is judged alone and
behind ``sudo -u root``, ``env`` and ``timeout 5``.
"""

from __future__ import annotations

import pytest

from test_danger_spellings import _forms
from tether.rules.danger import assess
from tether.shell import parse_command
from tether.shell.options import FLAG, REQUIRED, Grammar
from tether.shell.tools import MACHINE, TOOLS, UNZIP_MEMBERS

WRAPPERS = ("", "sudo -u root ", "env ", "timeout 5 ")
GUARD = "/root/.claude"  # a host's settings directory, spelt so it can attach (`-d/root/…`)

# (template with {o}, grammar, canonical option, its value or None, code or None)
SPELLED: list[tuple[str, Grammar, str, str | None, str | None]] = [
    ("tar -x -f a.tar {o}", TOOLS["tar"], "--directory", GUARD, "DG605"),
    ("tar {o} -f a.tar -C " + GUARD, TOOLS["tar"], "--extract", None, "DG605"),
    ("tar {o} -C " + GUARD + " -f a.tar", TOOLS["tar"], "--extract", None, "DG605"),
    ("tar -x {o} .claude/settings.json", TOOLS["tar"], "--file", "a.tar", "DG605"),
    ("tar -x -f a.tar {o}", TOOLS["tar"], "--one-top-level", ".claude", "DG605"),
    ("tar {o} -f a.tar -C " + GUARD, TOOLS["tar"], "--list", None, None),
    ("tar {o} -f a.tar .claude/settings.json", TOOLS["tar"], "--create", None, None),
    ("gtar -x -f a.tar {o}", TOOLS["gtar"], "--directory", GUARD, "DG605"),
    ("bsdtar -x -f a.tar {o}", TOOLS["bsdtar"], "--directory", GUARD, "DG605"),
    ("unzip {o} a.zip", TOOLS["unzip"], "-d", GUARD, "DG605"),
    ("unzip -o {o} a.zip", TOOLS["unzip"], "-d", GUARD, "DG605"),
    ("unzip a.zip {o}", UNZIP_MEMBERS, "-d", GUARD, "DG605"),
    ("unzip a.zip m -x n {o}", UNZIP_MEMBERS, "-d", GUARD, "DG605"),
    ("unzip -q {o} a.zip .claude/settings.json", TOOLS["unzip"], "-P", "pw", "DG605"),
    ("unzip {o} a.zip -d " + GUARD, TOOLS["unzip"], "-l", None, None),
    ("unzip {o} a.zip -d " + GUARD, TOOLS["unzip"], "-t", None, None),
    ("unzip {o} a.zip -d " + GUARD, TOOLS["unzip"], "-p", None, None),
    ("unzip {o} a.zip -d " + GUARD, TOOLS["unzip"], "-v", None, None),
    ("unzip {o} a.zip -d " + GUARD, TOOLS["unzip"], "-Z", None, None),
]

SYSTEMCTL = MACHINE["systemctl"]
_EXITS = ("--help", "--version")  # print and exit: no verb runs (read as given, see below)


def _systemctl() -> list[tuple[str, Grammar, str, str | None, str | None]]:
    """Every systemctl option in front of ``stop``; each value-taking one also swallowing it."""
    out: list[tuple[str, Grammar, str, str | None, str | None]] = []
    for canonical, kind in SYSTEMCTL.arity.items():
        if canonical in _EXITS:
            continue
        value = "x" if kind == REQUIRED else None
        out.append(("systemctl {o} stop nginx", SYSTEMCTL, canonical, value, "DG410"))
        out.append(("systemctl {o} -- stop nginx", SYSTEMCTL, canonical, value, "DG410"))
        out.append(("systemctl {o} reboot", SYSTEMCTL, canonical, value, "DG403"))
        if kind == REQUIRED:
            out.append(("systemctl {o} status nginx", SYSTEMCTL, canonical, "stop", None))
        elif kind == FLAG:
            out.append(("systemctl stop nginx {o}", SYSTEMCTL, canonical, None, "DG410"))
    return out


# Written out: old-style first words, `--`, list options, busybox applets.
LISTED: list[tuple[str, str | None]] = [
    ("tar xf a.tar -C " + GUARD, "DG605"),
    ("tar xfC a.tar " + GUARD, "DG605"),
    ("tar Cxf " + GUARD + " a.tar", "DG605"),
    ("tar xvzf a.tgz .claude/settings.json", "DG605"),
    ("tar -xf a.tar -- .claude/settings.json", "DG605"),
    ("tar tf a.tar -C " + GUARD, None),
    ("tar cf a.tar .claude", None),
    ("tar xf a.tar a.txt", None),
    ("unzip a.zip -x a.txt -d " + GUARD, "DG605"),
    ("unzip -qd" + GUARD + " a.zip", "DG605"),
    ("unzip -- a.zip -d " + GUARD, "DG605"),
    ("unzip a.zip .claude/settings.json", "DG605"),
    ("unzip a.zip -x .claude/settings.json", None),
    ("unzip a.zip a.txt -x .claude/settings.json", None),
    ("unzip -l a.zip .claude/settings.json", None),
    ("systemctl -H stop status nginx", None),
    ("systemctl --ho stop status nginx", None),
    ("systemctl --sig 9 kill nginx", "DG410"),
    ("systemctl --signal=9 kill nginx", "DG410"),
    ("systemctl --kill-who main kill nginx", "DG410"),
    ("systemctl --kill- main kill nginx", "DG410"),  # 252: --kill-whom; newer: ambiguous
    ("systemctl --no-b stop nginx", "DG410"),
    ("systemctl -q stop nginx", "DG410"),
    ("systemctl -qH h stop nginx", "DG410"),
    ("systemctl --mes 'why' stop nginx", "DG410"),
    ("loginctl --ho reboot status", None),
    ("shutdown --sho", None),  # systemd's shutdown: getopt_long, --show only shows
    ("reboot --wtmp", None),  # --wtmp-only writes the record, reboots nothing
    ("shutdown --rebo now", "DG403"),
    # self_files' other readers, on the engine too: values are not operands, clusters count
    ("sqlite3 -cmd .tables ~/.local/state/tether/state.db 'DELETE FROM calls'", "DG605"),
    ("sqlite3 -separator , ~/.local/state/tether/state.db 'DELETE FROM calls'", "DG605"),
    ("sqlite3 --readonly ~/.local/state/tether/state.db .tables", None),
    ("curl --output-dir ~/.claude -O https://x.example/settings.json", "DG605"),
    ("curl -sLo ~/.claude/settings.json https://x.example/a", "DG605"),
    ("curl --out ~/.claude/settings.json https://x.example/a", None),  # ambiguous: refused
    ("wget --output-doc ~/.claude/settings.json https://x.example/a", "DG605"),
    ("wget -qO ~/.claude/settings.json https://x.example/a", "DG605"),
    ("sudo --chd /root rm -rf .config/tether", "DG605"),
    ("find . -name settings.json -exec sudo rm {} +", "DG605"),
    ("find . -name settings.json -exec sed -i.bak s/a/b/ {} +", "DG605"),
    ("find . -name settings.json -exec cat {} +", None),
    ("git rm --pathspec-from-file .claude/settings.json", None),  # reads the list from it
    ("git mv -k a .claude/settings.json", "DG605"),
    ("yq --in-pl '.a=1' .tether.yaml", "DG605"),
    ("yq '.a' .tether.yaml", None),
    # DG608 reads env's and sudo's options through their grammars: -uNAME, --uns=NAME
    ("env -uTETHER_CONFIG claude", "DG608"),
    ("env --uns=TETHER_CONFIG claude", "DG608"),
    ("env --unset TETHER_CONFIG claude", "DG608"),
    ("env -0u TETHER_CONFIG claude", "DG608"),
    ("env -i TETHER_MODE=off claude", "DG608"),
    ("sudo -E TETHER_MODE=off claude", "DG608"),
    ("env -C TETHER_X claude", None),  # a directory named so, not a variable
    ("sudo -u TETHER_X ls", None),  # a user named so
    # DG606 reads pkill's and systemctl's operands through their grammars
    ("pkill -KILL -f 'tether serve'", "DG606"),
    ("systemctl --user stop tether-daemon", "DG606"),
    ("pkill -u tether node", "DG422"),  # user tether's node processes (by name), not Tether's
    # DG607 reads pip's and uv's global options (which take values) through their grammars
    ("pip --log /tmp/l uninstall -y tether", "DG607"),
    ("python3 -m pip --proxy http://h uninstall tether", "DG607"),
    ("pip3 --python /usr/bin/python3 uninstall tether", "DG607"),
    ("pip --timeout 5 uninstall --ye tether", "DG607"),
    ("uv --directory /x pip uninstall tether", "DG607"),
    ("uv --project x remove tether", "DG607"),
    ("pip --log tether install requests", None),
    # DG609 reads redis-cli's options (each a word, values separate) through its grammar
    ("redis-cli -X tag RESTORE tether:s 0 tag REPLACE", "DG609"),
    ("redis-cli --show-pushes no DEL tether:x", "DG609"),
    ("valkey-cli -h h -p 1 -n 2 UNLINK tether:x", "DG609"),
    ("redis-cli -a tether GET tether:x", None),
    ("busybox rm -rf /", "DG101"),
    ("busybox /bin/rm -rf /", "DG101"),
    ("busybox busybox rm -rf /", "DG101"),
    ("busybox bin/rm -rf /", "DG101"),  # busybox runs the word's basename (checked by running)
    ("busybox x/y/find / -delete", "DG101"),
    ("busybox find / -delete", "DG101"),
    ("find / -exec busybox rm {} +", "DG101"),
    ("find / -exec sudo busybox rm -rf {} +", "DG101"),
    ("busybox xargs rm -rf / < /dev/null", "DG101"),
    ("busybox sh -c 'rm -rf /'", "DG101"),
    ("busybox unlink /etc/passwd", "DG103"),
    ("busybox find /srv/logs -delete", "DG104"),
    ("busybox kill -9 -1", "DG404"),
    ("busybox reboot", "DG403"),
    ("busybox mkfs.ext2 /dev/sdb1", "DG401"),
    ("busybox dd if=/dev/zero of=/dev/sda", "DG401"),
    ("busybox systemctl stop nginx", "DG410"),
    ("busybox tar xf a.tar -C " + GUARD, "DG605"),
    ("busybox rm -rf /tmp/x", None),
    ("busybox ls /", None),
    ("busybox --help rm", None),
    ("busybox --list", None),
    ("busybox", None),
]


def _commands() -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    for template, g, canonical, value, code in [*SPELLED, *_systemctl()]:
        forms = _forms(g, canonical, value)
        assert forms, f"{g.name}: no spelling of {canonical}"
        out += [(template.format(o=form), code) for form in forms]
    out += LISTED
    return [(w + command, code) for command, code in out for w in WRAPPERS]


COMMANDS = _commands()


@pytest.mark.parametrize(("command", "code"), COMMANDS, ids=[c for c, _ in COMMANDS])
def test_every_spelling_keeps_the_verdict(command: str, code: str | None) -> None:
    codes = assess(parse_command(command)).codes
    if code is None:
        assert not codes, f"{command!r}: flagged {codes}"
    else:
        assert code in codes, f"{command!r}: expected {code}, got {codes}"


@pytest.mark.parametrize(
    "command", ["pkill -u tether node", "systemctl -H tetherhost stop nginx", "sudo -u TETHER_X id"]
)
def test_a_value_naming_tether_is_not_taken_for_a_target(command: str) -> None:
    codes = assess(parse_command(command)).codes
    assert "DG606" not in codes and "DG608" not in codes, f"{command!r}: flagged {codes}"


def test_the_table_reaches_every_systemctl_option_and_abbreviation() -> None:
    commands = {c for c, _ in COMMANDS}
    assert "systemctl --ho stop status nginx" in commands
    assert "systemctl -pstop status nginx" in commands
    assert "systemctl --kill-w=stop status nginx" in commands
    assert len(_systemctl()) > 4 * len(SYSTEMCTL.arity) - 10
