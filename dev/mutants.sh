#!/usr/bin/env bash
# mutants.sh TIMEOUT [REGEX]
#
# Proves the tests can fail.  Each dev/mutants/NAME.patch breaks one feature
# of the kernel on purpose and names, on its "Expect-fail:" line, the suites
# that must catch it.  For each mutant this builds `ours` with the patch
# applied (in ours' own build directory: only the files it changes, and
# those the mutant before it changed, are compiled), runs those suites,
# and reports whether each one failed.  An "Arch: arm64" line
# runs them on arm64 (make check ARCH=arm64).  A catch is a failed test in
# the suite's own TAP, counted on the suite's line of the summary: a suite
# that did not run (a boot that failed), stopped short, or broke with no
# failed test (a wrapper's "not ok - harness: ...", as for a crashed
# test_progs or a short KUnit run, which dev/summary.sh keeps off that
# line) catches nothing, and is reported as a boot or harness failure.
# The suite "cross" is the build of another architecture: the mutant
# must break the build of its "Arch:" (make cross; arm64 if it names
# none); "pathlen" is the path-length
# gate: a case of make pathlen must fail.  Exits non-zero if a suite
# passed on a kernel it should have caught.  With REGEX, only the mutants
# whose name matches it run.
set -euo pipefail

limit=${1:-2400}
only=${2:-.}
top=$(cd "$(dirname "$0")/.." && pwd)
missed=0

for patch in "$top"/dev/mutants/*.patch; do
	name=$(basename "$patch" .patch)
	[[ $name =~ $only ]] || continue
	read -r -a expect < <(sed -n 's/^Expect-fail: *//p' "$patch")
	arch=$(sed -n 's/^Arch: *//p' "$patch")
	filter="^($(IFS='|'; echo "${expect[*]}"))\$"
	log=$top/out/results/mutant-$name.log
	mkdir -p "$(dirname "$log")"
	echo "  MUTANT  $name: expecting failures in ${expect[*]}"
	if [ "${expect[*]}" = pathlen ]; then
		make -s -C "$top" pathlen MUTANT="$name" TIMEOUT="$limit" >"$log" 2>&1 || true
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" || true)
		if [[ $line =~ ^[0-9]+\ passed,\ [1-9] ]]; then
			echo "          caught by pathlen: $(grep -m1 '^not ok' "$log")"
		else
			echo "          MISSED by pathlen: ${line:-no result}"
			missed=$((missed + 1))
		fi
		continue
	fi
	if [ "${expect[*]}" = cross ]; then
		if make -s -C "$top" cross MUTANT="$name" CROSS_ARCHES="${arch:-arm64}" >"$log" 2>&1; then
			echo "          MISSED by cross: the ${arch:-arm64} build passed"
			missed=$((missed + 1))
		else
			echo "          caught by cross: $(grep -m1 FAILED "$log" || echo failed)"
		fi
		continue
	fi
	make -s -C "$top" check MUTANT="$name" ${arch:+ARCH="$arch"} T="$filter" \
		TIMEOUT="$limit" >"$log" 2>&1 || true
	for suite in "${expect[@]}"; do
		line=$(grep -E "^$suite +[0-9]+ passed" "$log" || true)
		if [[ $line =~ ^$suite\ +[0-9]+\ passed,\ [1-9] ]]; then
			echo "          caught by $suite: $line"
		elif [ -z "$line" ]; then
			why=$(grep -m1 -E "^not ok - $suite: " "$log" || true)
			echo "          MISSED by $suite: boot or harness failure, no result${why:+ (${why#not ok - })}"
			missed=$((missed + 1))
		else
			why=$(grep -m1 -E "^not ok - $suite: " "$log" || true)
			echo "          MISSED by $suite: $line${why:+; not a catch: ${why#not ok - }}"
			missed=$((missed + 1))
		fi
	done
done
echo "mutants: $missed missed"
[ "$missed" -eq 0 ]
