"""``tar x`` and ``unzip`` against the real tools: a file lands in ``.claude/`` exactly when
Tether flags the command (DG605).

Each command runs with bash in a fresh directory holding two archives of each kind: ``flat``
(``settings.json``, ``a.txt`` at the top) and ``deep`` (``.claude/settings.json``, ``a.txt``),
and an empty ``.claude/`` for ``-C``/``-d`` to land in. What the archive holds is unknown to
Tether, so a ``deep`` archive is only extracted with the members named (a whole one extracted
in place is the one case the check cannot see). GNU tar 1.34, bsdtar 3.6.2 and UnZip 6.00 (Debian
12); CI installs them (``.ci/run``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from tether.rules.danger import assess
from tether.shell import parse_command

# (command, lands in .claude/): what the real tool does, found by running it.
CASES = [
    # GNU tar: old-style first word (its letters take the next words in order), clusters, -C
    # as a chdir read in order, long options and their unique prefixes, --one-top-level.
    ("tar xf flat.tar -C .claude", True),
    ("tar xfC flat.tar .claude", True),
    ("tar xvfC flat.tar .claude a.txt", True),
    ("tar Cxf .claude flat.tar", True),
    ("tar -xf flat.tar -C out", False),
    ("tar -xf flat.tar -Cout", False),
    ("tar -xf flat.tar -C.claude", True),
    ("tar -x -f flat.tar --directory=.claude", True),
    ("tar --extract --file flat.tar --dir .claude", True),
    ("tar --ext -f flat.tar -C .claude", True),
    ("tar --get --file=flat.tar -C .claude", True),
    ("tar -xf flat.tar -C out -C ../.claude", True),
    ("tar -xzf flat.tgz -C .claude", True),
    ("tar xzf flat.tgz -C out", False),
    ("tar -xf flat.tar --one-top-level=.claude", True),
    ("tar -xf flat.tar --one-top=.claude", True),
    ("tar xf deep.tar .claude/settings.json", True),
    ("tar -x .claude/settings.json -f deep.tar", True),
    ("tar xf deep.tar a.txt", False),
    ("tar -tf deep.tar .claude/settings.json", False),
    ("tar tf flat.tar -C .claude", False),
    ("tar -cf new.tar -C .claude .", False),
    # --transform renames members on the way out (GNU tar 1.34).
    ("tar -xf flat.tar --transform 's,^,.claude/,'", True),
    ("tar -xf flat.tar --xform='s,^,.claude/,'", True),
    ("tar -xf flat.tar --transf 's|^|.claude/|'", True),
    ("tar -xf flat.tar --transform 's,^,out/,'", False),
    ("tar -xf flat.tar -C .claude --transform 's,^,x/,'", True),
    ("tar -xf flat.tar -- a.txt", False),
    ("tar -xf deep.tar -- .claude/settings.json", True),
    ("env tar xf flat.tar -C .claude", True),
    ("timeout 20 tar -xf flat.tar -C .claude", True),
    ("env -- tar -xf deep.tar .claude/settings.json", True),
    # libarchive's bsdtar 3.6.2 reads the same forms.
    ("bsdtar xf flat.tar -C .claude", True),
    ("bsdtar -x -f flat.tar --cd .claude", True),
    ("bsdtar -xf flat.tar --directory=out", False),
    ("bsdtar -xf deep.tar .claude/settings.json", True),
    ("bsdtar -tf deep.tar .claude/settings.json", False),
    # UnZip 6.00: options before the archive (clusters, -d attached or not), then members,
    # `-d DIR` and `-x NAME…` (which ends at -d); -l/-t/-p/-v/-z extract nothing.
    ("unzip -q flat.zip -d .claude", True),
    ("unzip -qd .claude flat.zip", True),
    ("unzip -q -d.claude flat.zip", True),
    ("unzip -qd.claude flat.zip", True),
    ("unzip -q flat.zip -d.claude", True),
    ("unzip -q flat.zip -d out", False),
    ("unzip -q -d out -d .claude flat.zip", False),  # refused: one exdir allowed
    ("unzip -q flat.zip -x a.txt -d .claude", True),
    ("unzip -q flat.zip -x settings.json -d .claude", True),
    ("unzip -q -o flat.zip a.txt -d .claude", True),
    ("unzip -l flat.zip -d .claude", False),
    ("unzip -t flat.zip -d .claude", False),
    ("unzip -p flat.zip -d .claude", False),
    ("unzip -qq -P pw flat.zip -d .claude", True),
    ("unzip -q -- flat.zip -d .claude", True),
    ("unzip -q deep.zip .claude/settings.json", True),
    ("unzip -q deep.zip a.txt", False),
    ("unzip -q deep.zip a.txt -x .claude/settings.json", False),
    ("unzip -q deep.zip -x .claude/settings.json", False),
    ("unzip -q -x deep.zip .claude/settings.json", True),  # -x before the archive: no list
    ("env unzip -q flat.zip -d .claude", True),
    ("timeout 20 unzip -qd .claude flat.zip", True),
]


def _archives(root: Path) -> None:
    flat = root / "src-flat"
    deep = root / "src-deep" / ".claude"
    deep.mkdir(parents=True)
    flat.mkdir()
    for d in (flat, deep.parent):
        (d / "a.txt").write_text("a\n")
    (flat / "settings.json").write_text("{}\n")
    (deep / "settings.json").write_text("{}\n")
    kinds = (("flat", flat, ["settings.json", "a.txt"]),
             ("deep", deep.parent, [".claude/settings.json", "a.txt"]))  # fmt: skip
    for name, src, members in kinds:
        subprocess.run(["tar", "-cf", root / f"{name}.tar", "-C", src, *members], check=True)
        subprocess.run(["tar", "-czf", root / f"{name}.tgz", "-C", src, *members], check=True)
        with zipfile.ZipFile(root / f"{name}.zip", "w") as z:
            for m in members:
                z.write(src / m, m)
    shutil.rmtree(flat)
    shutil.rmtree(deep.parent)


def _landed(root: Path) -> bool:
    return any(p.is_file() for p in (root / ".claude").rglob("*"))


@pytest.mark.parametrize(("command", "lands"), CASES, ids=[c for c, _ in CASES])
def test_a_file_lands_in_claude_exactly_when_flagged(
    command: str, lands: bool, tmp_path: Path
) -> None:
    words = command.split()[:3]
    tool = next(t for t in ("tar", "bsdtar", "unzip") if t in words)
    if shutil.which(tool) is None:
        package = {"bsdtar": "libarchive-tools"}.get(tool, tool)
        pytest.fail(f"{tool} is not installed: apt-get install {package} (.ci/run does)")
    _archives(tmp_path)
    (tmp_path / ".claude").mkdir()
    (tmp_path / "out").mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home"), "LC_ALL": "C"}
    done = subprocess.run(
        ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30
    )
    assert _landed(tmp_path) is lands, f"{command!r}: the case table is wrong: {done.stderr}"
    flagged = "DG605" in assess(parse_command(command)).codes
    assert flagged is lands, (
        f"{command!r}: {'a file landed in' if lands else 'nothing landed in'} .claude/, "
        f"but Tether {'did not flag' if lands else 'flagged'} it"
    )
