"""The cheap text tests in front of the interpreter-code patterns change no verdict.

A regex that starts with an alternation is tried at every position of a program text, so the
interpreter scanner (``rules.danger.interp``) and the shell-string reader
(``shell.payloads.code_payloads``) first ask whether the words a pattern needs are in the code
at all (``_NEEDS``). These tests switch the prefilters off (every needle becomes "", which every
text contains) and require the same findings on every spelling the patterns know and on the
real corpus's interpreter code: a needle table that misses a pattern's alternative fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.rules.danger import assess, interp
from tether.shell import parse_command
from tether.shell.payloads import _languages, code_payloads

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real" / "commands.jsonl"

# One program text per alternative of the patterns (tether.shell.payloads._languages._code and
# tether.rules.danger.interp._patterns).
SNIPPETS = [
    'os.system("rm -rf /")',
    'os.popen("rm -rf /")',
    'os.execl("/bin/sh", "sh")',
    'subprocess.run("rm -rf /", shell=True)',
    'commands.getoutput("rm -rf /")',
    'check_output("rm -rf /", shell=True)',
    'check_call("rm -rf /", shell=True)',
    'execSync("rm -rf /")',
    'exec("rm -rf /")',
    'execFileSync("rm", ["-rf", "/"])',
    'spawnSync("sh", ["-c", "rm -rf /"])',
    'spawn("sh", ["-c", "rm -rf /"])',
    'shell_exec("rm -rf /");',
    'passthru("rm -rf /");',
    'popen("rm -rf /", "r")',
    'IO.popen("rm -rf /")',
    'Open3.capture2("rm -rf /")',
    'system("rm -rf /")',
    'readpipe("rm -rf /")',
    'system "rm -rf /"',
    "exec 'rm -rf /'",
    "system q{rm -rf /}",
    "exec qq(rm -rf /)",
    'subprocess.run(["rm", "-rf", "/"])',
    'execFile("rm", ["-rf", "/"])',
    'open(FH, "rm -rf / |")',
    'open(my $fh, "-|", "rm -rf /")',
    "`rm -rf /`",
    "qx{rm -rf /}",
    "%x(rm -rf /)",
    "shutil.rmtree('/')",
    "FileUtils.rm_rf('/')",
    "fs.rmSync('/', {recursive: true})",
    "fs.rmdirSync('/')",
    "rmSync('/', {recursive: true})",
    "rmdirSync('/')",
    "fs.promises.rm('/')",
    "rimraf.sync('/')",
    "remove_tree('/')",
    "remove_dir('/')",
    "del_tree('/')",
    "os.remove('/etc/passwd')",
    "os.unlink('/etc/passwd')",
    "os.rmdir('/etc')",
    "os.removedirs('/etc')",
    "fs.unlinkSync('/etc/passwd')",
    "File.delete('/etc/passwd')",
    "unlink '/etc/passwd'",
    "Path('/etc/passwd').unlink()",
    "import socket,pty; s=socket.socket(); pty.spawn('/bin/sh')",
    "TCPSocket.new('h', 1); exec('/bin/sh')",
    "exec(base64.b64decode('cm0gLXJmIC8='))",
    "eval(atob('cm0gLXJmIC8='))",
]


def _corpus_code() -> list[str]:
    if not CORPUS.is_file():
        pytest.fail(f"corpus missing: expected {CORPUS} (../shared/corpus beside the repo)")
    found = []
    with CORPUS.open(encoding="utf-8") as fh:
        for line in fh:
            command = json.loads(line)["command"]
            if any(k in command for k in ("python", "node", "perl", "ruby", "php")):
                found.append(command)
    return list(dict.fromkeys(found))


def _without_prefilters(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (_languages, interp):
        monkeypatch.setattr(module, "_NEEDS", {k: ("",) for k in module._NEEDS})


def test_the_shell_strings_read_from_code_are_the_same_without_prefilters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = [*SNIPPETS, *_corpus_code()]
    gated = [code_payloads(t, "code") for t in texts]
    assert sum(1 for g in gated[: len(SNIPPETS)] if g) >= 25  # the snippets do hand out commands
    _without_prefilters(monkeypatch)
    assert [code_payloads(t, "code") for t in texts] == gated


def test_the_interpreter_verdicts_are_the_same_without_prefilters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    commands = [f"python3 -c {json.dumps(s)}" for s in SNIPPETS] + _corpus_code()
    models = [parse_command(c) for c in commands]
    gated = [assess(m) for m in models]
    assert sum(1 for v in gated[: len(SNIPPETS)] if v.codes) >= 40
    _without_prefilters(monkeypatch)
    assert [assess(m) for m in models] == gated
