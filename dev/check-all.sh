#!/usr/bin/env bash
# check-all.sh
#
# What CI runs: every test on x86-64 (make check), the suites that are not
# about x86 on arm64 (make check ARCH=arm64), our tree built for the other
# architectures (make cross, one result each; CROSS_ARCHES from the
# environment picks some), the tests on the untouched base (make check
# KERNEL=upstream: what upstream also has must pass there too), then the
# mutants (make mutants), one after the other round their list, for as
# long as the run is within MUTANTS_UNTIL seconds of its start (default
# 3600): each mutant's suites count as passed when they catch it.  The
# base's run takes about 27 minutes and starts only within UPSTREAM_UNTIL
# seconds (default 2700): a run whose builds start cold (a change to a
# header every file includes rebuilds both of our kernels) skips it, one
# skip in the count, and stays within CI's 90 minutes.  The
# first mutant is number MUTANTS_FROM (the environment) or else the one
# after the last that ran on this machine, whose name is kept in the
# cache: successive runs go round the whole list.  Each part runs even if
# one before it failed; the last line adds them up, "N passed, N failed,
# N skipped".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Adds the "N passed, N failed, N skipped" last line of $log to the totals;
# a part that printed none counts one failure.
add_counts() {
	local line p f s
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "not ok - $1: no result"
		failed=$((failed + 1))
		return
	fi
	read -r p _ f _ s _ <<<"${line//,/}"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
}

run_part() {
	local name=$1
	shift
	echo "=== $name: make $*"
	make -C "$top" --no-print-directory "$@" 2>&1 | tee "$log"
	add_counts "$name"
}

# A mutant's boot may hang: it gets MUTANT_LIMIT seconds, and none starts
# later than MUTANTS_UNTIL seconds into the run.
MUTANT_LIMIT=600
cursor=${UPROBES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/uprobes}/mutants-next

# Prints the index in "$@" of the mutant named in $cursor, or 0.
first_mutant() {
	local next i
	next=$(cat "$cursor" 2>/dev/null || true)
	for ((i = 1; i <= $#; i++)); do
		if [ "${!i}" = "$next" ]; then
			echo $((i - 1))
			return
		fi
	done
	echo 0
}

run_mutants() {
	local names=() i n start until=${MUTANTS_UNTIL:-3600} ran=0 name
	mapfile -t names < <(cd "$top/dev/mutants" && ls -- *.patch | sed 's/\.patch$//')
	n=${#names[@]}
	start=${MUTANTS_FROM:-$(first_mutant "${names[@]}")}
	mkdir -p "$(dirname "$cursor")"
	for ((i = 0; i < n; i++)); do
		if [ "$SECONDS" -ge "$until" ]; then
			echo "=== mutants: $ran of $n run, from number $start; time is up"
			return
		fi
		name=${names[$(((start + i) % n))]}
		make -C "$top" --no-print-directory mutants TIMEOUT=$MUTANT_LIMIT \
			MUTANTS="^$name\$" 2>&1 | tee "$log"
		passed=$((passed + $(grep -c '^          caught by ' "$log")))
		failed=$((failed + $(grep -c '^          MISSED by ' "$log")))
		ran=$((ran + 1))
		echo "${names[$(((start + i + 1) % n))]}" >"$cursor"
	done
	echo "=== mutants: all $n run"
}

run_part x86_64 check
run_part arm64 check ARCH=arm64

echo "=== cross: make cross ${CROSS_ARCHES:+CROSS_ARCHES=\"$CROSS_ARCHES\"}"
make -C "$top" --no-print-directory cross CROSS_ARCHES="${CROSS_ARCHES:-}" 2>&1 | tee "$log"
passed=$((passed + $(grep -cE '^  [a-z0-9]+ +ok ' "$log")))
failed=$((failed + $(grep -cE '^  [a-z0-9]+ +(FAILED|WARNED) ' "$log")))

if [ "$SECONDS" -lt "${UPSTREAM_UNTIL:-2700}" ]; then
	run_part upstream check KERNEL=upstream
else
	echo "=== upstream: not run, $SECONDS s into the run (UPSTREAM_UNTIL=${UPSTREAM_UNTIL:-2700})"
	skipped=$((skipped + 1))
fi
run_mutants

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
