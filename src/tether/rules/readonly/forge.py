"""RO5xx: GitHub CLI reads (``gh api`` while the method stays GET, ``gh pr view``, …)."""

from __future__ import annotations

from tether.rules.readonly.catalogue import Entry, entries, rule
from tether.rules.readonly.spec import (
    DYNAMIC_ARGUMENT,
    UNKNOWN_OPTION,
    UNKNOWN_SUBCOMMAND,
    WRITE_OPTION,
    WRITE_SUBCOMMAND,
    Check,
    Spec,
    check_spec,
    grammar_of,
    parse,
    read,
    spelling,
    write,
)
from tether.shell.model import Word
from tether.shell.options import parse as parse_options
from tether.shell.tools import GH_API

RULES = (
    rule(
        "RO501",
        "gh-api-get",
        "`gh api ENDPOINT` is read-only while the method stays GET.",
        "`-f/-F/--field/--raw-field` switch the method to POST unless `-X GET` keeps it (then "
        "they are query parameters; `-F k=@file` would send a local file), `--input` sends a "
        "body, `-X/--method` other than GET/HEAD changes state; the `graphql` endpoint POSTs "
        "(mutations included); `--cache TTL` stores the response in gh's cache directory, "
        "and later `--cache` calls print the stored answer instead of asking GitHub. Here "
        "`-f` is a field, not grep's pattern file: write flags are scoped per command.",
        "Use GET endpoints, or ask for approval for the write.",
        (
            "gh api repos/o/r/pulls/1/reviews 2>&1",
            "gh api repos/o/r/issues --paginate --jq '.[]'",
            "gh api -X GET repos/o/r",
            "cd ~/repo && gh api repos/o/r/pulls/1/reviews 2>&1",
            "gh api -X GET search/issues -f q=repo:o/r",
        ),
        (
            "gh api -f key=value repos/o/r",
            "gh api -X POST repos/o/r/issues",
            "gh api --method=DELETE repos/o/r",
            "gh api repos/o/r --input body.json",
            "gh api graphql -F query=@q.graphql",
            "gh api -X GET x -F body=@secret.txt",
            "gh api --cache 1h repos/o/r",
        ),
    ),
    rule(
        "RO502",
        "gh-view",
        "`gh` listing and viewing subcommands (`pr view/list/diff/checks`, `issue view/list`, "
        "`run view/list`, `repo view`, `label list`, …) are read-only without `--web`.",
        "They print data fetched from the forge; `--web` opens a browser, `run view --log` "
        "and `--log-failed` download the run's log archive into gh's cache directory and "
        "keep it, `gh status` keeps the comments it reads there for 30 days, and every other "
        "verb (`create`, `merge`, `edit`, `close`, `checkout`, `download`) changes state.",
        "Use the `view`/`list` verbs to read.",
        (
            "gh pr view 1",
            "GH_PAGER=cat gh pr view 1",
            "gh pr checks 12",
            "gh run view 5 --verbose",
            "gh issue list --state open",
            "gh label list",
            "gh --version",
        ),
        (
            "gh pr merge 1 --merge",
            "gh label create bug",
            "gh pr view 1 --web",
            "gh pr checkout 3",
            "gh run download 5",
            "gh run view 5 --log",
            "gh run view 5 --log-failed",
            "gh status",
        ),
    ),
)

# The options of each read verb, from the gh 2.46 manual, and compared with Debian 12's gh 2.23
# (its --help, for the verbs it has: tests/test_gh_writes.py). cobra/pflag: flags may follow
# operands, long flags are spelt whole (no prefixes), `-R/--repo` is a persistent flag of the
# repository groups. `--web` opens a browser (it runs a program); every other option only
# shapes output.
_CHECKED = "gh 2.46 (manual pages), gh 2.23.0"
_OUT = "q|jq: json: t|template:"
_WEB = {"--web": "opens a browser"}
# pkg/cmd/run/view/view.go getRunLog: the archive is stored as run-log-ID-TIME.zip under
# $TMPDIR/gh-cli-cache (gh 2.23) or gh's cache directory (~/.cache/gh, later versions).
_RUN_LOG = "downloads the run's log archive into gh's cache directory and keeps it"
_VERB_WRITES = {("run", "view"): {"--log": _RUN_LOG, "--log-failed": _RUN_LOG}}
_GH_LISTS = {
    "pr": "app: a|assignee: A|author: B|base: d|draft H|head: l|label: L|limit: S|search: "
    "s|state: w|web",
    "issue": "app: a|assignee: A|author: l|label: L|limit: mention: m|milestone: S|search: "
    "s|state: w|web",
}
_SEARCH = (
    "archived: created: followers: forks: good-first-issues: help-wanted-issues: "
    "include-forks: language: license: L|limit: match: number-topics: order: owner: size: "
    "sort: stars: topic: updated: visibility: w|web app: assignee: author: closed: "
    "commenter: comments: include-prs interactions: involves: label: locked mentions: "
    "milestone: no-assignee no-label no-milestone no-project project: reactions: R|repo: "
    "state: team-mentions: base: B: checks: draft H|head: merged merged-at: review: "
    "review-requested: reviewed-by: extension: filename: author-date: author-email: "
    "author-name: committer: committer-date: committer-email: committer-name: hash: merge "
    "parent: tree: "
)
_READ_VERBS: dict[str, dict[str, str]] = {
    "pr": {
        "view": "c|comments w|web",
        "list": _GH_LISTS["pr"],
        "diff": "color: name-only patch w|web",
        "checks": "fail-fast i|interval: required watch w|web",
        "status": "c|conflict-status",
    },
    "issue": {"view": "c|comments w|web", "list": _GH_LISTS["issue"], "status": ""},
    "run": {
        "view": "a|attempt: exit-status j|job: log log-failed v|verbose w|web",
        "list": "a|all b|branch: c|commit: created: e|event: L|limit: s|status: u|user: "
        "w|workflow:",
        "watch": "exit-status i|interval:",
    },
    "repo": {
        "view": "b|branch: w|web",
        "list": "archived fork l|language: L|limit: no-archived source topic: visibility:",
    },
    "release": {
        "view": "w|web",
        "list": "exclude-drafts exclude-pre-releases L|limit: O|order:",
    },
    "label": {"list": "L|limit: order: S|search: sort: w|web"},
    "workflow": {"view": "r|ref: w|web y|yaml", "list": "a|all L|limit:"},
    "search": dict.fromkeys(("repos", "issues", "prs", "code", "commits"), _SEARCH),
    "auth": {"status": "a|active h|hostname:"},
    "gist": {"view": "f|filename: files r|raw w|web", "list": "L|limit: public secret"},
    "cache": {"list": "k|key: L|limit: O|order: S|sort: r|ref:"},
    "secret": {"list": "a|app: e|env: o|org: u|user:"},
    "variable": {"list": "e|env: o|org:", "get": "e|env: o|org:"},
    "ruleset": {
        "view": "o|org: p|parents w|web",
        "list": "L|limit: o|org: p|parents w|web",
        "check": "default w|web",
    },
    "org": {"list": "L|limit:"},
}
# Groups without -R/--repo (they are not scoped to one repository).
_NO_REPO = frozenset({"search", "auth", "gist", "org"})
# gh's root command: -h/--help and --version (cobra/pflag: names spelt whole); `gh version`
# is a subcommand of its own (pkg/cmd/version), the only bare word read here.
_ROOT = Spec("gh", options="h|help version", checked=_CHECKED, abbreviate=False)
_STATUS = Spec("gh status", options="e|exclude: o|org: help", checked=_CHECKED, abbreviate=False)
# pkg/cmd/status/status.go: CurrentUsername and ActualMention read through cached clients.
_KEPT = "stores your user name (48 hours) and the comments it reads (30 days) in gh's cache"
_SHOW_TOKEN = {"-t": "prints the access token", "--show-token": "prints the access token"}


# Specs built on first use and kept: grammar_of caches by identity.
_SPECS: dict[tuple[str, str], Spec] = {}


def _group_spec(group: str) -> Spec:
    """Return the options a group takes before its verb (persistent flags)."""
    found = _SPECS.get((group, ""))
    if found is None:
        repo = "" if group in _NO_REPO else "R|repo: "
        found = _SPECS[group, ""] = Spec(
            f"gh {group}", options=f"{repo}help", checked=_CHECKED, abbreviate=False
        )
    return found


def _verb_spec(group: str, verb: str) -> Spec:
    """Return the grammar of ``gh GROUP VERB``: its options, the output and persistent ones."""
    found = _SPECS.get((group, verb))
    if found is None:
        found = _SPECS[group, verb] = _build_verb_spec(group, verb)
    return found


def _build_verb_spec(group: str, verb: str) -> Spec:
    own = _READ_VERBS[group][verb]
    # --json/--jq/--template where a verb lacks them only makes gh print an error; auth
    # status spells -t as --show-token.
    shared = "" if group == "auth" else f" {_OUT}"
    repo = "" if group in _NO_REPO or "R|repo" in own else " R|repo:"
    writes = dict(_WEB) if "web" in own else {}
    writes.update(_VERB_WRITES.get((group, verb), {}))
    if group == "auth":
        writes.update(_SHOW_TOKEN)
        own += " t|show-token"
    return Spec(f"gh {group} {verb}", options=f"{own}{shared}{repo} help", writes=writes,
                checked=_CHECKED, abbreviate=False)  # fmt: skip


_FIELDS = ("-f", "-F", "--field", "--raw-field")
# go-gh's cache (pkg/api/cache.go): a GET with a TTL is stored under $TMPDIR/gh-cli-cache
# (gh 2.23) or gh's cache directory, and served from there until it expires.
_CACHE = "stores the response in gh's cache directory (later --cache calls print it)"


def _api(args: tuple[Word, ...]) -> Check:
    parsed = parse(GH_API, args)  # the danger catalogue's spec
    if isinstance(parsed, Check):
        return parsed
    for header in parsed.values("-H", "--header"):
        if "method-override" in header.lower():
            return write(WRITE_OPTION, "gh api -H: a method-override header may change the method")
    if parsed.has("--cache"):
        return write(WRITE_OPTION, f"gh api --cache: {_CACHE}")
    methods = parsed.values("-X", "--method")
    for method in methods:
        if method.upper() not in ("GET", "HEAD"):
            return write(WRITE_OPTION, f"gh api -X {method[:20]}: a {method[:20]} request writes")
    fields = [(o, v) for o, v in parsed.options if o in _FIELDS]
    if fields and not methods:
        spelt = spelling(grammar_of(GH_API), fields[0][0], args)
        return write(WRITE_OPTION, f"gh api {spelt}: a field switches the method to POST")
    for option, value in fields:
        if option in ("-F", "--field") and "=@" in (value or ""):
            spelt = spelling(grammar_of(GH_API), option, args)
            return write(WRITE_OPTION, f"gh api {spelt} NAME=@FILE: sends a local file's contents")
    if len(parsed.operands) != 1:
        return write(WRITE_OPTION, "gh api: expected exactly one endpoint")
    if parsed.operands[0].value.strip("/") == "graphql":
        return write(WRITE_OPTION, "gh api graphql: GraphQL requests are POSTs (maybe mutations)")
    return read("RO501", "gh api only GETs")


def _gh(name: str, args: tuple[Word, ...]) -> Check:
    for w in args:
        if not w.literal:
            return write(DYNAMIC_ARGUMENT, f"gh: '{w.value[:60]}' expands at run time")
    root = parse_options(grammar_of(_ROOT), args, stop_at=1)
    if root.error is not None:
        return write(UNKNOWN_OPTION, f"{root.error} before the subcommand")
    if not root.operands:
        return read("RO502", "gh only prints its version or usage")
    if root.options:
        return write(UNKNOWN_OPTION, "gh: options before the subcommand are not proven")
    group = root.operands[0].value
    if group == "version" and len(args) == 1:
        return read("RO502", "gh version only prints its version")
    if group == "api":
        return _api(args[1:])
    if group == "status":
        judged = check_spec(_STATUS, args[1:], "RO502", max_operands=0)
        return judged if not judged.read_only else write(WRITE_SUBCOMMAND, f"gh status: {_KEPT}")
    verbs = _READ_VERBS.get(group)
    if verbs is None:
        return write(UNKNOWN_SUBCOMMAND, f"gh {group[:40]}: not a read subcommand in the catalogue")
    # The verb is found with the group's own grammar (`gh pr -R o/r view 1`).
    found = parse_options(grammar_of(_group_spec(group)), args[1:], stop_at=1)
    if found.error is not None:
        return write(UNKNOWN_OPTION, f"{found.error} before the verb")
    verb = found.operands[0].value if found.operands else ""
    if verb not in verbs:
        return write(WRITE_SUBCOMMAND, f"gh {group} {verb[:40]}: not a read-only verb")
    after = args[1:]
    rest = (
        after[: found.stop] + after[found.stop + 1 :]
    )  # the verb is where the group's options end
    return check_spec(_verb_spec(group, verb), rest, "RO502")


ENTRIES: dict[str, Entry] = entries("RO502", "gh", _gh, _ROOT)
