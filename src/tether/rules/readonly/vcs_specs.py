"""The options of git's read subcommands, for the one getopt engine (git 2.39.5).

Read from ``git SUB -h`` and the manual pages (``man git-SUB``) of git 2.39.5: every option a
read subcommand takes is listed, so an option git adds later, or one a caller misspells, is
unknown and the command is not proven read-only (principle 1). Git reads them three ways:

- ``parse-options`` subcommands (status, grep, ls-files, cat-file, …) accept unique prefixes of
  long options and ``--opt value``;
- the revision and diff options of log, show, diff, rev-list, … (``setup_revisions``) are
  spelt whole (``git log --onelin`` is refused), and some take their value only attached
  (``--format=…``, ``--pretty=…``, ``--abbrev=…``: written ``name::`` here, so the next word is
  never taken for their value);
- options that write or run programs stay in each spec's ``writes`` (``--output``,
  ``--ext-diff``, ``--textconv``, ``--show-signature``, ``git grep -O``, ``git ls-remote
  --upload-pack``, ``git cat-file --filters``); a ``%G`` pretty format (gpg) is judged in
  ``vcs.py``.
"""

from __future__ import annotations

from tether.shell.specs import Spec
from tether.shell.tools import GIT_SYMBOLIC_REF

CHECKED = "git 2.39.5 (git SUB -h, man git-SUB)"
_RUNS = {
    "--output": "writes its output to a file",
    "--ext-diff": "runs an external diff program",
    "--textconv": "runs textconv filter programs",
    "--show-signature": "runs gpg to verify signatures",
    "--open-files-in-pager": "opens a pager, which can run commands",
    "--upload-pack": "runs a program on the remote side",
    "--exec": "runs a program on the remote side",
    "-u": "runs a program on the remote side",
    "--filters": "runs filter programs",
    "--help": "opens a manual page or a browser",
    "--lost-found": "writes dangling objects into .git/lost-found",
    "--output-directory": "writes the patches into a directory",
    "--remote": "asks a remote repository, which can run programs there",
}

# The diff options (diff.c) every diff-producing subcommand takes.
_DIFF = (
    "G: O: R S: anchored: binary B|break-rewrites:: check color:: color-moved:: "
    "color-moved-ws: color-words:: compact-summary cumulative diff-algorithm: diff-filter: "
    "X|dirstat:: dirstat-by-file:: dst-prefix: exit-code ext-diff C|find-copies:: "
    "find-copies-harder find-object: M|find-renames:: full-index W|function-context histogram "
    "w|ignore-all-space ignore-blank-lines ignore-cr-at-eol I|ignore-matching-lines: "
    "ignore-space-at-eol b|ignore-space-change ignore-submodules:: indent-heuristic "
    "inter-hunk-context: D|irreversible-delete ita-invisible-in-index l: line-prefix: minimal "
    "name-only name-status no-color no-color-moved no-color-moved-ws no-ext-diff "
    "no-indent-heuristic s|no-patch no-prefix no-relative no-rename-empty no-renames "
    "no-textconv numstat output: output-indicator-context: output-indicator-new: "
    "output-indicator-old: p patch patch-with-raw patch-with-stat patience pickaxe-all "
    "pickaxe-regex raw relative:: rename-empty rotate-to: shortstat skip-to: src-prefix: "
    "stat:: stat-count: stat-graph-width: stat-name-width: stat-width: submodule:: summary "
    "a|text textconv u U|unified:: word-diff:: word-diff-regex: ws-error-highlight: z"
)
# The revision options (revision.c) of log, rev-list, shortlog, diff-tree.
_REVS = (
    "no-abbrev abbrev-commit after: all all-match alternate-refs ancestry-path:: author: "
    "author-date-order basic-regexp before: bisect bisect-all bisect-vars boundary branches:: "
    "cherry cherry-mark cherry-pick children commit-header count date: date-order dense "
    "disk-usage:: do-walk encoding:: exclude: exclude-first-parent-only exclude-hidden:: "
    "exclude-promisor-objects expand-tabs:: E|extended-regexp filter:: filter-print-omitted "
    "filter-provided-objects first-parent F|fixed-strings full-history glob: graph grep: "
    "grep-reflog: header ignore-missing in-commit-order indexed-objects invert-grep left-only "
    "left-right max-age: max-parents:: merge merges min-age: min-parents:: missing:: "
    "no-abbrev-commit no-commit-header no-expand-tabs no-filter no-max-parents no-merges "
    "no-min-parents no-object-names no-walk:: not object-names objects objects-edge "
    "objects-edge-aggressive oneline parents P|perl-regexp pretty:: progress:: reflog "
    "i|regexp-ignore-case relative-date remotes:: remove-empty reverse right-only "
    "show-linear-break:: show-pulls show-signature simplify-by-decoration simplify-merges "
    "since: since-as-filter: single-worktree skip: sparse stdin tags:: timestamp topo-order "
    "unpacked until: use-bitmap-index g|walk-reflogs"
)
_REVS_PICKED = "committer: n|max-count: format::"  # shortlog gives -c, -n their own meaning
_SHARED = "abbrev:: quiet"  # both a diff and a revision option
# log's own options and the merge-diff ones (-m -c --cc --dd --remerge-diff, -r -t).
_LOG = (
    "L: clear-decorations combined-all-paths decorate:: decorate-refs: "
    "decorate-refs-exclude: diff-merges: follow full-diff log-size mailmap no-decorate "
    "no-diff-merges no-mailmap no-notes no-standard-notes no-use-mailmap notes:: q|quiet "
    "show-notes:: source standard-notes t use-mailmap m c cc dd remerge-diff r"
)


def _spec(
    sub: str,
    *parts: str,
    runs: str = "",
    abbreviate: bool = True,
    numeric: bool = False,
    permute: bool = True,
) -> Spec:
    """Return the spec of ``git SUB``: its option words (disjoint parts) and what of them runs."""
    writes = {"--help": _RUNS["--help"], **{option: _RUNS[option] for option in runs.split()}}
    return Spec(
        f"git {sub}",
        " ".join(parts),
        writes=writes,
        abbreviate=abbreviate,
        numeric=numeric,
        permute=permute,
        checked=CHECKED,
    )


# What the diff and revision options run (every spec built from them lists these).
_DIFF_RUNS = "--output --ext-diff --textconv"
_LOG_RUNS = f"{_DIFF_RUNS} --show-signature"
_SHORTLOG = "c|committer n|numbered s|summary e|email w:: group: format:: max-count:"
_DIFF_TREE_ONLY = (
    "always c cc combined-all-paths m merge-base no-commit-id no-notes no-standard-notes "
    "notes:: r root show-notes:: standard-notes t v"
)
_DIFF_INDEX_ONLY = "cached m merge-base"
_RANGE_DIFF_ONLY = (
    "creation-factor: follow ita-visible-in-index left-only no-dual-color no-notes:: "
    "notes:: right-only"
)
_BLAME = (
    "C:: L: M:: S: abbrev:: b c color-by-age color-lines contents: date: encoding: "
    "first-parent h ignore-rev: ignore-revs-file: incremental l line-porcelain minimal "
    "no-progress p|porcelain progress root s score-debug e|show-email f|show-name "
    "n|show-number show-stats t w"
)
_GREP = (
    "H I N A|after-context: all-match and G|basic-regexp B|before-context: break cached "
    "color:: column C|context: c|count e: exclude-standard ext-grep E|extended-regexp f: "
    "l|files-with-matches L|files-without-match F|fixed-strings full-name "
    "W|function-context h heading i|ignore-case v|invert-match n|line-number m|max-count: "
    "max-depth: name-only no-color no-exclude-standard no-index no-recursive no-textconv "
    "not z|null o|only-matching O|open-files-in-pager:: or P|perl-regexp q|quiet "
    "recurse-submodules r|recursive p|show-function a|text textconv threads: untracked "
    "w|word-regexp"
)
_CHERRY = "abbrev:: v|verbose"
_SHOW_BRANCH = (
    "a|all color:: current date-order independent list merge-base more:: no-color no-name "
    "g|reflog:: r|remotes sha1-name sparse topics topo-order"
)
_STATUS = (
    "ahead-behind b|branch column:: M|find-renames:: ignore-submodules:: ignored:: long "
    "no-ahead-behind no-column no-renames z|null porcelain:: renames s|short show-stash "
    "u|untracked-files:: v|verbose"
)
_LS_FILES = (
    "abbrev:: c|cached debug deduplicate d|deleted directory empty-directory eol "
    "error-unmatch x|exclude: X|exclude-from: exclude-per-directory: exclude-standard f "
    "format: full-name i|ignored k|killed m|modified no-empty-directory o|others "
    "recurse-submodules resolve-undo sparse s|stage t u|unmerged v with-tree: z"
)
_LS_TREE = "abbrev:: d format: full-name full-tree l|long name-only name-status object-only r t z"
_REV_PARSE = (
    "abbrev-ref:: absolute-git-dir after: all before: branches:: default: disambiguate: "
    "exclude: exclude-hidden: flags git-common-dir git-dir git-path: glob: "
    "is-bare-repository is-inside-git-dir is-inside-work-tree is-shallow-repository "
    "keep-dashdash local-env-vars no-flags no-revs not parseopt path-format: prefix: "
    "q|quiet remotes:: resolve-git-dir: revs-only shared-index-path short:: show-cdup "
    "show-object-format:: show-prefix show-superproject-working-tree show-toplevel since: "
    "sq sq-quote stop-at-non-option stuck-long symbolic symbolic-full-name tags:: until: "
    "verify"
)
_DESCRIBE = (
    "abbrev:: all always broken:: candidates: contains debug dirty:: exact-match exclude: "
    "first-parent long match: tags"
)
_CAT_FILE = (
    "allow-unknown-type batch:: batch-all-objects batch-check:: batch-command:: buffer e "
    "filters follow-symlinks mailmap no-mailmap no-use-mailmap p path: s t textconv "
    "unordered use-mailmap z"
)
_SHOW_REF = "abbrev:: d|dereference exclude-existing:: s|hash:: head heads q|quiet tags verify"
_FOR_EACH_REF = (
    "color:: contains:: count: format: ignore-case merged:: no-contains:: no-merged:: "
    "p|perl points-at: python s|shell sort: tcl"
)
_NAME_REV = "all always annotate-stdin exclude: name-only no-undefined refs: stdin tags undefined"
_MERGE_BASE = "a|all fork-point independent is-ancestor octopus"
_COUNT_OBJECTS = "H|human-readable v|verbose"
_CHECK_IGNORE = "no-index n|non-matching q|quiet stdin v|verbose z"
_CHECK_ATTR = "a|all cached stdin z"
_LS_REMOTE = (
    "exit-code get-url h|heads q|quiet refs o|server-option: sort: symref t|tags upload-pack:"
)

_FORMAT_PATCH = (
    "add-header: attach:: base: cc: cover-from-description: cover-letter creation-factor: "
    "filename-max-length: force-in-body-from from:: ignore-if-in-upstream in-reply-to: "
    "inline:: interdiff: k|keep-subject no-binary no-numbered no-stat n|numbered "
    "numbered-files o|output-directory: q|quiet range-diff: v|reroll-count: rfc "
    "signature: signature-file: signoff start-number: stdout subject-prefix: suffix: "
    "thread:: to: zero-commit no-attach no-thread no-signature no-to no-cc "
    "no-add-header no-cover-letter"
)

# Every read subcommand's spec, by subcommand (and "stash list", "remote get-url", …). The
# parts of each are disjoint (the engine refuses an option listed twice).
_LOG_SPEC = (_LOG, _REVS, _REVS_PICKED, _DIFF, "abbrev::")
_DIFF_EXTRA = (
    "cached staged merge-base 0 1|base 2|ours 3|theirs no-index follow ita-visible-in-index"
)
READS: dict[str, Spec] = {
    "log": _spec("log", *_LOG_SPEC, runs=_LOG_RUNS, abbreviate=False, numeric=True),
    "show": _spec("show", *_LOG_SPEC, runs=_LOG_RUNS, abbreviate=False, numeric=True),
    "whatchanged": _spec("whatchanged", *_LOG_SPEC, runs=_LOG_RUNS, abbreviate=False, numeric=True),
    "diff": _spec("diff", _DIFF_EXTRA, _DIFF, _SHARED, runs=_DIFF_RUNS, abbreviate=False),
    "diff-tree": _spec(
        "diff-tree",
        _DIFF_TREE_ONLY,
        _REVS,
        _REVS_PICKED,
        _DIFF,
        _SHARED,
        runs=_LOG_RUNS,
        abbreviate=False,
    ),
    "diff-index": _spec(
        "diff-index", _DIFF_INDEX_ONLY, _DIFF, _SHARED, runs=_DIFF_RUNS, abbreviate=False
    ),
    "diff-files": _spec(
        "diff-files",
        "c cc q 0 1|base 2|ours 3|theirs",
        _DIFF,
        _SHARED,
        runs=_DIFF_RUNS,
        abbreviate=False,
    ),
    "range-diff": _spec("range-diff", _RANGE_DIFF_ONLY, _DIFF, _SHARED, runs=_DIFF_RUNS),
    "rev-list": _spec(
        "rev-list",
        _REVS,
        _REVS_PICKED,
        _SHARED,
        runs="--show-signature",
        abbreviate=False,
        numeric=True,
    ),
    # shortlog and stash show read their own options with parse-options (prefixes allowed),
    # then hand the rest to setup_revisions: a prefix git refuses is only a refused command.
    "shortlog": _spec("shortlog", _SHORTLOG, _REVS, _SHARED, runs="--show-signature", numeric=True),
    "cherry": _spec("cherry", _CHERRY),
    "show-branch": _spec("show-branch", _SHOW_BRANCH),
    "blame": _spec("blame", _BLAME),
    "annotate": _spec("annotate", _BLAME),
    "grep": _spec("grep", _GREP, runs="--textconv --open-files-in-pager", numeric=True),
    "status": _spec("status", _STATUS),
    "ls-files": _spec("ls-files", _LS_FILES),
    "ls-tree": _spec("ls-tree", _LS_TREE),
    "rev-parse": _spec("rev-parse", _REV_PARSE, abbreviate=False),
    "describe": _spec("describe", _DESCRIBE),
    "cat-file": _spec("cat-file", _CAT_FILE, runs="--textconv --filters"),
    "show-ref": _spec("show-ref", _SHOW_REF),
    "for-each-ref": _spec("for-each-ref", _FOR_EACH_REF),
    "name-rev": _spec("name-rev", _NAME_REV),
    "merge-base": _spec("merge-base", _MERGE_BASE),
    "count-objects": _spec("count-objects", _COUNT_OBJECTS),
    "check-ignore": _spec("check-ignore", _CHECK_IGNORE),
    "check-attr": _spec("check-attr", _CHECK_ATTR),
    "var": _spec("var", "l"),
    "version": _spec("version", "build-options"),
    "ls-remote": _spec("ls-remote", _LS_REMOTE, runs="--upload-pack --exec -u"),
    "stash list": _spec("stash list", *_LOG_SPEC, runs=_LOG_RUNS, abbreviate=False, numeric=True),
    # -u is the diff options' -u here: a flag either way (--include-untracked in stash show)
    "stash show": _spec(
        "stash show",
        "include-untracked only-untracked no-include-untracked",
        _DIFF,
        _SHARED,
        runs=_DIFF_RUNS,
    ),
    "worktree list": _spec("worktree list", "v|verbose porcelain z expire:"),
    "reflog show": _spec("reflog show", *_LOG_SPEC, runs=_LOG_RUNS, abbreviate=False, numeric=True),
    "reflog exists": _spec("reflog exists", ""),
    "remote": _spec("remote", "v|verbose", permute=False),
    "remote get-url": _spec("remote get-url", "push all"),
    # fsck only reports; --lost-found writes .git/lost-found (a write in vcs.py).
    "fsck": _spec(
        "fsck",
        "v|verbose unreachable dangling tags root cache reflogs full connectivity-only strict "
        "lost-found progress name-objects no-reflogs no-full no-dangling no-progress "
        "no-name-objects",
        runs="--lost-found",
    ),
    "notes list": _spec("notes list", ""),
    # The reading form only: one operand, no -d/-m (vcs.py).
    "symbolic-ref": GIT_SYMBOLIC_REF,
    "submodule status": _spec("submodule status", "cached recursive q|quiet"),
    # Read only with --stdout (vcs.py); -o writes the patches into a directory.
    "format-patch": _spec(
        "format-patch",
        _FORMAT_PATCH,
        _REVS,
        _DIFF,
        "abbrev::",
        runs=f"{_LOG_RUNS} --output-directory",
        abbreviate=False,
        numeric=True,
    ),
    # To stdout only: -o/--output writes, --remote/--exec run a program on a remote.
    "archive": _spec(
        "archive",
        "format: prefix: add-file: add-virtual-file: o|output: worktree-attributes v|verbose "
        "l|list remote: exec:",
        runs="--output --exec --remote",
        numeric=True,
    ),
}

__all__ = ["READS"]
