"""git's read subcommands, judged by their specs (``rules/readonly/vcs_specs.py``).

Each read subcommand lists every option git 2.39.5 gives it; before, a deny list of a few
write options let every other option through, so an unknown one (a newer git's, a typo git
refuses) was proven read-only. Here, for every spec: each option in every spelling the engine
accepts (attached, ``=``, separate value, unique prefix where git takes one) keeps a read
read-only; each write option in every spelling is refused, behind any wrapper; the same word
after ``--`` is a path; an unknown option is refused; and where git spells options whole
(log, show, diff: ``setup_revisions``) a prefix is refused, as the real git refuses it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tether.rules import readonly
from tether.rules.readonly.vcs_specs import _RUNS, READS
from tether.shell import parse_command
from tether.shell.options import FLAG, OPTIONAL, REQUIRED, Grammar, spellings
from tether.shell.specs import grammar_of

WRAPPERS = ("", "sudo ", "env ", "timeout 5 ", "nice -n 5 ", "sudo -u root env ")
READ_WRAPPERS = ("env ", "timeout 5 ", "nice -n 5 ", "env LC_ALL=C timeout -s KILL 9 ")
# Operands a subcommand needs before it is a read at all.
OPERANDS = {
    "remote get-url": " origin",
    "symbolic-ref": " HEAD",  # the reading form takes one operand
    "format-patch": " --stdout -1",  # only --stdout keeps the patches off the disk
    "archive": " HEAD",
}
# Subcommands whose words after `--` are paths (or revisions), never options.
PATHS_AFTER_DASHDASH = ("log", "show", "diff", "diff-tree", "rev-list", "shortlog", "ls-files")


def read_only(command: str) -> bool:
    return readonly.assess(parse_command(command)).read_only


def _forms(g: Grammar, canonical: str) -> list[str]:
    """Every way to give ``canonical`` (with the value ``v`` where it takes one)."""
    kind = g.arity[canonical]
    out = []
    for spelt in spellings(g, canonical):
        long = spelt.startswith("--")
        if kind == FLAG:
            out.append(spelt)
        elif kind == REQUIRED:
            out += [f"{spelt}=v" if long else f"{spelt}v", f"{spelt} v"]
        elif kind == OPTIONAL:
            out += [f"{spelt}=v" if long else f"{spelt}v", spelt]
    return out


def _cases(*, writes: bool) -> list[tuple[str, str]]:
    cases = []
    for sub, spec in READS.items():
        g = grammar_of(spec)
        for canonical in g.arity:
            if (canonical in spec.writes) == writes:
                cases += [(sub, form) for form in _forms(g, canonical)]
    return cases


READ_FORMS = _cases(writes=False)
WRITE_FORMS = _cases(writes=True)


def test_every_read_subcommand_has_a_spec_and_the_tables_are_big() -> None:
    assert len(READS) >= 38
    assert len(READ_FORMS) > 3000 and len(WRITE_FORMS) > 60


@pytest.mark.parametrize("sub", sorted(READS))
def test_every_option_that_runs_a_program_is_a_write_of_each_spec_that_lists_it(sub: str) -> None:
    g = grammar_of(READS[sub])
    # (the long names: -u runs a program only for ls-remote, it is -p or --unmerged elsewhere)
    listed = {g.names[n] for n in g.names if n in _RUNS and n.startswith("--")}
    assert listed <= set(READS[sub].writes), f"git {sub}: {sorted(listed - set(READS[sub].writes))}"


@pytest.mark.parametrize("sub", sorted(READS))
def test_each_read_option_in_every_spelling_stays_read_only(sub: str) -> None:
    tail = OPERANDS.get(sub, "")
    forms = [f for s, f in READ_FORMS if s == sub]
    wrong = [f for f in forms if not read_only(f"git {sub} {f}{tail}")]
    # and behind the wrappers a read stays a read behind, one per form in turn
    wrong += [
        f"{w}git -C . {sub} {f}{tail}"
        for f, w in zip(forms, READ_WRAPPERS * len(forms), strict=False)
        if not read_only(f"{w}git -C . {sub} {f}{tail}")
    ]
    assert not wrong, f"git {sub}: refused although read-only: {wrong[:8]}"


@pytest.mark.parametrize("sub", sorted(READS))
def test_each_write_option_in_every_spelling_is_refused_behind_every_wrapper(sub: str) -> None:
    tail = OPERANDS.get(sub, "")
    forms = [f for s, f in WRITE_FORMS if s == sub]
    assert forms, f"git {sub}: no write option (--help at least)"
    wrong = [
        f"{w}git {sub} {f}{tail}"
        for f in forms
        for w in WRAPPERS
        if read_only(f"{w}git {sub} {f}{tail}")
    ]
    assert not wrong, f"read-only although it writes or runs a program: {wrong[:8]}"


@pytest.mark.parametrize("sub", PATHS_AFTER_DASHDASH)
def test_a_write_option_after_dashdash_is_a_path(sub: str) -> None:
    for s, form in WRITE_FORMS:
        if s == sub and "=" in form:
            assert read_only(f"git {sub} -- {form}"), f"git {sub} -- {form}"


@pytest.mark.parametrize("sub", sorted(READS))
def test_an_unknown_option_is_refused(sub: str) -> None:
    g = grammar_of(READS[sub])
    tail = OPERANDS.get(sub, "")
    letter = next(c for c in "jJkKyYQ" if f"-{c}" not in g.names)
    for unknown in ("--tether-unknown", "--tether-unknown=v", f"-{letter}"):
        assert not read_only(f"git {sub} {unknown}{tail}"), f"git {sub} {unknown}"
        assert not read_only(f"sudo git -C . {sub} {unknown}{tail}"), f"git {sub} {unknown}"


# Forms old main proved read-only although git does not take them (each exits 128 or 129 in
# git 2.39.5): an unknown option, an option git does not have, an abbreviation git refuses.
OLD_MAIN_PROVED = [
    "git log --frobnicate",
    "git show 66557412 --no-stat",
    'git grep "guardrails" --exclude-dir=docs',
    "git diff --cach",
    "git log --onelin -5",
    "git status --tether-unknown",
    "git ls-files --frobnicate",
    "git rev-list --frobnicate HEAD",
    "git stash list --frobnicate",
    "git worktree list --frobnicate",
    "git reflog --frobnicate",
]


@pytest.mark.parametrize("command", OLD_MAIN_PROVED)
def test_what_old_main_proved_without_knowing_it_is_refused(command: str) -> None:
    assert not read_only(command)


# Writes old main proved read-only: its deny list skipped long names under 4 characters and
# took `--filter` for a safe word, but git's parse-options reads both as unique prefixes.
OLD_MAIN_MISSED_WRITES = [
    # runs the program: `tether verify` saw `pwned` created (tests/test_verify_found.py)
    "git ls-remote --u='touch pwned; git-upload-pack' .",
    "git ls-remote --up=x origin",
    "git cat-file --filter HEAD:f",  # --filters: runs the repository's filter programs
    "git cat-file --t HEAD:f",  # --textconv: runs textconv programs
]


@pytest.mark.parametrize("command", OLD_MAIN_MISSED_WRITES)
def test_write_prefixes_old_main_missed_are_refused(command: str) -> None:
    assert not read_only(command)


# Read forms old main refused and git reads (the spec reads them as git does).
NOW_READ = [
    "git reflog HEAD",  # `git reflog [log options] [REF]` is `git reflog show`
    "git reflog -n 3 --oneline main",
    "git remote -vv",
    "git remote get-url --pu origin",  # get-url reads its options with parse-options
    "git remote get-url --all --push origin",
]


@pytest.mark.parametrize("command", NOW_READ)
def test_read_forms_git_reads_are_read_only(command: str) -> None:
    assert read_only(command)


def _abbreviation_probes() -> list[tuple[str, str, str]]:
    """One safe long flag per spec, cut to a prefix only it has (spec, prefix, full)."""
    out = []
    for sub, spec in READS.items():
        g = grammar_of(spec)
        for name in g.longs:
            canonical = g.names[name]
            if g.arity[canonical] != FLAG or canonical in spec.writes or len(name) < 9:
                continue
            prefix = name[:-2]
            if (
                prefix not in g.names
                and len({g.names[n] for n in g.longs if n.startswith(prefix)}) == 1
            ):
                out.append((sub, prefix, name))
                break
    return out


# Arguments that let each probed subcommand get past its own usage checks in the repository.
PROBE_ARGS = {
    "symbolic-ref": ["HEAD"],
    "archive": ["HEAD"],
    "diff-tree": ["HEAD"],
    "diff-index": ["HEAD"],
    "rev-list": ["HEAD"],
    "blame": ["f"],
    "annotate": ["f"],
    "grep": ["-e", "a"],
    "ls-tree": ["HEAD"],
    "cat-file": ["-t", "HEAD"],
    "merge-base": ["HEAD", "HEAD"],
    "cherry": ["HEAD", "HEAD"],
    "range-diff": ["HEAD~1..HEAD", "HEAD~1..HEAD"],
    "describe": ["--always"],
    "ls-remote": ["."],
    "check-ignore": ["f"],
}
# Where the real git cannot show its rule, the rule each spec keeps (and why).
NOT_PROBED = {
    "stash list": False,  # runs `git log` only when a stash exists: log's rule
    "stash show": True,  # its own parse-options first (-u, --only-untracked): prefixes
    "rev-parse": False,  # prints any word it does not know, so a prefix "succeeds"
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("git-probe")
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(path), "PATH": "/usr/bin:/bin"}
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    for argv in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "a"]):
        subprocess.run(["git", *ident, *argv], cwd=path, env=env, check=True)
    (path / "f").write_text("a\n")
    for argv in (["add", "f"], ["commit", "-q", "-m", "f"]):
        subprocess.run(["git", *ident, *argv], cwd=path, env=env, check=True)
    return path


@pytest.mark.parametrize(("sub", "prefix", "full"), _abbreviation_probes())
def test_the_abbreviation_rule_is_the_real_gits(
    repo: Path, sub: str, prefix: str, full: str
) -> None:
    if sub in NOT_PROBED:
        assert READS[sub].abbreviate is NOT_PROBED[sub]
        return
    argv = ["git", *sub.split(), prefix, *PROBE_ARGS.get(sub, [])]
    done = subprocess.run(
        argv,
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=20,
        stdin=subprocess.DEVNULL,
        env={"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    refused = done.returncode in (128, 129, 255) and any(
        w in done.stderr
        for w in ("unrecognized argument", "unknown option", "invalid option", "usage:")
    )
    assert refused != READS[sub].abbreviate, (argv, done.returncode, done.stderr[:200])
    assert read_only(f"git {sub} {prefix} {' '.join(PROBE_ARGS.get(sub, []))}") == (not refused)
