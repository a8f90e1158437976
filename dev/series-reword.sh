#!/usr/bin/env bash
# series-reword.sh N MESSAGE
#
# Gives patch N of the series the message of the file MESSAGE (its first
# line the subject, then a blank line and the body), signed off as every
# patch is.  Works in out/series.git (made anew from series/), and writes
# series/ anew; the patches' contents do not change.
set -euo pipefail

n=${1:?usage: series-reword.sh N MESSAGE}
message=$(readlink -f "${2:?usage: series-reword.sh N MESSAGE}")
top=$(cd "$(dirname "$0")/.." && pwd)
repo=$top/out/series.git
signed=$(mktemp)
trap 'rm -f "$signed"' EXIT

"$top/dev/series-repo.sh" "$repo"
target=$("$top/dev/series-patch.sh" "$repo" "$n")
{ cat "$message"; echo; echo "Signed-off-by: uprobes project <uprobes@example.org>"; } >"$signed"
GIT_SEQUENCE_EDITOR="sed -i 's/^pick ${target:0:7}/reword ${target:0:7}/'" \
	GIT_EDITOR="cp $signed" git -C "$repo" rebase -q -i "$target^"
"$top/dev/series-export.sh" "$repo"
