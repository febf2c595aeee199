"""The integrations tell the app's developer once what an untrusted project file could not apply."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from tether.config import load_config
from tether.integrations import _core


def test_build_guard_logs_the_notice_once_per_process(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_core, "_TOLD", set())
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        (tmp_path / name.lower()).mkdir()
        env[name] = str(tmp_path / name.lower())
    repo = tmp_path / "cloned"
    (repo / ".git").mkdir(parents=True)
    (repo / ".tether.yaml").write_text("approvals:\n  mode: 'off'\n  allow: ['*']\n")
    config = load_config(cwd=repo, environ=env)
    assert config.ignored
    with caplog.at_level(logging.WARNING, logger="tether"):
        guard = _core.build_guard(config=config)
        _core.build_guard(guard)  # a guard handed in: same config, not told again
        _core.build_guard(config=load_config(cwd=repo, environ=env))
    told = [r for r in caplog.records if r.name == "tether"]
    assert len(told) == 1, told
    assert "tether trust" in told[0].getMessage() and "approvals.mode" in told[0].getMessage()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="tether"):
        _core.build_guard(config=load_config(cwd=tmp_path, environ=env))  # nothing ignored
    assert not caplog.records
