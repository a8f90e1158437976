#!/usr/bin/env bash
# series-rules.sh OUTDIR
#
# Checks that the series dev/series.sh wrote to OUTDIR can be reviewed
# patch by patch, and says which patch breaks which rule:
#  - at least MIN_PATCHES patches (30), and a cover letter;
#  - the patch that deletes the base's kernel/events/uprobes.c (the engine
#    replaced at parity) adds at most PARITY_LINES lines (4000), every
#    other at most PATCH_LINES (1200), but for a patch whose only content
#    is one new selftest file: the added lines are what a reviewer reads;
#    the removed ones (a whole file the series replaces, for one) are
#    counted apart and shown beside them;
#  - a patch touches one subsystem: the files it changes share one entry
#    of MAINTAINERS other than THE REST, as the kernel's
#    scripts/get_maintainer.pl finds them in ours' tree (MAINTAINERS
#    itself, a file of no entry but THE REST, as samples/Kconfig, and a
#    Makefile whose changed lines only list objects of the patch's own
#    files, as kernel/events/Makefile's line for a new directory, and a
#    Kconfig whose changed lines only select options that the patch's own
#    files test, as an architecture's select of what it now implements,
#    go with any);
#  - a subject is "prefix: text", and no message speaks of "our", "ours"
#    or "the base": the series speaks to upstream;
#  - no line a patch adds speaks of the project either: of "ours" or "the
#    base" (engines), "the base kernel", "the project", a path of dev/, or
#    an engine the tests would sniff (PROJECT_WORDS); the tests detect
#    features, and what each kernel is expected to pass is the harness's;
#  - no step has jumps without their guards: the patch that turns them on
#    (debug.uprobes-jumps is 1 from it: the code of jumps is built from the
#    patch that selects ARCH_UPROBES_JUMPS, but stays off until then)
#    comes after the ones that call each hook of GUARDS: mremap's,
#    munmap's, syscall user dispatch's, rseq's, and the x86 entry's.
# Prints a line for each patch, then "N passed, N failed"; exits non-zero
# when a rule is broken.
set -euo pipefail

out=$(readlink -f "${1:?usage: series-rules.sh OUTDIR}")
top=$(cd "$(dirname "$0")/.." && pwd)
ours=$top/out/src/ours
MIN_PATCHES=${MIN_PATCHES:-30}
PARITY_LINES=${PARITY_LINES:-4000}
PATCH_LINES=${PATCH_LINES:-1200}
GUARDS=(uprobe_mremap uprobe_munmap_prepare uprobe_own_syscall uprobe_rseq_ip
	uprobe_syscall_entry)
PROJECT_WORDS='\bours\b|\bthe base\b(?! name)|\bbase kernel\b|\bproject\b|(^|[^/\w])dev/\w|engine_is_base|ours_only|UPROBE_TEST_ENGINE'
passed=0 failed=0

verdict() {
	if [ -z "$2" ]; then
		passed=$((passed + 1))
		echo "ok - $1"
	else
		failed=$((failed + 1))
		echo "not ok - $1: $2"
	fi
}

# The lines patch $1 adds (+) or removes (-), as $2 says.
diff_lines() {
	grep -cE "^\\$2([^-+]|\$)" "$1" || true
}

# The files patch $1 changes, one a line.
patch_files() {
	sed -n 's#^diff --git a/\([^ ]*\) b/.*#\1#p' "$1"
}

# The first line patch $1 adds that speaks of the project (PROJECT_WORDS).
project_line() {
	grep -E '^\+([^+]|$)' "$1" | grep -m 1 -iP "$PROJECT_WORDS" | cut -c 2-81 || true
}

# Whether patch $1 only adds one new file of a selftest suite.
one_new_selftest() {
	[ "$(patch_files "$1" | wc -l)" -eq 1 ] &&
		patch_files "$1" | grep -q '^tools/testing/selftests/' &&
		grep -q '^new file mode' "$1"
}

# The MAINTAINERS entries of file $1 in ours' tree, THE REST aside.
subsystems_of() {
	(cd "$ours" && perl scripts/get_maintainer.pl --no-git --no-git-fallback --subsystem \
		--no-email --no-l --no-m --no-r --no-rolestats -f "$1" 2>/dev/null) |
		grep -v '^THE REST$' | sort -u || true
}

# The lines of file $2 that patch $1 adds or removes, without their sign.
file_changed_lines() {
	awk -v file="$2" '
		/^diff --git / { on = ($3 == "a/" file) }
		on && /^[-+]([^-+]|$)/ { print substr($0, 2) }' "$1"
}

# Whether file $2 is a Makefile whose changed lines in patch $1 only list
# objects (obj-... lines, X.o or X/, and the conditionals around them)
# built from files the patch changes:
# the glue that builds a subsystem's own files, not a change of the
# subsystem the Makefile belongs to.
own_build_glue() {
	local dir
	case $2 in */Makefile) ;; *) return 1 ;; esac
	dir=$(dirname "$2")
	file_changed_lines "$1" "$2" |
		awk -v dir="$dir" -v files="$(patch_files "$1" | tr '\n' ' ')" '
		BEGIN { n = split(files, f, " "); for (i = 1; i <= n; i++) own[f[i]] = 1 }
		/^[ \t]*(#|$)/ { next }
		/^(ifdef|ifndef|else|endif)([ \t]|$)/ { next }
		!/^(obj-[^ \t]*[ \t]*[:+]?=|[ \t])/ { bad = 1; exit }
		{
			sub(/^obj-[^ \t]*[ \t]*[:+]?=/, "")
			for (i = 1; i <= NF; i++) {
				if ($i == "\\")
					continue
				name = dir "/" $i
				ok = 0
				if (name ~ /\.o$/) {
					base = substr(name, 1, length(name) - 2)
					ok = (base ".c") in own || (base ".S") in own
				} else if (name ~ /\/$/) {
					for (path in own)
						if (index(path, name) == 1)
							ok = 1
				}
				if (!ok) { bad = 1; exit }
			}
		}
		END { exit bad }'
}

# Whether file $2 is a Kconfig whose changed lines in patch $1 only select
# options (select X, select X if Y) that the patch's other files test
# (CONFIG_X in them): the glue that builds what the patch implements.
own_select_glue() {
	local line lines symbol
	case $2 in */Kconfig | Kconfig*) ;; *) return 1 ;; esac
	lines=$(file_changed_lines "$1" "$2" | grep -v '^[[:space:]]*$' || true)
	[ -n "$lines" ] || return 1
	while read -r line; do
		[[ $line =~ ^select[[:space:]]+([A-Z0-9_]+)([[:space:]]+if[[:space:]].*)?$ ]] || return 1
		symbol=${BASH_REMATCH[1]}
		# grep reads it all: -q stops at the first match, and awk's
		# SIGPIPE then fails the pipeline (pipefail) now and then.
		awk -v file="$2" '
			/^diff --git / { on = ($3 != "a/" file) }
			on && /^[-+ ]/ { print }' "$1" | grep "CONFIG_$symbol\b" >/dev/null || return 1
	done <<< "$lines"
}

# The entries all files of patch $1 share; "(any)" when none has one.
shared_subsystems() {
	local path common=any mine
	while read -r path; do
		[ "$path" = MAINTAINERS ] && continue
		own_build_glue "$1" "$path" && continue
		own_select_glue "$1" "$path" && continue
		mine=$(subsystems_of "$path")
		[ -n "$mine" ] || continue
		if [ "$common" = any ]; then
			common=$mine
		else
			common=$(comm -12 <(echo "$common") <(echo "$mine"))
		fi
		[ -n "$common" ] || break
	done < <(patch_files "$1")
	echo "$common"
}

# The message of patch $1: its subject and body, up to the diffstat or,
# when there is none, the first diff.
message() {
	awk '/^Subject: / { on = 1 } on && (/^---$/ || /^diff --git /) { exit } on' "$1"
}

mapfile -t patches < <(ls "$out"/[0-9]*.patch | grep -v '/0000-cover-letter.patch$')
[ ${#patches[@]} -ge "$MIN_PATCHES" ] && why= || why="${#patches[@]} patches, fewer than $MIN_PATCHES"
verdict "the series has ${#patches[@]} patches" "$why"
[ -s "$out/0000-cover-letter.patch" ] && why= || why="none"
verdict "the cover letter" "$why"

for patch in "${patches[@]}"; do
	name=$(basename "$patch" .patch)
	lines=$(diff_lines "$patch" +)
	removed=$(diff_lines "$patch" -)
	why=()
	if grep -q '^diff --git a/kernel/events/uprobes.c ' "$patch"; then
		limit=$PARITY_LINES
	else
		limit=$PATCH_LINES
	fi
	if [ "$lines" -gt "$limit" ] && ! one_new_selftest "$patch"; then
		why+=("$lines added lines, more than $limit")
	fi
	shared=$(shared_subsystems "$patch")
	[ -n "$shared" ] || why+=("its files share no MAINTAINERS entry")
	sed -n '/^Subject: /{N;s/\n / /;p;q}' "$patch" | grep -qE '^Subject: \[PATCH[^]]*\] [^:]{1,40}: ' ||
		why+=("its subject is not \"prefix: text\"")
	if message "$patch" | grep -qiwE "our|ours|the base"; then
		why+=("its message speaks of \"our\" or \"the base\"")
	fi
	word=$(project_line "$patch")
	[ -z "$word" ] || why+=("it adds a line that speaks of the project: $word")
	verdict "$name (+$lines -$removed lines; $(echo "$shared" | head -n 1))" "$(IFS=';'; echo "${why[*]}")"
done
# The number of the first patch that adds a line matching regex $1, or
# none; with a second argument, only an indented line (a statement) of a
# file whose path does not name uprobes (a call site of a hook, in the
# subsystem it guards).
first_adding() {
	local patch
	for patch in "${patches[@]}"; do
		if awk -v re="$1" -v calls="${2:-}" '
			/^diff --git / { core = $3 ~ /uprobe/ }
			/^\+[^+]/ && $0 ~ re && (!calls || (!core && /^\+[ \t]/)) { found = 1; exit }
			END { exit !found }' "$patch"; then
			basename "$patch" | cut -c1-4
			return
		fi
	done
}

on=$(first_adding '^\\+static int uprobe_jumps_on = 1;')
for hook in "${GUARDS[@]}"; do
	at=$(first_adding "[^_a-z]$hook\\(" calls)
	if [ -z "$on" ]; then
		why=
	elif [ -z "$at" ]; then
		why="jumps are on from $on, and $hook() is never called"
	elif [ "$at" -ge "$on" ]; then
		why="jumps are on from $on, $hook() is called from $at"
	else
		why=
	fi
	verdict "jumps on (${on:-never}) after their guard $hook() (${at:-never})" "$why"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
