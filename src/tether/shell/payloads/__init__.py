"""Programs that run a shell command taken from one of their arguments, and what they run.

The one place that knows it: awk's ``system()``, ``print | "cmd"`` and ``"cmd" | getline``;
sed's ``e`` command and ``s///e``; the shell strings perl, ruby, python, node and php code hands
to ``system``/``exec``/backticks/``subprocess``/``child_process``; vim/ex ``-c '!cmd'`` and
``+'!cmd'``; git aliases given as ``-c alias.NAME='!cmd'`` and then invoked (and the
``core.pager``-like keys git runs through a shell); ``find -exec/-execdir/-ok/-okdir``;
``fd -x/-X``; ``docker/podman run``; expect's ``spawn``/``exec``/``system`` and make's
``$(shell …)`` (``_scripts.py``); trap's action, ``mapfile -C`` callbacks and alias values
(``_builtins.py``); pagers, database shells and zip's tester (``less '+!cmd'``,
``man -P``, sqlite3 ``.shell``, psql ``\\!``, mysql ``system``, ``zip -TT``: ``_consoles.py``);
and the runners the parser does not peel (``su -c``, ``chroot``,
``docker exec``, ``kubectl exec``…, grammars in ``tether.shell.programs.RUNNERS``).

``payloads(argv)`` returns each as a ``Payload``: shell text for the caller to parse again
(the danger catalogue does, through ``Scope.reparse``: the same depth and size caps as every
nested payload), the words of a command run without a shell (judged one nesting level down,
under the same caps), or the mark that it is built at run time and cannot be read. Container
paths under a bind mount are given as the host paths they are (``-v /:/host`` makes
``/host/etc`` the host's ``/etc``). Nothing here runs or opens anything.
"""

from __future__ import annotations

from collections.abc import Callable

from tether.shell.model import Word, command_name
from tether.shell.payloads._builtins import BUILTINS, from_builtin
from tether.shell.payloads._consoles import (
    CONSOLES,
    console_payloads,
    from_console,
    from_less,
    from_man,
    from_zip,
)
from tether.shell.payloads._containers import (
    CONTAINERS,
    from_container,
    host_path,
    runner_payload,
)
from tether.shell.payloads._languages import (
    AWKS,
    VIMS,
    awk_payloads,
    code_payloads,
    from_awk,
    from_sed,
    from_vim,
    sed_payloads,
)
from tether.shell.payloads._model import Payload, render
from tether.shell.payloads._scripts import from_expect, from_make, make_payloads, tcl_payloads
from tether.shell.payloads._tools import (
    ENV_COMMANDS,
    env_payloads,
    from_fd,
    from_find,
    from_git,
    from_git_env,
    from_rsync,
    from_screen,
    from_ssh,
    from_tar,
    from_tmux,
)
from tether.shell.programs import RUNNERS

# --- the table ------------------------------------------------------------------------------------

_Extractor = Callable[[str, tuple[Word, ...]], list[Payload]]
_BY_NAME: dict[str, _Extractor] = {
    **dict.fromkeys(AWKS, from_awk),
    "sed": from_sed,
    "gsed": from_sed,
    **dict.fromkeys(VIMS, from_vim),
    "git": from_git,
    "find": from_find,
    "fd": from_fd,
    "fdfind": from_fd,
    **dict.fromkeys(CONTAINERS, from_container),
    "ssh": from_ssh,
    "rsync": from_rsync,
    "tar": from_tar,
    "gtar": from_tar,
    "tmux": from_tmux,
    "screen": from_screen,
    "expect": from_expect,
    "make": from_make,
    "gmake": from_make,
    **dict.fromkeys(BUILTINS, from_builtin),
    "less": from_less,
    "man": from_man,
    "zip": from_zip,
    **dict.fromkeys(CONSOLES, from_console),
}
NAMES = frozenset(_BY_NAME) | frozenset(RUNNERS)


def payloads(argv: tuple[Word, ...], name: str = "") -> list[Payload]:
    """Return the shell commands the program of ``argv`` runs from its arguments.

    ``name`` is the program's name when the caller knows it (lower case, no directory).
    """
    if not argv or not argv[0].literal:
        return []
    name = name or command_name(argv[0].value).rpartition("/")[2].lower()
    out: list[Payload] = []
    extractor = _BY_NAME.get(name)
    if extractor is not None:
        out.extend(extractor(name, argv[1:]))
    if name in RUNNERS:
        found = runner_payload(argv)
        if found is not None:
            out.append(found)
    return out


__all__ = [
    "ENV_COMMANDS",
    "NAMES",
    "Payload",
    "awk_payloads",
    "code_payloads",
    "console_payloads",
    "env_payloads",
    "from_git_env",
    "host_path",
    "make_payloads",
    "payloads",
    "render",
    "runner_payload",
    "sed_payloads",
    "tcl_payloads",
]
