#!/bin/bash
# run.sh - run a shell command inside a pure-cgroup-v2 Debian 12 guest under qemu (TCG, no KVM
# needed), against a copy of the project at /work/main. Build the guest first (build-rootfs.sh).
#
# usage: scripts/v2vm/run.sh [-t SECONDS] [-c root|systemd|delegated] [-k] 'COMMAND'
#   -t SECONDS  whole-run timeout (boot included); default $V2VM_TIMEOUT or 1200 (20 min).
#               The guest itself stops COMMAND 60 s before that (rc 124) so logs still come back.
#   -c LAYOUT   cgroup layout COMMAND runs in (default $V2VM_CGROUP or root), see v2init:
#               root: in the root cgroup, no controllers enabled;
#               systemd: in system.slice/v2vm.service with V2VM_CG_CONTROLLERS enabled above it;
#               delegated: like systemd, but COMMAND in v2vm.service/main and controllers
#               enabled in v2vm.service (a Delegate=yes unit that made itself a leaf).
#   -k          keep the run's data disk image (runs/*/data.img)
# Environment: V2VM_DIR (the guest tree, images and run logs; default /var/tmp/agent-sandbox-v2vm),
#   V2VM_SRC (default: this checkout; shows up in the guest at /work/main),
#   V2VM_EXCLUDE (rsync excludes, space-separated; default ".git build-asan build-fuzz"),
#   V2VM_MEM (MiB, 4096), V2VM_SMP (2), V2VM_APPEND (extra kernel command line),
#   V2VM_KERNEL (version prefix: 6.12 = bookworm-backports', the default; 6.1 = bookworm's, on
#     which baseline is refused: no Landlock ABI 6 before 6.12),
#   V2VM_CG_CONTROLLERS (for -c systemd/delegated: controllers enabled down to COMMAND's cgroup;
#     default "memory pids" = systemd 252's default accounting; "all" = every one available),
#   V2VM_INITRD (full = the guest's 35 MB initrd instead of the small one, or a path),
#   V2VM_QUIET=1 (don't stream the console; print only COMMAND's output at the end).
#
# COMMAND runs as root via bash, cwd the checkout (at /work/main and at its host path), stdin
# /dev/null. Its combined stdout+stderr go to the serial console (streamed here) and to
# runs/<id>/out/output.log; the guest's dmesg to
# runs/<id>/out/dmesg.log; files COMMAND writes into /work/.v2/out are copied to runs/<id>/out/.
# $V2VM_DIR/last points at the newest run.  Exit status: COMMAND's, 124 on timeout, 125 if the
# guest never reported one (boot failure, crash).
#
# Disks: root.img (built from rootfs/ once, rebuilt when rootfs/ changes) is attached with
# snapshot=on so each run starts from a clean root; a small per-run ext4 data disk carries
# /work/main + the command and is mounted at /work in the guest.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
V2=${V2VM_DIR:-/var/tmp/agent-sandbox-v2vm}
ROOTFS=$V2/rootfs
ROOTIMG=$V2/root.img
SRC=${V2VM_SRC:-$(cd "$HERE/../.." && pwd)}
TIMEOUT=${V2VM_TIMEOUT:-1200}
LAYOUT=${V2VM_CGROUP:-root}
KEEP=0
while getopts "t:c:kh" o; do
	case $o in
	t) TIMEOUT=$OPTARG ;;
	c) LAYOUT=$OPTARG ;;
	k) KEEP=1 ;;
	*) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: $0 [-t SECONDS] [-c root|systemd|delegated] [-k] 'COMMAND'" >&2; exit 2; }
CMD=$1
case $LAYOUT in root | systemd | delegated) ;; *) echo "run.sh: bad cgroup layout $LAYOUT" >&2; exit 2 ;; esac
[ -d "$ROOTFS/boot" ] || { echo "run.sh: no guest tree at $ROOTFS (run $V2/build-rootfs.sh)" >&2; exit 2; }
# V2VM_KERNEL: version prefix of a kernel in rootfs/boot; default 6.12 (backports), 6.1 = bookworm
KV=${V2VM_KERNEL:-6.12}
KERNEL=$(ls -d "$ROOTFS/boot/vmlinuz-$KV" "$ROOTFS/boot/vmlinuz-$KV".* "$ROOTFS/boot/vmlinuz-$KV"-* 2>/dev/null | sort -V | tail -1 || true)
[ -n "$KERNEL" ] || { echo "run.sh: no kernel $KV in $ROOTFS/boot: $(ls "$ROOTFS"/boot | grep vmlinuz)" >&2; exit 2; }
KVER=${KERNEL##*/vmlinuz-}
# the small initrd build-rootfs.sh makes (virtio + ext4 only, ~8 s faster under TCG), else the
# guest's own full one; V2VM_INITRD=full forces the full one, or give a path
case ${V2VM_INITRD:-} in
"") INITRD=$ROOTFS/boot/v2vm-initrd.img-$KVER
	[ -f "$INITRD" ] || INITRD=$ROOTFS/boot/initrd.img-$KVER ;;
full) INITRD=$ROOTFS/boot/initrd.img-$KVER ;;
*) INITRD=$V2VM_INITRD ;;
esac

t0=$(date +%s.%N)
elapsed() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
log() { echo "run.sh: $*" >&2; }

# --- root image: (re)build under an exclusive lock when missing or older than rootfs/ ---------
exec 8>"$V2/.root.lock"
flock -x 8
if ! cmp -s "$HERE/v2init" "$ROOTFS/v2init"; then
	install -m 0755 "$HERE/v2init" "$ROOTFS/v2init"
fi
mkdir -p "$ROOTFS/work"
if [ ! -s "$ROOTIMG" ] || [ -n "$(find "$ROOTFS" -xdev -newer "$ROOTIMG" -print -quit 2>/dev/null)" ]; then
	log "building $ROOTIMG from $ROOTFS ..."
	rm -f "$ROOTIMG.tmp"
	truncate -s 4G "$ROOTIMG.tmp"
	mkfs.ext4 -q -F -L v2root -d "$ROOTFS" "$ROOTIMG.tmp"
	mv "$ROOTIMG.tmp" "$ROOTIMG"
	log "root image built ($(elapsed) s)"
fi
flock -s 8 # keep a shared lock while qemu reads the image

# --- per-run data disk: /work/main + the command ------------------------------------------------
mkdir -p "$V2/runs"
RUN=$(mktemp -d "$V2/runs/$(date +%Y%m%d-%H%M%S)-XXXX")
ln -sfn "$RUN" "$V2/last"
STAGE=$V2/stage
exec 9>"$V2/.stage.lock"
flock -x 9
mkdir -p "$STAGE/main" "$STAGE/.v2"
EXCL=()
for e in ${V2VM_EXCLUDE-.git build-asan build-fuzz}; do EXCL+=(--exclude="/$e"); done
rsync -a --delete "${EXCL[@]}" "$SRC/" "$STAGE/main/"
rm -rf "$STAGE/.v2" && mkdir -p "$STAGE/.v2/out"
printf '%s\n' "$CMD" >"$STAGE/.v2/cmd.sh"
# The checkout also appears at its host path: a CMake build tree holds absolute paths.
printf '%s\n' "$SRC" >"$STAGE/.v2/src-path"
echo "$LAYOUT" >"$STAGE/.v2/cgroup-layout"
echo "${V2VM_CG_CONTROLLERS:-memory pids}" >"$STAGE/.v2/cgroup-controllers"
gt=0
[ "$TIMEOUT" -gt 120 ] && gt=$((TIMEOUT - 60))
echo "$gt" >"$STAGE/.v2/guest-timeout"
used_kib=$(du -sk "$STAGE" | cut -f1)
size_mib=$((used_kib / 1024 + 2048))
truncate -s "${size_mib}M" "$RUN/data.img"
mkfs.ext4 -q -F -L v2data -d "$STAGE" "$RUN/data.img"
flock -u 9
log "data disk ready ($((used_kib / 1024)) MiB of files, $(elapsed) s); booting $(basename "$KERNEL") + $(basename "$INITRD"), timeout ${TIMEOUT}s, run dir $RUN"

# --- boot ----------------------------------------------------------------------------------------
APPEND="root=/dev/vda rootfstype=ext4 rw console=ttyS0 quiet panic=-1 cgroup_no_v1=all systemd.unified_cgroup_hierarchy=1 lsm=landlock,lockdown,yama,integrity,apparmor init=/v2init ${V2VM_APPEND:-}"
QEMU=(qemu-system-x86_64 -machine q35 -accel tcg -cpu max -smp "${V2VM_SMP:-2}" -m "${V2VM_MEM:-4096}"
	-nographic -monitor none -serial stdio -vga none -nic none -no-reboot
	-kernel "$KERNEL" -initrd "$INITRD" -append "$APPEND"
	-drive "file=$ROOTIMG,format=raw,if=virtio,snapshot=on"
	-drive "file=$RUN/data.img,format=raw,if=virtio,cache=unsafe")
CONSOLE=$RUN/console.log
qrc=0
if [ "${V2VM_QUIET:-0}" = 1 ]; then
	timeout -k 15 "$TIMEOUT" "${QEMU[@]}" </dev/null 2>&1 | sed -u 's/\r//g; s/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' >"$CONSOLE" || qrc=${PIPESTATUS[0]}
else
	timeout -k 15 "$TIMEOUT" "${QEMU[@]}" </dev/null 2>&1 | sed -u 's/\r//g; s/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' | tee "$CONSOLE" || qrc=${PIPESTATUS[0]}
fi
flock -u 8

# --- results -------------------------------------------------------------------------------------
debugfs -R "rdump /.v2/out $RUN" "$RUN/data.img" >/dev/null 2>&1 || true
[ "$KEEP" = 1 ] || rm -f "$RUN/data.img"
rc=$(sed -n 's/^=== V2VM-END rc=\([0-9]*\) ===$/\1/p' "$CONSOLE" | tail -1)
if [ -z "$rc" ]; then
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		log "TIMEOUT after ${TIMEOUT}s (qemu killed); console in $CONSOLE"
		rc=124
	else
		log "guest gave no exit code (qemu exit $qrc); console in $CONSOLE"
		rc=125
	fi
fi
if [ "${V2VM_QUIET:-0}" = 1 ]; then
	if [ -f "$RUN/out/output.log" ]; then cat "$RUN/out/output.log"; else cat "$CONSOLE"; fi
fi
log "exit code $rc, $(elapsed) s total; logs in $RUN"
exit "$rc"
