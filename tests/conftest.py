"""Shared fixtures: the real data corpus and a real, throwaway redis-server.

Nothing here skips: a missing corpus or a missing ``redis-server`` binary fails the tests that
need them, with a message saying how to fix it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = REPO_ROOT.parent / "shared" / "corpus"


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """Return ``../shared/corpus`` beside the checkout; fail if it is missing."""
    if not CORPUS_DIR.is_dir():
        pytest.fail(
            f"the shared corpus is missing: expected a directory at {CORPUS_DIR} "
            "(CI lays shared/ beside the clone; never copy it into the repo)"
        )
    return CORPUS_DIR


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses the real redis-server, so ``-m 'not redis'`` can leave them out."""
    for item in items:
        if "redis_server" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.redis)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start a private redis-server on a free loopback port; yield its URL; stop it."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail(
            "redis-server is not installed, and the Redis store tests need a real one: "
            "install it with 'apt-get install redis-server' (.ci/run does this in CI)"
        )
    workdir = tmp_path_factory.mktemp("redis")
    log = workdir / "redis.log"
    for _ in range(3):  # the port could be taken between choosing and binding it
        port = _free_port()
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [
                    binary,
                    "--port", str(port),
                    "--bind", "127.0.0.1",
                    "--dir", str(workdir),
                    "--save", "",
                    "--appendonly", "no",
                    "--daemonize", "no",
                    "--protected-mode", "yes",
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None and not _ping(port):
            time.sleep(0.05)
        if proc.poll() is None and _ping(port):
            break
        proc.kill()
        proc.wait()
    else:
        pytest.fail(f"redis-server did not answer PING; its log:\n{log.read_text()}")
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def redis_prefix() -> str:
    """Return a key prefix unique to one test, so tests sharing the server never collide."""
    return f"tether-test:{uuid.uuid4().hex[:12]}:"
