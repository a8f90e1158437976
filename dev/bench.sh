#!/usr/bin/env bash
# bench.sh BENCH_BINARY OUTDIR TIMEOUT
#
# Boots upstream and ours, each built already with the same config, under
# the same QEMU settings (TCG with one host thread per vCPU), runs the same
# guest benchmark on each, and prints the table of medians and ratios, also
# written to OUTDIR/table.txt.  The kernels take turns, upstream, ours,
# upstream, ours, so that a drift of the host's speed falls on both; the
# slow registration cases run in the first turn only.
set -euo pipefail

binary=$(readlink -f "${1:?usage: bench.sh BENCH_BINARY OUTDIR TIMEOUT}")
out=$(readlink -m "${2:?usage: bench.sh BENCH_BINARY OUTDIR TIMEOUT}")
limit=${3:?usage: bench.sh BENCH_BINARY OUTDIR TIMEOUT}
top=$(cd "$(dirname "$0")/.." && pwd)
base=$(cat "$top/out/src/upstream.version")

# run KERNEL TURN [CASES]: one boot; its rounds are added to KERNEL/bench.tsv.
run() {
	local kernel=$1 turn=$2 cases=${3:-} dir=$out/$1/turn$2
	echo "  BENCH   $kernel, turn $turn"
	mkdir -p "$dir"
	"$top/dev/boot.sh" --multi-thread "$top/out/build/$kernel/arch/x86/boot/bzImage" \
		"$dir" "$limit" -- "$top/guest/bench.sh" "$binary" /tmp/results "$cases" \
		>"$dir/run.log" 2>&1 || {
		tail -n 20 "$dir/run.log"
		echo "bench.sh: the $kernel run failed" >&2
		exit 1
	}
	"$top/dev/console-check.sh" "$dir/console.log"
	cat "$dir/bench.tsv" >>"$out/$kernel/bench.tsv"
}

rm -rf "${out:?}/upstream" "${out:?}/ours"
for kernel in upstream ours; do
	run "$kernel" 1
done
for kernel in upstream ours; do
	run "$kernel" 2 "base hit uret threads rss"
done

header="uprobes benchmark, $(date -u +%Y-%m-%d), base linux-source-6.12 $base
QEMU TCG (thread=multi, 2 vCPUs, -cpu max) on $(nproc) host cores: absolute
times are emulator times; only the ratio between the two kernels carries.
Consumer: one counting perf event of the uprobe PMU per probe.  Each value
is the median of 10 rounds in two boots per kernel (registration: one
round); the spread is (max - min) / median."
"$top/dev/bench-table.py" "$header" "$out/upstream/bench.tsv" "$out/ours/bench.tsv" |
	tee "$out/table.txt"
