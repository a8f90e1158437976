#!/usr/bin/env bash
# bench.sh BENCH_BINARY OUTDIR TIMEOUT
#
# Boots upstream and then ours, each built already with the same config,
# under the same QEMU settings (TCG with one host thread per vCPU), runs
# the same guest benchmark on each, and prints the table of medians and
# ratios, also written to OUTDIR/table.txt.
set -euo pipefail

binary=$(readlink -f "${1:?usage: bench.sh BENCH_BINARY OUTDIR TIMEOUT}")
out=$(readlink -m "${2:?usage: bench.sh BENCH_BINARY OUTDIR TIMEOUT}")
limit=${3:?usage: bench.sh BENCH_BINARY OUTDIR TIMEOUT}
top=$(cd "$(dirname "$0")/.." && pwd)
base=$(cat "$top/out/src/upstream.version")

for kernel in upstream ours; do
	echo "  BENCH   $kernel"
	rm -rf "${out:?}/$kernel"
	mkdir -p "$out/$kernel"
	"$top/dev/boot.sh" --multi-thread "$top/out/build/$kernel/arch/x86/boot/bzImage" \
		"$out/$kernel" "$limit" -- "$top/guest/bench.sh" "$binary" /tmp/results \
		>"$out/$kernel/run.log" 2>&1 || {
		tail -n 20 "$out/$kernel/run.log"
		echo "bench.sh: the $kernel run failed" >&2
		exit 1
	}
	"$top/dev/console-check.sh" "$out/$kernel/console.log"
done

header="uprobes benchmark, $(date -u +%Y-%m-%d), base linux-source-6.12 $base
QEMU TCG (thread=multi, 2 vCPUs, -cpu max) on $(nproc) host cores: absolute
times are emulator times; only the ratio between the two kernels carries.
Consumer: one counting perf event of the uprobe PMU per probe.  Each value
is the median of 5 rounds; the spread is (max - min) / median."
"$top/dev/bench-table.py" "$header" "$out/upstream/bench.tsv" "$out/ours/bench.tsv" |
	tee "$out/table.txt"
