"""The shell scripts that build the sandbox; the command runs only after they checked it.

Stage 1 runs as the real root in a private mount namespace: it joins the run's pids cgroup
(a fork bomb stops at its limit), mounts an overlay whose lower layer is the whole root
filesystem and whose upper layer is a host directory holding the seed (so every write
anywhere lands there, where the host inspects it afterwards), binds the few harmless devices
over the seed's minimal ``/dev``, pivots into it and detaches the old root, then enters
stage 2 through ``unshare``.

Stage 2 is PID 1 of new PID, network, IPC, UTS and mount namespaces. It mounts its own
``/proc`` (with ``/proc/sys`` and ``/proc/sysrq-trigger`` read-only) and its own ``devpts``,
checks that it really is inside (the root is the overlay, the only network interface is
loopback, it is PID 1) and only then tells the host it is ready. The command runs as the
unprivileged user ``tether``, a host uid that no account and no host file has, with no
capabilities (none permitted, none inheritable, an empty bounding set), ``no_new_privs``,
an environment that holds nothing but the fixture's, and a pseudo-terminal (``script``) for
its stdout and stderr (stdin is /dev/null), so that pager and ``isatty`` paths run. With
``trace`` it runs under ``strace -f`` (root, keeping only the capabilities to trace, to read
the tracee's fds and to drop to the user), which writes to a root-only host directory; with
``halt`` too, and strace kills a process at its first destructive syscall (what was run is
on record; the rest of a ``rm -rf /`` is not worth waiting for). Any failed step exits 125
before the command is reached: a sandbox that cannot be built never runs it unguarded.
"""

from __future__ import annotations

from tether.verify.fixture import UID
from tether.verify.seed import DEVICES, SHELL, TRACE_DIR

# Syscalls the trace records: processes, working directories, and destructive operations.
TRACED = (
    "execve,execveat,chdir,fchdir,clone,clone3,fork,vfork,"
    "unlink,unlinkat,rmdir,rename,renameat,renameat2,truncate,ftruncate,"
    "chmod,fchmod,fchmodat,chown,fchown,lchown,fchownat,"
    "open,openat,openat2,creat,mknod,mknodat,mount,umount2,kill,tkill,tgkill,reboot,"
    "setxattr,lsetxattr,fsetxattr,removexattr,lremovexattr,fremovexattr"
)

# Syscalls at which ``halt`` kills the process (not tkill/tgkill: runtimes signal threads).
HALT = (
    "unlink,unlinkat,rmdir,rename,renameat,renameat2,truncate,ftruncate,chmod,fchmod,fchmodat,"
    "chown,fchown,lchown,fchownat,mknod,mknodat,mount,umount2,kill,reboot,"
    "setxattr,lsetxattr,fsetxattr,removexattr,lremovexattr,fremovexattr"
)

# Arguments: $1 run dir, $2 go fd (unused), $3 ready fd, $4 cgroup dir or "", then stage 2's.
STAGE1 = rf"""
set -eu
run=$1; go=$2; ready=$3; cg=$4; shift 4
fail() {{ echo "tether verify: sandbox stage 1 failed: $1" >&2; exit 125; }}
if [ -n "$cg" ]; then echo $$ > "$cg/cgroup.procs" || fail "cannot join the pids cgroup"; fi
eval "exec 3<&$go 4>&$ready $go<&- $ready>&-" || fail "cannot set up the sync pipes"
m=$run/merged
mount -n -t overlay overlay -o "lowerdir=/,upperdir=$run/upper,workdir=$run/ovlwork" "$m" \
  || fail "cannot mount an overlay over / (needs root and overlayfs)"
for d in {" ".join(DEVICES)}; do
  mount -n --bind "/dev/$d" "$m/dev/$d" || fail "cannot provide /dev/$d"
done
mount -n --bind "$run/trace" "$m{TRACE_DIR}" || fail "cannot provide the trace directory"
mount -n -t proc proc "$m/proc" || fail "cannot mount /proc"
cd "$m"
pivot_root . . || fail "pivot_root into the overlay failed"
umount -l . || fail "cannot detach the host root"
cd /
exec unshare --pid --net --ipc --uts --mount --propagation private --fork --kill-child \
  -- /bin/bash -c "$STAGE2" tether-verify "$@"
"""

# Arguments: $1 work dir, $2 the command, $3 plain|trace|halt, then NAME=VALUE for its environment.
STAGE2 = rf"""
set -eu
fail() {{ echo "tether verify: sandbox check failed: $1" >&2; exit 125; }}
mount -n -t proc -o nosuid,nodev,noexec proc /proc || fail "cannot mount /proc"
for p in sys sysrq-trigger; do
  [ -e "/proc/$p" ] || continue
  mount -n --bind "/proc/$p" "/proc/$p" \
    && mount -n -o remount,bind,ro,nosuid,nodev,noexec "/proc/$p" \
    || fail "cannot make /proc/$p read-only"
done
mount -n -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts /dev/pts \
  || fail "cannot mount /dev/pts"
[ "$$" = 1 ] || fail "not PID 1 of a new PID namespace"
[ "$(stat -f -c %T /)" = overlayfs ] || fail "the root is not the overlay"
[ "$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ')" = lo ] \
  || fail "a network interface other than loopback is visible"
cd "$1" || fail "no work directory"
cmd=$2; mode=$3; shift 3
ulimit -f 1048576  # 1 GiB per file: the upper layer is on the host's disk
ulimit -u 512      # processes of the sandbox user (the pids cgroup is the real bound)
echo ready >&4
exec 4>&-
user="setpriv --reuid={UID} --regid={UID} --clear-groups --inh-caps=-all --bounding-set=-all"
user="$user --no-new-privs --"
halt=
if [ "$mode" = halt ]; then halt="-e inject={HALT}:signal=SIGKILL"; mode=trace; fi
# PID 1 stays this shell (root, out of the user's reach), so that orphans are reaped here
# and not by script, which would take an orphan's exit status for the command's.
status=0
if [ "$mode" = trace ]; then
  setpriv --bounding-set=-all,+sys_ptrace,+dac_read_search,+setuid,+setgid --no-new-privs -- \
    strace -f -y -qq -v -xx -s 4096 -ttt -o {TRACE_DIR}/trace -e trace={TRACED} $halt \
    -- $user env -i "$@" SHELL={SHELL} script -qefc "$cmd" /dev/null </dev/null || status=$?
else
  $user env -i "$@" SHELL={SHELL} script -qefc "$cmd" /dev/null </dev/null || status=$?
fi
exit $status
"""
