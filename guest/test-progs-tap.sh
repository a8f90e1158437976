#!/usr/bin/env bash
# test-progs-tap.sh: the base tree's BPF selftests that attach uprobes
# (test_progs, the tests bpf-selftests.list names) as TAP, one line per
# subtest.  test_progs runs in a tmpfs copy of $UPROBE_BPF_SELFTESTS with
# $UPROBE_BPF_TESTMOD (bpf_testmod.ko, built for the running kernel) beside
# it, where it loads it from; its own output follows as comments.
set -euo pipefail

list=$(dirname "$0")/bpf-selftests.list
bpf=${UPROBE_BPF_SELFTESTS:?}
testmod=${UPROBE_BPF_TESTMOD:?}
work=/tmp/test_progs
log=/tmp/test_progs.log

# names PATTERN: the entries of LIST that match PATTERN, comma separated.
names() {
	sed -e 's/#.*//' "$list" | awk -v pattern="$1" 'NF && $1 ~ pattern { print $1 }' |
		sed 's/^!//' | paste -sd, -
}

# tap TESTS: test_progs' result lines as TAP.  A test with subtests
# reports on each of them, so its own line is left out; SKIP becomes
# "# SKIP".  Each of TESTS (comma separated) that reported nothing is a
# failure of its own.
tap() {
	awk -v tests="$1" '
	# The failed tests again, with their logs.
	/^All error logs:/ { repeats = 1 }
	!repeats && (/^#[0-9]+\/[0-9]+ +[^ ]+:(OK|FAIL|SKIP)/ || /^#[0-9]+ +[^ ]+:(OK|FAIL|SKIP)/) {
		name = $2; sub(/:.*/, "", name)
		result = $2; sub(/^[^:]*:/, "", result)
		parent = name; sub(/\/.*/, "", parent); seen[parent] = 1
		if ($1 ~ /\//) has_sub[parent] = 1
		else if (has_sub[name]) { print "# " $0; next }
		n++
		if (result == "FAIL") print "not ok " n " - " name
		else if (result == "SKIP") print "ok " n " - " name " # SKIP"
		else print "ok " n " - " name
		next
	}
	{ print "# " $0 }
	END {
		split(tests, want, ",")
		for (i = 1; i in want; i++)
			if (!(want[i] in seen))
				print "not ok " ++n " - " want[i] ": did not run"
		print "1.." n + 0
	}'
}

rm -rf "$work"
cp -a "$bpf" "$work"
cp "$testmod" "$work/"
cd "$work"
tests=$(names '^[^!]')
args=(-t "$tests")
deny=$(names '^!')
[ -z "$deny" ] || args+=(-d "$deny")
rc=0
./test_progs "${args[@]}" >"$log" 2>&1 || rc=$?
tap "$tests" <"$log"
exit "$rc"
