#!/usr/bin/env bash
# mutants-apply.sh TREE
#
# Checks that every mutant of dev/mutants/ still applies to TREE (ours'
# tree, out/src/ours, as dev/tree.sh prepares it without a mutant): one
# line for each that does not, then "N passed, N failed".  A mutant left
# behind by a change of the code would otherwise show only when its turn
# comes in check-all, as a boot failure.
set -euo pipefail

tree=${1:?usage: mutants-apply.sh TREE}
top=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0

for patch in "$top"/dev/mutants/*.patch; do
	if patch -d "$tree" -p1 --dry-run -s -f <"$patch" >/dev/null 2>&1; then
		passed=$((passed + 1))
	else
		echo "not ok - mutant $(basename "$patch" .patch) no longer applies to $tree"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
