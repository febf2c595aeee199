"""User mode, hardened where it can be: what the hook command runs, the daemon's sockets, and
Tether's own Python API (issue 25).

The places come from the running installation (``tether.rules.protected.install()``): the
interpreter the installed hook command names under each of its names, the venv's
``pyvenv.cfg``, the folder the ``tether`` package is imported from (an editable install's
source), the ``.pth`` files site-packages runs at start. Replacing any of them (``ln -sf
/bin/true …/bin/python3``) turned every later call into an allow. The socket folders are
``$XDG_RUNTIME_DIR/tether`` and ``$XDG_STATE_HOME/tether/run``.

These are rules, so the threat model (docs/trust.md) says plainly what they are: a guard
against careless and common forms in a user install, not a boundary against code running as
the same user; the managed install is that (tests/test_managed.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tether import Guard, ToolCall
from tether.model import Action
from tether.rules.protected import install

ENV = {
    "HOME": "/home/dev",
    "XDG_RUNTIME_DIR": "/run/user/1000",
    "XDG_STATE_HOME": "/home/dev/.local/state",
    "PATH": "/usr/bin:/bin",
}
EXE = sys.executable
FOLDER = os.path.dirname(EXE)
PACKAGE = str(Path(install().trees[0]))
SITE = install().pth_dirs[0] if install().pth_dirs else "/nonexistent"


def _rows() -> list[tuple[str, Any, str]]:
    rows: list[tuple[str, Any, str]] = [
        ("Bash", f"ln -sf /bin/true {EXE}", "DG605"),
        ("Bash", f"ln -sf /bin/true {FOLDER}/python3", "DG605"),
        ("Bash", f"cp /tmp/evil.py {PACKAGE}/daemon/hook.py", "DG605"),
        ("Bash", f"sed -i 's/deny/allow/' {PACKAGE}/hosts/runner.py", "DG605"),
        ("Bash", f"echo 'import evil' > {SITE}/zz_evil.pth", "DG605"),
        ("Write", {"file_path": f"{PACKAGE}/guard.py", "content": "x"}, "DG605"),
        (
            "Bash",
            "python3 -c \"import tether.cli; tether.cli.main(['uninstall', 'claude-code'])\"",
            "DG604",
        ),
        (
            "Bash",
            "python3 -c \"from tether.config.trust import trust; trust('.tether.yaml', {})\"",
            "DG604",
        ),
        (
            "Bash",
            "python3 - <<'EOF'\nfrom tether.cli import main\nmain(['uninstall'])\nEOF",
            "DG604",
        ),
        ("Bash", "rm -rf $XDG_RUNTIME_DIR/tether", "DG605"),
        ("Bash", "rm -rf /run/user/1000/tether", "DG605"),
        ("Bash", "ln -sf /tmp/fake.sock /run/user/1000/tether/d-0123.sock", "DG605"),
        ("Bash", "rm -f ~/.local/state/tether/run/d-0123.sock", "DG605"),
        (
            "Bash",
            'python3 -c "import socket; s = socket.socket(socket.AF_UNIX); '
            "s.bind('/run/user/1000/tether/d-0123.sock'); s.listen()\"",
            "DG605",
        ),
    ]
    if sys.prefix != sys.base_prefix:
        rows.append(("Bash", f"sed -i 's/home/x/' {sys.prefix}/pyvenv.cfg", "DG605"))
    return rows


ALLOWED: list[tuple[str, Any]] = [
    ("Bash", "ln -sf /usr/bin/python3 /home/dev/project/.venv/bin/python3"),
    ("Bash", "rm src/tether/guard.py"),  # relative: as likely another checkout's source
    ("Bash", "python3 -c 'import tethering; print(1)'"),
    ("Bash", "ls /run/user/1000"),
    ("Bash", f"cat {PACKAGE}/guard.py"),
]


@pytest.mark.parametrize(("tool", "args", "code"), _rows(), ids=lambda v: str(v)[:50])
def test_the_hook_commands_own_files_sockets_and_api_ask(tool: str, args: Any, code: str) -> None:
    payload = {"command": args} if isinstance(args, str) else args
    decision = Guard(environ=ENV).before_call(ToolCall("s", tool, payload, "c"))
    assert decision.action is Action.ASK and code in decision.codes, decision


@pytest.mark.parametrize(("tool", "args"), ALLOWED, ids=lambda v: str(v)[:50])
def test_their_neighbours_stay_allowed(tool: str, args: Any) -> None:
    payload = {"command": args} if isinstance(args, str) else args
    decision = Guard(environ=ENV).before_call(ToolCall("s", tool, payload, "c"))
    assert decision.action is Action.ALLOW, decision
