"""RO1xx: commands that read files and directories (cat, head, ls, stat, du, tree, …)."""

from __future__ import annotations

from tether.rules.readonly.catalogue import Entry, entries, pure_entries, rule
from tether.rules.readonly.spec import (
    WRITE_OPERAND,
    Check,
    Spec,
    check_spec,
    parse,
    read,
    write,
)
from tether.shell.model import Word
from tether.shell.options import GNU_STANDARD
from tether.shell.readers import (
    BASE32,
    BASE64,
    BASENC,
    CAT,
    COREUTILS,
    DIR,
    HEAD,
    LS,
    NL,
    TAIL,
    VDIR,
    WC,
    XXD,
    xxd_words,
)
from tether.shell.tools import TEE

RULES = (
    rule(
        "RO101",
        "file-viewers",
        "Commands that print files or parts of them are read-only.",
        "`cat`, `head`, `tail`, `wc`, `nl`, `tac`, `od`, `strings`… have no option that "
        "writes or runs a program in GNU, BSD or busybox, so any arguments (globs too) stay "
        "reads.",
        "Nothing to change.",
        (
            "cat file.txt",
            "head -n 100 src/extension.ts",
            "tail -20 log.txt",
            "nl -ba f.py",
            "wc -l *.py",
            "cat secret.dat",
        ),
        ("cat f > g", "tail -f log | tee out"),
    ),
    rule(
        "RO102",
        "file-comparers",
        "Commands that compare files are read-only.",
        "`diff`, `cmp`, `comm` print differences; none of their options writes.",
        "Nothing to change.",
        ("diff a.py b.py", "diff -u old new", "cmp a b", "comm -12 a b"),
        ("diff a b > patch.diff", "sdiff -o merged a b", "diff3 --diff-program=x a b c"),
    ),
    rule(
        "RO103",
        "directory-listers",
        "Commands that list directories and disk usage are read-only.",
        "`ls`, `du`, `df` have no option that writes or runs a program.",
        "Nothing to change.",
        ("ls -la", "ls -R", "ls tests/*.py", "du -sh .", "df -x tmpfs", "ls -al"),
        ("ls > out.txt",),
    ),
    rule(
        "RO104",
        "path-info",
        "Commands that describe paths (stat, readlink, realpath, basename…) are read-only.",
        "They print metadata or transform path strings; none writes.",
        "Nothing to change.",
        ("stat f.py", "realpath .", "basename /a/b.c .c", "readlink -f x", "dirname a/b"),
        ("touch f.py",),
    ),
    rule(
        "RO105",
        "checksums",
        "Checksum and encoding viewers are read-only.",
        "`md5sum`, `sha256sum`, `cksum`, `base32` print digests or encodings of their input.",
        "Nothing to change.",
        ("sha256sum f.tar.gz", "md5sum -c sums.txt", "cksum f"),
        ("sha256sum f > sums.txt",),
    ),
    rule(
        "RO106",
        "tree-listing",
        "`tree` is read-only without `-o FILE` or `-R`.",
        "`tree -o FILE` writes the listing to a file and `-R` writes 00Tree.html files into "
        "every directory; everything else prints.",
        "Drop `-o`; let the tool capture stdout.",
        ("tree", "tree -L 2 src", "tree -a -I node_modules"),
        ("tree -o out.txt", "tree -Cofile .", "tree --output=tree.txt", "tree -R -H . x"),
    ),
    rule(
        "RO107",
        "file-type",
        "`file` is read-only unless it compiles a magic file (`-C`) or decompresses (`-z`).",
        "`file -C -m x` writes x.mgc, and `-z/-Z` may run external decompression programs on "
        "the file; other options only read.",
        "Drop `-C` and `-z`.",
        ("file a.out", "file -b --mime-type f"),
        ("file -C -m magic", "file -z archive.gz"),
    ),
    rule(
        "RO108",
        "base64-decode-print",
        "`base64`/`basenc` are read-only without an output file option.",
        "The BSD/macOS `-o`/`--output` writes a file; otherwise they print to stdout.",
        "Drop `-o` and capture stdout.",
        ("base64", "base64 -d blob.txt", "base64 -w0 f"),
        ("base64 -o out.bin", "base64 --output=out.bin", "base64 -ob64.txt"),
    ),
    rule(
        "RO109",
        "hexdump-xxd",
        "`xxd` is read-only with at most one operand.",
        "`xxd IN OUT` (and `xxd -r IN OUT`) writes OUT.",
        "Drop the second operand.",
        ("xxd f.bin", "xxd -l 64 f.bin", "xxd -r -p hex.txt"),
        ("xxd in.bin out.hex", "xxd -C in.bin out.h"),
    ),
    rule(
        "RO110",
        "tee-to-null",
        "`tee` is read-only only when every file operand is /dev/null or a standard stream.",
        "`tee FILE` writes FILE.",
        "Drop `tee` and let the tool capture stdout.",
        ("ls | tee /dev/null", "ls | tee"),
        ("ls | tee out.txt", "tee output", "tee -a log", "ls | tee -- -out", "ls | tee -"),
    ),
)

_TREE = Spec(
    "tree",
    options="a d l f x q N Q p u g s h D F v t c U r C n A S i J X noreport du si dirsfirst "
    "filesfirst prune matchdirs ignore-case inodes device nolinks gitignore info metafirst "
    "fflinks version help condense L: P: I: H: T: charset: filelimit: timefmt: sort: "
    "fromfile gitfile: infofile: hintro: houtro: o|output:",
    writes={
        "-o": "writes the listing to a file",
        "--output": "writes the listing to a file",
        "-R": "writes 00Tree.html into every directory",
    },
    checked="tree 2.1.0",
    style="next",  # `tree -dL 2`, `tree -Lo 2 out`: values from the next arguments
)
# file 5.44 --help. -p restores each file's access time after reading it (a metadata write).
_FILE = Spec(
    "file",
    options="help v|version m|magic-file: b|brief c|checking-printout e|exclude: "
    "exclude-quiet: f|files-from: F|separator: i|mime apple extension mime-type mime-encoding "
    "k|keep-going l|list L|dereference h|no-dereference n|no-buffer N|no-pad 0|print0 "
    "P|parameter: r|raw s|special-files S|no-sandbox d|debug",
    writes={
        "-C": "compiles a magic file",
        "--compile": "compiles a magic file",
        "-z": "may run external decompression programs",
        "-Z": "may run external decompression programs",
        "--uncompress": "may run external decompression programs",
        "--uncompress-noreport": "may run external decompression programs",
        "-p": "resets the access time of every file it reads",
        "--preserve-date": "resets the access time of every file it reads",
    },
    checked="file 5.44",
)
# base64, base32, basenc and xxd are read by the danger catalogue's decoder too: one spec each,
# in ``tether.shell.readers``.

# The files tee may name and still only print (not "-": GNU tee 9.1 writes a file named "-").
_HARMLESS_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


def _tree(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(_TREE, args, "RO106")


def _file(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(_FILE, args, "RO107")


def _base64(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(BASE64, args, "RO108")


def _basenc(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(BASENC, args, "RO108")


def _xxd(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(XXD, xxd_words(args), "RO109", max_operands=1)


def _tee(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse(TEE, args)
    if isinstance(parsed, Check):
        return parsed
    for word in parsed.operands:  # every file operand, `tee -- -out`'s included
        if word.value not in _HARMLESS_FILES:
            return write(WRITE_OPERAND, f"tee writes '{word.value[:60]}'")
    return read("RO110", "tee only copies to stdout")


# Every option of the commands that only read (RO101-RO105), from their --help on Debian 12:
# none writes or runs a program, so words that expand at run time stay reads; an option not
# listed here is refused (a newer version may have added one that writes). The specs of the
# programs other judges read too (cat, head, ls, base64, …) are in ``tether.shell.readers``.
_GNU_CHECKSUM = "b|binary c|check tag t|text z|zero ignore-missing quiet status strict w|warn"


def _gnu(name: str, options: str, checked: str = COREUTILS, numeric: bool = False) -> Spec:
    return Spec(name, options=f"{options} {GNU_STANDARD}", checked=checked, numeric=numeric)


_HEXDUMP = (
    "b|one-byte-octal c|one-byte-char C|canonical d|two-bytes-decimal o|two-bytes-octal "
    "x|two-bytes-hex L|color:: e|format: f|format-file: n|length: s|skip: v|no-squeezing "
    "h|help V|version"
)
_VIEWERS = (
    CAT,
    _gnu("tac", "b|before r|regex s|separator:"),
    NL,
    HEAD,
    TAIL,
    WC,
    Spec("rev", options="h|help V|version", checked="util-linux 2.38.1"),
    _gnu(
        "od",
        "A|address-radix: endian: j|skip-bytes: N|read-bytes: S: strings:: t|format: "
        "v|output-duplicates w|width:: traditional a b c d f i l o s x",
    ),
    Spec("hexdump", options=_HEXDUMP, checked="bsdextrautils 2.38.1"),
    Spec("hd", options=_HEXDUMP, checked="bsdextrautils 2.38.1"),
    # ``@FILE`` reads more options from FILE: strings has none that writes.
    Spec(
        "strings",
        options="a|all d|data f|print-file-name n: bytes: t|radix: w|include-all-whitespace o "
        "T|target: e|encoding: unicode: U: s|output-separator: h|help v|V|version",
        checked="binutils 2.40",
        numeric=True,
    ),
    _gnu("fold", "b|bytes s|spaces w|width:"),
    _gnu(
        "fmt",
        "c|crown-margin p|prefix: s|split-only t|tagged-paragraph u|uniform-spacing w|width: "
        "g|goal:",
        numeric=True,
    ),
    _gnu("expand", "i|initial t|tabs:", numeric=True),
    _gnu("unexpand", "a|all first-only t|tabs:", numeric=True),
    _gnu(
        "pr",
        "columns: a|across c|show-control-chars d|double-space D|date-format: e|expand-tabs:: "
        "F|f|form-feed h|header: i|output-tabs:: J|join-lines l|length: m|merge "
        "n|number-lines:: N|first-line-number: o|indent: r|no-file-warnings s|separator:: "
        "S|sep-string:: t|omit-header T|omit-pagination v|show-nonprinting w|width: "
        "W|page-width: pages:",
        numeric=True,
    ),
)
_COMPARERS = (
    # -l/--paginate pipes the output through pr, a reader.
    Spec(
        "diff",
        options="normal q|brief s|report-identical-files c C: context:: u U: unified:: e|ed "
        "n|rcs y|side-by-side W|width: left-column suppress-common-lines p|show-c-function "
        "F|show-function-line: label: t|expand-tabs T|initial-tab tabsize: suppress-blank-empty "
        "l|paginate r|recursive no-dereference N|new-file unidirectional-new-file "
        "ignore-file-name-case no-ignore-file-name-case x|exclude: X|exclude-from: "
        "S|starting-file: from-file: to-file: i|ignore-case E|ignore-tab-expansion "
        "Z|ignore-trailing-space b|ignore-space-change w|ignore-all-space B|ignore-blank-lines "
        "I|ignore-matching-lines: a|text strip-trailing-cr D|ifdef: old-group-format: "
        "new-group-format: unchanged-group-format: changed-group-format: line-format: "
        "old-line-format: new-line-format: unchanged-line-format: d|minimal horizon-lines: "
        "speed-large-files color:: palette: help v|version",
        checked="diffutils 3.8",
        numeric=True,
    ),
    Spec(
        "cmp",
        options="b|print-bytes i|ignore-initial: l|verbose n|bytes: s|quiet|silent help v|version",
        checked="diffutils 3.8",
    ),
    _gnu("comm", "1 2 3 check-order nocheck-order output-delimiter: total z|zero-terminated"),
)
_LISTERS = (
    LS,
    DIR,
    VDIR,
    _gnu(
        "du",
        "0|null a|all apparent-size B|block-size: b|bytes c|total D|dereference-args "
        "d|max-depth: files0-from: H h|human-readable inodes k L|dereference l|count-links m "
        "P|no-dereference S|separate-dirs si s|summarize t|threshold: time:: time-style: "
        "X|exclude-from: exclude: x|one-file-system",
    ),
    _gnu(
        "df",
        "a|all B|block-size: h|human-readable H|si i|inodes k l|local no-sync output:: "
        "P|portability sync total t|type: T|print-type x|exclude-type: v",
    ),
    Spec(
        "lsblk",
        options="A|noempty D|discard E|dedup: I|include: J|json M|merge O|output-all P|pairs "
        "S|scsi T|tree:: a|all b|bytes d|nodeps e|exclude: f|fs i|ascii l|list m|perms "
        "n|noheadings o|output: p|paths r|raw s|inverse t|topology w|width: x|sort: y|shell "
        "z|zoned sysroot: h|help V|version",
        checked="util-linux 2.38.1",
    ),
)
_PATHS = (
    _gnu("stat", "L|dereference f|file-system cached: c|format: printf: t|terse"),
    _gnu(
        "readlink",
        "f|canonicalize e|canonicalize-existing m|canonicalize-missing n|no-newline q|quiet "
        "s|silent v|verbose z|zero",
    ),
    _gnu(
        "realpath",
        "e|canonicalize-existing m|canonicalize-missing L|logical P|physical q|quiet "
        "relative-to: relative-base: s|strip|no-symlinks z|zero",
    ),
    _gnu("basename", "a|multiple s|suffix: z|zero"),
    _gnu("dirname", "z|zero"),
    _gnu("pathchk", "p P portability"),
)
_CHECKSUMS = (
    *(_gnu(f"{n}sum", _GNU_CHECKSUM) for n in ("md5", "sha1", "sha224", "sha256", "sha384")),
    _gnu("sha512sum", _GNU_CHECKSUM),
    _gnu("b2sum", f"{_GNU_CHECKSUM} l|length:"),
    _gnu(
        "cksum",
        "a|algorithm: c|check l|length: tag untagged z|zero ignore-missing quiet status strict "
        "w|warn debug",
    ),
    _gnu("sum", "r s|sysv"),
    BASE32,
    # -a takes the algorithm (1, 224, 256, …), written as a separate word or attached.
    Spec(
        "shasum",
        options="a|algorithm: b|binary c|check tag t|text U|UNIVERSAL 0|01 ignore-missing "
        "q|quiet s|status strict w|warn h|help v|version",
        checked="perl 5.36 shasum 6.02",
    ),
)

ENTRIES: dict[str, Entry] = {
    **pure_entries("RO101", *_VIEWERS),
    **pure_entries("RO102", *_COMPARERS),
    **pure_entries("RO103", *_LISTERS),
    **pure_entries("RO104", *_PATHS),
    **pure_entries("RO105", *_CHECKSUMS),
    **entries("RO106", "tree", _tree, _TREE),
    **entries("RO107", "file", _file, _FILE),
    **entries("RO108", "base64", _base64, BASE64),
    **entries("RO108", "basenc", _basenc, BASENC),
    **entries("RO109", "xxd", _xxd, XXD),
    **entries("RO110", "tee", _tee, TEE),
}
