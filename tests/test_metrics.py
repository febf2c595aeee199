"""``GET /metrics`` on a real sidecar: decisions by action and code, latency histograms.

Events go in through both doors (a host's hook route and the JSON API); the exposition is read
back with prometheus_client's own parser, so the text is what a Prometheus server would scrape.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from test_serve import Sidecar, request, start


@pytest.fixture
def sidecar(tmp_path: Path) -> Iterator[Sidecar]:
    running = start(tmp_path / "serve")
    yield running
    running.server.stop()


def scrape(sc: Sidecar) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    resp = request(f"{sc.url}/metrics")
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(resp.body.decode()):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def hook(sc: Sidecar, command: str) -> None:
    payload = {
        "session_id": "m",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": str(sc.project),
    }
    assert request(f"{sc.url}/hook/claude-code", json.dumps(payload)).status == 200


def test_decisions_are_counted_by_action_and_code(sidecar: Sidecar) -> None:
    hook(sidecar, "rm -rf /")
    hook(sidecar, "rm -rf /")
    hook(sidecar, "ls -la")
    call = {"session_id": "a", "tool": "Bash", "args": {"command": "git push --force"}}
    request(f"{sidecar.url}/v1/before_call", json.dumps(call))
    request(f"{sidecar.url}/v1/before_call", "{broken")
    m = scrape(sidecar)
    route = ("route", "/hook/claude-code")
    block = (("action", "block"), ("code", "TA104"), route)
    assert m[("tether_decisions_total", block)] == 2
    assert m[("tether_decisions_total", (("action", "block"), ("code", "DG101"), route))] == 2
    assert m[("tether_decisions_total", (("action", "allow"), ("code", ""), route))] == 1
    api = ("route", "/v1/before_call")
    assert m[("tether_decisions_total", (("action", "ask"), ("code", "TA100"), api))] == 1
    assert m[("tether_failures_total", (("kind", "request"), api))] == 1
    assert m[("tether_decision_seconds_count", (route,))] == 3
    assert m[("tether_decision_seconds_count", (api,))] == 1
    assert m[("tether_decision_seconds_bucket", (("le", "+Inf"), route))] == 3
    assert m[("tether_decision_seconds_sum", (route,))] > 0


def test_metrics_need_the_token_when_one_is_set(tmp_path: Path) -> None:
    from tether.serve import Options

    sc = start(tmp_path / "serve", Options(port=0, token="s3cret-token-for-tests"))
    try:
        assert request(f"{sc.url}/metrics").status == 401
        ok = request(
            f"{sc.url}/metrics", headers={"Authorization": "Bearer s3cret-token-for-tests"}
        )
        assert ok.status == 200 and b"tether_decisions" in ok.body
    finally:
        sc.server.stop()
