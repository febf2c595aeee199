"""DG2xx: rewriting or discarding version-control history and uncommitted work."""

from __future__ import annotations

from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope
from tether.shell.model import SimpleCommand, Word
from tether.shell.options import Parsed, parse
from tether.shell.tools import GIT, GIT_SUBCOMMANDS, tool_grammar

_UNCOMMITTED = "Commit or stash first (`git stash push -m backup`), then show the user what "
GIT_RESET_HARD = Rule(
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
)

GIT_PUSH_FORCE = Rule(
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
        "git push -u origin +HEAD:main",
        "git push --set-upstream origin +feature",
        "git push --repo=origin +main",
        "git push --tags origin +v1.0",
        "git push --all +origin",
        "git push --no-verify -q origin +main:main",
        "git push --forc origin main",
        "git -c remote.origin.mirror=true push origin",
        "git -c remote.origin.push=+refs/heads/*:refs/heads/* push",
    ),
    not_match=(
        "git push origin main",
        "git push --force-with-lease",
        "git push -f --force-with-lease",
        "git push --set-upstream origin feature",
        "git push -u origin HEAD:main",
        "git push --force-with-lease origin +main",
        "git push origin main:refs/heads/a+b",
        "git push --dry-run --force origin main",
        "git push -n origin +main",
    ),
)

GIT_CLEAN_FORCE = Rule(
    code="DG203",
    name="git-clean-force",
    tier=Tier.ASK,
    summary="git clean -f deletes untracked files",
    why="Untracked files are in no commit; `git clean -f` (with -d, -x) deletes them for good.",
    instead="Run `git clean -n` (dry run) and show the list; delete named paths if needed.",
    match=("git clean -f", "git clean -fdx", "git clean --force", "sudo git clean -fd"),
    not_match=("git clean -n", "git clean --dry-run", "git clean -nd"),
)

GIT_BRANCH_FORCE_DELETE = Rule(
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
)

GIT_DISCARD_WORKTREE = Rule(
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
        "git checkout --track=direct -b topic origin/topic",
        "git restore --help",
    ),
)

GIT_STASH_DROP = Rule(
    code="DG206",
    name="git-stash-drop",
    tier=Tier.ASK,
    summary="git stash drop / clear deletes stashed work",
    why="A dropped stash is only recoverable by digging through dangling commits.",
    instead="Keep the stash, or `git stash show -p` it to a file first.",
    match=("git stash drop", "git stash drop stash@{0}", "git stash clear"),
    not_match=("git stash", "git stash list", "git stash pop"),
)

GIT_HISTORY_REWRITE = Rule(
    code="DG207",
    name="git-history-rewrite",
    tier=Tier.ASK,
    summary="filter-branch, filter-repo, reflog expire/delete, gc --prune=now or git prune",
    why="Ask: these rewrite every commit or delete the safety net (the reflog, unreachable "
    "objects), after which a dropped commit cannot be found again; the remote, if any, "
    "still has what was pushed, so it is not machine-level damage.",
    instead="Work on a fresh clone, or ask the user before rewriting history.",
    match=(
        "git filter-branch --tree-filter 'rm -f x' HEAD",
        "git filter-repo --path x --invert-paths",
        "git reflog expire --expire=now --all",
        "git reflog expire --expire-unreachable=now --all",
        "git reflog delete HEAD@{1}",
        "git gc --prune=now",
        "git gc --prun=all --aggressive",
        "git gc -q --prune=now",
        "git -c gc.pruneExpire=now gc",
        "git prune",
        "git prune --expire=now",
    ),
    not_match=(
        "git reflog",
        "git reflog show",
        "git reflog expire --dry-run --all",
        "git gc",
        "git gc --prune=2.weeks.ago",
        "git prune -n",
        "git log --all",
        "git remote prune origin",
        "git worktree prune",
    ),
)

GIT_WORKTREE_REMOVE_FORCE = Rule(
    code="DG208",
    name="git-worktree-remove-force",
    tier=Tier.ASK,
    summary="git worktree remove --force deletes a worktree with uncommitted changes",
    why="--force removes the worktree directory even when it holds uncommitted edits.",
    instead="Commit or stash inside that worktree, then `git worktree remove` without --force.",
    match=("git worktree remove --force /tmp/wt", "git worktree remove -f ../w"),
    not_match=("git worktree remove /tmp/wt", "git worktree list"),
)

GIT_REF_DELETE = Rule(
    code="DG209",
    name="git-ref-delete",
    tier=Tier.ASK,
    summary="Delete refs through git plumbing (update-ref -d, symbolic-ref -d)",
    why="Ask: `git update-ref -d` (or to the all-zero id) deletes a branch or tag without "
    "the merged check of "
    "`git branch -d`, `--stdin` runs whatever deletes it is fed (often every ref from "
    "`for-each-ref`), and `symbolic-ref -d` drops a symbolic ref such as origin/HEAD "
    "(git refuses HEAD itself); the commits survive only in the reflog until it expires.",
    instead="Use `git branch -d NAME` or `git tag -d NAME`, which name what they delete, "
    "and show the user the refs first (`git for-each-ref`).",
    match=(
        "git update-ref -d refs/heads/main",
        "git update-ref -m cleanup -d refs/tags/v1",
        "git update-ref --stdin < deletes.txt",
        "git for-each-ref --format='delete %(refname)' | git update-ref --stdin",
        "git for-each-ref --format='%(refname)' refs/heads | xargs -n1 git update-ref -d",
        "git symbolic-ref --delete refs/remotes/origin/HEAD",
        "git -C repo update-ref -d refs/heads/x",
        "git update-ref refs/heads/x 0000000000000000000000000000000000000000",
    ),
    not_match=(
        "git update-ref refs/heads/new HEAD",
        "git symbolic-ref HEAD",
        "git symbolic-ref --short HEAD",
        "git symbolic-ref -d HEAD",
        "git for-each-ref --format='%(refname)'",
        "echo git update-ref -d x",
    ),
)

RULES = (
    GIT_RESET_HARD,
    GIT_PUSH_FORCE,
    GIT_CLEAN_FORCE,
    GIT_BRANCH_FORCE_DELETE,
    GIT_DISCARD_WORKTREE,
    GIT_STASH_DROP,
    GIT_HISTORY_REWRITE,
    GIT_WORKTREE_REMOVE_FORCE,
    GIT_REF_DELETE,
)


def git_subcommand(args: tuple[Word, ...]) -> tuple[str, tuple[Word, ...]]:
    """Skip git's global options; return (subcommand, its arguments)."""
    rest = parse(GIT, args).operands
    if not rest:
        return "", ()
    return rest[0].value.lower(), rest[1:]


def _options(sub: str, args: tuple[Word, ...]) -> Parsed:
    return parse(GIT_SUBCOMMANDS.get(sub) or tool_grammar("git " + sub), args)


def check_git(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag git subcommands that discard work or rewrite shared history."""
    top = parse(GIT, cmd.args)
    if not top.operands:
        return
    sub, args = top.operands[0].value.lower(), top.operands[1:]
    parsed = _options(sub, args)
    if parsed.has("-h", "--help"):
        return  # parse-options prints the usage and exits
    config = top.values("-c")
    if sub == "reset":
        hard = [o for o in ("--hard", "--merge") if parsed.maybe(o)]
        if hard:
            yield GIT_RESET_HARD.hit(f"git reset {hard[0]}")
    elif sub == "push":
        yield from _push(parsed, config)
    elif sub == "clean":
        if parsed.maybe("--force") and not parsed.has("--dry-run"):
            yield GIT_CLEAN_FORCE.hit("git clean -f")
    elif sub == "branch":
        if parsed.has("-D") or (parsed.has("--delete") and parsed.has("--force")):
            yield GIT_BRANCH_FORCE_DELETE.hit("git branch -D")
        elif parsed.has("--force"):
            yield GIT_BRANCH_FORCE_DELETE.hit(
                "git branch --force moves an existing branch (its commits drop out)"
            )
    elif sub == "checkout":
        yield from _checkout(parsed)
    elif sub == "restore":
        staged_only = parsed.has("--staged") and not parsed.has("--worktree")
        if (parsed.operands and not staged_only) or parsed.has("--pathspec-from-file"):
            yield GIT_DISCARD_WORKTREE.hit("git restore " + " ".join(w.value for w in args[:3]))
    elif sub == "switch":
        if parsed.has("--force", "--discard-changes"):
            yield GIT_DISCARD_WORKTREE.hit("git switch --discard-changes/--force")
    elif sub == "stash":
        verb = _verb(parsed)
        if verb in ("drop", "clear"):
            yield GIT_STASH_DROP.hit(f"git stash {verb}")
    elif sub in ("filter-branch", "filter-repo"):
        yield GIT_HISTORY_REWRITE.hit(f"git {sub}")
    elif sub in ("reflog", "gc", "prune"):
        yield from _history(sub, parsed, args, config)
    elif sub == "worktree" and _verb(parsed) == "remove" and _removes_by_force(args[1:]):
        yield GIT_WORKTREE_REMOVE_FORCE.hit("git worktree remove --force")
    elif sub == "update-ref" and (parsed.has("-d", "--stdin") or _zero(parsed.operands[1:2])):
        how = "-d" if parsed.has("-d") else "--stdin" if parsed.has("--stdin") else "to 0{40}"
        yield GIT_REF_DELETE.hit(
            f"git update-ref {how} " + " ".join(w.value for w in parsed.operands[:1])
        )
    elif sub == "symbolic-ref" and parsed.has("--delete") and _verb(parsed) != "HEAD":
        # git refuses to delete HEAD itself ("deleting 'HEAD' is not allowed").
        yield GIT_REF_DELETE.hit(
            "git symbolic-ref --delete " + " ".join(w.value for w in parsed.operands[:1])
        )


def _zero(words: tuple[Word, ...]) -> bool:
    """Return True for the all-zero object id, which ``update-ref REF <new>`` reads as delete."""
    return bool(words) and len(words[0].value) in (40, 64) and not words[0].value.strip("0")


def _verb(parsed: Parsed) -> str:
    """Return a subcommand's own first word (``git stash drop``, ``git worktree remove``)."""
    return parsed.operands[0].value if parsed.operands and not parsed.dashdash else ""


_NOW = ("now", "all")


def _history(sub: str, parsed: Parsed, args: tuple[Word, ...], config: list[str]) -> Iterator[Hit]:
    """reflog expire/delete, gc --prune=now and prune: the safety net deleted."""
    if sub == "reflog":
        verb = parse(tool_grammar("git reflog"), args, stop_at=1).operands[:1]
        name = verb[0].value if verb else ""
        if name in ("expire", "delete") and not _options(f"reflog {name}", args[1:]).has(
            "--dry-run"
        ):
            yield GIT_HISTORY_REWRITE.hit(f"git reflog {name}")
        return
    if parsed.has("--dry-run"):
        return
    if sub == "prune":
        yield GIT_HISTORY_REWRITE.hit("git prune deletes unreachable objects")
        return
    pruned = parsed.values("--prune") + [
        c.partition("=")[2] for c in config if c.lower().startswith("gc.pruneexpire=")
    ]
    if any(v.lower() in _NOW or v.lower().startswith("now") for v in pruned):
        yield GIT_HISTORY_REWRITE.hit("git gc --prune=now")


def _removes_by_force(args: tuple[Word, ...]) -> bool:
    return _options("worktree remove", args).has("--force")


def _push(parsed: Parsed, config: list[str]) -> Iterator[Hit]:
    if parsed.has("--dry-run"):
        return  # nothing is sent
    lease = parsed.has("--force-with-lease", "--force-if-includes")
    if parsed.maybe("--force") and not lease:
        yield GIT_PUSH_FORCE.hit("git push --force")
        return
    for o in ("--mirror", "--delete", "--prune"):
        if parsed.maybe(o):
            yield GIT_PUSH_FORCE.hit(f"git push {o}")
            return
    for c in config:
        key, _, value = c.partition("=")
        key = key.lower()
        if key.startswith("remote.") and (
            (key.endswith(".mirror") and value.lower() in ("true", "1", "yes", "on"))
            or (key.endswith(".push") and value.startswith(("+", ":")))
        ):
            yield GIT_PUSH_FORCE.hit(f"git -c {c} push")
            return
    # Every operand after the remote is a refspec; with --repo, every operand is one.
    refspecs = parsed.operands if parsed.values("--repo") else parsed.operands[1:]
    for word in parsed.operands:
        v = word.value
        # A repository is never spelt with a leading "+": read it as a forced refspec too.
        if v.startswith("+") and len(v) > 1 and not lease:
            yield GIT_PUSH_FORCE.hit(f"git push {v} (forced refspec)")
            return
        if v.startswith(":") and len(v) > 1 and word in refspecs:
            yield GIT_PUSH_FORCE.hit(f"git push {v} (deletes the remote ref)")
            return


def _checkout(parsed: Parsed) -> Iterator[Hit]:
    if parsed.has("--pathspec-from-file"):
        yield GIT_DISCARD_WORKTREE.hit("git checkout --pathspec-from-file")
        return
    # --track without -b still makes a branch (from a remote-tracking ref) and takes no paths.
    creates = parsed.has("-b", "-B", "--orphan", "--track")
    dashdash = parsed.dashdash
    positional = [w.value for w in parsed.operands]
    if parsed.has("--force"):
        yield GIT_DISCARD_WORKTREE.hit("git checkout --force")
    elif dashdash and positional:
        yield GIT_DISCARD_WORKTREE.hit("git checkout -- " + " ".join(positional[:3]))
    elif not creates and len(positional) >= 2:
        yield GIT_DISCARD_WORKTREE.hit("git checkout <ref> " + " ".join(positional[1:3]))
    elif not creates and positional == ["."]:
        yield GIT_DISCARD_WORKTREE.hit("git checkout .")


CHECKS = {"git": check_git}
