#!/usr/bin/env bash
# series-am.sh REPO OUTDIR
#
# Does with the patches of OUTDIR (dev/series.sh wrote them from REPO,
# a repository of dev/series-repo.sh) what a maintainer does: git am, in
# order, on the base.  The base is REPO's first commit, the base's version
# of every file the series touches; a git tree of the whole base gives the
# same, since git am reads no other file.  The tree it ends with must be
# REPO's last, the series' end.  Exits non-zero, saying where, if not.
set -euo pipefail

repo=$(readlink -f "${1:?usage: series-am.sh REPO OUTDIR}")
out=$(readlink -f "${2:?usage: series-am.sh REPO OUTDIR}")
am=$out.am
root=$(git -C "$repo" rev-list --max-parents=0 HEAD)
mapfile -t patches < <(ls "$out"/*.patch | grep -v '/0000-cover-letter.patch$')

git -C "$repo" worktree remove --force "$am" 2>/dev/null || rm -rf "$am"
git -C "$repo" worktree prune
git -C "$repo" worktree add -q --detach "$am" "$root"
if ! git -C "$am" -c user.name="series-am" -c user.email="series-am@invalid" \
	am -q "${patches[@]}"; then
	echo "not ok - git am of $out stops at $(git -C "$am" am --show-current-patch=diff 2>/dev/null |
		sed -n 's/^Subject: //p' | head -n 1)" >&2
	exit 1
fi
if [ "$(git -C "$am" rev-parse 'HEAD^{tree}')" != "$(git -C "$repo" rev-parse 'HEAD^{tree}')" ]; then
	echo "not ok - git am of $out on the base does not give the series' end:" >&2
	git -C "$am" diff --stat HEAD "$(git -C "$repo" rev-parse HEAD)" >&2
	exit 1
fi
git -C "$repo" worktree remove --force "$am"
echo "  SERIES  git am of its ${#patches[@]} patches on the base gives ours"
