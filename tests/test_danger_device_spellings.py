"""Device paths spelt the way the kernel still reads as the device (issue 23, class 3).

Each form below was found by the disguise generator's long run (benchmarks/disguise_classes.py,
seed 0) after the evaluator landed: the traced oracle saw the disk tool run on the device
(``mkfs.ext4 /dev/sdz9``, ``zstd … -o /dev/sdb``) while Tether judged the command ``none``.
``devices.canonical`` now reads ``//``, ``/./``, ``..`` and ``/proc/self/root`` before any
device check, so the verdict is the one the plain spelling gets.
"""

from __future__ import annotations

import pytest

from tether.classify import classify_command
from tether.rules.base import Danger
from tether.rules.danger.devices import canonical

FOUND = [
    "mkfs.ext4 //dev/vg0/root",
    'set -- mkfs.ext4 //dev/vg0/root; "$@"',
    "eval 'mkfs.ext4 //tmp/../dev/sdz9'",
    'typeset v0=disk.img; pv "$v0" -o //dev/sda',
    "pv disk.img -o /proc/self/root/proc/self/root/dev/sda",
    'readonly v0=-d; zstd "$v0" img.zst -o /tmp/../dev/sdb',
    "zstd -d img.zst -o /proc/self/root/tmp/../dev/sdb",
    "zstd -d img.zst -o /proc/self/root/proc/self/root/dev/sdb",
    "IFS=,; c=zpool,create,-f,tank,/.//dev/sdb; $c",
    "dd if=/dev/zero of=/proc/1/root/dev/sda",
]


@pytest.mark.parametrize("command", FOUND)
def test_a_respelt_device_is_the_device(command: str) -> None:
    assert classify_command(command).danger is Danger.HARDLINE, command


@pytest.mark.parametrize(
    ("respelt", "plain"),
    [
        ("echo 1 > /proc/self/root/proc/sys/kernel/sysrq", "echo 1 > /proc/sys/kernel/sysrq"),
        ("dd if=x of=/./etc/passwd", "dd if=x of=/etc/passwd"),
        ("pv disk.img -o /proc/self/root/tmp/out.img", "pv disk.img -o /tmp/out.img"),
    ],
)
def test_a_respelt_path_gets_the_plain_spelling_s_verdict(respelt: str, plain: str) -> None:
    assert classify_command(respelt).danger is classify_command(plain).danger


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("//dev/sda", "/dev/sda"),
        ("/./dev/sda", "/dev/sda"),
        ("/tmp/../dev/sdb", "/dev/sdb"),
        ("/proc/self/root/proc/thread-self/root/dev/sda", "/dev/sda"),
        ("/proc/42/root/dev/sda1", "/dev/sda1"),
        ("/.//dev/sdb/", "/dev/sdb/"),
        ("//", "/"),
        ("dev/sda", "dev/sda"),  # relative: where it lands depends on the working directory
        ("/proc/self/cwd/sda", "/proc/self/cwd/sda"),  # the working directory, not the root
        ("/dev/sda", "/dev/sda"),
    ],
)
def test_canonical(path: str, expected: str) -> None:
    assert canonical(path) == expected


@pytest.mark.parametrize(
    "command",
    ["mkfs.ext4 //tmp/disk.img", "pv disk.img -o //tmp/out.img", "cat //dev/null"],
)
def test_a_respelt_file_stays_a_file(command: str) -> None:
    assert classify_command(command).danger is Danger.NONE, command
