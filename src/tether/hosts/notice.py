"""Tell the user once per session what an untrusted project file could not apply.

The notice goes in the reply's ``systemMessage``, which Claude Code, Codex and Gemini CLI show
to the user and not the model, next to whatever the reply decides (it never changes the
decision). Only a JSON reply with exit status 0 can carry it; a Codex deny (exit 2, reason on
stderr) cannot, so the notice waits for the next reply. "Once" is a marker file per session
and notice under ``$XDG_STATE_HOME/tether/notices``, created atomically, so concurrent hook
processes of one session show it once between them. ``tether serve``'s hook routes add it
through ``runner.render`` too; the MCP proxy and the integrations, which have no user-facing
reply, say it once on stderr and on the ``tether`` logger (docs/trust.md).
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Mapping

from tether.hosts.events import Reply


def with_notice(reply: Reply, session_id: str, notice: str, environ: Mapping[str, str]) -> Reply:
    """Return ``reply`` carrying ``notice`` for the user, unless this session was told already."""
    if not notice or reply.exit_code != 0:
        return reply
    try:
        obj = json.loads(reply.stdout) if reply.stdout.strip() else {}
    except ValueError:
        return reply
    if not isinstance(obj, dict) or not _first_time(session_id, notice, environ):
        return reply
    shown = obj.get("systemMessage")
    obj["systemMessage"] = f"{notice}\n\n{shown}" if isinstance(shown, str) and shown else notice
    return reply._replace(stdout=json.dumps(obj, ensure_ascii=False) + "\n")


def _first_time(session_id: str, notice: str, environ: Mapping[str, str]) -> bool:
    from tether.config.paths import state_dir

    folder = state_dir(environ) / "notices"
    tag = zlib.crc32("\0".join((session_id, notice)).encode("utf-8", "surrogatepass"))
    name = f"{tag:08x}"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.close(os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return False
    except OSError:
        return True  # no place to remember it: telling the user again beats never telling
    return True


__all__ = ["with_notice"]
