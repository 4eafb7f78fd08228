#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build qemu-system-x86_64 with the emulated Intel PMU: Debian's qemu source
# of SUITE (fetched with a private apt, mk/aptsuite.sh, and extracted
# once), a copy of it with the quilt series of tools/testing/qemu-pmu/
# applied with zero fuzz, configured once, built with ccache. Only the
# files the series touches (now or before) are synced into the copy, so a
# changed patch rebuilds only what depends on it. Where the machine's
# meson is older than the source needs (Debian 12 has 1.0.1), Debian's
# meson MESON_VERSION of MESON_SUITE (Architecture: all) is extracted under
# OUTDIR and used from there, not installed. Each build ends with
# mk/qemu-refusals.sh (what the series makes QEMU refuse) and QEMU's own
# TCG tests of x86_64 system emulation.
# Usage: mk/qemu.sh QEMU_VERSION SUITE MESON_VERSION MESON_SUITE SERIES_DIR \
#                   OUTDIR JOBS
set -eu
version=$1
suite=$2
meson_version=$3
meson_suite=$4
series=$(cd "$5" && pwd)
out=$6
jobs=$7

die() { echo "qemu: $*" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
pristine=$out/src
tree=$out/tree
build=$out/build
list=.qemu-pmu-files
export CCACHE_DIR="$out/ccache"
# shellcheck source=mk/aptsuite.sh
. "$(dirname "$0")/aptsuite.sh"

# 1. Debian's source, once per pinned version.
if [ ! -f "$out/.extracted-$version" ]; then
	rm -rf "$out/apt" "$pristine" "$tree" "$build" "$out"/.extracted-* \
		"$out"/qemu_*
	echo "qemu: fetching Debian's qemu source $version ($suite)"
	aptsuite_init "$out/apt" "$suite" deb-src ||
		die "no source list of $suite"
	(cd "$out/apt/dl" && aptopt apt-get source -qq --download-only \
		"qemu=$version") || {
		aptopt apt-cache showsrc qemu | sed -n 's/^Version: /qemu:   has /p' >&2
		die "no qemu source $version in $suite: pin another one,
      make QEMU_DEB_VERSION=<version> QEMU_DEB_SUITE=<suite> qemu
      (the QEMU series may need a refresh)"
	}
	dsc=$(ls "$out"/apt/dl/qemu_*.dsc)
	echo "qemu: extracting $(basename "$dsc")"
	dpkg-source --no-copy -x "$dsc" "$pristine" > "$out/apt/extract.log" 2>&1 ||
		{ cat "$out/apt/extract.log"; die "dpkg-source -x failed"; }
	have=$(dpkg-parsechangelog -l "$pristine/debian/changelog" -S Version)
	[ "$have" = "$version" ] ||
		die "the source is $have, not the pinned $version"
	[ -f "$pristine/target/i386/cpu.c" ] ||
		die "$pristine has no target/i386/cpu.c: not the expected qemu source"
	rm -rf "$out/apt"
	touch "$out/.extracted-$version"
fi

# The meson the source asks for (meson_version in its meson.build).
need=$(sed -n "s/.*meson_version: *'>=\([0-9.]*\)'.*/\1/p" \
	"$pristine/meson.build" | head -n 1)
[ -n "$need" ] || die "no meson_version in $pristine/meson.build"
have=$(meson --version 2>/dev/null || echo 0)
if ! dpkg --compare-versions "$have" ge "$need"; then
	meson=$out/meson-$meson_version
	if [ ! -f "$meson/.extracted" ]; then
		echo "qemu: meson $have < $need: fetching Debian's meson" \
			"$meson_version ($meson_suite)"
		rm -rf "$out/apt" "$out"/meson-*
		aptsuite_init "$out/apt" "$meson_suite" deb ||
			die "no package list of $meson_suite"
		(cd "$out/apt/dl" && aptopt apt-get -qq download \
			"meson=$meson_version") ||
			die "no meson $meson_version in $meson_suite"
		dpkg-deb -x "$out"/apt/dl/meson_*.deb "$meson"
		rm -rf "$out/apt"
		touch "$meson/.extracted"
	fi
	PATH=$meson/usr/bin:$PATH
	PYTHONPATH=$meson/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}
	export PATH PYTHONPATH
	have=$(meson --version)
	dpkg --compare-versions "$have" ge "$need" ||
		die "meson $meson_version of $meson_suite is $have, not >= $need"
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

# 3. Configure once, with mk/qemu-opts.sh's options. The meson found is
# part of the key, so that another one configures again.
# shellcheck source=mk/qemu-opts.sh
. "$(dirname "$0")/qemu-opts.sh"
# shellcheck disable=SC2086
opts=$(echo $qemu_opts)
key="$opts meson-$(meson --version)"
if [ "$(cat "$build/.configured" 2>/dev/null)" != "$key" ]; then
	rm -rf "$build"
	mkdir -p "$build"
	echo "qemu: configure"
	# shellcheck disable=SC2086
	(cd "$build" && "$tree/configure" $opts) > "$out/configure.log" 2>&1 ||
		{ tail -n 30 "$out/configure.log"; die "configure failed ($out/configure.log)"; }
	echo "$key" > "$build/.configured"
fi

# 4. Build only qemu-system-x86_64.
echo "qemu: ninja qemu-system-x86_64"
if ! ninja -C "$build" -j "$jobs" qemu-system-x86_64 > "$out/build.log" 2>&1; then
	grep -A 20 -m 3 -e 'error' -e 'FAILED' "$out/build.log"
	die "build failed ($out/build.log)"
fi
# What the series makes QEMU refuse, and the options of the boots.
"$(dirname "$0")/qemu-refusals.sh" "$build/qemu-system-x86_64" ||
	die "QEMU accepts or refuses the wrong options (above)"
# 5. QEMU's own TCG tests of x86_64 system emulation, the series' among
# them (tests/tcg/x86_64/system), built with the machine's gcc. The +ds
# source has no SeaBIOS: qboot of qemu-system-data boots their PVH
# kernels, and QEMU's default VGA needs a ROM it has not (-nodefaults;
# the tests name their devices). GDB empty: no gdbstub test.
# Not the outer make's flags (mk/qemu.sh runs under make qemu).
echo "qemu: make run-tcg-tests-x86_64-softmmu"
qboot=/usr/share/qemu/qboot.rom
[ -f "$qboot" ] || die "no $qboot (Debian's qemu-system-data has it)"
rm -f "$build"/tests/tcg/x86_64-softmmu/*.out
fw="-L /usr/share/qemu -bios $qboot -nodefaults"
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
     make -C "$build" run-tcg-tests-x86_64-softmmu GDB= \
     QEMU="$build/qemu-system-x86_64 $fw" > "$out/tcg-tests.log" 2>&1; then
	tail -n 20 "$out/tcg-tests.log"
	for f in "$build"/tests/tcg/x86_64-softmmu/*.out; do
		grep -H FAIL "$f" || true
	done
	die "QEMU's TCG tests failed ($out/tcg-tests.log)"
fi
echo "qemu: $build/qemu-system-x86_64"
