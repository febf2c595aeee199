"""DG2xx: rewriting or discarding version-control history and uncommitted work."""

from __future__ import annotations

from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, split_options
from tether.shell.model import SimpleCommand, Word

_UNCOMMITTED = "Commit or stash first (`git stash push -m backup`), then show the user what "
RULES = (
    Rule(
        code="DG201",
        name="git-reset-hard",
        tier=Tier.ASK,
        summary="git reset --hard / --merge discards uncommitted work",
        why="Uncommitted changes thrown away by a hard reset are not in any reflog; they are gone.",
        instead=_UNCOMMITTED + "the reset would discard (`git status`, `git diff`).",
        match=(
            "git reset --hard",
            "git reset --hard HEAD~1",
            "sudo git reset --hard",
            "git -C repo reset -q --hard",
            "git reset --merge",
            "env GIT_DIR=.git git reset --hard",
            "echo $(git reset --hard)",
        ),
        not_match=(
            "git reset",
            "git reset --soft HEAD~1",
            "git reset --help",
            "echo git reset --hard",
            "digit reset --hard",
        ),
    ),
    Rule(
        code="DG202",
        name="git-push-force",
        tier=Tier.ASK,
        summary="git push that overwrites or deletes remote refs",
        why="--force, -f, a +ref, a :ref, --delete and --mirror replace or remove commits other "
        "people may have pulled; the old remote state is not recoverable from your clone.",
        instead="Use `git push --force-with-lease` on your own branch, or push a new branch.",
        match=(
            "git push --force",
            "git push -f origin main",
            "git push origin +main",
            "git push origin :feature",
            "git push --mirror",
            "git push --delete origin feature",
            "git push origin +refs/heads/main:refs/heads/main",
        ),
        not_match=(
            "git push origin main",
            "git push --force-with-lease",
            "git push -f --force-with-lease",
            "git push --set-upstream origin feature",
        ),
    ),
    Rule(
        code="DG203",
        name="git-clean-force",
        tier=Tier.ASK,
        summary="git clean -f deletes untracked files",
        why="Untracked files are in no commit; `git clean -f` (with -d, -x) deletes them for good.",
        instead="Run `git clean -n` (dry run) and show the list; delete named paths if needed.",
        match=("git clean -f", "git clean -fdx", "git clean --force", "sudo git clean -fd"),
        not_match=("git clean -n", "git clean --dry-run", "git clean -nd"),
    ),
    Rule(
        code="DG204",
        name="git-branch-force-delete",
        tier=Tier.ASK,
        summary="git branch -D / -f deletes or moves a branch even when unmerged",
        why="-D (or --delete --force) and -f (move an existing branch) drop commits reachable "
        "only from that branch.",
        instead="Use `git branch -d`, which refuses to delete unmerged work.",
        match=(
            "git branch -D feature",
            "git branch -Dv feature",
            "git branch --delete --force x",
            "git branch -f main HEAD~3",
        ),
        not_match=("git branch -d feature", "git branch --delete feature", "git branch -a"),
    ),
    Rule(
        code="DG205",
        name="git-discard-worktree",
        tier=Tier.ASK,
        summary="git checkout/restore/switch that overwrites uncommitted files",
        why="`git checkout -- <path>`, `git checkout <ref> <path>`, `checkout -f`, "
        "`git restore <path>` and `switch --discard-changes` overwrite working-tree edits "
        "that were never committed.",
        instead=_UNCOMMITTED + "would be overwritten; `git stash` keeps it recoverable.",
        match=(
            "git checkout -- .",
            "git checkout -- file.txt",
            "git checkout HEAD -- f",
            "git checkout -f main",
            "git restore .",
            "git restore file.txt",
            "git switch --discard-changes main",
            "git switch -f main",
            "git checkout main a.txt b.txt",
        ),
        not_match=(
            "git checkout main",
            "git checkout -b feature",
            "git checkout -",
            "git restore --staged .",
            "git switch -c feature",
            "git checkout --track direct main",
            "git restore --help",
        ),
    ),
    Rule(
        code="DG206",
        name="git-stash-drop",
        tier=Tier.ASK,
        summary="git stash drop / clear deletes stashed work",
        why="A dropped stash is only recoverable by digging through dangling commits.",
        instead="Keep the stash, or `git stash show -p` it to a file first.",
        match=("git stash drop", "git stash drop stash@{0}", "git stash clear"),
        not_match=("git stash", "git stash list", "git stash pop"),
    ),
    Rule(
        code="DG207",
        name="git-history-rewrite",
        tier=Tier.ASK,
        summary="filter-branch, filter-repo, reflog expire or gc --prune=now",
        why="These rewrite every commit or delete the safety net (reflog, unreachable objects).",
        instead="Work on a fresh clone, or ask the user before rewriting history.",
        match=(
            "git filter-branch --tree-filter 'rm -f x' HEAD",
            "git filter-repo --path x --invert-paths",
            "git reflog expire --expire=now --all",
            "git gc --prune=now",
        ),
        not_match=("git reflog", "git gc", "git log --all"),
    ),
    Rule(
        code="DG208",
        name="git-worktree-remove-force",
        tier=Tier.ASK,
        summary="git worktree remove --force deletes a worktree with uncommitted changes",
        why="--force removes the worktree directory even when it holds uncommitted edits.",
        instead="Commit or stash inside that worktree, then `git worktree remove` without --force.",
        match=("git worktree remove --force /tmp/wt", "git worktree remove -f ../w"),
        not_match=("git worktree remove /tmp/wt", "git worktree list"),
    ),
)

_GIT_VALUE_OPTS = frozenset(
    {
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--super-prefix",
        "--exec-path",
        "--list-cmds",
    }
)


def git_subcommand(args: tuple[Word, ...]) -> tuple[str, tuple[Word, ...]]:
    """Skip git's global options; return (subcommand, its arguments)."""
    i = 0
    while i < len(args):
        v = args[i].value
        if v == "--":
            i += 1
            break
        if not v.startswith("-"):
            break
        if v in _GIT_VALUE_OPTS:
            i += 2
            continue
        i += 1
    if i >= len(args):
        return "", ()
    return args[i].value.lower(), args[i + 1 :]


def check_git(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag git subcommands that discard work or rewrite shared history."""
    sub, args = git_subcommand(cmd.args)
    vals = [w.value for w in args]
    if "--help" in vals or "-h" in vals:
        return
    if sub == "reset":
        for v in vals:
            if v in ("--hard", "--merge") or (len(v) >= 3 and "--hard".startswith(v)):
                yield Hit("DG201", f"git reset {v}")
                return
    elif sub == "push":
        yield from _push(args)
    elif sub == "clean":
        opts, _ = split_options(args, "eE", frozenset({"--exclude"}))
        if ("-f" in opts or "--force" in opts) and not ("-n" in opts or "--dry-run" in opts):
            yield Hit("DG203", "git clean -f")
    elif sub == "branch":
        opts, _ = split_options(args)
        if "-D" in opts or (
            ("-d" in opts or "--delete" in opts) and ("-f" in opts or "--force" in opts)
        ):
            yield Hit("DG204", "git branch -D")
        elif "-f" in opts or "--force" in opts:
            yield Hit("DG204", "git branch --force moves an existing branch (its commits drop out)")
    elif sub == "checkout":
        yield from _checkout(args)
    elif sub == "restore":
        opts, operands = split_options(
            args, "sU", frozenset({"--source", "--unified", "--inter-hunk-context"})
        )
        staged_only = ("-S" in opts or "--staged" in opts) and not (
            "-W" in opts or "--worktree" in opts
        )
        if (operands and not staged_only) or "--pathspec-from-file" in {
            o.split("=")[0] for o in opts
        }:
            yield Hit("DG205", "git restore " + " ".join(vals[:3]))
    elif sub == "switch":
        opts, _ = split_options(args, "cC", frozenset({"--create", "--force-create"}))
        if "-f" in opts or "--force" in opts or "--discard-changes" in opts:
            yield Hit("DG205", "git switch --discard-changes/--force")
    elif sub == "stash":
        if vals and vals[0] in ("drop", "clear"):
            yield Hit("DG206", f"git stash {vals[0]}")
    elif sub in ("filter-branch", "filter-repo"):
        yield Hit("DG207", f"git {sub}")
    elif sub == "reflog" and vals[:1] in (["expire"], ["delete"]):
        yield Hit("DG207", f"git reflog {vals[0]}")
    elif sub == "gc" and any(v.startswith("--prune=now") or v == "--prune=all" for v in vals):
        yield Hit("DG207", "git gc --prune=now")
    elif sub == "worktree" and vals[:1] == ["remove"]:
        opts, _ = split_options(args[1:])
        if "-f" in opts or "--force" in opts:
            yield Hit("DG208", "git worktree remove --force")


def _push(args: tuple[Word, ...]) -> Iterator[Hit]:
    opts, operands = split_options(
        args, "o", frozenset({"--push-option", "--repo", "--receive-pack", "--exec"})
    )
    lease = any(o.startswith(("--force-with-lease", "--force-if-includes")) for o in opts)
    forced = "-f" in opts or any(o.split("=", 1)[0] in ("--force", "--forc", "--for") for o in opts)
    if forced and not lease:
        yield Hit("DG202", "git push --force")
        return
    for o in ("--mirror", "--delete", "-d", "--prune"):
        if o in opts:
            yield Hit("DG202", f"git push {o}")
            return
    for word in operands[1:]:
        v = word.value
        if v.startswith("+") and len(v) > 1 and not lease:
            yield Hit("DG202", f"git push {v} (forced refspec)")
            return
        if v.startswith(":") and len(v) > 1:
            yield Hit("DG202", f"git push {v} (deletes the remote ref)")
            return


_CHECKOUT_VALUE_SHORT = "bBU"
_CHECKOUT_VALUE_LONG = frozenset({"--orphan", "--unified", "--inter-hunk-context", "--conflict"})
_CHECKOUT_OPTIONAL = {
    "--track": ("direct", "inherit"),
    "-t": ("direct", "inherit"),
    "--recurse-submodules": ("checkout", "on-demand", "yes", "no"),
}


def _checkout(args: tuple[Word, ...]) -> Iterator[Hit]:
    positional: list[str] = []
    creates = False
    force = False
    dashdash = False
    i = 0
    while i < len(args):
        v = args[i].value
        i += 1
        if dashdash:
            positional.append(v)
            continue
        if v == "--":
            dashdash = True
            continue
        if v.startswith("--"):
            name = v.split("=", 1)[0]
            if name == "--force":
                force = True
            if name == "--pathspec-from-file":
                yield Hit("DG205", "git checkout --pathspec-from-file")
                return
            if name in ("--orphan",):
                creates = True
            takes_value = name in _CHECKOUT_VALUE_LONG
            # ``--track direct`` / ``--recurse-submodules on-demand``: an optional known value.
            optional = i < len(args) and args[i].value in _CHECKOUT_OPTIONAL.get(name, ())
            if "=" not in v and (takes_value or optional):
                i += 1
            continue
        if v.startswith("-") and v != "-":
            letters = v[1:]
            for pos, letter in enumerate(letters):
                if letter == "f":
                    force = True
                if letter in _CHECKOUT_VALUE_SHORT:
                    creates = creates or letter in "bB"
                    if pos == len(letters) - 1:
                        i += 1
                    break
            continue
        positional.append(v)
    if force:
        yield Hit("DG205", "git checkout --force")
    elif dashdash and positional:
        yield Hit("DG205", "git checkout -- " + " ".join(positional[:3]))
    elif not creates and len(positional) >= 2:
        yield Hit("DG205", "git checkout <ref> " + " ".join(positional[1:3]))
    elif not creates and positional == ["."]:
        yield Hit("DG205", "git checkout .")


CHECKS = {"git": check_git}
