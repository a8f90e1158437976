#!/usr/bin/env bash
# bpf-selftests.sh BASE_SRC KERNEL_BUILD LIST TESTS
#
# Builds test_progs, the runner of the base tree's BPF selftests, with the
# kernel's own selftest Makefile, and puts it with the files it runs
# (urandom_read, uprobe_multi, ...) in TESTS/bpf.  Only the tests LIST names
# are built: they are the ones that attach uprobes, and the other 330 want
# networking types our guest kernel does not have.  So the build runs in a
# copy of BASE_SRC/tools whose selftests/bpf holds those tests and the BPF
# programs they embed; the rest of the tree is linked, never written.
#
# The BPF programs are CO-RE: built against one kernel's types, they load on
# any kernel of the same configuration, ours or the base.  So the build is
# kept in a cache outside the checkout, keyed by the base version, LIST, the
# configuration fragments, this script and the compiler, and a later run
# (a new checkout, the other kernel) only copies it.
#
# ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- (environment) cross-builds
# them: clang compiles the BPF programs for arm64's registers, and
# test_progs links against Debian's arm64 libelf and zlib (multiarch).
set -euo pipefail

usage='usage: bpf-selftests.sh BASE_SRC KERNEL_BUILD LIST TESTS'
base=$(readlink -f "${1:?$usage}")
build=$(readlink -f "${2:?$usage}")
list=$(readlink -f "${3:?$usage}")
tests=$(readlink -m "${4:?$usage}")
top=$(cd "$(dirname "$0")/.." && pwd)
llvm=/usr/lib/llvm-19/bin
cache_root=${UPROBES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/uprobes}/bpf-selftests

# The test names of LIST: its first column, without comments, "!" and a
# machine's name.
list_tests() {
	sed -e 's/#.*//' -e 's/^!//' -e 's/^[a-z0-9_]*://' -e 's|/.*||' "$list" |
		awk 'NF { print $1 }' | sort -u
}

cache_key() {
	{
		echo "${ARCH:-x86_64}"
		cat "$base/../upstream.version"
		list_tests
		cat "$top"/configs/{guest,tracing,bpf}.config "$0" "$top"/dev/test_progs/*.c
		"$llvm/clang" --version | head -1
	} | sha256sum | cut -c1-16
}

# built_tests: the tests LIST names, and test_lsm, which defines the
# stack_mprotect() bpf_cookie calls.
built_tests() {
	{
		list_tests
		echo test_lsm
	} | sort -u
}

# bpf_progs TEST...: the programs (progs/NAME.c) the tests embed as skeletons.
bpf_progs() {
	local t
	for t in "$@"; do
		sed -n 's/^#include "\(.*\)\.skel\.h"/\1/p' "$base/tools/testing/selftests/bpf/prog_tests/$t.c"
	done
	# test_usdt's skeleton links a second object; btf_data gives
	# resolve_btfids the types of test_progs itself.
	echo test_usdt_multispec
	echo btf_data
}

# stage_tree DIR TEST...: DIR/tools is a copy of the base's tools with only
# the tests' files in selftests/bpf; DIR's other entries link to the base.
stage_tree() {
	local dir=$1 entry sel
	shift
	mkdir -p "$dir"
	for entry in "$base"/*; do
		[ "${entry##*/}" = tools ] || ln -sfn "$entry" "$dir/${entry##*/}"
	done
	rsync -a --delete --exclude='/testing/selftests/bpf/prog_tests/*.c' \
		--exclude='/testing/selftests/bpf/progs/*.c' "$base/tools/" "$dir/tools/"
	sel=$dir/tools/testing/selftests/bpf
	for entry in "$@"; do
		cp "$base/tools/testing/selftests/bpf/prog_tests/$entry.c" "$sel/prog_tests/"
	done
	cp "$top"/dev/test_progs/*.c "$sel/prog_tests/"
	for entry in $(bpf_progs "$@" | sort -u); do
		cp "$base/tools/testing/selftests/bpf/progs/$entry.c" "$sel/progs/"
	done
}

# build_test_progs DIR: test_progs and its files in DIR/out.
build_test_progs() {
	local dir=$1 out=$1/out
	local -a cross=()
	[ -z "${CROSS_COMPILE:-}" ] || cross=(ARCH="$ARCH" CROSS_COMPILE="$CROSS_COMPILE")
	mkdir -p "$out"
	PATH=$llvm:$PATH make -s -j"$(nproc)" -C "$dir/tools/testing/selftests/bpf" \
		"${cross[@]}" OUTPUT="$out" VMLINUX_BTF="$build/vmlinux" feature-llvm=0 \
		LSKELS= LSKELS_EXTRA= LINKED_SKELS=test_usdt.skel.h \
		TRUNNER_EXTRA_FILES="$out/urandom_read $out/liburandom_read.so $out/uprobe_multi" \
		test_progs >/dev/null
}

key=$(cache_key)
cached=$cache_root/$key
if [ ! -x "$cached/out/test_progs" ]; then
	echo "  BPF     test_progs ($(list_tests | wc -l) tests) into $cached"
	rm -rf "$cached"
	mapfile -t names < <(built_tests)
	stage_tree "$cached" "${names[@]}"
	build_test_progs "$cached"
fi

echo "  BPF     $tests/bpf"
mkdir -p "$tests/bpf"
rsync -a --delete-excluded --include='*.bpf.o' --include=test_progs --include=urandom_read \
	--include=liburandom_read.so --include=uprobe_multi --exclude='*' \
	"$cached/out/" "$tests/bpf/"
