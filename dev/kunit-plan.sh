#!/usr/bin/env bash
# kunit-plan.sh BUILD
#
# Prints the uprobes KUnit suites the kernel built in BUILD runs at boot,
# with the number of cases each lists, as "SUITE=CASES,SUITE=CASES", or
# "-" if it runs none: the plan guest/kunit-tap.sh holds the run to.  The
# suites are those of the tree BUILD was built from (BUILD/source), in the
# files uprobes' KUnit tests live in, and they run if the configuration has
# CONFIG_UPROBES_KUNIT_TEST; a kernel configured for them whose sources
# hold no suite is an error, not an empty plan.  A case is a KUNIT_CASE*()
# line of the suite's case array, parameterized or not (KUnit reports a
# parameterized case as one).
set -euo pipefail

build=${1:?usage: kunit-plan.sh BUILD}
src=$build/source

if ! grep -qx 'CONFIG_UPROBES_KUNIT_TEST=y' "$build/.config"; then
	echo -
	exit 0
fi
mapfile -t sources < <(ls "$src"/arch/x86/kernel/uprobes*kunit*.c \
	"$src"/kernel/events/uprobes/*kunit*.c 2>/dev/null || true)
plan=
if [ ${#sources[@]} -gt 0 ]; then
	# Each "struct kunit_case ARRAY[] = {" counts its KUNIT_CASE lines up to
	# its "};"; each "struct kunit_suite" names its array (.test_cases).
	plan=$(awk '
	/struct kunit_case [A-Za-z0-9_]+\[\] *= *\{/ {
		array = $0; sub(/.*struct kunit_case /, "", array); sub(/\[.*/, "", array)
		cases[array] = 0; next
	}
	array != "" && /^[[:space:]]*KUNIT_CASE/ { cases[array]++ }
	array != "" && /^[[:space:]]*\};/ { array = "" }
	/struct kunit_suite .* = *\{/ { suite = 1; name = ""; of = "" }
	suite && /\.name *= *"/ { name = $0; sub(/.*\.name *= *"/, "", name); sub(/".*/, "", name) }
	suite && /\.test_cases *= */ { of = $0; sub(/.*\.test_cases *= */, "", of); sub(/[ ,].*/, "", of) }
	suite && /^[[:space:]]*\};/ {
		suite = 0
		if (name == "" || !(of in cases)) { print "bad suite " name > "/dev/stderr"; exit 1 }
		printf "%s%s=%d", sep, name, cases[of]; sep = ","
	}
	END { print "" }' "${sources[@]}")
fi
if [ -z "$plan" ]; then
	echo "kunit-plan.sh: CONFIG_UPROBES_KUNIT_TEST is set, but $src holds no uprobes KUnit suite" >&2
	exit 1
fi
echo "$plan"
