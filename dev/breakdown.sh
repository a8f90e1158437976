#!/usr/bin/env bash
# breakdown.sh BENCH_BINARY OUTDIR TIMEOUT KERNEL...
#
# Where the instructions of a hit go: boots each KERNEL (a build in
# out/build/, upstream or ours) with the QEMU plugin bench/insn_window.c
# (dev/insn-plugin.sh), runs the benchmark's breakdown cases (calls of a
# probed function, each case in a window that the program opens with
# getpgid() and closes with getsid()), and prints, for every case and
# kernel, the instructions per call of each kernel function and user
# mapping that ran in it (dev/breakdown.py; also OUTDIR/breakdown.txt).
# The plugin counts every instruction exactly; one host thread runs both
# vCPUs, as the plugin's counters need.
#
# ARCH=arm64 (environment) counts the arm64 builds (out/build/KERNEL-arm64)
# on QEMU's virt machine with the arm64 guest root.
set -euo pipefail

usage="usage: breakdown.sh BENCH_BINARY OUTDIR TIMEOUT KERNEL..."
binary=$(readlink -f "${1:?$usage}")
out=$(readlink -m "${2:?$usage}")
limit=${3:?$usage}
shift 3
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)

arch=${ARCH:-x86_64}
# shellcheck source=dev/arch.sh
. "$top/dev/arch.sh"
arch_vars "$arch" || { echo "breakdown.sh: ARCH must be x86_64 or arm64, not $arch" >&2; exit 2; }

# The address of kernel symbol $2 in System.map $1.
symbol() {
	awk -v name="$2" '$3 == name { print $1; found = 1; exit } END { exit !found }' "$1"
}

plugin=$("$top/dev/insn-plugin.sh" "$top/out/insn-plugin")
rm -rf "$out"
for kernel in "$@"; do
	build=$top/out/build/$kernel$suffix
	map=$build/System.map
	results=$out/$kernel
	mkdir -p "$results"
	spec="$plugin,map=$map,start=$(symbol "$map" "${syscalls}_getpgid")"
	spec+=",stop=$(symbol "$map" "${syscalls}_getsid"),out=$results/windows.txt"
	echo "  BOOT    $kernel ($arch), counting the instructions of each function"
	if ! "$top/dev/boot.sh" --arch "$arch" --plugin "$spec" --kernel-arg norandmaps \
		"$build/$image" "$results" "$limit" -- \
		"$top/guest/bench.sh" "$binary" /tmp/results breakdown >"$results/run.log" 2>&1; then
		tail -n 20 "$results/run.log"
		echo "breakdown.sh: the boot of $kernel failed" >&2
		exit 1
	fi
	"$top/dev/console-check.sh" "$results/console.log"
done
python3 "$top/dev/breakdown.py" "$out" "$@" | tee "$out/breakdown.txt"
