#!/usr/bin/env bash
# pathlen.sh BENCH_BINARY IMAGE OUTDIR BUDGET TIMEOUT
#
# The path-length gate of CI: boots IMAGE (ours) once under QEMU's
# instruction counting (dev/boot.sh --icount), runs the benchmark's
# single-thread cases with short rounds, and compares the median
# instructions per call of each case BUDGET lists with its budget there.
# A case over its budget by more than the margin BUDGET gives fails, with
# its figures; so does a listed case the run did not measure.  Prints one
# TAP line a case, then "N passed, N failed, 0 skipped".  The figures are
# instructions, which the host's speed does not change: the gate needs no
# base kernel beside it.
set -euo pipefail

usage="usage: pathlen.sh BENCH_BINARY IMAGE OUTDIR BUDGET TIMEOUT"
binary=$(readlink -f "${1:?$usage}")
image=${2:?$usage}
out=$(readlink -m "${3:?$usage}")
budget=${4:?$usage}
limit=${5:?$usage}
top=$(cd "$(dirname "$0")/.." && pwd)
# Instructions a measurement lasts: some 2,000 hits, counted exactly.
round=3000000

rm -rf "$out"
mkdir -p "$out"
if ! "$top/dev/boot.sh" --icount --kernel-arg norandmaps "$image" "$out" "$limit" -- \
	"$top/guest/bench.sh" "$binary" /tmp/results base,hit,uret "$round" >"$out/run.log" 2>&1; then
	tail -n 20 "$out/run.log"
	echo "not ok 1 - pathlen: the benchmark's boot failed"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
"$top/dev/console-check.sh" "$out/console.log"

# Each budget line against the median of the case's rounds.
awk '
	BEGIN { FS = "\t" }
	FNR == NR { if ($2 == "ns/call") v[$1] = v[$1] " " $3; next }
	/^#/ || NF == 0 { next }
	{
		split($0, f, /[ \t]+/)
		name = f[1]; most = f[2]; margin = f[3]
		n++
		if (!(name in v)) {
			printf "not ok %d - pathlen %s: not measured\n", n, name
			bad++
			next
		}
		k = split(substr(v[name], 2), r, " ")
		for (i = 2; i <= k; i++)
			for (j = i; j > 1 && r[j - 1] + 0 > r[j] + 0; j--) {
				t = r[j]; r[j] = r[j - 1]; r[j - 1] = t
			}
		median = k % 2 ? r[(k + 1) / 2] : (r[k / 2] + r[k / 2 + 1]) / 2
		limit = most * (1 + margin / 100)
		verdict = median <= limit ? "ok" : "not ok"
		printf "%s %d - pathlen %s: %.0f instructions a call, budget %d + %d%%\n",
		       verdict, n, name, median, most, margin
		if (median > limit)
			bad++
	}
	END { printf "%d passed, %d failed, 0 skipped\n", n - bad, bad; exit bad > 0 }
' "$out/bench.tsv" "$budget"
