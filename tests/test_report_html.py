"""``tether replay --html``: the page, opened in a real headless Chromium.

The page must load with no console error (its script marks ``<body data-ready="ok">`` only
when it ran cleanly, and a Content Security Policy turns any outside load into a console
error), show one timeline row per call, carry the same numbers as ``--json``, and link every
code to its explanation on the page. Screenshots are left in ``build/screenshots/`` (or
``$TETHER_SCREENSHOTS``) for people to look at. Chromium comes from Debian's ``chromium``
package (``.ci/run`` installs it); without it these tests fail, they do not skip.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "loop.jsonl"
REAL_LOOP = (
    ROOT.parent  # CI lays shared/ beside the checkout (see tests/conftest.py)
    / "shared"
    / "corpus"
    / "real"
    / "trajectories"
    / "claudecode_openagents_20251223_014205-call-issue-ready-now-to.jsonl"
)
SHOTS = Path(os.environ.get("TETHER_SCREENSHOTS", ROOT / "build" / "screenshots"))
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--enable-logging=stderr",
    "--v=0",
]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "install Debian's chromium package (apt-get install chromium; .ci/run does)"
    return found


def browse(
    page: Path, *, fragment: str = "", screenshot: Path | None = None
) -> tuple[str, list[str]]:
    """Open ``page``; return the DOM after its script ran and the console lines it logged."""
    with tempfile.TemporaryDirectory() as profile:
        args = [chromium(), *FLAGS, f"--user-data-dir={profile}"]
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            args += [f"--screenshot={screenshot}", "--window-size=1400,1800"]
        else:
            args += ["--dump-dom"]
        proc = subprocess.run(
            [*args, page.resolve().as_uri() + fragment],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc.stdout, console


def replay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tether", "replay", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def report(tmp_path: Path, *files: Path, hard: bool = True) -> tuple[Path, dict[str, Any]]:
    out = tmp_path / "report.html"
    sets = ["--set", "loops.hard_stop=true"] if hard else []
    proc = replay(*map(str, files), *sets, "--json", "--html", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {out}" in proc.stderr
    return out, json.loads(proc.stdout)


def _checks(dom: str, console: list[str], doc: dict[str, Any]) -> None:
    assert console == [], console
    assert 'data-ready="ok"' in dom
    sections = re.findall(
        r'<section class="session"[^>]*data-calls="(\d+)"(.*?)</section>', dom, re.S
    )
    assert [int(n) for n, _ in sections] == [f["calls"] for f in doc["files"]]
    for (n, body), f in zip(sections, doc["files"], strict=True):
        rows = re.findall(r'<tr class="step a-([a-z-]+)"', body)
        assert len(rows) == int(n)  # one row per call
        assert rows == [s["action"] for s in f["steps"]]
        numbers = [int(x) for x in re.findall(r'<td class="n">(\d+)</td>', body)]
        assert numbers == [s["call"] for s in f["steps"]]
    block = dom.split('id="totals"', 1)[1].split("</div>", 1)[0]
    totals = dict(re.findall(r'<span data-key="(\w+)"><b>(\d+)</b>', block))
    for key in ("calls", "allow", "warn", "ask", "block", "halt", "after_halt"):
        assert int(totals[key]) == doc["summary"][key], key
    for code in set(re.findall(r'href="#code-([^"]+)"', dom)):
        assert f'id="code-{code}"' in dom, f"{code} links nowhere"


def test_the_example_report_loads_cleanly(tmp_path: Path) -> None:
    page, doc = report(tmp_path, EXAMPLE)
    dom, console = browse(page)
    _checks(dom, console, doc)
    assert doc["summary"]["halt"] == 1 and "TL203" in dom and "<svg" in dom
    _, console = browse(page, screenshot=SHOTS / "replay-example-loop.png")
    assert console == [] and (SHOTS / "replay-example-loop.png").stat().st_size > 10_000


def test_the_real_286_call_loop_report_loads_cleanly(tmp_path: Path) -> None:
    page, doc = report(tmp_path, REAL_LOOP)
    assert doc["summary"]["calls"] > 400
    dom, console = browse(page)
    _checks(dom, console, doc)
    _, console = browse(page, screenshot=SHOTS / "replay-real-286-loop.png")
    assert console == [] and (SHOTS / "replay-real-286-loop.png").stat().st_size > 10_000
    # The same page filtered to Tether's interventions: where the loop was stopped.
    shot = SHOTS / "replay-real-286-loop-interventions.png"
    _, console = browse(page, fragment="#hide=allow,after-halt", screenshot=shot)
    assert console == [] and shot.stat().st_size > 10_000


@pytest.mark.parametrize("hidden", ["allow", "allow,warn", "allow,warn,block,halt,after-halt"])
def test_filters_hide_rows_in_a_real_layout(tmp_path: Path, hidden: str) -> None:
    page, doc = report(tmp_path, EXAMPLE)
    dom, console = browse(page, fragment=f"#hide={hidden}")
    assert console == []
    left = [s for s in doc["files"][0]["steps"] if s["action"] not in hidden.split(",")]
    assert re.search(r'<b id="shown">(\d+)</b>', dom)[1] == str(len(left))
    for r in hidden.split(","):
        assert f"hide-{r}" in dom.split("<body", 1)[1].split(">", 1)[0]


def test_the_page_is_self_contained(tmp_path: Path) -> None:
    page, _ = report(tmp_path, EXAMPLE)
    text = page.read_text()
    assert "<link" not in text and " src=" not in text and "@import" not in text
    assert re.findall(r"https?://[^\"' ]+", text) == ["http://www.w3.org/2000/svg"]


def test_the_browser_check_catches_a_broken_page(tmp_path: Path) -> None:
    page, _ = report(tmp_path, EXAMPLE)
    text = page.read_text()
    broken = tmp_path / "broken.html"
    broken.write_text(text.replace("var body = document.body;", "var body = document.bdy;"))
    dom, console = browse(broken)
    assert 'data-ready="ok"' not in dom and any("Uncaught" in c for c in console)
    outside = tmp_path / "outside.html"
    outside.write_text(text.replace("</h1>", '</h1><img src="http://192.0.2.1/x.png">'))
    _, console = browse(outside)
    assert any("Content Security Policy" in c for c in console), console


def test_a_report_over_several_files_and_a_broken_one(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{nope\n")
    out = tmp_path / "many.html"
    proc = replay(str(EXAMPLE), str(broken), str(EXAMPLE), "--json", "--html", str(out))
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    dom, console = browse(out)
    _checks(dom, console, doc)
    assert "broken.jsonl" in dom and "could not be read" in dom
