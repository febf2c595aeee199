"""The two shell scripts that build the sandbox; the command runs only after both checked it.

Stage 1 runs as the real root in a private mount namespace: it mounts an overlay whose lower
layer is the whole root filesystem and whose upper layer is a host directory (so every write
anywhere lands there, where the host inspects it afterwards), gives it a minimal ``/dev``,
pivots into it and detaches the old root, then enters stage 2 through ``unshare``.

Stage 2 is PID 1 of new user, PID, network, IPC, UTS and mount namespaces. It waits until the
host has written its UID/GID maps, mounts its own ``/proc``, checks that it really is inside
(the root is the overlay, the user namespace is not the host's, the only network interface
is loopback, it is PID 1) and only then tells the host it is ready and runs the command with
an environment that holds nothing but the fixture's. Any failed step exits 125 before the
command is reached: a sandbox that cannot be built never falls back to running unguarded.
"""

from __future__ import annotations

# Arguments: $1 run dir, $2 go fd, $3 ready fd, then what stage 2 takes.
STAGE1 = r"""
set -eu
run=$1; go=$2; ready=$3; shift 3
fail() { echo "tether verify: sandbox stage 1 failed: $1" >&2; exit 125; }
eval "exec 3<&$go 4>&$ready $go<&- $ready>&-" || fail "cannot set up the sync pipes"
m=$run/merged
mount -t overlay overlay -o "lowerdir=/,upperdir=$run/upper,workdir=$run/ovlwork" "$m" \
  || fail "cannot mount an overlay over / (needs root and overlayfs)"
mount -t tmpfs -o mode=755,nosuid tmpfs "$m/dev" || fail "cannot mount /dev"
for d in null zero full random urandom tty; do
  : > "$m/dev/$d" && mount --bind "/dev/$d" "$m/dev/$d" || fail "cannot provide /dev/$d"
done
mkdir "$m/dev/shm" "$m/dev/pts"
mount --bind "$run/shm" "$m/dev/shm" || fail "cannot provide /dev/shm"
ln -s /proc/self/fd "$m/dev/fd"
ln -s /proc/self/fd/0 "$m/dev/stdin"
ln -s /proc/self/fd/1 "$m/dev/stdout"
ln -s /proc/self/fd/2 "$m/dev/stderr"
mount -t proc proc "$m/proc" || fail "cannot mount /proc"
cd "$m"
pivot_root . . || fail "pivot_root into the overlay failed"
umount -l . || fail "cannot detach the host root"
cd /
exec unshare --user --pid --net --ipc --uts --mount --propagation private --fork --kill-child \
  -- /bin/bash -c "$STAGE2" tether-verify "$@"
"""

# Arguments: $1 work dir, $2 the command, then NAME=VALUE for its environment.
STAGE2 = r"""
set -eu
fail() { echo "tether verify: sandbox check failed: $1" >&2; exit 125; }
read -r go <&3 || fail "the host never wrote the user namespace maps"
exec 3<&-
mount -t proc -o nosuid,nodev,noexec proc /proc || fail "cannot mount /proc"
[ "$$" = 1 ] || fail "not PID 1 of a new PID namespace"
[ "$(stat -f -c %T /)" = overlayfs ] || fail "the root is not the overlay"
read -r inner outer count < /proc/self/uid_map || fail "no user namespace map"
[ "$count" != 4294967295 ] || fail "still in the host's user namespace"
[ "$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ')" = lo ] \
  || fail "a network interface other than loopback is visible"
cd "$1" || fail "no work directory"
cmd=$2; shift 2
ulimit -f 1048576  # 1 GiB per file: the upper layer is on the host's disk
echo ready >&4
exec 4>&-
exec env -i "$@" /bin/bash -c "$cmd" </dev/null
"""
