#!/usr/bin/env bash
# check.sh KERNEL IMAGE TESTS BUILD RESULTS TIMEOUT [FILTER [TORTURE_SECONDS [FUZZ_LINES]]]
#
# One test boot: runs guest/check.sh in the guest, then checks the kernel
# log and prints the counts; the last line is "N passed, N failed, N skipped".
# The guest learns whose uprobes engine the kernel runs (base or ours) from
# the tree it was built from (ENGINE=base|ours in the environment says it
# instead: a step of the series at parity is held to the base's ways), and
# what KUnit cases it must run (dev/kunit-plan.sh); the summary holds the
# skips and failures to the lists of those expected of that engine and
# architecture (dev/expected-skips, dev/expected-failures).
# TCG=single (environment) runs both vCPUs on one host thread instead of
# one each: reproducible, but the vCPUs then take turns, and races between
# threads of the guest rarely show.  ARCH=arm64 (environment) boots the
# arm64 guest (dev/boot.sh --arch).
set -euo pipefail

kernel=$1 limit=$6 filter=${7:-} torture=${8:-60} fuzz_lines=${9:-1500}
image=$(readlink -f "$2") tests=$(readlink -f "$3") build=$(readlink -f "$4")
results=$(readlink -m "$5")
top=$(cd "$(dirname "$0")/.." && pwd)
base=$(cat "$top/out/src/upstream.version")
modules=$tests/modules/$(basename "$build")
engine=${ENGINE:-}
if [ -z "$engine" ]; then
	engine=base
	cmp -s "$top/out/src/upstream/kernel/events/uprobes.c" "$build/source/kernel/events/uprobes.c" ||
		engine=ours
fi
kunit_plan=$("$top/dev/kunit-plan.sh" "$build")

rm -rf "$results"
mkdir -p "$results" "$modules"
tcg=${TCG:-multi}
case $tcg in
multi) boot_args=(--multi-thread) ;;
single) boot_args=() ;;
*) echo "check.sh: TCG must be multi or single, not '$tcg'" >&2; exit 2 ;;
esac
boot_args+=(--arch "${ARCH:-x86_64}")
echo "  CHECK   kernel $kernel ($(basename "$build"), $engine engine, ${ARCH:-x86_64}), base linux-source-6.12 $base, QEMU TCG ($tcg-threaded)"
start=$(date +%s)
boot_rc=0
"$top/dev/boot.sh" "${boot_args[@]}" "$image" "$results" "$limit" -- \
	"$top/guest/check.sh" "$kernel" "$engine" "$tests" "$modules" /tmp/results "$torture" \
	"$fuzz_lines" "$kunit_plan" "$filter" ||
	boot_rc=$?
echo "  CHECK   boot ended with status $boot_rc after $(($(date +%s) - start))s"
kernel_rc=0
"$top/dev/console-check.sh" "$results/console.log" || kernel_rc=1
echo
echo "Results for kernel $kernel, base linux-source-6.12 $base:"
"$top/dev/summary.sh" "$results" "$engine" "${ARCH:-x86_64}" "$kernel_rc"
