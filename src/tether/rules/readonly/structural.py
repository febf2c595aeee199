"""Rules about the shape of a command line: why it is not read-only, or what kept it so.

``RW`` codes name the reason a command is *not* provably read-only (so a verdict's codes
always say what decided); ``RO0xx`` codes name the redirects, wrappers and environment
prefixes that a read-only command may carry.

A ``Rule``'s ``match``/``not_match`` examples mean "proven read-only by this rule" (the
shared runner in tests/test_rules.py checks them that way), which cannot hold for a reason a
command is *not* read-only. So ``RW`` rules keep their examples in ``REASON_EXAMPLES``:
commands that are not read-only with this code among their codes, and commands whose codes
do not include it. tests/test_readonly_rules.py checks them; ``tether rules`` prints them.
"""

from __future__ import annotations

from tether.rules.base import Rule, Tier

REASON_EXAMPLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _rule(
    code: str,
    name: str,
    summary: str,
    why: str,
    instead: str,
    match: tuple[str, ...],
    not_match: tuple[str, ...] = (),
) -> Rule:
    if code.startswith("RW"):
        REASON_EXAMPLES[code] = (match, not_match)
        return Rule(code, name, Tier.READ, summary, why, instead)
    return Rule(code, name, Tier.READ, summary, why, instead, match, not_match)


RULES: tuple[Rule, ...] = (
    _rule(
        "RO001",
        "harmless-redirect",
        "Redirects that only merge, discard or read streams keep a command read-only.",
        "`2>&1`, `N>/dev/null`, `&>/dev/null`, `<file`, here-strings and heredocs fed to a "
        "reader change no file; any other output target creates or truncates one.",
        "Redirect output to /dev/null or let the tool capture it instead of writing a file.",
        ("gh api repos/o/r/pulls/1/reviews 2>&1", "ls -la /tmp 2>/dev/null", "wc -l < f.txt"),
        ("ls > out.txt", "git diff > patch.txt", "ls 2> error.log"),
    ),
    _rule(
        "RO002",
        "read-only-wrapper",
        "Wrappers that only time, limit or re-prioritise a read keep it read-only.",
        "`time`, `timeout`, `nice`, `ionice`, `stdbuf`, `env` without assignments, `command`, "
        "`watch`, `setsid`, `xargs` (only with a command that stays read-only whatever "
        "operands it is given) and `sh -c`/`bash -c` run exactly the command they wrap.",
        "Nothing to change: the wrapped read is proven read-only.",
        ("timeout 5 cat f", "time ls -la", "find . -name '*.py' | xargs grep -n foo"),
        ("timeout 5 rm f", "find . | xargs rm", "nohup ls"),
    ),
    _rule(
        "RO003",
        "harmless-environment-prefix",
        "A few environment prefixes (`GH_PAGER=cat`, `LC_ALL=C`, `NO_COLOR=1`) keep a read.",
        "These variables only change formatting; other prefixes (`PAGER=x`, `LD_PRELOAD=…`, "
        "`GIT_EXTERNAL_DIFF=…`) make a reader run another program.",
        "Drop the prefix, or use one of the listed formatting variables.",
        ("GH_PAGER=cat gh pr view 1", "LC_ALL=C sort f.txt"),
        ("FOO=bar ls", "PAGER=helper git log", "LD_PRELOAD=/tmp/evil.so ls"),
    ),
    _rule(
        "RW001",
        "parse-error",
        "A command that does not parse cleanly is not read-only.",
        "What a broken command line runs depends on how the shell recovers; nothing can be "
        "proven about it.",
        "Fix the quoting or the operators and send a complete command.",
        ("ls &&", "ls | | wc", "echo 'unbalanced"),
        ("ls && pwd",),
    ),
    _rule(
        "RW002",
        "input-too-large",
        "A command over the size or nesting caps is not read-only.",
        "Analysis is bounded; what exceeds the caps is not analysed, so it is not proven.",
        "Split the work into smaller commands or write the script to a file and review it.",
        ("echo " + "$(" * 1001 + "x" + ")" * 1001,),
        ("echo hi",),
    ),
    _rule(
        "RW003",
        "empty-command",
        "An empty command is not read-only.",
        "There is nothing to prove; an empty string usually means a caller bug.",
        "Send the command you meant to run.",
        ("", "   "),
        ("true",),
    ),
    _rule(
        "RW004",
        "command-substitution",
        "A backtick substitution is not proven read-only; `$(…)` and `<(…)` are proven by "
        "the commands they run.",
        "Inside backticks a backslash-escaped backtick opens a nested substitution, which the "
        "parser reads as a plain character, so the commands it runs are not all known. A "
        "`$(…)` or `<(…)` is read-only when every command in it is, and its output is a word "
        "that expands at run time, judged like `$VAR` (`echo $(git log)` is read-only; "
        "`ls $(rm x)`, `sort -o $(pwd)/out f` and `timeout $(…) ls` are not).",
        "Spell the substitution `$(…)`.",
        ("echo `pwd`", "echo $(pwd) `ls`"),
        ("echo $(pwd)", "diff <(ls a) <(ls b)", "echo '`pwd`'"),
    ),
    _rule(
        "RW005",
        "dynamic-command-name",
        "A command word that expands at run time is not read-only.",
        "`$x -rf /` runs whatever `$x` holds; the program is unknown until it runs.",
        "Spell the command name literally.",
        ('__c=rm; "$__c" protected.dat', "$CMD file", "timeout $T ls", "watch ls $D"),
        ("cat file", 'timeout "$T" ls', "timeout 5 ls $D"),
    ),
    _rule(
        "RW006",
        "path-qualified-executable",
        "An executable named by a path outside the system directories is not read-only.",
        "`./cat` or `/tmp/x/cat` is whatever file sits there, not the system's `cat`.",
        "Call the program by its bare name or from /usr/bin, /bin and the like.",
        ("./cat f", "/tmp/x/cat f", "./tests/runtests.py"),
        ("/bin/cat f", "/usr/bin/ls"),
    ),
    _rule(
        "RW007",
        "unknown-command",
        "A command not in the read-only catalogue is not read-only.",
        "The classifier is an allowlist: it proves reads it knows and assumes everything "
        "else may write.",
        "If the command only reads, propose a catalogue entry with examples.",
        ("touch f", "rm -rf temp", "LS -la", "mkdir x"),
        ("ls -la",),
    ),
    _rule(
        "RW008",
        "write-redirect",
        "A redirect that writes a file makes a command not read-only.",
        "`>`, `>>`, `&>`, `>|` and `<>` create or truncate their target unless it is "
        "/dev/null or an already-open descriptor.",
        "Let the tool capture output, or send it to /dev/null.",
        ("ls > out.txt", "echo x >> log", "ls 2> error.log", "cat f &> all.log"),
        ("ls 2>/dev/null", "ls 2>&1"),
    ),
    _rule(
        "RW009",
        "environment-assignment",
        "An environment assignment makes a command not read-only.",
        "`PAGER=x git log`, `LD_PRELOAD=…`, `PATH=/tmp; ls` and the like change what a "
        "reader runs; only a few formatting variables are known to be harmless.",
        "Drop the assignment or use a listed formatting variable (`LC_ALL=C`, `NO_COLOR=1`).",
        ("FOO=bar ls", "PAGER=helper git log", "(PATH=/tmp; ls)"),
        ("LC_ALL=C ls",),
    ),
    _rule(
        "RW010",
        "privilege-escalation",
        "`sudo`, `doas`, `su` and friends make a command not read-only.",
        "A read-only verdict can auto-approve a call; reading as root (`sudo cat "
        "/etc/shadow`) still deserves a human, and sudo may prompt or change the clock "
        "of its own ticket.",
        "Run the read without privilege escalation, or ask the user.",
        ("sudo cat /etc/shadow", "sudo ls /root"),
        ("cat /etc/hostname",),
    ),
    _rule(
        "RW011",
        "unsafe-wrapper",
        "Wrappers that change the shell or create files make a command not read-only.",
        "`nohup` may create nohup.out, `exec` replaces the shell and can rewire descriptors, "
        "and wrappers not in the catalogue are not proven.",
        "Run the command without the wrapper.",
        ("nohup ls", "exec 3<&0"),
        ("timeout 5 ls",),
    ),
    _rule(
        "RW012",
        "shell-escape-program",
        "Pagers and editors are not read-only: they can spawn a shell or write files.",
        "`less`, `more`, `man`, `vim` and the like take interactive commands (`!sh`, `:w`).",
        "Read with `cat`, `head`, `sed -n`, or `grep` instead.",
        ("less file", "more file", "vim f.py", "man ls"),
        ("cat file",),
    ),
    _rule(
        "RW013",
        "code-interpreter",
        "Interpreters and build tools run arbitrary code and are not read-only.",
        "`python x.py`, `node -e`, `bash script.sh`, `make`, `pytest` run code whose effects "
        "cannot be proven from the command line.",
        "Nothing to change if the run is intended; it needs the usual approval.",
        ("python reproduce_issue.py", "node -e 'x'", "pytest tests", "eval ls"),
        ("python3 --version",),
    ),
    _rule(
        "RW014",
        "invalid-input",
        "Input that is not clean text (a NUL byte, invalid UTF-8, malformed JSON) is not "
        "read-only.",
        "A shell truncates or rejects such input, so what would run is unknown; the CLI "
        "reports the line and gives it this verdict instead of failing.",
        "Send the command as valid UTF-8 text without NUL bytes.",
        ("ls\x00rm -rf /",),
        ("ls",),
    ),
    _rule(
        "RW015",
        "function-call",
        "Calling a function defined in the same command is not read-only.",
        "The name no longer means the catalogue's command, and a function built only of reads "
        "can still recurse without end: `:(){ :|:& };:` is a fork bomb of `:` calls.",
        "Run the commands directly instead of through a function.",
        (":(){ :|:& };:", "ls() { ls; }; ls", "f() { cat x; }; f"),
        ("f() { cat x; }",),
    ),
    _rule(
        "RW020",
        "write-option",
        "An option that writes a file or runs a program makes a command not read-only.",
        "Per command: `find -delete/-exec/-fprint`, `sort -o`, `sed -i`, `rg --pre`, "
        "`tree -o`, `base64 -o`, `gh api -X POST/-f`, `git --output`, `git -c`, …",
        "Drop the option and let the tool capture stdout.",
        ("find . -delete", "sort -o out.txt in.txt", "sed -i 's/a/b/' f", "rg --pre cat x"),
        ("find . -name '*.py'", "sort in.txt"),
    ),
    _rule(
        "RW021",
        "unknown-option",
        "An option the command's grammar does not know is not proven read-only.",
        "For commands with write-capable options only listed options are proven; an "
        "unknown one (or a missing value) could be anything.",
        "Use the documented options, or propose adding this one to the catalogue.",
        ("git --unknown-option status", "sort --bogus in"),
        ("sort -n in",),
    ),
    _rule(
        "RW022",
        "write-operand",
        "An operand that names an output file makes a command not read-only.",
        "`uniq IN OUT`, `xxd IN OUT` and `tee FILE` write their output operand.",
        "Drop the output operand and let the tool capture stdout.",
        ("uniq input output", "tee output", "xxd in.bin out.hex"),
        ("uniq input", "tee /dev/null"),
    ),
    _rule(
        "RW023",
        "write-subcommand",
        "A subcommand (or form of one) that changes state is not read-only.",
        "`git branch NAME` creates, `git config k v` sets, `git stash` stashes, "
        "`gh label create` creates: the same command reads in one form and writes in another.",
        "Use the listing form (`git branch`, `git config --get k`) if you only need to read.",
        ("git branch newbranch", "git config user.name someone", "gh label create bug"),
        ("git branch", "git config --get user.name"),
    ),
    _rule(
        "RW024",
        "unknown-subcommand",
        "A subcommand not in the catalogue is not proven read-only.",
        "Tools like git, gh, pip and cargo mix reads and writes under one name; only listed "
        "read subcommands are proven.",
        "Propose a catalogue entry if the subcommand only reads.",
        ("git frobnicate", "gh copilot suggest x"),
        ("git status",),
    ),
    _rule(
        "RW025",
        "dynamic-argument",
        "An argument that expands at run time is not proven read-only for commands with "
        "write-capable options.",
        "An unquoted glob or `$VAR` can expand to `-delete`, `-i` or a second operand; "
        "only commands none of whose options write may take one.",
        "Quote the argument or spell it out.",
        ('sed "$SCRIPT" file', "uniq *", 'find . "$EXPRESSION"'),
        ("ls *.py",),
    ),
    _rule(
        "RW026",
        "script-can-write",
        "A sed or awk program that writes files or runs commands is not read-only.",
        "sed `w`/`W`/`e`/`r`/`R` commands and `s///w`/`s///e` flags, awk `system()`, "
        "`print > file`, `| cmd`, `getline`, `@include` reach outside stdout.",
        "Keep the program to printing, or write the file in a separate, approved step.",
        ("sed 's/a/b/w out' f", "sed 'e date' f", "awk 'BEGIN{system(\"rm x\")}'"),
        ("sed -n '1,5p' f", "awk '{print $1}' f"),
    ),
    _rule(
        "RW027",
        "arithmetic-operand",
        "A test operand that bash evaluates as an arithmetic expression must be a number.",
        "`[[ X -eq 0 ]]` evaluates the variable X's value as an expression, and so do "
        '`[[ $n -gt 1 ]]` and `-v` on a name with a subscript (`test -v "$NAME"`, '
        "`[[ -v a[i] ]]`); an array subscript in that value runs its `$(…)`, so "
        "`X='a[$(rm -rf ~)]'` set earlier turns the test into a delete.",
        "Compare with literal numbers, `$?`, `$#`, `$$` or `$!`; compare strings with `==`.",
        ("[[ X -eq 0 ]]", "[[ $n -gt 1 ]]", 'test -v "$NAME"', "[[ -v a[i] ]]"),
        ("[[ $? -eq 0 ]]", "[[ 1 -lt 2 ]]", "[[ -v HOME ]]", '[ "$n" -eq 1 ]'),
    ),
    _rule(
        "RW029",
        "working-tree-not-given",
        "Proven read-only but for the working tree, which the review was not given.",
        "`git -C DIR …`, `git --git-dir=DIR …` and `cd DIR && git …` read the repository git "
        "finds from DIR; a checkout can hold a bare repository committed as plain files "
        "(vendor/x/HEAD, config, objects, refs), and git runs the programs its config names "
        "(core.fsmonitor, core.pager, diff.external, textconv). Only a review given the working "
        "tree (the hook's cwd) can check that none is planted there.",
        "Run git in the repository's own directory, or let the host pass its working directory.",
        ("git -C vendor/x status", "cd sub && git log", "cd vendor/x; git diff"),
        ("git status", "git log --oneline", "ls vendor/x"),
    ),
    _rule(
        "RW030",
        "writes-own-cache",
        "Reads the user's files but writes the tool's own cache or log (`effects: [\"cache\"]`).",
        "`pip list` writes ~/.cache/pip/selfcheck weekly, `npm ls` its debug log and "
        "update-check state under ~/.npm, `kubectl get` its discovery cache under ~/.kube/cache, "
        "`apt-cache policy` /var/cache/apt/*.bin when stale. A write is a write (tether verify "
        "counts it), so these are not read-only; the classification says `effects: "
        '["cache"]` when every write of the line is of this kind, so a caller can tell them '
        "from commands that write the user's files.",
        "Allow on `effects` if a refreshed cache is acceptable, or use the tool's read-only "
        "form (`pip --disable-pip-version-check list`).",
        ("pip list", "npm ls", "kubectl get pods", "apt-cache policy bash", "pip list | grep x"),
        ("pip --disable-pip-version-check list", "pip install x", "kubectl delete pod x"),
    ),
)
