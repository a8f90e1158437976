#!/usr/bin/env bash
# boot.sh [--interactive] [--multi-thread|--icount] [--plugin SPEC] [--arch x86_64|arm64] [--kernel-arg ARG]... IMAGE RESULTS TIMEOUT -- COMMAND [ARG...]
#
# Boots IMAGE under QEMU (TCG, 2 vCPUs) with a read-only 9p root and
# RESULTS as a writable 9p share, and has guest/init.c run COMMAND as the
# guest's only job.  The root is the host's / for x86-64 (the default), an
# arm64 Debian root (dev/arm64-root.sh) on QEMU's virt machine for arm64.
# The guest sees this project at /mnt/project (a checkout under /tmp would
# be hidden by the guest's own /tmp; on arm64 it is a 9p share of its
# own), so arguments naming paths in the project are rewritten to that
# place.
# TCG runs both vCPUs on one host thread (reproducible) unless
# --multi-thread gives each its own, as the test boots (dev/check.sh) and
# throughput benchmarks use.  --icount counts instructions instead of
# time (-icount shift=0,sleep=off, one host thread): the guest's clock
# advances a nanosecond per instruction executed, and an idle guest skips
# to its next timer, so a time measured in the guest is a number of
# instructions, the same from run to run (make bench ICOUNT=1).
# --plugin loads a TCG plugin (QEMU's -plugin SPEC: FILE.so,ARG=VALUE,...;
# make breakdown).  --kernel-arg adds ARG to the kernel command line.  The
# console goes to the terminal and to RESULTS/console.log.
# TIMEOUT seconds (0: none) is a hard limit on the whole boot.  Exits with
# COMMAND's status, or 124 on timeout.
set -euo pipefail

usage() {
	echo "usage: boot.sh [--interactive] [--multi-thread|--icount] [--plugin SPEC] [--arch x86_64|arm64] [--kernel-arg ARG]... IMAGE RESULTS TIMEOUT -- COMMAND..." >&2
	exit 2
}

interactive=0 tcg_thread=single icount=() plugin=() kernel_args="" arch=x86_64
while [ $# -gt 0 ]; do
	case $1 in
	--interactive) interactive=1 ;;
	--multi-thread) tcg_thread=multi ;;
	--icount) icount=(-icount shift=0,sleep=off) ;;
	--plugin) [ $# -ge 2 ] || usage
		plugin=(-plugin "$2")
		shift ;;
	--arch) [ $# -ge 2 ] || usage
		arch=$2
		shift ;;
	--kernel-arg) [ $# -ge 2 ] || usage
		kernel_args+=" $2"
		shift ;;
	*) break ;;
	esac
	shift
done
if [ $# -lt 5 ] || [ "$4" != -- ]; then
	usage
fi
if [ ${#icount[@]} -gt 0 ] && [ "$tcg_thread" = multi ]; then
	echo "boot.sh: --icount needs one host thread, not --multi-thread" >&2
	exit 2
fi
image=$1 results=$2 limit=$3
shift 4

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=dev/arch.sh
. "$top/dev/arch.sh"
case $arch in
x86_64) root=/ init=$top/out/guest/init ;;
arm64) root=$top/out/arm64/root init=/sbin/uprobes-init ;;
*) usage ;;
esac
[ -f "$image" ] || { echo "boot.sh: no kernel image $image" >&2; exit 2; }
[ -x "$root$init" ] || { echo "boot.sh: no guest init $root$init" >&2; exit 2; }

mkdir -p "$results"
rm -f "$results/status" "$results/console.log"

# pci=noacpi: the PCI interrupt routing comes from the BIOS table, not from
# ACPI's _PRT, whose AML loop a debug kernel (KASAN, kmemleak) under TCG
# runs past ACPICA's 30 s limit, leaving the virtio devices (the 9p root)
# without an interrupt.  loglevel=5, not quiet: quiet keeps KERN_WARNING
# off the console, and with it every WARN() and lockdep report, which
# dev/console-check.sh must see.
cmdline="loglevel=5 panic=-1 root=root rootfstype=9p"
cmdline+=" rootflags=trans=virtio,version=9p2000.L,cache=loose ro$kernel_args"
guest_top=/mnt/project
guest_args=("${@/#"$top"\//$guest_top/}")
project=$top
[ "$arch" = x86_64 ] || project=9p:project
# The host's clock, for a guest machine without one (guest/init.c).
cmdline+=" uprobes_clock=$(date +%s)"
cmdline+=" uprobes_project=$project init=$init -- ${guest_args[*]}"

# shellcheck disable=SC2054 # commas belong to QEMU's option syntax
case $arch in
x86_64)
	qemu=(qemu-system-x86_64 -append "console=ttyS0 pci=noacpi $cmdline")
	virtio=virtio-9p-pci ;;
arm64)
	qemu=(qemu-system-aarch64 -machine virt -append "console=ttyAMA0 $cmdline")
	virtio=virtio-9p-device ;;
esac
# The -cpu model (dev/arch.sh), in a subshell: IMAGE stays this script's.
cpu=$(arch_vars "$arch" && echo "$cpu")
# shellcheck disable=SC2054
qemu+=(-accel "tcg,thread=$tcg_thread" "${icount[@]}" "${plugin[@]}" -cpu "$cpu" -smp 2 -m 2G
	-kernel "$image" -no-reboot -display none
	-fsdev "local,id=root,path=$root,security_model=none,readonly=on,multidevs=remap"
	-device "$virtio,fsdev=root,mount_tag=root"
	-fsdev "local,id=results,path=$results,security_model=none,multidevs=remap"
	-device "$virtio,fsdev=results,mount_tag=results")
# shellcheck disable=SC2054
[ "$arch" = x86_64 ] || qemu+=(
	-fsdev "local,id=project,path=$top,security_model=none,readonly=on,multidevs=remap"
	-device "$virtio,fsdev=project,mount_tag=project")

if [ "$interactive" -eq 1 ]; then
	"${qemu[@]}" -serial mon:stdio
else
	rc=0
	timeout --foreground -k 10 "$limit" "${qemu[@]}" -serial stdio -monitor none \
		</dev/null | tee "$results/console.log" || rc=$?
	[ "$rc" -eq 124 ] && { echo "boot.sh: timed out after ${limit}s" >&2; exit 124; }
fi
[ -f "$results/status" ] || { echo "boot.sh: the guest did not finish its command" >&2; exit 1; }
exit "$(cat "$results/status")"
