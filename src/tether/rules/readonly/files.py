"""RO1xx: commands that read files and directories (cat, head, ls, stat, du, tree, …)."""

from __future__ import annotations

from tether.rules.readonly.catalogue import Entry, entries, pure_entries, rule
from tether.rules.readonly.grammar import (
    WRITE_OPERAND,
    Check,
    Spec,
    check_spec,
    opts,
    read,
    write,
)
from tether.shell.model import Word

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
        ("ls | tee out.txt", "tee output", "tee -a log"),
    ),
)

_TREE = Spec(
    "tree",
    flags=opts(
        "-a -d -l -f -x -q -N -Q -p -u -g -s -h -D -F -v -t -c -U -r -C -n -A -S -i -J -X "
        "--noreport --du --si --dirsfirst --filesfirst --prune --matchdirs --ignore-case "
        "--inodes --device --nolinks --gitignore --info --metafirst --fflinks --version --help "
        "--condense"
    ),
    valued=opts(
        "-L -P -I -H -T --charset --filelimit --timefmt --sort --fromfile --gitfile --infofile "
        "--hintro --houtro"
    ),
    writes={
        "-o": "writes the listing to a file",
        "--output": "writes the listing to a file",
        "-R": "writes 00Tree.html into every directory",
    },
)
_FILE = Spec(
    "file",
    open=True,
    valued=opts("-m -f -F -e -P --magic-file --files-from --separator --exclude --parameter"),
    writes={
        "-C": "compiles a magic file",
        "--compile": "compiles a magic file",
        "-z": "may run external decompression programs",
        "-Z": "may run external decompression programs",
        "--uncompress": "may run external decompression programs",
        "--uncompress-noreport": "may run external decompression programs",
    },
)
_BASE64 = Spec(
    "base64",
    open=True,
    valued=opts("-w -b -i --wrap --break --input"),
    writes={"-o": "writes a file", "--output": "writes a file"},
)
# Only the options that really take a value: treating a flag (`-C`) as valued would swallow
# the input operand and hide the output one (`xxd -C in out`).
# xxd stops at its first operand: in `xxd f.bin --x` the second operand `--x` is the output.
_XXD = Spec("xxd", open=True, valued=opts("-c -g -l -s -o -n -R"), permute=False)
_TEE = Spec(
    "tee", flags=opts("-a -i -p --append --ignore-interrupts"), optional=opts("--output-error")
)
_HARMLESS_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "-"})


def _tree(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(_TREE, args, "RO106")


def _file(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(_FILE, args, "RO107")


def _base64(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(_BASE64, args, "RO108")


def _xxd(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(_XXD, args, "RO109", max_operands=1)


def _tee(name: str, args: tuple[Word, ...]) -> Check:
    result = check_spec(_TEE, args, "RO110")
    if not result.read_only:
        return result
    for word in args:
        if not word.value.startswith("-") and word.value not in _HARMLESS_FILES:
            return write(WRITE_OPERAND, f"tee writes '{word.value[:60]}'")
    return read("RO110", "tee only copies to stdout")


ENTRIES: dict[str, Entry] = {
    **pure_entries(
        "RO101", "cat tac nl head tail wc rev od hexdump hd strings fold fmt expand unexpand pr"
    ),
    **pure_entries("RO102", "diff cmp comm"),
    **pure_entries("RO103", "ls dir vdir du df lsblk"),
    **pure_entries("RO104", "stat readlink realpath basename dirname pathchk"),
    **pure_entries(
        "RO105",
        "md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum base32 shasum",
    ),
    **entries("RO106", "tree", _tree),
    **entries("RO107", "file", _file),
    **entries("RO108", "base64 basenc", _base64),
    **entries("RO109", "xxd", _xxd),
    **entries("RO110", "tee", _tee),
}
