#!/usr/bin/env bash
# bench.sh BENCH_BINARY OUTDIR TIMEOUT [aa|icount]
#
# Boots the kernels of the comparison, each built already with the same
# config, under the same QEMU settings, runs the same guest benchmark on
# each, and prints the table of medians and ratios, also written to
# OUTDIR/table.txt.  The kernels are upstream (the base), perfcore (the
# base with our perf-core patches only: dev/tree.sh) and ours; the ratios
# are ours/upstream (our series against the base) and ours/perfcore (our
# engine against the base's).  With "aa", the columns are two runs of the
# same kernel, upstream and ours each, and the ratios are between the two:
# the noise band any real difference must stand out of.  With "icount",
# the single-thread cases run once on each kernel under QEMU's instruction
# counting (dev/boot.sh --icount), one kernel after the other: the guest's
# clock then counts instructions, so every time is a number of
# instructions per call, which the host's speed does not change.
#
# The host's speed drifts by tens of percent over minutes, which swamps any
# difference measured one kernel after the other.  So the single-thread
# cases run side by side, a pair of kernels at a time: both boot at once,
# each on its own host core (TCG thread=single), and swap cores for the
# pair's second boot; a drift then falls on both alike, and every case runs
# in both placements.  The two-thread cases need both host cores for one
# guest, so they run in turns, the kernels in one order and then in the
# reverse one (upstream, ours, ours, upstream).
#
# Under TCG a hit costs tens of percent more or less from one boot to the
# next, as the randomized addresses of the process land differently in the
# emulator's own caches; the guests run with a fixed layout (norandmaps;
# the kernel's is fixed already: no RANDOMIZE_BASE).
#
# ARCH=arm64 (environment) benchmarks the arm64 builds of the kernels on
# QEMU's virt machine with the arm64 guest root (dev/boot.sh --arch);
# BENCH_BINARY must then be an arm64 program.  NO_PERFCORE=1 (environment)
# leaves perfcore out: upstream and ours only, ratio ours/upstream.
# CASES (environment) names the case groups of the side-by-side boots
# (default: all but threads, which the boots in turns run): on arm64 the
# base takes some 25 minutes a boot to register and close 10,000 probes,
# so an A/A run there may leave rss and register out.
set -euo pipefail

usage="usage: bench.sh BENCH_BINARY OUTDIR TIMEOUT [aa|icount]"
side_cases=${CASES:-base,hit,uret,rss,register}
binary=$(readlink -f "${1:?$usage}")
out=$(readlink -m "${2:?$usage}")
limit=${3:?$usage}
mode=${4:-}
top=$(cd "$(dirname "$0")/.." && pwd)
base=$(cat "$top/out/src/upstream.version")
arch=${ARCH:-x86_64}
# shellcheck source=dev/arch.sh
. "$top/dev/arch.sh"
arch_vars "$arch" || { echo "bench.sh: ARCH must be x86_64 or arm64, not $arch" >&2; exit 2; }

# A column is a label, KERNEL or KERNEL.RUN; a pair runs side by side.
case $mode in
"" | icount) if [ -n "${NO_PERFCORE:-}" ]; then
		columns=(upstream ours)
		pairs=("upstream ours")
		ratios=ours/upstream
		about="upstream: the base, with the same config."
	else
		columns=(upstream perfcore ours)
		pairs=("upstream ours" "perfcore ours")
		ratios=ours/upstream,ours/perfcore
		about="upstream: the base; perfcore: the base with the series' two patches
to perf core and the same config, so ours/perfcore is our engine against
the base's engine."
	fi ;;
aa) columns=(upstream.a upstream.b ours.a ours.b)
	pairs=("upstream.a upstream.b" "ours.a ours.b")
	ratios=upstream.b/upstream.a,ours.b/ours.a
	about="An A/A run: each kernel against itself, in two columns run the
same way as two different kernels; its ratios are the noise band." ;;
*) echo "$usage" >&2; exit 2 ;;
esac

# boot COLUMN RUN HOST_CPUS CASES [BOOT_OPTION...]: one guest run of the
# benchmark; its measurements are left in OUTDIR/COLUMN/RUN/bench.tsv.
# ROUND_NS (environment), if set, is the length of a measurement.
boot() {
	local column=$1 run=$2 cpus=$3 cases=$4 dir=$out/$1/$2
	shift 4
	echo "  BENCH   $column, $run (host CPUs $cpus): $cases"
	mkdir -p "$dir"
	if ! taskset -c "$cpus" "$top/dev/boot.sh" --arch "$arch" --kernel-arg norandmaps "$@" \
		"$top/out/build/${column%%.*}$suffix/$image" "$dir" "$limit" -- \
		"$top/guest/bench.sh" "$binary" /tmp/results "$cases" ${ROUND_NS:-} \
		>"$dir/run.log" 2>&1; then
		tail -n 20 "$dir/run.log"
		echo "bench.sh: the $column run $run failed" >&2
		return 1
	fi
	"$top/dev/console-check.sh" "$dir/console.log"
}

# side_by_side RUN LEFT_COLUMN RIGHT_COLUMN CASES: both at once, LEFT on
# host core 0, RIGHT on host core 1.
side_by_side() {
	local run=$1 left=$2 right=$3 cases=$4 pid_left pid_right
	boot "$left" "$run" 0 "$cases" & pid_left=$!
	boot "$right" "$run" 1 "$cases" & pid_right=$!
	wait "$pid_left" && wait "$pid_right"
}

# in_turns RUN COLUMN...: the two-thread cases, one column after the other.
in_turns() {
	local run=$1 column
	shift
	for column in "$@"; do
		boot "$column" "$run" 0,1 threads --multi-thread
	done
}

tables=()

# counted COLUMN: the single-thread cases, instructions counted; times
# become instructions, and no calibration scales them.  A round of
# ICOUNT_ROUND instructions is some 20,000 hits, and counts as exactly as
# the timed rounds' 0.3 s.
ICOUNT_ROUND=30000000
counted() {
	local column=$1 dir=$out/$1/icount
	ROUND_NS=$ICOUNT_ROUND boot "$column" icount 0,1 base,hit,uret --icount
	sed -i -e 's/\tns\/call\t/\tinsns\/call\t/' -e 's/\tcalibration=[0-9]*$//' "$dir/bench.tsv"
}

for column in "${columns[@]}"; do
	rm -rf "${out:?}/$column"
done
if [ "$mode" = icount ]; then
	for column in "${columns[@]}"; do
		counted "$column"
		tables+=("$column=$out/$column/icount/bench.tsv")
	done
	header="uprobes benchmark, instructions counted, $(date -u +%Y-%m-%d), base
linux-source-6.12 $base
$machine, 2 vCPUs, -cpu $cpu, -icount shift=0,sleep=off (one host
thread): the guest's clock advances one nanosecond per instruction, so a
time measured in the guest is the number of instructions the guest ran
in it, on both vCPUs, timer interrupts included.
$about
Consumer: one counting perf event of the uprobe PMU per probe.  Values
are medians of 5 rounds of about 3e7 instructions each, one boot per
kernel; spread is (max - min) / median.  No address randomization
(norandmaps)."
	"$top/dev/bench-table.py" "$header" "$ratios" "${tables[@]}" | tee "$out/table.txt"
	exit 0
fi
side=0
for pair in "${pairs[@]}"; do
	read -r left right <<<"$pair"
	side=$((side + 1))
	side_by_side "side$side.1" "$left" "$right" "$side_cases"
	side_by_side "side$side.2" "$right" "$left" "$side_cases"
done
reversed=()
for column in "${columns[@]}"; do
	reversed=("$column" "${reversed[@]}")
done
in_turns turn1 "${columns[@]}"
in_turns turn2 "${reversed[@]}"
for column in "${columns[@]}"; do
	cat "$out/$column"/*/bench.tsv >"$out/$column/bench.tsv"
	tables+=("$column=$out/$column/bench.tsv")
done

header="uprobes benchmark, $(date -u +%Y-%m-%d), base linux-source-6.12 $base
$machine, 2 vCPUs, -cpu $cpu, on $(nproc) host cores: absolute times are
emulator times; only the ratios between kernels carry.
$about
Consumer: one counting perf event of the uprobe PMU per probe.  Values are
medians of the rounds of every boot (5 a boot, registration: 1; n gives
the rounds of each column): every single-thread case runs in two boots per
pairing, one on each host core; spread is (max - min) / median; ~ marks a
total projected from part of the work, and a ratio computed from one.
ns/call are scaled to the host's fastest speed by a calibration loop run
around each round (see dev/bench-table.py).
Kernels run side by side in pairs, one host core each, except threads.*
(in turns, forth then back, thread=multi, both host cores); no address
randomization (norandmaps)."
"$top/dev/bench-table.py" "$header" "$ratios" "${tables[@]}" | tee "$out/table.txt"
