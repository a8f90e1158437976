#!/usr/bin/env bash
# config.sh SRC BUILD FRAGMENT...
#
# Writes BUILD/.config: tinyconfig plus the fragments, then checks that every
# option a fragment sets took the value asked for (Kconfig silently drops an
# option whose dependencies are missing).  Does nothing when the fragments
# have not changed since the last run.
set -euo pipefail

src=$(readlink -f "${1:?usage: config.sh SRC BUILD FRAGMENT...}")
build=$(readlink -m "${2:?usage: config.sh SRC BUILD FRAGMENT...}")
shift 2
fragments=("$@")
# Kconfig's architecture, always on the command line: ARCH=arm64 from the
# environment, else x86.  Not x86_64, nor whatever the caller's make
# passes on in MAKEFLAGS: under ARCH=x86_64 "64-bit kernel" is no choice,
# so tinyconfig writes every 64-bit option as not set, while under x86 it
# starts 32-bit and guest.config's CONFIG_64BIT=y brings the 64-bit
# defaults (VMAP_STACK, X86_KERNEL_IBT, X86_5LEVEL, ...), as a
# distribution's kernel has them.
karch=${ARCH:-x86}
[ "$karch" = x86_64 ] && karch=x86

stamp=$build/.config.fragments
want=$( { echo "ARCH=$karch"; cat "${fragments[@]}"; } | sha256sum)
[ -f "$build/.config" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && exit 0

echo "  CONFIG  tinyconfig + ${fragments[*]##*/}"
mkdir -p "$build"
make -s -C "$src" O="$build" ARCH="$karch" tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "${fragments[@]}" >/dev/null
make -s -C "$src" O="$build" ARCH="$karch" olddefconfig >/dev/null

bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=n) grep -qx "# ${line%=n} is not set" "$build/.config" || { echo "config: $line not applied" >&2; bad=1; } ;;
	CONFIG_*) grep -qx "$line" "$build/.config" || { echo "config: $line not applied" >&2; bad=1; } ;;
	esac
done < <(cat "${fragments[@]}")
[ $bad -eq 0 ] || exit 1
echo "$want" >"$stamp"
