#!/usr/bin/env bash
# deps.sh: install, with apt-get, what building, booting and testing need.
# Idempotent: apt-get runs only when a package is missing.
set -euo pipefail

packages=(
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	cpio kmod rsync python3 ccache dwarves
	qemu-system-x86 linux-perf bpftrace stress-ng
	# -m32 test programs: 32-bit tasks are probed too.  gcc-12-multilib,
	# not gcc-multilib, which Debian's cross compilers below conflict with.
	gcc-12-multilib
	# arm64: the cross compiler, QEMU's virt machine, and the guest's
	# Debian root, made with debootstrap and qemu-user (dev/arm64-root.sh)
	gcc-aarch64-linux-gnu qemu-system-arm debootstrap qemu-user-static binfmt-support
	# make cross: every other architecture with uprobes (loongarch: clang)
	gcc-arm-linux-gnueabihf gcc-mips64el-linux-gnuabi64 gcc-powerpc64le-linux-gnu
	gcc-riscv64-linux-gnu gcc-s390x-linux-gnu gcc-sparc64-linux-gnu
	# uprobe_jump runs a probed program under strace
	strace
	# the bcc peer suite, and the USDT probe of its target
	bpfcc-tools systemtap-sdt-dev
	# the base tree's BPF selftests (test_progs) and their libbpf
	clang-19 lld-19 llvm-19 libzstd-dev libcap-dev
)

missing=()
for pkg in "${packages[@]}"; do
	dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "  DEPS    installing ${missing[*]}"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
