#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf_probe.sh: the real perf tool on uprobes.  `perf probe -x` defines an
# entry probe with arguments from DWARF and a %return probe with $retval;
# `perf stat` counts hits exactly and `perf record`/`perf script` show the
# recorded values.  `perf record -g` on a function that starts with a
# 5-byte nop (a jump to a stub, if any, from the second hit; on arm64 a nop
# stepped out of line) records the same user callchain at every hit, with
# no [uprobes] address in it.
set -u
# shellcheck source=tools/testing/selftests/uprobes/peer_lib.sh
. "$(dirname "$0")/peer_lib.sh"

n=50
group=probe_peer_target
export PERF_PAGER=cat HOME=${HOME:-/tmp}

cleanup() {
	perf probe -q -d "$group:*" >/dev/null 2>&1
}
trap cleanup EXIT

ktap_print_header
ktap_set_plan 10
cleanup

perf probe -q -x "$target" 'peer_add a b' 2>&1 | sed 's/^/# /'
expect "perf probe -x defines an entry probe" 1 \
	"$(grep -c "^p:$group/peer_add " /sys/kernel/tracing/uprobe_events)"
# shellcheck disable=SC2016 # $retval is perf's, not the shell's
perf probe -q -x "$target" 'peer_add%return $retval' 2>&1 | sed 's/^/# /'
expect "perf probe -x defines a %return probe" 1 \
	"$(grep -c "^r:$group/peer_add__return " /sys/kernel/tracing/uprobe_events)"

count() {
	perf stat -x, -e "$group:$1" -- "$target" "$n" 2>&1 >/dev/null |
		awk -F, -v ev="$group:$1" '$3 == ev { print $1 }'
}
expect "perf stat counts every entry" "$n" "$(count peer_add)"
expect "perf stat counts every return" "$n" "$(count peer_add__return)"

data=/tmp/perf-peer.data
perf record -q -o "$data" -e "$group:peer_add" -e "$group:peer_add__return" \
	-- "$target" 10 >/dev/null 2>&1
script=$(perf script -i "$data" 2>/dev/null)
echo "$script" | head -n 4 | sed 's/^/# /'
expect "perf script shows the arguments" "a=7 b=14" \
	"$(echo "$script" | grep -o 'a=7 b=14' | head -n 1)"
sum=$(echo "$script" | sed -n 's/.*peer_add__return.* arg1=\(0x[0-9a-f]*\).*/\1/p' |
	while read -r v; do echo $((v)); done | paste -sd+ | bc)
expect "perf script shows every return value" "$((3 * $(nth_sum 10)))" "$sum"
expect "perf script shows one return per entry" \
	"$(echo "$script" | grep -c 'peer_add:')" "$(echo "$script" | grep -c 'peer_add__return:')"

# peer_jump is asm, with no DWARF: probed by its address.
addr=0x$(nm "$target" | awk '$3 == "peer_jump" { print $1 }')
perf probe -q -x "$target" -a "peer_jump=$addr" 2>&1 | sed 's/^/# /'
perf record -q -g -o "$data" -e "$group:peer_jump" -- "$target" 10 >/dev/null 2>&1
chains=$(perf script -i "$data" -F ip,sym,dso 2>/dev/null)
echo "$chains" | head -n 3 | sed 's/^/# /'
expect "perf record -g samples every call of a jumped-to function" 10 \
	"$(echo "$chains" | grep -c ' peer_jump (')"
expect "its callchain is the same at every hit" 1 \
	"$(echo "$chains" | awk -v RS= '{ gsub(/[ \t\n]+/, " "); print }' | sort -u | wc -l)"
expect "no callchain shows a [uprobes] address" 0 "$(echo "$chains" | grep -c '\[uprobes\]')"
ktap_finished
