"""``tether doctor``'s words when a hook fails: what happened, and the real cause to fix first.

A broken config or store makes every hook call fail closed. The report must say that the deny
came from the failure (not "should be denied but was deny"), and point at the config or store
problem it already reported, not at reinstalling a host that is not even installed.
"""

from __future__ import annotations

from pathlib import Path

from test_doctor import by_area, doctor, sandbox, tether

__all__ = ["sandbox"]  # the fixture, used by name below


def _failures(checks: list[dict[str, str]]) -> list[dict[str, str]]:
    return [c for c in by_area(checks, "claude-code") if c["status"] == "fail"]


def test_a_config_error_is_named_as_the_cause(sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    (project / ".tether.yaml").write_text("loops:\n  hardstop: true\n")
    code, checks = doctor(env, project)
    assert code == 1
    failures = _failures(checks)
    assert failures, checks
    for c in failures:
        assert "but was deny" not in c["message"]
        assert "tether install" not in c["fix"], c
        assert "config problem reported above" in c["fix"]
    messages = [c["message"] for c in failures]
    assert any(
        m.startswith("`rm -rf /` is denied, but only because the hook fails") for m in messages
    )
    assert any(m.startswith("`ls -la` should run but was denied") for m in messages)


def test_a_store_error_is_named_as_the_cause(sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    db = Path(env["XDG_STATE_HOME"]) / "tether" / "state.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"definitely not sqlite " * 200)
    _, checks = doctor(env, project)
    failures = _failures(checks)
    assert failures
    for c in failures:
        assert "store problem reported above" in c["fix"] and "tether install" not in c["fix"]


def test_an_installed_broken_hook_still_gets_the_reinstall_advice(
    sandbox: tuple[dict[str, str], Path],
) -> None:
    env, project = sandbox
    broken = "/nonexistent/bin/tether hook claude-code"
    proc = tether("install", "claude-code", "--project", "--command", broken, env=env, cwd=project)
    assert proc.returncode == 0, proc.stderr
    _, checks = doctor(env, project)
    failures = _failures(checks)
    assert failures and all("tether install claude-code" in c["fix"] for c in failures)
    assert all("should be denied but the hook answered fail-open" in c["message"]
               for c in failures if c["message"].startswith("`rm"))  # fmt: skip
