"""The table of program specs, continued: the read commands several judges read.

One ``Spec`` per program (``tether.shell.specs``), each checked against ``TOOL --help`` on
Debian 12 (grep 3.8; ls, head, tail, cat, wc, nl, base64, base32, basenc, tr of coreutils 9.1;
xxd of vim 9.0): the read-only catalogue proves commands with it (``rules.readonly.files``,
``search``, ``text``), the danger catalogue and the static decoder read the decoders with it
(``shell.tools``, ``shell.decode``), and the loop guard spells calls with it
(``tether.loops.canonical``). None of them describes these programs' options again.

Agents repeat searches and listings spelt a new way each time (``grep -rn``, ``grep -nr``,
``grep -r -n``, ``grep --rec -n``); the loop guard reads them through these grammars so one
call is one call. Each ``Reader`` adds to its spec what getopt alone cannot say: which options
override or depend on each other, so their relative order is kept (``ls -l -C`` lists in
columns, ``ls -C -l`` in long format; ``grep -h -H`` prints file names, ``grep -H -h`` does
not). Every option not in a group sets a switch of its own and commutes with the rest. An
option in ``pins`` touches several groups at once or counts only in one place (``ls -f``,
``head -NUM``): with it, nothing is reordered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from tether.shell.model import Word
from tether.shell.options import GNU_STANDARD, Grammar, LazyTable
from tether.shell.specs import Spec, grammar_of

COREUTILS = "coreutils 9.1"

# grep.c's short options "0123456789A:B:C:D:EFGHIPTUVX:abcd:e:f:hiLlm:noqRrsuvwxyZz" and its
# long options (``--help``, plus the obsolete ``-y``, ``-u``, ``--fixed-regexp`` and
# ``-X MATCHER``). ``-f FILE`` reads patterns; no option writes.
_GREP = (
    "E|extended-regexp F|fixed-strings|fixed-regexp G|basic-regexp P|perl-regexp X: "
    "e|regexp: f|file: i|ignore-case y no-ignore-case w|word-regexp x|line-regexp z|null-data "
    "s|no-messages v|invert-match V|version help m|max-count: b|byte-offset n|line-number "
    "line-buffered H|with-filename h|no-filename label: o|only-matching q|quiet|silent "
    "binary-files: a|text I d|directories: D|devices: r|recursive R|dereference-recursive "
    "include: exclude: exclude-from: exclude-dir: L|files-without-match l|files-with-matches "
    "c|count T|initial-tab Z|null B|before-context: A|after-context: C|context: "
    "group-separator: no-group-separator color|colour:: U|binary u|unix-byte-offsets"
)
GREP = Spec("grep", options=_GREP, numeric=True, checked="grep 3.8")
# Debian's egrep and fgrep are scripts running `grep -E` / `grep -F`.
EGREP = GREP._replace(name="egrep")
FGREP = GREP._replace(name="fgrep")

# ls.c's short options "abcdfghiklmnopqrstuvw:xABCDFGHI:LNQRST:UXZ1" and its long options.
# ``-F`` is a flag while ``--classify[=WHEN]`` takes a value: two entries, one group.
_LS = (
    "a|all A|almost-all author b|escape block-size: B|ignore-backups c C color:: d|directory "
    "D|dired f F classify:: file-type format: full-time g group-directories-first G|no-group "
    "h|human-readable si H|dereference-command-line dereference-command-line-symlink-to-dir "
    "hide: hyperlink:: p indicator-style: i|inode I|ignore: k|kibibytes l L|dereference m "
    "n|numeric-uid-gid N|literal o q|hide-control-chars show-control-chars Q|quote-name "
    "quoting-style: r|reverse R|recursive s|size S sort: time: time-style: t T|tabsize: u U v "
    f"w|width: x X Z|context zero 1 {GNU_STANDARD}"
)
LS = Spec("ls", options=_LS, checked=COREUTILS)
# dir and vdir are ls with another default format.
DIR = LS._replace(name="dir")
VDIR = LS._replace(name="vdir")
HEAD = Spec(
    "head",
    options=f"c|bytes: n|lines: q|quiet|silent v|verbose z|zero-terminated {GNU_STANDARD}",
    numeric=True,
    checked=COREUTILS,
)
# ``tail -f`` is a flag while ``--follow[=HOW]`` takes a value: two entries.
TAIL = Spec(
    "tail",
    options="c|bytes: f follow:: F n|lines: max-unchanged-stats: pid: q|quiet|silent retry "
    f"s|sleep-interval: v|verbose z|zero-terminated {GNU_STANDARD}",
    numeric=True,
    checked=COREUTILS,
)
CAT = Spec(
    "cat",
    options="A|show-all b|number-nonblank e E|show-ends n|number s|squeeze-blank t T|show-tabs "
    f"u v|show-nonprinting {GNU_STANDARD}",
    checked=COREUTILS,
)
WC = Spec(
    "wc",
    options=f"c|bytes m|chars l|lines files0-from: L|max-line-length w|words {GNU_STANDARD}",
    checked=COREUTILS,
)
NL = Spec(
    "nl",
    options="b|body-numbering: d|section-delimiter: f|footer-numbering: h|header-numbering: "
    "i|line-increment: l|join-blank-lines: n|number-format: p|no-renumber s|number-separator: "
    f"v|starting-line-number: w|number-width: {GNU_STANDARD}",
    checked=COREUTILS,
)
# GNU base64 and the BSD/macOS spellings in one union, so a command line of either reads the
# same: macOS's -D (decode), -b/--break, --input FILE and -o/--output FILE (which writes).
# ``-i`` is GNU's --ignore-garbage (macOS's ``-i FILE`` then reads FILE as an operand, and a
# write option after it is still seen).
BASE64 = Spec(
    "base64",
    options=f"d|D|decode i|ignore-garbage w|wrap: b|break: input: o|output: {GNU_STANDARD}",
    writes={"-o": "writes a file", "--output": "writes a file"},
    checked=f"{COREUTILS}, and macOS base64's -D, -b, --input and -o from its manual",
)
BASE32 = Spec(
    "base32", options=f"d|decode i|ignore-garbage w|wrap: {GNU_STANDARD}", checked=COREUTILS
)
BASENC = Spec(
    "basenc",
    options="base64 base64url base32 base32hex base16 base2msbf base2lsbf z85 d|decode "
    f"i|ignore-garbage w|wrap: {GNU_STANDARD}",
    checked=COREUTILS,
)
# bash's printf builtin: -v VAR assigns the output instead of printing it; `--` ends options.
PRINTF = Spec("printf", options="v:", permute=False, abbreviate=False, checked="bash 5.2 builtin")
# tr's operands are character sets; the decoder runs `tr SET1 SET2` and `tr -d SET1`.
TR = Spec(
    "tr",
    options=f"c|C|complement d|delete s|squeeze-repeats t|truncate-set1 {GNU_STANDARD}",
    checked=COREUTILS,
)
# xxd reads its options by their first letters, not with getopt (``-ps``, ``-postscript`` and
# ``-plain`` are all ``-p``; ``-cols 8`` is ``-c 8``): ``xxd_words`` spells each the way the
# engine reads it. It stops at its first operand: in ``xxd f.bin --x`` the second operand is
# the output file.
XXD = Spec(
    "xxd",
    options="a b C c: d E e g: h i l: n: o: p r R: s: t u v",
    permute=False,
    checked="xxd 2022-01-14 (vim 9.0)",
)
# xxd.c: an option taking a value reads it attached (``-c8``, ``-l0x40``) unless the rest of
# the word spells the option's long name (``-cols 8``, ``-len 64``): then the next word.
_XXD_LONG_TAILS = {
    "c": ("ols",),
    "g": ("roup",),
    "o": ("ffset",),
    "s": ("kip", "eek"),
    "l": ("en",),
    "n": ("ame",),
    "R": (),
}


def xxd_words(args: Sequence[Word]) -> tuple[Word, ...]:
    """Spell xxd's option words the way the getopt engine reads them, as xxd.c reads them.

    xxd compares only the start of an option word, and a leading ``--`` counts as ``-``:
    ``-ps``, ``-plain``, ``--postscript`` are ``-p``, ``-revert`` is ``-r`` (and ``-rp`` too:
    the second letter is not read), ``-capitalize`` is ``-C``; ``-l64`` is ``-l`` with 64
    attached, ``-len 64`` takes the next word. Words from the first operand on are kept.
    """
    out: list[Word] = []
    i, n = 0, len(args)
    while i < n:
        word = args[i]
        v = word.value
        if not word.literal or v == "--" or len(v) < 2 or v[0] != "-":
            out.extend(args[i:])  # options end here (or cannot be read): the rest as given
            break
        if v.startswith("--"):
            v = v[1:]
        letter, rest = v[1], v[2:]
        i += 1
        tails = _XXD_LONG_TAILS.get(letter)
        if letter == "c" and rest.startswith("apitalize"):
            out.append(word._replace(value="-C"))
        elif tails is None:
            out.append(word._replace(value="-" + letter))  # a flag: only its letter counts
        elif rest and not rest.startswith(tails):
            out.append(word._replace(value=v))  # the value attached
        else:
            out.append(word._replace(value="-" + letter))
            out.extend(args[i : i + 1])  # the value is the next word, whatever it spells
            i += 1
    return tuple(out)


# Programs whose option words are respelt before the engine reads them, for every judge.
RESPELL: dict[str, Callable[[Sequence[Word]], tuple[Word, ...]]] = {"xxd": xxd_words}


class Reader(NamedTuple):
    """A read command's spec and the options whose relative order matters."""

    spec: Spec
    # Each group: canonical names that override or depend on each other (kept in order).
    groups: tuple[frozenset[str], ...] = ()
    # Canonical names that keep every option in the order given.
    pins: frozenset[str] = frozenset()

    @property
    def grammar(self) -> Grammar:
        """Return the engine grammar of the spec (the one the read-only catalogue reads)."""
        return grammar_of(self.spec)


def _groups(*groups: str) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(g.split()) for g in groups)


_GREP_GROUPS = _groups(
    "--extended-regexp --fixed-strings --basic-regexp --perl-regexp -X",  # the matcher
    "--regexp --file",  # the patterns, in order
    "--ignore-case -y --no-ignore-case",
    "--text -I --binary-files",
    "--directories --recursive --dereference-recursive",
    "--files-without-match --files-with-matches --count",
    "--with-filename --no-filename",
    "--before-context --after-context --context -NUM",
    "--group-separator --no-group-separator",
    "--include --exclude --exclude-from --exclude-dir",  # the last matching one wins
    "--help --version",
)
_LS_GROUPS = _groups(
    "--all --almost-all --ignore-backups --hide --ignore",  # which entries show
    "-l -1 -C -x -m -g -o --numeric-uid-gid --format --full-time --time-style --dired --zero",
    "-S -t -U -v -X --sort -c -u --time",  # the sort key and the time shown
    "--human-readable --si --block-size --kibibytes",
    "-F --classify --file-type -p --indicator-style",
    "--escape --literal --hide-control-chars --show-control-chars --quote-name --quoting-style",
    "--dereference-command-line --dereference --dereference-command-line-symlink-to-dir",
    "--help --version",
)
_EXITS = "--help --version"
_COUNT = "--bytes --lines -NUM"  # how much to print: the last one wins
_FIRST_ONLY = frozenset({"-NUM"})

READERS: LazyTable[Reader] = LazyTable(
    {
        "grep": lambda: Reader(GREP, _GREP_GROUPS),
        "egrep": lambda: Reader(EGREP, _GREP_GROUPS),
        "fgrep": lambda: Reader(FGREP, _GREP_GROUPS),
        "ls": lambda: Reader(LS, _LS_GROUPS, frozenset({"-f"})),
        # `head -NUM` / `tail -NUM` is read only as the first argument (`head -v -3` fails).
        "head": lambda: Reader(HEAD, _groups(_COUNT, "--quiet --verbose", _EXITS), _FIRST_ONLY),
        "tail": lambda: Reader(
            TAIL,
            _groups(_COUNT, "-f --follow -F --retry", "--quiet --verbose", _EXITS),
            _FIRST_ONLY,
        ),
        # Every option of these sets a switch of its own (cat -b beats -n in either order).
        "cat": lambda: Reader(CAT, _groups(_EXITS)),
        "wc": lambda: Reader(WC, _groups(_EXITS)),
        "nl": lambda: Reader(NL, _groups(_EXITS)),
    }
)

__all__ = [
    "BASE32",
    "BASE64",
    "BASENC",
    "CAT",
    "COREUTILS",
    "DIR",
    "EGREP",
    "FGREP",
    "GREP",
    "HEAD",
    "LS",
    "NL",
    "PRINTF",
    "READERS",
    "RESPELL",
    "TAIL",
    "TR",
    "VDIR",
    "WC",
    "XXD",
    "Reader",
    "xxd_words",
]
