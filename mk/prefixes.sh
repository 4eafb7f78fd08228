#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every prefix of the series builds on the base, its KUnit suites pass,
# and their console holds no kernel report.
#
# Usage: mk/prefixes.sh PRISTINE OUT JOBS [FROM]
#
# For k = FROM..N (default 1..N, N patches in series/series): OUT/repo is
# made to hold series/series cut to its first k patches, the patches, and
# the new files that series/overlay assigns to patches 1..k; mk/stage.sh
# stages it in OUT/linux (copied from PRISTINE once, then only the changed
# files). A prefix with arch/x86/events/.kunitconfig runs upstream's
# kunit.py on it (full kernel in OUT/kunit, QEMU with TCG; the guest's
# console in OUT/log/K.console.log, scanned by mk/reports.sh, as
# kunit.py judges only the cases); one without compiles
# arch/x86/events/ and kernel/events/ with x86_64_defconfig plus the perf
# options in OUT/out. A prefix whose patch touches the kselftests or the
# UAPI headers also builds tools/testing/selftests/perf_events/. One line
# per prefix, the whole output of each in OUT/log/K.log; the exit status
# is non-zero if a build fails, a KUnit case fails or a console holds a
# report.
set -eu
pristine=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
jobs=$3
from=${4:-1}
# kunit.py's limit for the boot: the suites ran in 8-16 s under TCG here,
# on 2 cores; 300 s, its default, is too little on a loaded machine.
timeout=1800

die() { echo "prefixes: $*" >&2; exit 1; }

patches=$(grep -v -e '^#' -e '^[[:space:]]*$' series/series)
n=$(echo "$patches" | wc -l)
case $from in
''|*[!0-9]*) die "FROM=$from: a prefix number from 1 to $n" ;;
esac
if [ "$from" -lt 1 ] || [ "$from" -gt "$n" ]; then
	die "FROM=$from: a prefix number from 1 to $n"
fi

# series/overlay: "patch file..." per line. Every file that make stage
# would overlay must be assigned to a patch of the series, or a prefix
# would miss it (or the last prefix would not be the staged tree).
ovl=$(grep -v -e '^#' -e '^[[:space:]]*$' series/overlay)
echo "$ovl" | while read -r p files; do
	echo "$patches" | grep -qxF "$p" ||
		die "series/overlay names $p, which is not in series/series"
	for f in $files; do
		[ -f "$f" ] || die "series/overlay: $f ($p) does not exist"
	done
done
find arch kernel tools Documentation -type f 2>/dev/null |
	grep -v -e '/build/' -e '^tools/testing/qemu-pmu/' \
		-e '^tools/testing/x86-perf-fuzz/' | while read -r f; do
	echo "$ovl" | tr -s '[:space:]' '\n' | grep -qxF "$f" ||
		die "$f is a new file that series/overlay assigns to no patch"
done

mkdir -p "$out/log"
defconfig_perf="CONFIG_PERF_EVENTS=y
CONFIG_CPU_SUP_INTEL=y
CONFIG_CPU_SUP_AMD=y
CONFIG_PERF_EVENTS_INTEL_UNCORE=y
CONFIG_PERF_EVENTS_INTEL_RAPL=y
CONFIG_PERF_EVENTS_INTEL_CSTATE=y
CONFIG_PERF_EVENTS_AMD_POWER=y
CONFIG_PERF_EVENTS_AMD_UNCORE=y
CONFIG_PERF_EVENTS_AMD_BRS=y"
kmake() {
	make -s -C "$out/linux" O="$out/out" ARCH=x86_64 CC="ccache gcc" \
		HOSTCC="ccache gcc" -j"$jobs" "$@"
}

# build_objs: arch/x86/events/ and kernel/events/ of OUT/linux, with
# x86_64_defconfig and the perf options (olddefconfig at every prefix).
build_objs() {
	if [ ! -f "$out/out/.config" ]; then
		kmake x86_64_defconfig
		echo "$defconfig_perf" >> "$out/out/.config"
	fi
	kmake olddefconfig &&
		kmake arch/x86/events/ kernel/events/
}

# build_kselftest: the perf_events kselftests, on the UAPI headers of the
# prefix (installed from OUT/out).
build_kselftest() {
	[ -f "$out/out/.config" ] || build_objs
	kmake headers &&
		make -s -C "$out/linux/tools/testing/selftests" TARGETS=perf_events \
			O="$out/kselftest" \
			KHDR_INCLUDES="-isystem $out/out/usr/include" all
}

# kunit.py runs QEMU with -accel kvm first: where /dev/kvm opens but runs
# no guest (nested virtualization: no console output at all in minutes),
# it never falls back to TCG. Its QEMU, found in PATH, is this wrapper,
# which keeps only -accel tcg, as mk/boot.sh runs every boot.
qemu=$(command -v qemu-system-x86_64) || die "no qemu-system-x86_64 in PATH"
mkdir -p "$out/bin"
cat > "$out/bin/qemu-system-x86_64" << EOF
#!/bin/sh
# mk/prefixes.sh: kunit.py's QEMU command with -accel tcg only.
accel=
for a do
	shift
	if [ "\$a" = -accel ]; then
		accel=1
		continue
	fi
	if [ -n "\$accel" ]; then
		accel=
		[ "\$a" = tcg ] || continue
		set -- "\$@" -accel
	fi
	set -- "\$@" "\$a"
done
exec "$qemu" "\$@"
EOF
chmod +x "$out/bin/qemu-system-x86_64"

# run_kunit: upstream's kunit.py on the fragment of the prefix.
run_kunit() {
	PATH="$out/bin:$PATH" \
	python3 "$out/linux/tools/testing/kunit/kunit.py" run --arch=x86_64 \
		--kunitconfig=arch/x86/events --build_dir="$out/kunit" \
		--jobs="$jobs" --timeout="$timeout" \
		--make_options 'CC=ccache gcc' --make_options 'HOSTCC=ccache gcc'
}

# count WORD LINE: the number kunit.py's summary gives for WORD, or 0.
count() {
	echo "$2" | sed -n "s/.*[ ,]$1: \([0-9]*\).*/\1/p" | grep . || echo 0
}

ok=0 bad=0 tp=0 tf=0 ts=0 nkunit=0
k=0
for p in $patches; do
	k=$((k + 1))
	[ "$k" -ge "$from" ] || continue
	log=$out/log/$k.log
	line="prefix $k/$n $p"

	rm -rf "$out/repo"
	mkdir -p "$out/repo/series"
	cp series/*.patch "$out/repo/series/"
	echo "$patches" | head -n "$k" > "$out/repo/series/series"
	echo "$ovl" | while read -r q files; do
		grep -qxF "$q" "$out/repo/series/series" || continue
		for f in $files; do
			mkdir -p "$out/repo/$(dirname "$f")"
			cp "$f" "$out/repo/$f"
		done
	done
	if ! mk/stage.sh "$pristine" "$out/linux" "$out/repo" > "$log" 2>&1; then
		echo "$line: stage FAILED (log/$k.log)"
		bad=$((bad + 1))
		continue
	fi

	# The kselftests, where the patch changes them or the UAPI.
	kst=
	if sed -n 's|^+++ b/||p' "series/$p" |
	   grep -q -e '^tools/testing/selftests/' -e '^include/uapi/' ||
	   echo "$ovl" | awk -v p="$p" '$1 == p' |
	   grep -q '[[:space:]]tools/testing/selftests/'; then
		kst=1
	fi
	if [ -n "$kst" ] && ! build_kselftest >> "$log" 2>&1; then
		echo "$line: kselftest build FAILED (log/$k.log)"
		bad=$((bad + 1))
		continue
	fi

	if [ ! -f "$out/linux/arch/x86/events/.kunitconfig" ]; then
		if ! build_objs >> "$log" 2>&1; then
			echo "$line: build FAILED (log/$k.log)"
			bad=$((bad + 1))
			continue
		fi
		echo "$line: build ok, no KUnit suite"
		ok=$((ok + 1))
		continue
	fi

	nkunit=$((nkunit + 1))
	rc=0
	rm -f "$out/kunit/test.log"
	run_kunit >> "$log" 2>&1 || rc=$?
	rm -f "$out/log/$k.console.log"
	[ -f "$out/kunit/test.log" ] && cp "$out/kunit/test.log" "$out/log/$k.console.log"
	sum=$(grep 'Testing complete\. Ran' "$log" | tail -n 1 || true)
	if [ -z "$sum" ]; then
		if grep -q -e 'Starting KUnit Kernel' "$log"; then
			echo "$line: build ok, KUnit gave no result (exit $rc, log/$k.log)"
		else
			echo "$line: build FAILED (kunit.py exit $rc, log/$k.log)"
		fi
		bad=$((bad + 1))
		continue
	fi
	np=$(count passed "$sum")
	nf=$(($(count failed "$sum") + $(count crashed "$sum") + $(count errors "$sum")))
	ns=$(count skipped "$sum")
	tp=$((tp + np)) tf=$((tf + nf)) ts=$((ts + ns))
	# The kernel's reports on the console, which kunit.py does not judge.
	reports=$(mk/reports.sh "$out/log/$k.console.log" || true)
	echo "$line: build ok, KUnit $np passed, $nf failed, $ns skipped"
	[ -z "$reports" ] ||
		echo "$reports" | head -n 5 | sed "s|^|  kernel report (log/$k.console.log): |"
	if [ "$nf" != 0 ] || [ "$rc" != 0 ] || [ -n "$reports" ]; then
		[ "$nf" != 0 ] || [ -n "$reports" ] ||
			echo "  kunit.py exited $rc (log/$k.log)"
		bad=$((bad + 1))
	else
		ok=$((ok + 1))
	fi
done

total=$((n - from + 1))
echo "$total prefixes: $ok ok, $bad failed; $nkunit with KUnit:" \
	"$tp cases passed, $tf failed, $ts skipped"
[ "$bad" = 0 ]
