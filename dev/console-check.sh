#!/usr/bin/env bash
# console-check.sh CONSOLE_LOG
#
# Fails, printing the offending lines with a little context, if the kernel
# reported a panic, oops, BUG, WARNING, lockdep splat, KASAN report, RCU
# stall, hung task or (guest/check.sh prints kmemleak's report) a leak in
# the console log of a boot.
set -euo pipefail

log=${1:?usage: console-check.sh CONSOLE_LOG}
pattern='Kernel panic|Oops[: ]|BUG:|WARNING:|general protection fault|'
pattern+='possible (recursive|circular) locking|lockdep|KASAN|UBSAN|'
pattern+='rcu_.*stall|blocked for more than|Call Trace:|invalid opcode:|'
pattern+='unreferenced object 0x'

if grep -aqE "$pattern" "$log"; then
	echo "console-check: the kernel reported a problem:"
	grep -anE -B2 -A12 "$pattern" "$log" | head -n 120
	exit 1
fi
