"""RO4xx: git reads, with global options and flag-decided subcommands judged per form.

Git reads can still run programs named in the repository's own config (``core.fsmonitor``,
``core.pager``, ``diff.external``, textconv drivers); docs/readonly.md says how the approval
layer treats that. Here, everything that injects config or paths from the command line
(``-c``, ``--config-env``, ``--git-dir``, …) or asks git to write or run programs
(``--output``, ``--ext-diff``, ``--textconv``, ``--show-signature``, ``%G?``) is a write.
"""

from __future__ import annotations

from tether.rules.readonly.catalogue import Entry, entries
from tether.rules.readonly.spec import (
    DYNAMIC_ARGUMENT,
    UNKNOWN_OPTION,
    UNKNOWN_SUBCOMMAND,
    WRITE_OPTION,
    WRITE_SUBCOMMAND,
    Check,
    Spec,
    opts,
    parse,
    read,
    write,
)
from tether.rules.readonly.vcs_rules import RULES
from tether.rules.readonly.vcs_specs import READS
from tether.shell.model import Word
from tether.shell.options import parse as parse_options
from tether.shell.tools import GIT, GIT_BRANCH

__all__ = ["ENTRIES", "RULES"]

_GLOBAL_FLAGS = opts(
    "--no-pager --no-optional-locks --literal-pathspecs --glob-pathspecs "
    "--noglob-pathspecs --icase-pathspecs --no-replace-objects --bare --no-lazy-fetch "
    "--no-advice"
)
_GLOBAL_WRITES = {
    "-c": "injects config, which can name programs to run",
    "--config-env": "injects config, which can name programs to run",
    "--exec-path": "changes where git finds the programs it runs",
    "--git-dir": "points git at another repository and its config",
    "--work-tree": "points git at another work tree",
    "--namespace": "changes the ref namespace",
    "--super-prefix": "changes path reporting for submodule helpers",
    "--paginate": "forces a pager, which can run commands",
    "--help": "opens a manual page or a browser",
    "--list-cmds": "is an internal option",
    "--attr-source": "reads attributes (which name filter programs) from another tree",
    "--html-path": "is an internal option",
    "--man-path": "is an internal option",
    "--info-path": "is an internal option",
}
_HISTORY = "log show diff shortlog whatchanged blame annotate grep range-diff cherry show-branch"
_HISTORY += " diff-tree diff-index diff-files"
_INSPECT = "ls-files ls-tree rev-parse rev-list describe cat-file show-ref for-each-ref name-rev"
_INSPECT += " merge-base count-objects check-ignore check-attr var version ls-remote"
_CODES = {
    "status": "RO401",
    **dict.fromkeys(_HISTORY.split(), "RO402"),
    **dict.fromkeys(_INSPECT.split(), "RO403"),
}
_REFLOG_WRITES = opts("expire delete")
_WRITE_SUBCOMMANDS = opts(
    "add commit push pull fetch merge rebase reset checkout switch restore rm mv clean "
    "cherry-pick revert am apply init clone gc prune bisect "
    "replace filter-branch update-ref update-index symbolic-ref "
    "sparse-checkout maintenance repack pack-refs lfs help commit-tree mktag mktree "
    "write-tree read-tree checkout-index hash-object"
)


def _read(sub: str, args: tuple[Word, ...], code: str) -> Check:
    """Judge ``git SUB ARGS`` by the spec of that read subcommand (``vcs_specs.READS``)."""
    spec = READS[sub]
    parsed = parse(spec, args)
    if isinstance(parsed, Check):
        return parsed
    for option, value in parsed.options:
        if value is not None and "%G" in value:
            return write(WRITE_OPTION, f"{spec.name} {option}: a '%G' format runs gpg")
    return read(code, f"{spec.name} only reads")


def _writes(why: str, names: str) -> dict[str, str]:
    return dict.fromkeys(names.split(), why)


_TAG = Spec(
    "git tag",
    # -n<num> prints annotation lines; the count can only be attached.
    options="l list n:: i ignore-case no-color no-column omit-empty color:: column:: sort: "
    "format: contains: no-contains: merged: no-merged: points-at:",
    writes=_writes(
        "creates, deletes or verifies a tag (verifying runs gpg)",
        "-a --annotate -s --sign -u --local-user -f --force -d --delete -v --verify -m "
        "--message -F --file -e --edit --cleanup --create-reflog",
    ),
    checked="git 2.39.5",
)
_CONFIG = Spec(
    "git config",
    options="global system local worktree l list get get-all get-regexp get-urlmatch "
    "show-origin show-scope name-only z null includes no-includes bool int bool-or-int path "
    "expiry-date all regexp value f: file: blob: type: default: url: get-color "
    "get-colorbool bool-or-str fixed-value",
    permute=False,  # `git config user.name --bool` sets user.name to "--bool"
    writes=_writes(
        "sets, unsets or edits config",
        "--add --replace-all --unset --unset-all --rename-section --remove-section -e --edit",
    ),
    checked="git 2.39.5",
)
_CONFIG_GETS = ("--get", "--get-all", "--get-regexp", "--get-urlmatch")
_CONFIG_VERBS = opts("set unset rename-section remove-section edit")


def _branch(args: tuple[Word, ...]) -> Check:
    # Any operand creates a branch, but with --list (-l: git 2.23+) the operands are patterns
    # of the branches to list (writing options are refused by the spec before this).
    parsed = parse(GIT_BRANCH, args)
    if isinstance(parsed, Check):
        return write(WRITE_SUBCOMMAND, f"git branch: {parsed.reason.split(': ', 1)[-1]}")
    if parsed.operands and not parsed.has("--list"):
        made = parsed.operands[0].value[:40]
        return write(WRITE_SUBCOMMAND, f"git branch {made}: creates a branch")
    return read("RO404", "git branch only lists branches")


def _tag(args: tuple[Word, ...]) -> Check:
    parsed = parse(_TAG, args)
    if isinstance(parsed, Check):
        return write(WRITE_SUBCOMMAND, f"git tag: {parsed.reason.split(': ', 1)[-1]}")
    if parsed.operands and not parsed.has("-l", "--list"):
        made = parsed.operands[0].value[:40]
        return write(WRITE_SUBCOMMAND, f"git tag {made}: creates a tag")
    return read("RO405", "git tag only lists tags")


def _config(args: tuple[Word, ...]) -> Check:
    parsed = parse(_CONFIG, args)
    if isinstance(parsed, Check):
        return write(WRITE_SUBCOMMAND, f"git config: {parsed.reason.split(': ', 1)[-1]}")
    ops = [w.value for w in parsed.operands]
    if parsed.has("-l", "--list"):
        ok = not ops
    elif parsed.has(*_CONFIG_GETS):
        ok = 1 <= len(ops) <= 2
    elif ops and ops[0] in ("get", "list"):
        ok = len(ops) <= 2 if ops[0] == "get" else len(ops) == 1
    else:
        ok = len(ops) == 1 and ops[0] not in _CONFIG_VERBS
    if not ok:
        return write(WRITE_SUBCOMMAND, "git config: this form sets, unsets or edits config")
    return read("RO406", "git config only reads config")


def _remote(args: tuple[Word, ...]) -> Check:
    parsed = parse(READS["remote"], args)
    if isinstance(parsed, Check):
        return parsed
    if not parsed.operands:
        return read("RO407", "git remote only lists remotes")
    verb, rest = parsed.operands[0].value, parsed.operands[1:]
    if verb == "get-url":
        got = parse(READS["remote get-url"], rest)
        if isinstance(got, Check):
            return got
        if len(got.operands) == 1:
            return read("RO407", "git remote get-url only prints a URL")
    return write(WRITE_SUBCOMMAND, f"git remote {verb[:40]}: not a listing form")


def _listing(sub: str, code: str, args: tuple[Word, ...]) -> Check:
    """Judge ``git stash|worktree|reflog VERB …``: a read verb's options by its spec."""
    verb = args[0].value if args else ""
    if f"{sub} {verb}" in READS:
        return _read(f"{sub} {verb}", args[1:], code)
    if sub == "reflog" and verb not in _REFLOG_WRITES:
        # `git reflog [log options] [REF]` is `git reflog show …` (only argv[1] is a verb).
        return _read("reflog show", args, code)
    return write(WRITE_SUBCOMMAND, f"git {sub} {verb[:40]}: changes the repository")


def _reading_form(sub: str, args: tuple[Word, ...]) -> Check:
    """Judge the subcommands that read in one form only: fsck, ``symbolic-ref NAME``,
    ``format-patch --stdout``, ``archive`` (their specs list the options that write:
    --lost-found, -d/-m, -o/--output-directory, --output/--remote/--exec), and the ``notes
    list`` and ``submodule status`` verbs."""
    if sub in ("notes", "submodule"):
        verb = args[0].value if args else ""
        key = f"{sub} {verb}"
        if key not in READS:
            return write(WRITE_SUBCOMMAND, f"git {sub} {verb[:40]}: not a listing form")
        return _read(key, args[1:], "RO411")
    parsed = parse(READS[sub], args)
    if isinstance(parsed, Check):
        return parsed
    if sub == "symbolic-ref" and len(parsed.operands) != 1:
        return write(WRITE_SUBCOMMAND, "git symbolic-ref: this form sets or deletes a ref")
    if sub == "format-patch" and not parsed.has("--stdout"):
        return write(WRITE_SUBCOMMAND, "git format-patch: writes patch files (add --stdout)")
    return read("RO411", f"git {sub} only prints")


def _git(name: str, args: tuple[Word, ...]) -> Check:
    for w in args:
        if not w.literal:
            return write(DYNAMIC_ARGUMENT, f"git: '{w.value[:60]}' expands at run time")
    # git's own options, by the one grammar of them; the first operand is the subcommand.
    parsed = parse_options(GIT, args)
    for option, _value in parsed.options:
        if option in _GLOBAL_WRITES:
            return write(WRITE_OPTION, f"git {option}: {_GLOBAL_WRITES[option]}")
        if option in ("--version", "-h"):
            return read("RO403", "git only prints its version or usage")
        if option != "-C" and option not in _GLOBAL_FLAGS:
            return write(
                UNKNOWN_OPTION, f"git: global option '{option[:40]}' is not known to be safe"
            )
    if parsed.error is not None or parsed.dashdash:
        return write(UNKNOWN_OPTION, f"git: {parsed.error or 'a -- before the subcommand'}")
    if not parsed.operands:
        return read("RO403", "git with no subcommand prints usage")
    sub, sub_args = parsed.operands[0].value, parsed.operands[1:]
    if sub in _CODES:
        return _read(sub, sub_args, _CODES[sub])
    if sub == "branch":
        return _branch(sub_args)
    if sub == "tag":
        return _tag(sub_args)
    if sub == "config":
        return _config(sub_args)
    if sub == "remote":
        return _remote(sub_args)
    if sub == "stash":
        if not sub_args:
            return write(WRITE_SUBCOMMAND, "git stash: stashes changes")
        return _listing("stash", "RO408", sub_args)
    if sub == "worktree":
        if not sub_args:
            return write(UNKNOWN_SUBCOMMAND, "git worktree: no subcommand")
        return _listing("worktree", "RO409", sub_args)
    if sub == "reflog":
        return _listing("reflog", "RO410", sub_args)
    if sub in ("fsck", "notes", "symbolic-ref", "submodule", "format-patch", "archive"):
        return _reading_form(sub, sub_args)
    if sub in _WRITE_SUBCOMMANDS:
        return write(WRITE_SUBCOMMAND, f"git {sub}: changes the repository or runs programs")
    return write(UNKNOWN_SUBCOMMAND, f"git {sub[:40]}: not a read subcommand in the catalogue")


ENTRIES: dict[str, Entry] = entries(
    "RO402", "git", _git, GIT_BRANCH, _TAG, _CONFIG, *READS.values()
)
