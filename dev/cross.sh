#!/usr/bin/env bash
# cross.sh SRC OUT FRAGMENT [ARCH...]
#
# Builds the kernel tree SRC for every other architecture that has uprobes
# (or the ARCHes named): tinyconfig, plus what the architecture needs (an
# MMU, 64 bits where it has them), plus FRAGMENT (CONFIG_UPROBES and
# CONFIG_UPROBE_EVENTS), into OUT/ARCH; links vmlinux, then builds the
# uprobes files again at W=1.  Prints one line per architecture; fails if
# any failed.  csky has no compiler in Debian and is not built.  x86_64 is
# not in the default list (make check builds it in full) but can be named,
# as make series STEPS=1 does; so can i386, the 32-bit x86 kernel, which
# has fewer of the optional groups of hooks of uprobes than x86-64, and
# whose W=1 pass takes in arch/x86/kernel/uprobes.o too.  Where the base
# itself does not build for an architecture, dev/base-fixes/ARCH.patch
# says why, and that architecture builds from a copy of SRC with it
# applied.
set -euo pipefail

src=$(readlink -f "${1:?usage: cross.sh SRC OUT FRAGMENT [ARCH...]}")
out=$(readlink -m "${2:?usage: cross.sh SRC OUT FRAGMENT [ARCH...]}")
fragment=$(readlink -f "${3:?usage: cross.sh SRC OUT FRAGMENT [ARCH...]}")
shift 3
all=(arm arm64 loongarch mips powerpc riscv s390 sparc64)
arches=("${@:-${all[@]}}")
jobs=$(nproc)
top=$(cd "$(dirname "$0")/.." && pwd)
uprobes_objs=(kernel/events/uprobes/ kernel/trace/trace_uprobe.o)
# The tracer's second file, which the steps of the series before the
# tracer's replacement do not have.
tracer_hit=kernel/trace/trace_uprobe_hit

# What else of ours architecture $1 builds again at W=1.  Not for x86_64:
# make series STEPS=1 builds it from the steps before the base's x86 file
# is replaced too.
arch_objs() {
	case $1 in
	i386) echo arch/x86/kernel/uprobes.o ;;
	esac
}

# The make variables and the extra options of architecture $1.
arch_make() {
	case $1 in
	arm) echo "ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf-" ;;
	arm64) echo "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-" ;;
	x86_64) echo "ARCH=x86_64" ;;
	i386) echo "ARCH=i386" ;;
	loongarch) echo "ARCH=loongarch LLVM=-19" ;;
	mips) echo "ARCH=mips CROSS_COMPILE=mips64el-linux-gnuabi64-" ;;
	powerpc) echo "ARCH=powerpc CROSS_COMPILE=powerpc64le-linux-gnu-" ;;
	riscv) echo "ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu-" ;;
	s390) echo "ARCH=s390 CROSS_COMPILE=s390x-linux-gnu-" ;;
	sparc64) echo "ARCH=sparc64 CROSS_COMPILE=sparc64-linux-gnu-" ;;
	*) echo "cross.sh: no architecture $1" >&2; return 1 ;;
	esac
}

arch_options() {
	case $1 in
	arm) printf '%s\n' CONFIG_MMU=y CONFIG_ARCH_MULTIPLATFORM=y CONFIG_ARCH_MULTI_V7=y \
		CONFIG_ARCH_VIRT=y ;;
	mips) printf '%s\n' CONFIG_MIPS_MALTA=y CONFIG_CPU_MIPS64_R2=y CONFIG_64BIT=y \
		CONFIG_CPU_LITTLE_ENDIAN=y ;;
	powerpc) printf '%s\n' CONFIG_PPC64=y CONFIG_PPC_BOOK3S_64=y CONFIG_CPU_LITTLE_ENDIAN=y ;;
	riscv) printf '%s\n' CONFIG_MMU=y CONFIG_ARCH_RV64I=y ;;
	x86_64) printf '%s\n' CONFIG_IA32_EMULATION=y ;;
	*) ;;
	esac
}

# The tree to build architecture $1 from: SRC, or a copy of it in
# $out/src-$1 with the base's fix for $1 applied.
src_of() {
	local fix=$top/dev/base-fixes/$1.patch copy=$out/src-$1
	if [ ! -e "$fix" ]; then
		echo "$src"
		return
	fi
	rsync -a --delete "$src/" "$copy/"
	patch -s -p1 -d "$copy" --no-backup-if-mismatch <"$fix"
	echo "$copy"
}

# Builds architecture $1 into $out/$1; its log is $out/$1.log.
build_one() {
	local arch=$1 build=$out/$1 log=$out/$1.log
	local tree
	tree=$(src_of "$arch")
	local -a mk objs
	read -r -a mk <<<"$(arch_make "$arch")"
	read -r -a objs <<<"$(arch_objs "$arch")"
	[ ! -e "$tree/$tracer_hit.c" ] || objs+=("$tracer_hit.o")
	mkdir -p "$build"
	arch_options "$arch" >"$build/arch.config"
	local cc
	cc="ccache $(cc_of "${mk[@]}")"
	# Called in a condition, where set -e does not act: each step says.
	{
		make -C "$tree" O="$build" "${mk[@]}" tinyconfig &&
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" \
			"$build/arch.config" "$fragment" &&
		make -C "$tree" O="$build" "${mk[@]}" olddefconfig &&
		grep -qx CONFIG_UPROBE_EVENTS=y "$build/.config" &&
		make -C "$tree" O="$build" "${mk[@]}" CC="$cc" -j"$jobs" vmlinux &&
		make -C "$tree" O="$build" "${mk[@]}" CC="$cc" -j"$jobs" W=1 \
			"${uprobes_objs[@]}" "${objs[@]}" 2>"$build/w1.log"
	} >"$log" 2>&1
}

# The C compiler the make variables $@ name.
cc_of() {
	local v
	for v in "$@"; do
		case $v in
		LLVM=*) echo "clang${v#LLVM=}"; return ;;
		CROSS_COMPILE=*) echo "${v#CROSS_COMPILE=}gcc"; return ;;
		esac
	done
	echo gcc
}

failed=0
for arch in "${arches[@]}"; do
	start=$(date +%s)
	if build_one "$arch"; then
		warnings=$(grep 'warning:' "$out/$arch/w1.log" | grep -c uprobe || true)
		result=ok
		[ "$warnings" -eq 0 ] || result=WARNED
		printf '  %-10s %-7s %4ss  vmlinux; %s W=1 warnings in the uprobes files\n' \
			"$arch" "$result" "$(($(date +%s) - start))" "$warnings"
		[ "$warnings" -eq 0 ] || { grep -A3 'warning:' "$out/$arch/w1.log" | head -20; failed=1; }
	else
		printf '  %-10s FAILED  %4ss  see %s\n' "$arch" "$(($(date +%s) - start))" "$out/$arch.log"
		grep -E 'error|Error' "$out/$arch.log" | head -10 || true
		failed=1
	fi
done
[ $# -gt 0 ] || echo "  csky       -              no compiler for csky in Debian 12"
exit "$failed"
