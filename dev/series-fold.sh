#!/usr/bin/env bash
# series-fold.sh N
#
# Folds into patch N of series/ the changes of `ours` that the series does
# not have yet: what was edited in the files of overlay.list since the
# last fold.  In out/series.git (dev/series-repo.sh), the difference
# between ours and the series' end becomes a "fixup!" commit of patch N,
# and git rebase --autosquash moves it there; the patches after N are
# carried over it.  series/ is then written anew (dev/series-export.sh).
# What dev/tcg-fixes/ puts into ours stays out of the series.
#
# When a later patch no longer applies, the rebase stops in
# out/series.git: resolve it there as git says (git rebase --continue),
# then write series/ with make series-export.  A change that belongs to
# several patches is folded a part at a time: edit, fold, edit, fold.
set -euo pipefail

n=${1:?usage: series-fold.sh N}
top=$(cd "$(dirname "$0")/.." && pwd)
ours=$top/out/src/ours
repo=$top/out/series.git

patch=$(ls "$top"/series/"$(printf '%04d' "$((10#$n))")"-*.patch 2>/dev/null | head -n 1 || true)
[ -n "$patch" ] || { echo "series-fold.sh: no patch $n in series/" >&2; exit 2; }

"$top/dev/series-repo.sh" "$repo"
git_() {
	git -C "$repo" "$@"
}

# Ours over the series' end, for every file either touches.
while read -r path; do
	if [ -e "$ours/$path" ]; then
		cmp -s "$ours/$path" "$repo/$path" && continue
		install -D -m 644 "$ours/$path" "$repo/$path"
	elif [ -e "$repo/$path" ]; then
		git_ rm -q "$path"
	fi
done < <(sort -u "$ours.manifest" <(git_ ls-files))
"$top/dev/tcg-fixes.sh" "$repo" -R
git_ add -A
if git_ diff --cached --quiet; then
	echo "  SERIES  nothing to fold: the series ends with ours"
	exit 0
fi
git_ diff --cached --stat | tail -n 1 | sed 's/^/  FOLD    /'
target=$("$top/dev/series-patch.sh" "$repo" "$n")
git_ commit -q --fixup="$target"
GIT_SEQUENCE_EDITOR=: git_ rebase -q -i --autosquash "$target^"
"$top/dev/series-export.sh" "$repo"
