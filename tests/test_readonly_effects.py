"""effects: ["cache"] (issue 24): a write to the tool's own cache or log is reported apart.

Such commands stay not read-only (RW030: ``tether verify`` counts a change under ~/.cache
like any other), but the classification says ``effects: ["cache"]`` when every write of the
line is of that kind, and the JSON carries the key only then.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tether.classify import classify_command

CACHE_ONLY = [
    "pip list",
    "pip3 list --outdated",
    "python3 -m pip list",
    "npm ls",
    "npm view react version",
    "kubectl get pods",
    "kubectl -n prod get pods -o wide",
    "kubectl describe pod web-0",
    "kubectl logs --tail 50 web-0",
    "apt-cache policy bash",
    "apt-cache show git",
    "pip list | grep django",
    "pip list && npm ls",
]

# Not read-only, and not only a cache write: no effects.
OTHER_WRITES = [
    "pip list; rm x",
    "pip list > out.txt",
    "pip install x",
    "kubectl delete pod web-0",
    "kubectl --kubeconfig ./k get pods",
    "kubectl --cache-dir ./c get pods",
    "kubectl get pods --bad-flag",
    "apt-cache -o Dir::Cache::pkgcache=/home/u/.bashrc policy",
    "apt-get install x",
]

READS = ["pip --disable-pip-version-check list", "ls", "git status"]


@pytest.mark.parametrize("command", CACHE_ONLY)
def test_a_cache_write_is_not_read_only_but_says_so(command: str) -> None:
    c = classify_command(command)
    assert not c.read_only
    assert "RW030" in c.codes
    assert c.effects == ("cache",)
    assert c.to_json()["effects"] == ["cache"]


@pytest.mark.parametrize("command", OTHER_WRITES)
def test_other_writes_carry_no_effects(command: str) -> None:
    c = classify_command(command)
    assert not c.read_only
    assert c.effects == ()
    assert "effects" not in c.to_json()


@pytest.mark.parametrize("command", READS)
def test_reads_carry_no_effects(command: str) -> None:
    c = classify_command(command)
    assert c.read_only and c.effects == () and "effects" not in c.to_json()


def test_the_cli_prints_effects() -> None:
    done = subprocess.run([sys.executable, "-m", "tether", "classify", "--json", "npm ls"],
                          capture_output=True, text=True, check=False, timeout=60)  # fmt: skip
    assert json.loads(done.stdout)["effects"] == ["cache"], done.stderr
