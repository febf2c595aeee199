"""RO5xx: GitHub CLI reads (``gh api`` while the method stays GET, ``gh pr view``, …)."""

from __future__ import annotations

from tether.rules.readonly.catalogue import Entry, entries, rule
from tether.rules.readonly.grammar import (
    DYNAMIC_ARGUMENT,
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
from tether.shell.model import Word

RULES = (
    rule(
        "RO501",
        "gh-api-get",
        "`gh api ENDPOINT` is read-only while the method stays GET.",
        "`-f/-F/--field/--raw-field` switch the method to POST unless `-X GET` keeps it (then "
        "they are query parameters; `-F k=@file` would send a local file), `--input` sends a "
        "body, `-X/--method` other than GET/HEAD changes state; the `graphql` endpoint POSTs "
        "(mutations included). Here `-f` is a field, not grep's pattern file: write flags "
        "are scoped per command.",
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
        ),
    ),
    rule(
        "RO502",
        "gh-view",
        "`gh` listing and viewing subcommands (`pr view/list/diff/checks`, `issue view/list`, "
        "`run view/list`, `repo view`, `label list`, …) are read-only without `--web`.",
        "They print data fetched from the forge; `--web` opens a browser, and every other "
        "verb (`create`, `merge`, `edit`, `close`, `checkout`, `download`) changes state.",
        "Use the `view`/`list` verbs to read.",
        (
            "gh pr view 1",
            "GH_PAGER=cat gh pr view 1",
            "gh pr checks 12",
            "gh run view 5 --log",
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
        ),
    ),
)

_READ_VERBS: dict[str, frozenset[str]] = {
    "pr": opts("view list diff checks status"),
    "issue": opts("view list status"),
    "run": opts("view list watch"),
    "repo": opts("view list"),
    "release": opts("view list"),
    "label": opts("list"),
    "workflow": opts("view list"),
    "search": opts("repos issues prs code commits"),
    "auth": opts("status"),
    "gist": opts("view list"),
    "cache": opts("list"),
    "secret": opts("list"),
    "variable": opts("list get"),
    "ruleset": opts("view list check"),
    "org": opts("list"),
}
_API = Spec(
    "gh api",
    flags=opts("--paginate --slurp -i --include --silent --verbose"),
    valued=opts(
        "-X --method -H --header -q --jq -t --template --cache --hostname -p --preview "
        "-f -F --field --raw-field"
    ),
    writes={"--input": "sends a request body and switches the method to POST"},
)
_FIELDS = ("-f", "-F", "--field", "--raw-field")


def _api(args: tuple[Word, ...]) -> Check:
    parsed = parse(_API, args)
    if isinstance(parsed, Check):
        return parsed
    for header in parsed.values("-H", "--header"):
        if "method-override" in header.lower():
            return write(WRITE_OPTION, "gh api -H: a method-override header may change the method")
    methods = parsed.values("-X", "--method")
    for method in methods:
        if method.upper() not in ("GET", "HEAD"):
            return write(WRITE_OPTION, f"gh api -X {method[:20]}: a {method[:20]} request writes")
    fields = [(o, v) for o, v in parsed.options if o in _FIELDS]
    if fields and not methods:
        return write(WRITE_OPTION, f"gh api {fields[0][0]}: a field switches the method to POST")
    for option, value in fields:
        if option in ("-F", "--field") and "=@" in (value or ""):
            return write(WRITE_OPTION, f"gh api {option} NAME=@FILE: sends a local file's contents")
    if len(parsed.operands) != 1:
        return write(WRITE_OPTION, "gh api: expected exactly one endpoint")
    if parsed.operands[0].strip("/") == "graphql":
        return write(WRITE_OPTION, "gh api graphql: GraphQL requests are POSTs (maybe mutations)")
    return read("RO501", "gh api only GETs")


def _gh(name: str, args: tuple[Word, ...]) -> Check:
    for w in args:
        if not w.literal:
            return write(DYNAMIC_ARGUMENT, f"gh: '{w.value[:60]}' expands at run time")
    if len(args) == 1 and args[0].value in ("--version", "version", "--help", "-h"):
        return read("RO502", "gh only prints its version or usage")
    if not args:
        return read("RO502", "gh with no subcommand prints usage")
    group = args[0].value
    if group == "api":
        return _api(args[1:])
    if group == "status":
        verb_ok = True
    else:
        verbs = _READ_VERBS.get(group)
        if verbs is None:
            return write(
                UNKNOWN_SUBCOMMAND, f"gh {group[:40]}: not a read subcommand in the catalogue"
            )
        verb = args[1].value if len(args) > 1 else ""
        verb_ok = verb in verbs
        if not verb_ok:
            return write(WRITE_SUBCOMMAND, f"gh {group} {verb[:40]}: not a read-only verb")
    for w in args:
        bundle = w.value[1:] if w.value[:1] == "-" and w.value[1:2] != "-" else ""
        if "w" in bundle or w.value == "--web" or w.value.startswith("--web="):
            return write(WRITE_OPTION, f"gh {group} --web: opens a browser")
        if group == "auth" and w.value in ("-t", "--show-token"):
            return write(WRITE_OPTION, "gh auth status --show-token: prints the access token")
    return read("RO502", f"gh {group} only reads")


ENTRIES: dict[str, Entry] = entries("RO502", "gh", _gh)
