#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every prefix of the QEMU series of tools/testing/qemu-pmu/ builds
# qemu-system-x86_64 with -Werror on the source that make qemu fetched.
#
# Usage: mk/qemu-prefixes.sh QEMU_OUT SERIES_DIR OUT JOBS [LAST]
#
# QEMU_OUT is make qemu's output: Debian's source in QEMU_OUT/src (with
# Debian's own patches applied, their quilt state in its .pc), its
# ccache, and the meson it extracted where the machine's is too old. The
# source is copied to OUT/tree, where quilt (no quiltrc; its state in
# .pc-pmu) pushes the patches of SERIES_DIR/series one at a time with zero
# fuzz; after each, OUT/build (configured once, with mk/qemu-opts.sh's
# options, as mk/qemu.sh, and --enable-werror) builds qemu-system-x86_64: not i386-softmmu, not
# linux-user, not the TCG tests. One line per prefix, the whole output in
# OUT/log/K.log; the exit status is non-zero if a patch does not apply
# cleanly or a prefix does not build. QEMU's checkpatch and the final
# build's tests are make qemu's (mk/qemu.sh). With LAST=K it stops after
# prefix K, whose qemu-system-x86_64 stays in OUT/build to be booted
# (mk/boot-pmu.sh).
set -eu
qout=$(cd "$1" && pwd)
series=$(cd "$2" && pwd)
mkdir -p "$3"
out=$(cd "$3" && pwd)
jobs=$4
last=${5:-}

die() { echo "qemu-prefixes: $*" >&2; exit 1; }

[ -f "$qout/src/target/i386/cpu.c" ] ||
	die "no QEMU source in $qout/src: run make qemu first"
# The meson mk/qemu.sh extracted, where the machine's is older than the
# source needs.
need=$(sed -n "s/.*meson_version: *'>=\([0-9.]*\)'.*/\1/p" \
	"$qout/src/meson.build" | head -n 1)
if ! dpkg --compare-versions "$(meson --version 2>/dev/null || echo 0)" \
     ge "$need"; then
	for m in "$qout"/meson-*; do
		[ -f "$m/.extracted" ] || continue
		PATH=$m/usr/bin:$PATH
		PYTHONPATH=$m/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}
		export PATH PYTHONPATH
	done
fi
export CCACHE_DIR="$qout/ccache"

patches=$(grep -v -e '^#' -e '^[[:space:]]*$' "$series/series" || true)
[ -n "$patches" ] || die "$series/series lists no patch"
n=$(echo "$patches" | wc -l)
case $last in
'') ;;
*[!0-9]*) die "LAST=$last: a prefix number from 1 to $n" ;;
*)	if [ "$last" -lt 1 ] || [ "$last" -gt "$n" ]; then
		die "LAST=$last: a prefix number from 1 to $n"
	fi
	n=$last
	patches=$(echo "$patches" | head -n "$n") ;;
esac

rm -rf "$out/tree" "$out/build" "$out/log"
mkdir -p "$out/build" "$out/log"
echo "qemu-prefixes: copying $qout/src to $out/tree"
cp -a "$qout/src" "$out/tree"
# As mk/qemu.sh configures (mk/qemu-opts.sh), and with -Werror.
# shellcheck source=mk/qemu-opts.sh
. "$(dirname "$0")/qemu-opts.sh"
echo "qemu-prefixes: configure"
# shellcheck disable=SC2086
(cd "$out/build" && "$out/tree/configure" $qemu_opts --enable-werror) \
	> "$out/log/configure.log" 2>&1 ||
	die "configure failed ($out/log/configure.log)"

k=0
built=0
for p in $patches; do
	k=$((k + 1))
	log=$out/log/$k.log
	if ! (cd "$out/tree" && QUILT_PATCHES="$series" QUILT_PC=.pc-pmu \
	      quilt --quiltrc=- push --fuzz=0) > "$log" 2>&1 ||
	   grep -q -E '^Hunk #[0-9]+ succeeded at [0-9]+ (with fuzz|\(offset)' \
		"$log"; then
		echo "prefix $k/$n ($p): does not apply cleanly ($log)"
		exit 1
	fi
	if ninja -C "$out/build" -j "$jobs" qemu-system-x86_64 >> "$log" 2>&1; then
		echo "prefix $k/$n ($p): builds"
		built=$((built + 1))
	else
		echo "prefix $k/$n ($p): does not build ($log)"
	fi
done
echo "qemu-prefixes: $built of $n prefixes build"
[ "$built" -eq "$n" ]
