"""Which paths are disks, and raw writes onto them by tools that write anything anywhere.

Output redirects, dd's ``of=`` (and dcfldd, dc3dd) and every tool's output-file options and
operands (``curl -o``, ``wget -O``, ``sort -o``, ``tee``, ``cp``, ``tar -cf``: the table is
``tether.shell.tools.OUTPUTS``) are judged by where the bytes go: a disk (DG401, by the names
disks have, a glob tried against those names without touching the filesystem), a kernel
parameter under /proc/sys (DG416), the SysRq trigger (DG432) or another system file (DG409,
for the writers privilege.py does not judge).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tether.quoting import quote
from tether.rules.base import Rule
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.rules.danger.kernel import KERNEL_PARAMETER_WRITE
from tether.rules.danger.paths import Place, place
from tether.rules.danger.privilege import SYSRQ, SYSRQ_TRIGGER_WRITE, SYSTEM_CONFIG_WRITE
from tether.shell.model import SimpleCommand, Word
from tether.shell.readers import RESPELL
from tether.shell.tools import OUTPUTS, SINGLE_DASH, single_dash

# Names disks have (any tool that writes a file is judged on these).
_BLOCK_DEVICE = re.compile(
    r"^/dev/(?:sd[a-z]+\d*|hd[a-z]+\d*|vd[a-z]+\d*|xvd[a-z]+\d*|nvme\d+(?:n\d+)?(?:p\d+)?"
    r"|mmcblk\d+(?:p\d+)?|md\d+|dm-\d+|loop\d+|nbd\d+|r?disk\d+(?:s\d+)?|mapper/.+"
    r"|disk/by-[^/]+/.+|sr\d+|fd\d+|ubd[a-z]+\d*|zd\d+|rbd\d+|bcache\d+|[^/]+/[^/]+)$"
)
# /dev entries that are not disks (the last alternative above, a volume group's
# /dev/VG/LV, must not catch these directories).
_NOT_DISK_DIRS = frozenset(
    {"pts", "fd", "shm", "mqueue", "hugepages", "net", "snd", "input", "bus", "dri", "char",
     "cpu", "serial", "usb", "v4l", "vfio", "dma_heap", "tcp", "udp", "bsg", "hidraw", "gpio",
     "dvb", "infiniband", "uinput", "cuse", "fuse", "lp", "ttys"}
)  # fmt: skip
# Character devices a program may well open for writing (never a disk).
_CHAR_DEVICES = frozenset(
    {"null", "zero", "full", "random", "urandom", "tty", "console", "ptmx", "kmsg", "stdin",
     "stdout", "stderr", "log", "rtc", "fuse", "watchdog", "initctl", "autofs", "cuse"}
)  # fmt: skip


_ROOT_ALIAS = re.compile(r"^(?:/proc/(?:self|thread-self|\d+)/root(?=/))+")


def canonical(path: str) -> str:
    """Spell an absolute path as the kernel resolves it, lexically: ``//dev/sda``,
    ``/./dev/sda``, ``/tmp/../dev/sda`` and ``/proc/self/root/dev/sda`` are ``/dev/sda``.
    (``..`` is read lexically: the roots these spellings climb through are not links.)"""
    if path[:1] != "/" or not ("//" in path or "/." in path or path[:6] == "/proc/"):
        return path
    path = _ROOT_ALIAS.sub("", path)
    trailing = "/" if path.endswith("/") and len(path) > 1 else ""
    import posixpath  # only for the rare spelt-out path

    normal = posixpath.normpath(path)
    normal = "/" + normal.lstrip("/")  # POSIX keeps a leading '//'; Linux reads it as '/'
    return normal + trailing if normal != "/" else normal


def is_block_device(path: str) -> bool:
    """Return True for a disk or partition device path (``/dev/sda1``, ``/dev/vg0/root``)."""
    path = canonical(path)
    if not _BLOCK_DEVICE.match(path):
        return False
    head = path[5:].split("/", 1)[0]
    return head not in _NOT_DISK_DIRS


# Disk names a glob such as ``/dev/sd?`` or ``/dev/nvme*`` is tried against (no filesystem
# access: the command is judged, not this machine).
_DISK_SAMPLES = (
    "/dev/sda", "/dev/sdb", "/dev/sda1", "/dev/hda", "/dev/vda", "/dev/vdb", "/dev/xvda",
    "/dev/nvme0n1", "/dev/nvme0n1p1", "/dev/mmcblk0", "/dev/mmcblk0p1", "/dev/md0",
    "/dev/dm-0", "/dev/disk0", "/dev/rdisk0", "/dev/loop0", "/dev/nbd0",
)  # fmt: skip


def may_be_block_device(word: Word) -> bool:
    """Return True when ``word`` names a disk, or is a glob that can match one."""
    path = canonical(word.value)
    if path[:5] != "/dev/":
        return False
    if word.glob and any(c in path for c in "*?["):
        import fnmatch  # only for globbed /dev paths

        return any(fnmatch.fnmatchcase(disk, path) for disk in _DISK_SAMPLES)
    return is_block_device(path)


def names_device(path: str) -> bool:
    """Return True when a disk tool's operand can only be a device (any /dev path but a tty)."""
    path = canonical(path)
    if not path.startswith("/dev/") or len(path) <= 5:
        return False
    head = path[5:].split("/", 1)[0]
    # zram and ram disks hold nothing that outlives a reboot (``mkswap /dev/zram0`` is setup).
    return not (
        head in _NOT_DISK_DIRS
        or head in _CHAR_DEVICES
        or head.startswith(("tty", "pty", "zram"))
        or (head.startswith("ram") and head[3:].isdigit())
    )


def _disk_rule() -> Rule:
    # disks.py defines DG401 and imports this module: read at call time, once both exist.
    from tether.rules.danger.disks import DISK_FORMAT_OR_RAW_WRITE

    return DISK_FORMAT_OR_RAW_WRITE


def write_target(
    word: Word, cmd: SimpleCommand, scope: Scope, *, system_files: bool = True
) -> tuple[Rule, str] | None:
    """Judge a path a command writes raw bytes to: (the rule it breaks, what it is) or None.

    A disk is DG401; a kernel parameter under /proc/sys is DG416; another system file
    (``dd of=/etc/passwd``) is DG409, unless ``system_files`` is False (the writers whose
    system-file writes privilege.py judges: redirects, cp, tee).
    """
    path = canonical(word.value)
    if path[:5] == "/dev/" and may_be_block_device(word):
        return _disk_rule(), "a disk"
    if path[:10] == "/proc/sys/":
        return KERNEL_PARAMETER_WRITE, "a kernel parameter"
    if (
        not system_files
        or not path.startswith(("/", "~", "$", "="))
        or path.startswith(("/dev/", "/proc/"))
    ):
        return None
    where, _ = place(word._replace(value=path) if path != word.value else word, cmd, scope)
    if where in (Place.SYSTEM, Place.SYSTEM_ROOT, Place.ROOT):
        return SYSTEM_CONFIG_WRITE, "a system file"
    return None


def output_targets(name: str, cmd: SimpleCommand) -> list[Word]:
    """Return the files ``name`` writes its bytes to, by its entry in ``tools.OUTPUTS``."""
    args = cmd.args
    if name == "qemu-img":  # ``qemu-img convert …``: the subcommand's own grammar
        if not args or args[0].value != "convert":
            return []
        name, args = "qemu-img convert", args[1:]
    if name in _RESPELLED:
        args = RESPELL[name](args)  # xxd reads an option word by its first letter
    parsed = single_dash(name, args) if name in _SINGLE_DASH else options_of(name, args)
    if parsed.has("--help", "--version"):
        return []
    if name in ("dd", "dcfldd", "dc3dd"):
        return [Word(w.value[3:], w.literal) for w in parsed.operands if w.value[:3] == "of="]
    spec = OUTPUTS.get(name)
    if spec is None or (spec.only_with and not parsed.has(*spec.only_with)):
        return []
    targets = [_word_of(v, cmd.args) for v in parsed.values(*spec.options)] if spec.options else []
    into = parsed.values(spec.into)[-1:] if spec.into else []
    if into:
        # ``curl --output-dir /dev -o sda``: a relative name lands in that directory.
        targets = [
            t if t.value[:1] in ("/", "~", "$", "-") else t._replace(value=f"{into[0]}/{t.value}")
            for t in targets
        ]
    operands = parsed.operands
    if spec.operands == "all":
        targets += operands
    elif spec.operands == "second":
        targets += operands[1:2]
    elif spec.operands == "last":
        # Into the option's directory (``cp -t DIR``), else onto the last of two or more.
        return targets[-1:] or (list(operands[-1:]) if len(operands) >= 2 else [])
    return targets


# The writers read other than by getopt (names known at import: no table lookup per command).
_RESPELLED = frozenset(n for n in OUTPUTS if n in RESPELL)
_SINGLE_DASH = frozenset(n for n in OUTPUTS if n in SINGLE_DASH)


def _word_of(value: str, args: tuple[Word, ...]) -> Word:
    """Return an option's value as a word, quoted or globbed as the word that spelt it was."""
    for w in args:
        if w.value == value or (w.value.endswith(value) and w.value[:1] == "-"):
            return Word(value, w.literal, w.glob)  # ``-o FILE``, or ``-oFILE`` / ``--output=FILE``
    return Word(value)


# The writers privilege.py judges onto system files (DG409) and the SysRq trigger (DG432);
# for dd only the trigger (what it writes there decides, as for a redirect).
_SYSTEM_FILES_ELSEWHERE = frozenset({"tee", "cp", "install"})
_SYSRQ_ELSEWHERE = _SYSTEM_FILES_ELSEWHERE | {"dd"}


def check_raw_write(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag a tool writing onto a disk, /proc/sys or a system file, by its output options."""
    name = name_of(cmd)
    for w in output_targets(name, cmd):
        if w.value == SYSRQ and name not in _SYSRQ_ELSEWHERE:
            yield SYSRQ_TRIGGER_WRITE.hit(
                f"{name} writes {quote(w.value)}: the kernel acts on it at once"
            )
            return
        found = write_target(w, cmd, scope, system_files=name not in _SYSTEM_FILES_ELSEWHERE)
        if found is None:
            if unknown_device(w) or (name in _RAW_COPIERS and not w.literal):
                yield _unknown_target().hit(
                    f"{name} writes onto {quote(w.value)}, only known at run time"
                )
                return
            continue
        yield found[0].hit(f"{name} writes onto {quote(w.value)} ({found[1]})")
        return


def check_device_redirects(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag output redirects onto block devices and kernel parameters (``> /dev/sda``)."""
    for r in cmd.redirects:
        target = r.target
        if r.op not in (">", ">>", ">|", "&>", "&>>", "<>") or target is None:
            continue
        found = write_target(target, cmd, scope, system_files=False)  # those: privilege.py
        if found is not None:
            yield found[0].hit(f"redirect into {quote(target.value)} ({found[1]})")
        elif unknown_device(target):
            yield _unknown_target().hit(
                f"redirect into {quote(target.value)}, a device only known at run time"
            )


def _unknown_target() -> Rule:
    """DG420, defined by disks.py (which imports this module: imported where it is used)."""
    from tether.rules.danger.disks import DISK_TOOL_UNKNOWN_TARGET

    return DISK_TOOL_UNKNOWN_TARGET


# The raw copiers: an output only known at run time may be a disk (``dd of=$DISK``).
_RAW_COPIERS = frozenset({"dd", "dcfldd", "dc3dd"})


def unknown_device(word: Word) -> bool:
    """Return True for a /dev path whose device name is only known at run time (``/dev/$d``)."""
    path = word.value
    return (not word.literal and path[:5] == "/dev/" and path[5:6] in ("$", "`")) or (
        not word.literal and path.startswith("/dev/disk/") and "$" in path
    )


WRITERS = ("dd", "dcfldd", "dc3dd", "qemu-img", *(n for n in OUTPUTS if " " not in n))
