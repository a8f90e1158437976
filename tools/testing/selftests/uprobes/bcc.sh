#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bcc.sh: the real bcc tools (Debian's bpfcc-tools) on uprobes.  bcc
# compiles each tool's BPF program at run time, against the headers the
# kernel carries (CONFIG_IKHEADERS).  funccount-bpfcc must count every call
# of peer_add; trace-bpfcc must show every argument and return value; and
# trace-bpfcc on a USDT probe with an SDT semaphore must enable it and see
# every firing with its argument.
set -u
# shellcheck source=tools/testing/selftests/uprobes/peer_lib.sh
. "$(dirname "$0")/peer_lib.sh"

n=20
out=/tmp/bcc-peer.out
# bcc compiles each program at run time: minutes under emulation.
limit=240
# The tools print to a file: line by line, so that wait_for sees them.
export PYTHONUNBUFFERED=1

ktap_print_header
ktap_set_plan 6

# wait_for TEXT PID: until TEXT is in $out (the tool attached), or PID ended.
wait_for() {
	local i
	for ((i = 0; i < limit; i++)); do
		grep -q "$1" "$out" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 1
	done
	return 1
}

# funccount prints its counts 10 s after it attached.  (SIGINT, which
# ends it by hand, is ignored by a background job of a script.)
SECONDS=0
timeout "$limit" funccount-bpfcc -d 10 "$target:peer_add" >"$out" 2>&1 &
tool=$!
if wait_for "Hit Ctrl-C" "$tool"; then
	ktap_print_msg "funccount-bpfcc attached after $SECONDS s"
	"$target" "$n" >/dev/null
fi
wait "$tool"
sed 's/^/# /' "$out"
expect "funccount-bpfcc counts every call" "$n" \
	"$(awk '$1 == "peer_add" { print $2 }' "$out")"

# trace exits after 2n events: n entries (two values), n returns (one).
timeout "$limit" trace-bpfcc -M $((2 * n)) \
	"$target:peer_add \"%ld %ld\", arg1, arg2" \
	"r:$target:peer_add \"%ld\", retval" >"$out" 2>&1 &
tool=$!
SECONDS=0
if wait_for "^PID" "$tool"; then
	ktap_print_msg "trace-bpfcc attached after $SECONDS s"
	"$target" "$n" >/dev/null
fi
wait "$tool"
head -n 4 "$out" | sed 's/^/# /'
entries=$(awk '$4 == "peer_add" && NF == 6' "$out")
returns=$(awk '$4 == "peer_add" && NF == 5' "$out")
expect "trace-bpfcc shows every entry" "$n" "$(echo "$entries" | grep -c .)"
expect "trace-bpfcc shows the arguments" "$(nth_sum "$n") $((2 * $(nth_sum "$n")))" \
	"$(echo "$entries" | awk '{ a += $5; b += $6 } END { print a, b }')"
expect "trace-bpfcc shows every return value" "$n $((3 * $(nth_sum "$n")))" \
	"$(echo "$returns" | awk '{ r += $5 } END { print NR, r }')"

# bcc takes a USDT probe with a semaphore in one process (-p), and sets
# the semaphore itself; the target fires once the tool attached (SIGUSR1).
"$target" usdt "$n" &
app=$!
timeout "$limit" trace-bpfcc -M "$n" -p "$app" \
	"u:$target:peer_usdt \"%ld\", arg1" >"$out" 2>&1 &
tool=$!
if wait_for "^PID" "$tool"; then
	kill -USR1 "$app"
fi
wait "$tool"
sed -n '1,4p' "$out" | sed 's/^/# /'
for ((i = 0; i < 30; i++)); do
	kill -0 "$app" 2>/dev/null || break
	sleep 1
done
kill "$app" 2>/dev/null
if wait "$app"; then
	ktap_test_pass "the USDT probe's semaphore was set"
else
	ktap_test_fail "the USDT probe's semaphore was set"
fi
expect "trace-bpfcc sees every USDT firing with its argument" "$n $(nth_sum "$n")" \
	"$(awk '$4 == "peer_usdt" { c++; s += $5 } END { print c + 0, s + 0 }' "$out")"
ktap_finished
