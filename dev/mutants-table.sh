#!/usr/bin/env bash
# mutants-table.sh [--check README]
#
# Prints the table of the mutants of dev/mutants/ for the README: each
# one's name, what it breaks (its "Mutant:" paragraph) and the suites that
# must catch it (its "Expect-fail:" line), on the architecture of its
# "Arch:" line if it has one.  With --check, compares the
# table with the one in README between the lines "<!-- mutants -->" and
# "<!-- /mutants -->" instead, and fails if they differ.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

# The row of mutant patch $1.
row() {
	awk -v name="$(basename "$1" .patch)" '
		/^Arch:/ { sub(/^Arch: */, ""); arch = $0; next }
		/^Expect-fail:/ { sub(/^Expect-fail: */, ""); suites = $0; exit }
		{ sub(/^Mutant: */, ""); what = what (what == "" ? "" : " ") $0 }
		END {
			gsub(/\|/, "\\|", what)
			n = split(suites, s, " ")
			caught = ""
			for (i = 1; i <= n; i++)
				caught = caught (i > 1 ? ", " : "") "`" s[i] "`"
			if (arch != "")
				caught = caught " on " arch
			printf "| `%s` | %s | %s |\n", name, what, caught
		}' "$1"
}

table() {
	echo "| mutant | what it breaks | caught by |"
	echo "| --- | --- | --- |"
	for patch in "$top"/dev/mutants/*.patch; do
		row "$patch"
	done
}

if [ "${1:-}" = --check ]; then
	readme=${2:?usage: mutants-table.sh [--check README]}
	if ! diff -u <(sed -n '/^<!-- mutants -->$/,/^<!-- \/mutants -->$/p' "$readme" | sed '1d;$d') \
		<(table) >/dev/null; then
		echo "not ok - the table of mutants in $readme is not current: dev/mutants-table.sh prints it"
		exit 1
	fi
	exit 0
fi
table
