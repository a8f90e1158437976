#!/usr/bin/env bash
# tree.sh upstream|perfcore|ours [MUTANT_PATCH]|wip|step N
#
# Prepares out/src/KERNEL from Debian's linux-source-6.12 tarball.
#   upstream: the untouched base.
#   perfcore: the base with only the series' patches to perf core (the
#             ones of perfcore_patches below): the bench's engine-only
#             column.
#   ours:     the base with the patch series of series/ applied (a patch
#             may remove a file of the base), then every path of
#             overlay.list copied in from this repo over it: the same
#             files, unless a change is not folded into the series yet
#             (make series checks; dev/series-fold.sh folds).
#             The patches of dev/tcg-fixes/ go over them: what the kernel
#             needs to run right under QEMU's multi-threaded TCG, not on a
#             CPU, so not in the series (each patch says why).
#             With MUTANT_PATCH (dev/mutants/), that patch is applied last:
#             it breaks one feature on purpose, to see the tests of that
#             feature fail.  The next run without it puts ours back.
#   wip:      ours, plus the paths of overlay-wip.list: replacements that
#             are committed but do not pass the tests yet.
#   step N:   the base with patches 1 to N of the series applied, and
#             dev/tcg-fixes/: a step of the series, to test it (the Makefile's
#             default N is the core's replacement at parity).
# Re-running is cheap and incremental: a file of `ours` is rewritten only
# when its content changes, so kbuild rebuilds only what depends on it.
set -euo pipefail

usage="usage: tree.sh upstream|perfcore|ours [MUTANT_PATCH]|wip|step N"
kernel=${1:?$usage}
mutant=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/out/src
tarball=/usr/src/linux-source-6.12.tar.xz
base=$src/upstream

base_version() {
	dpkg-query -W -f '${Version}' linux-source-6.12
}

# The base tree, unpacked once per package version.
unpack_base() {
	local version
	version=$(base_version)
	[ "$(cat "$src/upstream.version" 2>/dev/null)" = "$version" ] && return
	echo "  TREE    unpacking linux-source-6.12 $version"
	rm -rf "$base" "$src/ours" "$src/ours.manifest" "$src/wip" "$src/wip.manifest" \
		"$src/mutant" "$src/mutant.manifest" "$src/perfcore" "$src/perfcore.manifest" \
		"$src/step" "$src/step.manifest" \
		"$src/linux-source-6.12"
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src"
	mv "$src/linux-source-6.12" "$base"
	echo "$version" >"$src/upstream.version"
}

# The paths of the overlay lists, one a line.
overlay_lists=("$top/overlay.list")
series=1
step=
# The patches of the series that speed up perf core, not the engine, and
# apply to the base alone (by their subjects).  The one that makes closing
# a uprobe event wait for no grace period also speeds perf core up, but
# its safety rests on how the tracer reads the event's list.
perfcore_patches=("$top"/series/*-perf-core-install-a-software-event-*.patch
	"$top"/series/*-perf-core-do-not-zero-the-sample-data-*.patch)
patches=()
overlay_paths() {
	[ ${#overlay_lists[@]} -gt 0 ] || return 0
	grep -h -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "${overlay_lists[@]}"
}

# Applies patch $2 to stage $1, starting from the base's version of the
# files it changes that are not staged yet.
stage_patch() {
	local stage=$1 patch=$2 path
	while read -r path; do
		[ -e "$stage/$path" ] || [ ! -e "$base/$path" ] ||
			install -D -m 644 "$base/$path" "$stage/$path"
	done < <(sed -n 's#^+++ b/\([^[:space:]]*\).*#\1#p' "$patch")
	patch -s -p1 -d "$stage" --no-backup-if-mismatch <"$patch"
}

# Build in $1 the files of `ours` that differ from the base: the series
# (in a repository of its own, $1.git, whose deletions of the base's files
# are listed in $1.removed), or the patches of "patches"; then our files;
# then the mutant's patch, which may break either.
stage_changes() {
	local stage=$1 patch path root
	: >"$stage.removed"
	if [ "$series" -eq 1 ]; then
		"$top/dev/series-repo.sh" "$stage.git"
		[ -z "$step" ] ||
			git -C "$stage.git" checkout -q "$("$top/dev/series-patch.sh" "$stage.git" "$step")"
		(cd "$stage.git" && git ls-files -z | xargs -0 cp --parents -t "$stage")
		root=$(git -C "$stage.git" rev-list --max-parents=0 HEAD)
		git -C "$stage.git" diff --name-only --diff-filter=D "$root" HEAD >"$stage.removed"
	fi
	for patch in "${patches[@]}"; do
		stage_patch "$stage" "$patch"
	done
	while read -r path; do
		[ -e "$top/$path" ] || { echo "overlay.list: $path: no such file" >&2; exit 1; }
		mkdir -p "$stage/$(dirname "$path")"
		cp -r --preserve=mode "$top/$path" "$stage/$(dirname "$path")/"
	done < <(overlay_paths)
	[ "$series" -eq 0 ] || "$top/dev/tcg-fixes.sh" "$stage"
	[ -z "$mutant" ] || stage_patch "$stage" "$mutant"
}

# Make tree $2 hold the staged files, touching only what changed, remove
# the base's files that ours removes, and put back the base's version of
# files no longer staged or removed.  The manifest lists both kinds.
sync_changes() {
	local stage=$1 tree=$src/$2 manifest=$src/$2.manifest path
	(cd "$stage" && find . -type f | sed 's#^\./##' | sort) >"$stage.list"
	while read -r path; do
		cmp -s "$stage/$path" "$tree/$path" && continue
		mkdir -p "$(dirname "$tree/$path")"
		cp --preserve=mode "$stage/$path" "$tree/$path"
	done <"$stage.list"
	while read -r path; do
		rm -f "$tree/$path"
		echo "$path" >>"$stage.list"
	done <"$stage.removed"
	sort -o "$stage.list" "$stage.list"
	touch "$manifest"
	while read -r path; do
		if [ -e "$base/$path" ]; then
			cp "$base/$path" "$tree/$path"
		else
			rm -f "$tree/$path"
		fi
	done < <(comm -23 <(sort "$manifest") "$stage.list")
	mv "$stage.list" "$manifest"
}

stage=
cleanup() {
	[ -z "$stage" ] || rm -rf "$stage" "$stage.list" "$stage.git" "$stage.removed"
}

# prepare TREE: the base with our changes (and the mutant's, if any).
prepare() {
	local tree=$1
	if [ ! -d "$src/$tree" ]; then
		echo "  TREE    copying the base to $tree"
		cp -a "$base" "$src/$tree"
		rm -f "$src/$tree.manifest"
	fi
	stage=$(mktemp -d "$src/stage.XXXXXX")
	trap cleanup EXIT
	stage_changes "$stage"
	sync_changes "$stage" "$tree"
}

unpack_base
case $kernel in
upstream) ;;
perfcore) patches=("${perfcore_patches[@]}")
	series=0
	overlay_lists=()
	prepare perfcore ;;
ours) [ -z "$mutant" ] || [ -f "$mutant" ] || { echo "tree.sh: no mutant patch '$mutant'" >&2; exit 2; }
	prepare ours ;;
wip) overlay_lists+=("$top/overlay-wip.list")
	prepare wip ;;
step) step=${2:?$usage}
	mutant=
	overlay_lists=()
	prepare step ;;
*) echo "tree.sh: unknown kernel '$kernel' (upstream, perfcore, ours, wip or step)" >&2; exit 2 ;;
esac
