#!/usr/bin/env bash
# series-export.sh REPO
#
# Writes the commits of REPO (a repository made by dev/series-repo.sh, and
# changed since: patches folded in, split, reworded, reordered) back into
# series/, one patch a commit, in git format-patch form: a file a base
# file deletes carries its name only (-D), and every patch has the same
# date, so that only what changed shows in this repository's history.
set -euo pipefail

repo=$(readlink -f "${1:?usage: series-export.sh REPO}")
top=$(cd "$(dirname "$0")/.." && pwd)
root=$(git -C "$repo" rev-list --max-parents=0 HEAD)

rm -f "$top"/series/*.patch
git -C "$repo" format-patch -q --zero-commit --no-signature --no-stat -B -D -N \
	-o "$top/series" "$root..HEAD"
sed -i 's/^Date: .*/Date: Thu, 1 Jan 2026 00:00:00 +0000/' "$top"/series/*.patch
echo "  SERIES  $(ls "$top"/series/*.patch | wc -l) patches written to series/"
