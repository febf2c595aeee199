"""What the hand-written docs claim about defaults and behaviour is what the code does.

Generated pages (docs/config.md, docs/rules.md) are checked by their staleness tests; the prose
pages quote defaults too ("`hooks.deadline` (15 s)", "`store.ttl_days` (default 7)", the
detector table of docs/loops.md). Every such quote is found by pattern, not listed by hand, and
compared with the schema, so a changed default fails here until the prose follows it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tether.config.schema import KEYS

ROOT = Path(__file__).resolve().parents[1]
GENERATED = {"config.md", "rules.md"}
PAGES = [p for p in sorted((ROOT / "docs").glob("*.md")) if p.name not in GENERATED]
PAGES.append(ROOT / "README.md")
QUOTE = re.compile(r"`([a-z_]+(?:\.[a-z_]+)+)` \((?:default )?([^)]*)\)")


def _claimed(text: str) -> Any:
    """Return the value a parenthesis claims, or None when it is not a value."""
    text = text.strip()
    m = re.match(r"^`([^`]*)`(?: by default)?$", text)
    if m:
        return m[1]
    if text == "empty":
        return ""
    m = re.match(r"^([0-9][0-9,]*(?:\.[0-9]+)?)(?: ?(?:s|seconds|characters|MB|MiB|days))?$", text)
    if m:
        return float(m[1].replace(",", ""))
    if text in ("on", "off", "true", "false"):
        return text in ("on", "true")
    return None


def quotes() -> list[tuple[str, int, str, Any]]:
    """Return every (page, line, key, claimed value) a prose page states about a default."""
    found = []
    for page in PAGES:
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for key, inside in QUOTE.findall(line):
                value = _claimed(inside)
                if key in KEYS and value is not None:
                    found.append((page.name, n, key, value))
    return found


def test_the_scan_finds_the_quotes() -> None:
    keys = {key for _, _, key, _ in quotes()}
    assert {"hooks.deadline", "store.ttl_days", "progress.warn_after", "serve.port"} <= keys


@pytest.mark.parametrize(("page", "line", "key", "value"), quotes())
def test_quoted_defaults_match_the_schema(page: str, line: int, key: str, value: Any) -> None:
    default = KEYS[key].default
    if isinstance(value, float):
        assert float(default) == value, f"docs/{page}:{line}: {key} is {default}, not {value:g}"
    else:
        assert default == value, f"docs/{page}:{line}: {key} is {default!r}, not {value!r}"


def test_no_page_calls_a_declared_key_proposed() -> None:
    for page in PAGES:
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if "proposed" in line.lower():
                keys = [k for k in re.findall(r"`([a-z_]+(?:\.[a-z_]+)+)`", line) if k in KEYS]
                assert not keys, f"{page.name}:{n} calls {keys} proposed; the schema has them"


def test_the_deadline_in_words_is_the_schema_default() -> None:
    deadline = float(KEYS["hooks.deadline"].default)
    for page in PAGES:
        for said in re.findall(r"(\d+(?:\.\d+)?) ?s deadline", page.read_text()):
            assert float(said) == deadline, f"{page.name}: '{said} s deadline' vs {deadline:g}"


def _loops_table() -> list[tuple[str, str, str]]:
    text = (ROOT / "docs" / "loops.md").read_text()
    return re.findall(r"^\| (TL2\d\d) \| [a-z-]+ \| [^|]+ \| ([^|]+) \| ([^|]+) \|$", text, re.M)


def test_the_detector_table_quotes_the_schema_thresholds() -> None:
    from tether.loops.detectors import ALL

    detector = {d.code: d.key for d in ALL}
    rows = _loops_table()
    assert len(rows) >= 7
    checked = 0
    for code, warn, stop in rows:
        name = detector[code]
        w = re.match(r"^(\d+)(?: \(| ?$)", warn.strip())
        if w and f"loops.warn_after.{name}" in KEYS:
            assert int(w[1]) == KEYS[f"loops.warn_after.{name}"].default, (code, warn)
            checked += 1
        s = re.match(r"^(?:block|halt)(?: above)? (\d+)", stop.strip())
        if s and f"loops.hard_stop_after.{name}" in KEYS:
            assert int(s[1]) == KEYS[f"loops.hard_stop_after.{name}"].default, (code, stop)
            checked += 1
    assert checked >= 10


def test_ttl_days_0_keeps_sessions_forever(tmp_path: Path) -> None:
    from tether.config import load_config
    from tether.store.open import open_store

    path = tmp_path / "state.db"
    config = load_config(overrides=("store.ttl_days=0", f"store.path={path}"))
    assert config.get("store.ttl_days") == 0
    store = open_store(config)
    try:
        store.update("old", lambda state: {"calls": 1})
        assert store.gc(now=10**12) == 0  # tens of thousands of years later
        assert store.load("old") is not None
    finally:
        store.close()


def test_the_real_loop_numbers_in_loops_md_are_replays(tmp_path: Path) -> None:
    """docs/loops.md quotes the 286x loop's start, first warning and block: replay's numbers."""
    import json

    text = " ".join((ROOT / "docs" / "loops.md").read_text().split())
    m = re.search(
        r"loop \(starting at call (\d+)\) is warned at call (\d+),? (?:and )?blocked at call (\d+)",
        text,
    )
    assert m, "docs/loops.md no longer quotes the real loop's numbers"
    start, warned, blocked = map(int, m.groups())
    corpus = ROOT.parent / "shared" / "corpus" / "real" / "trajectories"
    name = "claudecode_openagents_20251223_014205-call-issue-ready-now-to.jsonl"
    hard = ("--set", "loops.hard_stop=true")
    proc = subprocess.run(
        [sys.executable, "-m", "tether", "replay", str(corpus / name), "--jsonl", *hard],
        capture_output=True,
        text=True,
        timeout=300,
    )
    steps = [json.loads(x) for x in proc.stdout.splitlines()][:-1]
    loop = [s for s in steps if s["tool"] == "Bash" and "issue ready" in s.get("message", "")]
    assert loop
    first_warn = next(s["call"] for s in steps if s["action"] == "warn" and s["call"] >= start)
    first_block = next(s["call"] for s in steps if s["action"] == "block")
    assert (first_warn, first_block) == (warned, blocked)
    halted = re.search(r"blocked at call \d+ [^;]*?halted at call (\d+)", text)
    if halted:
        assert int(halted[1]) == next(s["call"] for s in steps if s["action"] == "halt")
    assert f"since call #{start})" in next(s["message"] for s in steps if s["call"] == warned)


def test_integrations_md_shows_setting_a_key_in_code() -> None:
    from tether.integrations.langchain import TetherMiddleware

    text = (ROOT / "docs" / "integrations.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    [snippet] = [b for b in blocks if "load_config(" in b and "config=" in b]
    lines = snippet.splitlines()
    snippet = "\n".join(line[2:] if line.startswith("  ") else line for line in lines)
    scope: dict[str, Any] = {"TetherMiddleware": TetherMiddleware}
    exec(compile(snippet, "docs/integrations.md", "exec"), scope)
    configs = [v for v in scope.values() if type(v).__name__ == "Config"]
    assert configs and all(c.get("loops.hard_stop") is True for c in configs)
