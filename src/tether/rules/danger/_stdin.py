"""What a command reads on standard input, where the input itself shows it.

``nft -f -``, ``chpasswd`` and ``git update-ref --stdin`` act on their input: a here-document,
a here-string, or the literal words of an ``echo``/``printf`` piped into them. Anything else
(a file, a program's output) is not known and yields nothing.
"""

from __future__ import annotations

from tether.rules.danger._base import Scope, name_of
from tether.shell.model import SimpleCommand


def stdin_texts(cmd: SimpleCommand, scope: Scope) -> list[str]:
    """Return the texts ``cmd`` reads on stdin that the command line spells out."""
    texts = [r.body for r in cmd.redirects if r.op.startswith("<<") and r.body]
    texts += [r.target.value for r in cmd.redirects if r.op == "<<<" and r.target is not None]
    for up in scope.upstream(cmd)[:1]:
        if name_of(up) in ("echo", "printf"):
            # printf's and echo -e's ``\n`` separate lines as well.
            texts += [w.value.replace("\\n", "\n") for w in up.args if w.literal]
    return texts
