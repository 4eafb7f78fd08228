#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test initramfs. The kernel has already run the built-in
# KUnit suites (KTAP on the console, ttyS0). This runs the kselftests and
# the perf smoke tests, writes their TAP to the second serial port (ttyS1)
# and reboots, which ends QEMU (-no-reboot).
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
ln -s /proc/self/fd /dev/fd
ln -s fd/0 /dev/stdin
ln -s fd/1 /dev/stdout
ln -s fd/2 /dev/stderr

out=/dev/ttyS1

# The boot on the emulated Haswell (mk/boot-pmu.sh) adds pmu_tests=MODE,
# QEMU's model of the HT erratum: with leak, every test runs, then
# mk/pmu-tests.sh, then 30 s of mk/fuzz-tests.sh (seed 1, no trinity);
# with loss (a second, short boot), mk/pmu-tests.sh, the erratum tests
# of that model first. The boot on the emulated Skylake adds
# pmu_tests=pebs: only the PEBS tests, the kselftest large_pebs (first,
# at the boot's sysctls) and mk/pebs-tests.sh; its boot with tsc=unstable
# pmu_tests=pebs-unstable: large_pebs and the first 8 of
# mk/pebs-tests.sh; the migration boot's pmu_tests=migrate: only
# mk/migrate-tests.sh. mk/cost.sh's
# boots add pmu_tests=cost: only mk/cost-tests.sh; mk/pebs-figures.sh's
# add pmu_tests=figures: only mk/pebs-figures-tests.sh; mk/sigtrap-figures.sh's
# pmu_tests=sigtrap: only mk/sigtrap-tests.sh. make soak's boot
# adds pmu_tests=soak, fuzz_secs=N and fuzz_seed=S: only that, for N
# seconds from seed S, with trinity beside it; pmu_tests=fuzz, the same
# without trinity: make check's fuzz phase alone, for make fuzz-loop.
pmu= fuzz_secs=600 fuzz_seed=1
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	pmu_tests=*) pmu=${arg#pmu_tests=} ;;
	fuzz_secs=*) fuzz_secs=${arg#fuzz_secs=} ;;
	fuzz_seed=*) fuzz_seed=${arg#fuzz_seed=} ;;
	esac
done

# TAP for one perf command: perf_check N DESCRIPTION COMMAND...
perf_check() {
	n=$1 desc=$2
	shift 2
	if "$@" > /tmp/perf.out 2>&1; then
		echo "ok $n $desc"
	else
		echo "not ok $n $desc (exit $?)"
	fi
	sed 's/^/# /' /tmp/perf.out
}

# The kselftests and the perf smoke tests.
run_all() {
	echo "== kselftest"
	cd /kselftest && ./run_kselftest.sh
	echo "== perf"
	cd /tmp
	echo "TAP version 13"
	echo "1..4"
	perf_check 1 "perf stat -e task-clock,cycles -- true" \
		perf stat -e task-clock,cycles -- true
	# cycles is '<not supported>' without a hardware PMU; either way it
	# must be listed, and task-clock must have counted.
	if grep -q 'cycles' /tmp/perf.out && grep -q 'task-clock' /tmp/perf.out; then
		echo "ok 2 perf stat lists task-clock and cycles"
	else
		echo "not ok 2 perf stat lists task-clock and cycles"
	fi
	perf_check 3 "perf record -e cpu-clock -- true" \
		perf record -e cpu-clock -o /tmp/perf.data -- true
	perf_check 4 "perf report --stdio" \
		perf report -i /tmp/perf.data --stdio
}

{
	case "$pmu" in
	loss|pebs|pebs-unstable|cost|figures|sigtrap|migrate|soak|fuzz) ;;
	*) run_all ;;
	esac
	if [ "$pmu" = pebs ] || [ "$pmu" = pebs-unstable ]; then
		echo "== kselftest"
		(cd /kselftest && ./run_kselftest.sh -t perf_events:large_pebs)
	fi
	if [ "$pmu" = pebs ]; then
		echo "== pebs"
		/pebs-tests.sh
	elif [ "$pmu" = pebs-unstable ]; then
		echo "== pebs"
		PEBS_LAST=8 /pebs-tests.sh
	elif [ "$pmu" = cost ]; then
		echo "== cost"
		/cost-tests.sh
	elif [ "$pmu" = figures ]; then
		echo "== figures"
		/pebs-figures-tests.sh
	elif [ "$pmu" = sigtrap ]; then
		echo "== sigtrap"
		/sigtrap-tests.sh
	elif [ "$pmu" = migrate ]; then
		echo "== migrate"
		/migrate-tests.sh
	elif [ "$pmu" = soak ]; then
		echo "== fuzz"
		FUZZ_SECS=$fuzz_secs FUZZ_SEED=$fuzz_seed TRINITY=1 \
			/fuzz-tests.sh
	elif [ "$pmu" = fuzz ]; then
		echo "== fuzz"
		FUZZ_SECS=$fuzz_secs FUZZ_SEED=$fuzz_seed /fuzz-tests.sh
	elif [ -n "$pmu" ]; then
		echo "== pmu"
		ERRATUM=$pmu /pmu-tests.sh
		# make check's short run of the kernel under fuzz (make soak
		# runs it for longer, with trinity)
		if [ "$pmu" = leak ]; then
			echo "== fuzz"
			FUZZ_SECS=30 FUZZ_SEED=$fuzz_seed /fuzz-tests.sh
		fi
	fi
	echo "== end"
} > $out 2>&1

sync
reboot -f
