#!/usr/bin/env bash
# mutants-apply.sh TREE BUILD
#
# Checks that every mutant of dev/mutants/ still applies to TREE (ours'
# tree, out/src/ours, as dev/tree.sh prepares it without a mutant), with
# no fuzz (a hunk whose context changed may land on other code), and
# that what it changes still compiles in BUILD (ours' x86-64 build, which
# `make kernel` left): each .c file it changes, and for a header the
# directory of that header (the core's, for one under include/); a file of
# another architecture (arch/arm64/...) only applies here, and compiles
# when its mutant runs (make mutants builds it for its Arch:).  One line
# for each that does not, then "N passed, N failed".  A mutant left behind
# by a change of the code would otherwise show only when its turn comes in
# check-all, as a boot or harness failure.  And that README's table of
# the mutants is current (dev/mutants-table.sh).  TREE is as it was after.
set -euo pipefail

tree=$(readlink -f "${1:?usage: mutants-apply.sh TREE BUILD}")
build=$(readlink -f "${2:?usage: mutants-apply.sh TREE BUILD}")
top=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0
applied=

# Takes the mutant now applied back out of TREE.
unapply() {
	[ -z "$applied" ] || patch -d "$tree" -p1 -R -s -f --no-backup-if-mismatch <"$applied" >/dev/null
	applied=
}
trap unapply EXIT

# The kbuild targets that compile what patch $1 changes, one a line:
# none for a file of an architecture other than x86.
targets() {
	sed -n 's|^+++ b/||p' "$1" | while read -r path _; do
		case $path in
		arch/x86/*) ;;
		arch/*) continue ;;
		esac
		case $path in
		include/*.h) echo kernel/events/uprobes/ ;;
		*.h) echo "$(dirname "$path")/" ;;
		*.c) echo "${path%.c}.o" ;;
		esac
	done | sort -u
}

# Says why mutant $2 failed, and counts it.
fail() {
	echo "not ok - mutant $2 $1"
	failed=$((failed + 1))
}

for patch in "$top"/dev/mutants/*.patch; do
	name=$(basename "$patch" .patch)
	if ! patch -d "$tree" -p1 -s -f -F0 --no-backup-if-mismatch <"$patch" >/dev/null 2>&1; then
		fail "no longer applies to $tree without fuzz" "$name"
		continue
	fi
	applied=$patch
	mapfile -t objs < <(targets "$patch")
	if [ ${#objs[@]} -gt 0 ] &&
		! make -s -C "$tree" O="$build" CC="ccache gcc" -j"$(nproc)" "${objs[@]}" >/dev/null 2>&1; then
		fail "does not compile (make ${objs[*]})" "$name"
	else
		passed=$((passed + 1))
	fi
	unapply
done
if "$top/dev/mutants-table.sh" --check "$top/README.md"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
