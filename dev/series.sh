#!/usr/bin/env bash
# series.sh OUTDIR
#
# Writes our changes against the base as a git format-patch series in OUTDIR
# and runs the base tree's scripts/checkpatch.pl --strict over it.  The
# series is made in a scratch git repository holding the base's versions of
# the files we touch, then one commit per part: our hunks for other kernel
# files (patches/), then each overlay.list entry.  A patch whose header has
# "Overlay-with: PATH" goes into the commit of that overlay entry instead, so
# that, say, the MAINTAINERS line for new files comes with the files; one
# with "After: PATH" is a commit of its own right after that entry's, for a
# hunk of another subsystem that calls what the entry adds.  Each commit's
# message is its patch's description.  The patches are applied, in the
# commits' order, as dev/tree.sh applies them in their numbers' order: so
# the numbers follow the series.  The scratch repository is kept in
# OUTDIR.git for dev/series-build.sh.
set -euo pipefail

out=$(readlink -m "${1:?usage: series.sh OUTDIR}")
top=$(cd "$(dirname "$0")/.." && pwd)
base=$top/out/src/upstream
ours=$top/out/src/ours
version=$(cat "$top/out/src/upstream.version")
repo=$out.git
rm -rf "$repo"
mkdir -p "$repo"

author="uprobes project <uprobes@example.org>"

git_() {
	git -C "$repo" -c user.name="${author% <*}" -c user.email="uprobes@example.org" "$@"
}

# The base's version of every file ours changes, as the first commit.
git_ init -q
while read -r path; do
	[ -e "$base/$path" ] && install -D -m 644 "$base/$path" "$repo/$path"
done <"$top/out/src/ours.manifest"
git_ add -A
git_ commit -q --allow-empty -m "base: linux-source-6.12 $version"

# commit_part SUBJECT BODY PATCHES PATH...: a commit of the PATHs as they
# are in `ours` (a -PATH of overlay.list: removed), and of the patches
# named (space-separated) in PATCHES.
commit_part() {
	local subject=$1 body=$2 patches=$3
	shift 3
	local path patch
	for path in "$@"; do
		path=${path#-}
		rm -rf "${repo:?}/$path"
		if [ -e "$ours/$path" ]; then
			mkdir -p "$repo/$(dirname "$path")"
			cp -r "$ours/$path" "$repo/$path"
		fi
	done
	for patch in $patches; do
		patch -s -p1 -d "$repo" --no-backup-if-mismatch <"$patch"
	done
	git_ add -A
	git_ diff --cached --quiet ||
		git_ commit -q -m "$subject" -m "$body" -m "Signed-off-by: $author"
}

overlay_with() {
	sed -n 's/^Overlay-with: *//p' "$1" | head -n 1
}

after() {
	sed -n 's/^After: *//p' "$1" | head -n 1
}

# The description of a patch: what stands between its header lines
# (Subject:, Overlay-with:, After:) and its diff.
patch_body() {
	sed -n '/^--- /q; /^\(Subject\|Overlay-with\|After\):/d; p' "$1" |
		sed -e '/./,$!d'
}

# A patch as a commit of its own.
commit_patch() {
	local subject
	subject=$(sed -n 's/^Subject: *//p' "$1" | head -n 1)
	commit_part "${subject:-$(basename "$1" .patch)}" "$(patch_body "$1")" "$1"
}

for patch in "$top"/patches/*.patch; do
	[ -e "$patch" ] && [ -z "$(overlay_with "$patch")$(after "$patch")" ] || continue
	commit_patch "$patch"
done

while IFS=$'\t' read -r paths subject; do
	read -r -a files <<<"$paths"
	body="Part of the uprobes overlay (overlay.list)."
	patches=""
	for patch in "$top"/patches/*.patch; do
		[ -e "$patch" ] && [[ " $paths " == *" $(overlay_with "$patch") "* ]] || continue
		patches+=" $patch"
		body+=$'\n'$(patch_body "$patch")
	done
	commit_part "${subject:-uprobes: add ${files[0]}}" "$body" "$patches" "${files[@]}"
	for patch in "$top"/patches/*.patch; do
		[ -e "$patch" ] && [[ " $paths " == *" $(after "$patch") "* ]] || continue
		commit_patch "$patch"
	done
done < <(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$top/overlay.list")

rm -rf "$out"
mkdir -p "$out"
# A removed file of the base shows as its header only (-D): the series
# carries no text of the base's uprobes implementation.
git_ format-patch -q -D -o "$out" "$(git_ rev-list --max-parents=0 HEAD)..HEAD"
echo "  SERIES  $(ls "$out" | wc -l) patches in $out (base $version)"
"$base/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types "$out"/*.patch
echo "  SERIES  checkpatch --strict: clean"
