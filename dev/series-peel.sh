#!/usr/bin/env bash
# series-peel.sh N STATE SUBJECT MESSAGE
#
# Splits patch N of the series in two, to take a feature out of it: patch
# N gets the files of the directory STATE (a tree of paths, as in the
# kernel: the files as they are to be without the feature), and those
# that STATE/.deleted lists (one path a line) removed; a new patch right
# after it, with the subject SUBJECT and the message of the file MESSAGE,
# puts them back as patch N had them.  The series' end does not change,
# so the later patches apply as before.  Works in out/series.git (made
# anew from series/), and writes series/ anew.
#
# STATE holds only the files the feature touches; write them from those
# of patch N (git -C out/series.git show ...) minus the feature, and
# check that the step builds (make series STEPS=1, or dev/series-build.sh
# with FROM and TO).
set -euo pipefail

n=${1:?usage: series-peel.sh N STATE SUBJECT MESSAGE}
state=$(readlink -f "${2:?usage: series-peel.sh N STATE SUBJECT MESSAGE}")
subject=${3:?usage: series-peel.sh N STATE SUBJECT MESSAGE}
message=$(readlink -f "${4:?usage: series-peel.sh N STATE SUBJECT MESSAGE}")
top=$(cd "$(dirname "$0")/.." && pwd)
repo=$top/out/series.git

git_() {
	git -C "$repo" "$@"
}

"$top/dev/series-repo.sh" "$repo"
target=$("$top/dev/series-patch.sh" "$repo" "$n")
GIT_SEQUENCE_EDITOR="sed -i 's/^pick ${target:0:7}/edit ${target:0:7}/'" \
	git_ rebase -q -i "$target^"

# Patch N without the feature.
if [ -f "$state/.deleted" ]; then
	while read -r path; do
		[ -z "$path" ] || git_ rm -q --ignore-unmatch -- "$path"
	done <"$state/.deleted"
fi
(cd "$state" && find . -type f ! -name .deleted -printf '%P\n') | while read -r path; do
	install -D -m 644 "$state/$path" "$repo/$path"
done
git_ add -A
git_ commit -q --amend --no-edit

# The feature: back to what patch N had, files STATE added included.
git_ checkout -q "$target" -- .
comm -23 <(git_ ls-files | sort) <(git_ ls-tree -r --name-only "$target" | sort) |
	while read -r path; do
		git_ rm -q -- "$path"
	done
git_ add -A
git_ commit -q -F - < <(echo "$subject"; echo; cat "$message"; echo;
	echo "Signed-off-by: uprobes project <uprobes@example.org>")
GIT_EDITOR=true git_ rebase --continue >/dev/null
"$top/dev/series-export.sh" "$repo"
