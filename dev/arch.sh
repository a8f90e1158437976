# shellcheck shell=bash
# arch.sh: sourced by the scripts that boot or name a guest architecture.
# arch_vars ARCH sets, for x86_64 or arm64: suffix (of the build and
# output directories), image (the kernel image in a build), machine (the
# emulated machine, for reports), cpu (QEMU's -cpu model) and syscalls
# (the prefix of the syscall entry symbols).
#
# arm64's cpu has pauth-impdef=on: pointer authentication by QEMU's own
# cheap hash, not the architected QARMA5 cipher, which QEMU computes in C
# at every paciasp and autiasp: a kernel built with pointer authentication
# signs the return address in every function that calls another, and with
# QARMA5 two thirds of the emulator's time went to the cipher (host perf
# of a guest hitting a probe).  Guest code sees the same features either
# way; only QEMU's cost of them differs.

arch_vars() {
	case $1 in
	x86_64)
		suffix="" image=arch/x86/boot/bzImage machine="QEMU TCG"
		cpu=max syscalls=__x64_sys ;;
	arm64)
		suffix=-arm64 image=arch/arm64/boot/Image machine="QEMU TCG (arm64 virt)"
		cpu=max,pauth-impdef=on syscalls=__arm64_sys ;;
	*) return 1 ;;
	esac
}
