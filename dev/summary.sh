#!/usr/bin/env bash
# summary.sh RESULTS ENGINE ARCH [KERNEL_CHECK_RC]
#
# Counts the results of a test boot.  Each suite left RESULTS/NAME.tap (its
# TAP) and RESULTS/NAME.rc (its exit status); guest/check.sh wrote the list
# of suites it meant to run in RESULTS/plan.  A top-level "ok" is a pass
# ("# SKIP" makes it a skip), a "not ok" a failure.  A "not ok - harness:
# ..." line is not a test: the wrapper of a suite says the suite itself
# broke (it crashed, or ran short of what the host planned); it counts one
# failure, but not on the suite's own line, whose failures are its tests'
# alone (dev/mutants.sh counts a catch from them).  A skip that
# dev/expected-skips does not list for ENGINE (base or ours) on ARCH
# (x86_64 or arm64) counts one failure more.  A test that
# dev/expected-failures lists for ENGINE and ARCH counts as passed when it
# fails there ("fails" or "may fail"), and one failure when a "fails" one
# passes (the test no longer tells that kernel's behaviour from the one it
# checks); a "not run" one, which guest/check.sh leaves out, counts as
# skipped, and one failure if it ran all the same.  So do a suite that never
# ran, ran short of its "1..N" plan, or exited non-zero without reporting a
# failure, and a dirty kernel log (KERNEL_CHECK_RC non-zero).  Prints
# "failed: SUITE: TEST" for each failed test that dev/expected-failures does
# not expect, then "N passed, N failed, N skipped" last.
set -euo pipefail

usage="usage: summary.sh RESULTS ENGINE ARCH [KERNEL_CHECK_RC]"
results=${1:?$usage} engine=${2:?$usage} arch=${3:?$usage} kernel_rc=${4:-0}
expected=$(dirname "$0")/expected-skips
failures=$(dirname "$0")/expected-failures
passed=0 failed=0 skipped=0
# "SUITE: TEST" of each failure that dev/expected-failures does not expect.
unexpected=()
harness='^not ok( [0-9]+)?( -)? harness: '

fail() {
	echo "not ok - $1"
	failed=$((failed + 1))
}

# expected_skips SUITE: the names of the tests of SUITE that
# dev/expected-skips lets skip on this engine and architecture.
expected_skips() {
	awk -f "$(dirname "$0")/expected.awk" -v fields=5 -v engine="$engine" -v arch="$arch" \
		-v suite="$1" "$expected"
}

# expected_failures SUITE: "TEST<tab>RESULT" for each test of SUITE that
# dev/expected-failures lists for this engine and architecture.
expected_failures() {
	awk -f "$(dirname "$0")/expected.awk" -v fields=6 -v engine="$engine" -v arch="$arch" \
		-v suite="$1" "$failures"
}

# tests_of SUITE RESULT: the name of each test SUITE's TAP gives RESULT
# ("ok" or "not ok"), skips left out.
tests_of() {
	sed -nE "/# *(SKIP|skip)/d; s/^$2( [0-9]+)? (.*[^ ]) *\$/\2/p" "$results/$1.tap" |
		sed -E "s/^- //; s/^$1: //; s/ *#.*//"
}

# count_expected SUITE: checks the tests dev/expected-failures lists for
# SUITE against its TAP, and moves its expected failures (xfailed) and
# the tests left out (xskipped) from the failures to the passes and skips.
count_expected() {
	local name=$1 result test
	xfailed=0 xskipped=0 xfail_names=()
	while IFS=$'\t' read -r test result; do
		if tests_of "$name" 'not ok' | grep -qxF -- "$test"; then
			if [ "$result" = 'not run' ]; then
				fail "$name: $test ran (dev/expected-failures leaves it out on $engine)"
			else
				echo "    $name: $test: expected failure on $engine"
				xfailed=$((xfailed + 1)) xfail_names+=("$test")
			fi
		elif tests_of "$name" ok | grep -qxF -- "$test"; then
			case $result in
			fails) fail "$name: $test passed (dev/expected-failures: fails on $engine)" ;;
			'not run') fail "$name: $test ran (dev/expected-failures leaves it out on $engine)" ;;
			esac
		elif [ "$result" = 'not run' ]; then
			xskipped=$((xskipped + 1))
		fi
	done < <(expected_failures "$name")
}

# skipped_tests SUITE: the name of each test that SUITE's TAP skipped: its
# description, less the " - " or "SUITE: " that may start it.
skipped_tests() {
	sed -nE 's/^ok( [0-9]+)? (.*[^ ]) *# *(SKIP|skip).*/\2/p' "$results/$1.tap" |
		sed -E "s/^- //; s/^$1: //"
}

count_suite() {
	local name=$1 tap=$results/$1.tap rc planned ran p f s line test
	local -a allowed=()
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
	count_expected "$name"
	while read -r test; do
		printf '%s\n' "${xfail_names[@]}" | grep -qxF -- "$test" ||
			unexpected+=("$name: $test")
	done < <(tests_of "$name" 'not ok' | grep -v '^harness: ' || true)
	passed=$((passed + p + xfailed)) skipped=$((skipped + s + xskipped))
	failed=$((failed + f - xfailed))
	while read -r line; do
		fail "$name: harness: ${line#*harness: }"
	done < <(grep -E "$harness" "$tap" || true)
	mapfile -t allowed < <(expected_skips "$name")
	while read -r test; do
		printf '%s\n' "${allowed[@]}" | grep -qxF -- "$test" ||
			fail "$name: unexpected skip: $test (not in dev/expected-skips for $engine on $arch)"
	done < <(skipped_tests "$name")
	if [ -z "$planned" ] || [ "$planned" -ne "$ran" ]; then
		fail "$name: ran $ran of ${planned:-an unknown number of} tests"
	elif [ "$rc" != 0 ] && [ "$f" -eq 0 ]; then
		fail "$name: exited with status $rc"
	fi
}

case $engine in
base | ours) ;;
*) echo "summary.sh: ENGINE must be base or ours, not '$engine'" >&2; exit 2 ;;
esac
expected_skips '' >/dev/null
expected_failures '' >/dev/null
[ -f "$results/plan" ] || fail "the guest did not start its test run"
if [ -f "$results/plan" ]; then
	while read -r suite; do
		count_suite "$suite"
	done <"$results/plan"
fi
[ "$kernel_rc" -eq 0 ] || fail "the kernel log shows a problem (see above)"
for test in "${unexpected[@]}"; do
	echo "failed: $test"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
