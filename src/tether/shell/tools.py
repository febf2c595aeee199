"""The table of program specs, continued: the tools the danger catalogue reads options of.

One grammar per program (wrappers, shells and runners are in ``programs.py``), each
checked against ``TOOL --help`` on Debian 12 (coreutils 9.1, findutils 4.9.0, rsync 3.2.7,
OpenSSH 9.2, cron 3.0); ``tool_grammar(name)`` returns it, or a grammar that knows no
options (every option a flag, GNU permutation) for a program not in the table.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import NamedTuple

from tether.shell.agents import AGENT_CLIS
from tether.shell.model import Word
from tether.shell.options import GNU_STANDARD, Grammar, LazyTable, Parsed, grammar, parse
from tether.shell.programs import SHELLS
from tether.shell.readers import BASE32, BASE64, BASENC, TR, XXD
from tether.shell.specs import Spec, grammar_of

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


# GNU tar 1.34, from ``tar --help``: the options that run a command are --to-command,
# --checkpoint-action=exec=, -I/--use-compress-program, --rsh-command and -F.
_TAR = (
    "A|catenate|concatenate c|create delete d|diff|compare r|append test-label t|list "
    "u|update x|extract|get check-device g|listed-incremental: G|incremental hole-detection: "
    "ignore-failed-read level: no-check-device no-seek n|seek occurrence:: sparse-version: "
    "S|sparse add-file: C|directory: exclude: exclude-backups exclude-caches "
    "exclude-caches-all exclude-ignore: exclude-ignore-recursive: exclude-tag: "
    "exclude-tag-under: exclude-vcs exclude-vcs-ignores no-null no-recursion no-unquote "
    "no-verbatim-files-from null verbatim-files-from recursion T|files-from: unquote "
    "X|exclude-from: anchored ignore-case no-anchored no-ignore-case no-wildcards "
    "no-wildcards-match-slash wildcards wildcards-match-slash keep-directory-symlink "
    "keep-newer-files k|keep-old-files no-overwrite-dir one-top-level:: overwrite "
    "overwrite-dir recursive-unlink remove-files skip-old-files U|unlink-first W|verify "
    "no-ignore-command-error O|to-stdout to-command: atime-preserve:: clamp-mtime "
    "delay-directory-restore group: group-map: mode: mtime: m|touch "
    "no-delay-directory-restore no-same-owner no-same-permissions numeric-owner owner: "
    "owner-map: p|preserve-permissions|same-permissions same-owner sort: "
    "s|preserve-order|same-order acls no-acls no-selinux no-xattrs selinux xattrs "
    "xattrs-exclude: xattrs-include: force-local f|file: F|info-script|new-volume-script: "
    "L|tape-length: M|multi-volume rmt-command: rsh-command: volno-file: b|blocking-factor: "
    "B|read-full-records i|ignore-zeros record-size: H|format: old-archive|portability posix "
    "V|label: a|auto-compress I|use-compress-program: j|bzip2 J|xz lzip lzma lzop "
    "no-auto-compress zstd z|gzip|gunzip|ungzip Z|compress|uncompress backup:: "
    "hard-dereference h|dereference K|starting-file: newer-mtime: N|newer|after-date: "
    "one-file-system P|absolute-names suffix: strip-components: transform|xform: checkpoint:: "
    "checkpoint-action: full-time index-file: l|check-links no-quote-chars: quote-chars: "
    "quoting-style: R|block-number show-defaults show-omitted-dirs show-snapshot-field-ranges "
    "show-transformed-names|show-stored-names totals:: utc v|verbose warning: "
    "w|interactive|confirmation restrict usage version exclude-caches-under exclude-tag-all: "
    "ignore-command-error pax-option:"
)
CHMOD_MODE_LETTERS = "rwxXstugoa,+=01234567"
_CHMOD_MODE = " ".join(f"{c}::" for c in CHMOD_MODE_LETTERS)

# The specs of the tools the read-only catalogue proves some uses of too (``tee`` to
# /dev/null, ``sed`` without ``-i``, ``gh api`` GETs, ``git branch`` listings): one each,
# with the options that write, read by both catalogues.
TEE = Spec(
    "tee",
    options=f"a|append i|ignore-interrupts p output-error:: {GNU_STANDARD}",
    checked="coreutils 9.1",
)
# GNU sed 4.9, and BSD sed's -I EXTENSION (in place) in the union.
# pip 23.2.1 (optparse: unique prefixes of long options). General options come before the
# subcommand, which ends them, and may follow it; each subcommand adds its own (``PIP_UNINSTALL``
# here, the read subcommands in the read-only catalogue). The read-only catalogue refuses the
# ones that write; the danger catalogue reads their values (DG607: ``pip --log F uninstall X``).
PIP_GENERAL = (
    "h|help debug isolated require-virtualenv python: v|verbose V|version q|quiet log: no-input "
    "keyring-provider: proxy: retries: timeout: exists-action: trusted-host: cert: client-cert: "
    "cache-dir: no-cache-dir disable-pip-version-check no-color no-python-version-warning "
    "use-feature: use-deprecated:"
)
PIP_CHECKED = "pip 23.2.1"
PIP_WRITES = MappingProxyType(
    {
        "--log": "appends a log to a file",
        "--python": "runs pip under another interpreter",
        "--cache-dir": "writes its cache to a directory of your choice",
        "--keyring-provider": "can run a keyring program",
        "--help": "is not a read subcommand",
    }
)
PIP = Spec("pip", options=PIP_GENERAL, writes=PIP_WRITES, permute=False, checked=PIP_CHECKED)
PIP_UNINSTALL = Spec(
    "pip uninstall",
    options=f"{PIP_GENERAL} r|requirement: y|yes root-user-action: break-system-packages",
    checked=PIP_CHECKED,
)
SED = Spec(
    "sed",
    options="n|quiet|silent debug e|expression: f|file: follow-symlinks i|in-place:: I: "
    "l|line-length: posix E|r|regexp-extended s|separate sandbox u|unbuffered "
    f"z|null-data b|binary {GNU_STANDARD}",
    writes={
        "-i": "edits files in place",
        "-I": "edits files in place",
        "--in-place": "edits files in place",
        "-f": "reads its script from a file, which is not proven",
        "--file": "reads its script from a file, which is not proven",
        "--follow-symlinks": "only matters when editing in place",
    },
    checked="GNU sed 4.9",
)
# cobra/pflag: long options spelt whole, options anywhere among the operands.
GH_API = Spec(
    "gh api",
    options="cache: F|field: H|header: hostname: i|include input: q|jq: X|method: paginate "
    "p|preview: f|raw-field: silent slurp t|template: verbose h|help",
    writes={"--input": "sends a request body and switches the method to POST"},
    abbreviate=False,
    checked="gh 2.23.0 (Debian 12), gh 2.46 (manual pages)",
)
_BRANCH_WRITES = (
    "-d --delete -D -m --move -M -c --copy -C -f --force -t --track --no-track -u "
    "--set-upstream-to --unset-upstream --create-reflog --edit-description --recurse-submodules"
)
GIT_BRANCH = Spec(
    "git branch",
    options="v|verbose q|quiet t|track:: no-track u|set-upstream-to: unset-upstream color:: "
    "no-color r|remotes contains: no-contains: abbrev:: no-abbrev a|all d|delete D m|move M "
    "c|copy C l|list show-current create-reflog edit-description f|force merged: no-merged: "
    "column:: no-column omit-empty sort: points-at: i|ignore-case recurse-submodules format:",
    writes=dict.fromkeys(
        _BRANCH_WRITES.split(),
        "creates, deletes, renames or copies a branch, or sets its upstream",
    ),
    checked="git 2.39.5",
)

# `git symbolic-ref NAME` reads a symbolic ref; -d/--delete and -m (with NAME REF) write.
GIT_SYMBOLIC_REF = Spec(
    "git symbolic-ref",
    options="q|quiet d|delete short recurse no-recurse m:",
    writes={
        **dict.fromkeys(("-d", "--delete", "-m"), "deletes or updates a symbolic ref"),
        "--help": "opens a manual page or a browser",
    },
    checked="git 2.39.5 (git SUB -h, man git-SUB)",
)
# crontab (Debian's cron 3.0pl1): only -l lists; -r, -e, -i and a FILE operand replace it.
CRONTAB = Spec(
    "crontab",
    options="u: l r e i s n c x: V T h",
    writes=dict.fromkeys(("-r", "-e", "-i"), "removes or edits the crontab"),
    abbreviate=False,
    checked="cron 3.0pl1 (Debian 12)",
)

# fd (the read-only catalogue proves it without --exec/--exec-batch, which run commands).
FD = Spec(
    "fd",
    options=(
        "H|hidden I|no-ignore no-ignore-vcs no-ignore-parent no-global-ignore-file "
        "no-require-git u|unrestricted s|case-sensitive i|ignore-case g|glob regex "
        "F|fixed-strings and: a|absolute-path l|list-details L|follow p|full-path "
        "0|print0 max-results: 1 q|quiet|has-results show-errors one-file-system|mount|xdev prune "
        "d|max-depth|maxdepth: min-depth: exact-depth: E|exclude: t|type: e|extension: "
        "S|size: changed-within|change-newer-than|newer|changed-after: "
        "changed-before|change-older-than|older: o|owner: format: x|exec X|exec-batch "
        "batch-size: ignore-file: c|color: ignore ignore-vcs no-follow no-hidden "
        "hyperlink:: j|threads: max-buffer-time: base-directory: path-separator: "
        "search-path: strip-cwd-prefix:: h|help V|version relative-path"
    ),
    writes={
        "-x": "runs a command for every match",
        "--exec": "runs a command for every match",
        "-X": "runs a command on the matches",
        "--exec-batch": "runs a command on the matches",
    },
    checked="fd-find 8.6.0",
)
# Filters the read-only catalogue proves and the danger catalogue reads output files of.
_TO_FILE = {"-o": "writes the result to a file", "--output": "writes the result to a file"}
SORT = Spec(
    "sort",
    options=(
        "b|ignore-leading-blanks d|dictionary-order f|ignore-case g|general-numeric-sort "
        "i|ignore-nonprinting M|month-sort h|human-numeric-sort n|numeric-sort "
        "R|random-sort random-source: r|reverse sort: V|version-sort batch-size: c|check:: "
        "C compress-program: debug files0-from: k|key: m|merge o|output: s|stable "
        f"S|buffer-size: t|field-separator: T|temporary-directory: parallel: u|unique "
        f"z|zero-terminated {GNU_STANDARD}"
    ),
    writes={
        "-o": "writes the result to a file",
        "--output": "writes the result to a file",
        "--compress-program": "runs a program on temporary files",
    },
    checked="coreutils 9.1",
)
UNIQ = Spec(
    "uniq",
    options=(
        "c|count d|repeated D all-repeated:: f|skip-fields: group:: i|ignore-case "
        f"s|skip-chars: u|unique z|zero-terminated w|check-chars: {GNU_STANDARD}"
    ),
    checked="coreutils 9.1",
)
SHUF = Spec(
    "shuf",
    options=(
        "e|echo i|input-range: n|head-count: o|output: random-source: r|repeat "
        f"z|zero-terminated {GNU_STANDARD}"
    ),
    writes=_TO_FILE,
    checked="coreutils 9.1",
)
ICONV = Spec(
    "iconv",
    # glibc's -? (help) is left out: unquoted, `-?` is a glob the shell expands.
    options="f|from-code: t|to-code: l|list c o|output: s|silent verbose usage V|version help",
    writes=_TO_FILE,
    checked="libc-bin 2.36",
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
        # chmod reads ``-w``, ``-rwx``, ``-0`` as a mode (its getopt string lists each mode
        # letter with an optional attached value): here they are options whose spelling is
        # the mode (``_CHMOD_MODE``), so ``chmod -R -w dir`` keeps ``dir`` as the operand.
        "chmod": lambda: grammar(
            "chmod",
            "c|changes f|silent|quiet v|verbose no-preserve-root preserve-root reference: "
            f"R|recursive {_CHMOD_MODE} {GNU_STANDARD}",
        ),
        "chown": lambda: grammar(
            "chown",
            "c|changes f|silent|quiet v|verbose dereference h|no-dereference from: "
            f"no-preserve-root preserve-root reference: R|recursive H L P {GNU_STANDARD}",
        ),
        "crontab": lambda: grammar_of(CRONTAB),
        "scp": lambda: grammar(
            "scp", "3 4 6 A B C c: D: F: i: J: l: O o: P: p q R r S: s T v X:", abbreviate=False
        ),
        # popt: long options are spelt whole; ``--no-OPTION`` turns one off (read as a flag).
        "rsync": lambda: grammar("rsync", _RSYNC, abbreviate=False),
        "chgrp": lambda: TOOLS["chown"]._replace(name="chgrp"),
        "sed": lambda: grammar_of(SED),
        # perl and ruby: clustered switches, -i[EXT] attached only, the script ends them.
        "perl": lambda: grammar(
            "perl",
            "a c C:: d:: D:: e: E: f F:: h i:: I: l:: m: M: n p s S t T u U v V:: w W x:: X 0::",
            permute=False,
        ),
        "ruby": lambda: grammar(
            "ruby",
            "0:: a c C: d|debug e: E|encoding: F: h i:: I: l n p r: s S T:: U v w W:: x:: y help "
            "version verbose copyright jit mjit yjit dump: enable: disable: external-encoding: "
            "internal-encoding: backtrace-limit: mjit-warnings mjit-debug:: mjit-wait "
            "mjit-save-temps mjit-verbose: mjit-max-cache: mjit-min-calls: yjit-exec-mem-size: "
            "yjit-call-threshold: yjit-max-versions: yjit-greedy-versioning",
            permute=False,
        ),
        "tee": lambda: grammar_of(TEE),
        # curl 7.88.1 (``curl --help all``): unique prefixes (``--requ`` is ambiguous, ``--silen``
        # is --silent); ``--no-FLAG`` negations are read as unknown flags.
        "curl": lambda: grammar(
            "curl",
            "abstract-unix-socket: alt-svc: anyauth a|append aws-sigv4: basic cacert: capath: "
            "E|cert: cert-status cert-type: ciphers: compressed compressed-ssh K|config: "
            "connect-timeout: connect-to: C|continue-at: b|cookie: c|cookie-jar: create-dirs "
            "create-file-mode: crlf crlfile: curves: d|data: data-ascii: data-binary: "
            "data-raw: data-urlencode: delegation: digest q|disable disable-eprt disable-epsv "
            "disallow-username-in-url dns-interface: dns-ipv4-addr: dns-ipv6-addr: "
            "dns-servers: doh-cert-status doh-insecure doh-url: D|dump-header: egd-file: "
            "engine: etag-compare: etag-save: expect100-timeout: f|fail fail-early "
            "fail-with-body false-start F|form: form-escape form-string: ftp-account: "
            "ftp-alternative-to-user: ftp-create-dirs ftp-method: ftp-pasv P|ftp-port: "
            "ftp-pret ftp-skip-pasv-ip ftp-ssl-ccc ftp-ssl-ccc-mode: ftp-ssl-control G|get "
            "g|globoff happy-eyeballs-timeout-ms: haproxy-protocol I|head H|header: h|help "
            "hostpubmd5: hostpubsha256: hsts: http0.9 0|http1.0 http1.1 http2 "
            "http2-prior-knowledge http3 http3-only ignore-content-length i|include "
            "k|insecure interface: 4|ipv4 6|ipv6 json: j|junk-session-cookies keepalive-time: "
            "key: key-type: krb: libcurl: limit-rate: l|list-only local-port: L|location "
            "location-trusted login-options: mail-auth: mail-from: mail-rcpt: "
            "mail-rcpt-allowfails M|manual max-filesize: max-redirs: m|max-time: metalink "
            "negotiate n|netrc netrc-file: netrc-optional next no-alpn N|no-buffer no-clobber "
            "no-keepalive no-npn no-progress-meter no-sessionid noproxy: ntlm ntlm-wb "
            "oauth2-bearer: o|output: output-dir: Z|parallel parallel-immediate parallel-max: "
            "pass: path-as-is pinnedpubkey: post301 post302 post303 preproxy: #|progress-bar "
            "proto: proto-default: proto-redir: x|proxy: proxy-anyauth proxy-basic "
            "proxy-cacert: proxy-capath: proxy-cert: proxy-cert-type: proxy-ciphers: "
            "proxy-crlfile: proxy-digest proxy-header: proxy-insecure proxy-key: "
            "proxy-key-type: proxy-negotiate proxy-ntlm proxy-pass: proxy-pinnedpubkey: "
            "proxy-service-name: proxy-ssl-allow-beast proxy-ssl-auto-client-cert "
            "proxy-tls13-ciphers: proxy-tlsauthtype: proxy-tlspassword: proxy-tlsuser: "
            "proxy-tlsv1 U|proxy-user: proxy1.0: p|proxytunnel pubkey: Q|quote: random-file: "
            "r|range: rate: raw e|referer: J|remote-header-name O|remote-name remote-name-all "
            "R|remote-time remove-on-error X|request: request-target: resolve: retry: "
            "retry-all-errors retry-connrefused retry-delay: retry-max-time: sasl-authzid: "
            "sasl-ir service-name: S|show-error s|silent socks4: socks4a: socks5: "
            "socks5-basic socks5-gssapi socks5-gssapi-nec socks5-gssapi-service: "
            "socks5-hostname: Y|speed-limit: y|speed-time: ssl ssl-allow-beast "
            "ssl-auto-client-cert ssl-no-revoke ssl-reqd ssl-revoke-best-effort 2|sslv2 "
            "3|sslv3 stderr: styled-output suppress-connect-headers tcp-fastopen tcp-nodelay "
            "t|telnet-option: tftp-blksize: tftp-no-options z|time-cond: tls-max: "
            "tls13-ciphers: tlsauthtype: tlspassword: tlsuser: 1|tlsv1 tlsv1.0 tlsv1.1 "
            "tlsv1.2 tlsv1.3 tr-encoding trace: trace-ascii: trace-time unix-socket: "
            "T|upload-file: url: url-query: B|use-ascii u|user: A|user-agent: v|verbose "
            "V|version w|write-out: xattr",
        ),
        # GNU Wget 1.21.3; ``-nv``/``-nc``/``-np`` are ``-n`` with a letter.
        "wget": lambda: grammar(
            "wget",
            "V|version h|help b|background e|execute: o|output-file: a|append-output: d|debug "
            "q|quiet v|verbose report-speed: i|input-file: F|force-html B|base: config: "
            "no-config rejected-log: t|tries: retry-connrefused retry-on-http-error: "
            "O|output-document: no-netrc c|continue start-pos: progress: show-progress "
            "N|timestamping no-if-modified-since no-use-server-timestamps S|server-response "
            "spider T|timeout: dns-timeout: connect-timeout: read-timeout: w|wait: waitretry: "
            "random-wait no-proxy Q|quota: bind-address: limit-rate: no-dns-cache "
            "restrict-file-names: ignore-case 4|inet4-only 6|inet6-only prefer-family: user: "
            "password: ask-password use-askpass: no-iri local-encoding: remote-encoding: "
            "unlink xattr x|force-directories protocol-directories P|directory-prefix: "
            "cut-dirs: http-user: http-password: no-cache default-page: E|adjust-extension "
            "ignore-length header: compression: max-redirect: proxy-user: proxy-password: "
            "referer: save-headers U|user-agent: no-http-keep-alive no-cookies load-cookies: "
            "save-cookies: keep-session-cookies post-data: post-file: method: body-data: "
            "body-file: content-disposition content-on-error auth-no-challenge "
            "secure-protocol: https-only no-check-certificate certificate: certificate-type: "
            "private-key: private-key-type: ca-certificate: ca-directory: crl-file: "
            "pinnedpubkey: ciphers: no-hsts hsts-file: ftp-user: ftp-password: "
            "no-remove-listing no-glob no-passive-ftp preserve-permissions retr-symlinks "
            "ftps-implicit ftps-resume-ssl ftps-clear-data-connection ftps-fallback-to-ftp "
            "warc-file: warc-header: warc-max-size: warc-cdx warc-dedup: no-warc-compression "
            "no-warc-digests no-warc-keep-log warc-tempdir: r|recursive l|level: delete-after "
            "k|convert-links convert-file-only backups: K|backup-converted m|mirror "
            "p|page-requisites strict-comments A|accept: R|reject: accept-regex: "
            "reject-regex: regex-type: D|domains: exclude-domains: follow-ftp follow-tags: "
            "ignore-tags: H|span-hosts L|relative I|include-directories: trust-server-names "
            "X|exclude-directories: n: no-parent no-verbose no-clobber no-directories "
            "no-host-directories",
        ),
        # ``gh api`` / ``glab api`` (cobra/pflag: names spelt whole, ``-XDELETE`` attached).
        "gh api": lambda: grammar_of(GH_API),
        "glab api": lambda: grammar(
            "glab api",
            "F|field: H|header: hostname: i|include input: X|method: paginate f|raw-field: "
            "silent h|help",
            abbreviate=False,
        ),
        # nginx 1.22: single-letter options, ``-s SIGNAL`` attached or separate.
        "nginx": lambda: grammar("nginx", "? h v V t T q s: p: e: c: g:", abbreviate=False),
        # gawk 5.2 (``+`` in its optstring: the program text ends the options); mawk and
        # busybox awk take a subset (-f -F -v -W), read with the same table.
        "gawk": lambda: grammar(
            "gawk",
            "f|file: F|field-separator: v|assign: b|characters-as-bytes c|traditional "
            "C|copyright d|dump-variables:: D|debug:: e|source: E|exec: g|gen-pot h|help "
            "i|include: I|trace k|csv l|load: L|lint:: M|bignum N|use-lc-numeric "
            "n|non-decimal-data o|pretty-print:: O|optimize p|profile:: P|posix r|re-interval "
            "s|no-optimize S|sandbox t|lint-old V|version W: Y Z:",
            permute=False,
        ),
        # Vim 9.0: every option stands alone; ``-c``/``--cmd`` and ``+CMD`` run ex commands.
        "vim": lambda: grammar(
            "vim",
            "v e E s d y R Z m M b l C N V:: D n r L A H T: not-a-term ttyfail u: noplugin "
            "p:: o:: O:: cmd: c: S: w: W: x startuptime: log: i: clean h|help version t: q:: "
            "g f nofork servername: remote remote-silent remote-wait remote-wait-silent "
            "remote-tab remote-send: remote-expr: serverlist literal echo-wid",
            abbreviate=False,
        ),
        # The read commands' own specs (shared with the read-only catalogue); xxd reads an
        # option word by its first letter (``readers.xxd_words``).
        "base64": lambda: grammar_of(BASE64),
        "base32": lambda: grammar_of(BASE32),
        "basenc": lambda: grammar_of(BASENC),
        "tr": lambda: grammar_of(TR),
        "xxd": lambda: grammar_of(XXD),
        # OpenSSH 9.2: options end at the destination, and ssh reads options again after it
        # (``ssh host -v ls``) up to the remote command.
        "ssh": lambda: grammar(
            "ssh",
            "4 6 A a C f G g K k M N n q s T t V v X x Y y B: b: c: D: E: e: F: I: i: J: L: l: "
            "m: O: o: p: Q: R: S: W: w:",
            abbreviate=False,
            permute=False,
        ),
        # netcat: the union of OpenBSD nc, traditional nc and nmap's ncat (-e/-c run programs).
        "nc": lambda: grammar(
            "nc",
            "4 6 b C D d F h I: i|idle-timeout: k|keep-open l|listen M: m|max-conns: N n|nodns "
            "O: P: p|source-port: q: R r S s|source: T: t|telnet U|unixsock u|udp V: v|verbose "
            "W: w|wait: X: x|hex-dump: Z z e|exec: c|sh-exec: lua-exec: g: G: o|output: "
            "append-output send-only recv-only no-shutdown allow: allowfile: deny: denyfile: "
            "broker chat proxy: proxy-type: proxy-auth: proxy-dns: ssl ssl-cert: ssl-key: "
            "ssl-verify ssl-trustfile: ssl-ciphers: ssl-servername: ssl-alpn: vsock sctp "
            "delay: crlf version help",
        ),
        # GNU parallel 20221122 (Getopt::Long: bundling, require_order, unique prefixes).
        "parallel": lambda: grammar(
            "parallel",
            "j|P|jobs: S|sshlogin: sshloginfile|slf: results|res: a|arg-file: joblog: I: "
            "replace:: d|delimiter: E: eof:: n|max-args: N: L|max-lines: l:: s|max-chars: "
            "C|colsep: delay: timeout: retries: memfree: load: nice: tmpdir: workdir|wd: "
            "basefile|bf: transferfile|tf: return: env: tagstring|tag-string: header: halt: "
            "termseq: limit: sshdelay: block|bs: recstart: recend: id: ssh: X m k|keep-order "
            "q|quote pipe pipepart dry-run|dryrun v|verbose t tag bar eta progress "
            "line-buffer|lb group u|ungroup shuf 0|null xargs r|no-run-if-empty plus "
            "M|controlmaster semaphore fg bg citation will-cite g|grep e|extract h|help "
            "V|version onall nonall transfer cleanup trc:",
            permute=False,
        ),
        # ``tar xzf a.tgz -C dir``: a first word without a dash is a cluster whose letters
        # take their values from the words after it, in order (GNU tar's old-style options).
        "tar": lambda: grammar("tar", _TAR + " ?|help", old_style=True),
        # pip's general options end at its subcommand (``pip --log F uninstall X``).
        "pip": lambda: grammar_of(PIP),
        # uv 0.13.9 (its --help; clap: names spelt whole, global options anywhere).
        "uv": lambda: grammar(
            "uv",
            "q|quiet v|verbose color: native-tls system-certs offline allow-insecure-host: "
            "no-progress "
            "directory: project: config-file: no-config cache-dir: n|no-cache "
            "python-preference: python-fetch: managed-python no-managed-python "
            "no-python-downloads preview no-preview h|help V|version",
            abbreviate=False,
        ),
        # redis-cli 7.0.15 (``redis-cli --help``): each option its own word, names spelt whole,
        # options end at the command; --count is 7.2's.
        "redis-cli": lambda: grammar(
            "redis-cli",
            "h: p: s: a: user: pass: askpass u: r: i: n: 2 3 x X: d: D: c e 4 6 tls sni: "
            "cacert: cacertdir: insecure cert: key: tls-ciphers: tls-ciphersuites: raw no-raw "
            "quoted-input csv json quoted-json show-pushes: stat latency latency-history "
            "latency-dist lru-test: replica rdb: functions-rdb: pipe pipe-timeout: bigkeys "
            "memkeys memkeys-samples: hotkeys scan pattern: quoted-pattern: count: "
            "intrinsic-latency: eval: ldb ldb-sync-mode cluster: verbose no-auth-warning help "
            "version",
            abbreviate=False,
            permute=False,
        ),
        "valkey-cli": lambda: TOOLS["redis-cli"]._replace(name="valkey-cli"),
        # yq 3 (kislyuk's jq wrapper, argparse: unique prefixes); mikefarah's yq (cobra) spells
        # -i/--inplace. jq's options pass through; its ``--arg NAME VALUE`` pairs are read as
        # flags, so their words count as file operands too (more candidates, never fewer).
        "yq": lambda: grammar(
            "yq",
            "h|help y|yaml-output|yml-output Y|yaml-roundtrip|yml-roundtrip "
            "yaml-output-grammar-version|yml-out-ver: w|width: indentless-lists|indentless "
            "i|in-place|inplace version arg argjson args jsonargs rawfile slurpfile tab",
        ),
        "gtar": lambda: TOOLS["tar"]._replace(name="gtar"),
        # bsdtar 3.6.2 (libarchive; macOS's tar), from its man page and ``bsdtar --help``:
        # old-style first word too, unique prefixes.
        "bsdtar": lambda: grammar(
            "bsdtar",
            "a|auto-compress B b|block-size: C|directory|cd: c|create f|file: H h I|T|files-from: "
            "J|xz j|bzip2|bunzip2 k|keep-old-files L|dereference l|check-links "
            "m|modification-time n|norecurse|no-recursion O|to-stdout o P|insecure "
            "absolute-paths p|preserve-permissions q|fast-read r|append S s: t|list "
            "U|unlink|unlink-first u|update v|verbose W: w|confirmation|interactive "
            "X|exclude-from: x|extract y Z|compress z|gunzip|gzip acls b64encode chroot "
            "clear-nochange-fflags exclude: exclude-vcs fflags format: gid: gname: grzip "
            "hfsCompression ignore-zeros include: keep-newer-files lrzip lz4 lzip lzma lzop "
            "mac-metadata newer: newer-mtime: newer-than: newer-mtime-than: no-acls no-fflags "
            "no-mac-metadata no-read-sparse no-safe-writes no-same-owner no-same-permissions "
            "no-xattrs nodump nopreserveHFSCompression null numeric-owner older: older-mtime: "
            "older-than: older-mtime-than: one-file-system options: passphrase: posix "
            "read-sparse safe-writes same-owner strip-components: totals uid: uname: "
            "use-compress-program: uuencode version xattrs zstd help",
            old_style=True,
        ),
        # UnZip 6.00 (``unzip -hh``, Debian's -I/-O charsets): options, then the archive; after
        # it only ``-d DIR`` and ``-x NAME…`` are options (``UNZIP_MEMBERS``), other words name
        # members, so its options end at the archive (a -x before it starts no list).
        "unzip": lambda: grammar(
            "unzip",
            # (``-:``, allow ``../`` in names, cannot be written here: unknown, read as a flag.)
            "Z h A c f l p t T u v z a b B C D E F i j J K L M n N o P: q s S U V W X Y $ ^ 2 "
            "d: x I: O:",
            abbreviate=False,
            permute=False,
        ),
        # at 3.2.5: -f FILE is the job; -l/-d/-r/-c list, remove or show jobs.
        "at": lambda: grammar("at", "V q: f: m M k v l d r b t: c u: o:", permute=False),
        "batch": lambda: TOOLS["at"]._replace(name="batch"),
        # GNU screen 4.9: options end at the command it starts; -X sends a command to a session.
        "screen": lambda: grammar(
            "screen",
            "4 6 a A c: d D e: f F h: i l L m O p: q Q r R s: S: t: T: U v V x X: Logfile: wipe "
            "ls list",
            abbreviate=False,
            permute=False,
        ),
        # Other fetchers' output options (aria2c 1.36 man page; HTTPie 3 / xh: -o FILE, -d).
        "aria2c": lambda: grammar(
            "aria2c",
            "o|out: d|dir: i|input-file: x|max-connection-per-server: s|split: "
            "k|min-split-size: j|max-concurrent-downloads: c|continue q|quiet l|log: "
            "Z|force-sequential h|help:: v|version V|check-integrity:: checksum: "
            "deferred-input:: dht-listen-addr6: dht-listen-port: enable-dht:: enable-dht6:: "
            "file-allocation: ftp-passwd: ftp-user: http-passwd: http-user: listen-port: "
            "load-cookies: max-overall-upload-limit: u|max-upload-limit: M|metalink-file: "
            "optimize-concurrent-downloads:: S|show-files:: T|torrent-file:",
        ),
        "http": lambda: grammar(
            "http",
            # HTTPie 3.2.1 (argparse: unique prefixes)
            "o|output: d|download c|continue b|body h|headers v|verbose q|quiet j|json f|form "
            "multipart boundary: raw: x|compress pretty: s|style: unsorted sorted "
            "response-charset: response-mime: format-options: p|print: m|meta all S|stream "
            "session: session-read-only: a|auth: A|auth-type: ignore-netrc offline proxy: "
            "F|follow max-redirects: max-headers: timeout: check-status path-as-is chunked "
            "verify: ssl: ciphers: cert: cert-key: cert-key-pass: I|ignore-stdin help manual "
            "version traceback default-scheme: debug",
        ),
        "https": lambda: TOOLS["http"]._replace(name="https"),
        "xh": lambda: TOOLS["http"]._replace(name="xh"),
        # CPython 3.11: -c and -m end the options (the rest is sys.argv); long names whole.
        "python3": lambda: grammar(
            "python3",
            "b B c: d E h ? i I m: O P q s S u v V W: x X: check-hash-based-pycs: help-env "
            "help-xoptions help-all help version",
            abbreviate=False,
            permute=False,
            ends=("-c", "-m"),
        ),
        # ``docker run``/``create`` (docker 27, pflag: names spelt whole); IMAGE ends options.
        "docker run": lambda: grammar(
            "docker run",
            "add-host: annotation: a|attach: blkio-weight: blkio-weight-device: cap-add: "
            "cap-drop: cgroup-parent: cgroupns: cidfile: cpu-count: cpu-percent: cpu-period: "
            "cpu-quota: cpu-rt-period: cpu-rt-runtime: c|cpu-shares: cpus: cpuset-cpus: "
            "cpuset-mems: d|detach detach-keys: device: device-cgroup-rule: device-read-bps: "
            "device-read-iops: device-write-bps: device-write-iops: disable-content-trust dns: "
            "dns-option: dns-search: domainname: entrypoint: e|env: env-file: expose: gpus: "
            "group-add: health-cmd: health-interval: health-retries: health-start-interval: "
            "health-start-period: health-timeout: help h|hostname: init i|interactive "
            "io-maxbandwidth: io-maxiops: ip: ip6: ipc: isolation: kernel-memory: l|label: "
            "label-file: link: link-local-ip: log-driver: log-opt: mac-address: m|memory: "
            "memory-reservation: memory-swap: memory-swappiness: mount: name: network|net: "
            "network-alias: no-healthcheck oom-kill-disable oom-score-adj: pid: pids-limit: "
            "platform: privileged p|publish: P|publish-all pull: q|quiet read-only restart: rm "
            "runtime: security-opt: shm-size: sig-proxy stop-signal: stop-timeout: storage-opt: "
            "sysctl: tmpfs: t|tty ulimit: use-api-socket u|user: userns: uts: v|volume: "
            "volume-driver: volumes-from: w|workdir:",
            abbreviate=False,
            permute=False,
        ),
        # GnuPG 2.2.40 (``gpg --help``; its argparse takes unique prefixes: ``--outp F``), with
        # the everyday value options it does not list there; an unknown option is a flag.
        "gpg": lambda: grammar(
            "gpg",
            "s|sign clear-sign b|detach-sign e|encrypt c|symmetric d|decrypt verify k|list-keys "
            "list-signatures check-signatures fingerprint K|list-secret-keys generate-key "
            "quick-generate-key quick-add-uid quick-revoke-uid quick-set-expire "
            "full-generate-key generate-revocation delete-keys delete-secret-keys "
            "quick-sign-key quick-lsign-key quick-revoke-sig sign-key lsign-key edit-key "
            "change-passphrase export send-keys receive-keys search-keys refresh-keys import "
            "card-status edit-card change-pin update-trustdb print-md server tofu-policy: "
            "v|verbose q|quiet options: log-file: default-key: encrypt-to: group: openpgp "
            "n|dry-run i|interactive a|armor o|output: textmode auto-key-locate: "
            "auto-key-import include-key-block disable-dirmngr r|recipient: u|local-user: z: "
            "h|help version batch yes no-tty homedir: passphrase: passphrase-file: "
            "passphrase-fd: pinentry-mode: trust-model: keyring: secret-keyring: keyserver: "
            "cipher-algo: digest-algo: compress-algo: status-fd: logger-fd: command-fd:",
        ),
        # qemu-img 7.2 (``qemu-img --help``): ``convert [options] SRC… DEST`` writes DEST.
        "qemu-img convert": lambda: grammar(
            "qemu-img convert",
            "c p q n W C U f: O: o: t: T: l: s: B: F: r: m: S: object: image-opts "
            "target-image-opts target-is-zero salvage bitmaps skip-broken-bitmaps h|help",
            abbreviate=False,
        ),
        # Tools that write a file an option or operand names (``OUTPUTS`` below says which);
        # the read-only catalogue reads sort, uniq, shuf, iconv and fd with the same specs.
        "sort": lambda: grammar_of(SORT),
        "uniq": lambda: grammar_of(UNIQ),
        "shuf": lambda: grammar_of(SHUF),
        "iconv": lambda: grammar_of(ICONV),
        "fd": lambda: grammar_of(FD),
        "fdfind": lambda: grammar_of(FD),
        # zstd 1.5.4 (``zstd -H``): -o has no long name; ``-#`` levels are read as flags.
        "zstd": lambda: grammar(
            "zstd",
            "o: k|keep rm d|decompress|uncompress D: f|force h H|help V|version c|stdout "
            "v|verbose q|quiet trace: progress no-progress r filelist: output-dir-flat: "
            "output-dir-mirror: asyncio no-asyncio check no-check C ultra fast:: adapt:: "
            "long:: patch-from: T: single-thread auto-threads: rsyncable "
            "exclude-compressed stream-size: size-hint: target-compressed-block-size: "
            "no-dictID dictID: format: t|test l|list train train-cover:: train-fastcover:: "
            "train-legacy:: maxdict: priority: B: b:: e:: M: memory: content-size "
            "no-content-size sparse no-sparse mmap-dict no-mmap-dict row-match-finder "
            "no-row-match-finder compress-literals no-compress-literals pass-through "
            "no-pass-through show-default-cparams",
            abbreviate=False,
        ),
        # moreutils 0.67: ``sponge [-a] FILE``.
        "sponge": lambda: grammar("sponge", "a h", abbreviate=False),
        # GNU Make 4.3: --eval (-E) is makefile text; VAR=VALUE operands are assignments.
        "make": lambda: grammar(
            "make",
            "b m B|always-make C|directory: d debug:: e|environment-overrides E|eval: "
            "f|file|makefile: h|help i|ignore-errors I|include-dir: j|jobs:: k|keep-going "
            "l|load-average|max-load:: L|check-symlink-times n|just-print|dry-run|recon "
            "o|old-file|assume-old: O|output-sync:: p|print-data-base q|question "
            "r|no-builtin-rules R|no-builtin-variables s|silent|quiet no-silent "
            "S|no-keep-going|stop t|touch trace v|version w|print-directory "
            "no-print-directory W|what-if|new-file|assume-new: warn-undefined-variables "
            "shuffle:: jobserver-auth: jobserver-style:",
        ),
        # Shell builtins that keep a command to run later (bash 5.2 `help NAME`; zsh 5.9's
        # alias flags in the union): trap's action, mapfile's -C callback, an alias's value.
        "trap": lambda: grammar("trap", "l p P", abbreviate=False, permute=False),
        "mapfile": lambda: grammar(
            "mapfile", "d: n: O: s: t u: C: c:", abbreviate=False, permute=False
        ),
        "readarray": lambda: TOOLS["mapfile"]._replace(name="readarray"),
        "alias": lambda: grammar("alias", "p g m r s L", abbreviate=False, permute=False),
        # Expect 5.45: ``expect [-dDinNv] [-c cmds] [[-f|-b] cmdfile] [args]``.
        "expect": lambda: grammar(
            "expect", "b: c: d D: f: i n N v", abbreviate=False, permute=False
        ),
        # cargo 1.95 (clap: names spelt whole; ``cargo +TOOLCHAIN`` is rustup's, a first
        # operand), then the subcommand; Maven 3.8.7 (commons-cli: ``-pl``/``-gs``-style short
        # names read as clusters, whose last value-taking letter takes the rest, as the word's
        # value does).
        "cargo": lambda: grammar(
            "cargo",
            "V|version list explain: v|verbose q|quiet color: C: locked offline frozen config: "
            "Z: h|help",
            abbreviate=False,
        ),
        "mvn": lambda: grammar(
            "mvn",
            "also-make also-make-dependents B|batch-mode b|builder: C|strict-checksums "
            "c|lax-checksums check-plugin-updates D|define: e|errors encrypt-master-password: "
            "encrypt-password: f|file: fail-at-end fail-fast fail-never global-settings: "
            "global-toolchains: h|help l|log-file: legacy-local-repository N|non-recursive "
            "no-plugin-registry no-plugin-updates no-snapshot-updates no-transfer-progress "
            "o|offline P|activate-profiles: projects: q|quiet resume-from: s|settings: "
            "t|toolchains: T|threads: U|update-snapshots update-plugins v|version "
            "V|show-version X|debug color: ignore-transitive-repositories",
            abbreviate=False,
        ),
        "mvnw": lambda: TOOLS["mvn"]._replace(name="mvnw"),
        # Gradle 8 (man page: not packaged here; ``-m`` is --dry-run) and Poetry 2 (cleo).
        "gradle": lambda: grammar(
            "gradle",
            "p|project-dir: b|build-file: c|settings-file: g|gradle-user-home: I|init-script: "
            "D|system-prop: P|project-prop: x|exclude-task: console: warning-mode: "
            "max-workers: priority: include-build: F|dependency-verification: "
            "M|write-verification-metadata: project-cache-dir: q|quiet w|warn i|info d|debug "
            "s|stacktrace S|full-stacktrace offline refresh-dependencies daemon no-daemon "
            "parallel no-parallel build-cache no-build-cache configuration-cache "
            "no-configuration-cache continue m|dry-run t|continuous scan no-scan profile "
            "rerun-tasks h|help v|version",
            abbreviate=False,
        ),
        "gradlew": lambda: TOOLS["gradle"]._replace(name="gradlew"),
        "poetry": lambda: grammar(
            "poetry",
            "h|help q|quiet V|version ansi no-ansi n|no-interaction no-plugins no-cache "
            "P|project: C|directory: v|verbose dry-run",
            abbreviate=False,
        ),
        # npm 11 (nopt, ``npm help 7 config``): every config key is an option anywhere on the
        # line, abbreviated to any unique prefix; those whose type is not Boolean take a value
        # (``--registry URL``), an unknown one is a flag. The shorthands that take one.
        "npm": lambda: grammar("npm", _NPM),
        # pnpm 9 (man page: not packaged here): its own options with a value, and npm's.
        "pnpm": lambda: grammar(
            "pnpm",
            "C|dir: F|filter: filter-prod: test-pattern: changed-files-ignore-pattern: "
            "reporter: workspace-concurrency: store-dir: virtual-store-dir: r|recursive "
            "w|workspace-root " + _NPM.replace("C|prefix:", "prefix:").replace("w|workspace:", ""),
        ),
        # Yarn 1.22 (man page: not packaged here): the global options that take a value.
        "yarn": lambda: grammar(
            "yarn",
            "cwd: cache-folder: modules-folder: global-folder: link-folder: mutex: "
            "network-concurrency: network-timeout: preferred-cache-folder: proxy: https-proxy: "
            "registry: use-yarnrc: otp: emoji: s|silent verbose offline prefer-offline "
            "frozen-lockfile pure-lockfile non-interactive no-progress dry-run h|help "
            "v|version",
        ),
    }
)

# npm's config keys whose type has no Boolean (definitions.js), and the value shorthands.
_NPM = (
    "_auth: access: allow-directory: allow-file: allow-git: allow-remote: allow-scripts: "
    "also: audit-level: auth-type: before|enjoy-by: ca: cache: cache-max: cache-min: cafile: "
    "c|call: cert: cidr: cpu: depth: diff: diff-dst-prefix: diff-src-prefix: diff-unified: "
    "editor: expect-result-count: expires: fetch-retries: fetch-retry-factor: "
    "fetch-retry-maxtimeout: fetch-retry-mintimeout: fetch-timeout: git: globalconfig: "
    "heading: https-proxy: include: init-author-email: init-author-name: init-author-url: "
    "init-license: init-module: init-type: init-version: init.author.email: "
    "init.author.name: init.author.url: init.license: init.module: init.version: "
    "install-strategy: key: libc: local-address: L|location: lockfile-version: loglevel: "
    "logs-dir: logs-max: maxsockets: m|message: min-release-age: min-release-age-exclude: "
    "node-gyp: node-options: noproxy: omit: only: orgs: os: otp: package: pack-destination: "
    "packages: C|prefix: preid: provenance-file: proxy: registry|reg: "
    "replace-registry-host: save-prefix: sbom-format: sbom-type: scope: scopes: "
    "packages-and-scopes-permission: orgs-permission: password: token-description: "
    "script-shell: searchexclude: searchlimit: searchopts: searchstaleness: shell: tag: "
    "tag-version-prefix: umask: user-agent: userconfig: viewer: which: w|workspace: "
    "g|global dry-run h|help|usage v|version"
)


class Output(NamedTuple):
    """Where a tool writes the bytes it produces: the options and operands naming the file."""

    options: tuple[str, ...] = ()  # canonical option names whose value is a file written
    operands: str = ""  # "all", "second", or "last" (of two or more, unless an option names it)
    only_with: tuple[str, ...] = ()  # written only when one of these options is given
    into: str = ""  # the option naming the directory a relative output lands in (curl's)


_CURL_OUTPUTS = ("--output", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii",
                 "--stderr", "--libcurl", "--etag-save")  # fmt: skip
_WGET_OUTPUTS = ("--output-document", "--output-file", "--append-output", "--save-cookies",
                 "--rejected-log")  # fmt: skip
# The file-writing tools' output options and operands (each tool's grammar above, or MACHINE's),
# judged where the bytes land, like a redirect (``rules/danger/devices.py``). dd's ``of=`` is
# an operand form of its own, read there.
OUTPUTS: Mapping[str, Output] = MappingProxyType(
    {
        "curl": Output(_CURL_OUTPUTS, into="--output-dir"),
        "aria2c": Output(("--out",), into="--dir"),
        "wget": Output(_WGET_OUTPUTS),
        "http": Output(("--output",)),
        "https": Output(("--output",)),
        "xh": Output(("--output",)),
        "base64": Output(("--output",)),
        "sort": Output(("--output",)),
        "shuf": Output(("--output",)),
        "iconv": Output(("--output",)),
        "zstd": Output(("-o",)),
        "pv": Output(("--output",)),
        "tee": Output(operands="all"),
        "sponge": Output(operands="all"),
        "uniq": Output(operands="second"),
        "cp": Output(("--target-directory",), operands="last"),
        "install": Output(("--target-directory",), operands="last"),
        "ddrescue": Output(operands="second", only_with=("--force",)),  # refuses a device else
        "tar": Output(("--file",), only_with=("--create", "--append", "--update", "--catenate")),
        # ``xxd [-r] IN OUT``: the dump (or the bytes -r reverts) goes to OUT.
        "xxd": Output(operands="second"),
        "openssl": Output(("--out", "--keyout")),
        "gpg": Output(("--output",)),
        "qemu-img convert": Output(operands="last"),
    }
)

# What unzip reads after the archive: member names, ``-d DIR`` (or ``-dDIR``) and ``-x`` with
# the names it excludes (up to ``-d``); checked against UnZip 6.00 by running it.
UNZIP_MEMBERS = grammar("unzip members", "d: x*", abbreviate=False)

# Inline-code interpreters whose help lists hundreds of runtime flags: only the options that
# carry code or take a separate value are listed (an unknown option is read as a flag, so a
# value-taking one must be known or the code after it would be missed). node 20.20.
_NODE_VALUES = (
    "allow-fs-read: allow-fs-write: build-snapshot-config: C|conditions: cpu-prof-dir: "
    "cpu-prof-interval: cpu-prof-name: diagnostic-dir: disable-proto: disable-warning: "
    "dns-result-order: env-file: env-file-if-exists: e|eval: experimental-default-type: "
    "experimental-policy: experimental-sea-config: heap-prof-dir: heap-prof-interval: "
    "heap-prof-name: heapsnapshot-near-heap-limit: heapsnapshot-signal: icu-data-dir: import: "
    "input-type: inspect-publish-uid: max-http-header-size: "
    "network-family-autoselection-attempt-timeout: openssl-config: policy-integrity: "
    "redirect-warnings: report-filename: report-signal: r|require: secure-heap: "
    "secure-heap-min: snapshot-blob: test-concurrency: test-name-pattern: test-reporter: "
    "test-reporter-destination: test-shard: test-timeout: title: tls-cipher-list: tls-keylog: "
    "trace-event-categories: trace-event-file-pattern: trace-require-module: "
    "unhandled-rejections: use-largepages: v8-pool-size: watch-path: p|print: c|check "
    "i|interactive h|help v|version loader: experimental-loader: inspect-port:"
)
INTERPRETERS: LazyTable[Grammar] = LazyTable(
    {
        "node": lambda: grammar("node", _NODE_VALUES, abbreviate=False, permute=False),
        "bun": lambda: grammar(
            "bun",
            # bun 1.x's global options that take a value: ``bun --cwd DIR publish``.
            "e|eval: p|print: r|preload: cwd: h|help v|version c|config: env-file: "
            "conditions: title: port: F|filter: shell: install: elide-lines: require: "
            "max-http-header-size: dns-result-order: unhandled-rejections: inspect:: "
            "inspect-wait:: inspect-brk::",
            abbreviate=False,
            permute=False,
        ),
        # php 8: -r CODE runs code; -B/-R/-F/-E per-line code.
        "php": lambda: grammar(
            "php",
            "a b: C c: n d: e f: h i l m r: B: R: F: E: H s S: t: v w z: ini:: rf: rc: re: rz: ri:",
            abbreviate=False,
            permute=False,
        ),
        "osascript": lambda: grammar("osascript", "e: i l: s:", permute=False),
    }
)


def code_grammar(name: str) -> Grammar:
    """Return the grammar an inline-code interpreter reads (``python3.11`` reads python3's)."""
    base = name.rstrip("0123456789.")
    if base in ("python", "pypy"):
        return TOOLS["python3"]
    if name in ("nodejs", "deno"):
        return INTERPRETERS["node"]
    return INTERPRETERS.get(name) or tool_grammar(name)


# Tools whose long options are single-dash words (``openssl enc -d -base64``, PowerShell's
# ``-EncodedCommand``): ``single_dash`` spells those as ``--name`` so the engine reads them.
SINGLE_DASH: LazyTable[Grammar] = LazyTable(
    {
        # PowerShell reads single-dash names case-insensitively by unique prefix; the danger
        # catalogue spells them as long options (``-Enc`` -> ``--enc``) to read them here.
        "powershell": lambda: grammar(
            "powershell",
            "e|encodedcommand|ec: c|command: f|file: executionpolicy|ep|ex: noprofile "
            "noninteractive nologo noexit windowstyle: inputformat: outputformat: sta mta "
            "version: configurationname: custompipename: workingdirectory: settingsfile: login "
            "interactive commandwithargs: help",
            permute=False,  # the first operand starts the command (or the script)
            ends=("--command", "--file", "--commandwithargs"),  # the rest is code or arguments
        ),
        "pwsh": lambda: SINGLE_DASH["powershell"]._replace(name="pwsh"),
        # SQLite 3.40 shell (``sqlite3 -help``): names spelt whole, ``-x`` or ``--x``, anywhere
        # on the line. ``-lookaside``/``-pagecache`` take two words (``_TWO_WORDS``).
        "sqlite3": lambda: grammar(
            "sqlite3",
            "A: append ascii bail batch box column cmd: csv deserialize echo init: header "
            "noheader help html interactive json line list lookaside: markdown maxsize: "
            "memtrace mmap: newline: nofollow nonce: nullvalue: pagecache: quote readonly safe "
            "separator: stats table tabs version vfs: zip",
            abbreviate=False,
        ),
        # openssl 3.0 ``enc`` / ``base64`` (and the cipher subcommands).
        "openssl": lambda: grammar(
            "openssl",
            "d e a A base64 in: out: pass: k: K: iv: md: S: salt nosalt p P z none engine: "
            "kfile: v debug nopad bufsize: list ciphers iter: pbkdf2 saltlen: provider: "
            "provider-path: propquery: rand: writerand: decrypt keyout:",
            abbreviate=False,
            permute=True,
        ),
    }
)


def single_dash(name: str, args: tuple[Word, ...]) -> Parsed:
    """Parse the arguments of a single-dash tool (``-enc`` is PowerShell's ``--enc``).

    PowerShell matches names case-insensitively; a one-letter word stays a short option.
    """
    g = SINGLE_DASH[name]
    ci = name in ("powershell", "pwsh")
    two = _TWO_WORDS.get(name, ())
    words: list[Word] = []
    skip = 0
    for i, w in enumerate(args):
        if skip:
            skip -= 1
            continue
        v = w.value.lower() if ci else w.value
        long = w.literal and v[:1] == "-" and v[1:2] != "-" and len(v) > 2
        if long and g.resolve("-" + v.partition("=")[0]) is not None:
            w = Word("-" + v)
        if two and g.resolve(w.value) in two and i + 2 < len(args):
            # ``-lookaside SIZE N``: one value spelt as two words.
            words += [w, Word(f"{args[i + 1].value} {args[i + 2].value}")]
            skip = 2
            continue
        words.append(w)
    return parse(g, tuple(words))


# Options whose value is two words (sqlite3's ``-lookaside SIZE N``, ``-pagecache SIZE N``).
_TWO_WORDS = {"sqlite3": ("--lookaside", "--pagecache")}


# tmux 3.3a (``tmux list-commands``): its own options, then commands split at ``;`` words.
# The commands that run a shell command (their last operands) or type keys into a pane.
TMUX = grammar("tmux", "2 C D l N u v V c: f: L: S: T:", abbreviate=False, permute=False)
TMUX_COMMANDS: LazyTable[Grammar] = LazyTable(
    {
        "new-session": lambda: grammar(
            "tmux new-session", "A d D E P X c: e: F: f: n: s: t: x: y:", permute=False
        ),
        "new-window": lambda: grammar(
            "tmux new-window", "a b d k P S c: e: F: n: t:", permute=False
        ),
        "split-window": lambda: grammar(
            "tmux split-window", "b d f h I P v Z c: e: F: l: t:", permute=False
        ),
        "respawn-pane": lambda: grammar("tmux respawn-pane", "k c: e: t:", permute=False),
        "respawn-window": lambda: grammar("tmux respawn-window", "k c: e: t:", permute=False),
        "run-shell": lambda: grammar("tmux run-shell", "b C d: t:", permute=False),
        "display-popup": lambda: grammar(
            "tmux display-popup",
            "B C E b: c: d: e: h: s: S: t: T: w: x: y:",
            permute=False,
        ),
        "if-shell": lambda: grammar("tmux if-shell", "b F t:", permute=False),
        "pipe-pane": lambda: grammar("tmux pipe-pane", "I O o t:", permute=False),
        "send-keys": lambda: grammar("tmux send-keys", "F H l M R X N: t:", permute=False),
    }
)
TMUX_ALIASES = {
    "new": "new-session",
    "neww": "new-window",
    "splitw": "split-window",
    "respawnp": "respawn-pane",
    "respawnw": "respawn-window",
    "run": "run-shell",
    "popup": "display-popup",
    "if": "if-shell",
    "pipep": "pipe-pane",
    "send": "send-keys",
}


# Container and cluster CLIs (cobra/pflag: names spelt whole). Their own options before the
# subcommand, some with values (``kubectl -n NS delete …``, ``docker -H HOST system prune``).
KUBECTL_GLOBAL = (
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
        "kubectl": lambda: grammar("kubectl", KUBECTL_GLOBAL, abbreviate=False),
        "oc": lambda: CLUSTER["kubectl"]._replace(name="oc"),
        "kubecolor": lambda: CLUSTER["kubectl"]._replace(name="kubecolor"),
        # docker compose v2 (and docker-compose): global options, then run/exec SERVICE CMD…
        "docker compose": lambda: grammar(
            "docker compose",
            "f|file: p|project-name: profile: env-file: project-directory: ansi: progress: "
            "parallel: compatibility dry-run all-resources h|help version",
            abbreviate=False,
            permute=False,
        ),
        "docker compose run": lambda: grammar(
            "docker compose run",
            "d|detach entrypoint: e|env: l|label: name: no-deps p|publish: pull: quiet-pull rm "
            "remove-orphans service-ports use-aliases u|user: v|volume: w|workdir: T|no-TTY "
            "i|interactive t|tty build cap-add: cap-drop: P|service-ports-all env-from-file: "
            "h|help",
            abbreviate=False,
            permute=False,
        ),
        "docker compose exec": lambda: grammar(
            "docker compose exec",
            "d|detach privileged u|user: T|no-TTY index: e|env: w|workdir: i|interactive t|tty "
            "dry-run h|help",
            abbreviate=False,
            permute=False,
        ),
        # kubectl run NAME --image=IMG … -- COMMAND ARGS (pflag: interspersed, names whole).
        "kubectl run": lambda: grammar(
            "kubectl run",
            "image: command restart: rm i|stdin t|tty attach env: labels|l: port: expose "
            "overrides: dry-run: image-pull-policy: privileged annotations: field-manager: "
            "pod-running-timeout: q|quiet save-config override-type: o|output: template: "
            "show-managed-fields allow-missing-template-keys cascade: grace-period: force "
            "timeout: wait leave-stdin-open filename|f: kustomize|k: recursive|R "
            "n|namespace: context: kubeconfig: cluster: user: s|server: token: h|help",
            abbreviate=False,
        ),
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

# Docker's subcommands the danger catalogue reads options of (pflag: names spelt whole,
# options anywhere among the operands); ``container rm`` is ``rm``, ``image rm`` is ``rmi``.
_DOCKER_RM = "f|force l|link v|volumes h|help"
_DOCKER_RMI = "f|force no-prune platform: h|help"
DOCKER_SUBCOMMANDS: LazyTable[Grammar] = LazyTable(
    {
        "rm": lambda: grammar("docker rm", _DOCKER_RM, abbreviate=False),
        "container rm": lambda: grammar("docker container rm", _DOCKER_RM, abbreviate=False),
        "rmi": lambda: grammar("docker rmi", _DOCKER_RMI, abbreviate=False),
        "image rm": lambda: grammar("docker image rm", _DOCKER_RMI, abbreviate=False),
        "image prune": lambda: grammar(
            "docker image prune", "a|all filter: f|force h|help", abbreviate=False
        ),
        "system prune": lambda: grammar(
            "docker system prune", "a|all filter: f|force volumes h|help", abbreviate=False
        ),
        # Compose v2's own options come before its subcommand (``compose -f x.yml down``).
        "compose": lambda: CLUSTER["docker compose"],
        "compose down": lambda: grammar(
            "docker compose down",
            "remove-orphans rmi: t|timeout: v|volumes h|help",
            abbreviate=False,
        ),
    }
)

# Terraform reads options with Go's flag package: ``-name`` and ``--name`` alike, a value as
# ``-name=v`` or ``-name v`` (booleans only ``-name=false``), no clusters, no prefixes. A judge
# reads them after respelling ``-name`` as ``--name`` (``tether.rules.danger.infra``).
_TERRAFORM_PLAN = (
    "auto-approve backup: compact-warnings destroy lock lock-timeout: input no-color "
    "parallelism: state: state-out: var: var-file: refresh-only refresh replace: target: "
    "detailed-exitcode generate-config-out: out: json help"
)
TERRAFORM: LazyTable[Grammar] = LazyTable(
    {
        "": lambda: grammar("terraform", "chdir: help version", abbreviate=False, permute=False),
        "apply": lambda: grammar("terraform apply", _TERRAFORM_PLAN, abbreviate=False),
        "plan": lambda: grammar("terraform plan", _TERRAFORM_PLAN, abbreviate=False),
    }
)


def go_flags(args: tuple[Word, ...]) -> tuple[Word, ...]:
    """Respell Go-style ``-name`` options as ``--name`` (Go's flag package reads both alike).

    A one-letter ``-x`` stays short; the ``TERRAFORM`` grammars read the result.
    """
    return tuple(
        w._replace(value="-" + w.value)
        if w.literal and len(w.value) > 2 and w.value[0] == "-" and w.value[1] != "-"
        else w
        for w in args
    )


# find (findutils 4.9.0, and BSD find's -E -X -s -x -d): ``-H -L -P -D OPTS -OLEVEL`` before
# the starting points, each a word of its own (``-HL`` is an unknown predicate), then the
# expression, whose primaries take a fixed number of words (``-exec …`` runs to ``;``/``+``).
FIND = grammar("find", "H L P D: O:: E X s x d", abbreviate=False, permute=False)
_FIND_NULLARY = (
    "-print -print0 -ls -prune -quit -true -false -empty -executable -readable -writable "
    "-nogroup -nouser -xdev -mount -depth -d -follow -noleaf -daystart -ignore_readdir_race "
    "-noignore_readdir_race -not -a -and -o -or , ( ) ! -warn -nowarn -s -x -E -X -delete "
    "-help --help -version --version"
)
FIND_NULLARY = frozenset(_FIND_NULLARY.split())
_FIND_UNARY = (
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -size -perm "
    "-user -group -uid -gid -newer -anewer -cnewer -mtime -atime -ctime -mmin -amin -cmin "
    "-used -links -inum -samefile -lname -ilname -maxdepth -mindepth -fstype -context "
    "-printf -regextype -files0-from -Btime -Bmin -Bnewer -fprint -fprint0 -fls"
)
FIND_UNARY = frozenset(_FIND_UNARY.split())
FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# Tests that narrow what find matches to some files (``-type`` alone does not: ``-type f`` is
# every file); a judge that also counts a depth limit adds ``-maxdepth`` itself.
_FIND_FILTERS = (
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -newer -newermt -user "
    "-group -uid -gid -nouser -nogroup -perm -size -empty -mtime -mmin -atime -amin -ctime "
    "-cmin -links -inum -samefile"
)
FIND_FILTERS = frozenset(_FIND_FILTERS.split())


def find_parts(args: tuple[Word, ...]) -> tuple[tuple[Word, ...], tuple[Word, ...]]:
    """Split find's arguments into its starting points and its expression."""
    i = 0
    while i < len(args) and (
        args[i].value in FIND.names or (args[i].value.startswith("-O") and len(args[i].value) > 2)
    ):
        i += 2 if args[i].value == "-D" else 1
    j = i
    while j < len(args) and not args[j].value.startswith("-") and args[j].value not in "(!,":
        j += 1
    return args[i:j], args[j:]


def find_primaries(expression: tuple[Word, ...]) -> Iterator[tuple[str, tuple[Word, ...]]]:
    """Yield each primary of a find expression with the words it takes as its arguments.

    ``-newerXY`` takes one word, ``-fprintf`` two, the ``-exec`` family every word up to
    ``;`` or ``+``; an unknown primary is yielded with none.
    """
    i, n = 0, len(expression)
    while i < n:
        primary = expression[i].value
        i += 1
        if primary in FIND_EXEC:
            start = i
            while i < n and expression[i].value not in (";", "+", "\\;"):
                i += 1
            yield primary, expression[start:i]
            i += 1
            continue
        if primary == "-fprintf":
            take = 2
        elif primary in FIND_UNARY or (
            len(primary) == 8 and primary.startswith("-newer") and set(primary[6:]) <= set("aBcmt")
        ):
            take = 1
        else:
            take = 0  # nullary, or unknown (find refuses it)
        yield primary, expression[i : i + take]
        i += take


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
        "branch": lambda: grammar_of(GIT_BRANCH),
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
        "rm": lambda: grammar(
            "git rm",
            "n|dry-run q|quiet cached f|force r ignore-unmatch sparse pathspec-from-file: "
            "pathspec-file-nul",
        ),
        "mv": lambda: grammar("git mv", "v|verbose n|dry-run f|force k sparse"),
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
        "symbolic-ref": lambda: grammar_of(GIT_SYMBOLIC_REF),
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
            "X|max-read-errors: y|synchronous h|help V|version ask command-mode "
            "W|compare-before-write cpass: delay-slow: log-events: log-rates: log-reads: "
            "mapfile-interval: Z|max-read-rate: max-slow-reads: pause-on-error: pause-on-pass: "
            "reset-slow same-file",
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
            "timestamp: read-only mkdir marked "
            # newer systemd's, so ``--message TEXT stop x`` keeps ``stop`` the verb
            "kill-value: reboot-argument: message: when: drop-in: no-warn",
            # getopt_long: unique prefixes (``--no-b`` is --no-block, ``--sig 9`` --signal 9);
            # a prefix that is unique in 252 but not in the union (``--kill- main``) still
            # takes its value, since every option it may mean takes one.
        ),
        "loginctl": lambda: grammar(
            "loginctl",
            "h|help version no-pager no-legend no-ask-password H|host: M|machine: "
            "p|property: P: a|all value l|full kill-whom: s|signal: n|lines: o|output:",
        ),
        # systemd's compat tools read getopt_long too: ``shutdown --sho`` only shows.
        "shutdown": lambda: grammar(
            "shutdown", "help H|halt P|poweroff r|reboot h k no-wall c show"
        ),
        "reboot": lambda: grammar("reboot", _SYSTEMD_POWER),
        # macOS launchctl (launchctl(1), macOS 14: not packaged here): the legacy load/unload
        # flags, ``-S SESSIONTYPE`` and ``-D DOMAIN`` taking a value; the verb comes first.
        "launchctl": lambda: grammar("launchctl", "w F S: D:", abbreviate=False),
        # BSD/macOS chflags(1) (macOS 14, FreeBSD 14; not packaged here): flags only, which end
        # at the first operand (the flags word: ``chflags -R schg /``).
        "chflags": lambda: grammar("chflags", "f h v x R H L P", abbreviate=False, permute=False),
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
        found = _FOUND[name] = (
            TOOLS.get(name)
            or MACHINE.get(name)
            or SHELLS.get(name)
            or AGENT_CLIS.get(name)
            or _UNKNOWN
        )
    return found


__all__ = [
    "CHMOD_MODE_LETTERS",
    "CLUSTER",
    "DOCKER_SUBCOMMANDS",
    "FD",
    "FIND",
    "FIND_EXEC",
    "FIND_NULLARY",
    "FIND_UNARY",
    "GH_API",
    "GIT",
    "GIT_BRANCH",
    "GIT_SUBCOMMANDS",
    "ICONV",
    "INTERPRETERS",
    "MACHINE",
    "OUTPUTS",
    "PIP",
    "PIP_CHECKED",
    "PIP_GENERAL",
    "PIP_UNINSTALL",
    "PIP_WRITES",
    "SED",
    "SHUF",
    "SIGNALS",
    "SINGLE_DASH",
    "SORT",
    "TEE",
    "TERRAFORM",
    "TMUX",
    "TMUX_ALIASES",
    "TMUX_COMMANDS",
    "TOOLS",
    "UNIQ",
    "Output",
    "code_grammar",
    "find_parts",
    "find_primaries",
    "go_flags",
    "signal_and_rest",
    "single_dash",
    "subcommand_words",
    "tool_grammar",
]
