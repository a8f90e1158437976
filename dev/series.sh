#!/usr/bin/env bash
# series.sh OUTDIR
#
# The patch series of series/, checked and made ready to send:
#  - dev/series-repo.sh builds it in OUTDIR.git, one commit a patch;
#  - its end must be `ours` byte for byte (out/src/ours, which dev/tree.sh
#    made from the series and the files of overlay.list, with the
#    emulator's patches of dev/tcg-fixes/ over both): a file that differs
#    is a change not folded into its patch yet (make series-fold);
#  - git format-patch writes it to OUTDIR with a cover letter (patch 0),
#    whose subject and text are series/cover-letter's, followed by the
#    shortlog and the diffstat: whole diffs, with the base's lines that a
#    patch removes (series/ leaves those out, see series-repo.sh), so that
#    git am applies them on a git tree of the base;
#  - dev/series-am.sh applies those very files with git am on the base,
#    and the result must be the series' end, hence ours, byte and mode;
#  - the base tree's scripts/checkpatch.pl --strict checks every patch;
#    that MAINTAINERS covers each file is the rules' check, not its;
#  - dev/series-rules.sh checks that a maintainer can review it (not with
#    SERIES_RULES=0 in the environment).
# Exits non-zero if any of these fails.
set -euo pipefail

out=$(readlink -m "${1:?usage: series.sh OUTDIR}")
top=$(cd "$(dirname "$0")/.." && pwd)
base=$top/out/src/upstream
ours=$top/out/src/ours
repo=$out.git

"$top/dev/series-repo.sh" "$repo"
root=$(git -C "$repo" rev-list --max-parents=0 HEAD)

# The series' end with dev/tcg-fixes/ applied, as dev/tree.sh makes ours
# (in $end, a copy of every file the series touches).
end=$(mktemp -d)
trap 'rm -rf "$end"' EXIT
(cd "$repo" && git ls-files -z | xargs -0 cp --parents -t "$end")
"$top/dev/tcg-fixes.sh" "$end"

# The end of the series against ours, for every file either touches.
differ=0
while read -r path; do
	if [ -e "$ours/$path" ]; then
		cmp -s "$ours/$path" "$end/$path" && continue
	elif [ ! -e "$end/$path" ]; then
		continue
	fi
	echo "not ok - $path: the series ends with another version than ours'" >&2
	differ=1
done < <(sort -u "$top/out/src/ours.manifest" <(git -C "$repo" ls-files))
# Modes too: a script must end executable as it is in this tree.
while read -r mode path; do
	[ -e "$top/$path" ] || continue
	want=100644
	[ ! -x "$top/$path" ] || want=100755
	[ "$mode" != "$want" ] || continue
	echo "not ok - $path: the series ends with mode $mode, this tree has $want" >&2
	differ=1
done < <(git -C "$repo" ls-files -s | awk '{ print $1, $4 }')
if [ "$differ" -eq 1 ]; then
	echo "series.sh: fold these changes into their patches: make series-fold P=N" >&2
	exit 1
fi
echo "  SERIES  its end is ours, byte for byte and mode for mode"

rm -rf "$out"
mkdir -p "$out"
git -C "$repo" format-patch -q --cover-letter --zero-commit --no-signature \
	-o "$out" "$root..HEAD"
# The cover letter: series/cover-letter's first line is the subject, the
# rest its text, in place of format-patch's blurb.
cover=("$out"/0000-cover-letter.patch)
subject=$(head -n 1 "$top/series/cover-letter")
awk -v subject="$subject" -v text="$top/series/cover-letter" '
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
	/\*\*\* BLURB HERE \*\*\*/ {
		getline line < text
		while ((getline line < text) > 0)
			print line
		next
	}
	{ print }' "${cover[0]}" >"${cover[0]}.new"
mv "${cover[0]}.new" "${cover[0]}"
echo "  SERIES  $(($(ls "$out" | wc -l) - 1)) patches and a cover letter in $out" \
	"(base $(cat "$top/out/src/upstream.version"))"

# What a maintainer does with them: git am on the base.
"$top/dev/series-am.sh" "$repo" "$out"

# FILE_PATH_CHANGES asks any patch that adds a file to touch MAINTAINERS;
# series-rules.sh checks instead that MAINTAINERS covers each file.
"$base/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
	--ignore FILE_PATH_CHANGES \
	$(ls "$out"/*.patch | grep -v /0000-cover-letter.patch)
echo "  SERIES  checkpatch --strict: clean"
# SERIES_RULES=0 (the environment): the rules are not checked.
[ "${SERIES_RULES:-1}" = 0 ] || "$top/dev/series-rules.sh" "$out"
