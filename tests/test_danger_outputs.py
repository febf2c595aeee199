"""Every tool's output-file options and operands are judged where the bytes land (issue 13).

The table is ``tether.shell.tools.OUTPUTS``. Each entry is checked three ways: its options are
value-taking options of the tool's own grammar (a typo would silently judge nothing); each
option and operand pointed at a disk is hardline like ``> /dev/sda``, at a system file asks
like ``> /etc/hosts``, at a workspace file passes; and for the tools installed here the real
program is run with the target in a temporary directory, to show it writes exactly there.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tether.rules.base import Danger
from tether.rules.danger import assess
from tether.shell import parse_command
from tether.shell.options import FLAG
from tether.shell.tools import OUTPUTS, SINGLE_DASH, tool_grammar


def _forms(target: str) -> list[tuple[str, str]]:
    """(tool, command) writing onto ``target`` through each option and operand of the table."""
    out = []
    for name, spec in OUTPUTS.items():
        need = " ".join(spec.only_with[:1])
        for option in spec.options:
            out.append((name, f"{name} {need} {option} {target} in".replace("  ", " ")))
        if spec.operands == "all":
            out.append((name, f"{name} {need} {target}".replace("  ", " ")))
        elif spec.operands in ("second", "last"):
            out.append((name, f"{name} {need} in {target}".replace("  ", " ")))
    return out


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_output_options_are_value_options_of_the_tools_grammar(name: str) -> None:
    g = SINGLE_DASH.get(name) or tool_grammar(name)  # openssl's -out is a single-dash name
    for option in (*OUTPUTS[name].options, *OUTPUTS[name].only_with):
        assert g.knows(option), f"OUTPUTS[{name!r}]: {option} is not an option of {g.name}"
    into = (OUTPUTS[name].into,) if OUTPUTS[name].into else ()
    for option in (*OUTPUTS[name].options, *into):
        assert g.knows(option), f"OUTPUTS[{name!r}]: {option} is not an option of {g.name}"
        assert g.arity[option] != FLAG, f"OUTPUTS[{name!r}]: {option} takes no value"


@pytest.mark.parametrize(("name", "command"), _forms("/dev/sda"))
def test_writing_onto_a_disk_is_hardline(name: str, command: str) -> None:
    v = assess(parse_command(command))
    assert v.level is Danger.HARDLINE and "DG401" in v.codes, f"{command!r}: {v.codes}"


@pytest.mark.parametrize(("name", "command"), _forms("/etc/hosts"))
def test_writing_a_system_file_asks(name: str, command: str) -> None:
    v = assess(parse_command(command))
    assert v.level is Danger.ASK and "DG409" in v.codes, f"{command!r}: {v.codes}"


@pytest.mark.parametrize(("name", "command"), _forms("out.txt"))
def test_writing_a_workspace_file_passes(name: str, command: str) -> None:
    v = assess(parse_command(command))
    assert v.level is Danger.NONE, f"{command!r}: {v.codes} {v.reason}"


# The real programs, run in a temporary directory: OUT is where the table says they write.
REAL = [
    ("sort", "sort -o OUT in"),
    ("sort", "sort in --output=OUT"),
    ("uniq", "uniq in OUT"),
    ("shuf", "shuf -o OUT in"),
    ("iconv", "iconv -f utf-8 -t ascii -o OUT in"),
    ("tee", "tee -a OUT < in"),
    ("cp", "cp in OUT"),
    ("install", "install -m 644 in OUT"),
    ("tar", "tar -cf OUT in"),
    ("tar", "tar --create --file=OUT in"),
    ("zstd", "zstd -q in -o OUT"),
    ("curl", "curl -s file://$PWD/in -o OUT"),
    ("curl", "curl -s file://$PWD/in -o /dev/null --trace OUT"),
    ("curl", "curl -s --stderr OUT file:///nonexistent"),
    ("wget", "wget -o OUT http://127.0.0.1:9/"),
    ("xxd", "xxd in OUT"),
    ("xxd", "xxd -r -p in OUT"),
    ("xxd", "xxd -revert -ps in OUT"),
    ("openssl", "openssl enc -base64 -in in -out OUT"),
    ("openssl", "openssl base64 -out OUT -in in"),
    ("openssl", "openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=x -keyout OUT -out c.pem"),
    ("gpg", "gpg --batch --homedir . --enarmor -o OUT in"),
    ("gpg", "gpg --batch --homedir . --enarmor --outp OUT in"),  # a unique prefix
    ("gpg", "gpg --batch --homedir . --output=OUT --enarmor in"),
    ("qemu-img", "qemu-img convert -f raw -O raw in OUT"),
]


# Debian's package of each tool whose name is not its package's.
_PACKAGES = {
    **dict.fromkeys(("sort", "uniq", "shuf", "tee", "cp", "install"), "coreutils"),
    "iconv": "libc-bin",
    "gpg": "gnupg",
    "qemu-img": "qemu-utils",
}


@pytest.mark.parametrize(("name", "command"), REAL, ids=[c for _, c in REAL])
def test_the_real_tool_writes_where_the_table_says(name: str, command: str, tmp_path: Path) -> None:
    if shutil.which(name) is None:
        package = _PACKAGES.get(name, name)
        pytest.fail(f"{name} is not installed: apt-get install {package} (.ci/run does)")
    (tmp_path / "in").write_text("b\na\na\n")
    subprocess.run(
        ["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=20, check=False
    )
    assert (tmp_path / "OUT").exists(), f"{command!r} did not write OUT"
    judged = command.replace("OUT", "/dev/sda")
    v = assess(parse_command(judged))
    assert "DG401" in v.codes, f"{judged!r} writes the disk but is judged {v.codes}"
