#!/usr/bin/env bash
# tcg-fixes.sh DIR [-R]
#
# Applies the patches of dev/tcg-fixes/ to the tree DIR, or takes them back
# out with -R: what the kernels booted under QEMU's multi-threaded TCG need
# and the series does not carry (each patch says why).  A patch whose file
# DIR does not have (a step of the series before that file) is left out.
# dev/tree.sh applies them to ours; dev/series.sh to the series' end before
# comparing it with ours; dev/series-fold.sh takes them out of what it
# folds.
set -euo pipefail

dir=${1:?usage: tcg-fixes.sh DIR [-R]}
reverse=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)

for patch in "$top"/dev/tcg-fixes/*.patch; do
	path=$(sed -n 's#^+++ b/\([^[:space:]]*\).*#\1#p' "$patch" | head -n 1)
	[ -e "$dir/$path" ] || continue
	patch -s -p1 -d "$dir" --no-backup-if-mismatch $reverse <"$patch"
done
