"""``tether replay --html``: one self-contained page of replayed sessions people can look at.

Per session: the same numbers as the text summary, an inline SVG chart of how often each call
had been made so far (repeats) with the guard's interventions marked, and a timeline with one
row per call (what was called, what it returned, what Tether did, colour-coded, every code
linking to its explanation further down the page), filterable by action. No network and no
external assets: styles, script and explanations are embedded, so the file can be mailed or
attached to an issue. The script sets ``data-ready="ok"`` on ``<body>`` once it ran without an
error (``data-ready="error: …"`` otherwise), which the browser test reads; a Content Security
Policy refuses any load from outside the page. ``#hide=allow,warn`` in the URL opens the page
with those rows filtered out.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from tether.model import Action
from tether.replay.formats import Call
from tether.replay.run import Outcome, Step

RESULTS = ("allow", "warn", "ask", "block", "halt", "after-halt")
COLOURS = {
    "allow": "#2e7d32",
    "warn": "#b26a00",
    "ask": "#8e24aa",
    "block": "#c62828",
    "halt": "#7f0000",
    "after-halt": "#9e9e9e",
}
OUTPUT_LIMIT = 400

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:0 1.5em 3em;overflow-x:hidden;color:#222;
background:#fafafa}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;word-break:break-all}
.totals span,.sum span{display:inline-block;margin:0 .8em .3em 0}
.badge{display:inline-block;padding:0 .45em;border-radius:3px;color:#fff;font-weight:600;
font-size:.8em;text-transform:uppercase;white-space:nowrap}
table{border-collapse:collapse;width:100%;background:#fff;table-layout:fixed}
td,th{border-bottom:1px solid #e5e5e5;padding:.25em .4em;vertical-align:top;text-align:left}
th{background:#f0f0f0;position:sticky;top:0}
td.n{text-align:right;color:#666}
td pre{margin:0;white-space:pre-wrap;word-break:break-word;font-size:.85em;max-height:7.5em;
overflow:auto}
tr.a-allow td{color:#555}tr.a-after-halt td{color:#999;font-style:italic}
.msg{font-size:.85em;color:#333;margin-top:.2em}
.filters label{margin-right:1em;cursor:pointer}
.chart{background:#fff;border:1px solid #e5e5e5;margin:.5em 0}
.glossary dt{font-weight:600;margin-top:.8em}.glossary dd{margin-left:1.5em}
a.code{font-family:ui-monospace,monospace;margin-right:.3em}
"""

SCRIPT = """
(function(){
  try {
    var body = document.body;
    var boxes = document.querySelectorAll('.filters input[type=checkbox]');
    function apply(){
      boxes.forEach(function(b){ body.classList.toggle('hide-' + b.value, !b.checked); });
      var shown = 0;
      document.querySelectorAll('tr.step').forEach(function(r){
        if (r.offsetParent !== null) { shown += 1; }
      });
      var out = document.getElementById('shown');
      if (out) { out.textContent = String(shown); }
    }
    boxes.forEach(function(b){ b.addEventListener('change', apply); });
    // #hide=allow,warn opens the page with those rows hidden (a link can share a view).
    var m = /hide=([a-z,-]+)/.exec(window.location.hash);
    if (m) {
      var hidden = m[1].split(',');
      boxes.forEach(function(b){ if (hidden.indexOf(b.value) >= 0) { b.checked = false; } });
    }
    apply();
    body.setAttribute('data-ready', 'ok');
  } catch (e) {
    document.body.setAttribute('data-ready', 'error: ' + e);
    throw e;
  }
})();
"""


def _calls(outcome: Outcome) -> list[Call]:
    return [e for e in outcome.session.events if isinstance(e, Call)]


def _output(call: Call) -> str:
    if call.result is None:
        return ""
    value = call.result.output
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > OUTPUT_LIMIT:
        text = text[: OUTPUT_LIMIT - 1] + "…"
    return text


def _repeats(calls: Sequence[Call], shell: Mapping[str, str]) -> list[int]:
    """Return, per call, how many times the same call was made so far (the guard's signature)."""
    from tether.loops.fingerprint import signature_and_preview

    seen: Counter[str] = Counter()
    out = []
    for c in calls:
        key = signature_and_preview(c.call.tool, c.call.args, shell.get(c.call.tool))[0]
        seen[key] += 1
        out.append(seen[key])
    return out


def _chart(steps: Sequence[Step], repeats: Sequence[int]) -> str:
    """Return an inline SVG: repeats per call as a line, interventions as coloured marks."""
    width, height, left, top, band = 1000, 170, 44, 12, 22
    plot = height - top - band - 18
    n = len(steps)
    if n == 0:
        return ""
    peak = max(repeats) if repeats else 1

    def x(i: int) -> float:
        return left + (i / max(1, n - 1)) * (width - left - 10)

    def y(v: int) -> float:
        return top + plot - (v / max(1, peak)) * plot

    points = " ".join(f"{x(i):.1f},{y(r):.1f}" for i, r in enumerate(repeats))
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="repeats and interventions over {n} calls" '
        'xmlns="http://www.w3.org/2000/svg">',
        f'<text x="4" y="{top + 8}" font-size="10" fill="#666">{peak}×</text>',
        f'<text x="4" y="{top + plot}" font-size="10" fill="#666">1×</text>',
        f'<line x1="{left}" y1="{top + plot}" x2="{width - 10}" y2="{top + plot}" stroke="#ccc"/>',
        f'<polyline fill="none" stroke="#1565c0" stroke-width="1.5" points="{points}">'
        "<title>how many times each call had been made so far</title></polyline>",
    ]
    mark_w = max(1.5, (width - left - 10) / max(1, n))
    base = top + plot + 6
    for i, s in enumerate(steps):
        if s.result == "allow":
            continue
        parts.append(
            f'<rect class="mark" data-result="{s.result}" x="{x(i) - mark_w / 2:.1f}" '
            f'y="{base}" width="{mark_w:.1f}" height="{band - 6}" fill="{COLOURS[s.result]}">'
            f"<title>call #{s.number}: {s.result} {escape(' '.join(s.codes))}</title></rect>"
        )
    parts.append(
        f'<text x="{left}" y="{height - 2}" font-size="10" fill="#666">call 1</text>'
        f'<text x="{width - 10}" y="{height - 2}" font-size="10" fill="#666" '
        f'text-anchor="end">call {steps[-1].number}</text></svg>'
    )
    return "".join(parts)


def _badge(result: str) -> str:
    return f'<span class="badge" style="background:{COLOURS[result]}">{escape(result)}</span>'


def _codes(codes: Sequence[str]) -> str:
    return "".join(f'<a class="code" href="#code-{escape(c)}">{escape(c)}</a>' for c in codes)


def _summary(s: dict[str, Any]) -> str:
    items = [
        ("calls", s["calls"]),
        ("allowed", s["allow"]),
        ("warned", s["warn"]),
        ("asked", s["ask"]),
        ("blocked", s["block"]),
        ("halted", s["halt"]),
        ("after a halt (not run)", s["after_halt"]),
    ]
    keys = ("calls", "allow", "warn", "ask", "block", "halt", "after_halt")
    return "".join(
        f'<span data-key="{k}"><b>{v}</b> {escape(label)}</span>'
        for k, (label, v) in zip(keys, items, strict=True)
    )


def _session(n: int, outcome: Outcome, shell: Mapping[str, str]) -> str:
    summary = outcome.summary()
    calls = _calls(outcome)
    repeats = _repeats(calls, shell)
    rows = []
    for step, call, times in zip(outcome.steps, calls, repeats, strict=True):
        ran = not step.after_halt and step.action < Action.BLOCK  # blocked calls did not run
        output = _output(call)
        note = "" if ran else '<div class="msg">(recorded result; with Tether it did not run)</div>'
        message = f'<div class="msg">{escape(step.message)}</div>' if step.message else ""
        again = f" <small>(made {times}× so far)</small>" if times > 1 else ""
        rows.append(
            f'<tr class="step a-{step.result}" data-result="{step.result}">'
            f'<td class="n">{step.number}</td><td class="act">{_badge(step.result)}</td>'
            f'<td class="codes">{_codes(step.codes)}</td>'
            f'<td class="call"><code>{escape(step.preview)}</code>{again}{message}</td>'
            f"<td><pre>{escape(output)}</pre>{note}</td></tr>"
        )
    head = "<tr><th>#</th><th>Tether</th><th>codes</th><th>call</th><th>result (preview)</th></tr>"
    cols = (
        '<colgroup><col style="width:3.5em"><col style="width:6.5em"><col style="width:9em">'
        '<col style="width:34%"><col></colgroup>'
    )
    return (
        f'<section class="session" id="session-{n}" data-calls="{len(outcome.steps)}">'
        f"<h2>{escape(summary['file'])} <small>({escape(summary['format'])})</small></h2>"
        f'<div class="sum">{_summary(summary)}</div>'
        f"{_chart(outcome.steps, repeats)}"
        f"<table>{cols}<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table></section>"
    )


def _glossary(outcomes: Sequence[Outcome]) -> str:
    from tether.rules import explain

    used = sorted({c for o in outcomes for s in o.steps for c in s.codes})
    items = []
    for code in used:
        entry = explain(code)
        if entry is None:
            items.append(f'<dt id="code-{escape(code)}">{escape(code)}</dt><dd>(unknown)</dd>')
            continue
        items.append(
            f'<dt id="code-{escape(code)}">{escape(entry.code)} <code>{escape(entry.name)}</code>'
            f" ({escape(entry.tier.value)})</dt><dd>{escape(entry.summary)}<br>"
            f"<b>Why:</b> {escape(entry.why)}<br><b>Instead:</b> {escape(entry.instead)}</dd>"
        )
    if not items:
        return ""
    return f'<h2>Codes</h2><dl class="glossary">{"".join(items)}</dl>'


def render(
    outcomes: Sequence[Outcome], total: dict[str, Any], shell: Mapping[str, str] | None = None
) -> str:
    """Return the whole page for ``outcomes`` with the run's ``total`` summary.

    ``shell`` maps shell tool names to their command argument (``tools.shell``), so repeats
    are counted the way the guard counts them.
    """
    shell = {"Bash": "command"} if shell is None else shell
    hide = "".join(f"body.hide-{r} tr.a-{r}{{display:none}}" for r in RESULTS)
    filters = "".join(
        f'<label><input type="checkbox" value="{r}" checked> {_badge(r)}</label>' for r in RESULTS
    )
    steps = sum(len(o.steps) for o in outcomes)
    failed = ""
    if total.get("failed"):
        items = "".join(
            f"<li>{escape(f['file'])}: {escape(f['error'])}</li>" for f in total["failed"]
        )
        failed = f"<p>Files that could not be read:</p><ul>{items}</ul>"
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # Nothing may load from anywhere: a stray external asset is refused and logged.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        "<title>Tether replay</title>"
        f"<style>{CSS}{hide}</style></head><body>"
        f"<h1>Tether replay: {total['files']} session(s), {total['calls']} calls</h1>"
        f'<div class="totals" id="totals">{_summary(total)}</div>{failed}'
        f'<div class="filters">Show: {filters} <span><b id="shown">{steps}</b> rows shown'
        "</span></div>"
        + "".join(_session(n, o, shell) for n, o in enumerate(outcomes, 1))
        + _glossary(outcomes)
        + f"<script>{SCRIPT}</script></body></html>\n"
    )


def write_report(
    path: str,
    outcomes: Sequence[Outcome],
    total: dict[str, Any],
    shell: Mapping[str, str] | None = None,
) -> None:
    """Write the page to ``path``."""
    from pathlib import Path

    page = render(outcomes, total, shell)
    Path(path).write_text(page, encoding="utf-8", errors="surrogateescape")


__all__ = ["render", "write_report"]
