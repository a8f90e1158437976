#!/usr/bin/env bash
# kunit-tap.sh: the results of the KUnit suites that ran at boot, as TAP.
#
# KUnit writes each suite's KTAP to debugfs.  Each test case of a suite (an
# "ok"/"not ok" line one level in) becomes one of our tests, named
# SUITE.CASE, keeping its "# SKIP" directive; a suite without cases (it
# failed to start) counts as one.  What must have run comes from the
# uprobes KUnit files of the tree under test ($UPROBE_TEST_SRC): each
# suite they define, with as many cases as they list; a suite missing, or
# short of cases, is a failure.
set -euo pipefail

dir=/sys/kernel/debug/kunit
src=${UPROBE_TEST_SRC:?}
mapfile -t sources < <(ls "$src"/arch/x86/kernel/uprobes_kunit.c \
	"$src"/kernel/events/uprobes/*kunit*.c 2>/dev/null || true)

# expected_suites: the name of each struct kunit_suite in the sources.
expected_suites() {
	[ ${#sources[@]} -eq 0 ] ||
		awk '/struct kunit_suite .* = \{/ { s = 1 }
		     s && /\.name = "/ { sub(/.*\.name = "/, ""); sub(/".*/, ""); print; s = 0 }' \
			"${sources[@]}"
}

# expected_cases: how many cases the sources list, over all their suites.
expected_cases() {
	[ ${#sources[@]} -eq 0 ] && echo 0 ||
		cat "${sources[@]}" | grep -cE '^[[:space:]]*KUNIT_CASE' || true
}

# results SUITE: one "ok|not ok NAME[ # SKIP why]" line per case of SUITE.
results() {
	local suite=$1 file=$dir/$1/results
	if grep -qE '^    (not )?ok [0-9]+ ' "$file"; then
		sed -nE "s/^    (not ok|ok) [0-9]+ ([^ #]+)[^#]*(# SKIP.*)?\$/\1 $suite.\2 \3/p" "$file" |
			sed 's/ $//'
	elif grep -qE '^not ok ' "$file"; then
		echo "not ok $suite"
	else
		echo "ok $suite"
	fi
}

mapfile -t suites < <(ls "$dir" 2>/dev/null)
lines=()
for suite in "${suites[@]}"; do
	sed 's/^/# /' "$dir/$suite/results"
	mapfile -t -O ${#lines[@]} lines < <(results "$suite")
done
cases=0
while read -r suite; do
	if [ -e "$dir/$suite/results" ]; then
		cases=$((cases + $(results "$suite" | wc -l)))
	else
		lines+=("not ok $suite: did not run")
	fi
done < <(expected_suites)
want=$(expected_cases)
[ "$cases" -ge "$want" ] || lines+=("not ok uprobes KUnit: $cases of $want cases ran")
echo "TAP version 13"
echo "1..${#lines[@]}"
n=0
for line in "${lines[@]}"; do
	n=$((n + 1))
	[[ $line =~ ^(not ok|ok)\ (.*)$ ]]
	echo "${BASH_REMATCH[1]} $n kunit: ${BASH_REMATCH[2]}"
done
