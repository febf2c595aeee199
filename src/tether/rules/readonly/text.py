"""RO3xx: text processing (sed, awk, sort, uniq, cut, tr, jq, …) with their write forms."""

from __future__ import annotations

from tether.rules.readonly.catalogue import Entry, entries, pure_entries, rule
from tether.rules.readonly.spec import (
    SCRIPT_CAN_WRITE,
    UNKNOWN_OPTION,
    Check,
    Spec,
    check_spec,
    parse,
    read,
    write,
)
from tether.shell.embedded.awk import STANDARD_STREAMS as AWK_STREAMS
from tether.shell.embedded.awk import read_awk
from tether.shell.embedded.sed import STANDARD_STREAMS as SED_STREAMS
from tether.shell.embedded.sed import read_sed
from tether.shell.model import Word
from tether.shell.options import GNU_STANDARD
from tether.shell.readers import TR
from tether.shell.tools import ICONV, SED, SHUF, SORT, UNIQ

RULES = (
    rule(
        "RO301",
        "text-filters",
        "Filters that transform their input to stdout (cut, tr, paste, join, column, jq…) are "
        "read-only.",
        "None of their options writes or runs a program, so any arguments stay reads.",
        "Nothing to change.",
        (
            "cut -d: -f1 /etc/passwd",
            "tr a-z A-Z",
            "jq .name package.json",
            "numfmt 1000",
            "column -t f.tsv",
        ),
        ("jq . f > g",),
    ),
    rule(
        "RO302",
        "sed-print",
        "`sed` is read-only without `-i`/`-I`/`-f` and when its script only prints.",
        "`-i` edits files in place; the `w`, `W`, `e`, `r`, `R` commands and the `s///w`, "
        "`s///e` flags write files or run commands, and a script from `-f FILE` is not seen.",
        "Print with `sed -n 'N,Mp'`; edit files with an approved write step.",
        (
            "sed -n 1,5p file.txt",
            "sed -n '1,5p' file.txt",
            "sed 's/foo/bar/' file.txt",
            "sed -n '/needle/p' file",
            "sed '' secret.dat",
            "sed -n -e 122,202p hello.txt",
            "sed 's/a/woutput/' file",
            "sed 'p;d' file",
        ),
        (
            "sed -i 's/foo/bar/' file",
            "sed --in-place 's/a/b/' f",
            "sed 's/foo/bar/e' file.txt",
            "sed 'w backup.txt' file.txt",
            "sed -ni.bak 's/a/b/' file",
            "sed -f script.sed file",
            "sed 's/a/b/;w output' file",
            "sed -newout input",
            "sed --in-pl=.bak 's/a/b/' file",
        ),
    ),
    rule(
        "RO303",
        "awk-print",
        "`awk` is read-only when its program (given inline) only prints to stdout.",
        "`system()`, `print > file`, `print | cmd`, `getline`, `close()`, `@include`/`@load` "
        "and indirect calls reach outside stdout; `-f FILE` hides the program.",
        "Keep awk to printing, or write the file in a separate, approved step.",
        (
            "awk '{print $1}' file.txt",
            "awk 'BEGIN {print \"hello\"}'",
            "awk -F : '{ print $1 }' input",
            "awk 'NR>=10 && NR<=20' f",
            "awk '$3 > 100 {print $1}' f",
        ),
        (
            "awk 'BEGIN {system(\"rm -rf /\")}'",
            "awk '{print > \"output.txt\"}' input.txt",
            "awk '{print | \"sort\"}' input.txt",
            "awk -fscript.awk file",
            'awk \'BEGIN { fn = "system"; @fn("touch /tmp/pwned") }\'',
        ),
    ),
    rule(
        "RO304",
        "sort-print",
        "`sort` is read-only without `-o/--output` and `--compress-program`.",
        "`-o FILE` writes the result to a file and `--compress-program` runs a program on "
        "temporary files (long options also match their abbreviations, `--co=cat`).",
        "Drop `-o`; let the tool capture stdout.",
        ("sort in.txt", "sort -n -k2,2 f", "sort -u a b", "sort -t, -k3 -rn data.csv"),
        (
            "sort -o out.txt in.txt",
            "sort -roout input",
            "sort --co=cat input",
            "sort --out=output input",
            "sort --compress-program gzip input",
        ),
    ),
    rule(
        "RO305",
        "uniq-print",
        "`uniq` is read-only with at most one file operand.",
        "`uniq IN OUT` writes OUT.",
        "Drop the second operand.",
        ("uniq input", "uniq -c f", "sort f | uniq -c"),
        ("uniq input output", "uniq - output", "uniq -- -f output", "uniq -f"),
    ),
    rule(
        "RO306",
        "shuf-iconv-print",
        "`shuf` and `iconv` are read-only without `-o/--output`.",
        "`-o FILE` writes the result to a file.",
        "Drop `-o`.",
        ("shuf -n 5 f", "iconv -f latin1 -t utf-8 f"),
        ("shuf -o out f", "iconv -f latin1 -t utf-8 -o out f"),
    ),
)

_AWK = Spec(
    "awk",
    options="b c P r s S sandbox posix traditional characters-as-bytes F: v: "
    "field-separator: assign:",
    writes={
        "-f": "reads its program from a file, which is not proven",
        "--file": "reads its program from a file, which is not proven",
        "-E": "reads its program from a file, which is not proven",
        "-e": "program text given by option is not proven",
        "--source": "program text given by option is not proven",
        "-i": "includes a source library",
        "--include": "includes a source library",
        "-l": "loads an extension",
        "--load": "loads an extension",
        "-o": "writes a pretty-printed program file",
        "--pretty-print": "writes a pretty-printed program file",
        "-p": "writes a profile file",
        "--profile": "writes a profile file",
        "-d": "writes a variable dump file",
        "--dump-variables": "writes a variable dump file",
        "-W": "takes implementation options (exec=…)",
    },
    checked="gawk 5.2 (man page); mawk 1.3.4",
)
# Every option of the RO301 filters (--help on Debian 12): none writes or runs a program.
_FILTERS = (
    Spec(
        "cut",
        options="b|bytes: c|characters: d|delimiter: f|fields: n complement s|only-delimited "
        f"output-delimiter: z|zero-terminated {GNU_STANDARD}",
        checked="coreutils 9.1",
    ),
    TR,  # the static decoder's too (``tether.shell.readers``)
    Spec(
        "paste",
        options=f"d|delimiters: s|serial z|zero-terminated {GNU_STANDARD}",
        checked="coreutils 9.1",
    ),
    Spec(
        "join",
        options="a: e: i|ignore-case j: o: t: v: 1: 2: check-order nocheck-order header "
        f"z|zero-terminated {GNU_STANDARD}",
        checked="coreutils 9.1",
    ),
    Spec("tsort", options=GNU_STANDARD, checked="coreutils 9.1"),
    Spec(
        "numfmt",
        options="debug d|delimiter: field: format: from: from-unit: grouping header:: "
        "invalid: padding: round: suffix: to: to-unit: z|zero-terminated "
        f"{GNU_STANDARD}",
        checked="coreutils 9.1",
    ),
    Spec(
        "column",
        options="t|table n|table-name: O|table-order: N|table-columns: l|table-columns-limit: "
        "E|table-noextreme: d|table-noheadings e|table-header-repeat H|table-hide: "
        "R|table-right: T|table-truncate: W|table-wrap: L|keep-empty-lines J|json r|tree: "
        "i|tree-id: p|tree-parent: c|output-width: o|output-separator: s|separator: "
        "x|fillrows h|help V|version",
        checked="bsdextrautils 2.38.1",
    ),
    # jq's own parser (man jq): long options spelt whole; --arg/--argjson/--slurpfile/
    # --rawfile take a name and a value (the value is read here as an operand); -L DIR and
    # -f FILE read jq modules and programs, which cannot write.
    Spec(
        "jq",
        options="c|compact-output n|null-input e|exit-status s|slurp r|raw-output "
        "j|join-output a|ascii-output R|raw-input C|color-output M|monochrome-output "
        "S|sort-keys tab indent: arg: argjson: slurpfile: rawfile: args jsonargs f|from-file: "
        "L: seq stream stream-errors unbuffered h|help V|version debug-dump-disasm "
        "debug-trace run-tests::",
        checked="jq 1.6",
    ),
)


def _sed(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse(SED, args)
    if isinstance(parsed, Check):
        return parsed
    scripts = parsed.values("-e", "--expression")
    if not scripts:
        if not parsed.operands:
            return write(UNKNOWN_OPTION, "sed: no script given")
        scripts = [parsed.operands[0].value]
    found = read_sed("\n".join(scripts))
    if found.problem:
        return write(SCRIPT_CAN_WRITE, f"sed: the script is not one GNU sed reads: {found.problem}")
    if found.runs:
        how = found.runs[0].how
        return write(SCRIPT_CAN_WRITE, f"sed: the `{how}` {'flag' if '/' in how else 'command'} "
                     "runs a command")  # fmt: skip
    written = [f for f in found.writes if f not in SED_STREAMS]
    if written:
        return write(SCRIPT_CAN_WRITE, f"sed: the script writes {written[0]!r}")
    if found.reads:
        return write(SCRIPT_CAN_WRITE, f"sed: `r`/`R` reads {found.reads[0]!r} (not proven)")
    return read("RO302", "sed only prints")


def _awk(name: str, args: tuple[Word, ...]) -> Check:
    parsed = parse(_AWK, args)
    if isinstance(parsed, Check):
        return parsed
    if not parsed.operands:
        return write(UNKNOWN_OPTION, f"{name}: no program given")
    found = read_awk(parsed.operands[0].value)
    if found.problem:
        return write(SCRIPT_CAN_WRITE, f"{name}: {found.problem}")
    if found.runs:
        return write(SCRIPT_CAN_WRITE, f"{name}: `{found.runs[0].how}` runs a command")
    written = [w for w in found.writes if w not in AWK_STREAMS]
    if written:
        what = repr(written[0]) if written[0] is not None else "a file named at run time"
        return write(SCRIPT_CAN_WRITE, f"{name}: `print >` writes {what}")
    return read("RO303", f"{name} only prints")


def _sort(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(SORT, args, "RO304")


def _uniq(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(UNIQ, args, "RO305", max_operands=1)


def _shuf(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(SHUF, args, "RO306")


def _iconv(name: str, args: tuple[Word, ...]) -> Check:
    return check_spec(ICONV, args, "RO306")


ENTRIES: dict[str, Entry] = {
    **pure_entries("RO301", *_FILTERS),
    **entries("RO302", "sed gsed", _sed, SED),  # the danger catalogue's spec
    **entries("RO303", "awk gawk mawk nawk", _awk, _AWK),
    **entries("RO304", "sort", _sort, SORT),
    **entries("RO305", "uniq", _uniq, UNIQ),
    **entries("RO306", "shuf", _shuf, SHUF),
    **entries("RO306", "iconv", _iconv, ICONV),
}
