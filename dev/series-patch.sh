#!/usr/bin/env bash
# series-patch.sh REPO N
#
# Prints the commit of patch N (from 1) in the series repository REPO that
# dev/series-repo.sh made: the N-th commit after its root, the base's
# files.  Fails, saying so, when the series has no patch N.
set -euo pipefail

repo=${1:?usage: series-patch.sh REPO N}
n=${2:?usage: series-patch.sh REPO N}
root=$(git -C "$repo" rev-list --max-parents=0 HEAD)
target=$(git -C "$repo" rev-list --reverse "$root..HEAD" | sed -n "$((10#$n))p")
[ -n "$target" ] || { echo "series-patch.sh: no patch $n" >&2; exit 2; }
echo "$target"
