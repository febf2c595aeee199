"""Property: composing reads with any write, by any operator or structure, is never read-only."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tether.rules import readonly
from tether.shell import parse_command

READS = [
    "ls -la",
    "cat f.txt",
    "git status",
    "grep -rn foo src",
    "sed -n '1,5p' f",
    "awk '{print $1}' f",
    "echo hi",
    "pwd",
    "find . -name '*.py'",
    "gh api repos/o/r/pulls 2>&1",
    "wc -l < f",
    "sort f",
    "true",
]
WRITES = [
    "rm -rf x",
    "touch f",
    "ls > out.txt",
    "git push",
    "sed -i 's/a/b/' f",
    "find . -delete",
    "sort -o o f",
    "python x.py",
    "echo $(rm x)",
    "X=1 ls",
    "sudo ls",
    "./cat f",
    "gh api -X POST r",
    "git branch new",
    "awk '{print > \"o\"}' f",
    "uniq a b",
    "tee f",
    "cat <(rm x)",
    "$CMD",
    "less f",
]

Compose = st.sampled_from(["&&", "||", ";", "|", "\n", "&", "|&"])


def _wrap(kind: int, body: str) -> str:
    return [
        body,
        f"( {body} )",
        f"{{ {body}; }}",
        f"if true; then {body}; fi",
        f"if {body}; then true; fi",
        f"for i in a b; do {body}; done",
        f"while false; do {body}; done",
        f"until true; do {body}; done",
        f"case x in *) {body};; esac",
        f"f() {{ {body}; }}",
        f"if false; then true; else {body}; fi",
    ][kind]


@settings(max_examples=400, deadline=None)
@given(
    before=st.lists(st.sampled_from(READS), max_size=3),
    after=st.lists(st.sampled_from(READS), max_size=3),
    bad=st.sampled_from(WRITES),
    ops=st.lists(Compose, min_size=6, max_size=6),
    kinds=st.lists(st.integers(0, 10), min_size=2, max_size=2),
)
def test_any_write_anywhere_is_never_read_only(
    before: list[str], after: list[str], bad: str, ops: list[str], kinds: list[int]
) -> None:
    parts = [*before, _wrap(kinds[0], bad), *after]
    text = parts[0]
    for i, part in enumerate(parts[1:]):
        text += f" {ops[i % len(ops)]} {part}"
    text = _wrap(kinds[1], text.strip()) if not text.rstrip().endswith("&") else text
    assert not readonly.assess(parse_command(text)).read_only, text


# tests/test_shell_parse.py pins the shape that once failed here at random (tree-sitter-bash
# merged `a | b | c f`, a newline and `d < f` into one command).
@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(st.sampled_from(READS), min_size=1, max_size=4),
    ops=st.lists(st.sampled_from(["&&", "||", ";", "|", "\n"]), min_size=3, max_size=3),
    kind=st.integers(0, 10),
)
def test_reads_composed_stay_read_only(parts: list[str], ops: list[str], kind: int) -> None:
    text = parts[0]
    for i, part in enumerate(parts[1:]):
        text += f" {ops[i]} {part}"
    text = _wrap(kind, text)
    verdict = readonly.assess(parse_command(text))
    assert verdict.read_only, (text, verdict)


_WORDS = st.sampled_from(
    [
        "sed",
        "awk",
        "find",
        "git",
        "gh",
        "api",
        "sort",
        "uniq",
        "rg",
        "tree",
        "xargs",
        "-n",
        "-i",
        "-e",
        "-f",
        "-X",
        "-o",
        "--",
        "-exec",
        "{}",
        ";",
        "+",
        "'s/a/b/w x'",
        "'p;w'",
        "'{print > \"x\"}'",
        "1,5p",
        "branch",
        "config",
        "status",
        "GET",
        "-c",
        "|",
        "&&",
        ";",
        ">",
        "2>&1",
        "<<<",
        "$x",
        "*",
        "{a,b}",
        "\\",
        "'",
        '"',
        "(",
        ")",
        "for",
        "in",
        "do",
        "done",
        "((",
        "[[",
        "]]",
        "$(",
        "`",
        "\n",
        "=",
        "x=1",
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_WORDS, max_size=14), st.text(max_size=40))
def test_any_token_soup_gets_a_verdict_without_raising(words: list[str], noise: str) -> None:
    text = " ".join(words) + noise
    verdict = readonly.assess(parse_command(text))
    assert isinstance(verdict.read_only, bool) and verdict.reason
    assert verdict.codes or not verdict.read_only


_SORT_FLAGS = st.sampled_from(["-n", "-r", "-u", "-b", "-f", "-k2", "-t,", "-s", "-V", "in.txt"])
_SORT_OUT = st.sampled_from(
    [
        "-o out",
        "-oout",
        "-ro out",
        "-nroout",
        "--output=out",
        "--output out",
        "--out=out",
        "--o=x",
        "--compress-program=gzip",
        "--co=cat",
        "--compress gzip",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_SORT_FLAGS, max_size=5), _SORT_OUT, st.lists(_SORT_FLAGS, max_size=5))
def test_sort_output_in_any_spelling_or_position_writes(
    before: list[str], out: str, after: list[str]
) -> None:
    text = " ".join(["sort", *before, out, *after])
    assert not readonly.assess(parse_command(text)).read_only, text


_SED_WRITES = st.sampled_from(
    [
        "-i",
        "-i.bak",
        "-ni",
        "-nE -i",
        "--in-place",
        "--in-pl=.b",
        "-I .bak",
        "-f s.sed",
        "--file=s",
        "-e 'w out'",
        "-e '1w out'",
        "-e 's/a/b/w out'",
        "-e 's/a/b/e'",
        "-e 'e ls'",
        "-e '$r x'",
    ]
)
_SED_OK = st.sampled_from(["-n", "-E", "-s", "-e 'p'", "-e '1,5p'", "-e 's/a/b/g'", "f.txt"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_SED_OK, max_size=4), _SED_WRITES, st.lists(_SED_OK, max_size=4))
def test_sed_write_in_any_position_writes(before: list[str], bad: str, after: list[str]) -> None:
    text = " ".join(["sed", *before, bad, *after, "f"])
    assert not readonly.assess(parse_command(text)).read_only, text


_FIND_OK = st.sampled_from(
    ["-name '*.py'", "-type f", "-maxdepth 2", "-o", "!", "-print", "-newer x", "( -size +1k )"]
)
_FIND_BAD = st.sampled_from(
    [
        "-delete",
        "-exec rm {} ;",
        "-execdir sh -c x {} +",
        "-ok rm {} ;",
        "-fprint f",
        "-fls f",
        "-fprintf f %p",
        "-fprint0 f",
        "-okdir rm {} ;",
        "-exec grep x {}",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_FIND_OK, max_size=4), _FIND_BAD, st.lists(_FIND_OK, max_size=4))
def test_find_action_in_any_position_writes(before: list[str], bad: str, after: list[str]) -> None:
    text = " ".join(["find", ".", *before, bad, *after]).replace(";", "\\;")
    assert not readonly.assess(parse_command(text)).read_only, text


_GH_OK = st.sampled_from(["--paginate", "-H 'Accept: x'", "--jq .", "-i", "--silent"])
_GH_BAD = st.sampled_from(
    [
        "-f a=b",
        "-F a=1",
        "--field a=b",
        "--raw-field a=b",
        "--input b.json",
        "-X POST",
        "-XPATCH",
        "--method=delete",
        "--method PUT",
        "-X GET -F a=@secret",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_GH_OK, max_size=3), _GH_BAD, st.lists(_GH_OK, max_size=3))
def test_gh_api_write_in_any_position_writes(before: list[str], bad: str, after: list[str]) -> None:
    text = " ".join(["gh", "api", *before, "repos/o/r/issues", bad, *after])
    assert not readonly.assess(parse_command(text)).read_only, text


_GIT_GLOBAL_OK = st.sampled_from(["--no-pager", "-C .", "--no-optional-locks", "-P"])
_GIT_GLOBAL_BAD = st.sampled_from(
    [
        "-c core.pager=x",
        "-ccore.fsmonitor=x",
        "--config-env=a=B",
        "--config-env a=B",
        "--git-dir=x",
        "--git-dir x",
        "--work-tree=.",
        "--exec-path=x",
        "--namespace=n",
        "-p",
        "--paginate",
    ]
)
_GIT_READ = st.sampled_from(["status", "log -1", "diff", "show HEAD", "branch", "tag", "blame f"])
_GIT_BAD_OPT = st.sampled_from(
    [
        "--output=f",
        "--outp=f",
        "--ext-diff",
        "--textconv",
        "--show-signature",
        "--format=%G?",
        "--help",
        "--ext",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_GIT_GLOBAL_OK, max_size=3), _GIT_GLOBAL_BAD, _GIT_READ)
def test_git_config_injection_anywhere_before_the_subcommand_writes(
    ok: list[str], bad: str, sub: str
) -> None:
    text = " ".join(["git", *ok[:1], bad, *ok[1:], sub])
    assert not readonly.assess(parse_command(text)).read_only, text


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["log", "show", "diff", "blame f"]), _GIT_BAD_OPT, st.booleans())
def test_git_read_with_a_writing_option_writes(sub: str, bad: str, early: bool) -> None:
    text = f"git {sub} {bad} -1" if early else f"git {sub} -1 {bad}"
    assert not readonly.assess(parse_command(text)).read_only, text
