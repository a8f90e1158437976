#!/usr/bin/env bash
# check-all.sh
#
# What CI runs (.ci/run): our tests, proven on the untouched base and on
# mutant kernels, in an order planned to end well within CI's 90 minutes.
# The parts, in order:
#   x86_64         every test on x86-64 (make check);
#   pathlen        the hit path's instructions per call on ours against
#                  bench/pathlen-budget, QEMU counting them (make pathlen;
#                  about a minute);
#   upstream       the core of the suites on the base (make check
#                  KERNEL=upstream T=core): KUnit, our kselftests and
#                  the base's ftrace selftests; what the base also has
#                  must pass there;
#   mutants-apply  every mutant still applies to ours and what it changes
#                  compiles (two minutes);
#   series         the series' end is ours, checkpatch --strict is
#                  clean, and the review rules hold (make series; three
#                  minutes);
#   mutants        MUTANTS_MIN mutants (default: a seventh of the list,
#                  rounded up, so that any seven runs in a row go round it),
#                  one after the other round their list (make mutants); a
#                  suite that catches its mutant counts as passed, one that
#                  misses it as failed;
#   arm64          the suites that are not about x86, on arm64 (make check
#                  ARCH=arm64), but bcc (ARM64_LEFT_OUT);
#   cross ARCH     our tree built for ARCH, each of CROSS_ARCHES in turn
#                  (default: all eight others);
#   upstream-rest  the other suites of guest/check.sh on the base (the peer
#                  tools: perf, bpftrace, bcc, the BPF selftests, stress-ng);
#   more mutants   the next ones round the list.
# The first six always run, but for mutants that would start later than
# MUTANTS_LAST seconds into the run (default 4200), which count as skips.
# Each later one starts only within its time
# of the run's start (seconds, from the environment: ARM64_UNTIL,
# CROSS_UNTIL, UPSTREAM_REST_UNTIL, MUTANTS_UNTIL), else arm64, a cross
# ARCH or upstream-rest counts one skip: a run whose builds start cold (a
# change to a header every file includes) drops those, not the first
# six.  README "Proving the tests" has the times these are set from.
# The first mutant is number MUTANTS_FROM (the environment), else the one
# after the last that a run on this machine reached (its name is kept in
# the cache), else the first of the seventh of the list that the number
# of commits of the checkout points to (modulo 7): successive runs go
# round the list, and so do the runs of successive commits in fresh
# clones on fresh machines, which have no cache.  Each part runs even if one before
# it failed, and says how long it took; the closing summary names what did
# not run and what failed, and the last line adds them up, "N passed, N
# failed, N skipped".
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0 skipped=0
# What did not run, by name, for the closing summary (each also a skip).
not_run=()
# What failed, "PART: LINE", for the closing summary: the lines of the
# parts' output that name a failure (note_failures).
failures=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

ARM64_UNTIL=${ARM64_UNTIL:-3300}
CROSS_UNTIL=${CROSS_UNTIL:-3720}
UPSTREAM_REST_UNTIL=${UPSTREAM_REST_UNTIL:-3900}
MUTANTS_UNTIL=${MUTANTS_UNTIL:-3900}
# Not even the mutants every run must have start this late: the run ends
# within CI's 90 minutes whatever hangs before; those not run are skips,
# and the next run starts with them.
MUTANTS_LAST=${MUTANTS_LAST:-4200}
# The base's core: KUnit, our kselftests and the ftrace selftests.
UPSTREAM_CORE_SUITES='^(kunit|uprobe_.*|ftracetest)$'
# What the arm64 part leaves out for time: bcc compiles each tool's BPF
# program in the emulated arm64 guest, about 9 minutes of a boot (make
# check ARCH=arm64 runs it).
ARM64_LEFT_OUT='^bcc$'
# A mutant's boot may hang: it gets MUTANT_LIMIT seconds.
MUTANT_LIMIT=600
cursor=${UPROBES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/uprobes}/mutants-next

# Adds the "N passed, N failed, N skipped" last line of $log to the totals;
# a part that printed none counts one failure.
add_counts() {
	local line p f s
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)
	if [ -z "$line" ]; then
		echo "not ok - $1: no result"
		failed=$((failed + 1))
		return
	fi
	read -r p _ f _ s _ <<<"${line//,/}"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
}

# note_failures PART [REGEX]: keeps the lines of $log that match REGEX,
# by default those that name a failure of a test boot: dev/summary.sh's
# "failed: " and "not ok - " lines, not the suites' own "not ok N" lines,
# which a failure dev/expected-failures expects also prints.
note_failures() {
	local line
	while read -r line; do
		failures+=("$1: $line")
	done < <(grep -E "${2:-^failed: |^not ok - }" "$log" || true)
}

# make TARGET... in the top directory, its output also in $log; a failure
# is told by the output, not the status.
make_logged() {
	make -C "$top" --no-print-directory "$@" 2>&1 | tee "$log" || true
}

# part NAME: the head of a part.  part_end NAME START: its time.
part() {
	echo "=== $1 ($SECONDS s into the run): ${*:2}"
}
part_end() {
	echo "=== $1: $((SECONDS - $2)) s"
}

# in_time NAME UNTIL: true if the run is within UNTIL seconds of its
# start, else says so and counts NAME as one skip.
in_time() {
	[ "$SECONDS" -lt "$2" ] && return 0
	echo "=== $1: not run, $SECONDS s into the run (started only before $2 s)"
	skipped=$((skipped + 1)) not_run+=("$1")
	return 1
}

# add_line_counts NAME PASS FAIL: adds the lines of $log that match the
# regex PASS to the passes and those that match FAIL to the failures; a
# part with neither counts one failure.
add_line_counts() {
	local ok bad
	ok=$(grep -cE "$2" "$log" || true)
	bad=$(grep -cE "$3" "$log" || true)
	passed=$((passed + ok)) failed=$((failed + bad))
	if [ $((ok + bad)) -eq 0 ]; then
		echo "not ok - $1: no result"
		failed=$((failed + 1))
	fi
}

# run_part NAME TARGET...: make TARGET... as the part NAME.  A failure
# is a line that matches $failure_lines if set (a TAP part: pathlen), else
# note_failures' default.
run_part() {
	local name=$1 start=$SECONDS
	shift
	part "$name" "make $*"
	make_logged "$@"
	add_counts "$name"
	note_failures "$name" "${failure_lines:-}"
	part_end "$name" "$start"
}

# The suites of guest/check.sh (its suites=( ) list), one a line.
guest_suites() {
	awk '/^suites=\(/ { on = 1; next }
		on && /^\)/ { exit }
		on { gsub(/"/, ""); if (NF) print $1 }' "$top/guest/check.sh"
}

# The suites of guest/check.sh in the base's core, as a regex.
upstream_core() {
	local names
	names=$(guest_suites | grep -E "$UPSTREAM_CORE_SUITES" | paste -sd'|' || true)
	echo "^($names)\$"
}

# suites_except REGEX: the suites of guest/check.sh that REGEX does not
# match, as a regex (nothing if none).
suites_except() {
	local names
	names=$(guest_suites | grep -Ev "$1" | paste -sd'|' || true)
	[ -z "$names" ] || echo "^($names)\$"
}

# The suites of guest/check.sh that the base's core leaves out.
upstream_rest() {
	suites_except "$(upstream_core)"
}

mutant_names=()
for patch in "$top"/dev/mutants/*.patch; do
	[ -e "$patch" ] && mutant_names+=("$(basename "$patch" .patch)")
done
mutant_count=${#mutant_names[@]}
# The share of the list each run takes at least: seven runs cover it.
MUTANTS_MIN=${MUTANTS_MIN:-$(((mutant_count + 6) / 7))}

# Prints the index of the first mutant of this run (see the top).
first_mutant() {
	local next i commits
	if [ -n "${MUTANTS_FROM:-}" ]; then
		echo $((MUTANTS_FROM % mutant_count))
		return
	fi
	next=$(cat "$cursor" 2>/dev/null || true)
	for ((i = 0; i < mutant_count; i++)); do
		if [ "${mutant_names[i]}" = "$next" ]; then
			echo "$i"
			return
		fi
	done
	commits=$(git -C "$top" rev-list --count HEAD 2>/dev/null || echo 0)
	echo $(((commits % 7) * MUTANTS_MIN % mutant_count))
}

mutants_start=0 mutants_ran=0

# run_mutants NAME MIN UNTIL: the next mutants round the list, not past
# its end: MIN of them whatever the time, then more only while the run is
# within UNTIL seconds of its start.
run_mutants() {
	local name=$1 min=$2 until=$3 start=$SECONDS ran=0 i mutant
	part "$name" "make mutants, number $(((mutants_start + mutants_ran) % mutant_count)) on, of $mutant_count"
	mkdir -p "$(dirname "$cursor")"
	while [ "$mutants_ran" -lt "$mutant_count" ]; do
		if [ "$ran" -lt "$min" ] && [ "$SECONDS" -ge "$MUTANTS_LAST" ]; then
			echo "=== $name: $((min - ran)) not run, $SECONDS s into the run (none starts after $MUTANTS_LAST s)"
			skipped=$((skipped + min - ran))
			for ((i = 0; i < min - ran; i++)); do
				not_run+=("mutant ${mutant_names[(mutants_start + mutants_ran + i) % mutant_count]}")
			done
			break
		fi
		if [ "$ran" -ge "$min" ] && [ "$SECONDS" -ge "$until" ]; then
			[ "$until" -eq 0 ] ||
				echo "=== $name: time is up ($SECONDS s into the run, started only before $until s)"
			break
		fi
		i=$(((mutants_start + mutants_ran) % mutant_count))
		mutant=${mutant_names[i]}
		make_logged mutants TIMEOUT=$MUTANT_LIMIT MUTANTS="^$mutant\$"
		add_line_counts "mutant $mutant" '^          caught by ' '^          MISSED by '
		note_failures "mutant $mutant" 'MISSED by '
		ran=$((ran + 1)) mutants_ran=$((mutants_ran + 1))
		echo "${mutant_names[$(((i + 1) % mutant_count))]}" >"$cursor"
	done
	echo "=== $name: $ran run; $mutants_ran of $mutant_count in all, from number $mutants_start"
	part_end "$name" "$start"
}

# The series' end is ours, checkpatch finds nothing and the review rules
# (dev/series-rules.sh) hold: one pass, else one failure.
run_series() {
	local start=$SECONDS
	part series "make series"
	make_logged series
	if grep -q "its end is ours, byte for byte" "$log" &&
		grep -q "checkpatch --strict: clean" "$log" &&
		grep -qE '^[0-9]+ passed, 0 failed$' "$log"; then
		passed=$((passed + 1))
	else
		echo "not ok - series: its end is not ours, checkpatch complains, or a review rule fails"
		failed=$((failed + 1))
		note_failures series
		failures+=("series: its end is not ours, checkpatch complains, or a review rule fails")
	fi
	part_end series "$start"
}

run_cross() {
	local arch=$1 start=$SECONDS
	part "cross $arch" "make cross CROSS_ARCHES=$arch"
	make_logged cross CROSS_ARCHES="$arch"
	add_line_counts "cross $arch" "^  $arch +ok " "^  $arch +(FAILED|WARNED) "
	note_failures "cross $arch" "^  $arch +(FAILED|WARNED) "
	part_end "cross $arch" "$start"
}

[ "$mutant_count" -gt 0 ] || { echo "check-all.sh: no mutant in dev/mutants" >&2; exit 2; }
mutants_start=$(first_mutant)
read -r -a cross_arches <<<"${CROSS_ARCHES:-arm arm64 loongarch mips powerpc riscv s390 sparc64}"
core=$(upstream_core)
rest=$(upstream_rest)

run_part x86_64 check
failure_lines='^not ok' run_part pathlen pathlen
run_part upstream check KERNEL=upstream T="$core"
run_part mutants-apply mutants-apply
run_series
run_mutants mutants "$MUTANTS_MIN" 0
if in_time arm64 "$ARM64_UNTIL"; then
	run_part arm64 check ARCH=arm64 T="$(suites_except "$ARM64_LEFT_OUT")"
fi
for arch in "${cross_arches[@]}"; do
	if in_time "cross $arch" "$CROSS_UNTIL"; then
		run_cross "$arch"
	fi
done
if [ -n "$rest" ] && in_time upstream-rest "$UPSTREAM_REST_UNTIL"; then
	run_part upstream-rest check KERNEL=upstream T="$rest" RESULTS="$top/out/results/upstream-rest"
fi
if [ "$mutants_ran" -lt "$mutant_count" ] && [ "$SECONDS" -lt "$MUTANTS_UNTIL" ]; then
	run_mutants "more mutants" 0 "$MUTANTS_UNTIL"
fi

echo
echo "=== check-all: $SECONDS s"
for name in "${not_run[@]}"; do
	echo "=== not run: $name"
done
for line in "${failures[@]}"; do
	echo "=== failed: $line"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
