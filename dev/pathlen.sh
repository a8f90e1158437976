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
python3 - "$out/bench.tsv" "$budget" <<'END'
import statistics
import sys

rounds = {}
with open(sys.argv[1]) as tsv:
    for line in tsv:
        fields = line.rstrip("\n").split("\t")
        if len(fields) >= 3 and fields[1] == "ns/call":
            rounds.setdefault(fields[0], []).append(float(fields[2]))
n = bad = 0
with open(sys.argv[2]) as budget:
    for line in budget:
        if line.startswith("#") or not line.split():
            continue
        name, most, margin = line.split()
        n += 1
        if name not in rounds:
            print(f"not ok {n} - pathlen {name}: not measured")
            bad += 1
            continue
        median = statistics.median(rounds[name])
        over = median > int(most) * (1 + int(margin) / 100)
        bad += over
        print(f"{'not ok' if over else 'ok'} {n} - pathlen {name}: {median:.0f} "
              f"instructions a call, budget {most} + {margin}%")
print(f"{n - bad} passed, {bad} failed, 0 skipped")
sys.exit(bad > 0)
END
