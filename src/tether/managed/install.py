"""``tether install --managed``: install Tether where the user's processes cannot change it.

Run as root. Steps, each idempotent (a second run refreshes and changes nothing else):

1. the system user ``tether`` (``useradd --system``), which the daemon runs as;
2. the code: a venv under ``/opt/tether`` on a root-owned interpreter every user can run, with
   this installation's ``tether`` package and the distributions it needs copied in (no
   network), compiled, every file root's and closed to others' writes;
3. the folders: ``/etc/tether`` (root's; ``config.yaml``), ``/var/lib/tether`` and
   ``/var/cache/tether`` (the daemon user's, 0700);
4. each host's managed settings (:mod:`tether.managed.hosts`);
5. the record ``/etc/tether/managed.json`` and a systemd unit that runs the daemon
   (``tether.daemon.managed``: binds ``/run/tether/tether.sock`` as root, then drops to
   ``tether``), started when systemd runs.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator, Sequence
from importlib.metadata import Distribution, PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

from tether.errors import InputError
from tether.managed import (
    CACHE,
    CONFIG,
    ETC,
    HOST_FILES,
    PREFIX,
    RECORD,
    SOCKET,
    STATE,
    UNIT,
    USER,
    Record,
)
from tether.managed import hosts as managed_hosts

PY_VERSION = f"{sys.version_info[0]}.{sys.version_info[1]}"
CONFIG_TEXT = """\
# Tether's managed configuration (tether install --managed): only root can change it.
# Users' own config files and TETHER_* variables are not read; a project's .tether.yaml may
# only tighten this (docs/trust.md). Keys: docs/config.md.
loops:
  warnings: true
"""

UNIT_TEXT = """\
[Unit]
Description=Tether guardrails daemon (managed install)
After=local-fs.target

[Service]
# Starts as root to bind {socket} in a root-owned folder, then runs as the user {user}.
ExecStart={python} -I -m tether.daemon.managed
Restart=always
RestartSec=1

[Install]
WantedBy=multi-user.target
"""


def require_root() -> None:
    """Raise unless this process runs as root."""
    if os.geteuid() != 0:
        raise InputError(
            "a managed install changes system files (/etc, /opt, /var/lib) and creates a "
            "system user: run it as root (sudo tether install --managed)"
        )


# -- 1. the daemon's user -------------------------------------------------------------------


def ensure_user(name: str = USER) -> tuple[int, int]:
    """Create the system user ``name`` unless it exists; return its uid and gid."""
    import pwd

    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        subprocess.run(
            [
                "useradd", "--system", "--no-create-home", "--home-dir", STATE,
                "--shell", "/usr/sbin/nologin", "--user-group", name,
            ],
            check=True,
            capture_output=True,
        )  # fmt: skip
        entry = pwd.getpwnam(name)
    if entry.pw_uid == 0:
        raise InputError(f"the user {name!r} is root; the daemon must run as a user of its own")
    return entry.pw_uid, entry.pw_gid


# -- 2. the code ----------------------------------------------------------------------------


def _closed(path: str) -> str | None:
    """Return why ``path`` (a file or folder) could be changed by a user, else None."""
    st = os.stat(path)
    if st.st_uid != 0:
        return f"{path} belongs to uid {st.st_uid}, not root"
    if st.st_mode & 0o022 and not (stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX):
        return f"{path} can be written by others (mode {st.st_mode & 0o7777:o})"
    if not st.st_mode & 0o001:
        return f"{path} cannot be run or entered by other users (mode {st.st_mode & 0o7777:o})"
    return None


def interpreter_problem(path: str) -> str | None:
    """Return why ``path`` cannot be the managed interpreter, else None.

    It and every folder above it must be root's, closed to others' writes and usable by every
    user, and it must be this Python's version: the compiled extensions copied in are.
    """
    real = os.path.realpath(path)
    if not os.path.isfile(real):
        return f"{path}: no such interpreter"
    current = real
    while True:
        problem = _closed(current)
        if problem is not None:
            return problem
        if current == "/":
            break
        current = os.path.dirname(current)
    done = subprocess.run(
        [real, "-I", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=False,
    )
    want = PY_VERSION
    if done.returncode != 0 or done.stdout.strip() != want:
        return f"{path} is Python {done.stdout.strip() or '?'}, not {want} (this Tether's)"
    return None


def choose_python(given: str | None) -> str:
    """Return the interpreter for the managed venv (``--python``, else a suitable one)."""
    if given:
        problem = interpreter_problem(given)
        if problem is not None:
            raise InputError(f"--python {given}: {problem}")
        return os.path.realpath(given)
    version = PY_VERSION
    base = getattr(sys, "_base_executable", "") or sys.executable
    candidates = [base, f"/usr/bin/python{version}", f"/usr/local/bin/python{version}"]
    problems = []
    for candidate in dict.fromkeys(c for c in candidates if c):
        problem = interpreter_problem(candidate)
        if problem is None:
            return os.path.realpath(candidate)
        problems.append(problem)
    raise InputError(
        "no interpreter every user can run and only root can change was found ("
        + "; ".join(problems)
        + f"): install Python {version} system-wide and name it with --python"
    )


def _requirements(dist: Distribution) -> Iterator[str]:
    for line in dist.requires or ():
        name, _, marker = line.partition(";")
        if "extra" in marker:
            continue
        for stop in "<>=!~[ (":
            name = name.split(stop, 1)[0]
        if name.strip():
            yield name.strip()


def distributions() -> list[Distribution]:
    """Return ``tether`` and every distribution it needs at run time (no extras)."""
    seen: dict[str, Distribution] = {}
    todo = ["tether"]
    while todo:
        name = todo.pop()
        key = name.lower().replace("_", "-").replace(".", "-")
        if key in seen:
            continue
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            raise InputError(f"{name}, which Tether needs, is not installed here") from None
        seen[key] = dist
        todo.extend(_requirements(dist))
    return list(seen.values())


def copy_code(site: Path) -> list[str]:
    """Copy this installation's ``tether`` and its distributions into ``site``; return names."""
    import tether

    names = []
    for dist in distributions():
        names.append(f"{dist.metadata['Name']} {dist.version}")
        if dist.metadata["Name"] == "tether":
            package = Path(tether.__file__).parent  # an editable install's source too
            shutil.copytree(package, site / "tether", ignore=shutil.ignore_patterns("__pycache__"))
            info = Path(str(dist._path))  # type: ignore[attr-defined]
            shutil.copytree(
                info,
                site / info.name,
                ignore=shutil.ignore_patterns("RECORD", "direct_url.json"),
            )
            continue
        for item in dist.files or ():
            if str(item).startswith("..") or "__pycache__" in str(item):
                continue  # scripts outside site-packages, bytecode: rebuilt below
            source = Path(str(dist.locate_file(item)))
            if source.is_file():
                dest = site / str(item)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest)
    return names


def _root_only(top: Path) -> None:
    """Make everything under ``top`` root's: folders 0755, files 0644 (or 0755 if run)."""
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = os.path.join(folder, name)
            os.lchown(path, 0, 0)
            if os.path.islink(path):
                continue
            mode = os.stat(path).st_mode
            if stat.S_ISDIR(mode) or mode & 0o111:
                os.chmod(path, 0o755)
            else:
                os.chmod(path, 0o644)
    os.chown(top, 0, 0)
    os.chmod(top, 0o755)


def install_code(prefix: Path, python: str) -> dict[str, Any]:
    """Build ``prefix/venv`` on ``python`` with Tether in it; return what was installed."""
    venv = prefix / "venv"
    staging = prefix / "venv.new"
    shutil.rmtree(staging, ignore_errors=True)
    prefix.mkdir(parents=True, exist_ok=True)
    os.chown(prefix, 0, 0)
    os.chmod(prefix, 0o755)
    subprocess.run([python, "-m", "venv", "--without-pip", str(staging)], check=True)
    version = f"python{PY_VERSION}"
    site = staging / "lib" / version / "site-packages"
    names = copy_code(site)
    script = staging / "bin" / "tether"
    script.write_text(
        f"#!{venv}/bin/python -I\nimport sys\nfrom tether.cli import main\nsys.exit(main())\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    subprocess.run(
        [str(staging / "bin" / "python"), "-I", "-m", "compileall", "-q", str(site)],
        check=True,
        capture_output=True,
    )
    _root_only(staging)
    # The venv's own paths name venv, not venv.new: swap the finished one in.
    old = prefix / "venv.old"
    shutil.rmtree(old, ignore_errors=True)
    if venv.exists():
        venv.rename(old)
    staging.rename(venv)
    shutil.rmtree(old, ignore_errors=True)
    _fix_venv_paths(venv, staging)
    check = subprocess.run(
        [
            str(venv / "bin" / "python"), "-I", "-c",
            "from tether.classify import classify_command; "
            "assert not classify_command('rm -rf /').read_only",
        ],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    if check.returncode != 0:
        raise InputError(f"the managed venv does not work: {check.stderr.strip()[-400:]}")
    hook = venv / "lib" / version / "site-packages" / "tether" / "daemon" / "hook.py"
    return {"venv": str(venv), "python": python, "hook": str(hook), "installed": names}


def _fix_venv_paths(venv: Path, staging: Path) -> None:
    """Point the venv's scripts (activate, …) at its final place."""
    for path in (venv / "bin").iterdir():
        if path.is_symlink() or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if str(staging) in text:
            path.write_text(text.replace(str(staging), str(venv)), encoding="utf-8")
    cfg = venv / "pyvenv.cfg"
    if cfg.exists():
        cfg.write_text(
            cfg.read_text(encoding="utf-8").replace(str(staging), str(venv)), encoding="utf-8"
        )


# -- 3. folders ------------------------------------------------------------------------------


def make_folders(root: Path, uid: int, gid: int) -> None:
    """Create the config (root's) and state and cache (the daemon user's) folders."""
    etc = root / ETC.lstrip("/")
    etc.mkdir(parents=True, exist_ok=True)
    os.chown(etc, 0, 0)
    os.chmod(etc, 0o755)
    config = root / CONFIG.lstrip("/")
    if not config.exists():
        config.write_text(CONFIG_TEXT, encoding="utf-8")
    os.chown(config, 0, 0)
    os.chmod(config, 0o644)
    for folder in (STATE, f"{STATE}/state", CACHE):
        path = root / folder.lstrip("/")
        path.mkdir(parents=True, exist_ok=True)
        os.chown(path, uid, gid)
        os.chmod(path, 0o700)


def write_unit(root: Path, python: str) -> Path | None:
    """Write the systemd unit when this system has systemd's folder; return its path."""
    folder = root / os.path.dirname(UNIT).lstrip("/")
    if not folder.is_dir():
        return None
    path = root / UNIT.lstrip("/")
    path.write_text(UNIT_TEXT.format(python=python, socket=SOCKET, user=USER), encoding="utf-8")
    os.chmod(path, 0o644)
    return path


def start_unit() -> str:
    """Start the daemon through systemd when it runs this system; return what happened."""
    if not os.path.isdir("/run/systemd/system") or shutil.which("systemctl") is None:
        return (
            f"systemd is not running here: start the daemon as root with "
            f"`{PREFIX}/venv/bin/python -I -m tether.daemon.managed` (it drops to {USER})"
        )
    for args in (["daemon-reload"], ["enable", "--now", "tether"], ["restart", "tether"]):
        subprocess.run(["systemctl", *args], check=False, capture_output=True)
    return "started: systemctl status tether"


def install(
    hosts: Sequence[str],
    *,
    python: str | None = None,
    root: Path = Path("/"),
    start: bool = True,
) -> dict[str, Any]:
    """Install Tether managed for ``hosts``; return the report ``--json`` prints."""
    require_root()
    chosen = choose_python(python)
    uid, gid = ensure_user()
    code = install_code(root / PREFIX.lstrip("/"), chosen)
    make_folders(root, uid, gid)
    from importlib.metadata import version

    site = f"{PREFIX}/venv/lib/python{PY_VERSION}/site-packages"
    record = Record(python=chosen, uid=uid, hook=f"{site}/tether/daemon/hook.py")
    record.version = version("tether")
    changed = {}
    for host in hosts:
        changed[host] = managed_hosts.install(host, record.command(host), root)
        record.hosts[host] = HOST_FILES[host]
    previous = _previous_hosts(root)
    record.hosts = {**previous, **record.hosts}
    import json

    path = root / RECORD.lstrip("/")
    path.write_text(json.dumps(record.to_json(), indent=2) + "\n", encoding="utf-8")
    os.chown(path, 0, 0)
    os.chmod(path, 0o644)
    unit = write_unit(root, f"{PREFIX}/venv/bin/python")
    started = start_unit() if start and str(root) == "/" else "not started (--no-start)"
    return {
        "mode": "managed",
        "record": str(path),
        "code": code,
        "user": {"name": USER, "uid": uid},
        "hosts": changed,
        "unit": str(unit) if unit else None,
        "daemon": started,
        "socket": SOCKET,
    }


def _previous_hosts(root: Path) -> dict[str, str]:
    from tether.managed import read_record

    found = read_record(str(root))
    return dict(found.hosts) if found is not None else {}


def uninstall(hosts: Sequence[str], *, root: Path = Path("/")) -> dict[str, Any]:
    """Take Tether's hooks out of ``hosts``' managed settings (code and state stay)."""
    require_root()
    changed = {host: managed_hosts.remove(host, root) for host in hosts}
    return {
        "mode": "managed",
        "hosts": changed,
        "kept": [PREFIX, ETC, STATE, CACHE],
        "note": "the code, config and state stay; stop the daemon with "
        "`systemctl disable --now tether` and remove them by hand if wanted",
    }


__all__ = ["choose_python", "distributions", "install", "interpreter_problem", "uninstall"]
