"""The option tables against the tools installed here: ``TOOL --help`` lists nothing unknown.

Each wrapper, runner and tool grammar in ``tether.shell`` is compared with the long options
its program prints in ``--help`` (``git SUB -h``). A tool that gains a long option makes
this fail, so the table is updated before an attacker finds the gap (an unknown value-taking
option in front of a command hides the command from the danger catalogue). CI installs the
tools from Debian's packages (``.ci/run``); a tool missing here fails, naming its package,
unless ``NOT_IN_CI`` says why CI does not install it (then the test skips with that reason:
each such table is a check not made, and the list is here to be shortened).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tether.rules.readonly.engine import CATALOGUE
from tether.rules.readonly.spec import grammar_of
from tether.rules.readonly.vcs_specs import READS
from tether.shell.options import FLAG, LIST, REQUIRED, Grammar
from tether.shell.programs import RUNNERS, SHELLS, WRAPPERS
from tether.shell.tools import CLUSTER, GIT, GIT_SUBCOMMANDS, MACHINE, TOOLS

_LONG = re.compile(r"(?<![\w-])--[a-z0-9][A-Za-z0-9-]*[A-Za-z0-9]")
_FLAGS = re.compile(r"\[-([A-Za-z0-9]+)\]")
_VALUED = re.compile(r"\[-([A-Za-z0-9]) [a-z_]+\]")
# Words that look like long options in a help text but are not options of the tool.
_NOT_OPTIONS = {
    "rsync": {"--no-OPTION"},  # any option negated; read as an unknown flag
    "flock": {"--command"},  # read after the lock file by flock itself, not by getopt
    # pip's general options mention --no-index in prose; `--find-` is --find-links wrapped.
    "pip": {"--no-index"},
    **{
        f"read-only pip{sub}": {"--no-index"}
        for sub in ("", " show", " freeze", " check", " config list", " cache dir")
    },
    # dpkg's help names option families (--force-<thing>, --assert-<feature>, …): the table
    # lists none of them, so each is refused as unknown.
    "read-only dpkg": {"--assert", "--force", "--no-force", "--refuse", "--validate"},
    "read-only pip list": {"--find"},
    "gdisk": {"--help"},  # gdisk has no --help: it names the device it could not open
    "expect": {"--help"},  # expect has no --help: it names the script file it could not read
    # unbuffer has no --help: it spawns its arguments (its one option, -p, is in its source)
    "unbuffer": {"--help"},
    "numactl": {"--help"},  # numactl has no --help: "unrecognized option '--help'", then usage
    **{key: {"--no-OPTION"} for key in ("http", "https")},  # any option negated (as rsync)
    # `git remote -h` lists every remote subcommand's options; only -v comes before the verb
    # (and `get-url`'s own are in "git remote get-url").
    "read-only git remote": {
        *("--add", "--all", "--auto", "--delete", "--dry-run", "--mirror", "--no-tags"),
        *("--prune", "--push", "--tags"),
    },
}
# Tools whose help lists no long option: each option word at a line's start is checked instead.
_SHORT_ONLY = {
    "nc": "OpenBSD nc lists short options only (its long ones in the table are ncat's)",
    # (the table spells its multi-letter words -ls, -wipe, -Logfile with two dashes; -dmS is
    # the cluster -d -m -S)
    "screen": "screen's options are single-dash words",
}
_LINE_OPTION = re.compile(r"^-([A-Za-z0-9][A-Za-z0-9]*)\b", re.MULTILINE)


def _line_option(word: str, g: Grammar) -> str:
    """The table's spelling of ``-word`` from a short-only help: a letter, a word the table
    spells with two dashes, or a cluster of letters it knows (``-dmS``); else ``-word``."""
    if len(word) > 1 and f"--{word}" in g.names:
        return f"--{word}"
    if len(word) > 1 and all(f"-{c}" in g.names for c in word):
        return f"-{word[0]}"
    return f"-{word}"


# Usage lines whose brackets are not getopt options.
_USAGE_EXEMPT = {
    "sg": "'[-c] command': -c marks the command string that follows",
    "xxd": "'[-ps]' is one option word: xxd reads only its first letter (-p)",
    "read-only fmt": "'[-WIDTH]' is -NUM",
    "read-only dirs": "'[-N]' is -NUM",
    "read-only xxd": "'[-ps]' is one option, -p (xxd reads options by their first letters)",
    "sfdisk": "'<dev> [[-N] <part>]': -N (--partno) takes the number that follows",
    "unzip": "'[-x xlist] [-d exdir]' follow the archive: tools.UNZIP_MEMBERS reads them",
    "screen": "'[-opts]' stands for the options listed below it",
    "busybox": "'--list[-full]' is one word, '--install [-s] [DIR]' reads -s itself",
    "read-only git grep": "'[-e] <pattern>': -e takes the pattern that follows",
    "read-only git cat-file": "'--batch[-check]' is --batch-check",
    "read-only git remote": "'[-f]', '[-n]' are options of `remote add` and `remote show`",
    "read-only zgrep": "'[-e] PATTERN': -e takes the pattern that follows",
}
# Tools CI does not install, and why: each is a table not checked against its program.
NOT_IN_CI = {
    **dict.fromkeys(("caffeinate", "chflags", "launchctl", "pfctl"), "macOS only"),
    "gtar": "Homebrew's name of GNU tar (tar is checked)",
    "gtimeout": "Homebrew's name of GNU timeout (timeout is checked)",
    **dict.fromkeys(("gradlew", "mvnw"), "a project's wrapper script, never installed"),
    **dict.fromkeys(
        ("uv", "xh", "glab", "helm", "oc", "valkey-cli", "pnpm", "catchsegv"),
        "not packaged in Debian 12",
    ),
    "fd": "Debian installs it as fdfind",
    "arch-chroot": "Arch Linux's (arch-install-scripts is not packaged in Debian 12)",
    "fakechroot": "not installed in CI yet (its grammar read from fakechroot 2.20's man page)",
    "yarn": "Debian's yarnpkg names its command yarnpkg",
    "poetry": "python3-poetry pulls a second Python dependency tree into CI",
    "gradle": "needs a JDK (hundreds of MB) in CI",
    "podman": "36 MB and a container runtime in CI",
    "firewall-cmd": "firewalld is a daemon with a D-Bus service",
    "schroot": "2.5 MB with three Boost libraries and a debconf prompt (grammar from the "
    "1.6.13 man page)",
    "nginx": "a web server CI does not run (its check passes with Debian's 1.22)",
    **dict.fromkeys(
        ("sponge", "chronic"),
        "moreutils also installs its own parallel, not the GNU parallel the catalogue reads "
        "(their checks pass with Debian's moreutils 0.67)",
    ),
}
# Debian's package of each checked tool whose name is not its package's (for the message).
_PACKAGES = {"qemu-img": "qemu-utils", "doas": "opendoas", "dbus-launch": "dbus-x11",
             "watch": "procps", "time": "time", "chattr": "e2fsprogs"}  # fmt: skip
# Help texts that describe several commands: only the lines of the one a grammar is for.
_HELP_LINES = {
    "qemu-img convert": re.compile(r"^  convert ", re.MULTILINE),
    "read-only git submodule status": re.compile(
        r"^ +or: git submodule \[--quiet\] status ", re.MULTILINE
    ),
}

# Tools whose options are open-ended by design (every ``--name=value`` is accepted).
_OPEN = {"valgrind": "tool options are --name=value pairs, read as flags"}


def _cases() -> list[tuple[str, Grammar, list[str]]]:
    cases = [(n, w.grammar, [n, "--help"]) for n, w in WRAPPERS.items()]
    for n, r in RUNNERS.items():
        if n not in _OPEN:
            cases.append(
                (n, r.grammar, [n, r.subcommand, "--help"] if r.subcommand else [n, "--help"])
            )
    cases += [(n, g, [*n.split(), "--help"]) for n, g in TOOLS.items()]
    cases += [(n, g, [n, "--help"]) for n, g in MACHINE.items()]
    cases += [("git", GIT, ["git", "--help"])]
    cases += [(f"git {n}", g, ["git", *n.split(), "-h"]) for n, g in GIT_SUBCOMMANDS.items()]
    cases += [("bash", SHELLS["bash"], ["bash", "--help"])]
    cases += [("docker", CLUSTER["docker"], ["docker", "--help"])]
    cases += [("kubectl", CLUSTER["kubectl"], ["kubectl", "options"])]
    cases += [("helm", CLUSTER["helm"], ["helm", "--help"])]
    return cases + _read_only_cases()


# How to ask a read-only catalogue tool for its options when ``--help`` is not the way.
_HELP_ARGV = {
    "lsof": ["lsof", "-h"],
    "xxd": ["xxd", "-h"],
    "which": ["which", "--help"],
    **{f"git {sub}": ["git", sub, "-h"] for sub in ("branch", "tag", "config")},
    # git's read subcommands print their parse-options usage for -h (--help opens a manual).
    **{spec.name: [*spec.name.split(), "-h"] for spec in READS.values()},
    # In a repository `git diff -h` prints only its usage lines; the diff options are listed
    # by the --no-index form (which outside a repository is what `git diff -h` prints).
    "git diff": ["git", "diff", "--no-index", "-h"],
    # `git stash list -h` and `git reflog show -h` only say "[<log-options>]".
    "git stash list": ["git", "log", "-h"],
    "git reflog show": ["git", "log", "-h"],
}


def _read_only_cases() -> list[tuple[str, Grammar, list[str]]]:
    """Every spec of the read-only catalogue, under each command name it judges.

    A bash builtin is asked with ``help NAME``; a spec that names no version it was checked
    against, or only a man page (the tool is not packaged here), has nothing to compare.
    """
    cases = []
    for name, entry in CATALOGUE.items():
        for spec in entry.specs:
            own = spec.name == name or spec.name.startswith(f"{name} ")  # `pip list`
            if spec.open or "(man page)" in spec.checked or not own:
                continue
            assert spec.checked, f"read-only spec {spec.name} names no version it was checked on"
            if spec.checked.startswith("bash"):
                argv = ["bash", "-c", f"help {name}"]
            else:
                argv = _HELP_ARGV.get(spec.name, [*spec.name.split(), "--help"])
            cases.append((f"read-only {spec.name}", grammar_of(spec), argv))
    return cases


CASES = _cases()
# Shell builtins, keywords and zsh precommand modifiers: no --help to read, no long options.
BUILTINS = {"command", "builtin", "exec", "coproc", "repeat", "noglob", "nocorrect", "-"}
BUILTINS |= {"trap", "mapfile", "readarray", "alias"}


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty git repository to ask the tools in: `git worktree list -h`, `git stash show -h`
    and others say "not a git repository" elsewhere (a source archive has no .git)."""
    where = tmp_path_factory.mktemp("help-repo")
    subprocess.run(["git", "init", "-q", str(where)], check=True, capture_output=True)
    return where


@pytest.mark.parametrize(("name", "g", "argv"), CASES, ids=[c[0] for c in CASES])
def test_help_lists_no_long_option_the_table_does_not_know(
    name: str, g: Grammar, argv: list[str], repository: Path
) -> None:
    if name in BUILTINS:
        assert g.longs == (), f"{name} is a shell builtin with no long options"
        return
    if shutil.which(argv[0]) is None:
        if argv[0] in NOT_IN_CI:
            pytest.skip(f"{argv[0]} is not installed in CI: {NOT_IN_CI[argv[0]]}")
        package = _PACKAGES.get(argv[0], f"the Debian package of {argv[0]}")
        pytest.fail(f"{argv[0]} is not installed: apt-get install {package}, in .ci/run too")
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=20,
        stdin=subprocess.DEVNULL,
        check=False,
        cwd=repository,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(repository.parent)},
    )
    text = done.stdout + done.stderr
    if name in _HELP_LINES:
        text = "\n".join(m.group(0) for m in re.finditer(
            _HELP_LINES[name].pattern + ".*", text, re.MULTILINE))  # fmt: skip
    listed = set(_LONG.findall(text)) - _NOT_OPTIONS.get(name, set())
    if name in _SHORT_ONLY:
        listed = {_line_option(word, g) for word in _LINE_OPTION.findall(text)}
        assert listed or _FLAGS.search(text), f"{' '.join(argv)} printed no options"
    elif set(g.longs) - {"--help"}:  # bash builtins take --help but list no long options
        assert listed, f"{' '.join(argv)} printed no long options: is its help still parseable?"
    missing = sorted(o for o in listed if o not in g.names)
    # BSD-style usage lines: ``[-346AB]`` flags and ``[-c cipher]`` options with a value.
    if name in _USAGE_EXEMPT:
        text = ""
    for letters in _FLAGS.findall(text):
        missing += [f"-{c}" for c in letters if g.arity.get(g.names.get(f"-{c}", ""), -1) != FLAG]
    for letter in _VALUED.findall(text):
        if g.arity.get(g.names.get(f"-{letter}", ""), -1) not in (REQUIRED, LIST):
            missing.append(f"-{letter} VALUE")
    assert not missing, f"{' '.join(argv)} lists options {g.name}'s grammar lacks: {missing}"


def test_unbuffer_reads_only_p_from_its_source() -> None:
    """expect's unbuffer has no --help (it spawns its arguments): the options it compares its
    first argument with, in its own Tcl source, are the table's."""
    path = shutil.which("unbuffer")
    assert path, "unbuffer is not installed: apt-get install expect, in .ci/run too"
    source = Path(path).read_text(encoding="utf-8")
    compared = set(re.findall(r'\[lindex \$argv 0\] "(-[A-Za-z-]+)"', source))
    assert compared == set(RUNNERS["unbuffer"].grammar.names) == {"-p"}
