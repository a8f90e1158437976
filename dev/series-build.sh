#!/usr/bin/env bash
# series-build.sh REPO WORK ARCH...
#
# Builds every step of the series that dev/series.sh left in the git
# repository REPO, for each ARCH, to show that the series bisects and that
# each step compiles the code it adds: the base tree out/src/upstream is
# copied to WORK/src once, then each commit of REPO in order is checked
# out over it (REPO holds only the files the series touches; a file is
# rewritten only when it changes, so the builds are incremental) and
# dev/cross.sh builds it (tinyconfig, configs/steps.config, vmlinux, the
# uprobes files at W=1) into WORK/build/ARCH.  Then every C file that the
# series added or changed up to the step, outside the directories of
# other architectures, must have been compiled by one of the builds (as
# an object, or #included by one: a .cmd file names it).  A step that
# changes no file the architecture builds (documentation, selftests,
# another architecture's code) builds the same kernel as the step before,
# and is not built again.  One line per step and architecture; fails if any step failed to
# build for any, or left a C file uncompiled by all.
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

# Whether commit $1 changes a file that architecture $2 builds.
builds_anything() {
	git_ diff-tree --no-commit-id --name-only -r "$1" |
		grep -v -E '^(Documentation/|tools/|MAINTAINERS$|samples/)' |
		grep -v -E "^arch/($(other_arches "$2"))/" | grep -q .
}

# The source directories under arch/ of the architectures with uprobes.
arch_dirs=(x86 arm64 arm loongarch mips powerpc riscv s390 sparc)

# The source directory of architecture $1 under arch/.
arch_dir() {
	case $1 in
	x86_64 | i386) echo x86 ;;
	*) echo "$1" ;;
	esac
}

# The source directories of the architectures other than $1, as a regex.
other_arches() {
	local mine dir others=""
	mine=$(arch_dir "$1")
	for dir in "${arch_dirs[@]}"; do
		[ "$dir" = "$mine" ] || others+="${others:+|}$dir"
	done
	echo "$others"
}

# The C files that the series added or changed up to commit $1, the first
# argument, that the architectures named after it build but none of their
# builds compiled, one a line.
uncompiled() {
	local commit=$1 arch dirs="" candidates
	shift
	for arch in "$@"; do
		dirs+="${dirs:+|}$(arch_dir "$arch")"
	done
	candidates=$(mktemp)
	git_ diff --name-only --diff-filter=AM "${steps[0]}" "$commit" -- '*.c' |
		{ grep -v -E '^(Documentation/|tools/|samples/|scripts/)' || true; } |
		awk -v mine="^arch/($dirs)/" '!/^arch\// || $0 ~ mine' | sort -u >"$candidates"
	for arch in "$@"; do
		grep -rhoF --include='*.cmd' -f "$candidates" "$work/build/$arch" || true
	done | sort -u | comm -23 "$candidates" -
	rm -f "$candidates"
}

mkdir -p "$work"
rsync -a --delete "$top/out/src/upstream/" "$src/"
mapfile -t steps < <(git_ rev-list --reverse HEAD)
failed=0
for i in "${!steps[@]}"; do
	[ $((i + 1)) -ge "${FROM:-1}" ] && [ $((i + 1)) -le "${TO:-${#steps[@]}}" ] || continue
	echo "  STEP $((i + 1))/${#steps[@]}  $(git_ log -1 --format=%s "${steps[$i]}")"
	checkout_step "${steps[$i]}"
	for arch in "$@"; do
		if [ "$i" -gt 0 ] && [ $((i + 1)) -gt "${FROM:-1}" ] &&
			! builds_anything "${steps[$i]}" "$arch"; then
			printf '  %-10s same    kernel as the step before\n' "$arch"
			continue
		fi
		"$top/dev/cross.sh" "$src" "$work/build" "$top/configs/steps.config" "$arch" ||
			failed=1
	done
	missing=$(uncompiled "${steps[$i]}" "$@")
	if [ -n "$missing" ]; then
		printf '  UNCOMPILED  %s\n' $missing
		failed=1
	fi
done
exit "$failed"
