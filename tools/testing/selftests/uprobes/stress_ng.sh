#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stress_ng.sh: stress-ng's uprobe stressor, which defines a uprobe event on
# libc's getpid() through tracefs, calls getpid() 64 times between reads
# of trace_pipe, and counts the lines naming its event, must pass, and
# leave no uprobe event behind.  Its bogo-op count is not the hits: it
# stops at --uprobe-ops, and counts more lines than it reads (2000 for
# 896 records read, in one run).
#
# What the lines say is checked instead: strace (its filter in seccomp,
# so the stressor stops at nothing but the syscalls traced) records the
# definition stress-ng writes to uprobe_events, its getpid() calls, and
# every byte it reads from trace_pipe.  Each record it read must be a hit
# of its event, in the format of uprobe_events' records, TASK-PID [CPU]
# FLAGS TIMESTAMP: EVENT: (0xADDRESS); the address must lie at the probe's
# file offset within its page, and be one address in each process; and
# whenever a read took all the trace held, the records of the stressor
# read so far must be its getpid() calls since it emptied the trace, one
# for one.
set -euo pipefail
# shellcheck source=tools/testing/selftests/uprobes/peer_lib.sh
. "$(dirname "$0")/peer_lib.sh"

ops=2000

ktap_print_header
ktap_set_plan 7

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What an earlier suite may have left (a crashed test) is not the stressor's.
events_before=$(cat /sys/kernel/tracing/uprobe_events)
rc=0
out=$(cd /tmp && timeout 300 strace --seccomp-bpf -f -ff -qq -y -s 65536 \
	-e trace=openat,read,write,getpid -e signal=none -o "$work/st" \
	stress-ng --uprobe 1 --uprobe-ops "$ops" --timeout 240 --metrics-brief 2>&1) || rc=$?
echo "$out" | sed 's/^/# /'
expect "stress-ng --uprobe completes successfully" "0 1" \
	"$rc $(echo "$out" | grep -c 'successful run completed' || true)"
# The stressor's bogo ops are the lines of its event it read from the trace.
expect "stress-ng reads back the $ops hits it asked for" "$ops" \
	"$(echo "$out" | awk '$4 == "uprobe" { print $5 }')"
expect "stress-ng leaves no uprobe event" "$events_before" \
	"$(cat /sys/kernel/tracing/uprobe_events)"

# The definition, as the stressor wrote it: p:EVENT PATH:0xOFFSET
def=$(sed -n 's/^write([0-9]*<[^>]*\/uprobe_events>, "\(p:[^"]*\)\\n", [0-9]*) = [0-9]*$/\1/p' \
	"$work"/st.* | sed -n 1p || true)
event=$(echo "$def" | sed -n 's/^p:\([^ ]*\) .*$/\1/p')
offset=$(echo "$def" | sed -n 's/^p:[^ ]* [^ ]*:\(0x[0-9a-f]*\)$/\1/p')
expect "strace saw stress-ng define its event on an offset" "1 1" \
	"$([ -n "$event" ] && echo 1) $([ -n "$offset" ] && echo 1)"

# The stressor's own record: each getpid() it made after emptying the
# trace (an open of "trace" with O_TRUNC), and each read of trace_pipe, in
# order.  A read returns whole records, but for the last when the buffer
# fills: the next read returns the rest of it alone.  The records read so
# far are written to $work/lines; at each read that did not fill the
# buffer and came after one that did not either, which took all there
# was, the records of the stressor's pid read so far must be its calls so
# far: "CALLS RECORDS" of the first read where they differ, else "ok",
# then the number of such reads.
pipe_log=$(grep -l 'trace_pipe>, "' "$work"/st.* | sed -n 1p || true)
pid=${pipe_log##*.}
match=$(awk -v pid="${pid:-0}" -v lines="$work/lines" '
	/^openat\(.*\/tracing\/trace", [^)]*O_TRUNC/ { calls = 0; records = 0; carry = "" }
	/^getpid\(\) +=/ { calls++ }
	/^read\([0-9]+<[^>]*\/trace_pipe>, "/ {
		data = $0
		sub(/^read\([0-9]+<[^>]*\/trace_pipe>, "/, "", data)
		ret = data
		sub(/", [0-9]+\) = [0-9]+$/, "", data)
		sub(/^.*\) = /, "", ret)
		n = split(carry data, piece, /\\n/)
		for (i = 1; i < n; i++) {
			print piece[i] >lines
			if (index(piece[i], "-" pid " ") && piece[i] ~ /: \(0x[0-9a-f]+\)$/)
				records++
		}
		carry = piece[n]
		if (ret + 0 < 4096 - 128 && last + 0 != 4096) {
			whole++
			if (records != calls && first == "")
				first = calls " " records
		}
		last = ret
	}
	END { print (first == "" ? "ok" : first), whole + 0 }' "$pipe_log" 2>/dev/null || true)
touch "$work/lines"
grep -h '^openat(.*/tracing/trace"' "$work"/st.* | sed 's/^/# /' || true
ktap_print_msg "$(wc -l <"$work/lines") records read of $def; pid $pid: ${match:-nothing}"

# The lines not of the form, or of another event.
bad=$(grep -cvE "^ *.+-[0-9]+ +\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: ${event:-NONE}: \(0x[0-9a-f]+\)$" \
	"$work/lines" || true)
grep -vE "^ *.+-[0-9]+ +\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: ${event:-NONE}: \(0x[0-9a-f]+\)$" \
	"$work/lines" | sed -n '1,5s/^/# not a hit: /p' || true
expect "every record read is a hit of its event, in the record's format" "0 1" \
	"$bad $([ -s "$work/lines" ] && echo 1)"
expect "its records are its getpid() calls, whenever it read them all" "ok 1" \
	"$(echo "${match:-none 0}" | awk '{ print $1, ($NF > 0) }')"

# pid and address of each hit; each must sit at the offset in its page,
# and each process have hit one address only.
sed -nE 's/^ *.+-([0-9]+) +\[[0-9]+\] .*: \(0x([0-9a-f]+)\)$/\1 \2/p' "$work/lines" |
	sort -u >"$work/places"
wrong=0
last=
while read -r pid addr; do
	if [ $((16#$addr & 0xfff)) -ne $((${offset:-0} & 0xfff)) ] || [ "$pid" = "$last" ]; then
		ktap_print_msg "pid $pid hit 0x$addr"
		wrong=$((wrong + 1))
	fi
	last=$pid
done <"$work/places"
[ -s "$work/places" ] || wrong=-1
expect "each hit is at the probed offset, one address per process" 0 "$wrong"
ktap_finished
