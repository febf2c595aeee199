"""The getopt engine and the wrapper table, as the programs themselves read their arguments.

Three layers: the engine's contract as a table (getopt's rules: clusters, attached and
optional values, unique prefixes, permutation, ``--``); every wrapper option in every getopt
spelling in front of ``rm -rf /`` (peeled to rm, judged hardline) and in front of ``ls``
(the read-only verdict does not depend on the spelling); and the real tools installed here,
run with each spelling in front of ``echo``, so a spec that disagrees with the program fails.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.classify import classify_command
from tether.rules.base import Danger
from tether.rules.readonly.spec import Spec as ReadSpec
from tether.rules.readonly.spec import grammar_of
from tether.shell import parse_command
from tether.shell.model import Word
from tether.shell.options import FLAG, OPTIONAL, REQUIRED, Grammar, grammar, parse, spellings
from tether.shell.programs import RUNNERS, SHELLS, WRAPPERS
from tether.shell.tools import GIT_SUBCOMMANDS, TOOLS

G = grammar("prog", "a b c|count: d|debug:: e: verbose colour:: output:", permute=True)
STOPS = grammar("stops", "a k|kill: v|verbose", permute=False)


def _w(*values: str) -> tuple[Word, ...]:
    return tuple(Word(v) for v in values)


@pytest.mark.parametrize(
    ("g", "args", "options", "operands"),
    [
        (G, "-ab x", [("-a", None), ("-b", None)], ["x"]),
        (G, "-abc5 x", [("-a", None), ("-b", None), ("--count", "5")], ["x"]),
        (G, "-ac 5 x", [("-a", None), ("--count", "5")], ["x"]),
        (G, "--count=5 x", [("--count", "5")], ["x"]),
        (G, "--count 5 x", [("--count", "5")], ["x"]),
        (G, "--cou 5 x", [("--count", "5")], ["x"]),
        # optional values only attach: the next word is an operand
        (G, "-d x", [("--debug", None)], ["x"]),
        (G, "-dx y", [("--debug", "x")], ["y"]),
        (G, "--debug x", [("--debug", None)], ["x"]),
        (G, "--deb=x y", [("--debug", "x")], ["y"]),
        (G, "--col x", [("--colour", None)], ["x"]),
        # permutation: options after operands still count; -- ends them
        (G, "x -a y", [("-a", None)], ["x", "y"]),
        (G, "x -- -a", [], ["x", "-a"]),
        (G, "- -a", [("-a", None)], ["-"]),
        (STOPS, "-a x -v", [("-a", None)], ["x", "-v"]),
        (STOPS, "--ki 5 x", [("--kill", "5")], ["x"]),
    ],
)
def test_getopt_rules(
    g: Grammar, args: str, options: list[tuple[str, str | None]], operands: list[str]
) -> None:
    _assert_reads(g, args, options, operands)


def _assert_reads(
    g: Grammar, args: str, options: list[tuple[str, str | None]], operands: list[str]
) -> None:
    parsed = parse(g, _w(*args.split()))
    assert parsed.error is None, parsed.error
    assert list(parsed.options) == options
    assert [w.value for w in parsed.operands] == operands


OLD = grammar("old", "x|extract f|file: C|directory: v z e*", old_style=True)
LISTS = grammar("lists", "d: x*", abbreviate=False)


@pytest.mark.parametrize(
    ("g", "args", "options", "operands"),
    [
        # old style: a dash-less first word is a cluster; its value letters take the next
        # words in order (GNU tar's ``tar xfC a.tar dir``), then getopt reads the rest.
        (OLD, "xf a.tar m", [("--extract", None), ("--file", "a.tar")], ["m"]),
        (
            OLD,
            "xfC a.tar d m",
            [("--extract", None), ("--file", "a.tar"), ("--directory", "d")],
            ["m"],
        ),
        (OLD, "Cxf d a.tar", [("--directory", "d"), ("--extract", None), ("--file", "a.tar")], []),
        (
            OLD,
            "xzf a.tgz -C d",
            [("--extract", None), ("-z", None), ("--file", "a.tgz"), ("--directory", "d")],
            [],
        ),
        (OLD, "xf - -v", [("--extract", None), ("--file", "-"), ("-v", None)], []),
        # with a dash: getopt's own reading (-f takes the rest of the word: "C")
        (OLD, "-xfC a.tar", [("--extract", None), ("--file", "C")], ["a.tar"]),
        # list options take every word up to the next option (unzip's -x NAME…)
        (LISTS, "a.zip -x m n -d dir o", [("-x", "m"), ("-x", "n"), ("-d", "dir")], ["a.zip", "o"]),
        (LISTS, "a.zip -x", [("-x", None)], ["a.zip"]),
        (LISTS, "a.zip -xm n", [("-x", "m"), ("-x", "n")], ["a.zip"]),
        (LISTS, "-x m -ddir", [("-x", "m"), ("-d", "dir")], []),
    ],
)
def test_old_style_clusters_and_list_options(
    g: Grammar, args: str, options: list[tuple[str, str | None]], operands: list[str]
) -> None:
    _assert_reads(g, args, options, operands)


def test_an_old_style_stop_counts_the_words_given() -> None:
    # ``stop`` indexes the caller's words, not the expanded ones.
    g = OLD._replace(permute=False)
    assert parse(g, _w("xfC", "a.tar", "d", "m", "n")).stop == 3
    assert parse(g, _w("xfC", "a.tar", "d", "--", "m")).stop == 4


def test_an_unknown_old_style_letter_is_reported() -> None:
    parsed = parse(OLD, _w("xq", "a"))
    assert parsed.error == "old: option '-q' is not known"
    assert parsed.operands == _w("a")


def test_an_ambiguous_prefix_whose_every_meaning_takes_a_value_takes_the_next_word() -> None:
    # ``systemctl --kill- main kill x``: --kill-whom in systemd 252, ambiguous with newer
    # systemd's --kill-value; either way ``main`` is a value, not the verb.
    g = grammar("g", "kill-whom: kill-value: keep")
    parsed = parse(g, _w("--kill-", "main", "kill", "x"))
    assert parsed.error is not None and "ambiguous" in parsed.error
    assert [w.value for w in parsed.operands] == ["kill", "x"]
    # a flag among the meanings: the next word may be an operand, so it stays one
    mixed = parse(g, _w("--k", "main", "kill"))
    assert [w.value for w in mixed.operands] == ["main", "kill"]


def test_a_grammar_word_without_a_name_is_refused() -> None:
    with pytest.raises(ValueError, match="expected a name"):
        grammar("bad", "a :")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ("-z", "option '-z' is not known"),
        ("--nope", "option '--nope' is not known"),
        ("--c 5", "option '--c' is ambiguous (--count, --colour)"),
        ("--verbose=1", "option '--verbose' takes no value"),
        ("-c", "option '-c' needs a value"),
        ("--output", "option '--output' needs a value"),
    ],
)
def test_problems_are_reported_by_name(args: str, error: str) -> None:
    assert parse(G, _w(*args.split())).error == f"prog: {error}"


def test_stop_is_where_a_wrapped_command_starts() -> None:
    assert parse(STOPS, _w("-k", "5", "-a", "rm", "-v")).stop == 3
    assert parse(STOPS, _w("-a", "--", "-rm")).stop == 2
    assert parse(G, _w("-a", "sub", "-b"), stop_at=1).stop == 1


def test_abbreviations_are_every_unique_prefix() -> None:
    assert spellings(G, "--count") == ["-c", "--count", "--cou", "--coun"]
    assert spellings(grammar("x", "all allow", abbreviate=False), "--all") == ["--all"]


@pytest.mark.parametrize("bad", ["x:::", "a a"])
def test_a_malformed_grammar_is_refused_when_written(bad: str) -> None:
    with pytest.raises(ValueError, match="prog: option"):
        grammar("prog", bad)


# --- every wrapper option in every spelling ---------------------------------------------------

# Options after which the wrapper runs something other than the operands as given.
_REWRITES = {("env", "--split-string"), ("watch", "--exec"), ("xargs", "--arg-file")}
_VALUE = "1"
# A value only known at run time: ``--user="$V"`` and ``-u"$V"`` are still options (bash hands
# over a word that starts with the same dash and letters), so the peeler must step over them.
_DYNAMIC_VALUE = '"$V"'


def _plain_flag(name: str, g: Grammar, canonical: str) -> str | None:
    """Return a short flag of ``g`` that changes nothing peeling cares about, to bundle with."""
    spec = WRAPPERS.get(name)
    avoid = (spec.terminal if spec else frozenset()) | {
        "-c",
        "-s",
        "-n",
        "-D",
        "--ignore-environment",
        "--null",
        "--append",
        "--open-tty",
        "--interactive",
    }
    for spelt, target in g.names.items():
        plain = target not in avoid and spelt not in avoid and (name, target) not in _REWRITES
        if len(spelt) == 2 and g.arity[target] == FLAG and target != canonical and plain:
            return spelt
    return None


def _option_forms(
    name: str, g: Grammar, canonical: str, every_prefix: bool = True, value: str = _VALUE
) -> Iterator[list[str]]:
    """Yield every getopt spelling of one option (with ``value`` where it takes one).

    ``every_prefix=False`` keeps, of the abbreviations, only the shortest (for big tables).
    An option whose argument is optional is also spelt bare, unless ``value`` is dynamic (the
    bare form then differs from the others in what it proves).
    """
    kind = g.arity[canonical]
    flag = _plain_flag(name, g, canonical)
    names = spellings(g, canonical)
    if not every_prefix:
        names = [n for i, n in enumerate(names) if g.knows(n) or not g.knows(names[i - 1])]
    for spelt in names:
        short = not spelt.startswith("--")
        if kind == FLAG:
            yield [spelt]
            if short and flag is not None and flag[1] != spelt[1]:
                yield [flag + spelt[1:]]  # bundled behind another flag
        elif kind == REQUIRED:
            yield [spelt, value]
            yield [spelt + value] if short else [f"{spelt}={value}"]
            if short and flag is not None:
                yield [flag + spelt[1:], value]
        else:
            if value == _VALUE:
                yield [spelt]
            yield [spelt + value] if short else [f"{spelt}={value}"]


def _wrapper_cases() -> Iterator[tuple[str, list[str]]]:
    for name, spec in WRAPPERS.items():
        g = spec.grammar
        for canonical in g.arity:
            if canonical in spec.terminal or (name, canonical) in _REWRITES:
                continue
            for value in (_VALUE, _DYNAMIC_VALUE):
                for form in _option_forms(name, g, canonical, value=value):
                    yield name, form
                    yield name, [*form, "--"]


POSITIONAL = {"timeout": ["5"], "chrt": ["5"], "taskset": ["0x1"]}


def _wrapped(name: str, form: tuple[str, ...], command: str) -> str:
    words = [name, *form, *POSITIONAL.get(name, [])]
    return " ".join(words) + " " + command


@pytest.mark.parametrize("name", sorted(WRAPPERS))
def test_every_spelling_of_a_wrapper_option_reaches_the_command(name: str) -> None:
    missed = []
    for wrapper, form in _wrapper_cases():
        if wrapper != name:
            continue
        command = _wrapped(name, tuple(form), "rm -rf /")
        model = parse_command(command)
        # xargs appends its input as a dynamic operand
        reached = [w.value for w in model.commands[-1].argv][:3] == ["rm", "-rf", "/"]
        if not reached or classify_command(command).danger is not Danger.HARDLINE:
            missed.append(command)
    assert not missed, missed


def _read_verdicts() -> Iterator[tuple[str, str, list[tuple[str, ...]]]]:
    for name, spec in WRAPPERS.items():
        g = spec.grammar
        for canonical in g.arity:
            if canonical in spec.terminal or (name, canonical) in _REWRITES:
                continue
            for value in (_VALUE, _DYNAMIC_VALUE):
                forms = [tuple(f) for f in _option_forms(name, g, canonical, value=value)]
                yield name, f"{canonical} {value}", forms


READS = list(_read_verdicts())


@pytest.mark.parametrize(
    ("name", "canonical", "forms"), READS, ids=[f"{n} {c}" for n, c, _ in READS]
)
def test_the_read_only_verdict_does_not_depend_on_the_spelling(
    name: str, canonical: str, forms: list[tuple[str, ...]]
) -> None:
    verdicts = {f: classify_command(_wrapped(name, f, "ls")).read_only for f in forms}
    assert len(set(verdicts.values())) == 1, verdicts


@pytest.mark.parametrize(
    "command",
    [
        # the issue's bypasses: abbreviations and optional arguments the peeler did not know
        "timeout --sig KILL 5 rm -rf /",
        "sudo --chd / rm -rf /",
        "env --chd / rm -rf /",
        "nice --adj 5 rm -rf /",
        "stdbuf --out 0 rm -rf /",
        "xargs -l rm -rf /",
        "xargs --max-lines rm -rf /",
        "xargs -e rm -rf /",
        "watch -d rm -rf /",
        "watch -n1 rm -rf /",
        # ``sudo -k`` resets the timestamp and still runs the command
        "sudo -k rm -rf /",
        "env - rm -rf /",
        "env -S 'rm -rf /'",
        "env -S'rm -rf' /",
        "bash --rcfile x -c 'rm -rf /'",
        "sudo -E env -u X timeout -s KILL 5 nice -n5 rm -rf /",
        # a value attached to an option and only known at run time: once read as the command
        # word (DG306 ask), or `timeout --signal="$S" 5 rm -rf /` judged `5` (danger none)
        'timeout --signal="$S" 5 rm -rf /',
        'sudo --user="$U" rm -rf /',
        'env --chdir="$D" rm -rf /',
        'env -u"$X" rm -rf /',
        'nice --adjustment="$N" rm -rf /',
        'stdbuf -o"$M" rm -rf /',
        'xargs -I"$X" rm -rf /',
        "sudo -u$U -- rm -rf /",
        # an option whose name is only known at run time is still an option word
        "env --$X rm -rf /",
        "env -i$X rm -rf /",
    ],
)
def test_wrapper_bypasses_are_hardline(command: str) -> None:
    assert classify_command(command).danger is Danger.HARDLINE, command


# What comes between a runner's options and the command it runs.
_RUNNER_TAIL = {
    "chroot": "/ rm -rf /",
    "arch-chroot": "/ rm -rf /",
    "flock": "/tmp/l rm -rf /",
    "sg": "wheel -c 'rm -rf /'",
    "su": "root -c 'rm -rf /'",
    "script": "-c 'rm -rf /' /dev/null",
    "runuser": "-u bob -- rm -rf /",
    "gtimeout": "5 rm -rf /",
    "docker": "box rm -rf /",
    "podman": "box rm -rf /",
    "kubectl": "pod -- rm -rf /",
    "oc": "pod -- rm -rf /",
}


def _runner_cases() -> Iterator[tuple[str, tuple[str, ...]]]:
    for name, spec in RUNNERS.items():
        g = spec.grammar
        for canonical in g.arity:
            if canonical in spec.payload or (name == "runuser" and canonical == "--user"):
                continue
            for value in (_VALUE, _DYNAMIC_VALUE):
                for form in _option_forms(name, g, canonical, every_prefix=False, value=value):
                    # bwrap's --bind SRC DEST: the second word follows every spelling.
                    yield name, (*form, value) if canonical in spec.pairs else tuple(form)


@pytest.mark.parametrize("name", sorted(RUNNERS))
def test_every_spelling_of_a_runner_option_reaches_the_command(name: str) -> None:
    sub = [RUNNERS[name].subcommand] if RUNNERS[name].subcommand else []
    missed = []
    for runner, form in _runner_cases():
        if runner != name:
            continue
        command = " ".join([name, *sub, *form, _RUNNER_TAIL.get(name, "rm -rf /")])
        if classify_command(command).danger is not Danger.HARDLINE:
            missed.append(command)
    assert not missed, missed


@pytest.mark.parametrize(
    "command",
    [
        # prefixes and attached forms the runners' old option lists did not know
        "su --comm 'rm -rf /' root",
        "runuser bob --command='rm -rf /'",
        "flock --time 5 /tmp/l rm -rf /",
        "script --comm 'rm -rf /'",
        "gtimeout --sig KILL 5 rm -rf /",
        # sandboxes and chroot-like runners run their operands on the host's files
        "bwrap --bind / / rm -rf /",
        "bwrap --bind $X rm -rf /",  # $X may be SRC and DEST: then rm is the command
        'bwrap --bind "$X" /mnt rm -rf /',
        "bwrap --dev-bind / / --setenv HOME /root --chdir / sh -c 'rm -rf /'",
        "bwrap --ro-bind /usr /usr --symlink usr/bin /bin --proc /proc rm -rf /",
        "proot -r / rm -rf /",
        "proot --rootfs=/ -0 -w / rm -rf /",
        "proot -b /:/host -- rm -rf /",
        "schroot -c sid -- rm -rf /",
        "schroot --chroot=sid --user=root -- sh -c 'rm -rf /'",
        "firejail --noprofile rm -rf /",
    ],
)
def test_runner_bypasses_are_hardline(command: str) -> None:
    assert classify_command(command).danger is Danger.HARDLINE, command


@pytest.mark.parametrize(
    "command",
    [
        "sudo -l rm -rf /",
        "sudo -h x rm -rf /",
        "command -v rm -rf /",
        "timeout --help rm -rf /",
        "ionice -p 1 rm -rf /",
    ],
)
def test_options_that_run_nothing_are_not_peeled(command: str) -> None:
    assert parse_command(command).commands[-1].wrappers == ()


@pytest.mark.parametrize(
    "command",
    [
        "BASH_ENV=/tmp/x bash -c 'ls'",
        "ENV=/tmp/x sh -c 'ls'",
        "PATH=/tmp watch ls",
        "LD_PRELOAD=/x.so bash -c 'ls'",
        "PYTHONSTARTUP=/x sh -c 'ls'",
        "GIT_DIR=/x sh -c 'git status'",
        "env PATH=/tmp sh -c ls",
        "BASH_ENV=/tmp/x bash <<'EOF'\nls\nEOF",
        "BASH_ENV=/tmp/x timeout 5 bash -c 'ls'",
    ],
)
def test_prefix_assignments_reach_the_peeled_payload(command: str) -> None:
    model = parse_command(command)
    inner = model.commands[-1]
    assert inner.assignments or any(w.name == "env" for w in inner.wrappers), inner
    assert not classify_command(command).read_only, command


@pytest.mark.parametrize(
    "command",
    ["timeout --bogus 5 ls", "nice --nope ls", "xargs -Z ls", "env --frob ls", "watch -Q ls"],
)
def test_an_unknown_wrapper_option_is_not_read_only(command: str) -> None:
    assert classify_command(command).read_only is False, command


# --- the real programs ---------------------------------------------------------------------

# Wrappers safe to run here, with a value each option accepts for real.
_REAL_VALUES = {
    "timeout": {"--kill-after": "5", "--signal": "TERM"},
    "nice": {"--adjustment": "1"},
    "stdbuf": {"--input": "0", "--output": "0", "--error": "0"},
    "env": {"--unset": "X", "--chdir": "/"},
    "setsid": {},
    "nohup": {},
    "xargs": {
        "--delimiter": "\\n",
        "-E": "END",
        "--eof": "END",
        "-I": "{}",
        "--replace": "{}",
        "-L": "1",
        "--max-lines": "1",
        "--max-args": "1",
        "--max-procs": "1",
        "--process-slot-var": "SLOT",
        "--max-chars": "4096",
    },
}
_SKIP_REAL = {
    ("env", "--block-signal"),
    ("env", "--default-signal"),
    ("env", "--ignore-signal"),
    ("env", "--ignore-environment"),  # echo is found through PATH
    ("env", "--null"),  # refuses to run a command
    ("setsid", "--ctty"),  # needs a terminal
    ("xargs", "--interactive"),
    ("xargs", "--open-tty"),
    ("xargs", "--exit"),
}


def _real_cases() -> Iterator[tuple[str, tuple[str, ...]]]:
    for name, values in _REAL_VALUES.items():
        g = WRAPPERS[name].grammar
        for canonical in g.arity:
            skip = _SKIP_REAL | _REWRITES
            if canonical in WRAPPERS[name].terminal | WRAPPERS[name].elsewhere:
                continue
            if (name, canonical) in skip:
                continue
            value = values.get(canonical, "1")
            for form in _option_forms(name, g, canonical):
                yield name, tuple(value if w == _VALUE else w.replace(_VALUE, value) for w in form)


REAL = sorted(set(_real_cases()))


@pytest.mark.parametrize(("name", "form"), REAL, ids=[" ".join([n, *f]) for n, f in REAL])
def test_the_real_program_runs_what_the_peeler_found(name: str, form: tuple[str, ...]) -> None:
    if shutil.which(name) is None:
        package = {"xargs": "findutils", "setsid": "util-linux"}.get(name, "coreutils")
        pytest.fail(f"{name} is not installed: apt-get install {package}")
    words = [name, *form, *POSITIONAL.get(name, []), "echo", "tether-mark"]
    model = parse_command(" ".join(shlex_quote(w) for w in words))
    peeled = [w.value for w in model.commands[-1].argv]
    assert peeled[:2] == ["echo", "tether-mark"], peeled
    done = subprocess.run(
        words, input="x\n", capture_output=True, text=True, timeout=20, check=False, cwd="/"
    )
    assert done.returncode == 0, (words, done.stderr)
    assert "tether-mark" in done.stdout, (words, done.stdout, done.stderr)


def shlex_quote(word: str) -> str:
    """Quote ``word`` for the parser (the real run gets the list as is)."""
    import shlex

    return shlex.quote(word)


def test_every_shell_reads_its_script_after_its_options() -> None:
    for name, g in SHELLS.items():
        for canonical, kind in g.arity.items():
            if canonical in ("-c", "-s"):
                continue
            value = ["posix"] if kind == REQUIRED else []
            command = " ".join([name, canonical, *value, "-c", "'rm -rf /'"])
            assert classify_command(command).danger is Danger.HARDLINE, command
        assert OPTIONAL not in g.arity.values()


@pytest.mark.parametrize(
    ("command", "level"),
    [
        # the destination given by -t, not the last operand
        ("mv -t /tmp /", Danger.ASK),
        ("cp -t /etc x", Danger.ASK),
        # unique prefixes of a subcommand's options (git's parse-options takes them)
        ("git clean --for", Danger.ASK),
        ("git reset --ha", Danger.ASK),
        ("rm --rec /", Danger.HARDLINE),
        # git 2.39 refuses this ambiguous prefix, but a git with fewer --force… options
        # would push by force: a check that asks a human counts what it may mean
        ("git push --forc origin main", Danger.ASK),
        # global options before the subcommand, with values, by git's own grammar
        ("git --git-dir .git --work-tree . reset --hard", Danger.ASK),
        ("git -C repo -c a=b push --force", Danger.ASK),
        # the CLIs' own options before the subcommand, values included (issue 10, item 5)
        ("docker -H tcp://x system prune -af", Danger.ASK),
        ("docker --context prod volume rm x", Danger.ASK),
        ("kubectl -n kube-system delete pod x", Danger.ASK),
        ("kubectl --context prod delete ns prod", Danger.ASK),
        ("helm -n prod uninstall app", Danger.ASK),
        ("kubectl -n ns exec pod -- rm -rf /", Danger.HARDLINE),
        ("docker -H h exec box rm -rf /", Danger.HARDLINE),
        ("kubectl get pods -n kube-system", Danger.NONE),
        # what find -exec runs is peeled like any other command
        ("find . -exec sudo -u x rm {} +", Danger.ASK),
        # in-place edits by sed's grammar: prefixes and long clusters
        ("sed --in-pl s/x/y/ /etc/hosts", Danger.ASK),
        ("sed -nEzsi s/a/b/ /etc/hosts", Danger.ASK),
        ("sed --in-pl s/x/y/ ~/.ssh/config", Danger.ASK),
        ("sed -e -i /etc/hosts", Danger.NONE),  # -i is the script here
        # a value that looks like an option is a value
        ("git clean -e -f", Danger.NONE),
        ("git branch --format -D", Danger.NONE),
    ],
)
def test_danger_reads_options_by_the_tools_grammar(command: str, level: Danger) -> None:
    assert classify_command(command).danger is level, command


# --- the read-only catalogue's specs, through the same engine --------------------------------

# Operands each command needs to be judged at all (the verdict compared is spelling-only).
_SPEC_OPERANDS = {"sed": "p f", "awk": "1 f", "gh api": "repos/o/r", "rg": "pat .", "fd": "pat"}


def _catalogue_specs() -> list[ReadSpec]:
    seen: set[int] = set()
    found: list[ReadSpec] = []
    stack: list[object] = [vars(m) for n, m in sorted(sys.modules.items()) if n.startswith(
        "tether.rules.readonly"
    )]  # fmt: skip
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, ReadSpec):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return sorted(found, key=lambda s: s.name)


SPECS = _catalogue_specs()


def _equivalent_spellings(g: Grammar, style: str = "getopt") -> Iterator[tuple[str, list[str]]]:
    """Yield (option, spellings that must get one verdict) for every option of ``g``.

    A "next"-style program (``Spec.style``: tree) takes a value only from the next word, so
    ``-L1`` is not ``-L 1`` there (tree refuses it): only the separate spellings are equal."""
    shorts = sorted(n for n, c in g.names.items() if len(n) == 2 and g.arity[c] == FLAG)
    for canonical, kind in g.arity.items():
        names = spellings(g, canonical)
        if kind == FLAG:
            yield canonical, names
            for short in (n for n in names if not n.startswith("--")):
                other = next((f for f in shorts if f != short), "")
                if other:
                    yield canonical, [f"{other} {short}", other + short[1:]]
        elif kind == REQUIRED:
            yield (
                canonical,
                [
                    form
                    for n in names
                    for form in (
                        (f"{n} 1",)
                        if style == "next" and not n.startswith("--")
                        else (f"{n} 1", f"{n}1")
                        if not n.startswith("--")
                        else (f"{n} 1", f"{n}=1")
                    )
                ],
            )
        else:
            yield canonical, names
            yield canonical, [f"{n}1" if not n.startswith("--") else f"{n}=1" for n in names]


def test_the_catalogue_specs_are_found() -> None:
    assert {"sed", "sort", "git branch", "date"} <= {s.name for s in SPECS}


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_a_read_only_verdict_does_not_depend_on_the_spelling(spec: ReadSpec) -> None:
    operands = _SPEC_OPERANDS.get(spec.name, "f")
    differ = []
    for option, forms in _equivalent_spellings(grammar_of(spec), spec.style):
        # An unquoted `-?` is a glob bash may expand to another option (`dpkg -?` → `-i` when
        # a file is named so): refused where the program has an option that writes.
        globbed = [f for f in forms if any(c in f for c in "?*[")]
        for form in globbed if spec.writes else ():
            assert not classify_command(f"{spec.name} {form} {operands}").read_only, form
        forms = [f for f in forms if f not in globbed]
        commands = [f"{spec.name} {form} {operands}" for form in forms]
        commands += [f"{spec.name} {form} -- {operands}" for form in forms]
        verdicts = {c: classify_command(c).read_only for c in commands}
        if len(set(verdicts.values())) > 1:
            differ.append(verdicts)
        if option in spec.writes and any(verdicts.values()):
            differ.append({"write option read as a read": verdicts})
    assert not differ, differ


# What each tool's danger check needs after the options to be judged at all.
_TOOL_OPERANDS = {"mv": "/ x", "cp": "x /etc", "install": "x /etc", "ln": "x /etc", "scp": "x h:/",
                  "rsync": "a h:", "chmod": "777 /", "chown": "root /", "chgrp": "root /",
                  "tee": "/etc/passwd"}  # fmt: skip
_TOOL_GRAMMARS = sorted(
    [(n, g) for n, g in TOOLS.items()] + [(f"git {n}", g) for n, g in GIT_SUBCOMMANDS.items()]
)


@pytest.mark.parametrize(("name", "g"), _TOOL_GRAMMARS, ids=[n for n, _ in _TOOL_GRAMMARS])
def test_a_danger_verdict_does_not_depend_on_the_spelling(name: str, g: Grammar) -> None:
    operands = _TOOL_OPERANDS.get(name, "/")
    differ = []
    for _option, forms in _equivalent_spellings(g):
        commands = [f"{name} {form} {operands}" for form in forms]
        if not name.startswith("git "):  # git's -- starts pathspecs: it changes the meaning
            commands += [f"{name} {form} -- {operands}" for form in forms]
        # A spelling tree-sitter-bash cannot read (``curl -0# /``: '#' inside a word) asks as
        # unreadable (DG310) whatever it spells; the others must agree with each other.
        readable = [c for c in commands if parse_command(c).ok]
        for c in set(commands) - set(readable):
            assert classify_command(c).danger >= Danger.ASK, c
        verdicts = {c: classify_command(c).danger for c in readable}
        if len(set(verdicts.values())) > 1:
            differ.append(verdicts)
    assert not differ, differ


# Options that end the option list once they have their value (python's -c CMD and -m MOD):
# checked against the real interpreter, which hands every later word to the module or code.
_ARGV = "'import sys; print(sys.argv[1:])'"
PYTHON_ENDS = [
    ("-m probe --sort-keys", ["--sort-keys"]),
    ("-mprobe -v", ["-v"]),
    ("-B -m probe -h", ["-h"]),
    ("-Bm probe -u x", ["-u", "x"]),
    (f"-c {_ARGV} -m x", ["-m", "x"]),
    (f"-Bc {_ARGV} -I", ["-I"]),
]


@pytest.mark.parametrize(("args", "rest"), PYTHON_ENDS, ids=[a for a, _ in PYTHON_ENDS])
def test_an_option_that_ends_the_list_leaves_the_rest_as_operands(
    args: str, rest: list[str], tmp_path: Path
) -> None:
    import shlex

    parsed = parse(TOOLS["python3"], [Word(w) for w in shlex.split(args)])
    assert [w.value for w in parsed.operands] == rest
    (tmp_path / "probe.py").write_text("import sys; print(sys.argv[1:])\n")
    done = subprocess.run(
        ["bash", "-c", f"{sys.executable} {args}"], cwd=tmp_path, capture_output=True,
        text=True, timeout=20, check=False,
    )  # fmt: skip
    assert done.stdout.strip() == repr(rest), (args, done.stdout, done.stderr)


@pytest.mark.parametrize(
    ("runner", "prefix"),
    [("bwrap", "bwrap --ro-bind / / --bind {d} {d} --chdir /"), ("proot", "proot -r / -w /")],
)
def test_a_sandbox_runner_deletes_on_the_host(runner: str, prefix: str, tmp_path: Path) -> None:
    """The oracle for the runner entries: the real program runs its operands on the host's
    files (the victim is gone), so Tether judges the runner's command as the command typed
    alone, and the same runner onto / is hardline."""
    if shutil.which(runner) is None:
        pytest.fail(f"{runner} is not installed: apt-get install {runner}, in .ci/run too")
    (tmp_path / "victim").mkdir()
    inner = f"rm -rf {tmp_path}/victim"
    command = f"{prefix.format(d=tmp_path)} {inner}"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=30)
    if done.returncode != 0 and "namespace" in done.stderr:
        pytest.skip(f"{runner} cannot run here: {done.stderr.strip()[:120]}")
    assert not (tmp_path / "victim").exists(), done.stderr
    assert classify_command(command).danger is classify_command(inner).danger
    onto_root = f"{prefix.format(d='/srv')} rm -rf /"
    assert classify_command(onto_root).danger is Danger.HARDLINE
