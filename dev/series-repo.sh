#!/usr/bin/env bash
# series-repo.sh REPO
#
# Makes REPO a git repository of the patch series in series/: a first
# commit with the base's version of every file the series touches, then
# one commit per patch, in the order of their names, with the patch's
# subject and message.  REPO holds only the files the series touches
# (dev/series-build.sh puts each step over a copy of the base).
#
# A patch that deletes a file of the base carries its name only, and one
# that rewrites a file whole carries the new text only (written with git
# format-patch -B -D): the series holds no line of the base's uprobes
# files.  Such files are removed or written here; every other change is
# applied with git apply.
set -euo pipefail

repo=$(readlink -m "${1:?usage: series-repo.sh REPO}")
top=$(cd "$(dirname "$0")/.." && pwd)
base=$top/out/src/upstream
version=$(cat "$top/out/src/upstream.version")
# Fixed dates: the same series gives the same commits.
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"

git_() {
	git -C "$repo" -c user.name="uprobes project" -c user.email="uprobes@example.org" "$@"
}

# The paths the patches of series/ touch, one a line.
touched_paths() {
	sed -n 's#^diff --git a/\([^ ]*\) b/.*#\1#p' "$top"/series/*.patch | sort -u
}

# The paths patch $1 deletes, one a line.
deleted_paths() {
	awk '/^diff --git / { path = substr($3, 3) }
		/^deleted file mode / { print path }' "$1"
}

# Patch $1 without the sections of the files it deletes or rewrites whole
# ("@@ -?,? ..."): the text of each of the latter is written into $repo.
without_deletions() {
	awk -v repo="$repo" '
		function section(   i, out, rewrite, deleted) {
			for (i = 1; i <= n; i++) {
				deleted = deleted || lines[i] ~ /^deleted file mode /
				rewrite = rewrite || lines[i] ~ /^@@ -\?,\? /
			}
			if (deleted) {
				n = 0
				return
			}
			if (!rewrite) {
				for (i = 1; i <= n; i++)
					print lines[i]
				n = 0
				return
			}
			out = repo "/" path
			printf "" > out
			for (i = 1; i <= n; i++) {
				if (lines[i] ~ /^@@ /)
					text = 1
				else if (text && lines[i] ~ /^\+/)
					print substr(lines[i], 2) > out
				else if (lines[i] ~ /^\\ No newline/)
					nonl = 1
			}
			close(out)
			if (nonl)
				system("truncate -s -1 \"" out "\"")
			n = nonl = text = 0
		}
		/^diff --git / { section(); path = substr($3, 3) }
		{ lines[++n] = $0 }
		END { section() }' "$1"
}

# Commits the index with the subject and message of patch $1 (read by git
# mailinfo, which unfolds a long subject and drops its [PATCH] tag).
commit_as() {
	local info=$repo/.git/mailinfo
	git_ mailinfo "$info.msg" "$info.patch" <"$1" >"$info"
	git_ commit -q --allow-empty -F - < <(sed -n 's/^Subject: //p' "$info"; echo; cat "$info.msg")
}

rm -rf "$repo"
mkdir -p "$repo"
git_ init -q
# For the commits a developer makes there (dev/series-fold.sh).
git_ config user.name "uprobes project"
git_ config user.email "uprobes@example.org"
while read -r path; do
	[ -e "$base/$path" ] && install -D -m 644 "$base/$path" "$repo/$path"
done < <(touched_paths)
git_ add -A
git_ commit -q --allow-empty -m "base: linux-source-6.12 $version"

for patch in "$top"/series/*.patch; do
	while read -r path; do
		git_ rm -q "$path"
	done < <(deleted_paths "$patch")
	without_deletions "$patch" | git_ apply --index --whitespace=nowarn --allow-empty - || {
		echo "series-repo.sh: $(basename "$patch") does not apply" >&2
		exit 1
	}
	git_ add -A
	commit_as "$patch"
done
