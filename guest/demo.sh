#!/usr/bin/env bash
# demo.sh (runs inside the guest for `make run`)
#
# Shows uprobes on a real program: an entry probe on libc's open64() that
# records the path and flags, and a return probe that records the file
# descriptor it returned, traced while `cat` opens one file that exists and
# one that does not.
set -euo pipefail

tracing=/sys/kernel/tracing

# symbol_offset FILE SYMBOL: the file offset of a dynamic symbol, found in
# the PT_LOAD segment that holds its address.
symbol_offset() {
	local vaddr type offset seg_vaddr filesz
	vaddr=$(readelf -W --dyn-syms "$1" |
		awk -v s="$2" '$8 == s || index($8, s "@") == 1 { print "0x" $2; exit }')
	while read -r type offset seg_vaddr _ filesz _; do
		[ "$type" = LOAD ] || continue
		if ((vaddr >= seg_vaddr && vaddr < seg_vaddr + filesz)); then
			printf '0x%x\n' $((vaddr - seg_vaddr + offset))
			return
		fi
	done < <(readelf -W -l "$1")
	return 1
}

show() {
	echo
	echo "# $*"
	"$@"
}

# The registers of the first two arguments of a call.
case $(uname -m) in
aarch64) arg0=x0 arg1=x1 ;;
*) arg0=di arg1=si ;;
esac

libc=$(ldd /bin/cat | awk '$1 ~ /^libc\.so/ { print $3 }')
offset=$(symbol_offset "$libc" open64)
echo "uprobes demo on $(uname -r): probing open64() in $libc at $offset"

cd "$tracing"
echo "p:demo/open $libc:$offset path=+0(%$arg0):string flags=%$arg1:x32" >>uprobe_events
echo "r:demo/open_ret $libc:$offset fd=\$retval:s32" >>uprobe_events
show cat uprobe_events
echo 'comm == "cat"' >events/demo/filter
echo 1 >events/demo/enable
cat /etc/os-release >/dev/null
cat /no/such/file 2>/dev/null || true
echo 0 >events/demo/enable
show grep -v '^#' trace
show cat uprobe_profile
hits=$(grep -c ' open: ' trace || true)
echo
echo "demo: $hits open64() calls traced"
echo >uprobe_events
[ "$hits" -ge 2 ]
