#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stress_ng.sh: stress-ng's uprobe stressor, which defines uprobe events on
# libc through tracefs and counts the traced hits, must pass, and leave no
# uprobe event behind.  Its bogo-op count is the number of probe hits it
# read back from the trace buffer, and it stops at --uprobe-ops: 2000 says
# the trace delivered 2000 hits within the timeout, no more.  An exact
# count of hits against calls cannot come from it (its probe is on libc,
# for every process, and it stops reading at its limit); the suites of
# ours count exactly (uprobe_events, uprobe_perf).
set -u
# shellcheck source=tools/testing/selftests/uprobes/peer_lib.sh
. "$(dirname "$0")/peer_lib.sh"

ktap_print_header
ktap_set_plan 3

out=$(cd /tmp && timeout 300 stress-ng --uprobe 1 --uprobe-ops 2000 --timeout 60 \
	--metrics-brief 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
expect "stress-ng --uprobe completes successfully" "0 1" \
	"$rc $(echo "$out" | grep -c 'successful run completed')"
# The stressor's bogo ops are the uprobe hits it read back from the trace.
expect "stress-ng reads back the 2000 hits it asked for" 2000 \
	"$(echo "$out" | awk '$4 == "uprobe" { print $5 }')"
expect "stress-ng leaves no uprobe event" "" "$(cat /sys/kernel/tracing/uprobe_events)"
ktap_finished
