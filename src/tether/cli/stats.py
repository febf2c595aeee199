"""``tether stats``: what the guard did across every session in the configured store.

The view an operator of a fleet wants: interventions per code (with what each code means), the
sessions with the most interventions, and the calls repeated most (each session's longest
current streak of identical results). It reads the store the hooks and the sidecar write
(SQLite by default, Redis for fleets) and changes nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any

from tether.cli._common import add_config_arguments, config_from_args
from tether.hosts.receipts import sentence, summary

EPILOG = """\
examples:
  tether stats
  tether stats --top 20 --json
  tether stats --set store.backend=redis --set store.url=redis://fleet:6379/0
"""


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Add the stats options."""
    parser.epilog = EPILOG
    parser.add_argument("--top", type=int, default=10, metavar="N", help="rows per table (10)")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    add_config_arguments(parser)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def gather(store: Any, top: int = 10) -> dict[str, Any]:
    """Return the statistics over every session ``store`` holds."""
    codes: Counter[str] = Counter()
    sessions: list[dict[str, Any]] = []
    repeats: list[dict[str, Any]] = []
    calls = 0
    unguarded: list[dict[str, Any]] = []
    for info in store.sessions():
        state = store.load(info.session_id)
        if not isinstance(state, dict):
            continue
        warnings, blocks = _int(state.get("warnings")), _int(state.get("blocks"))
        calls += _int(state.get("calls"))
        tally = state.get("codes")
        if isinstance(tally, dict):
            codes.update({str(k): _int(v) for k, v in tally.items()})
        receipt = state.get("unguarded")
        if isinstance(receipt, dict):
            unguarded.append(receipt)
        sessions.append(
            {
                "session": info.session_id,
                "calls": _int(state.get("calls")),
                "interventions": warnings + blocks,
                "warnings": warnings,
                "blocks": blocks,
                "updated": info.updated,
            }
        )
        sigs = state.get("sigs")
        epoch = _int(state.get("epoch"))
        for rec in sigs.values() if isinstance(sigs, dict) else ():
            # a record from before the last progress has its streak reset when next used
            stale = isinstance(rec, dict) and _int(rec.get("epoch")) != epoch
            if isinstance(rec, dict) and not stale and _int(rec.get("same")) >= 2:
                repeats.append(
                    {
                        "session": info.session_id,
                        "call": str(rec.get("preview", "")),
                        "same_result": _int(rec.get("same")),
                        "refused": _int(rec.get("blocked")),
                    }
                )
    sessions.sort(key=lambda s: (-s["interventions"], -s["calls"], s["session"]))
    repeats.sort(key=lambda r: (-r["same_result"], r["session"], r["call"]))
    return {
        "store": str(getattr(store, "location", type(store).__name__)),
        "sessions": len(sessions),
        "calls": calls,
        "interventions": sum(s["interventions"] for s in sessions),
        "codes": [{"code": c, "count": n} for c, n in sorted(codes.items(), key=_by_count)],
        "top_sessions": [s for s in sessions if s["interventions"]][:top],
        "top_repeats": repeats[:top],
        "unguarded": summary(unguarded),
    }


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def render(stats: dict[str, Any]) -> str:
    """Return the statistics as text tables."""
    from tether.rules import explain

    out = [
        f"{stats['store']}: {stats['sessions']} session(s), {stats['calls']} calls, "
        f"{stats['interventions']} intervention(s)"
    ]
    if stats["unguarded"]["calls"]:
        out += ["", f"WARNING: {sentence(stats['unguarded'])}; run `tether doctor`"]
    if stats["codes"]:
        out += ["", "interventions per code:"]
        for row in stats["codes"]:
            entry = explain(row["code"])
            name = f"{entry.name}: {entry.summary}" if entry else ""
            out.append(f"  {row['count']:>6}  {row['code']:<12} {name}")
    if stats["top_sessions"]:
        out += ["", "sessions with the most interventions:"]
        for s in stats["top_sessions"]:
            out.append(
                f"  {s['interventions']:>6}  {s['session']}  ({s['warnings']} warned, "
                f"{s['blocks']} blocked, {s['calls']} calls)"
            )
    if stats["top_repeats"]:
        out += ["", "calls repeated with the same result (current streaks):"]
        for r in stats["top_repeats"]:
            refused = f", refused {r['refused']}×" if r["refused"] else ""
            out.append(f"  {r['same_result']:>6}×  {r['call']}  ({r['session']}{refused})")
    if not stats["sessions"]:
        out += ["", "no sessions recorded yet (the hooks and the sidecar write them)"]
    return "\n".join(out) + "\n"


def run(args: argparse.Namespace, name: str) -> int:
    """Print the statistics of the configured store."""
    from tether.store.open import open_store

    if args.top < 1:
        sys.stderr.write(f"tether stats: --top: expected an integer ≥ 1, got {args.top}\n")
        return 2
    store = open_store(config_from_args(args))
    try:
        stats = gather(store, args.top)
    finally:
        store.close()
    if args.json:
        sys.stdout.write(json.dumps(stats, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(render(stats))
    return 0
