"""RO4xx rule entries: git read subcommands and the listing forms of flag-decided ones."""

from __future__ import annotations

from tether.rules.readonly.catalogue import rule

_WHY_CONFIG = (
    " Git may still run programs named in the repository's own config (core.fsmonitor, "
    "core.pager, diff.external); see docs/readonly.md for how approval treats that."
)

RULES = (
    rule(
        "RO401",
        "git-status",
        "`git status` is read-only (its optional index refresh is a cache write).",
        "It reports the work tree; command-line config injection (`-c`, `--config-env`, "
        "`--git-dir`, `--work-tree`, `--exec-path`) is refused." + _WHY_CONFIG,
        "Nothing to change; prefer `git --no-optional-locks status` in scripts.",
        ("git status", "git status --short", "git status -sb", "git -C . status"),
        (
            "git -c core.fsmonitor=x status",
            "git --work-tree=. status",
            "git status --help",
            "git -- status",
            "git --unknown-option status",
            "git -p status",
        ),
    ),
    rule(
        "RO402",
        "git-history",
        "`git log/show/diff/blame/grep/shortlog` are read-only without options that write or "
        "run programs.",
        "`--output` writes a file, `--ext-diff`/`--textconv` run helper programs, "
        "`--show-signature` and `%G?` formats run gpg, `git grep -O` opens a pager. Every "
        "option of each read subcommand is listed (git 2.39.5, `tether rules RO402`): an "
        "unknown one is refused, and so is an abbreviation git refuses itself (`git log "
        "--out=f`: log, show and diff spell their options whole)." + _WHY_CONFIG,
        "Drop the option; let the tool capture stdout.",
        (
            "git log --oneline -5",
            "git diff",
            "git show -p HEAD",
            "git diff --cached --stat",
            "git log -- --output=log.out",
            "git diff -Oorderfile",
            "git blame -p file",
        ),
        (
            "git log --output=/tmp/x -n 1",
            "git diff --ext-diff",
            "git show --textconv HEAD:f",
            "git log --show-signature -1",
            "git show --format=%G? HEAD",
            "git grep -Ovim needle",
            "git log --out=f",
            "git log --frobnicate",
        ),
    ),
    rule(
        "RO403",
        "git-inspect",
        "Git plumbing reads (`ls-files`, `rev-parse`, `cat-file`, `for-each-ref`, …) are "
        "read-only.",
        "They print objects, refs and paths; `cat-file --filters/--textconv` and "
        "`ls-remote --upload-pack` run programs and are refused." + _WHY_CONFIG,
        "Nothing to change.",
        (
            "git ls-files",
            "git rev-parse HEAD",
            "git cat-file -p HEAD",
            "git --version",
            "git ls-files | wc -l",
        ),
        ("git cat-file --filters HEAD:file", "git ls-remote --upload-pack=x origin"),
    ),
    rule(
        "RO404",
        "git-branch-list",
        "`git branch` is read-only in its listing forms only.",
        "`git branch NAME` creates, `-d/-D/-m/-M/-c/-u` delete, rename, copy or re-track; "
        "only listing flags (`-a`, `-r`, `-v`, `--show-current`, `--contains C`, "
        "`--merged`, `--format`) without operands are proven.",
        "Use `git branch`, `git branch -a` or `git branch --show-current` to read.",
        (
            "git branch",
            "git branch --show-current",
            "git branch -a",
            "git branch --contains HEAD",
            "git branch --list 'feat*'",
            "git -C . branch --show-current",
        ),
        (
            "git branch newbranch",
            "git branch -D feature",
            "git branch -d feature",
            "git branch -v verbose-topic",
            "git branch --edit-description",
            "git branch -- --list",
        ),
    ),
    rule(
        "RO405",
        "git-tag-list",
        "`git tag` is read-only when it lists (no operands, or patterns after `-l/--list`).",
        "`git tag NAME` creates a tag and `-d` deletes one.",
        "Use `git tag -l 'PATTERN'` to read.",
        ("git tag", "git tag --list 'v1*'", "git tag -l", "git tag --contains HEAD"),
        ("git tag v1.0", "git tag -d v1.0", "git tag -a v1 -m x"),
    ),
    rule(
        "RO406",
        "git-config-get",
        "`git config` is read-only in its get and list forms.",
        "`git config k v`, `--unset`, `--add`, `--edit`, `set`, `unset` change config.",
        "Use `git config --get k` or `git config --list` to read.",
        (
            "git config --get user.name",
            "git config --list",
            "git config user.name",
            "git config get user.email",
        ),
        (
            "git config user.name someone",
            "git config --unset user.name",
            "git config set user.name x",
        ),
    ),
    rule(
        "RO407",
        "git-remote-list",
        "`git remote`, `git remote -v` and `git remote get-url NAME` are read-only.",
        "Every other form adds, removes, renames or rewrites remotes (or contacts them).",
        "Use `git remote -v` to read.",
        ("git remote", "git remote -v", "git remote get-url origin"),
        ("git remote set-url origin url", "git remote add x y", "git remote unknown-action"),
    ),
    rule(
        "RO408",
        "git-stash-list",
        "`git stash list` and `git stash show` are read-only.",
        "Plain `git stash`, `push`, `pop`, `apply`, `drop`, `clear` change the work tree or "
        "the stash.",
        "Use `git stash list` to read.",
        ("git stash list", "git stash show -p stash@{0}"),
        ("git stash", "git stash pop", "git stash drop"),
    ),
    rule(
        "RO409",
        "git-worktree-list",
        "`git worktree list` is read-only.",
        "`add`, `remove`, `move`, `prune`, `lock` change work trees.",
        "Use `git worktree list` to read.",
        ("git worktree list", "git worktree list --porcelain"),
        ("git worktree add ../x", "git worktree remove x"),
    ),
    rule(
        "RO410",
        "git-reflog-show",
        "`git reflog` and `git reflog show` are read-only.",
        "`reflog expire` and `reflog delete` rewrite reflogs.",
        "Use `git reflog` to read.",
        ("git reflog", "git reflog show -5", "git reflog -n 10"),
        ("git reflog expire --all", "git reflog delete HEAD@{1}"),
    ),
    rule(
        "RO411",
        "git-reading-forms",
        "`git fsck`, `git notes list`, `git symbolic-ref NAME`, `git submodule status`, "
        "`git format-patch --stdout` and `git archive` to stdout are read-only.",
        "Each has writing forms: `fsck --lost-found`, `notes add`, `symbolic-ref NAME REF` "
        "or `-d`, `submodule update`, `format-patch` without --stdout (one file per patch), "
        "`archive -o FILE` or `--remote`.",
        "Use the reading form.",
        (
            "git fsck",
            "git fsck --full --no-dangling",
            "git notes list",
            "git notes list HEAD",
            "git symbolic-ref HEAD",
            "git symbolic-ref --short HEAD",
            "git submodule status",
            "git submodule status --recursive",
            "git format-patch --stdout HEAD~1",
            "git format-patch -1 --stdout",
            "git archive HEAD | tar -t",
            "git archive --format=tar HEAD src | tar -tv",
        ),
        (
            "git fsck --lost-found",
            "git notes add -m x",
            "git notes",
            "git symbolic-ref HEAD refs/heads/x",
            "git symbolic-ref -d HEAD",
            "git submodule update --init",
            "git submodule",
            "git format-patch HEAD~1",
            "git format-patch -o out --stdout HEAD~1",
            "git archive -o x.tar HEAD",
            "git archive --remote=origin HEAD",
            "git archive --exec=x --remote=o HEAD",
        ),
    ),
)
