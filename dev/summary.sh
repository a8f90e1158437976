#!/usr/bin/env bash
# summary.sh RESULTS [KERNEL_CHECK_RC]
#
# Counts the results of a test boot.  Each suite left RESULTS/NAME.tap (its
# TAP) and RESULTS/NAME.rc (its exit status); guest/check.sh wrote the list
# of suites it meant to run in RESULTS/plan.  A top-level "ok" is a pass
# ("# SKIP" makes it a skip), a "not ok" a failure.  A "not ok - harness:
# ..." line is not a test: the wrapper of a suite says the suite itself
# broke (it crashed, or ran short of what the host planned); it counts one
# failure, but not on the suite's own line, whose failures are its tests'
# alone (dev/mutants.sh counts a catch from them).  A suite that never
# ran, ran short of its "1..N" plan, or exited non-zero without reporting a
# failure counts one failure more, and so does a dirty kernel log
# (KERNEL_CHECK_RC non-zero).  Prints "N passed, N failed, N skipped" last.
set -euo pipefail

results=${1:?usage: summary.sh RESULTS [KERNEL_CHECK_RC]}
kernel_rc=${2:-0}
passed=0 failed=0 skipped=0
harness='^not ok( [0-9]+)?( -)? harness: '

fail() {
	echo "not ok - $1"
	failed=$((failed + 1))
}

count_suite() {
	local name=$1 tap=$results/$1.tap rc planned ran p f s line
	if [ ! -f "$tap" ]; then
		fail "$name: did not run"
		return
	fi
	rc=$(cat "$results/$name.rc" 2>/dev/null || echo missing)
	p=$(grep -cE '^ok ' "$tap" | head -1) || true
	s=$(grep -cE '^ok .*# *(SKIP|skip)' "$tap") || true
	f=$(grep -E '^not ok ' "$tap" | grep -cvE "$harness") || true
	p=$((p - s))
	planned=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$tap" | head -n 1)
	ran=$((p + s + f))
	printf '%-24s %4d passed, %d failed, %d skipped (exit %s)\n' "$name" "$p" "$f" "$s" "$rc"
	grep -E '^not ok ' "$tap" | grep -vE "$harness" | sed "s/^/    $name: /" || true
	passed=$((passed + p)) skipped=$((skipped + s)) failed=$((failed + f))
	while read -r line; do
		fail "$name: harness: ${line#*harness: }"
	done < <(grep -E "$harness" "$tap" || true)
	if [ -z "$planned" ] || [ "$planned" -ne "$ran" ]; then
		fail "$name: ran $ran of ${planned:-an unknown number of} tests"
	elif [ "$rc" != 0 ] && [ "$f" -eq 0 ]; then
		fail "$name: exited with status $rc"
	fi
}

[ -f "$results/plan" ] || fail "the guest did not start its test run"
if [ -f "$results/plan" ]; then
	while read -r suite; do
		count_suite "$suite"
	done <"$results/plan"
fi
[ "$kernel_rc" -eq 0 ] || fail "the kernel log shows a problem (see above)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
