#!/usr/bin/env bash
# bench.sh BENCH_BINARY OUTDIR TIMEOUT
#
# Boots upstream and ours, each built already with the same config, under
# the same QEMU settings, runs the same guest benchmark on each, and prints
# the table of medians and ratios, also written to OUTDIR/table.txt.
#
# The host's speed drifts by tens of percent over minutes, which swamps any
# difference measured one kernel after the other.  So the single-thread
# cases run side by side: both kernels boot at once, each on its own host
# core (TCG thread=single), and swap cores for the second boot; a drift
# then falls on both alike.  The two-thread case needs both host cores for
# one guest, so it runs in turns: upstream, ours, upstream, ours.
#
# Under TCG a hit costs tens of percent more or less from one boot to the
# next, as the randomized addresses of the process land differently in the
# emulator's own caches; the guests run with a fixed layout (norandmaps;
# the kernel's is fixed already: no RANDOMIZE_BASE).
#
# ARCH=arm64 (environment) benchmarks the arm64 builds of both kernels on
# QEMU's virt machine with the arm64 guest root (dev/boot.sh --arch);
# BENCH_BINARY must then be an arm64 program.
set -euo pipefail

binary=$(readlink -f "${1:?usage: bench.sh BENCH_BINARY OUTDIR TIMEOUT}")
out=$(readlink -m "${2:?usage: bench.sh BENCH_BINARY OUTDIR TIMEOUT}")
limit=${3:?usage: bench.sh BENCH_BINARY OUTDIR TIMEOUT}
top=$(cd "$(dirname "$0")/.." && pwd)
base=$(cat "$top/out/src/upstream.version")
arch=${ARCH:-x86_64}
case $arch in
x86_64) suffix="" image=arch/x86/boot/bzImage machine="QEMU TCG" ;;
arm64) suffix=-arm64 image=arch/arm64/boot/Image machine="QEMU TCG (arm64 virt)" ;;
*) echo "bench.sh: ARCH must be x86_64 or arm64, not $arch" >&2; exit 2 ;;
esac

# boot KERNEL RUN HOST_CPUS CASES [BOOT_OPTION...]: one guest run of the
# benchmark; its measurements are left in OUTDIR/KERNEL/RUN/bench.tsv.
boot() {
	local kernel=$1 run=$2 cpus=$3 cases=$4 dir=$out/$1/$2
	shift 4
	echo "  BENCH   $kernel, $run (host CPUs $cpus): $cases"
	mkdir -p "$dir"
	if ! taskset -c "$cpus" "$top/dev/boot.sh" --arch "$arch" --kernel-arg norandmaps "$@" \
		"$top/out/build/$kernel$suffix/$image" "$dir" "$limit" -- \
		"$top/guest/bench.sh" "$binary" /tmp/results "$cases" >"$dir/run.log" 2>&1; then
		tail -n 20 "$dir/run.log"
		echo "bench.sh: the $kernel run $run failed" >&2
		return 1
	fi
	"$top/dev/console-check.sh" "$dir/console.log"
}

# side_by_side RUN UPSTREAM_CPU OURS_CPU CASES: both kernels at once.
side_by_side() {
	local run=$1 up_cpu=$2 our_cpu=$3 cases=$4 up our
	boot upstream "$run" "$up_cpu" "$cases" & up=$!
	boot ours "$run" "$our_cpu" "$cases" & our=$!
	wait "$up" && wait "$our"
}

rm -rf "${out:?}/upstream" "${out:?}/ours"
side_by_side side1 0 1 base,hit,uret,rss,register
side_by_side side2 1 0 base,hit,uret,rss
for turn in 1 2; do
	for kernel in upstream ours; do
		boot "$kernel" "turn$turn" 0,1 threads --multi-thread
	done
done
for kernel in upstream ours; do
	cat "$out/$kernel"/*/bench.tsv >"$out/$kernel/bench.tsv"
done

header="uprobes benchmark, $(date -u +%Y-%m-%d), base linux-source-6.12 $base
$machine, 2 vCPUs, -cpu max, on $(nproc) host cores: absolute times are
emulator times; only the ratio between the two kernels carries.  Consumer:
one counting perf event of the uprobe PMU per probe.  Values are medians of
10 rounds in two boots per kernel (registration: one round), spread is
(max - min) / median, ~ marks a total projected from part of the work.
ns/call are scaled to the host's fastest speed by a calibration loop run
around each round (see dev/bench-table.py).
Kernels run side by side, one host core each, except threads.* (in turns,
thread=multi, both host cores); no address randomization (norandmaps)."
"$top/dev/bench-table.py" "$header" "$out/upstream/bench.tsv" "$out/ours/bench.tsv" |
	tee "$out/table.txt"
