#!/usr/bin/env bash
# deps.sh [--list] GROUP...
#
# Installs with apt-get the packages of the GROUPs named, the ones a
# target of the Makefile needs (each target names its groups there):
#   base       build our x86-64 kernel and boot it (make run, shell, kernel)
#   tests      build the tests and run them in the x86-64 guest (make check)
#   arm64      build, root and boot the arm64 guest (ARCH=arm64)
#   cross      make cross: the compilers of every other architecture;
#   cross-ARCH only ARCH's (arm arm64 loongarch mips powerpc riscv s390
#              sparc64; x86_64 and i386 need none)
#   bench      make bench, beyond base
#   series     make series, beyond base
#   all        every group
# Idempotent: apt-get runs only when a package is missing.  --list prints
# the packages of the groups, one a line, and installs nothing.
set -euo pipefail

usage() {
	echo "usage: deps.sh [--list] base|tests|arm64|cross|cross-ARCH|bench|series|all..." >&2
	exit 2
}

cross_arches=(arm arm64 loongarch mips powerpc riscv s390 sparc64)

# The packages of group $1, one a line.
group_packages() {
	local -a p
	case $1 in
	base) p=(
		# the base tree (tar.xz) and the compiler, make, binutils
		linux-source-6.12 build-essential
		# kbuild: Kconfig's parsers, timeconst.bc, objtool and
		# resolve_btfids (libelf), the BTF of CONFIG_DEBUG_INFO_BTF
		# (pahole), CONFIG_IKHEADERS (kernel/gen_kheaders.sh: cpio)
		bison flex bc libelf-dev dwarves cpio ccache
		# the rest of the kernel's build requirements
		# (Documentation/process/changes.rst), for a config that
		# signs or installs modules; ours do neither, and both are small
		libssl-dev kmod
		# the guest: QEMU, the host's / as its root
		qemu-system-x86
	) ;;
	tests) p=(
		# -m32 test programs: 32-bit tasks are probed too.
		# gcc-12-multilib, not gcc-multilib, which Debian's cross
		# compilers conflict with.
		gcc-12-multilib
		# the peer suites, run from the host's / in the guest; the USDT
		# probe of their target (sys/sdt.h); uprobe_jump runs a probed
		# program under strace
		linux-perf bpftrace bpfcc-tools stress-ng strace systemtap-sdt-dev
		# the base tree's BPF selftests (test_progs) and their libbpf
		clang-19 lld-19 llvm-19 libzstd-dev libcap-dev
		# dev/tests.sh and dev/bpf-selftests.sh copy with it
		rsync
	) ;;
	arm64) p=(
		# the cross compiler and its C library (the guest's static
		# init and the tests link against it; apt-get only recommends
		# it, and recommends are not installed), QEMU's virt machine,
		# and the guest's Debian root, made with debootstrap and
		# qemu-user (dev/arm64-root.sh)
		gcc-aarch64-linux-gnu libc6-dev-arm64-cross
		qemu-system-arm debootstrap qemu-user-static binfmt-support
		# test_progs, cross-built, links Debian's arm64 libelf and
		# zlib (multiarch: dpkg's foreign architecture arm64)
		libelf-dev:arm64 zlib1g-dev:arm64
	) ;;
	cross) local arch
		for arch in "${cross_arches[@]}"; do
			group_packages "cross-$arch"
		done
		return ;;
	cross-arm) p=(gcc-arm-linux-gnueabihf) ;;
	cross-arm64) p=(gcc-aarch64-linux-gnu) ;;
	cross-loongarch) p=(clang-19 lld-19 llvm-19) ;;
	cross-mips) p=(gcc-mips64el-linux-gnuabi64) ;;
	cross-powerpc) p=(gcc-powerpc64le-linux-gnu) ;;
	cross-riscv) p=(gcc-riscv64-linux-gnu) ;;
	cross-s390) p=(gcc-s390x-linux-gnu) ;;
	# sparc64 builds from a copy of the tree (rsync) with a fix
	cross-sparc64) p=(gcc-sparc64-linux-gnu rsync) ;;
	cross-x86_64 | cross-i386) return ;;
	# the table (dev/bench-table.py); the QEMU plugin header of make
	# breakdown, fetched from Debian's archive (dev/insn-plugin.sh)
	bench) p=(python3 curl) ;;
	# format-patch, and checkpatch's SPDX and spelling checks (python3);
	# STEPS=1 copies the base with rsync
	series) p=(git python3 rsync) ;;
	all) local group
		for group in base tests arm64 cross bench series; do
			group_packages "$group"
		done
		return ;;
	*) echo "deps.sh: no group '$1'" >&2
		usage ;;
	esac
	printf '%s\n' "${p[@]}"
}

list=0
if [ "${1:-}" = --list ]; then
	list=1
	shift
fi
[ $# -gt 0 ] || usage

packages=()
for group in "$@"; do
	group_packages "$group" >/dev/null	# exits here on a bad name
	mapfile -t -O ${#packages[@]} packages < <(group_packages "$group")
done
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)

if [ "$list" -eq 1 ]; then
	printf '%s\n' "${packages[@]}"
	exit 0
fi

missing=()
for pkg in "${packages[@]}"; do
	dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "  DEPS    installing ${missing[*]}"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
# A package of another architecture (NAME:ARCH) needs dpkg to know it.
for arch in $(printf '%s\n' "${missing[@]}" | sed -n 's/.*://p' | sort -u); do
	dpkg --print-foreign-architectures | grep -qx "$arch" ||
		$sudo dpkg --add-architecture "$arch"
done
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
	-o DPkg::Lock::Timeout=600 "${missing[@]}"
