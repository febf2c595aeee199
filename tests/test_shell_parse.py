"""The parser's contract as a table: input -> the commands that run, their words, their context."""

from __future__ import annotations

import pytest

from tether.shell import MAX_INPUT_CHARS, CommandModel, parse_command
from tether.shell.parse import MAX_NESTING


def argvs(model: CommandModel, *, evaluated: bool = False) -> list[list[str]]:
    """Render each command's argv as written (or, with ``evaluated``, the evaluator's reading
    the parser adds beside them), dynamic words prefixed with '~'."""
    return [
        [w.value if w.literal else "~" + w.value for w in c.argv]
        for c in model.commands
        if c.evaluated is evaluated
    ]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("ls -la", [["ls", "-la"]]),
        # quote removal: every spelling of rm is rm
        ("\\rm -rf /", [["rm", "-rf", "/"]]),
        ("r''m -rf /", [["rm", "-rf", "/"]]),
        ('"rm" -rf "/"', [["rm", "-rf", "/"]]),
        ("$'\\x72m' -rf /", [["rm", "-rf", "/"]]),
        ("rm -rf \\\n /tmp/a", [["rm", "-rf", "/tmp/a"]]),
        ('echo "a \\"b\\" \\$c"', [["echo", 'a "b" $c']]),
        # lists, pipelines, subshells, groups, control structures, functions
        ("a && b || c; d & e", [["a"], ["b"], ["c"], ["d"], ["e"]]),
        ("a | b |& c", [["a"], ["b"], ["c"]]),
        ("(cd x && make) ; { ls; }", [["cd", "x"], ["make"], ["ls"]]),
        (
            "if true; then ls; elif false; then pwd; else id; fi",
            [["true"], ["ls"], ["false"], ["pwd"], ["id"]],
        ),
        ("for f in a b; do cat $f; done", [["cat", "~$f"]]),
        ("while read l; do echo $l; done < in", [["read", "l"], ["echo", "~$l"]]),
        ("case $x in a) ls;; *) rm y;; esac", [["ls"], ["rm", "y"]]),
        ("f() { rm -rf /; }", [["rm", "-rf", "/"]]),
        ("! grep -q x f", [["grep", "-q", "x", "f"]]),
        # substitutions are walked too
        ("echo $(rm -rf /)", [["echo", "~$(rm -rf /)"], ["rm", "-rf", "/"]]),
        ("echo `id`", [["echo", "~`id`"], ["id"]]),
        (
            "diff <(sort a) <(sort b)",
            [["diff", "~<(sort a)", "~<(sort b)"], ["sort", "a"], ["sort", "b"]],
        ),
        ("echo ${v:-$(whoami)}", [["echo", "~${v:-$(whoami)}"], ["whoami"]]),
        ("x=$(date)", [[], ["date"]]),
        # dynamic command words stay dynamic
        ("x=rm; $x -rf /", [[], ["~$x", "-rf", "/"]]),
        # bash's own parse: words after a redirect target are arguments
        ("echo a > f b", [["echo", "a", "b"]]),
        # declarations and tests
        ("export A=1 B", [["export", "A=1", "B"]]),
        ("[[ -f x ]] && [ -d y ]", [["[["], ["["]]),
    ],
)
def test_commands(source: str, expected: list[list[str]]) -> None:
    model = parse_command(source)
    assert model.ok, model.errors
    assert argvs(model) == expected


@pytest.mark.parametrize(
    ("source", "reading"),
    [
        ("for f in a b; do cat $f; done", [["cat", "a"], ["cat", "b"]]),
        ("x=rm; $x -rf /", [["rm", "-rf", "/"]]),
        ("ls -la", []),  # nothing to evaluate: no reading
    ],
)
def test_the_evaluated_reading_is_added_beside_the_commands(
    source: str, reading: list[list[str]]
) -> None:
    assert argvs(parse_command(source), evaluated=True) == reading


@pytest.mark.parametrize(
    ("source", "argv", "wrappers", "depth"),
    [
        ("sudo rm -rf /", ["rm", "-rf", "/"], ["sudo"], 0),
        ("sudo -u bob -- env FOO=1 rm x", ["rm", "x"], ["sudo", "env"], 0),
        ("sudo env rm -rf /", ["rm", "-rf", "/"], ["sudo", "env"], 0),
        ("command rm -rf /", ["rm", "-rf", "/"], ["command"], 0),
        ("exec -a name ls", ["ls"], ["exec"], 0),
        ("nice -n 10 make", ["make"], ["nice"], 0),
        ("nohup ./run.sh", ["./run.sh"], ["nohup"], 0),
        ("time -p ls", ["ls"], ["time"], 0),
        ("timeout -s KILL 5 reboot", ["reboot"], ["timeout"], 0),
        ("timeout 5 reboot", ["reboot"], ["timeout"], 0),
        ("stdbuf -oL tail -f log", ["tail", "-f", "log"], ["stdbuf"], 0),
        ("setsid -f sleep 1", ["sleep", "1"], ["setsid"], 0),
        ("ionice -c 3 du -sh .", ["du", "-sh", "."], ["ionice"], 0),
        ("xargs -0 -n 1 grep foo", ["grep", "foo", "~<xargs input>"], ["xargs"], 0),
        ("xargs -I{} rm {}", ["rm", "~{}"], ["xargs"], 0),
        ("xargs", ["echo", "~<xargs input>"], ["xargs"], 0),
        ("watch -n 1 'ls -l'", ["ls", "-l"], ["watch"], 1),
        ("bash -c 'rm -rf /'", ["rm", "-rf", "/"], ["bash"], 1),
        ("sh -lc \"bash -c 'rm -rf /'\"", ["rm", "-rf", "/"], ["sh", "bash"], 2),
        ("/bin/bash -e -o pipefail -c 'ls'", ["ls"], ["bash"], 1),
        ("bash <<'EOF'\nrm -rf /\nEOF", ["rm", "-rf", "/"], ["bash"], 1),
        ("sh <<< 'reboot'", ["reboot"], ["sh"], 1),
    ],
)
def test_wrappers_are_unwrapped(
    source: str, argv: list[str], wrappers: list[str], depth: int
) -> None:
    model = parse_command(source)
    assert model.ok, model.errors
    cmd = model.commands[-1] if depth == 0 else model.commands[0]
    assert argvs(CommandModel(source, (cmd,)))[0] == argv
    assert [w.name for w in cmd.wrappers] == wrappers
    assert cmd.shell_depth == depth


@pytest.mark.parametrize(
    "source",
    ["command -v git", "sudo -l", "env", "timeout 5", "bash script.sh", 'bash -c "$CMD"'],
)
def test_not_wrappers(source: str) -> None:
    """A wrapper with nothing to wrap, or a shell running a file or a dynamic string, stays put."""
    model = parse_command(source)
    assert len(model.commands) == 1
    assert model.commands[0].wrappers == ()


def test_system_paths_resolve_but_others_do_not() -> None:
    names = [
        c.name
        for c in parse_command("/bin/rm a; /usr/bin/git b; ./cat c; /tmp/x/cat d; $x").commands
    ]
    assert names == ["rm", "git", "./cat", "/tmp/x/cat", ""]


def test_redirects() -> None:
    # (`<<<` after `>|` trips the grammar, so the here-string comes first)
    model = parse_command("cmd <<< word 2>&1 >/dev/null &>>log <in 3>&- >| f")
    ops = [(r.op, r.fd, r.target.value if r.target else None) for r in model.commands[0].redirects]
    assert ops == [
        ("<<<", None, "word"),
        (">&", 2, "1"),
        (">", None, "/dev/null"),
        ("&>>", None, "log"),
        ("<", None, "in"),
        (">&-", 3, None),
        (">|", None, "f"),
    ]


def test_redirect_on_compound_applies_inside() -> None:
    model = parse_command("{ echo a; echo b; } > out.txt")
    assert [[r.target.value for r in c.redirects if r.target] for c in model.commands] == [
        ["out.txt"],
        ["out.txt"],
    ]


def test_heredoc_body_is_data() -> None:
    model = parse_command("cat > f.py <<'PY'\nimport os\nos.system('rm -rf /')\nPY\n")
    assert argvs(model) == [["cat"]]
    heredoc = next(r for r in model.commands[0].redirects if r.op == "<<")
    assert heredoc.body is not None and "os.system" in heredoc.body
    assert heredoc.target is not None and heredoc.target.value == "PY"


def test_unquoted_heredoc_substitutions_run() -> None:
    model = parse_command("cat <<EOF\n$(rm -rf /)\nEOF\n")
    assert ["rm", "-rf", "/"] in argvs(model)


@pytest.mark.parametrize(
    ("source", "runs"),
    [
        ("cat <<EOF\n`rm -rf /`\nEOF\n", ["rm", "-rf", "/"]),
        ("cat <<-EOF\n\tx `touch 'a b'` y\n\tEOF\n", ["touch", "a b"]),
        ("cat <<EOF\n'`rm f`'\nEOF\n", ["rm", "f"]),  # quotes are text in a heredoc body
        ("cat <<EOF\n`echo \\`rm f\\``\nEOF\n", ["rm", "f"]),  # nested: \` inside `…`
    ],
)
def test_unquoted_heredoc_backticks_run(source: str, runs: list[str]) -> None:
    """tree-sitter-bash leaves a heredoc body's backticks as text; bash runs them."""
    model = parse_command(source)
    assert runs in argvs(model)
    assert model.substitutions >= 1
    assert all(c.in_substitution for c in model.commands if c.name != "cat")


@pytest.mark.parametrize(
    "source",
    ["cat <<'EOF'\n`rm f`\nEOF\n", 'cat <<"EOF"\n`rm f`\nEOF\n', "cat <<\\EOF\n`rm f`\nEOF\n",
     "cat <<EOF\n\\`rm f\\`\nEOF\n"],
)  # fmt: skip
def test_quoted_heredoc_and_escaped_backticks_stay_data(source: str) -> None:
    model = parse_command(source)
    assert ["rm", "f"] not in argvs(model)
    assert model.substitutions == 0


def test_unterminated_heredoc_backtick_is_not_analysed() -> None:
    assert parse_command("cat <<EOF\n`rm f\nEOF\n").unprovable


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("a | b | c f\nd < f", [["a"], ["b"], ["c", "f"], ["d"]]),
        ("a | b | c\nd > f", [["a"], ["b"], ["c"], ["d"]]),
        ("a | b | c | e f # note\nd x < f", [["a"], ["b"], ["c"], ["e", "f"], ["d", "x"]]),
    ],
)
def test_a_newline_ends_the_last_leg_of_a_long_pipeline(
    source: str, expected: list[list[str]]
) -> None:
    """tree-sitter-bash joins `a | b | c f`, a newline and `d < f` into one command `c f d`."""
    model = parse_command(source)
    assert argvs(model) == expected
    *legs, last = model.commands
    assert [c.redirects for c in legs] == [()] * len(legs)  # the redirect is the next line's
    assert [r.op for r in last.redirects] == [source.split()[-2]]
    assert last.pipeline == -1
    assert [len(model.stages(i)) for i in range(len(model.pipelines))] == [len(legs)]


@pytest.mark.parametrize(
    "source",
    ["ls | sort | head\nrm -rf / < /dev/null", "cat f | grep x | wc -l\nrm -rf / > /dev/null"],
)
def test_a_command_after_a_long_pipeline_is_judged_as_itself(source: str) -> None:
    """The merge hid `rm -rf /` as operands of `head`: read-only and danger none before."""
    from tether.classify import classify_command
    from tether.rules.base import Danger

    verdict = classify_command(source)
    assert not verdict.read_only
    assert verdict.danger is Danger.HARDLINE


@pytest.mark.parametrize(
    ("source", "value"),
    [('c "x\ny"', "x\ny"), ('c "x\n\n  y\nz"', "x\n\n  y\nz"), ('c "a $b\nc"', "a $b\nc")],
)
def test_a_newline_inside_double_quotes_is_kept(source: str, value: str) -> None:
    """tree-sitter-bash leaves the newline of a double-quoted string in no node."""
    assert parse_command(source).commands[0].argv[1].value == value


@pytest.mark.parametrize("source", ['bash -c "echo hi\nrm -rf /"', 'sh -c "ls\n\nrm -rf /"'])
def test_a_quoted_newline_in_a_shell_payload_ends_a_command(source: str) -> None:
    """Dropped, it joined `echo hi` and `rm -rf /` into `echo hirm -rf /`: read-only, no danger."""
    from tether.classify import classify_command
    from tether.rules.base import Danger

    assert ["rm", "-rf", "/"] in argvs(parse_command(source))
    verdict = classify_command(source)
    assert not verdict.read_only
    assert verdict.danger is Danger.HARDLINE


@pytest.mark.parametrize(
    ("source", "argv"),
    [
        ("sort '-'\\o out f", ["sort", "-o", "out", "f"]),  # bash: sort -o out f (writes out)
        ("'r'\\m -rf /", ["rm", "-rf", "/"]),
        ("b == -x", ["b", "==", "-x"]),  # an operator token in argument position is a word
    ],
)
def test_adjacent_nodes_are_one_word_as_bash_reads_them(source: str, argv: list[str]) -> None:
    """tree-sitter-bash splits `'-'\\o` into two nodes with no gap; bash reads one word."""
    assert argvs(parse_command(source))[0] == argv


@pytest.mark.parametrize("source", ["echo \\ b", "printf x \\\t#-", "xxd f.bin \\ "])
def test_text_the_parser_drops_is_an_error(source: str) -> None:
    """An escaped blank tree-sitter-bash leaves in no node is part of a word for bash."""
    assert parse_command(source).errors


def test_a_node_that_is_no_word_part_is_not_joined() -> None:
    """`a.b('c')` is a syntax error for bash; tree-sitter reads a subshell, kept apart."""
    assert len(argvs(parse_command("gateway.customer.delete('c')"))[0]) == 2


def test_split_words_no_longer_hide_a_write_or_rm() -> None:
    from tether.classify import classify_command
    from tether.rules.base import Danger

    assert not classify_command("sort '-'\\o out f").read_only
    assert classify_command("'r'\\m -rf /").danger is Danger.HARDLINE


def test_heredoc_followed_by_pipeline_and_list() -> None:
    model = parse_command("cat <<EOF | sh && rm -rf /tmp/y\nreboot\nEOF\n")
    assert argvs(model) == [["cat"], ["sh"], ["rm", "-rf", "/tmp/y"]]
    assert [len(model.stages(i)) for i in range(len(model.pipelines))] == [2]
    assert model.commands[2].pipeline == -1


def test_heredoc_then_semicolon_is_recovered() -> None:
    """tree-sitter-bash mis-parses `cat <<'EOF'; cmd`; the command after `;` is still seen."""
    model = parse_command("cat <<'EOF'; rm -rf /\nbody\nEOF\n")
    assert ["rm", "-rf", "/"] in argvs(model)
    assert not model.ok


def test_context_flags() -> None:
    model = parse_command("sleep 1 & f() { ls; }; echo $(id)")
    flags = {
        c.argv[0].value: (c.background, c.in_function, c.in_substitution) for c in model.commands
    }
    assert flags == {
        "sleep": (True, False, False),
        "ls": (False, True, False),
        "echo": (False, False, False),
        "id": (False, False, True),
    }
    assert model.functions == ("f",)
    assert model.substitutions == 1


def test_pipelines_and_stages() -> None:
    model = parse_command("curl -s x | base64 -d | bash; ls")
    assert len(model.pipelines) == 1
    assert [[c.name for c in stage] for stage in model.stages(0)] == [
        ["curl"],
        ["base64"],
        ["bash"],
    ]


@pytest.mark.parametrize(
    "source",
    ["echo 'unclosed", 'echo "unclosed $(', "ls )", "if then fi", "a &&", "ls\x00 -la"],
)
def test_parse_errors_are_reported(source: str) -> None:
    model = parse_command(source)
    assert not model.ok
    assert model.errors


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("echo " + "a" * (MAX_INPUT_CHARS + 1), "cap"),
        ("echo " + "$(" * (MAX_NESTING + 1) + ")" * (MAX_NESTING + 1), "nested"),
        ("bash -c " + "\"bash -c '" * 3 + "ls" + "'\"" * 3, None),
    ],
)
def test_caps_give_reasons_not_exceptions(source: str, reason: str | None) -> None:
    model = parse_command(source)
    if reason is None:
        assert model.commands
    else:
        assert model.unprovable is not None and reason in model.unprovable


def test_shell_payload_depth_is_bounded() -> None:
    source = "ls"
    for _ in range(8):
        source = "bash -c " + _quote(source)
    model = parse_command(source)
    assert model.unprovable is not None and "payloads nested" in model.unprovable


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@pytest.mark.parametrize(
    "source",
    [
        "",
        "   ",
        "\n\n",
        "# just a comment",
        bytes(range(256)).decode("latin-1"),
        "\udcff\udc80 surrogates",
        "$(" * 900 + ")" * 900,
        " | ".join(["cat"] * 2000),
        "echo " + "x" * 100_000,
    ],
)
def test_never_raises(source: str) -> None:
    model = parse_command(source)
    assert isinstance(model, CommandModel)


def test_hundred_thousand_deep_nesting_is_refused_without_error() -> None:
    model = parse_command("echo " + "$(" * 100_000 + ")" * 100_000)
    assert model.unprovable is not None


@pytest.mark.parametrize(
    ("source", "targets"),
    [
        # bash gives a redirect to the last simple command, though tree-sitter wraps the list
        ("a && b > f", [[], ["f"]]),
        ("a | b > f; c", [[], ["f"], []]),
        ("a || b | c > f", [[], [], ["f"]]),
        # a compound command's redirect applies to everything inside it
        ("{ a; b; } > f", [["f"], ["f"]]),
        ("(a; b) > f", [["f"], ["f"]]),
        ("while read x; do echo $x; done > f", [["f"], ["f"]]),
    ],
)
def test_redirect_belongs_to_the_right_command(source: str, targets: list[list[str]]) -> None:
    model = parse_command(source)
    got = [[r.target.value for r in c.redirects if r.target] for c in model.commands]
    assert got == targets


@pytest.mark.parametrize(
    ("source", "words"),
    [
        # (value, literal, glob) for each argument
        ("sort {-o,output} in", [("{-o,output}", False, False), ("in", True, False)]),
        ("echo {1..3}", [("{1..3}", False, False)]),
        ("echo '{a,b}' {a}", [("{a,b}", True, False), ("{a}", True, False)]),
        ("ls *.py a?c [ab]x", [("*.py", True, True), ("a?c", True, True), ("[ab]x", True, True)]),
        ("rm -rf /*", [("-rf", True, False), ("/*", True, True)]),
        ("echo \\* '*' \"?\"", [("*", True, False), ("*", True, False), ("?", True, False)]),
    ],
)
def test_brace_expansion_is_dynamic_and_globs_are_marked(
    source: str, words: list[tuple[str, bool, bool]]
) -> None:
    cmd = parse_command(source).commands[0]
    assert [(w.value, w.literal, w.glob) for w in cmd.args] == words


def test_backslash_newline_joins_words_as_bash_does() -> None:
    assert argvs(parse_command("c\\\nat x")) == [["cat", "x"]]
    # an escaped backslash before the newline is not a continuation
    assert argvs(parse_command("echo a\\\\\nls")) == [["echo", "a\\"], ["ls"]]


def test_shell_options_are_kept_on_the_wrapper() -> None:
    cmd = parse_command("bash -i -O extglob -c 'ls'").commands[0]
    assert [(w.name, [a.value for a in w.args]) for w in cmd.wrappers] == [
        ("bash", ["-i", "-O", "extglob", "-c"])
    ]


def test_lone_dash_before_heredoc_is_kept() -> None:
    """tree-sitter-bash drops the `-` in `python3 - <<EOF`; the parser puts it back."""
    assert argvs(parse_command("python3 - <<'EOF'\nimport os\nEOF\n")) == [["python3", "-"]]
