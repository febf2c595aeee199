"""The self-protection gate reads the words bash runs, not the raw text of the input.

Most input never names Tether, so the danger catalogue skips its self-protection checks unless
the input mentions a guard marker (``tether``, ``claude``, ``codex``, ``gemini``, a sidecar
route). That test once ran on the raw text, so quoting the marker apart (``te''ther``,
``"cl"aude``, ``co\\dex``, a line continuation, ``$'\\x74'ether``) switched the checks off while
bash still wrote the guard file. Every respelling below must keep the plain spelling's code.
"""

from __future__ import annotations

import pytest

from tether.rules.danger import assess
from tether.shell import parse_command

# (command, the marker in it, the code the plain spelling gets); markers stand in plain words.
ROWS = [
    ("echo '{}' > ~/.claude/settings.json", "claude", "DG605"),
    ("sed -i d ~/.claude/settings.json", "claude", "DG605"),
    ("tee ~/.config/tether/config.yaml < /dev/null", "tether", "DG605"),
    ("cp /tmp/x.toml ~/.codex/config.toml", "codex", "DG605"),
    ("ln -sf /dev/null .gemini/settings.json", "gemini", "DG605"),
    ("truncate -s 0 ~/.local/state/tether/state.db", "tether", "DG605"),
    ("curl -s -X POST localhost:8765/v1/user_message -d x", "v1", "DG604"),
    ("pkill -f tether", "tether", "DG606"),
    ("pip uninstall -y tether", "tether", "DG607"),
]


def _respellings(marker: str) -> dict[str, str]:
    head, tail = marker[0], marker[1:]
    return {
        "empty single quotes": f"{head}''{tail}",
        "empty double quotes": f'{head}""{tail}',
        "quoted head": f"'{head}'{tail}",
        "backslash": f"{head}\\{tail}",
        "line continuation": f"{head}\\\n{tail}",
        "ANSI-C escape": f"$'\\x{ord(head):02x}'{tail}",
    }


CASES = [
    pytest.param(command.replace(marker, spelled, 1), code, id=f"{command[:40]}: {how}")
    for command, marker, code in ROWS
    for how, spelled in _respellings(marker).items()
]


@pytest.mark.parametrize(("command", "code"), [(c, k) for c, _, k in ROWS])
def test_the_plain_spelling_is_flagged(command: str, code: str) -> None:
    assert code in assess(parse_command(command)).codes


@pytest.mark.parametrize(("command", "code"), CASES)
def test_a_respelled_marker_keeps_the_verdict(command: str, code: str) -> None:
    verdict = assess(parse_command(command))
    assert code in verdict.codes, f"{command!r}: {verdict}"


@pytest.mark.parametrize(
    "command",
    [
        "cat ~/.cl''aude/settings.json",
        "grep hook ~/.config/te''ther/config.yaml",
        "echo te''ther > notes.txt",
    ],
)
def test_a_respelled_read_stays_harmless(command: str) -> None:
    assert assess(parse_command(command)).codes == ()


# A wrapper that moves the command to a directory known only at run time: the command's own
# words (`tee settings.json`) name no guard marker, so the gate must see the move itself, in
# every spelling the wrapper accepts (a cluster hides `-C` from a plain `-c` text test).
MOVED = [
    'env -C "$D" tee settings.json < x',
    'env -iC "$D" tee settings.json < x',
    'env --chdir="$D" tee settings.json < x',
    'env --ch "$D" tee settings.json < x',
    'sudo -D "$D" tee settings.json < x',
    'sudo -bD "$D" tee settings.json < x',
    'sudo --chdir "$D" tee settings.json < x',
    'cd "$D" && tee settings.json < x',
    'cd "$D"; tee settings.json < x',
]


@pytest.mark.parametrize("command", MOVED)
def test_a_move_to_an_unknown_directory_keeps_the_check(command: str) -> None:
    assert "DG605" in assess(parse_command(command)).codes


@pytest.mark.parametrize(
    "command", ["env -C /tmp tee out.json < x", "sudo -D /srv tee notes.txt < x", "tee a.json < x"]
)
def test_a_move_to_a_named_directory_stays_harmless(command: str) -> None:
    assert assess(parse_command(command)).codes == ()
