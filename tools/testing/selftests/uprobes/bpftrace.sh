#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpftrace.sh: the real bpftrace on uprobes.  A uprobe and a uretprobe
# one-liner on peer_target must count every call and sum the first
# arguments and the return values exactly.
set -u
# shellcheck source=tools/testing/selftests/uprobes/peer_lib.sh
. "$(dirname "$0")/peer_lib.sh"

n=40

ktap_print_header
ktap_set_plan 4

prog="uprobe:$target:peer_add { @calls = count(); @args = sum(arg0); }
uretprobe:$target:peer_add { @returns = count(); @results = sum(retval); }"
out=$(timeout 300 bpftrace -e "$prog" -c "$target $n" 2>&1)
echo "$out" | sed 's/^/# /'

value() {
	echo "$out" | sed -n "s/^@$1: \([0-9]*\)$/\1/p"
}
expect "uprobe counts every call" "$n" "$(value calls)"
expect "uprobe sums arg0" "$(nth_sum $n)" "$(value args)"
expect "uretprobe counts every return" "$n" "$(value returns)"
expect "uretprobe sums retval" "$((3 * $(nth_sum $n)))" "$(value results)"
ktap_finished
