#!/usr/bin/env bash
# check-all.sh
#
# What CI runs: every test on x86-64 (make check), the suites that are not
# about x86 on arm64 (make check ARCH=arm64), and our tree built for the
# other architectures (make cross, one result each; CROSS_ARCHES from the
# environment picks some).  Each part runs even
# if one before it failed; the last line adds them up, "N passed, N
# failed, N skipped".
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

run_part x86_64 check
run_part arm64 check ARCH=arm64

echo "=== cross: make cross ${CROSS_ARCHES:+CROSS_ARCHES=\"$CROSS_ARCHES\"}"
make -C "$top" --no-print-directory cross CROSS_ARCHES="${CROSS_ARCHES:-}" 2>&1 | tee "$log"
passed=$((passed + $(grep -cE '^  [a-z0-9]+ +ok ' "$log")))
failed=$((failed + $(grep -cE '^  [a-z0-9]+ +(FAILED|WARNED) ' "$log")))

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
