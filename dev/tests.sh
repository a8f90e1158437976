#!/usr/bin/env bash
# tests.sh OURS_SRC KERNEL_BUILD TESTS
#
# Builds, with the kernel's own selftest build (lib.mk), the programs of
# tools/testing/selftests/uprobes from the `ours` tree into TESTS/uprobes, and
# the test module and the sample module (samples/uprobes) of the `ours` tree
# against KERNEL_BUILD into TESTS/modules/<build name>, as external modules.
# The base tree's BPF selftests go to TESTS/bpf (dev/bpf-selftests.sh), and
# their module, bpf_testmod, beside ours.  The programs are plain user space
# and serve every kernel; the modules are built once per kernel build.
# ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- (environment) cross-builds
# them all.
set -euo pipefail

ours=${1:?usage: tests.sh OURS_SRC KERNEL_BUILD TESTS}
build=$(readlink -f "${2:?usage: tests.sh OURS_SRC KERNEL_BUILD TESTS}")
tests=$(readlink -f "${3:?usage: tests.sh OURS_SRC KERNEL_BUILD TESTS}")
selftest=$ours/tools/testing/selftests/uprobes
jobs=$(nproc)

cross=()
[ -z "${CROSS_COMPILE:-}" ] || cross=(CC="${CROSS_COMPILE}gcc")
echo "  TESTS   $tests/uprobes"
mkdir -p "$tests/build"
make -s -j"$jobs" -C "$selftest" OUTPUT="$tests/build" INSTALL_PATH="$tests/uprobes" \
	KHDR_INCLUDES=" " "${cross[@]}" install >/dev/null

kernel_src=$(readlink -f "$build/source")
moddir=$tests/modules/$(basename "$build")

# external_module SRC DIR [MAKE ARGS...]: builds the module sources of SRC in
# DIR against KERNEL_BUILD.
external_module() {
	local src=$1 dir=$2
	shift 2
	echo "  MODULE  $dir"
	mkdir -p "$dir"
	rsync -a --checksum "$src/" "$dir/"
	# A module's BTF is split against the kernel's, and kbuild does not
	# relink an external module when the kernel changes: relink it always.
	rm -f "$dir"/*.ko
	make -s -j"$jobs" -C "$kernel_src" O="$build" M="$dir" "$@" modules
}

if [ -d "$selftest/module" ]; then
	external_module "$selftest/module" "$moddir"
fi
# The sample builds in a directory of its own (a Makefile each), and its
# module goes next to the test module.  Its Makefile names it by the Kconfig
# symbol, which the kernel's configuration does not set.
# Against a kernel without probes by address (the base), the sample
# leaves them out.
sample=$ours/samples/uprobes
if [ -d "$sample" ]; then
	sample_flags=
	grep -qs uprobe_register_pid "$kernel_src/include/linux/uprobes.h" ||
		sample_flags=-DUPROBE_EXAMPLE_FILE_ONLY
	external_module "$sample" "$moddir/sample" CONFIG_SAMPLE_UPROBES=m \
		KCFLAGS="$sample_flags"
	cp -p "$moddir/sample/uprobe_example.ko" "$moddir/"
fi

# The base's BPF selftests, and their module after ours: building ours
# clears the .ko files of its directory.
base=$(dirname "$ours")/upstream
"$(dirname "$0")/bpf-selftests.sh" "$base" "$build" \
	"$(dirname "$0")/../guest/bpf-selftests.list" "$tests"
external_module "$base/tools/testing/selftests/bpf/bpf_testmod" "$moddir/bpf_testmod"
cp -p "$moddir/bpf_testmod/bpf_testmod.ko" "$moddir/"
