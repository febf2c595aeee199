"""RO2xx: searching (grep, rg, find, fd) with their write and exec options scoped per command."""

from __future__ import annotations

from tether.rules.readonly.catalogue import Entry, entries, pure_entries, rule
from tether.rules.readonly.spec import (
    DYNAMIC_ARGUMENT,
    UNKNOWN_OPTION,
    WRITE_OPTION,
    Check,
    Spec,
    check_spec,
    opts,
    read,
    write,
)
from tether.shell.model import Word
from tether.shell.readers import EGREP, FGREP, GREP
from tether.shell.tools import FD, FIND_NULLARY, FIND_UNARY, find_parts, find_primaries

RULES = (
    rule(
        "RO201",
        "grep-search",
        "`grep` and its variants are read-only.",
        "No grep option writes or runs a program (`-f FILE` reads patterns), so any "
        "arguments, globs included, stay reads.",
        "Nothing to change.",
        (
            'grep -R "Cargo.toml" -n',
            "grep -f patterns.txt file",
            "grep -rn foo *.py",
            "grep '' secret.dat",
        ),
        ("grep foo f > out",),
    ),
    rule(
        "RO202",
        "ripgrep-search",
        "`rg` is read-only without `--pre`, `--hostname-bin` or `-z/--search-zip`.",
        "`--pre CMD` runs CMD on every file, `--hostname-bin` runs a program and "
        "`--search-zip` shells out to decompressors.",
        "Search decompressed copies, or drop the preprocessor.",
        (
            "rg Cargo.toml -n",
            "rg -n init .",
            "rg --files --max-depth 2 .",
            'rg -n "foo" -g"*.py"',
            "rg -- -z file",
        ),
        (
            "rg --pre cat pattern",
            "rg -z pattern archive.gz",
            "rg -iz p",
            "rg --pre=pwned files",
            "rg --hostname-bin=hostname pattern",
        ),
    ),
    rule(
        "RO203",
        "find-search",
        "`find` is read-only without actions that delete, run commands or write files.",
        "`-delete`, `-exec`, `-execdir`, `-ok`, `-okdir` act on matches and `-fprint`, "
        "`-fprint0`, `-fprintf`, `-fls` write files; the rest only tests and prints.",
        "Print the matches and act on them in a separate, approved step.",
        (
            "find . -name file.txt",
            "find src -type f -name '*.py' -not -path '*/node_modules/*'",
            "find . -maxdepth 2 -newermt 2024-01-01 -print",
            "find . -name -delete",  # a -name pattern, read as find reads it: no action
        ),
        (
            "find . -delete",
            "find . -exec rm {} ;",
            "find . -fls output",
            "find . -name *.py",
            "find --help",
        ),
    ),
    rule(
        "RO204",
        "fd-search",
        "`fd` is read-only without `-x/--exec` or `-X/--exec-batch`.",
        "Those options run a command for the matches.",
        "Print the matches instead.",
        ("fd -e py", "fd -t f -H config"),
        ("fd -e py -x rm", "fd -X wc"),
    ),
    rule(
        "RO205",
        "find-exec-reader",
        "`find -exec/-execdir CMD {} ;` is read-only when CMD is a plain reader.",
        "`grep`, `cat`, `head`, `wc`, `ls`, `stat`… only read whatever paths find hands "
        "them; any other command (`rm`, `sed -i`, `sh -c`) may write.",
        "Nothing to change.",
        (
            'find . -name "*.py" -exec grep -l "class Foo" {} \\;',
            "find . -type f -exec wc -l {} +",
            "find src -name '*.rs' -execdir head -5 {} ';'",
        ),
        (
            "find . -exec rm {} \\;",
            "find . -exec sed -i s/a/b/ {} +",
            "find . -exec grep x {}",
            "find . -exec sh -c 'cat $1' _ {} \\;",
        ),
    ),
)

# Readers that stay read-only whatever operands find appends ({} is a path).
EXEC_READERS = opts(
    "grep egrep fgrep cat head tail wc ls stat du nl md5sum sha1sum sha256sum basename "
    "dirname realpath readlink echo"
)
# ripgrep 13.0.0 --help, and the --no-X negations it accepts without listing them.
_RG = Spec(
    "rg",
    options="A|after-context: auto-hybrid-regex B|before-context: binary block-buffered "
    "b|byte-offset s|case-sensitive color: colors: column C|context: context-separator: "
    "no-context-separator c|count count-matches crlf debug dfa-size-limit: E|encoding: "
    "engine: field-context-separator: field-match-separator: f|file: files "
    "l|files-with-matches files-without-match F|fixed-strings L|follow g|glob: "
    "glob-case-insensitive h|help heading .|hidden iglob: i|ignore-case ignore-file: "
    "ignore-file-case-insensitive include-zero v|invert-match json line-buffered "
    "n|line-number x|line-regexp M|max-columns: max-columns-preview m|max-count: max-depth: "
    "max-filesize: mmap U|multiline multiline-dotall no-config I|no-filename no-heading "
    "no-ignore no-ignore-dot no-ignore-exclude no-ignore-files no-ignore-global "
    "no-ignore-messages no-ignore-parent no-ignore-vcs N|no-line-number no-messages no-mmap "
    "no-pcre2-unicode no-require-git no-unicode 0|null null-data one-file-system "
    "o|only-matching passthru|passthrough path-separator: P|pcre2 pcre2-version pre-glob: "
    "p|pretty q|quiet regex-size-limit: e|regexp: r|replace: S|smart-case sort: sortr: "
    "stats a|text j|threads: trim t|type: type-add: type-clear: type-list T|type-not: "
    "u|unrestricted V|version vimgrep H|with-filename w|word-regexp pcre2-unicode unicode "
    "sort-files no-sort-files no-binary no-block-buffered no-byte-offset no-column no-crlf "
    "no-encoding no-fixed-strings no-follow no-glob-case-insensitive no-hidden "
    "no-ignore-file-case-insensitive no-include-zero no-invert-match no-json "
    "no-line-buffered no-max-columns-preview no-multiline no-multiline-dotall "
    "no-one-file-system no-pcre2 no-pre no-search-zip no-stats no-text no-trim "
    "no-auto-hybrid-regex ignore-dot ignore-vcs ignore-parent ignore-global "
    "ignore-exclude ignore-messages messages require-git ignore ignore-files print0 trace",
    writes={
        "--pre": "runs a program on every file searched",
        "--hostname-bin": "runs a program to find the host name",
        "-z": "shells out to decompression programs",
        "--search-zip": "shells out to decompression programs",
    },
    checked="ripgrep 13.0.0",
)


def _rg(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(_RG, args, "RO202")


def _fd(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(FD, args, "RO204")


_FIND_WRITES = {
    "-delete": "deletes every match",
    "-exec": "runs a command for every match",
    "-execdir": "runs a command for every match",
    "-ok": "runs a command for every match",
    "-okdir": "runs a command for every match",
    "-fls": "writes a file",
    "-fprint": "writes a file",
    "-fprint0": "writes a file",
    "-fprintf": "writes a file",
}
# find's expression is read by the one find reading (``shell.tools.find_parts`` and
# ``find_primaries``: the words each primary takes); this is only which primaries are proven.
# Its own exits (``-help``, ``-version``) are not searches, so they are not proven either.
_FIND_SAFE = (
    (FIND_NULLARY | FIND_UNARY) - set(_FIND_WRITES) - opts("-help --help -version --version")
)
_FIND_READERS = frozenset({"-exec", "-execdir"})


def _exec_reader(primary: str, command: tuple[Word, ...], terminated: bool) -> Check | None:
    """Judge the command of ``-exec``/``-execdir``: None when it is a plain reader."""
    if not terminated:
        return write(UNKNOWN_OPTION, f"find {primary}: the command is not terminated by ';' or '+'")
    if not command or command[0].value not in EXEC_READERS:
        what = command[0].value[:40] if command else "nothing"
        return write(WRITE_OPTION, f"find {primary} {what}: runs {what} for every match")
    # The reader's own options, by its catalogue entry's spec (`-exec ls --frob {} +` is not
    # proven); imported here because the catalogue imports this module.
    from tether.rules.readonly.engine import CATALOGUE

    name = command[0].value
    judged = CATALOGUE[name].check(name, command[1:])
    if not judged.read_only:
        return write(judged.code, f"find {primary} {judged.reason}")
    return None


def _find(name: str, args: tuple[Word, ...]) -> Check:
    for word in args:
        if not word.literal:
            return write(DYNAMIC_ARGUMENT, f"find: '{word.value[:60]}' expands at run time")
    _starts, expression = find_parts(args)
    runs_reader = False
    at = 0  # where the primary is in the expression: an -exec runs to its ';' or '+'
    for primary, values in find_primaries(expression):
        at += 1 + len(values)
        if primary in _FIND_READERS:
            terminated = at < len(expression)
            at += 1
            problem = _exec_reader(primary, values, terminated)
            if problem is not None:
                return problem
            runs_reader = True
        elif primary in _FIND_WRITES:
            return write(WRITE_OPTION, f"find {primary}: {_FIND_WRITES[primary]}")
        elif primary not in _FIND_SAFE and not (primary.startswith("-newer") and values):
            # (the reading gives -newerXY, and only it, the one word it compares with)
            return write(
                UNKNOWN_OPTION, f"find: '{primary[:60]}' is not a primary known to be safe"
            )
        elif primary in FIND_UNARY and not values:
            return write(UNKNOWN_OPTION, f"find: '{primary}' needs a value")
    if runs_reader:
        return read("RO205", "find -exec runs only a read-only reader")
    return read("RO203", "find only tests and prints")


ENTRIES: dict[str, Entry] = {
    # grep's spec is shared with the loop guard's signatures (``tether.shell.readers``).
    **pure_entries("RO201", GREP, EGREP, FGREP),
    **entries("RO202", "rg", _rg, _RG),
    **entries("RO203", "find", _find),
    **entries("RO204", "fd fdfind", _fd, FD),
}
