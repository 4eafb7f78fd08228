#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot the test kernel on an emulated Haswell with the QEMU built by
# mk/qemu.sh: two hyper-threads of one core, the TCG PMU and its model of
# the HT erratum on (or both off, to show the stock behaviour). on: the
# erratum's leak model (x-pmu-ht-erratum=leak), every test; loss: its loss
# model, only the erratum tests of mk/pmu-tests.sh, KUnit off (a second,
# short boot); skylake: an emulated Skylake instead (the TCG PMU with PEBS
# of record format 3, no erratum), only the PEBS tests of
# mk/pebs-tests.sh, KUnit off (a third, short boot); skylake-adaptive:
# the same with adaptive PEBS, record format 4 (pebs-fmt=4,
# x-pmu-pebs-baseline=on; a fourth, short boot);
# skylake-unstable: the Skylake of record format 3 with tsc=unstable, PEBS
# tests 1-8 only (a fifth, short boot: the records' TSC not converted to
# perf's clock); migrate: as on, only mk/migrate-tests.sh, KUnit off (a
# sixth, short boot), and when the guest says "# migrate: ready" QEMU
# saves it to OUTDIR/vmstate (mk/migrate.py) and a second QEMU runs it on
# from there (-incoming), its console and TAP appended to the first's, and
# a TAP line of its own: the loops began before the save and ended after
# the load; skylake-migrate: the same on the Skylake of record format 3
# (a seventh, short boot); plain: the TCG PMU
# without the erratum model, the tests of a boot without pmu_tests. With
# TESTS=MODE in the environment, only the tests that mk/init.sh runs for
# pmu_tests=MODE, KUnit off (TESTS=cost: mk/cost.sh; TESTS=soak with
# SOAK_SECS=N and SOAK_SEED=S: make soak, the kernel under fuzz for N
# seconds, from seed S; TESTS=figures: mk/pebs-figures.sh; TESTS=sigtrap:
# mk/sigtrap-figures.sh). QEMU_ARGS in the environment: more options for
# QEMU (QEMU_ARGS='-icount shift=auto': the tests under icount). Console to
# OUTDIR/console.log, the initramfs' TAP (second serial port) to
# OUTDIR/tests.log; then the PMU lines of the boot log,
# the TAP results and a scan of the console for kernel reports. Exit 1 if
# the guest did not finish its tests, a test failed or the console holds
# a report.
# Usage: mk/boot-pmu.sh QEMU BZIMAGE INITRAMFS OUTDIR
#        on|loss|skylake|skylake-adaptive|skylake-unstable|migrate|
#        skylake-migrate|plain|off
#        [TIMEOUT]
set -eu
qemu=$1 kernel=$2 initrd=$3 out=$4 mode=$5 limit=${6:-600}
# No log of an earlier boot stays to be judged, whatever stops this one.
rm -f "$out/console.log" "$out/tests.log"

for f in "$qemu" "$kernel" "$initrd"; do
	[ -f "$f" ] || { echo "boot-pmu: $f is missing" >&2; exit 1; }
done
# The -cpu flags TCG lacks are turned off, so that it does not warn, and
# x2apic, which QEMU 10's TCG has: the PMI is not tested in x2APIC mode.
model=Haswell-noTSX flags=-pcid,-x2apic,-tsc-deadline,-invpcid
suite= pebs=
case "$mode" in
on) pmu=on erratum=leak suite=leak ;;
loss) pmu=on erratum=loss suite=loss ;;
skylake|skylake-adaptive|skylake-unstable|skylake-migrate)
	pmu=on erratum='' suite=pebs model=Skylake-Client
	flags=$flags,-hle,-rtm,-rdseed,-3dnowprefetch,-xsavec
	# A Skylake's PEBS: DS, DTES64 and PDCM, and IA32_PERF_CAPABILITIES
	# with record format 3 and full-width counter writes (QEMU's README,
	# "Enabling it").
	pebs=,ds=on,dtes64=on,pdcm=on,full-width-write=on,pebs-fmt=3
	case "$mode" in
	skylake-adaptive)
		pebs=${pebs%,pebs-fmt=3},pebs-fmt=4,x-pmu-pebs-baseline=on ;;
	skylake-unstable) suite=pebs-unstable ;;
	skylake-migrate) suite=migrate ;;
	esac
	;;
migrate) pmu=on erratum=leak suite=migrate ;;
plain) pmu=on erratum= ;;
off) pmu=off erratum= ;;
*)
	echo "boot-pmu: PMU must be on, loss, skylake, skylake-adaptive," \
		"skylake-unstable, migrate, skylake-migrate, plain or off," \
		"not $mode" >&2
	exit 1
	;;
esac
suite=${TESTS:-$suite}
mkdir -p "$out"
console=$out/console.log
tests=$out/tests.log
rm -f "$console" "$tests"

# initramfs_async=0: the initramfs is unpacked before the KUnit suites
# run, so that its messages do not cut into their KTAP.
append="console=ttyS0 panic=-1 oops=panic kunit_shutdown=none initramfs_async=0"
append="$append nmi_watchdog=0 mitigations=off"
# An RCU stall report, should there be one, says where the stalled CPU's
# time went (hard and soft interrupts, tasks): issue 20's stalls.
append="$append rcupdate.rcu_cpu_stall_cputime=1"
# nokaslr: a boot that does not finish in time is shown by where its
# vCPUs are (mk/hang.py), as symbols of the kernel's System.map.
append="$append nokaslr"
# pmu_tests=MODE: the initramfs runs mk/pmu-tests.sh (leak, loss) or
# mk/pebs-tests.sh (pebs) too (mk/init.sh).
[ -n "$suite" ] && append="$append pmu_tests=$suite"
# The PEBS tests want a record's TSC converted to perf's clock: the TSC
# stable and the clocksource. TCG's TSC is the host's, but a guest whose
# vCPUs a loaded host delays can calibrate it a few parts in a thousand
# off against the HPET, and its clocksource watchdog then marks the TSC
# unstable (seen in boots beside two busy loops on the host's two cores):
# tsc=reliable, which the kernel's parameters document for virtualized
# environments, turns that watchdog off. skylake-unstable gives the other
# case on purpose: the TSC that Linux found unstable, sched_clock()
# unstable, a PEBS record's TSC not converted.
case "$mode" in
skylake|skylake-adaptive|skylake-migrate) append="$append tsc=reliable" ;;
skylake-unstable) append="$append tsc=unstable" ;;
esac
# PEBS_CPU_TIME=default: mk/pebs-tests.sh leaves perf_cpu_time_max_percent
# at its default.
[ -n "${PEBS_CPU_TIME:-}" ] && append="$append pebs_cpu_time=$PEBS_CPU_TIME"
[ -n "${SOAK_SECS:-}" ] && append="$append fuzz_secs=$SOAK_SECS"
[ -n "${SOAK_SEED:-}" ] && append="$append fuzz_seed=$SOAK_SEED"
# The loss and skylake boots, and those with TESTS=, run their own tests
# only: the KUnit suites ran in the first.
case "$mode" in
loss|skylake*|migrate) append="$append kunit.enable=0" ;;
*) [ -z "${TESTS:-}" ] || append="$append kunit.enable=0" ;;
esac
# The emulated PMU is opt-in (tcg-pmu=on, with pmu=on); QEMU rejects
# x-pmu-ht-erratum without it.
cpu=$model,pmu=$pmu,tcg-pmu=$pmu$pebs
[ -n "$erratum" ] && cpu=$cpu,x-pmu-ht-erratum=$erratum
# The readings of what the SDM leaves open (QEMU's README, "What the SDM
# leaves open"), given to QEMU and, for the tests, on the command line:
# PMU_SKID, the PMI's skid in instructions (x-pmu-skid, default 1);
# PEBS_WRITE_DISARM, whether a write of an armed PEBS counter ends the arm
# (x-pmu-pebs-write-disarm, on or off, default on); PEBS_RELOAD_FIRST,
# whether the event of a PEBS record counts in the reloaded counter
# (x-pmu-pebs-reload-first, off or on, default off). The erratum's is
# the mode: on (leak) or loss. The two PEBS readings go to the CPU with
# PEBS only: QEMU refuses the other reading of each without PEBS.
if [ "$pmu" = on ]; then
	skid=${PMU_SKID:-1}
	cpu=$cpu,x-pmu-skid=$skid
	append="$append pmu_skid=$skid"
fi
if [ -n "$pebs" ]; then
	disarm=${PEBS_WRITE_DISARM:-on} first=${PEBS_RELOAD_FIRST:-off}
	cpu=$cpu,x-pmu-pebs-write-disarm=$disarm
	cpu=$cpu,x-pmu-pebs-reload-first=$first
	append="$append pebs_write_disarm=$disarm pebs_reload_first=$first"
fi
# CLAIM: readings told to the tests over QEMU's, as on the command line
# (the last of each counts; make readings: a test that tells two readings
# apart fails under the other).
[ -n "${CLAIM:-}" ] && append="$append $CLAIM"
echo "boot-pmu: QEMU (TCG, ${model%%-*}, 1 core, 2 threads, $cpu)"
sysmap=$(dirname "$kernel")/../../../System.map

# run CONSOLE TESTS HANG [OPTION...]: QEMU with its console to CONSOLE
# and the TAP to TESTS, and more options; rc its status. A guest still
# running after TIMEOUT: mk/hang.py samples, into HANG, where its vCPUs
# are through QEMU's monitor (a socket of the directory $mon, made anew for each QEMU: a UNIX
# socket's path is short), then QEMU is stopped, 60 s later, and killed
# 10 s after that if it has not exited: one whose vCPUs deadlock does not
# exit on SIGTERM, its shutdown waits for them, and spins on (seen on
# 2026-12-06). -L: a QEMU
# built from Debian's dfsg source has no firmware of its own. The NMI
# watchdog would hold a fixed counter, and mitigations would turn PTI on
# for an Intel model.
run() {
	con=$1 tap=$2 hangout=$3
	shift 3
	start=$(date +%s)
	rc=0
	python3 "$(dirname "$0")/hang.py" "$limit" "$mon/sock" "$sysmap" \
		> "$hangout" 2>&1 &
	hang=$!
	# shellcheck disable=SC2086 # QEMU_ARGS: options, split at spaces
	timeout --foreground -k 10 $((limit + 60)) "$qemu" \
		-nodefaults -no-reboot -display none \
		-monitor "unix:$mon/sock,server=on,wait=off" \
		-L /usr/share/qemu -bios /usr/share/qemu/qboot.rom \
		-machine pc -accel tcg \
		-cpu "$cpu,$flags" \
		-smp 2,sockets=1,cores=1,threads=2 -m 2G \
		-kernel "$kernel" -initrd "$initrd" \
		-append "$append" \
		-serial "file:$con" -serial "file:$tap" "$@" ${QEMU_ARGS:-} ||
		rc=$?
	echo "boot-pmu: QEMU exited $rc after $(($(date +%s) - start)) s"
	kill "$hang" 2> /dev/null || true
	wait "$hang" 2> /dev/null || true
	if [ "$rc" = 124 ]; then
		echo "boot-pmu: QEMU timed out: not done after ${limit}s, stopped 60 s later"
		cat "$hangout"
	fi
}

mon=$(mktemp -d "${TMPDIR:-/tmp}/boot-pmu.XXXXXX")
case "$mode" in
*migrate)
	# The first QEMU, and mk/migrate.py beside it: it saves the guest
	# once the guest is ready, and quits that QEMU (its status is
	# judged by the second's run and the TAP).
	state=$out/vmstate
	rm -f "$state" "$out/console2.log" "$out/tests2.log"
	run "$console" "$tests" "$out/hang.txt" & q=$!
	python3 "$(dirname "$0")/migrate.py" "$limit" "$mon/sock" "$tests" \
		"$state" || true
	wait $q || true
	rm -rf "$mon"
	mon=$(mktemp -d "${TMPDIR:-/tmp}/boot-pmu.XXXXXX")
	# The second runs the guest on from the file, if there is one.
	rc=1
	if [ -s "$state" ]; then
		run "$out/console2.log" "$out/tests2.log" "$out/hang2.txt" \
			-incoming "file:$state"
	fi
	rm -rf "$mon" "$state"
	# Did the loops run across the migration? The first QEMU's TAP
	# holds the ready (both loops run) and not the done, the second's
	# the done.
	result="not ok"
	if grep -a -q '^# migrate: ready' "$tests" &&
		! grep -a -q '^# migrate: done' "$tests" &&
		grep -a -q '^# migrate: done' "$out/tests2.log" 2> /dev/null; then
		result=ok
	fi
	cat "$out/console2.log" >> "$console" 2> /dev/null || true
	cat "$out/tests2.log" >> "$tests" 2> /dev/null || true
	{
		echo "== migration"
		echo "$result 1 the loops ran across the migration:" \
			"the first QEMU saw them run, the second end"
	} >> "$tests"
	;;
*)
	run "$console" "$tests" "$out/hang.txt"
	rm -rf "$mon"
	;;
esac

bad=0
echo "== boot log: the PMU"
sed 's/^\[ *[0-9]*\.[0-9]*\] //' "$console" |
	grep -a -E -e 'Performance Events|PMU erratum .*(worked around|HT is)' \
		-e 'no PMU driver|PMU not available' \
		-e '^\.\.\. (version|bit width|generic registers|fixed-purpose)' ||
	true

echo "== TAP of the second serial port"
if [ ! -s "$tests" ]; then
	echo "(empty)"
	bad=1
else
	# Each test program's result, then its cases that failed or skipped.
	grep -a -E '^(not )?ok |^# (not ok|ok .* # SKIP)' "$tests" || true
	grep -a -q '^== end' "$tests" ||
		{ echo "boot-pmu: the initramfs did not finish"; bad=1; }
	grep -a -q -e '^not ok' -e '^# not ok' "$tests" && bad=1
	ok=$(grep -a -c -e '^ok ' -e '^# ok ' "$tests" || true)
	skip=$(grep -a -c -e '^ok .* # SKIP' -e '^# ok .* # SKIP' "$tests" || true)
	nok=$(grep -a -c -e '^not ok ' -e '^# not ok ' "$tests" || true)
	echo "TAP lines (programs and their cases): $((ok - skip)) ok, $skip skip, $nok not ok"
	# A script that stops early (a shell error) prints no not ok: each
	# section (== NAME) with a plan has as many top-level results.
	tr -d '\r' < "$tests" | awk '
		function end() {
			if (plan != "" && n != plan) {
				printf "boot-pmu: %s: %d results for its plan of %d\n",
					sec, n, plan
				bad = 1
			}
			plan = ""; n = 0
		}
		/^== / { end(); sec = substr($0, 4); next }
		/^1\.\.[0-9]+$/ { plan += substr($0, 4) }
		/^(not )?ok [0-9]+ / { n++ }
		END { end(); exit bad }' || bad=1
fi

# The console scan of mk/evaluate.py (mk/reports.sh).
echo "== console scan"
reports=$("$(dirname "$0")/reports.sh" "$console" || true)
if [ -n "$reports" ]; then
	echo "$reports" | head -n 20
	bad=1
else
	echo "no kernel report (WARNING, BUG, lockdep, KASAN, UBSAN, Oops)"
fi
echo "boot-pmu: logs in $console and $tests"
[ "$rc" = 0 ] && [ "$bad" = 0 ]
