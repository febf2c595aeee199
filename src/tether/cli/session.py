"""``tether session list|show|reset``: what the store remembers about each agent session."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from tether.errors import InputError, StoreError
from tether.store import SessionInfo, State, Store

# Keys every guard state has; ``show`` prints them first, everything else compactly after.
_KNOWN = ("calls", "warnings", "blocks", "streaks", "updated", "halted")
_WIDTH = 96


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add the ``list``, ``show`` and ``reset`` actions and the config options."""
    from tether.cli._common import add_config_arguments

    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    listing = actions.add_parser("list", help="list recorded sessions, most recent first")
    listing.add_argument("--json", action="store_true", help="print JSON for scripts")
    show = actions.add_parser("show", help="show what Tether knows about one session")
    show.add_argument("session_id", metavar="ID", help="session id (a unique prefix will do)")
    show.add_argument("--json", action="store_true", help="print JSON for scripts")
    reset = actions.add_parser("reset", help="forget a session's history (counts and streaks)")
    reset.add_argument("session_id", metavar="ID", help="session id (exact)")
    # Only on the actions: argparse lets a sub-parser's defaults overwrite the parent's values.
    for sub in (listing, show, reset):
        add_config_arguments(sub)


def run(args: argparse.Namespace, name: str) -> int:
    """List, show or reset sessions in the configured store."""
    if not args.action:
        sys.stderr.write("tether session: choose an action: list, show ID or reset ID\n")
        return 2
    from tether.cli._common import config_from_args
    from tether.store.open import open_store

    store = open_store(config_from_args(args))
    try:
        if args.action == "list":
            return _list(store, as_json=args.json)
        if args.action == "show":
            return _show(store, args.session_id, as_json=args.json)
        return _reset(store, args.session_id)
    finally:
        store.close()


def _where(store: Store) -> str:
    return str(getattr(store, "location", type(store).__name__))


def _int(state: State, key: str) -> int:
    value = state.get(key, 0)
    return value if isinstance(value, int) else 0


def _list(store: Store, *, as_json: bool) -> int:
    # A session whose state cannot be read is listed, not fatal: the list is how one finds
    # the id to reset.
    rows: list[tuple[SessionInfo, State | None, str]] = []
    for info in store.sessions():
        try:
            state = store.load(info.session_id)
        except StoreError as exc:
            rows.append((info, None, str(exc)))
            continue
        if state is not None:  # expired or reset between the listing and the load
            rows.append((info, state, ""))
    if as_json:
        payload: list[dict[str, Any]] = []
        for info, state, error in rows:
            entry: dict[str, Any] = {
                "session_id": info.session_id,
                "updated": info.updated,
                "size": info.size,
            }
            if state is None:
                entry["error"] = error
            else:
                entry.update({key: _int(state, key) for key in ("calls", "warnings", "blocks")})
            payload.append(entry)
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return 0
    if not rows:
        sys.stdout.write(f"no sessions recorded in {_where(store)}\n")
        return 0
    width = max(len("SESSION"), *(len(info.session_id) for info, _, _ in rows))
    lines = [f"{'SESSION':<{width}}  {'UPDATED':<23}  {'CALLS':>6}  {'WARN':>5}  {'BLOCK':>5}"]
    broken = []
    for info, state, _ in rows:
        head = f"{info.session_id:<{width}}  {_when(info.updated):<23}  "
        if state is None:
            broken.append(info.session_id)
            lines.append(head + "unreadable state")
            continue
        lines.append(
            head + f"{_int(state, 'calls'):>6}  {_int(state, 'warnings'):>5}  "
            f"{_int(state, 'blocks'):>5}"
        )
    if broken:
        lines.append(
            f"{len(broken)} session(s) hold unreadable state; forget one with "
            f"'tether session reset {broken[0]}'"
        )
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _resolve(store: Store, session_id: str) -> tuple[str, State]:
    state = store.load(session_id)
    if state is not None:
        return session_id, state
    matches = [s.session_id for s in store.sessions() if s.session_id.startswith(session_id)]
    if len(matches) == 1:
        state = store.load(matches[0])
        if state is not None:
            return matches[0], state
    if len(matches) > 1:
        shown = ", ".join(matches[:5]) + (", …" if len(matches) > 5 else "")
        raise InputError(
            f"session {session_id!r} is ambiguous in {_where(store)}: it starts {len(matches)} "
            f"session ids ({shown}); give more of the id"
        )
    raise InputError(
        f"no session {session_id!r} recorded in {_where(store)}; "
        "see 'tether session list' for the ids it holds"
    )


def _show(store: Store, session_id: str, *, as_json: bool) -> int:
    sid, state = _resolve(store, session_id)
    if as_json:
        sys.stdout.write(json.dumps({"session_id": sid, "state": state}, indent=2) + "\n")
        return 0
    lines = [f"session   {sid}", f"store     {_where(store)}"]
    updated = state.get("updated")
    if isinstance(updated, int | float):
        lines.append(f"updated   {_when(float(updated))} ({_age(float(updated))})")
    lines.append(f"calls     {_int(state, 'calls')}")
    lines.append(f"warnings  {_int(state, 'warnings')}")
    lines.append(f"blocks    {_int(state, 'blocks')}")
    lines.append(f"streaks   {_streaks(state.get('streaks'))}")
    halted = state.get("halted")
    if isinstance(halted, str) and halted:
        # Whole: a headless host may have shown nothing of it (Claude Code -p, 2.1.332).
        lines.append(f"halted    {halted}")
    others = [key for key in state if key not in _KNOWN]
    if others:
        lines.append("other state:")
        pad = max(len(key) for key in others)
        lines.extend(f"  {key:<{pad}}  {_compact(state[key])}" for key in others)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _reset(store: Store, session_id: str) -> int:
    if not store.delete(session_id):
        raise InputError(
            f"no session {session_id!r} recorded in {_where(store)}; nothing to reset "
            "(see 'tether session list' for exact ids)"
        )
    sys.stdout.write(f"forgot session {session_id} in {_where(store)}\n")
    return 0


def _streaks(value: Any) -> str:
    # A streak at 0 is a detector that has nothing running; only live ones are news.
    active = [(k, v) for k, v in value.items() if _num(v)] if isinstance(value, dict) else []
    if not active:
        return "none"
    active.sort(key=lambda kv: (-_num(kv[1]), str(kv[0])))
    return ", ".join(f"{name} {count}" for name, count in active)


def _num(value: Any) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def _compact(value: Any) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    if isinstance(value, list):
        prefix = f"{len(value)} item{'s' if len(value) != 1 else ''}"
        text = prefix if not value else f"{prefix}: {text}"
    if len(text) > _WIDTH:
        text = text[: _WIDTH - 1] + "…"
    return text


def _when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(epoch))


def _age(epoch: float) -> str:
    seconds = max(0, int(time.time() - epoch))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return f"{seconds}s ago"
