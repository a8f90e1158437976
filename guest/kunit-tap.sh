#!/usr/bin/env bash
# kunit-tap.sh: the results of the KUnit suites that ran at boot, as TAP.
#
# KUnit writes each suite's KTAP to debugfs.  Each test case of a suite (an
# "ok"/"not ok" line one level in) becomes one of our tests, named
# SUITE.CASE; a suite without cases (it failed to start) counts as one.
set -euo pipefail

dir=/sys/kernel/debug/kunit

# results SUITE: one "ok|not ok NAME" line per case of SUITE.
results() {
	local suite=$1 file=$dir/$1/results
	if grep -qE '^    (not )?ok [0-9]+ ' "$file"; then
		sed -nE "s/^    (not ok|ok) [0-9]+ ([^ #]+).*/\1 $suite.\2/p" "$file"
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
echo "TAP version 13"
echo "1..${#lines[@]}"
n=0
for line in "${lines[@]}"; do
	n=$((n + 1))
	echo "${line%% *}" | grep -q '^not' && status="not ok" || status=ok
	echo "$status $n kunit: ${line##* }"
done
