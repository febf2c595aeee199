"""DG401, DG417, DG420: formatting, wiping, partitioning and raw writes onto disks.

A disk is judged by the command, never by the machine Tether runs on: ``mkfs.ext4 /dev/sdz9``
is the same act whether or not this host has an ``sdz``. Tools that only make sense on a
disk (mkfs, wipefs, blkdiscard, the partitioners) are judged on any ``/dev`` path that is not
a character device everyone writes to (``/dev/null``, ``/dev/tty``); tools that write anything
anywhere (cp, tee, dd, pv, a redirect) are judged on the names disks have (``devices.py``).
"""

from __future__ import annotations

from collections.abc import Iterator

from tether.quoting import quote
from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.rules.danger.devices import (
    WRITERS,
    check_raw_write,
    is_block_device,
    names_device,
    write_target,
)
from tether.shell.model import SimpleCommand, Word
from tether.shell.options import parse
from tether.shell.tools import tool_grammar

_AS_IMAGE = "Work on an image file (`dd of=disk.img`, `mkfs.ext4 disk.img`, `sfdisk disk.img`)"
DISK_FORMAT_OR_RAW_WRITE = Rule(
    code="DG401",
    name="disk-format-or-raw-write",
    tier=Tier.HARDLINE,
    summary="Create a filesystem on, wipe, replace the partition table of, or write raw "
    "data to a block device",
    why="Hardline: mkfs, wipefs -a, blkdiscard, shred, a new partition table (sfdisk, "
    "parted mklabel, sgdisk --zap-all), a new LUKS, RAID, ZFS or LVM header (cryptsetup "
    "luksFormat, mdadm --create, zpool create, pvcreate), a drive's own erase (nvme "
    "format, hdparm --security-erase) or any write onto /dev/sdX (dd, cp, tee, pv, "
    "`> /dev/nvme0n1`, any tool's output option: `curl -o`, `wget -O`, `sort -o`, "
    "`tar -cf`) erases a whole disk in seconds, and nothing brings it back. Judged "
    "by the command, not by whether the device exists on this machine.",
    instead=_AS_IMAGE + " or ask the user to run disk operations themselves.",
    match=(
        "mkfs.ext4 /dev/sda1",
        "mkfs /dev/sdb",
        "mkfs.ext4 /dev/sdz9",
        "mkfs.ext4 /dev/vg0/root",
        "mkfs -t ext4 /dev/mapper/data",
        "dd if=/dev/zero of=/dev/sda bs=1M",
        "echo bad > /dev/sda",
        "wipefs -a /dev/nvme0n1",
        "wipefs --al /dev/sdb",
        "shred -n 1 /dev/sdb",
        "sudo blkdiscard /dev/nvme0n1",
        "cat /dev/urandom > /dev/sdb",
        "cat disk.img > /dev/nvme0n1",
        "echo x | tee /dev/sda",
        "cp disk.img /dev/sda",
        "cp -f /dev/zero /dev/sdb",
        "pv disk.img -o /dev/sda",
        "ddrescue -f disk.img /dev/sdb map.log",
        "sgdisk --zap-all /dev/sda",
        "sgdisk --zap /dev/sda",
        "sgdisk -oZ /dev/sda",
        "sfdisk /dev/sda < layout.txt",
        "sfdisk --delete /dev/sda",
        "parted -s /dev/sda mklabel gpt",
        "badblocks -w /dev/sdb",
        "cryptsetup luksFormat /dev/sdb",
        "cryptsetup -q --type luks2 luksFormat /dev/nvme0n1p3",
        "mdadm --zero-superblock /dev/sdb1",
        "mdadm -C /dev/md0 -l1 -n2 /dev/sdb /dev/sdc",
        "zpool create -f tank /dev/sdb",
        "zpool create tank mirror sdb sdc",
        "pvcreate /dev/sdc",
        "nvme format /dev/nvme0n1",
        "hdparm --security-erase NULL /dev/sda",
        "dcfldd if=/dev/zero of=/dev/sdb",
        "busybox dd if=/dev/zero of=/dev/sda",
        "cat disk.img > /dev/sd[a]",
        "cp disk.img /dev/nvme0n?",
        "busybox mkfs.ext2 /dev/sdb1",
        "curl -o /dev/sda http://x",
        "curl -sSLo /dev/nvme0n1 https://x/img",
        "curl --output=/dev/sdb http://x",
        "wget -O /dev/sda http://x",
        "wget -q --output-document /dev/sda http://x",
        "wget -o /dev/sda http://x",
        "sort -o /dev/sda f",
        "sort f --output=/dev/sdb",
        "tar -cf /dev/sda dir",
        "tar --create --file=/dev/sdb dir",
        "uniq in /dev/sda",
        "sponge /dev/sda",
        "zstd -d img.zst -o /dev/sdb",
        "curl -o /dev/sd? http://x",
        "curl --output-dir /dev -o sda http://x",
        "aria2c -d /dev -o sdb http://x/img",
        'python3 -c \'open("/dev/sda", "wb").write(bytes(4096))\'',
        "node -e \"require('fs').writeFileSync('/dev/nvme0n1', Buffer.alloc(512))\"",
        "perl -e 'open(my $f, \">/dev/sda\"); print $f 0'",
    ),
    not_match=(
        "dd if=/dev/zero of=./image.bin",
        "dd if=/dev/sda of=backup.img",
        "cp /dev/sda disk.img",
        "cat /dev/sda > disk.img",
        "ls /dev/sda",
        "echo test > /dev/null",
        "mkfs_helper --version",
        "cat /dev/urandom | head -c 10",
        "mkfs.ext4 disk.img",
        "wipefs /dev/sda",
        "wipefs -n -a /dev/sda",
        "sfdisk -l /dev/sda",
        "sfdisk --dump /dev/sda > table.txt",
        "sgdisk -p /dev/sda",
        "sgdisk --backup=table.bin /dev/sda",
        "ddrescue /dev/sdb disk.img map.log",
        "curl -o out.html http://x",
        "curl -o - http://x",
        "curl -o '/dev/sd*' http://x",
        "curl -o /dev/null http://x",
        "curl --output-dir dl -o sda http://x",
        "aria2c -d /dev -o /tmp/img http://x/img",
        "wget -O page.html http://x",
        "sort -o sorted.txt f",
        "sort /dev/sda",
        "tar -xf /dev/sr0",
        "tar -cf out.tar dir",
        "uniq /dev/sda out.txt",
        "zstd -d img.zst -o img",
        "badblocks -n /dev/sdb",
        "shred -u secret.txt",
        "tee /dev/stderr",
        "echo x > /dev/tty*",
        "mkswap /dev/zram0",
        "cryptsetup open /dev/sdb data",
        "mdadm --detail /dev/md0",
        "zpool status",
        "zpool create tank /tmp/disk.img",
        "pvs",
        "nvme list",
        "hdparm -I /dev/sda",
        'python3 -c \'open("/dev/sda", "rb").read(512)\'',
        'python3 -c \'open("/dev/null", "w")\'',
    ),
)

DISK_PARTITION = Rule(
    code="DG417",
    name="disk-partition",
    tier=Tier.ASK,
    summary="Open a disk in a partition editor, or add, delete or change one partition",
    why="Ask, not hardline: fdisk, gdisk, cfdisk and parted on a disk edit its partition "
    "table, and deleting or moving one partition cuts its data off; but the data stays "
    "on the disk (parted `rescue`, testdisk bring a lost partition back), unlike a new "
    "table or a wipe (DG401). Listing forms (`fdisk -l`, `parted -l`, `sgdisk -p`) are "
    "reads and not flagged.",
    instead=_AS_IMAGE + "; list with `lsblk`, `fdisk -l` or `parted -l`, and let the "
    "user change real partitions.",
    match=(
        "fdisk /dev/sda",
        "sudo fdisk /dev/nvme0n1",
        "gdisk /dev/sdb",
        "cfdisk /dev/sda",
        "parted /dev/sda",
        "parted /dev/sda rm 1",
        "parted -s /dev/sdb mkpart primary ext4 1MiB 100%",
        "parted --script /dev/sda resizepart 2 100%",
        "sgdisk -n 1:0:0 /dev/sda",
        "sgdisk --delete=2 /dev/sda",
        "sfdisk --delete /dev/sda 2",
        "sfdisk --part-type /dev/sda 1 83",
        "echo ',,L' | sfdisk --append /dev/sdb",
    ),
    not_match=(
        "fdisk -l",
        "fdisk -l /dev/sda",
        "fdisk --list-details /dev/sda",
        "parted -l",
        "parted /dev/sda print",
        "parted -s /dev/sda unit MiB print free",
        "gdisk -l /dev/sda",
        "cfdisk -r /dev/sda",
        "sgdisk --print /dev/sda",
        "sgdisk -P -n 1:0:0 /dev/sda",
        "sfdisk --part-type /dev/sda 1",
        "sfdisk -J /dev/sda",
        "fdisk disk.img",
    ),
)

DISK_TOOL_UNKNOWN_TARGET = Rule(
    code="DG420",
    name="disk-tool-unknown-target",
    tier=Tier.ASK,
    summary="Format, wipe or raw-write a target only known at run time (mkfs $DEV, dd of=/dev/$d)",
    why="Ask, not hardline: mkfs, wipefs -a, blkdiscard or cryptsetup luksFormat on `$DEV`, "
    "a loop variable, xargs input or the `{}` of `find -exec` (each match, past the "
    "first), and dd or a redirect onto `/dev/$d` or `of=$DISK`, destroy a disk when the "
    "value is one, and the command line does not say; it "
    "may as well be an image file, so a human looks.",
    instead="Name the target literally (an image file: `mkfs.ext4 disk.img`) so it can be "
    "judged, or ask the user to run the disk operation.",
    match=(
        "mkfs.ext4 $DEV",
        'mkfs.xfs -f "$1"',
        "for d in /dev/sd?; do wipefs -a $d; done",
        "ls /dev/sd* | xargs wipefs -a",
        "blkdiscard $(findmnt -no SOURCE /data)",
        "cryptsetup luksFormat $PART",
        "find / -name x -exec wipefs -a {} \\;",
        "find /dev -name 'sd*' -exec wipefs -a {} +",
        "find . -name '*.img' -exec mkfs.ext4 -F {} \\;",
        "dd if=/dev/zero of=/dev/$d bs=1M",
        "dd if=/dev/zero of=/dev/$(lsblk -dno NAME | head -1)",
        "dd if=/dev/zero of=$DISK",
        "cat /dev/zero > /dev/$DEV",
    ),
    not_match=(
        "mkfs.ext4 disk.img",
        "dd if=/dev/zero of=disk.img bs=1M count=1",
        "dd if=$IMG of=out.img",
        "echo hi > $OUT",
        "find / -name x -exec wipefs {} \\;",
        "find . -exec ls {} \\;",
        "wipefs $DEV",
        "shred -u $FILE",
        "echo mkfs.ext4 $DEV",
    ),
)

RULES = (
    DISK_FORMAT_OR_RAW_WRITE,
    DISK_PARTITION,
    DISK_TOOL_UNKNOWN_TARGET,
)

_MKFS = frozenset({"mke2fs", "mkswap", "newfs", "mkdosfs", "mkntfs", "mkexfatfs", "mkreiserfs"})
_PARTITIONERS = frozenset({"fdisk", "sfdisk", "cfdisk", "gdisk", "cgdisk", "sgdisk", "parted"})


def check_disk(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag filesystems made on, wipes of, partition edits of and raw writes onto disks."""
    name = name_of(cmd)
    args = cmd.args
    if name.startswith("mkfs") or name in _MKFS:
        # Every word: a device may be an operand or an option's value (``-l logdev=…``).
        for w in args:
            device = w.value.partition("=")[2] if "=" in w.value else w.value
            if names_device(device):
                yield DISK_FORMAT_OR_RAW_WRITE.hit(f"{name} on {device}")
                return
        yield from _unknown_target(name, options_of(name, args).operands)
    elif name in _PARTITIONERS:
        yield from _partition(name, cmd)
    elif name in ("wipefs", "blkdiscard", "shred", "badblocks"):
        yield from _wipe(name, cmd, scope)
    elif name in _HEADERS:
        yield from _header(name, cmd)
    elif name == "diskutil":
        verb = parse(tool_grammar(name), args, stop_at=1).operands[:1]
        if verb and verb[0].value.lower() in _DISKUTIL_ERASE:
            yield DISK_FORMAT_OR_RAW_WRITE.hit("diskutil " + " ".join(w.value for w in args[:2]))
    else:
        yield from check_raw_write(cmd, scope)


def _devices(words: tuple[Word, ...]) -> list[str]:
    return [w.value for w in words if names_device(w.value)]


def _unknown_target(name: str, operands: tuple[Word, ...]) -> Iterator[Hit]:
    """A disk tool whose target is only known at run time (``$d``, xargs input, find's
    ``{}``): ask."""
    dynamic = [w.value for w in operands if not w.literal or "{}" in w.value]
    if dynamic:
        yield DISK_TOOL_UNKNOWN_TARGET.hit(
            f"{name} on {dynamic[0]}, a target only known at run time"
        )


def _wipe(name: str, cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    parsed = options_of(name, cmd.args)
    if parsed.has("--help", "--version"):
        return
    devices = _devices(parsed.operands)
    destructive = {
        "wipefs": (parsed.maybe("--all") or parsed.has("--offset")) and not parsed.has("--no-act"),
        "blkdiscard": True,
        "shred": True,
        "badblocks": parsed.has("-w"),
    }[name]
    if devices and destructive:
        yield DISK_FORMAT_OR_RAW_WRITE.hit(f"{name} on {devices[0]}")
    elif destructive and name != "shred":
        yield from _unknown_target(name, parsed.operands)
    elif name == "shred":
        for w in parsed.operands:
            found = write_target(w, cmd, scope)
            if found is not None and found[0] is not DISK_FORMAT_OR_RAW_WRITE:
                yield found[0].hit(f"shred overwrites {quote(w.value)} ({found[1]})")
                return


# Whole-table rewrites (DG401) and one-partition edits (DG417), per partitioner's options.
_SGDISK_TABLE = ("--zap-all", "--zap", "--clear", "--load-backup", "--replicate")
_SGDISK_READ = frozenset(
    {"--print", "--print-mbr", "--info", "--verify", "--list-types", "--backup", "--version",
     "--help", "--usage", "--display-alignment", "--end-of-largest", "--first-in-largest",
     "--first-aligned-in-largest", "--set-alignment"}
)  # fmt: skip
_SFDISK_READ = (
    "--dump", "--json", "--backup-pt-sectors", "--show-geometry", "--list", "--list-free",
    "--show-size", "--list-types", "--verify", "--no-act", "--help", "--version",
    "--show-pt-geometry",
)  # fmt: skip
_PARTED_TABLE = frozenset({"mklabel", "mktable"})
# parted's commands that change a table (``print``, ``unit``, ``align-check`` … only read).
_PARTED_EDIT = frozenset(
    {"rm", "mkpart", "mkpartfs", "resizepart", "resize", "rescue", "name", "set", "toggle",
     "disk_set", "disk_toggle", "type", "move", "cp", "mkfs"}
)  # fmt: skip


def _partition(name: str, cmd: SimpleCommand) -> Iterator[Hit]:
    parsed = options_of(name, cmd.args)
    operands = parsed.operands
    if name == "parted":
        if parsed.has("--list", "--help", "--version") or not operands:
            return
        device = operands[0].value
        words = [p for w in operands[1:] for p in w.value.lower().split()]
        if not names_device(device):
            return
        if any(w in _PARTED_TABLE for w in words):
            yield DISK_FORMAT_OR_RAW_WRITE.hit(
                f"parted {device} mklabel (a new, empty partition table)"
            )
        elif not words or any(w in _PARTED_EDIT for w in words):
            yield DISK_PARTITION.hit(f"parted {device} {' '.join(words[:3])}".rstrip())
        return
    devices = _devices(operands)
    if not devices:
        return
    if name == "sgdisk":
        given = [o for o, _v in parsed.options if o.startswith("--")]
        if parsed.has("--pretend") or not given:
            return
        table = [o for o in _SGDISK_TABLE if parsed.has(o)]
        if table:
            yield DISK_FORMAT_OR_RAW_WRITE.hit(f"sgdisk {table[0]} on {devices[0]}")
        elif any(o not in _SGDISK_READ for o in given):
            yield DISK_PARTITION.hit(f"sgdisk {given[0]} on {devices[0]}")
    elif name == "sfdisk":
        if parsed.has(*_SFDISK_READ):
            return
        extra = len(operands) - 1
        if parsed.has("--delete"):
            code = DISK_PARTITION.code if extra else DISK_FORMAT_OR_RAW_WRITE.code
            yield Hit(code, f"sfdisk --delete {' '.join(w.value for w in operands[:3])}")
        elif parsed.has("--part-label", "--part-type", "--part-uuid", "--part-attrs"):
            if extra >= 2:
                yield DISK_PARTITION.hit(f"sfdisk changes a partition of {devices[0]}")
        elif parsed.has("--disk-id", "--activate"):
            if extra >= 1:
                yield DISK_PARTITION.hit(f"sfdisk changes {devices[0]}")
        elif parsed.has("--reorder", "--relocate", "--append", "--partno"):
            yield DISK_PARTITION.hit(f"sfdisk edits the partition table of {devices[0]}")
        else:
            yield DISK_FORMAT_OR_RAW_WRITE.hit(f"sfdisk {devices[0]} writes a new partition table")
    elif name == "fdisk":
        if not parsed.has("--list", "--list-details", "--getsz", "--help", "--version"):
            yield DISK_PARTITION.hit(f"fdisk {devices[0]}")
    elif name == "gdisk":
        if not parsed.has("-l"):
            yield DISK_PARTITION.hit(f"gdisk {devices[0]}")
    elif name == "cfdisk":
        if not parsed.has("--read-only", "--help", "--version"):
            yield DISK_PARTITION.hit(f"cfdisk {devices[0]}")
    else:  # cgdisk: no options, interactive
        yield DISK_PARTITION.hit(f"{name} {devices[0]}")


# Tools that write a new header or erase over a whole device: the action (an operand word,
# lower-cased, or an option) that does it.
_HEADERS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "cryptsetup": (frozenset({"luksformat", "erase", "lukserase"}), ()),
    "mdadm": (frozenset(), ("--zero-superblock", "--create", "-C")),
    "zpool": (frozenset({"create", "labelclear"}), ()),
    "pvcreate": (frozenset(), ()),
    "nvme": (frozenset({"format", "sanitize"}), ()),
    "hdparm": (frozenset(), ("--security-erase", "--security-erase-enhanced",
                             "--trim-sector-ranges")),
    "sg_format": (frozenset(), ("--format", "-F")),
}  # fmt: skip


def _header(name: str, cmd: SimpleCommand) -> Iterator[Hit]:
    parsed = options_of(name, cmd.args)
    if parsed.has("--help", "--version", "-h"):
        return
    verbs, options = _HEADERS[name]
    words = [w.value for w in parsed.operands]
    acts = (not verbs and not options) or parsed.has(*options)
    acts = acts or any(w.lower() in verbs for w in words[:3])
    # zpool names its disks bare (``sdb``) as well as by path.
    devices = [w for w in words if names_device(w) or (name == "zpool" and _bare_disk(w))]
    if acts and devices:
        yield DISK_FORMAT_OR_RAW_WRITE.hit(
            f"{name} {' '.join(words[:1])} on {devices[0]}".replace("  ", " ")
        )
    elif acts:
        yield from _unknown_target(name, parsed.operands)


def _bare_disk(word: str) -> bool:
    return "/" not in word and is_block_device("/dev/" + word)


_DISKUTIL_ERASE = frozenset(
    {"erasedisk", "erasevolume", "zerodisk", "randomdisk", "secureerase", "partitiondisk",
     "reformat"}
)  # fmt: skip


NAMES = (
    "mkfs",
    *_MKFS,
    *_PARTITIONERS,
    "wipefs",
    "blkdiscard",
    "shred",
    "badblocks",
    "diskutil",
    *_HEADERS,
    *WRITERS,
)
CHECKS = {n: check_disk for n in NAMES}
