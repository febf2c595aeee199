"""A managed install: Tether as the operating system's guard, out of the agent's reach.

In a user install the agent runs as the same user as the guard: it can edit the hook settings,
the config, the state and the code the hook runs, and a rule can only refuse the spellings it
knows. A managed install (``sudo tether install --managed``) puts every one of those where the
kernel refuses the user's writes:

========================  =================================================================
hooks                     each host's managed/system settings (Claude Code
                          ``/etc/claude-code/managed-settings.json`` with
                          ``allowManagedHooksOnly``; Codex ``/etc/codex/requirements.toml``
                          with ``allow_managed_hooks_only``; Gemini CLI
                          ``/etc/gemini-cli/settings.json``), root's, 0644
code and interpreter      a venv under ``/opt/tether`` (root's, closed to others' writes) on a
                          root-owned system interpreter
daemon                    runs as the system user ``tether``; binds ``/run/tether/tether.sock``
                          (folder root's, 0755) as root, then drops to that user
config                    ``/etc/tether/config.yaml`` (root's); project files may only tighten
                          unless the administrator trusts them; users' files and ``TETHER_*``
                          variables are not read
state, trust, cache key   ``/var/lib/tether`` and ``/var/cache/tether`` (the daemon user's, 0700)
========================  =================================================================

The hook (``PYTHON -I -S …/hook.py HOST --managed SOCKET``) asks only a daemon whose uid the
kernel reports as the socket's owner, and blocks the call when there is none; the daemon
answers every local uid and keeps each uid's sessions apart. :data:`RECORD` says what was
installed, for the doctor and ``tether uninstall --managed``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

PREFIX = "/opt/tether"
ETC = "/etc/tether"
CONFIG = f"{ETC}/config.yaml"
RECORD = f"{ETC}/managed.json"
STATE = "/var/lib/tether"
CACHE = "/var/cache/tether"
RUN = "/run/tether"
SOCKET = f"{RUN}/tether.sock"
USER = "tether"
UNIT = "/etc/systemd/system/tether.service"
# Each host's managed (system) settings: a user cannot change them, and they keep Tether's hooks
# running whatever the user's own settings say.
HOST_FILES = {
    "claude-code": "/etc/claude-code/managed-settings.json",
    "codex": "/etc/codex/requirements.toml",
    "gemini": "/etc/gemini-cli/settings.json",
}


def daemon_environ() -> dict[str, str]:
    """Return the environment the managed daemon reads its config and state with."""
    return {
        "HOME": STATE,
        "XDG_STATE_HOME": f"{STATE}/state",
        "XDG_CACHE_HOME": CACHE,
        "XDG_CONFIG_HOME": ETC,
        "TETHER_CONFIG": CONFIG,
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
        "LANG": "C.UTF-8",
    }


@dataclass
class Record:
    """What ``tether install --managed`` installed (``/etc/tether/managed.json``)."""

    prefix: str = PREFIX
    python: str = ""
    user: str = USER
    uid: int = -1
    socket: str = SOCKET
    hook: str = ""  # the hook.py file the host settings name
    hosts: dict[str, str] = field(default_factory=dict)  # host -> its managed settings file
    version: str = ""

    def command(self, host: str) -> str:
        """Return the hook command the hosts' managed settings run for ``host``."""
        import shlex

        python = f"{self.prefix}/venv/bin/python"
        return f"{shlex.quote(python)} -I -S {shlex.quote(self.hook)} {host} --managed " + (
            shlex.quote(self.socket)
        )

    def to_json(self) -> dict[str, Any]:
        """Return the record as JSON-ready data."""
        return asdict(self)


def read_record(root: str = "/") -> Record | None:
    """Return the managed install's record, or None when there is none (a user install)."""
    path = os.path.join(root, RECORD.lstrip("/"))
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(data, Mapping):
        return None
    known = {k: v for k, v in data.items() if k in Record.__dataclass_fields__}
    return Record(**known)


# The same words in the doctor, the README and docs/trust.md.
PROTECTS = {
    "user": (
        "user install: guards against careless and common forms (an agent deleting or "
        "rewriting the hooks, the config or the state by the usual commands and file tools "
        "asks first); not a boundary against code running as you: a process of yours can "
        "still change the hook settings, the code the hook runs and the state"
    ),
    "managed": (
        "managed install: the hooks, the code they run, the config, the trust records and "
        "the state are root's or the daemon's, so a process of yours cannot change them (the "
        "kernel refuses); a process of yours can still send its own sessions false hook events "
        "(see docs/trust.md)"
    ),
}


__all__ = [
    "CACHE",
    "CONFIG",
    "ETC",
    "HOST_FILES",
    "PREFIX",
    "PROTECTS",
    "RECORD",
    "RUN",
    "SOCKET",
    "STATE",
    "UNIT",
    "USER",
    "Record",
    "daemon_environ",
    "read_record",
]
