#!/usr/bin/env bash
# kunit-tap.sh: the results of the KUnit suites that ran at boot, as TAP.
# KUnit writes each suite's KTAP to debugfs; its top-level lines become ours.
set -euo pipefail

dir=/sys/kernel/debug/kunit
mapfile -t suites < <(ls "$dir" 2>/dev/null)
echo "TAP version 13"
echo "1..${#suites[@]}"
n=0
for suite in "${suites[@]}"; do
	n=$((n + 1))
	sed 's/^/# /' "$dir/$suite/results"
	if grep -qE '^ *not ok ' "$dir/$suite/results"; then
		echo "not ok $n kunit: $suite"
	else
		echo "ok $n kunit: $suite"
	fi
done
