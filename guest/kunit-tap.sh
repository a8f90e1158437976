#!/usr/bin/env bash
# kunit-tap.sh: the results of the uprobes KUnit suites that ran at boot,
# as TAP.
#
# What must have run is the host's plan, $UPROBE_KUNIT_PLAN
# ("SUITE=CASES,..." or "-" for none; dev/kunit-plan.sh, from the sources
# the kernel was built from): the TAP plan is the sum of its cases, written
# before anything is read.  KUnit writes each suite's KTAP to debugfs; each
# case of a planned suite (an "ok"/"not ok" line one level in) is one of
# our tests, named SUITE.CASE, keeping its "# SKIP" directive.  A planned
# suite missing, or with more or fewer cases than planned, is a harness
# failure ("not ok - harness: ..."), not a failed test: the run then falls
# short of its plan, or passes it, which the host counts as a failure too.
# Suites outside the plan show as comments only.
set -euo pipefail

dir=/sys/kernel/debug/kunit
plan=${UPROBE_KUNIT_PLAN:?}

# cases SUITE: one "ok|not ok NAME[ # SKIP why]" line per case of SUITE.
cases() {
	sed -nE "s/^    (not ok|ok) [0-9]+ ([^ #]+)[^#]*(# SKIP.*)?\$/\1 $1.\2 \3/p" \
		"$dir/$1/results" | sed 's/ $//'
}

declare -A want=()
total=0
if [ "$plan" != - ]; then
	IFS=, read -r -a entries <<<"$plan"
	for entry in "${entries[@]}"; do
		want[${entry%=*}]=${entry#*=}
		total=$((total + ${entry#*=}))
	done
fi
echo "TAP version 13"
echo "1..$total"
mapfile -t present < <(ls "$dir" 2>/dev/null || true)
for suite in "${present[@]}"; do
	sed 's/^/# /' "$dir/$suite/results"
	[ -n "${want[$suite]+set}" ] || echo "# not planned, not counted: $suite"
done
n=0
for suite in "${!want[@]}"; do
	if [ ! -e "$dir/$suite/results" ]; then
		echo "not ok - harness: kunit: $suite did not run"
		continue
	fi
	mapfile -t lines < <(cases "$suite")
	[ "${#lines[@]}" -eq "${want[$suite]}" ] ||
		echo "not ok - harness: kunit: $suite ran ${#lines[@]} cases of ${want[$suite]}"
	for line in "${lines[@]}"; do
		n=$((n + 1))
		[[ $line =~ ^(not ok|ok)\ (.*)$ ]]
		echo "${BASH_REMATCH[1]} $n kunit: ${BASH_REMATCH[2]}"
	done
done
