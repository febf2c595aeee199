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
# Options that make any read subcommand write or run programs; long ones also match their
# abbreviations (git accepts unique prefixes), except the exact names in _EXACT_SAFE.
_DENY = {
    "--output": "writes its output to a file",
    "--ext-diff": "runs an external diff program",
    "--textconv": "runs textconv filter programs",
    "--show-signature": "runs gpg to verify signatures",
    "--help": "opens a manual page or a browser",
    "--open-files-in-pager": "opens a pager, which can run commands",
    "--upload-pack": "runs a program on the remote side",
    "--receive-pack": "runs a program on the remote side",
    "--exec": "runs a program",
    "--filters": "runs filter programs",
    "--paginate": "forces a pager, which can run commands",
}
_EXACT_SAFE = frozenset({"--text", "--filter"})
# Short options that run programs, scoped per subcommand (`git diff -O` is an order file).
_SHORT_DENY = {
    "grep": ("O", "opens a pager, which can run commands"),
    "ls-remote": ("u", "runs a program on the remote side"),
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
_WRITE_SUBCOMMANDS = opts(
    "add commit push pull fetch merge rebase reset checkout switch restore rm mv clean "
    "cherry-pick revert am apply init clone gc prune fsck format-patch archive bisect "
    "submodule notes replace filter-branch update-ref update-index symbolic-ref "
    "sparse-checkout maintenance repack pack-refs lfs help commit-tree mktag mktree "
    "write-tree read-tree checkout-index hash-object"
)


def _denied(args: list[str], sub: str) -> Check | None:
    """Return a write Check if any option (before ``--``) writes or runs programs."""
    for a in args:
        if a == "--":
            return None
        if "%G" in a:
            return write(WRITE_OPTION, f"git {sub}: a '%G' format runs gpg to verify signatures")
        if a.startswith("--"):
            name = a.partition("=")[0]
            if name in _EXACT_SAFE or len(name) < 4:
                continue
            for denied, why in _DENY.items():
                if denied.startswith(name):
                    return write(WRITE_OPTION, f"git {sub} {denied}: {why}")
        elif a.startswith("-") and sub in _SHORT_DENY:
            letter, why = _SHORT_DENY[sub]
            if letter in a:
                return write(WRITE_OPTION, f"git {sub} -{letter}: {why}")
    return None


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
    # `-n<num>`-style counts aside, any operand creates a branch; patterns are refused even
    # with --list (peers disagree; the listing forms are enough to read).
    parsed = parse(GIT_BRANCH, args)
    if isinstance(parsed, Check):
        return write(WRITE_SUBCOMMAND, f"git branch: {parsed.reason.split(': ', 1)[-1]}")
    if parsed.operands:
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


def _remote(args: list[str]) -> Check:
    if all(a in ("-v", "--verbose") for a in args):
        return read("RO407", "git remote only lists remotes")
    if args[0] == "get-url":
        rest = [a for a in args[1:] if a not in ("--push", "--all")]
        if len(rest) == 1 and not rest[0].startswith("-"):
            return read("RO407", "git remote get-url only prints a URL")
    return write(WRITE_SUBCOMMAND, f"git remote {args[0][:40]}: not a listing form")


def _listing(sub: str, verbs: tuple[str, ...], code: str, args: list[str]) -> Check:
    if not args or args[0] in verbs or (sub == "reflog" and args[0].startswith("-")):
        denied = _denied(args, sub)
        return denied or read(code, f"git {sub} {args[0] if args else ''}".rstrip() + " only reads")
    return write(WRITE_SUBCOMMAND, f"git {sub} {args[0][:40]}: changes the repository")


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
    words = [w.value for w in parsed.operands]
    if not words:
        return read("RO403", "git with no subcommand prints usage")
    sub, rest = words[0], words[1:]
    if sub in _CODES:
        return _denied(rest, sub) or read(_CODES[sub], f"git {sub} only reads")
    if "--help" in rest[: rest.index("--") if "--" in rest else len(rest)]:
        return write(WRITE_OPTION, f"git {sub} --help: {_DENY['--help']}")
    sub_args = tuple(Word(w) for w in rest)
    if sub == "branch":
        return _branch(sub_args)
    if sub == "tag":
        return _tag(sub_args)
    if sub == "config":
        return _config(sub_args)
    if sub == "remote":
        return _remote(rest) if rest else read("RO407", "git remote only lists remotes")
    if sub == "stash":
        return (
            _listing("stash", ("list", "show"), "RO408", rest)
            if rest
            else write(WRITE_SUBCOMMAND, "git stash: stashes changes")
        )
    if sub == "worktree":
        return (
            _listing("worktree", ("list",), "RO409", rest)
            if rest
            else write(UNKNOWN_SUBCOMMAND, "git worktree: no subcommand")
        )
    if sub == "reflog":
        return _listing("reflog", ("show", "exists"), "RO410", rest)
    if sub in _WRITE_SUBCOMMANDS:
        return write(WRITE_SUBCOMMAND, f"git {sub}: changes the repository or runs programs")
    return write(UNKNOWN_SUBCOMMAND, f"git {sub[:40]}: not a read subcommand in the catalogue")


ENTRIES: dict[str, Entry] = entries("RO402", "git", _git, GIT_BRANCH, _TAG, _CONFIG)
