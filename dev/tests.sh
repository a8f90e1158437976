#!/usr/bin/env bash
# tests.sh OURS_SRC KERNEL_BUILD TESTS
#
# Builds, with the kernel's own selftest build (lib.mk), the programs of
# tools/testing/selftests/uprobes from the `ours` tree into TESTS/uprobes, and
# the test module against KERNEL_BUILD into TESTS/modules/<build name>.  The
# programs are plain user space and serve every kernel; the module is built
# once per kernel build.
set -euo pipefail

ours=${1:?usage: tests.sh OURS_SRC KERNEL_BUILD TESTS}
build=$(readlink -f "${2:?usage: tests.sh OURS_SRC KERNEL_BUILD TESTS}")
tests=$(readlink -f "${3:?usage: tests.sh OURS_SRC KERNEL_BUILD TESTS}")
selftest=$ours/tools/testing/selftests/uprobes
jobs=$(nproc)

echo "  TESTS   $tests/uprobes"
mkdir -p "$tests/build"
make -s -j"$jobs" -C "$selftest" OUTPUT="$tests/build" INSTALL_PATH="$tests/uprobes" \
	KHDR_INCLUDES=" " install >/dev/null

[ -d "$selftest/module" ] || exit 0
kernel_src=$(readlink -f "$build/source")
moddir=$tests/modules/$(basename "$build")
echo "  MODULE  $moddir"
mkdir -p "$moddir"
rsync -a --checksum "$selftest/module/" "$moddir/"
make -s -j"$jobs" -C "$kernel_src" O="$build" M="$moddir" modules
