"""The table of program specs, continued: read commands whose option order does not matter.

Agents repeat searches and listings spelt a new way each time (``grep -rn``, ``grep -nr``,
``grep -r -n``, ``grep --rec -n``); the loop guard reads them through these grammars so one
call is one call (``tether.loops.canonical``). Each ``Reader`` is a grammar checked against
``TOOL --help`` on Debian 12 (grep 3.8; ls, head, tail, cat, wc and nl of coreutils 9.1) plus
what getopt alone cannot say: which options override or depend on each other, so their relative
order is kept (``ls -l -C`` lists in columns, ``ls -C -l`` in long format; ``grep -h -H``
prints file names, ``grep -H -h`` does not). Every option not in a group sets a switch of its
own and commutes with the rest. An option in ``pins`` touches several groups at once or counts
only in one place (``ls -f``, ``head -NUM``): with it, nothing is reordered.
"""

from __future__ import annotations

from typing import NamedTuple

from tether.shell.options import Grammar, LazyTable, grammar


class Reader(NamedTuple):
    """A read command's grammar and the options whose relative order matters."""

    grammar: Grammar
    # Each group: canonical names that override or depend on each other (kept in order).
    groups: tuple[frozenset[str], ...] = ()
    # Canonical names that keep every option in the order given.
    pins: frozenset[str] = frozenset()


def _groups(*groups: str) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(g.split()) for g in groups)


# grep.c's short options "0123456789A:B:C:D:EFGHIPTUVX:abcd:e:f:hiLlm:noqRrsuvwxyZz" and its
# long options (``--help``, plus the obsolete ``-y``, ``-u`` and ``-X MATCHER``).
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

# ls.c's short options "abcdfghiklmnopqrstuvw:xABCDFGHI:LNQRST:UXZ1" and its long options.
# ``-F`` is a flag while ``--classify[=WHEN]`` takes a value: two entries, one group.
_LS = (
    "a|all A|almost-all author b|escape block-size: B|ignore-backups c C color:: d|directory "
    "D|dired f F classify:: file-type format: full-time g group-directories-first G|no-group "
    "h|human-readable si H|dereference-command-line dereference-command-line-symlink-to-dir "
    "hide: hyperlink:: indicator-style: i|inode I|ignore: k|kibibytes l L|dereference m "
    "n|numeric-uid-gid N|literal o p q|hide-control-chars show-control-chars Q|quote-name "
    "quoting-style: r|reverse R|recursive s|size S sort: time: time-style: t T|tabsize: u U v "
    "w|width: x X Z|context zero 1 help version"
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
# coreutils 9.1. ``tail -f`` is a flag while ``--follow[=HOW]`` takes a value: two entries.
_HEAD = "c|bytes: n|lines: q|quiet|silent v|verbose z|zero-terminated help version"
_TAIL = (
    "c|bytes: f follow:: F max-unchanged-stats: n|lines: pid: q|quiet|silent retry "
    "s|sleep-interval: v|verbose z|zero-terminated help version"
)
_CAT = (
    "A|show-all b|number-nonblank e E|show-ends n|number s|squeeze-blank t T|show-tabs u "
    "v|show-nonprinting help version"
)
_WC = "c|bytes m|chars l|lines w|words L|max-line-length files0-from: help version"
_NL = (
    "b|body-numbering: d|section-delimiter: f|footer-numbering: h|header-numbering: "
    "i|line-increment: l|join-blank-lines: n|number-format: p|no-renumber s|number-separator: "
    "v|starting-line-number: w|number-width: help version"
)
_COUNT = "--bytes --lines -NUM"  # how much to print: the last one wins
_FIRST_ONLY = frozenset({"-NUM"})


def _grep(name: str) -> Reader:
    return Reader(grammar(name, _GREP, numeric=True), _GREP_GROUPS)


READERS: LazyTable[Reader] = LazyTable(
    {
        "grep": lambda: _grep("grep"),
        # Debian's egrep and fgrep are scripts running `grep -E` / `grep -F`.
        "egrep": lambda: _grep("egrep"),
        "fgrep": lambda: _grep("fgrep"),
        "ls": lambda: Reader(grammar("ls", _LS), _LS_GROUPS, frozenset({"-f"})),
        # `head -NUM` / `tail -NUM` is read only as the first argument (`head -v -3` fails).
        "head": lambda: Reader(
            grammar("head", _HEAD, numeric=True),
            _groups(_COUNT, "--quiet --verbose", _EXITS),
            _FIRST_ONLY,
        ),
        "tail": lambda: Reader(
            grammar("tail", _TAIL, numeric=True),
            _groups(_COUNT, "-f --follow -F --retry", "--quiet --verbose", _EXITS),
            _FIRST_ONLY,
        ),
        # Every option of these sets a switch of its own (cat -b beats -n in either order).
        "cat": lambda: Reader(grammar("cat", _CAT), _groups(_EXITS)),
        "wc": lambda: Reader(grammar("wc", _WC), _groups(_EXITS)),
        "nl": lambda: Reader(grammar("nl", _NL), _groups(_EXITS)),
    }
)

__all__ = ["READERS", "Reader"]
