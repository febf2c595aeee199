"""The table of program specs, continued: the tools the danger catalogue reads options of.

One grammar per program (wrappers, shells and runners are in ``programs.py``), each
checked against ``TOOL --help`` on Debian 12 (coreutils 9.1, findutils 4.9.0, rsync 3.2.7,
OpenSSH 9.2, cron 3.0); ``tool_grammar(name)`` returns it, or a grammar that knows no
options (every option a flag, GNU permutation) for a program not in the table.
"""

from __future__ import annotations

from tether.shell.model import Word
from tether.shell.options import GNU_STANDARD, Grammar, LazyTable, grammar, parse
from tether.shell.programs import SHELLS

_BACKUP = "b backup:: S|suffix: t|target-directory: T|no-target-directory v|verbose"
_RSYNC = (
    "v|verbose info: debug: stderr: q|quiet no-motd c|checksum a|archive r|recursive "
    "inc-recursive|i-r no-inc-recursive|no-i-r R|relative no-implied-dirs b|backup backup-dir: "
    "suffix: u|update inplace append append-verify d|dirs old-dirs|old-d mkpath l|links "
    "L|copy-links copy-unsafe-links safe-links munge-links k|copy-dirlinks K|keep-dirlinks "
    "H|hard-links p|perms E|executability chmod: A|acls X|xattrs o|owner g|group devices "
    "copy-devices write-devices specials D t|times U|atimes open-noatime N|crtimes "
    "O|omit-dir-times J|omit-link-times super fake-super S|sparse preallocate n|dry-run "
    "W|whole-file no-whole-file|no-W checksum-choice|cc: x|one-file-system B|block-size: "
    "e|rsh: rsync-path: existing ignore-non-existing ignore-existing remove-source-files del "
    "delete delete-before delete-during delete-delay delete-after delete-excluded "
    "ignore-missing-args delete-missing-args ignore-errors force max-delete: max-size: "
    "min-size: max-alloc: partial partial-dir: delay-updates m|prune-empty-dirs numeric-ids "
    "usermap: groupmap: chown: timeout: contimeout: I|ignore-times size-only modify-window: "
    "T|temp-dir: y|fuzzy compare-dest: copy-dest: link-dest: z|compress compress-choice|zc: "
    "compress-level|zl: compress-threads|zt: skip-compress: C|cvs-exclude f|filter: F exclude: "
    "exclude-from: include: include-from: files-from: 0|from0 old-args s|secluded-args "
    "trust-sender copy-as: address: port: sockopts: blocking-io outbuf: stats 8|8-bit-output "
    "h|human-readable progress P i|itemize-changes M|remote-option: out-format: log-file: "
    "log-file-format: password-file: early-input: list-only bwlimit: stop-after: stop-at: "
    "fsync write-batch: only-write-batch: read-batch: protocol: iconv: checksum-seed: "
    "4|ipv4 6|ipv6 V|version help daemon drop-D no-D confine-root: insecure-links"
)

TOOLS: LazyTable[Grammar] = LazyTable(
    {
        "rm": lambda: grammar(
            "rm",
            "f|force i I interactive:: one-file-system no-preserve-root preserve-root:: "
            f"r|R|recursive d|dir v|verbose {GNU_STANDARD}",
        ),
        "unlink": lambda: grammar("unlink", GNU_STANDARD),
        "mv": lambda: grammar(
            "mv",
            f"{_BACKUP} f|force i|interactive n|no-clobber strip-trailing-slashes u|update:: "
            f"Z|context debug exchange no-copy {GNU_STANDARD}",
        ),
        "cp": lambda: grammar(
            "cp",
            f"{_BACKUP} a|archive attributes-only copy-contents d debug f|force i|interactive H "
            "l|link L|dereference n|no-clobber P|no-dereference p preserve:: sparse: "
            "no-preserve: parents R|r|recursive reflink:: remove-destination "
            "strip-trailing-slashes s|symbolic-link u|update:: x|one-file-system Z context:: "
            f"keep-directory-symlink {GNU_STANDARD}",
        ),
        "install": lambda: grammar(
            "install",
            f"{_BACKUP} c C|compare d|directory D g|group: m|mode: o|owner: "
            "p|preserve-timestamps s|strip strip-program: preserve-context Z context:: debug "
            f"{GNU_STANDARD}",
        ),
        "ln": lambda: grammar(
            "ln",
            f"{_BACKUP} d|F|directory f|force i|interactive L|logical n|no-dereference "
            f"P|physical r|relative s|symbolic {GNU_STANDARD}",
        ),
        "chmod": lambda: grammar(
            "chmod",
            "c|changes f|silent|quiet v|verbose no-preserve-root preserve-root reference: "
            f"R|recursive {GNU_STANDARD}",
        ),
        "chown": lambda: grammar(
            "chown",
            "c|changes f|silent|quiet v|verbose dereference h|no-dereference from: "
            f"no-preserve-root preserve-root reference: R|recursive H L P {GNU_STANDARD}",
        ),
        "crontab": lambda: grammar("crontab", "u: l r e i s n: c x: V T", abbreviate=False),
        "scp": lambda: grammar(
            "scp", "3 4 6 A B C c: D: F: i: J: l: O o: P: p q R r S: s T v X:", abbreviate=False
        ),
        # popt: long options are spelt whole; ``--no-OPTION`` turns one off (read as a flag).
        "rsync": lambda: grammar("rsync", _RSYNC, abbreviate=False),
        "chgrp": lambda: TOOLS["chown"]._replace(name="chgrp"),
        "sed": lambda: grammar(
            "sed",
            "n|quiet|silent debug e|expression: f|file: follow-symlinks i|in-place:: "
            "l|line-length: posix E|r|regexp-extended s|separate sandbox u|unbuffered "
            f"z|null-data b|binary {GNU_STANDARD}",
        ),
        # perl and ruby: clustered switches, -i[EXT] attached only, the script ends them.
        "perl": lambda: grammar(
            "perl",
            "a c C:: d:: D:: e: E: f F:: h i:: I: l:: m: M: n p s S t T u U v V:: w W x:: X 0::",
            permute=False,
        ),
        "ruby": lambda: grammar(
            "ruby",
            "0:: a c C: d e: E: F: h i:: I: l n p r: s S T:: U v w W:: x:: y help version",
            permute=False,
        ),
        "tee": lambda: grammar(
            "tee", f"a|append i|ignore-interrupts p output-error:: {GNU_STANDARD}"
        ),
    }
)

# Container and cluster CLIs (cobra/pflag: names spelt whole). Their own options before the
# subcommand, some with values (``kubectl -n NS delete …``, ``docker -H HOST system prune``).
_KUBE = (
    "as: as-group: as-uid: cache-dir: certificate-authority: client-certificate: client-key: "
    "cluster: context: disable-compression insecure-skip-tls-verify kubeconfig: "
    "match-server-version n|namespace: password: profile: profile-output: request-timeout: "
    "s|server: tls-server-name: token: user: username: v: vmodule: warnings-as-errors "
    "log-flush-frequency: h|help"
)
CLUSTER: LazyTable[Grammar] = LazyTable(
    {
        "docker": lambda: grammar(
            "docker",
            "config: c|context: D|debug H|host: l|log-level: tls tlscacert: tlscert: tlskey: "
            "tlsverify v|version h|help",
            abbreviate=False,
            permute=False,
        ),
        "podman": lambda: CLUSTER["docker"]._replace(name="podman"),
        "nerdctl": lambda: CLUSTER["docker"]._replace(name="nerdctl"),
        # kubectl's global flags may come anywhere (pflag intersperses).
        "kubectl": lambda: grammar("kubectl", _KUBE, abbreviate=False),
        "oc": lambda: CLUSTER["kubectl"]._replace(name="oc"),
        "kubecolor": lambda: CLUSTER["kubectl"]._replace(name="kubecolor"),
        "helm": lambda: grammar(
            "helm",
            "burst-limit: debug kube-apiserver: kube-as-group: kube-as-user: kube-ca-file: "
            "kube-context: kube-insecure-skip-tls-verify kube-tls-server-name: kube-token: "
            "kubeconfig: n|namespace: qps: registry-config: repository-cache: "
            "repository-config: h|help",
            abbreviate=False,
        ),
    }
)


def subcommand_words(name: str, args: tuple[Word, ...]) -> list[str]:
    """Return the subcommand and the non-option words after it (``['system', 'prune']``).

    The tool's own options before the subcommand are read by its grammar, so their values
    are never taken for the subcommand (``kubectl -n kube-system delete pod x``).
    """
    g = CLUSTER.get(name) or tool_grammar(name)
    rest = parse(g, args, stop_at=1).operands
    if not rest:
        return []
    return [rest[0].value, *(w.value for w in rest[1:] if not w.value.startswith("-"))]


# git's own options before the subcommand: exact names (``--git-d`` is refused), and the
# first operand is the subcommand. ``git.c`` reads them by hand, not with parse-options.
GIT = grammar(
    "git",
    "v|version h help C: c: config-env: exec-path:: html-path man-path info-path p|paginate "
    "P|no-pager no-replace-objects no-lazy-fetch bare git-dir: work-tree: namespace: "
    "super-prefix: literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs "
    "no-optional-locks list-cmds: attr-source: no-advice",
    abbreviate=False,
    permute=False,
)
# Subcommands read with parse-options: unique prefixes, options anywhere before ``--``;
# ``--no-OPTION`` negations are read as unknown flags. From ``git SUB -h`` (git 2.39.5).
_GIT_CHECKOUT = (
    "q|quiet recurse-submodules:: progress m|merge conflict: d|detach t|track:: f|force "
    "orphan: overwrite-ignore ignore-other-worktrees guess overlay"
)
GIT_SUBCOMMANDS: LazyTable[Grammar] = LazyTable(
    {
        "push": lambda: grammar(
            "git push",
            "v|verbose q|quiet repo: all mirror d|delete tags n|dry-run porcelain f|force "
            "force-with-lease:: force-if-includes recurse-submodules: thin receive-pack: exec: "
            "u|set-upstream progress prune no-verify follow-tags signed:: atomic o|push-option: "
            "4|ipv4 6|ipv6",
        ),
        "clean": lambda: grammar(
            "git clean", "q|quiet n|dry-run f|force i|interactive d e|exclude: x X"
        ),
        "branch": lambda: grammar(
            "git branch",
            "v|verbose q|quiet t|track:: u|set-upstream-to: unset-upstream color:: r|remotes "
            "contains: no-contains: abbrev:: a|all d|delete D m|move M c|copy C l|list "
            "show-current create-reflog edit-description f|force merged: no-merged: column:: "
            "sort: points-at: i|ignore-case recurse-submodules format:",
        ),
        "restore": lambda: grammar(
            "git restore",
            "s|source: S|staged W|worktree ignore-unmerged overlay q|quiet recurse-submodules:: "
            "progress m|merge conflict: 2|ours 3|theirs p|patch ignore-skip-worktree-bits "
            "pathspec-from-file: pathspec-file-nul U|unified: inter-hunk-context:",
        ),
        "switch": lambda: grammar(
            "git switch",
            f"c|create: C|force-create: discard-changes {_GIT_CHECKOUT}",
        ),
        "checkout": lambda: grammar(
            "git checkout",
            f"b: B: l {_GIT_CHECKOUT} 2|ours 3|theirs p|patch ignore-skip-worktree-bits "
            "pathspec-from-file: pathspec-file-nul U|unified: inter-hunk-context:",
        ),
        "reset": lambda: grammar(
            "git reset",
            "q|quiet no-refresh mixed soft hard merge keep recurse-submodules:: p|patch "
            "N|intent-to-add pathspec-from-file: pathspec-file-nul U|unified: inter-hunk-context:",
        ),
        "worktree remove": lambda: grammar("git worktree remove", "f|force"),
        "gc": lambda: grammar(
            "git gc", "q|quiet prune:: cruft aggressive auto force keep-largest-pack"
        ),
        "prune": lambda: grammar(
            "git prune", "n|dry-run v|verbose progress expire: exclude-promisor-objects"
        ),
        "reflog expire": lambda: grammar(
            "git reflog expire",
            "dry-run|n rewrite updateref verbose expire: expire-unreachable: stale-fix all "
            "single-worktree",
        ),
        "reflog delete": lambda: grammar(
            "git reflog delete", "dry-run|n rewrite updateref verbose"
        ),
        "update-ref": lambda: grammar("git update-ref", "m: d no-deref z stdin create-reflog"),
        "symbolic-ref": lambda: grammar(
            "git symbolic-ref", "q|quiet d|delete short recurse no-recurse m:"
        ),
        "stash": lambda: grammar(
            "git stash",
            "p|patch S|staged k|keep-index q|quiet u|include-untracked a|all m|message: "
            "pathspec-from-file: pathspec-file-nul index only-untracked",
            permute=False,
        ),
    }
)

# The machine's own tools (disks, processes, accounts, kernel, firewall, power), read by the
# DG4xx checks; from util-linux 2.38, procps-ng 4.0.2, psmisc 23.6, shadow 4.13, adduser 3.134,
# gdisk 1.0.9, parted 3.5, acl 2.3.1, iptables 1.8.9, nftables 1.0.6, pv 1.6.20,
# systemd 252 (Debian 12). Tools whose first word may be a signal (``kill -9``, ``-KILL``)
# are split with ``signal_and_rest`` first.
_SYSTEMD_POWER = "help halt p|poweroff reboot f|force w|wtmp-only d|no-wtmp n|no-sync no-wall"
MACHINE: LazyTable[Grammar] = LazyTable(
    {
        "wipefs": lambda: grammar(
            "wipefs",
            "a|all b|backup f|force i|noheadings J|json n|no-act o|offset: O|output: "
            "p|parsable q|quiet t|types: lock:: h|help V|version",
        ),
        "blkdiscard": lambda: grammar(
            "blkdiscard",
            "f|force o|offset: l|length: p|step: s|secure z|zeroout v|verbose h|help V|version",
        ),
        "shred": lambda: grammar(
            "shred",
            "f|force n|iterations: random-source: s|size: u remove:: v|verbose x|exact z|zero "
            f"{GNU_STANDARD}",
        ),
        "badblocks": lambda: grammar(
            "badblocks", "b: c: d: e: f i: n o: p: s t: v w B X", abbreviate=False
        ),
        "fdisk": lambda: grammar(
            "fdisk",
            "b|sector-size: B|protect-boot c|compatibility:: L|color:: l|list x|list-details "
            "n|noauto-pt o|output: t|type: u|units:: s|getsz bytes lock:: w|wipe: "
            "W|wipe-partitions: C|cylinders: H|heads: S|sectors: h|help V|version",
        ),
        "sfdisk": lambda: grammar(
            "sfdisk",
            "A|activate d|dump J|json B|backup-pt-sectors g|show-geometry l|list F|list-free "
            "r|reorder s|show-size T|list-types V|verify delete part-label part-type part-uuid "
            "part-attrs disk-id relocate a|append b|backup bytes move-data:: move-use-fsync "
            "f|force color:: lock:: N|partno: n|no-act no-reread no-tell-kernel "
            "O|backup-file: o|output: q|quiet w|wipe: W|wipe-partitions: X|label: "
            "Y|label-nested: G|show-pt-geometry L|Linux u|unit: h|help v|version",
        ),
        "cfdisk": lambda: grammar("cfdisk", "L|color:: lock:: r|read-only z|zero h|help V|version"),
        "sgdisk": lambda: grammar(
            "sgdisk",
            "A|attributes: a|set-alignment: b|backup: B|byte-swap-name: c|change-name: "
            "C|recompute-chs d|delete: D|display-alignment e|move-second-header "
            "E|end-of-largest f|first-in-largest F|first-aligned-in-largest g|mbrtogpt "
            "G|randomize-guids h|hybrid: i|info: I|align-end j|move-main-table: "
            "l|load-backup: L|list-types m|gpttombr: n|new: N|largest-new: o|clear "
            "O|print-mbr p|print P|pretend r|transpose: R|replicate: s|sort "
            "S|resize-table: t|typecode: T|transform-bsd: u|partition-guid: U|disk-guid: "
            "v|verify V|version z|zap Z|zap-all ?|help usage",
        ),
        "gdisk": lambda: grammar("gdisk", "l", abbreviate=False, permute=False),
        "parted": lambda: grammar(
            "parted",
            "h|help l|list m|machine j|json s|script f|fix v|version a|align:",
            permute=False,
        ),
        "dd": lambda: grammar("dd", GNU_STANDARD),
        "pv": lambda: grammar(
            "pv",
            "p|progress t|timer e|eta I|fineta r|rate a|average-rate b|bytes "
            "T|buffer-percent A|last-written: F|format: n|numeric q|quiet W|wait "
            "D|delay-start: s|size: l|line-mode 0|null i|interval: w|width: H|height: "
            "N|name: f|force c|cursor L|rate-limit: B|buffer-size: C|no-splice "
            "E|skip-errors S|stop-at-size R|remote: P|pidfile: d|watchfd: o|output: "
            "h|help V|version",
        ),
        "ddrescue": lambda: grammar(
            "ddrescue",
            "a|min-read-rate: A|try-again b|sector-size: B|binary-prefixes c|cluster-size: "
            "C|complete-only d|idirect D|odirect e|max-bad-areas: E|max-error-rate: f|force "
            "F|fill-mode: G|generate-mode H|test-mode: i|input-position: I|verify-input-size "
            "J|verify-on-error K|skip-size: L|loose-domain m|domain-mapfile: M|retrim "
            "n|no-scrape N|no-trim o|output-position: O|reopen-on-error p|preallocate "
            "P|data-preview:: q|quiet r|retry-passes: R|reverse s|size: S|sparse t|truncate "
            "T|timeout: u|unidirectional v|verbose w|ignore-write-errors x|extend-outfile: "
            "X|max-read-errors: y|synchronous h|help V|version",
        ),
        # bash's builtin and procps's kill(1): -s/-n take the signal; ``-SIG`` goes first.
        "kill": lambda: grammar(
            "kill",
            "s|signal: n: q|queue: l|list:: L|table h|help V|version",
            permute=False,
            numeric=True,
        ),
        "killall": lambda: grammar(
            "killall",
            "e|exact I|ignore-case g|process-group y|younger-than: o|older-than: "
            "i|interactive l|list q|quiet r|regexp s|signal: u|user: v|verbose V|version "
            "w|wait n|ns: Z|context: h|help",
        ),
        "pkill": lambda: grammar(
            "pkill",
            "signal: q|queue: e|echo c|count f|full g|pgroup: G|group: i|ignore-case "
            "n|newest o|oldest O|older: P|parent: s|session: t|terminal: u|euid: U|uid: "
            "x|exact F|pidfile: L|logpidfile r|runstates: A|ignore-ancestors cgroup: ns: "
            "nslist: env: h|help V|version",
        ),
        "killall5": lambda: grammar("killall5", "o:", abbreviate=False),
        "swapoff": lambda: grammar("swapoff", "a|all v|verbose L: U: h|help V|version"),
        "sysctl": lambda: grammar(
            "sysctl",
            "a|all A X deprecated dry-run b|binary e|ignore N|names n|values p|f|load:: "
            "system r|pattern: q|quiet w|write o x d h|help V|version",
        ),
        "userdel": lambda: grammar(
            "userdel", "f|force h|help r|remove R|root: P|prefix: Z|selinux-user"
        ),
        # adduser's Perl scripts (Getopt::Long: unique prefixes).
        "deluser": lambda: grammar(
            "deluser",
            "system remove-home remove-all-files backup backup-to: backup-suffix: conf: "
            "group only-if-empty q|quiet verbose debug h|help v|version",
        ),
        "passwd": lambda: grammar(
            "passwd",
            "a|all d|delete e|expire h|help k|keep-tokens i|inactive: l|lock n|mindays: "
            "q|quiet r|repository: R|root: P|prefix: S|status u|unlock w|warndays: "
            "x|maxdays:",
        ),
        "usermod": lambda: grammar(
            "usermod",
            "a|append b|badname c|comment: d|home: e|expiredate: f|inactive: g|gid: "
            "G|groups: h|help l|login: L|lock m|move-home o|non-unique p|password: "
            "P|prefix: r|remove R|root: s|shell: u|uid: U|unlock v|add-subuids: "
            "V|del-subuids: w|add-subgids: W|del-subgids: Z|selinux-user:",
        ),
        "chage": lambda: grammar(
            "chage",
            "d|lastday: E|expiredate: h|help i|iso8601 I|inactive: l|list m|mindays: "
            "M|maxdays: R|root: P|prefix: W|warndays:",
        ),
        "chpasswd": lambda: grammar(
            "chpasswd", "c|crypt-method: e|encrypted h|help m|md5 R|root: P|prefix: s|sha-rounds:"
        ),
        "setfacl": lambda: grammar(
            "setfacl",
            "m|modify: M|modify-file: x|remove: X|remove-file: b|remove-all k|remove-default "
            "set: set-file: mask n|no-mask d|default R|recursive L|logical P|physical "
            "restore: test v|version h|help",
        ),
        # iptables reads ``-F [chain]`` itself: the chain is an operand here. Match and
        # target extensions add options (``--dport``): unknown here, read as flags.
        "iptables": lambda: grammar(
            "iptables",
            "A|append: C|check: D|delete: I|insert: R|replace: L|list S|list-rules F|flush "
            "Z|zero N|new-chain|new: X|delete-chain P|policy: E|rename-chain: 4|ipv4 6|ipv6 "
            "p|protocol: s|source: d|destination: i|in-interface: j|jump: g|goto: m|match: "
            "n|numeric o|out-interface: t|table: v|verbose w|wait:: W|wait-interval: "
            "x|exact f|fragment line-numbers modprobe: c|set-counters: V|version h|help",
        ),
        "ip6tables": lambda: MACHINE["iptables"]._replace(name="ip6tables"),
        # firewalld 1.3 (its options that change state; the others are read as flags).
        "firewall-cmd": lambda: grammar(
            "firewall-cmd",
            "h|help V|version q|quiet state reload complete-reload runtime-to-permanent "
            "check-config permanent zone: policy: timeout: panic-on panic-off query-panic "
            "set-default-zone: get-default-zone get-active-zones get-zones list-all "
            "list-all-zones add-service: remove-service: add-port: remove-port: add-source: "
            "remove-source: add-interface: remove-interface: change-interface: "
            "add-rich-rule: remove-rich-rule: set-target: new-zone: delete-zone:",
        ),
        # OpenBSD/macOS pf: short options only.
        "pfctl": lambda: grammar(
            "pfctl",
            "a: D: d e F: f: g h i: K: k: L: m N n O o: p: q R r S s: T: t: v V: x: z",
            abbreviate=False,
        ),
        "nft": lambda: grammar(
            "nft",
            "h|help v|version V f|file: D|define: i|interactive I|includepath: c|check "
            "o|optimize a|handle s|stateless t|terse S|service N|reversedns u|guid "
            "n|numeric y|numeric-priority p|numeric-protocol T|numeric-time e|echo j|json "
            "d|debug:",
            permute=False,
        ),
        "systemctl": lambda: grammar(
            "systemctl",
            "h|help version system user H|host: M|machine: t|type: state: failed "
            "p|property: P: a|all l|full r|recursive reverse with-dependencies job-mode: "
            "T|show-transaction show-types value check-inhibitors: i kill-whom: s|signal: "
            "what: now dry-run q|quiet wait no-block no-wall no-reload legend: no-pager "
            "no-ask-password global runtime f|force preset-mode: root: image: n|lines: "
            "o|output: firmware-setup boot-loader-menu: boot-loader-entry: plain "
            "timestamp: read-only mkdir marked",
            abbreviate=False,
        ),
        "loginctl": lambda: grammar(
            "loginctl",
            "h|help version no-pager no-legend no-ask-password H|host: M|machine: "
            "p|property: P: a|all value l|full kill-whom: s|signal: n|lines: o|output:",
            abbreviate=False,
        ),
        "shutdown": lambda: grammar(
            "shutdown", "help H|halt P|poweroff r|reboot h k no-wall c show", abbreviate=False
        ),
        "reboot": lambda: grammar("reboot", _SYSTEMD_POWER, abbreviate=False),
        "halt": lambda: MACHINE["reboot"]._replace(name="halt"),
        "poweroff": lambda: MACHINE["reboot"]._replace(name="poweroff"),
    }
)
# The signal names kill, killall and pkill accept as ``-NAME`` / ``-SIGNAME`` / ``-NUM``.
SIGNALS = frozenset(
    {"HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "IOT", "BUS", "FPE", "KILL", "USR1", "SEGV",
     "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CLD", "CONT", "STOP", "TSTP", "TTIN",
     "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "POLL", "PWR", "SYS",
     "UNUSED"}
)  # fmt: skip


def signal_and_rest(
    args: tuple[Word, ...], *, anywhere: bool = False
) -> tuple[str | None, tuple[Word, ...]]:
    """Split a ``-SIGNAL`` word (``-9``, ``-KILL``, ``-SIGKILL``) off kill-like args.

    kill reads it as its first word; pkill and killall take the first such word anywhere
    (``anywhere=True``: procps' ``signal_option`` scans every argument, psmisc reads it among
    its options) before getopt sees the rest. The signal comes back upper-cased without
    ``SIG`` (``"KILL"``, ``"9"``); the other words are for the tool's grammar.
    """
    for i, word in enumerate(args if anywhere else args[:1]):
        if word.value == "--":
            break
        name = _signal_name(word)
        if name is not None:
            return name, args[:i] + args[i + 1 :]
    return None, args


def _signal_name(word: Word) -> str | None:
    v = word.value
    if not word.literal or len(v) < 2 or v[0] != "-" or v[1] == "-":
        return None
    name = v[1:].upper()
    name = name[3:] if name.startswith("SIG") else name
    if name.isdigit() or name in SIGNALS or name.startswith(("RTMIN", "RTMAX")):
        return name
    return None


_UNKNOWN = grammar("program", "")


_FOUND: dict[str, Grammar] = {}


def tool_grammar(name: str) -> Grammar:
    """Return the grammar of ``name``: a tool's, a shell's, or one that knows no options."""
    found = _FOUND.get(name)
    if found is None:
        found = _FOUND[name] = TOOLS.get(name) or MACHINE.get(name) or SHELLS.get(name) or _UNKNOWN
    return found


__all__ = [
    "CLUSTER",
    "GIT",
    "GIT_SUBCOMMANDS",
    "MACHINE",
    "SIGNALS",
    "TOOLS",
    "signal_and_rest",
    "subcommand_words",
    "tool_grammar",
]
