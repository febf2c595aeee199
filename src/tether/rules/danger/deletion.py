"""DG1xx: deleting files: recursive deletes of roots, homes and paths outside the workspace."""

from __future__ import annotations

from collections.abc import Iterator

from tether.quoting import quote
from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.rules.danger.paths import HARDLINE_PLACES, Place, braces, place
from tether.shell.model import SimpleCommand, Word
from tether.shell.tools import FIND_EXEC, FIND_FILTERS, single_dash
from tether.shell.words import unwrap

RM_RECURSIVE_ROOT = Rule(
    code="DG101",
    name="rm-recursive-root",
    tier=Tier.HARDLINE,
    summary="Recursive delete of /, a system root or a home directory",
    why="Hardline: deleting /, /etc, /usr, /home or ~ recursively destroys the machine or a "
    "user's data beyond any undo; no approval makes it a reasonable step for an agent.",
    instead="Delete the specific build or cache directory inside the workspace "
    "(e.g. `rm -rf ./build`), never a root, a system directory or the home directory.",
    match=(
        "rm -rf /",
        "/bin/rm -rf /",
        "sudo rm -rf /",
        "rm -rf /*",
        "rm -fr ~",
        'rm -rf "$HOME"',
        "rm --recursive --force /etc",
        "r''m -rf /",
        "rm -rf /tmp/../etc",
        "find / -delete",
        "find -O3 ~ -delete",
        "find -L -P / -delete",
        "bash -c 'rm -rf /usr'",
        "x=rm; $x -rf /",
        "$(echo rm) -rf /",
        "rm${IFS}-rf${IFS}/",
        "rm -rf /u*",
        "rm -rf /e?c",
        "rm -rf /[e]tc",
        "rm -rf ~/..",
        "cd ~ && rm -rf .",
        "cd && rm -rf *",
        "cd ~/.. && rm -rf *",
        "cd ~/a/b && rm -rf ../..",
        "rm -rf C:/Users/me",
        "less '+!rm -rf /' notes.txt",
        "man -P 'sh -c \"rm -rf ~\"' ls",
        "sqlite3 :memory: '.shell rm -rf /'",
        "sqlite3 app.db <<'EOF'\n.system rm -rf ~\nEOF",
        "psql -c '\\! rm -rf /'",
        "mysql -e 'system rm -rf /'",
        "zip -T -TT 'rm -rf / #' a.zip notes.txt",
        "unshare -r rm -rf /",
        "fakeroot rm -rf /",
        'gawk \'BEGIN { f = "system"; @f("rm -rf /") }\'',
        "git config alias.x '!rm -rf /' && git x",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf ~' git x",
        'python3 -c \'import os; os.execvp("rm", ["rm", "-rf", "/"])\'',
        'python3 -c \'import os; os.system("rm -rf " + "/")\'',
        'perl -e \'system "rm -rf " . "/"\'',
    ),
    not_match=(
        'echo "rm -rf /"',
        'git commit -m "rm -rf /"',
        "rm -rf /tmp/x",
        "rm -rf ./build",
        "rm -rf /home/user/scratch",
        "rm -rf ~/Downloads/old",
        "rm -rf /...",
        "grep -r 'rm -rf /' .",
        "rm -rf /tmp/foo*",
        "rm -rf ./build*",
        "cd /tmp && rm -rf *",
        "cd ~/proj && rm -rf ./build",
        "rm -rf '/u*'",
        "less +/pattern notes.txt",
        "man -P cat ls",
        "sqlite3 app.db '.schema'",
        "git config alias.st status",
        "git config --global alias.lg '!git log --oneline'",
        "python3 -c 'import os; os.system(\"ls \" + d)'",
    ),
)

RM_RECURSIVE_OUTSIDE_WORKSPACE = Rule(
    code="DG102",
    name="rm-recursive-outside-workspace",
    tier=Tier.ASK,
    summary="Recursive delete outside the workspace and temp directories",
    why="A recursive delete of an absolute path, a path above the working directory, a "
    "home sub-directory, the whole working directory or a path only known at run time can "
    "remove data the task never owned; without a tty `rm -r` does not prompt either. Ask, "
    "not hardline: the path may really be the task's (a build dir elsewhere, a mount).",
    instead="Delete a path inside the workspace (`rm -rf ./build`) or under /tmp; if the "
    "directory really lies elsewhere, ask the user to remove it.",
    match=(
        "rm -rf /srv/data",
        "rm -r -f ../other",
        "rm build/ -rf ~/projects",
        'rm -rf "$TARGET"',
        "rm -rf .",
        "rm -rf *",
        "cd .. && rm -rf build",
        "rm -r /some/path",
        "echo / | xargs rm -rf",
        "python3 -c 'import os; os.system(\"rm -rf \" + path)'",
    ),
    not_match=(
        "rm -rf ./build",
        "rm -rf node_modules",
        "rm -rf /tmp/build",
        "rm -rf $TMPDIR/junk",
        "rm -f /tmp/a.txt",
        "rm -- -rf",
        "rm -r build",
    ),
)

RM_SYSTEM_FILE = Rule(
    code="DG103",
    name="rm-system-file",
    tier=Tier.ASK,
    summary="Delete a file under a system directory",
    why="Files under /etc, /usr, /boot or /var/lib belong to the operating system or its "
    "services; deleting one can break the machine. Ask, not hardline: one file, which a "
    "package reinstall or a backup restores.",
    instead="Leave system files alone; if a config file must change, show the user the edit.",
    match=("rm -f /etc/nginx/nginx.conf", "rm /etc/passwd", "sudo unlink /usr/bin/python3"),
    not_match=("rm -f /tmp/foo", "rm notes.txt", "rm -f ./etc/x"),
)

FIND_DELETE = Rule(
    code="DG104",
    name="find-delete",
    tier=Tier.ASK,
    summary="find deleting the whole working directory or outside it (-delete, -exec rm)",
    why="`find -delete` and `find -exec rm {}` delete every match at once: with no "
    "predicate in the working directory that is everything, and outside it a wrong "
    "predicate or start path removes data the task never owned. Ask, not hardline: the "
    "predicate may be exactly right (a find over / or ~ is DG101).",
    instead="Run the same find with -print first, show the list, then delete named paths.",
    match=(
        "find . -delete",
        "find . -type f -exec rm {} \\;",
        "find /srv/logs -name '*.log' -delete",
        "find ~/cache -mtime +7 -exec rm -rf {} +",
        "busybox find . -delete",
        "find -D tree /srv/logs -delete",
    ),
    not_match=(
        "find . -name '*.pyc' -delete",
        "find . -name __pycache__ -type d -exec rm -rf {} +",
        "find build -delete",
        "find /tmp/x -name '*.o' -delete",
        "find . -name -delete -print",
        "find . -exec cat {} +",
        "find /srv/logs -printf -delete",
        "find /srv/logs -newermt -delete",
    ),
)

MV_SYSTEM_ROOT = Rule(
    code="DG105",
    name="mv-system-root",
    tier=Tier.ASK,
    summary="Move /, a system directory or a home directory away",
    why="Moving ~ or /etc elsewhere breaks logins and services as surely as deleting them. "
    "Ask, not hardline: moving it back undoes it.",
    instead="Move the specific files you created, never a root or the home directory.",
    match=("mv ~ /tmp/x", "mv /etc /etc.old"),
    not_match=("mv a.txt b.txt", "mv ~/notes.txt ./"),
)

RSYNC_DELETE = Rule(
    code="DG106",
    name="rsync-delete",
    tier=Tier.ASK,
    summary="rsync that deletes files at the destination or the source",
    why="`--delete*` removes destination files missing from the source and "
    "`--remove-source-files` deletes the source; a swapped or empty source wipes data. Ask, "
    "not hardline: mirroring with --delete is a common, deliberate backup step.",
    instead="Run it with --dry-run first and show the deletions, or drop --delete.",
    match=(
        "rsync -a --delete src/ dest/",
        "rsync --del a/ b/",
        "rsync -a --remove-source-files a/ h:/b/",
    ),
    not_match=(
        "rsync -a src/ dest/",
        "rsync --delete --dry-run src/ dest/",
        "rsync -avzn src/ dst/",
    ),
)

WINDOWS_RECURSIVE_DELETE = Rule(
    code="DG107",
    name="windows-recursive-delete",
    tier=Tier.ASK,
    summary="Windows recursive delete (del /s, rd /s, Remove-Item -Recurse)",
    why="The Windows spellings of a recursive force delete are as destructive as `rm -rf`. "
    "Ask, not hardline: the target is not resolved (drive letters, no root model).",
    instead="Delete a specific path inside the workspace and show it to the user first.",
    match=(
        "cmd /c del /f /q C:\\tmp\\x\\file.txt",
        "cmd.exe /k rmdir /s /q C:\\tmp\\x",
        "powershell Remove-Item -Recurse -Force C:\\tmp\\x",
        "powershell ri -Recurse -Force C:\\tmp\\x",
        'pwsh -Command "Remove-Item -Recurse -Force C:\\tmp\\x"',
        "pwsh -NoProfile -c 'Get-ChildItem x | Remove-Item -Rec'",
    ),
    not_match=(
        "powershell Get-ChildItem",
        "cmd /c dir",
        "pwsh -c Get-ChildItem -Recurse",
        "pwsh -c 'Remove-Item -Recurse:$false x'",
    ),
)

RULES = (
    RM_RECURSIVE_ROOT,
    RM_RECURSIVE_OUTSIDE_WORKSPACE,
    RM_SYSTEM_FILE,
    FIND_DELETE,
    MV_SYSTEM_ROOT,
    RSYNC_DELETE,
    WINDOWS_RECURSIVE_DELETE,
)

_RM_SHORT_RECURSIVE = "rR"


def _rm(cmd: SimpleCommand, scope: Scope, args: tuple[Word, ...], how: str) -> Iterator[Hit]:
    parsed = options_of("rm", args)
    recursive, operands = parsed.maybe("--recursive"), parsed.operands
    fed = _fed_words(cmd, scope) if any(_is_xargs_input(w) for w in operands) else []
    for word in [*(e for w in operands for e in braces(w)), *fed]:
        where, path = place(word, cmd, scope)
        if recursive and where in HARDLINE_PLACES:
            yield RM_RECURSIVE_ROOT.hit(f"{how} of {quote(path)} ({where.value})")
        elif recursive and where in (
            Place.OUTSIDE,
            Place.SYSTEM,
            Place.DYNAMIC,
            Place.WORKSPACE_ALL,
        ):
            if where is Place.DYNAMIC and _is_xargs_input(word):
                yield RM_RECURSIVE_OUTSIDE_WORKSPACE.hit(f"{how} of paths read from xargs input")
            else:
                yield RM_RECURSIVE_OUTSIDE_WORKSPACE.hit(f"{how} of {quote(path)} ({where.value})")
        elif not recursive and where in (Place.SYSTEM, Place.SYSTEM_ROOT, Place.ROOT):
            yield RM_SYSTEM_FILE.hit(f"delete {quote(path)} ({where.value})")


def _is_xargs_input(word: Word) -> bool:
    return not word.literal and word.value.startswith(("<", "{"))


def _fed_words(cmd: SimpleCommand, scope: Scope) -> list[Word]:
    """Return the literal words an ``echo … | xargs rm`` pipeline feeds in (what we can see)."""
    from tether.rules.danger.interp import literal_output

    words: list[Word] = []
    for up in scope.upstream(cmd)[:1]:
        for text in literal_output(up):
            words.extend(Word(t) for t in text.split()[:64])
    return words


_RSYNC_DELETES = frozenset(
    {"--del", "--delete", "--delete-before", "--delete-during", "--delete-delay",
     "--delete-after", "--delete-excluded", "--delete-missing-args", "--remove-source-files"}
)  # fmt: skip


def check_rm(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag recursive deletes of roots/homes (hardline) and outside the workspace (ask)."""
    name = name_of(cmd)
    args = cmd.args  # ``busybox rm …`` arrives as rm: busybox is peeled as a wrapper
    if name == "rm":
        yield from _rm(cmd, scope, args, "recursive delete")
    elif name == "unlink":
        yield from _rm(cmd, scope, args, "unlink")
    elif name == "find":
        yield from _find(cmd, scope, args)
    elif name == "mv":
        parsed = options_of("mv", args)
        operands = parsed.operands
        # ``mv -t DIR a b`` moves every operand; otherwise the last one is the destination.
        for word in operands if parsed.has("--target-directory") else operands[:-1]:
            where, path = place(word, cmd, scope)
            if where in HARDLINE_PLACES:
                yield MV_SYSTEM_ROOT.hit(f"move {path} ({where.value})")
    elif name == "rsync":
        parsed = options_of("rsync", args)
        dry = parsed.has("--dry-run", "--list-only")
        deleting = [o for o in parsed.names() if o in _RSYNC_DELETES]
        if deleting and not dry:
            yield RSYNC_DELETE.hit(f"rsync {deleting[0]}")
    elif name in ("cmd", "cmd.exe"):
        yield from _windows_cmd(args)
    elif name in ("powershell", "pwsh", "powershell.exe") and _remove_item_recurse(
        _powershell_text(args)
    ):
        yield WINDOWS_RECURSIVE_DELETE.hit("PowerShell Remove-Item -Recurse")


def _powershell_text(args: tuple[Word, ...]) -> str:
    """Return the PowerShell code a ``powershell``/``pwsh`` run is given (its -Command text).

    PowerShell's own options are read with its grammar (``-c``, ``-Command``, ``-NoProfile``;
    case-insensitive prefixes): the -Command value and every word after it are the code, as
    are the operands without one (Windows PowerShell's default is -Command).
    """
    parsed = single_dash("powershell", args)
    return " ".join([*parsed.values("--command"), *(w.value for w in parsed.operands)])


# Remove-Item and its aliases; -Recurse is the only parameter of Remove-Item (common parameters
# included) that starts with "r", so PowerShell takes any prefix of it (``-r``, ``-Rec``).
_REMOVE_ITEM = frozenset({"remove-item", "ri", "rm", "del", "rd", "rmdir", "erase"})
_PS_SEPARATORS = str.maketrans(dict.fromkeys("|&\n{}()", ";"))  # statements and pipeline stages


def _remove_item_recurse(code: str) -> bool:
    """Return True when PowerShell ``code`` runs Remove-Item (or an alias) with -Recurse."""
    for statement in code.lower().translate(_PS_SEPARATORS).split(";"):
        words = statement.split()
        if not words or words[0] not in _REMOVE_ITEM:
            continue
        for w in words[1:]:
            param, _, value = w.partition(":")
            recurse = len(param) > 1 and param[0] == "-" and "-recurse".startswith(param)
            if recurse and value not in ("$false", "0", "$null"):
                return True
    return False


def _windows_cmd(args: tuple[Word, ...]) -> Iterator[Hit]:
    words = [w.value.lower() for w in args]
    if not any(w in ("/c", "/k") for w in words):
        return
    if any(w in ("del", "erase") for w in words) or (
        any(w in ("rd", "rmdir") for w in words) and "/s" in words
    ):
        yield WINDOWS_RECURSIVE_DELETE.hit("cmd " + " ".join(words[:3]))


def _find(cmd: SimpleCommand, scope: Scope, args: tuple[Word, ...]) -> Iterator[Hit]:
    if not any(w.value == "-delete" or w.value in FIND_EXEC for w in args):
        return
    starts, primaries = scope.find(args)
    deletes = recursive_exec = filtered = False
    # Each primary with the words it takes: a value is data (``find . -name -delete``).
    for primary, taken in primaries:
        if primary in FIND_EXEC:
            recursive_exec = recursive_exec or _is_recursive_rm(list(taken))
        elif primary == "-delete":
            deletes = True
        elif primary in FIND_FILTERS:
            filtered = True
    if not (deletes or recursive_exec):
        return
    how = "find -delete" if deletes else "find -exec rm"
    places = [place(start, cmd, scope) for start in starts or (Word("."),)]
    for where, path in places:
        if where in HARDLINE_PLACES:
            yield RM_RECURSIVE_ROOT.hit(f"{how} under {path} ({where.value})")
            return
    # Inside the workspace or a temp dir, deleting what a predicate matches (``-name '*.pyc'``)
    # or a whole sub-tree is the same routine cleanup as ``rm -rf ./build``; the whole working
    # directory, or anything outside, asks.
    local = {Place.WORKSPACE, Place.TEMP}
    if all(w in local or (w is Place.WORKSPACE_ALL and filtered) for w, _ in places):
        return
    yield FIND_DELETE.hit(f"{how} under {' '.join(w.value for w in starts) or '.'}")


def _is_recursive_rm(argv: list[Word]) -> bool:
    """Return True when ``find -exec`` runs rm (any rm: it deletes every match, like -delete)."""
    inner = unwrap(tuple(argv)).argv  # ``sudo rm``, ``busybox rm``: the wrappers peeled
    return bool(inner) and inner[0].value.rpartition("/")[2] in ("rm", "unlink", "shred")


CHECKS = {
    "rm": check_rm,
    "unlink": check_rm,
    "find": check_rm,
    "mv": check_rm,
    "rsync": check_rm,
    "cmd": check_rm,
    "cmd.exe": check_rm,
    "powershell": check_rm,
    "pwsh": check_rm,
    "powershell.exe": check_rm,
}
