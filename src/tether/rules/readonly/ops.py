"""RO8xx: compressed files, archives listed, package databases, crontab, bc, containers.

Each was proven with the installed tool (tests/test_readonly_ops.py runs the reads in a
scratch home and working directory and compares what is on disk before and after):
``zcat``/``xzcat``/``bzcat`` only decompress to stdout (their programs are ``gzip -cd``,
``xz --stdout``, ``bzip2 -cd``: no option leaves stdout), ``zgrep`` runs grep on the
decompressed text, ``tar -t`` lists, ``dpkg -l/-L/-s/-S`` read ``/var/lib/dpkg``, ``crontab
-l`` prints the user's table, ``bc`` has no statement that writes or runs a program.
"""

from __future__ import annotations

from tether.rules.readonly.catalogue import Entry, entries, pure_entries, rule
from tether.rules.readonly.packages import version_or_pip
from tether.rules.readonly.spec import (
    DYNAMIC_ARGUMENT,
    UNKNOWN_OPTION,
    WRITE_OPTION,
    WRITE_SUBCOMMAND,
    Check,
    Spec,
    cache_write,
    check_spec,
    opts,
    parse,
    read,
    write,
)
from tether.shell.model import Word
from tether.shell.options import parse as parse_options
from tether.shell.readers import GREP
from tether.shell.tools import CLUSTER, CRONTAB, KUBECTL_GLOBAL, TOOLS

RULES = (
    rule(
        "RO801",
        "compressed-read",
        "`zcat`, `xzcat`, `bzcat` and `zgrep` read compressed files to stdout.",
        "Invoked by these names the tools decompress to standard output only; `zgrep` "
        "passes grep's options to grep (judged as grep's).",
        "Nothing to change.",
        ("zcat log.gz", "xzcat a.xz | head", "bzcat -v a.bz2", "zgrep -n error log.gz"),
        ("zcat a.gz > out", "zgrep -r x .", "zgrep --badopt x a.gz"),
    ),
    rule(
        "RO802",
        "tar-list",
        "`tar -t` (list an archive's members) is read-only.",
        "Any other mode writes; in list mode `-I`/`--use-compress-program`, `--to-command`, "
        "`--checkpoint-action`, `-F`, `--rsh-command`, `--index-file`, `--volno-file` and "
        "`-g` run programs or write files, and an archive named `HOST:FILE` is fetched over "
        "rsh/ssh (unless `--force-local`).",
        "Use `tar -tf ARCHIVE` (or `tar -t` on stdin).",
        ("tar -tf a.tar", "tar tzf a.tgz", "tar -tvJf a.tar.xz", "git archive HEAD | tar -t"),
        ("tar -xf a.tar", "tar -tf host:a.tar", "tar -t -I 'sh -c x' -f a", "tar cf a.tar ."),
    ),
    rule(
        "RO803",
        "dpkg-query",
        "`dpkg -l/-L/-s/-S/-p`, `--get-selections`, `--print-architecture` and other query "
        "actions are read-only.",
        "They read /var/lib/dpkg; every other action installs, removes or changes state, and "
        "`--log`, `--status-logger`, `--pre-invoke`, `--post-invoke` write or run programs.",
        "Use a query action.",
        ("dpkg -l", "dpkg -l 'python3*'", "dpkg -L bash", "dpkg -S /bin/ls", "dpkg -s git"),
        ("dpkg -i x.deb", "dpkg -r bash", "dpkg --set-selections", "dpkg -x a.deb d"),
    ),
    rule(
        "RO804",
        "crontab-list",
        "`crontab -l` (also `-u USER -l`) only prints a crontab.",
        "`crontab FILE`, `-e`, `-r` and `-i` replace, edit or remove it.",
        "Use `crontab -l`.",
        ("crontab -l", "crontab -u root -l"),
        ("crontab -r", "crontab f", "crontab -e", "crontab"),
    ),
    rule(
        "RO805",
        "bc",
        "`bc` only computes.",
        "bc's language has no statement that writes a file or runs a program (GNU bc 1.07); "
        "its operands are files it reads.",
        "Nothing to change.",
        ("bc", "echo '2^10' | bc", "bc -l", "echo 'scale=3; 1/3' | bc -lq"),
        ("bc > out", "bc --bad"),
    ),
    rule(
        "RO806",
        "docker-read",
        "`docker ps`, `docker images`, `docker inspect`, `docker logs` are read-only.",
        "They ask the daemon for state; `-H`/`--host`, `-c`/`--context` and `--config` can "
        "point the client at an ssh host (it runs ssh) or at another configuration, so they "
        "are refused. Go templates in `--format` cannot write or run programs.",
        "Use them without -H/--context/--config.",
        (
            "docker ps",
            "docker ps -a --format '{{.Names}}'",
            "docker images -q",
            "docker logs -n 50 web",
        ),
        ("docker rm x", "docker -H ssh://h ps", "docker ps --bad", "docker run x"),
    ),
)

_ZCAT = Spec(
    "zcat",
    options="f|force l|list q|quiet r|recursive S|suffix: synchronous t|test v|verbose help "
    "V|version",
    checked="gzip 1.12",
)
_XZCAT = Spec(
    "xzcat",
    options="z|compress d|decompress t|test l|list k|keep f|force c|stdout e|extreme "
    "T|threads: q|quiet v|verbose h|help H|long-help V|version",
    numeric=True,
    checked="xz 5.4.1",
)
_BZCAT = Spec(
    "bzcat",
    options="h|help d|decompress z|compress k|keep f|force t|test c|stdout q|quiet v|verbose "
    "L|license V|version s|small fast best",
    numeric=True,
    checked="bzip2 1.0.8",
)
# zgrep (gzip 1.12) hands its options to grep; -r/-R/-d/-Z/-z and the include/exclude ones it
# refuses (its help lists them as unsupported, so the grammar keeps them and the check refuses).
_ZGREP = GREP._replace(name="zgrep", checked="gzip 1.12 (zgrep: grep 3.8's options)")
_ZGREP_UNSUPPORTED = opts(
    "-r --recursive -R --dereference-recursive -d --directories --exclude --exclude-from "
    "--exclude-dir --include -Z --null -z --null-data"
)
_BC = Spec(
    "bc",
    options="h|help i|interactive l|mathlib q|quiet s|standard w|warn v|version",
    checked="bc 1.07.1",
)

_DPKG_READS = (
    "l|list L|listfiles s|status S|search p|print-avail C|audit V|verify get-selections "
    "print-architecture print-foreign-architectures compare-versions yet-to-unpack "
    "predep-package assert-help force-help version ?|help admindir: root: instdir: no-pager "
    "robot verify-format: c|contents I|info f|field ctrl-tarfile fsys-tarfile D|debug:"
)
_DPKG_WRITES = dict.fromkeys(
    opts(
        "-i --install --unpack -A --record-avail --configure --triggers-only -r --remove "
        "-P --purge --set-selections --clear-selections --update-avail --merge-avail --clear-avail "
        "--forget-old-unavail --add-architecture --remove-architecture -x --extract -X --vextract "
        "-b --build -e --control -R --recursive -a --pending -O --selected-only "
        "-E --skip-same-version -G --refuse-downgrade -B --auto-deconfigure --triggers "
        "--no-triggers --no-debsig --no-act --dry-run --simulate --status-fd --abort-after "
        "--ignore-depends --path-exclude --path-include"
    ),
    "installs, removes or changes the package database",
)
_DPKG_WRITES |= {
    "--log": "appends to a log file",
    "--status-logger": "runs a command",
    "--pre-invoke": "runs a command",
    "--post-invoke": "runs a command",
}
_DPKG = Spec("dpkg", options=_DPKG_READS, writes=_DPKG_WRITES, checked="dpkg 1.21.22")

_DOCKER_READS = {
    "ps": Spec(
        "docker ps",
        options="a|all f|filter: format: n|last: l|latest no-trunc q|quiet s|size help",
        abbreviate=False,
        checked="docker 28.2.2",
    ),
    "images": Spec(
        "docker images",
        options="a|all digests f|filter: format: no-trunc q|quiet tree help",
        abbreviate=False,
        checked="docker 28.2.2",
    ),
    "inspect": Spec(
        "docker inspect",
        options="f|format: s|size type: help",
        abbreviate=False,
        checked="docker 28.2.2",
    ),
    "logs": Spec(
        "docker logs",
        options="details f|follow since: n|tail: t|timestamps until: help",
        abbreviate=False,
        checked="docker 28.2.2",
    ),
}
_DOCKER_GLOBAL_WRITES = {
    "--host": "points the client at another daemon (ssh:// runs ssh)",
    "--context": "points the client at another daemon (an ssh context runs ssh)",
    "--config": "reads another client configuration",
}

# GNU tar's options that, in list mode, run a program or write a file.
_TAR_LIST_WRITES = {
    "--to-command": "runs a command for each member",
    "--checkpoint-action": "can run a command at checkpoints",
    "--use-compress-program": "runs the named program",
    "--info-script": "runs a script at the end of each volume",
    "--rsh-command": "runs a remote shell",
    "--rmt-command": "runs a remote tape program",
    "--index-file": "writes the listing to a file",
    "--volno-file": "writes the volume number to a file",
    "--listed-incremental": "reads and may rewrite a snapshot file",
    "--multi-volume": "prompts for volumes and can run a script",
    "--remove-files": "removes files (a create option, refused in any mode)",
}
_TAR_OTHER_MODES = (
    "--create",
    "--extract",
    "--append",
    "--update",
    "--catenate",
    "--delete",
    "--diff",
    "--test-label",
)


def _literal(name: str, args: tuple[Word, ...]) -> Check | None:
    for w in args:
        if not w.literal:
            return write(DYNAMIC_ARGUMENT, f"{name}: '{w.value[:60]}' expands at run time")
    return None


def _zgrep(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse(_ZGREP, args)
    if isinstance(parsed, Check):
        return parsed
    for option, _value in parsed.options:
        if option in _ZGREP_UNSUPPORTED:
            return write(UNKNOWN_OPTION, f"zgrep: {option} is not supported by zgrep")
    return read("RO801", "zgrep only reads")


def _tar(name: str, args: tuple[Word, ...]) -> Check:
    bad = _literal(name, args)
    if bad:
        return bad
    parsed = parse_options(TOOLS["tar"], args)
    if parsed.unknown or parsed.error is not None:
        return write(UNKNOWN_OPTION, f"{name}: {parsed.error or 'an option not known to be safe'}")
    if not parsed.has("--list") or parsed.has(*_TAR_OTHER_MODES):
        return write(WRITE_SUBCOMMAND, f"{name}: only the list mode (-t) is read-only")
    for option, _value in parsed.options:
        if option in _TAR_LIST_WRITES:
            return write(WRITE_OPTION, f"{name} {option}: {_TAR_LIST_WRITES[option]}")
    if not parsed.has("--force-local"):
        for archive in parsed.values("--file"):
            if ":" in archive.split("/", 1)[0]:
                return write(WRITE_OPTION, f"{name} -f {archive[:40]}: fetched over rsh/ssh")
    return read("RO802", f"{name} -t only lists an archive")


def _dpkg(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse(_DPKG, args)
    if isinstance(parsed, Check):
        return parsed
    if not parsed.options:
        return write(WRITE_SUBCOMMAND, "dpkg: no query action")
    return read("RO803", "dpkg only queries the package database")


def _crontab(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse(CRONTAB, args)
    if isinstance(parsed, Check):
        return write(WRITE_SUBCOMMAND, f"crontab: {parsed.reason.split(': ', 1)[-1]}")
    if not parsed.has("-l") or parsed.operands or parsed.has("-s", "-n", "-c", "-x", "-T"):
        return write(WRITE_SUBCOMMAND, "crontab: only -l lists; other forms replace the table")
    return read("RO804", "crontab -l only prints the table")


def _docker(name: str, args: tuple[Word, ...]) -> Check:
    bad = _literal(name, args)
    if bad:
        return bad
    top = parse_options(CLUSTER["docker"], args)
    for option, _value in top.options:
        if option in _DOCKER_GLOBAL_WRITES:
            return write(WRITE_OPTION, f"docker {option}: {_DOCKER_GLOBAL_WRITES[option]}")
    sub = top.operands[0].value if top.operands else ""
    spec = _DOCKER_READS.get(sub)
    if spec is None:  # `docker --version`, `docker version`: the version queries (RO701)
        return version_or_pip(name, args)
    if top.unknown or top.error is not None:
        return write(UNKNOWN_OPTION, f"docker: {top.error or 'an option not known to be safe'}")
    return check_spec(spec, top.operands[1:], "RO806")


# kubectl (v1.32): each read verb's own options beside kubectl's global ones (pflag reads
# them anywhere on the line). Booleans are flags here: `--watch=false` is refused.
_KUBECTL_VERBS = {
    "get": "A|all-namespaces allow-missing-template-keys chunk-size: field-selector: "
    "f|filename: ignore-not-found k|kustomize: L|label-columns: no-headers o|output: "
    "output-watch-events raw: R|recursive l|selector: server-print show-kind "
    "show-labels show-managed-fields sort-by: subresource: template: w|watch "
    "watch-only",
    "describe": "A|all-namespaces chunk-size: f|filename: k|kustomize: R|recursive "
    "l|selector: show-events",
    "logs": "all-containers all-pods c|container: f|follow ignore-errors "
    "insecure-skip-tls-verify-backend limit-bytes: max-log-requests: pod-running-timeout: "
    "prefix p|previous l|selector: since: since-time: tail: timestamps",
}
_KUBECTL_WRITES = {
    "--kubeconfig": "reads another kubeconfig, whose users can name exec credential programs",
    "--profile": "writes a profile file",
    "--profile-output": "writes a profile file",
    "--cache-dir": "writes its discovery cache into that directory",
}
_KUBECTL = {
    verb: Spec(
        f"kubectl {verb}",
        options=f"{KUBECTL_GLOBAL} {own}",
        writes=_KUBECTL_WRITES,
        abbreviate=False,
        checked="kubectl v1.32.4",
    )
    for verb, own in _KUBECTL_VERBS.items()
}
_KUBECTL_CACHE = (
    "writes its discovery and HTTP cache under ~/.kube/cache (also for a read: its only write)"
)

# apt-cache (apt 2.6.1): every verb reads, but apt-cache rebuilds /var/cache/apt/*.bin when
# they are stale and it may write there (as root); -p/-s/-c/-o name other cache files or
# config (``-o Dir::Cache::pkgcache=FILE`` overwrites FILE).
_APT_CACHE = Spec(
    "apt-cache",
    options="p|pkg-cache: s|src-cache: q|quiet i|important no-pre-depends no-depends "
    "no-recommends no-suggests no-conflicts no-breaks no-replaces no-enhances implicit "
    "f|full a|all-versions g|generate no-generate n|names-only all-names recurse installed "
    "with-source: h|help v|version c|config-file: o|option:",
    writes={
        **dict.fromkeys(
            ("--pkg-cache", "--src-cache"), "names the cache file apt-cache may rewrite"
        ),
        "--config-file": "reads another configuration (which can move the cache files)",
        "--option": "sets configuration (Dir::Cache::pkgcache=FILE rewrites FILE)",
    },
    checked="apt 2.6.1 (man page)",  # apt-cache --help lists its commands only
)
_APT_CACHE_VERBS = opts(
    "policy show search depends rdepends pkgnames showsrc showpkg madison stats dump "
    "dumpavail unmet xvcg dotty"
)


def _kubectl(name: str, args: tuple[Word, ...]) -> Check:
    bad = _literal(name, args)
    if bad:
        return bad
    top = parse_options(CLUSTER["kubectl"], args, stop_at=1)
    verb = top.operands[0].value if top.operands else ""
    spec = _KUBECTL.get(verb)
    if spec is None:
        return write(WRITE_SUBCOMMAND, f"kubectl {verb[:40]}: not a read verb in the catalogue")
    at = next(i for i, w in enumerate(args) if w is top.operands[0])
    parsed = parse(spec, args[:at] + args[at + 1 :])
    if isinstance(parsed, Check):
        return parsed
    if parsed.has("--kustomize"):
        return write(WRITE_OPTION, f"kubectl {verb} -k: runs kustomize over a directory")
    return cache_write(f"kubectl {verb}: {_KUBECTL_CACHE}")


def _apt_cache(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse(_APT_CACHE, args)
    if isinstance(parsed, Check):
        return parsed
    verb = parsed.operands[0].value if parsed.operands else ""
    if verb not in _APT_CACHE_VERBS:
        return write(WRITE_SUBCOMMAND, f"apt-cache {verb[:40]}: not a query command")
    why = "rebuilds /var/cache/apt/pkgcache.bin and srcpkgcache.bin when they are stale"
    return cache_write(f"apt-cache {verb}: {why} (its only write)")


ENTRIES: dict[str, Entry] = {
    **pure_entries("RO801", _ZCAT, _XZCAT, _BZCAT),
    **entries("RO801", "zgrep", _zgrep, _ZGREP),
    **entries("RO802", "tar", _tar),
    **entries("RO803", "dpkg", _dpkg, _DPKG),
    **entries("RO804", "crontab", _crontab, CRONTAB),
    **pure_entries("RO805", _BC),
    **entries("RO806", "docker", _docker, *_DOCKER_READS.values()),
    # Never read-only: their one write is their own cache (RW030, effects ["cache"]).
    **entries("RO806", "kubectl", _kubectl, *_KUBECTL.values()),
    **entries("RO806", "apt-cache", _apt_cache, _APT_CACHE),
}
