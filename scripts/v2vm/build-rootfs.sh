#!/bin/bash
# build-rootfs.sh - (re)create the guest tree $V2VM_DIR/rootfs used by run.sh: Debian 12 minbase,
# bookworm's kernel (6.1) and bookworm-backports' (6.12) with their initramfs, and every runtime
# library the project's binaries and tests need. Idempotent: an existing tree is only topped up.
# Needs root and Debian's mirror. Test tooling only: nothing here is part of agent-sandbox.
# Host tools it installs: debootstrap qemu-system-x86 seabios e2fsprogs rsync.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
V2=${V2VM_DIR:-/var/tmp/agent-sandbox-v2vm}
R=$V2/rootfs
mkdir -p "$V2"
MIRROR=http://deb.debian.org/debian
export DEBIAN_FRONTEND=noninteractive

need=()
for p in debootstrap qemu-system-x86 seabios e2fsprogs rsync; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${need[@]}"
fi

if [ ! -x "$R/bin/bash" ]; then
	debootstrap --variant=minbase --include=ca-certificates bookworm "$R" "$MIRROR"
fi

cat >"$R/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
printf '#!/bin/sh\nexit 101\n' >"$R/usr/sbin/policy-rc.d" # never start services in the chroot
chmod +x "$R/usr/sbin/policy-rc.d"
echo v2vm >"$R/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 v2vm\n::1 localhost ip6-localhost ip6-loopback\n' >"$R/etc/hosts"
mkdir -p "$R/root" "$R/work" "$R/etc/initramfs-tools"
# the full initrd (MODULES=most) has them already; listed for certainty
for m in virtio_pci virtio_blk virtio_console ext4; do
	grep -qx "$m" "$R/etc/initramfs-tools/modules" || echo "$m" >>"$R/etc/initramfs-tools/modules"
done

# Runtime packages.  Libraries: from `ldd` of build/agent-sandbox, asb-supervisor (static),
# libagentsandbox.so and build/test_* (libc, libm, libresolv, libjansson, libseccomp, libcmocka, libz)
# plus what scripts/bootstrap.sh lists for the tests (libcap, libcurl, libarchive, libssl, python3,
# python3-scipy, iproute2, procps, curl, bubblewrap); cmake for ctest, gcc/libc6-dev/make for
# tests/integration/test_example_public_api.sh.
PKGS=(linux-image-amd64 initramfs-tools kmod
	bash coreutils procps iproute2 util-linux mount findutils grep sed gawk file less strace
	python3 python3-scipy curl bubblewrap cmake gcc libc6-dev make
	libseccomp2 libcap2 libcap2-bin libcmocka0 libjansson4 libcurl4 libarchive13 libssl3 zlib1g)
mounted=()
cleanup() { for m in "${mounted[@]}"; do umount -R "$m" 2>/dev/null || umount -l "$m"; done; }
trap cleanup EXIT
mount -t proc proc "$R/proc" && mounted+=("$R/proc")
mount --rbind /dev "$R/dev" && mount --make-rslave "$R/dev" && mounted+=("$R/dev")
mount -t sysfs sysfs "$R/sys" && mounted+=("$R/sys")
chroot "$R" apt-get update -q
chroot "$R" apt-get install -y -q --no-install-recommends "${PKGS[@]}"
chroot "$R" sh -c 'apt-mark manual $(dpkg-query -W -f "\${Package}\n" "linux-image-6.1.*")'
# Second kernel: bookworm-backports' (6.12: Landlock ABI 6, vm.memfd_noexec), `run.sh` with
# V2VM_KERNEL=6.1 for bookworm's own; run.sh's default is 6.12.
echo "deb $MIRROR bookworm-backports main" >"$R/etc/apt/sources.list.d/backports.list"
chroot "$R" apt-get update -q
chroot "$R" apt-get install -y -q --no-install-recommends -t bookworm-backports linux-image-amd64
chroot "$R" apt-get upgrade -y -q
chroot "$R" apt-get clean

# A small initrd next to the full one: only what booting from a virtio disk needs.  The full one
# (35 MB, MODULES=most) costs ~8 s more under TCG.  run.sh prefers this one (V2VM_INITRD overrides).
S=$R/etc/initramfs-tools-v2vm
rm -rf "$S" && cp -a "$R/etc/initramfs-tools" "$S"
sed -i 's/^MODULES=.*/MODULES=list/' "$S/initramfs.conf"
printf '%s\n' virtio_pci virtio_blk ext4 crc32c_generic >"$S/modules"
for k in "$R"/boot/vmlinuz-*; do
	KVER=${k##*/vmlinuz-}
	chroot "$R" mkinitramfs -d /etc/initramfs-tools-v2vm -o "/boot/v2vm-initrd.img-$KVER" "$KVER"
	chroot "$R" lsinitramfs "/boot/v2vm-initrd.img-$KVER" | grep -E 'virtio_blk|ext4\.ko'
done
install -m 0755 "$HERE/v2init" "$R/v2init"
echo "build-rootfs: $R ready; kernels: $(ls "$R"/boot | sed -n "s/^vmlinuz-//p" | tr "\n" " ")"
