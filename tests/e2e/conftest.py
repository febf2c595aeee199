"""The e2e suite: the real host CLIs from npm, pinned, installed by ``.ci/run`` into a cache.

A missing binary fails the test with the command that installs it; nothing skips. Locally,
without the binaries, leave the suite out explicitly with ``TETHER_E2E=0``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from harness import CACHE, CACHE_ENV, PACKAGES, Host, binary, daemons_under, stop_daemons

OPT_OUT = "TETHER_E2E"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test here ``e2e``; with TETHER_E2E=0 leave them out (deselected, not skipped)."""
    here = Path(__file__).parent
    mine = [i for i in items if here in Path(str(i.fspath)).parents]
    for item in mine:
        item.add_marker(pytest.mark.e2e)
    if os.environ.get(OPT_OUT) == "0" and mine:
        config.hook.pytest_deselected(items=mine)
        items[:] = [i for i in items if i not in mine]


@pytest.fixture
def make_host(tmp_path: Path) -> Iterator[Callable[[str, str], Host]]:
    """Yield a factory of ``Host`` in private temporary homes; fail if the binary is missing.

    Every daemon the test's hooks started is stopped when it ends.
    """
    count = [0]

    def make(host: str, version: str) -> Host:
        exe = binary(host, version)
        if not exe.is_file():
            package = PACKAGES[host][0]
            name = package.rsplit("/", 1)[1]
            pytest.fail(
                f"{exe} is missing: run .ci/run, or `npm install --prefix "
                f"{CACHE}/{name}-{version} {package}@{version}` (cache: ${CACHE_ENV}); "
                f"to leave the e2e suite out locally set {OPT_OUT}=0"
            )
        count[0] += 1
        return Host(host, version, tmp_path / f"run{count[0]}")

    yield make
    # The hook starts a daemon per private home; each would idle for 15 minutes after the test.
    stop_daemons(tmp_path)
    assert not daemons_under(tmp_path), "a daemon outlived its test"
