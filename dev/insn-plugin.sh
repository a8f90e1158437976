#!/usr/bin/env bash
# insn-plugin.sh OUTDIR
#
# Builds the QEMU plugin bench/insn_window.c into OUTDIR/insn_window.so
# and prints its path.  Debian ships QEMU with plugins on but without the
# plugin API's header, so the header is taken from the source of the QEMU
# that is installed: its upstream tarball in Debian's archive, fetched
# once into OUTDIR.
set -euo pipefail

out=$(readlink -m "${1:?usage: insn-plugin.sh OUTDIR}")
top=$(cd "$(dirname "$0")/.." && pwd)
archive=http://deb.debian.org/debian/pool/main/q/qemu

# The upstream part of the installed QEMU's version: 1:7.2+dfsg-7+deb12u18 -> 7.2+dfsg.
qemu_upstream() {
	dpkg-query -W -f '${Version}' qemu-system-x86 | sed 's/^[0-9]*://; s/-[^-]*$//'
}

mkdir -p "$out"
version=$(qemu_upstream)
header=$out/qemu-$version/qemu-plugin.h
if [ ! -e "$header" ]; then
	echo "  PLUGIN  fetching qemu-plugin.h of QEMU $version from Debian's archive" >&2
	tarball=$out/qemu_$version.orig.tar.xz
	curl -sSf -o "$tarball" "$archive/qemu_$version.orig.tar.xz"
	mkdir -p "$(dirname "$header")"
	tar -xJOf "$tarball" --wildcards '*/include/qemu/qemu-plugin.h' >"$header.tmp"
	mv "$header.tmp" "$header"
	rm -f "$tarball"
fi
so=$out/insn_window.so
if [ ! -e "$so" ] || [ "$top/bench/insn_window.c" -nt "$so" ]; then
	gcc -O2 -Wall -shared -fPIC -I"$(dirname "$header")" -o "$so" "$top/bench/insn_window.c"
fi
echo "$so"
