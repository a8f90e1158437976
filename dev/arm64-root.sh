#!/usr/bin/env bash
# arm64-root.sh DIR INIT_C
#
# Makes DIR/root, the root of the arm64 test guest: Debian 12 for arm64 with
# what the suites run (perf, bpftrace, bcc and the xz of its headers,
# stress-ng, strace, python3, bc, nm), made by debootstrap on the host,
# whose second stage runs the arm64 programs through qemu-user
# (binfmt_misc).  Made once, in a cache outside the checkout (as the BPF
# selftests), keyed by its packages; DIR/root links to it.  INIT_C, the
# guest init, is built statically for arm64 into
# DIR/root/sbin/uprobes-init whenever it changed.
set -euo pipefail

dir=$(readlink -m "${1:?usage: arm64-root.sh DIR INIT_C}")
init_c=$(readlink -f "${2:?usage: arm64-root.sh DIR INIT_C}")
packages=linux-perf,bpftrace,bpfcc-tools,xz-utils,stress-ng,strace,busybox,procps,python3,bc,binutils
mirror=http://deb.debian.org/debian
cache=${UPROBES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/uprobes}/arm64-root
root=$cache/bookworm-$(echo "$packages" | sha256sum | cut -c1-12)

# qemu-user runs the arm64 programs of the second stage; the F flag of its
# binfmt entry makes it work inside the chroot too.
enable_binfmt() {
	[ -e /proc/sys/fs/binfmt_misc/register ] ||
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
	update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
	[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
		{ echo "arm64-root.sh: no binfmt_misc entry for qemu-aarch64" >&2; exit 1; }
}

if [ ! -f "$root.done" ]; then
	echo "  ROOT    debootstrap bookworm arm64 in $root"
	enable_binfmt
	rm -rf "$root"
	mkdir -p "$cache"
	debootstrap --arch=arm64 --variant=minbase --include="$packages" bookworm \
		"$root" "$mirror" >"$root.log" 2>&1 ||
		{ tail -20 "$root.log" >&2; exit 1; }
	touch "$root.done"
fi
mkdir -p "$dir"
[ "$(readlink "$dir/root" 2>/dev/null)" = "$root" ] || { rm -rf "$dir/root"; ln -s "$root" "$dir/root"; }

init=$root/sbin/uprobes-init
if [ ! -x "$init" ] || [ "$init_c" -nt "$init" ]; then
	echo "  INIT    $init"
	aarch64-linux-gnu-gcc -static -O2 -Wall -Wextra -o "$init" "$init_c"
fi
