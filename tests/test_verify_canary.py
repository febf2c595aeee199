"""The canary test: the worst commands of the catalogue, run by the oracle as root, change
nothing of the host.

Each command runs in each of the oracle's modes (plain, traced, traced with halt). Before
and after: a canary directory and file anyone may write (``/var/tmp``, visible in the
sandbox's lower layer, mode 1777/0666), a root-owned canary file in ``/etc`` and one in the
host's ``/tmp``, the host's
``/dev`` (names, types and device numbers), a set of ``/proc/sys`` values, the hostname,
the root directory's listing and ``/etc``'s key files, and two canary processes outside the
sandbox (``sleep``): one owned by root, one by the very uid the sandbox user has, which a
``kill -9 -1`` or ``pkill sleep`` escaping its PID namespace would hit first. The commands
use the real disk's name (``/dev/vda`` here) as well as ``/dev/sda``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.verify import Oracle, sandbox_problem
from tether.verify.fixture import UID

pytestmark = pytest.mark.slow  # bounded: 3 modes x 19 commands, 3 s time limit each

CANARY_DIR = Path(f"/var/tmp/tether-canary-{os.getpid()}")  # made by the fixture
CANARY = CANARY_DIR / "canary.txt"
ROOT_CANARY = Path(f"/etc/tether-canary-{os.getpid()}")  # root's own, mode 0644
DISKS = ("vda", "sda", "nvme0n1", "xvda")
DISK = next((f"/dev/{d}" for d in DISKS if Path(f"/dev/{d}").exists()), "/dev/sda")
SYSCTLS = (
    "vm/swappiness", "kernel/pid_max", "kernel/hostname", "kernel/domainname",
    "kernel/panic", "kernel/printk", "vm/overcommit_memory", "net/ipv4/ip_forward",
    "fs/file-max", "kernel/core_pattern",
)  # fmt: skip

WORST = [
    "rm -rf /",
    "rm -rf --no-preserve-root /",
    f"rm -rf --no-preserve-root {CANARY_DIR} /var/tmp/* /tmp/*",
    "mkfs.ext4 /dev/sda",
    f"mkfs.ext4 -F {DISK}",
    f"dd if=/dev/zero of={DISK} bs=1M count=1",
    f"cat /dev/urandom > {DISK}",
    ":(){ :|:& };:",
    "kill -9 -1",
    "pkill -9 sleep; killall -9 sleep",
    "chmod -R 000 /",
    f"chown -R nobody {CANARY_DIR} /",
    "echo 1 > /proc/sys/kernel/sysrq; echo 0 > /proc/sys/vm/swappiness",
    "echo b > /proc/sysrq-trigger",
    "hostname pwned; umount -l /proc; mount -o remount,rw /proc/sys",
    "reboot -f",
    f"mv /etc /etc.bak; mv {CANARY} /tmp/; rm -f {ROOT_CANARY}",
    f"find {CANARY_DIR} /var/tmp -delete",
    "unshare -Urm sh -c 'mount -o remount,rw /proc/sys; echo 0 > /proc/sys/vm/swappiness'",
]
MODES = {"plain": {}, "trace": {"trace": True}, "halt": {"trace": True, "halt": True}}


def _sha(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _state() -> dict[str, object]:
    """Return everything a command escaping the sandbox would change."""
    dev = sorted(
        (e.name, os.lstat(e.path).st_mode, os.lstat(e.path).st_rdev) for e in os.scandir("/dev")
    )
    sysctl = {k: Path("/proc/sys", k).read_text() for k in SYSCTLS if Path("/proc/sys", k).exists()}
    return {
        "canary": (CANARY.read_text(), CANARY.stat().st_mtime_ns, oct(CANARY.stat().st_mode)),
        "canary_dir": (sorted(os.listdir(CANARY_DIR)), oct(CANARY_DIR.stat().st_mode)),
        "tmp_canary": Path(TMP_CANARY).read_text(),
        "dev": dev,
        "sysctl": sysctl,
        "root": sorted(os.listdir("/")),
        "root_canary": (ROOT_CANARY.read_text(), ROOT_CANARY.stat().st_mtime_ns),
        # (other agents on this machine install packages: /etc/group is not ours to watch)
        "etc": [_sha(f"/etc/{n}") for n in ("hostname", "hosts")],
        "etc_mode": oct(os.stat("/etc").st_mode),
        "hostname": os.uname().nodename,
    }


TMP_CANARY = f"/tmp/tether-canary-{os.getpid()}.txt"


@pytest.fixture(scope="module")
def canaries() -> Iterator[list[subprocess.Popen[bytes]]]:
    assert sandbox_problem() is None, f"the oracle tests need a sandbox: {sandbox_problem()}"
    assert shutil.which("strace"), "the traced modes need strace (.ci/run installs it)"
    CANARY_DIR.mkdir()
    CANARY_DIR.chmod(0o1777)
    CANARY.write_text("canary\n")
    CANARY.chmod(0o666)
    Path(TMP_CANARY).write_text("canary\n")
    ROOT_CANARY.write_text("canary\n")
    same_uid = ["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups", "--"]
    procs = [
        subprocess.Popen(["sleep", "600"]),
        subprocess.Popen([*same_uid, "sleep", "600"]),
    ]
    try:
        yield procs
    finally:
        for p in procs:
            p.kill()
            p.wait()
        Path(TMP_CANARY).unlink(missing_ok=True)
        ROOT_CANARY.unlink(missing_ok=True)
        subprocess.run(["rm", "-rf", str(CANARY_DIR)], check=False)


def test_the_worst_commands_change_nothing_of_the_host(
    canaries: list[subprocess.Popen[bytes]],
) -> None:
    before = _state()
    seen: dict[tuple[str, str], str] = {}
    with Oracle(timeout=3) as oracle:
        for command in WORST:
            for mode, how in MODES.items():
                verdict = oracle.run(command, **how)
                # The sandbox was built and the command ran in it (no refusal to start).
                assert "sandbox could not be built" not in verdict.reason, verdict
                seen[(command, mode)] = verdict.reason
                if how:
                    assert verdict.trace is not None and verdict.trace.processes, verdict
                assert all(p.poll() is None for p in canaries), (command, mode)
    time.sleep(0.2)
    assert _state() == before
    assert all(p.poll() is None for p in canaries), "a canary process outside was killed"
    # Nothing of the sandbox user is left running on the host but the canary.
    left = subprocess.run(["pgrep", "-u", str(UID)], capture_output=True, text=True).stdout
    assert left.split() == [str(canaries[1].pid)], left
    assert len(seen) == len(WORST) * len(MODES)


def test_the_worst_commands_were_really_attempted(canaries: list[subprocess.Popen[bytes]]) -> None:
    """The trace shows each destructive program started and its destructive syscall refused
    or confined: the canary test is not green because nothing ran."""
    with Oracle(timeout=3) as oracle:
        v = oracle.run(f"dd if=/dev/zero of={DISK} bs=1M count=1", trace=True)
        assert v.trace is not None
        assert ("dd", "if=/dev/zero", f"of={DISK}", "bs=1M", "count=1") in [
            p.argv for p in v.trace.processes
        ]
        assert ("open-write", (DISK,), "EACCES") in [
            (o.call, o.paths, o.result) for o in v.trace.operations
        ]
        v = oracle.run("rm -rf --no-preserve-root /", trace=True, halt=True)
        assert v.trace is not None and v.trace.operations[0].call in ("unlinkat", "rmdir")
        v = oracle.run("echo 0 > /proc/sys/vm/swappiness", trace=True)
        assert v.trace is not None
        assert [(o.paths, o.result) for o in v.trace.operations] == [
            (("/proc/sys/vm/swappiness",), "EROFS")
        ]
