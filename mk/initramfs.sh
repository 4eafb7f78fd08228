#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the test initramfs: busybox, Debian's perf with its libraries,
# the installed kselftests, mk/init.sh as /init, and for the boots on the
# emulated Haswell and Skylake mk/pmu-tests.sh, mk/pebs-tests.sh (with
# mk/tap.sh, mk/pmu-loop.sh) and their test programs, from mk/pmu-loop.S
# and mk/pmu-shares.c; mk/cost-tests.sh for mk/cost.sh;
# mk/migrate-tests.sh for the migration boot;
# mk/pebs-figures-tests.sh and mk/sigtrap-tests.sh for their figures;
# mk/fuzz-tests.sh with perf_fuzz (tools/testing/x86-perf-fuzz/) and
# Debian's trinity.
# Usage: mk/initramfs.sh KSELFTEST_INSTALL_DIR OUTPUT.cpio.gz
set -eu
kst=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(mktemp -d "${TMPDIR:-/tmp}/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/proc" "$root/sys" \
	 "$root/dev" "$root/tmp" "$root/etc"
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
# The kselftest runner wants coreutils' timeout (--foreground).
cp /usr/bin/timeout "$root/usr/bin/timeout"
cp /usr/bin/perf "$root/usr/bin/perf"
cp "$here/pmu-tests.sh" "$root/pmu-tests.sh"
cp "$here/pebs-tests.sh" "$root/pebs-tests.sh"
cp "$here/tap.sh" "$root/tap.sh"
cp "$here/pmu-loop.sh" "$root/pmu-loop.sh"
gcc -nostdlib -static -o "$root/pmu-loop" "$here/pmu-loop.S"
gcc -nostdlib -static -DXCHG -o "$root/pmu-xchg" "$here/pmu-loop.S"
for v in cmpxchg8b cmpxchg16b movdqa; do
	gcc -nostdlib -static -D"$(echo $v | tr '[:lower:]' '[:upper:]')" -o "$root/pmu-$v" \
		"$here/pmu-loop.S"
done
gcc -nostdlib -static -DITERS=10000000 -o "$root/pmu-mid" "$here/pmu-loop.S"
gcc -nostdlib -static -DITERS=100000000 -o "$root/pmu-long" "$here/pmu-loop.S"
gcc -nostdlib -static -DITERS=1000000000 -o "$root/pmu-mig" "$here/pmu-loop.S"
gcc -nostdlib -static -DSWITCH -o "$root/pmu-switch" "$here/pmu-loop.S"
gcc -nostdlib -static -DSLEEP -DITERS=50 -o "$root/pmu-sleep" "$here/pmu-loop.S"
gcc -nostdlib -static -DNAP -DITERS=50 -o "$root/pmu-nap" "$here/pmu-loop.S"
gcc -nostdlib -static -DXMM -o "$root/pmu-xmm" "$here/pmu-loop.S"
gcc -nostdlib -static -DPARK -o "$root/pmu-park" "$here/pmu-loop.S"
gcc -nostdlib -static -DFAULT -o "$root/pmu-fault" "$here/pmu-loop.S"
for v in int3 int1 intn into; do
	gcc -nostdlib -static -DFAULT -D"$(echo $v | tr '[:lower:]' '[:upper:]')" \
		-o "$root/pmu-$v" "$here/pmu-loop.S"
done
gcc -O2 -Wall -static -o "$root/pmu-shares" "$here/pmu-shares.c"
cp "$here/cost-tests.sh" "$root/cost-tests.sh"
cp "$here/migrate-tests.sh" "$root/migrate-tests.sh"
cp "$here/pebs-figures-tests.sh" "$root/pebs-figures-tests.sh"
cp "$here/sigtrap-tests.sh" "$root/sigtrap-tests.sh"
cp "$here/fuzz-tests.sh" "$root/fuzz-tests.sh"
gcc -O2 -Wall -static -pthread -o "$root/perf-fuzz" \
	"$here/../tools/testing/x86-perf-fuzz/perf_fuzz.c"
cp /usr/bin/trinity "$root/usr/bin/trinity"
cp -a "$kst" "$root/kselftest"
cp "$here/init.sh" "$root/init"
chmod +x "$root/init"
echo "root:x:0:0:root:/:/bin/sh" > "$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/false" >> "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
echo "nogroup:x:65534:" >> "$root/etc/group"

# Shared libraries of every dynamic executable we ship.
find "$root" -type f -perm -u+x | while read -r f; do
	ldd "$f" 2>/dev/null | sed -n -e 's/.*=> \(\/[^ ]*\).*/\1/p' \
		-e 's/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'
done | sort -u | while read -r lib; do
	mkdir -p "$root$(dirname "$lib")"
	[ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
done

(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
