#!/usr/bin/env bash
# series-build.sh REPO WORK ARCH...
#
# Builds every step of the series that dev/series.sh left in the git
# repository REPO, for each ARCH, to show that the series bisects: the base
# tree out/src/upstream is copied to WORK/src once, then each commit of REPO
# in order is checked out over it (REPO holds only the files the series
# touches) and dev/cross.sh builds it (tinyconfig, configs/cross.config,
# vmlinux, the uprobes files at W=1) into WORK/build/ARCH.  One line per
# step and architecture; fails if any step failed to build for any.
# FROM=N and TO=N (the environment) build only the steps from N to N, the
# base's being step 1: for work on a part of the series.
set -euo pipefail

repo=$(readlink -f "${1:?usage: series-build.sh REPO WORK ARCH...}")
work=$(readlink -m "${2:?usage: series-build.sh REPO WORK ARCH...}")
shift 2
[ $# -gt 0 ] || { echo "series-build.sh: no architecture named" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
src=$work/src

git_() {
	git --git-dir="$repo/.git" --work-tree="$src" "$@"
}

# Every path a commit of the series touches, one a line.
series_paths() {
	git_ log --format= --name-only HEAD | sort -u
}

# Puts commit $1 of the series over the tree: its files as they are
# there, and those it does not have (deleted before it, or added after)
# gone, whatever step the tree held before.
checkout_step() {
	local path
	comm -23 <(series_paths) <(git_ ls-tree -r --name-only "$1" | sort) |
		while read -r path; do
			rm -f "${src:?}/$path"
		done
	git_ checkout -q -f "$1" -- .
}

mkdir -p "$work"
rsync -a --delete "$top/out/src/upstream/" "$src/"
mapfile -t steps < <(git_ rev-list --reverse HEAD)
failed=0
for i in "${!steps[@]}"; do
	[ $((i + 1)) -ge "${FROM:-1}" ] && [ $((i + 1)) -le "${TO:-${#steps[@]}}" ] || continue
	echo "  STEP $((i + 1))/${#steps[@]}  $(git_ log -1 --format=%s "${steps[$i]}")"
	checkout_step "${steps[$i]}"
	"$top/dev/cross.sh" "$src" "$work/build" "$top/configs/cross.config" "$@" || failed=1
done
exit "$failed"
