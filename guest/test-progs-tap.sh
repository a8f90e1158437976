#!/usr/bin/env bash
# test-progs-tap.sh: the base tree's BPF selftests that attach uprobes
# (test_progs, the tests bpf-selftests.list names) as TAP, one line per
# subtest.  test_progs runs in a tmpfs copy of $UPROBE_BPF_SELFTESTS with
# $UPROBE_BPF_TESTMOD (bpf_testmod.ko, built for the running kernel) beside
# it, where it loads it from; its own output follows as comments.  The TAP
# plan is the list's, written first: the sum of the results each test must
# report.  A test that reported nothing, or test_progs ending by a signal
# or with a failure but no failed test, is a harness failure ("not ok -
# harness: ..."), not a failed test.
set -euo pipefail

list=$(dirname "$0")/bpf-selftests.list
bpf=${UPROBE_BPF_SELFTESTS:?}
testmod=${UPROBE_BPF_TESTMOD:?}
work=/tmp/test_progs
log=/tmp/test_progs.log

# entries: the lines of LIST for this machine, without comments.  A line
# "MACHINE:NAME ..." is for that machine (uname -m) alone, and there takes
# the place of the line "NAME ..." (a "!" goes before the machine).  A
# test left out whole ("!TEST") loses its own line.
entries() {
	sed -e 's/#.*//' "$list" | awk -v machine="$(uname -m)" '
		NF == 0 { next }
		{
			deny = sub(/^!/, "", $1)
			mine = 0
			if ($1 ~ /^[a-z0-9_]+:/) {
				if (substr($1, 1, index($1, ":") - 1) != machine) next
				sub(/^[^:]*:/, "", $1)
				mine = 1
			}
			key = (deny ? "!" : "") $1
			if (!(key in line)) order[n++] = key
			else if (own[key] && !mine) next
			line[key] = (deny ? "!" : "") $0
			own[key] = own[key] || mine
		}
		END {
			for (i = 0; i < n; i++)
				if (!(("!" order[i]) in line)) print line[order[i]]
		}'
}

# names PATTERN: the entries that match PATTERN, comma separated.
names() {
	entries | awk -v pattern="$1" '$1 ~ pattern { print $1 }' | sed 's/^!//' | paste -sd, -
}

# planned: the number of results the tests of LIST must report, the sum
# of their second column.
planned() {
	entries | awk '
		$1 !~ /^!/ {
			if ($2 !~ /^[0-9]+$/) { print "no count for " $1 > "/dev/stderr"; exit 1 }
			n += $2
		}
		END { print n + 0 }'
}

# tap TESTS: test_progs' result lines as TAP.  A test with subtests
# reports on each of them, so its own line is left out; SKIP becomes
# "# SKIP".  Each of TESTS (comma separated) that reported nothing is a
# harness failure.  Once test_progs caught a signal, its crash handler
# dumps the log of the test it was in, results included: no test failed
# there, test_progs did.
tap() {
	awk -v tests="$1" '
	# The failed tests again, with their logs.
	/^All error logs:/ { repeats = 1 }
	/^Caught signal #[0-9]+!/ { crashed = 1 }
	!repeats && !crashed && (/^#[0-9]+\/[0-9]+ +[^ ]+:(OK|FAIL|SKIP)/ || /^#[0-9]+ +[^ ]+:(OK|FAIL|SKIP)/) {
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
				print "not ok - harness: test_progs: " want[i] " reported nothing"
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
plan=$(planned)
echo "TAP version 13"
echo "1..$plan"
rc=0
./test_progs "${args[@]}" >"$log" 2>&1 || rc=$?
if [ "$rc" -gt 128 ]; then
	echo "not ok - harness: test_progs killed by signal $((rc - 128))"
elif [ "$rc" -ne 0 ] && ! grep -qE '^#[0-9/]+ +[^ ]+:FAIL' "$log"; then
	echo "not ok - harness: test_progs exited with status $rc, no test failed"
fi
tap "$tests" <"$log"
exit "$rc"
