#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make sigtrap-figures: why the stress cases of the kselftest
# sigtrap_threads slow down more than their share of a loaded host
# (issue 20). Two boots on the emulated Haswell (mk/boot-pmu.sh,
# TESTS=sigtrap: mk/sigtrap-tests.sh), the first on the host otherwise
# idle, the second beside HOGS busy loops of the host (default 2, one per
# core of CI's machine); then a table of the cases' seconds and of the
# guest's spinlock contention, as perf lock contention reports it.
# What it showed (2026-11-28): beside busy loops the cases slow down
# more than the host's share of CPU, and perf lock's top contended
# caller is arch_do_signal_or_restart() taking sighand->siglock, which
# the five threads share: a vCPU the host deschedules while it holds
# the lock leaves the other spinning for the rest of its time slice
# (lock-holder preemption; for signal_stress most of the extra time,
# for signal_stress_with_disable about a quarter, the rest not
# accounted for). No paravirtual spinlock helps a TCG guest (it needs
# KVM), nor did a PAUSE that yields QEMU's thread, nor sched_yield() or
# nice 19 in the test's threads. The test and its 30 s timeout are left
# as they are: a longer timeout moves the failure to a larger load, and
# the 15,000 signals on two CPUs are the test's point. So make check
# must have the machine's cores to itself.
# Usage: mk/sigtrap-figures.sh QEMU BZIMAGE INITRAMFS OUTDIR
set -eu
qemu=$1 kernel=$2 initrd=$3 out=$4
hogs=${HOGS:-2}
here=$(dirname "$0")
pids=
# A shell that a signal stops runs no EXIT trap, and the busy loops
# ignore the terminal's interrupt: leave through exit.
trap 'exit 130' INT TERM HUP
trap 'for p in $pids; do kill "$p"; done' EXIT
mkdir -p "$out"
for load in 0 "$hogs"; do
	i=0
	while [ $i -lt "$load" ]; do
		sh -c 'while :; do :; done' &
		pids="$pids $!"
		i=$((i + 1))
	done
	if ! TESTS=sigtrap "$here/boot-pmu.sh" "$qemu" "$kernel" "$initrd" \
		"$out/hogs-$load" on 1800 > "$out/hogs-$load.log" 2>&1; then
		echo "sigtrap-figures: the boot beside $load busy loops failed:" \
			"$out/hogs-$load.log" >&2
		exit 1
	fi
	for p in $pids; do
		kill "$p"
	done
	pids=
done
echo "busy loops, case: seconds of each run alone (! a failed run);"
echo "  under perf lock record: seconds, spinlock contentions, their wait"
echo "  and the longest (ms), the caller with the most wait"
for load in 0 "$hogs"; do
	# the serial port ends each line with a carriage return
	awk -v l="$load" '{ sub(/\r$/, "") }
	$1 == "sigtrap" && $3 == "run" {
		r[$2] = r[$2] " " $4 ($5 ? "!" : "")
	}
	$1 == "sigtrap" && $3 == "lock" {
		k[$2] = $4 ($5 ? "!" : "") " " $6 " " $7 " " $8 " " $9
	}
	END {
		for (c in r)
			printf "%d %s:%s; %s\n", l, c, r[c], k[c]
	}' "$out/hogs-$load/tests.log" | sort
done
