#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build qemu-system-x86_64 with the emulated Intel PMU: Debian's qemu source
# (fetched and extracted once), a copy of it with the quilt series of
# tools/testing/qemu-pmu/ applied with zero fuzz, configured once, built with ccache. Only the
# files the series touches (now or before) are synced into the copy, so a
# changed patch rebuilds only what depends on it.
# Usage: mk/qemu.sh QEMU_DEB_VERSION SERIES_DIR OUTDIR JOBS
set -eu
version=$1
series=$(cd "$2" && pwd)
out=$3
jobs=$4

die() { echo "qemu: $*" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
pristine=$out/src
tree=$out/tree
build=$out/build
list=.qemu-pmu-files
export CCACHE_DIR="$out/ccache"

# 1. Debian's source, once per pinned version.
if [ ! -f "$out/.extracted-$version" ]; then
	rm -rf "$out/dl" "$pristine" "$tree" "$build" "$out"/.extracted-*
	mkdir "$out/dl"
	echo "qemu: fetching Debian's qemu source $version"
	(cd "$out/dl" && apt-get source -qq --download-only "qemu=$version") ||
		die "apt-get source qemu=$version failed (deb-src: mk/qemu-deps.sh)"
	dsc=$(ls "$out"/dl/qemu_*.dsc)
	echo "qemu: extracting $(basename "$dsc")"
	dpkg-source -x "$dsc" "$pristine" > "$out/dl/extract.log" 2>&1 ||
		{ cat "$out/dl/extract.log"; die "dpkg-source -x failed"; }
	have=$(dpkg-parsechangelog -l "$pristine/debian/changelog" -S Version)
	[ "$have" = "$version" ] ||
		die "the source is $have, not the pinned $version"
	[ -f "$pristine/target/i386/cpu.c" ] ||
		die "$pristine has no target/i386/cpu.c: not the expected qemu source"
	touch "$out/.extracted-$version"
fi

# 2. The patched copy.
if [ ! -d "$tree" ]; then
	echo "qemu: copying the source to $tree (once)"
	rm -rf "$tree.tmp"
	cp -a "$pristine" "$tree.tmp"
	mv "$tree.tmp" "$tree"
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/qemu-pmu.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
patches=$(grep -v -e '^#' -e '^[[:space:]]*$' "$series/series" || true)
: > "$scratch/touched"
for p in $patches; do
	[ -f "$series/$p" ] || die "$series names $p, but $series/$p does not exist"
	sed -n 's|^+++ b/\([^	]*\).*|\1|p' "$series/$p" >> "$scratch/touched"
done
LC_ALL=C sort -u -o "$scratch/touched" "$scratch/touched"
mkdir "$scratch/tree"
while read -r f; do
	[ -f "$pristine/$f" ] || continue
	mkdir -p "$scratch/tree/$(dirname "$f")"
	cp "$pristine/$f" "$scratch/tree/$f"
done < "$scratch/touched"
if [ -n "$patches" ]; then
	if ! (cd "$scratch/tree" && QUILT_PATCHES="$series" QUILT_PC=.pc \
	      quilt push -a --fuzz=0 > "$scratch/quilt.log" 2>&1); then
		sed 's/^/qemu: /' "$scratch/quilt.log" >&2
		die "the QEMU series does not apply with zero fuzz (see above)"
	fi
	if grep -q -i -e 'offset' -e 'fuzz' "$scratch/quilt.log"; then
		sed 's/^/qemu: /' "$scratch/quilt.log" >&2
		die "the QEMU series applies only with an offset: refresh it"
	fi
fi
old=/dev/null
[ -f "$tree/$list" ] && old="$tree/$list"
LC_ALL=C sort -u "$scratch/touched" "$old" | while read -r f; do
	if [ -f "$scratch/tree/$f" ]; then
		src="$scratch/tree/$f"
	elif [ -f "$pristine/$f" ]; then
		src="$pristine/$f"
	else
		rm -f "$tree/$f"
		continue
	fi
	if ! cmp -s "$src" "$tree/$f"; then
		echo "qemu: update $f"
		mkdir -p "$tree/$(dirname "$f")"
		cp "$src" "$tree/$f"
	fi
done
cp "$scratch/touched" "$tree/$list"

# QEMU's own style check on every patch of the series (no sign-off: the
# patches carry none here, as series/ does not).
for p in $patches; do
	if ! (cd "$pristine" && perl scripts/checkpatch.pl --no-signoff -q \
	      "$series/$p") > "$scratch/checkpatch.log" 2>&1; then
		sed 's/^/qemu: /' "$scratch/checkpatch.log" >&2
		die "QEMU's scripts/checkpatch.pl: $p"
	fi
done

# 3. Configure once: only the x86_64 system emulator, no docs, no tools,
# no debug information (a cold build of make check spends less; the
# symbols that mk/hang.py's host profile names stay).
opts="--target-list=x86_64-softmmu --disable-docs --without-default-features
      --disable-tools --disable-guest-agent --disable-debug-info
      --enable-fdt=system
      --cc=/usr/lib/ccache/gcc --cxx=/usr/lib/ccache/g++"
# shellcheck disable=SC2086
opts=$(echo $opts)
if [ "$(cat "$build/.configured" 2>/dev/null)" != "$opts" ]; then
	rm -rf "$build"
	mkdir -p "$build"
	echo "qemu: configure"
	# shellcheck disable=SC2086
	(cd "$build" && "$tree/configure" $opts) > "$out/configure.log" 2>&1 ||
		{ tail -n 30 "$out/configure.log"; die "configure failed ($out/configure.log)"; }
	echo "$opts" > "$build/.configured"
fi

# 4. Build only qemu-system-x86_64.
echo "qemu: ninja qemu-system-x86_64"
if ! ninja -C "$build" -j "$jobs" qemu-system-x86_64 > "$out/build.log" 2>&1; then
	grep -A 20 -m 3 -e 'error' -e 'FAILED' "$out/build.log"
	die "build failed ($out/build.log)"
fi
echo "qemu: $build/qemu-system-x86_64"
