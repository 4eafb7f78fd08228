#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make fuzz-loop: make check's fuzz phase (mk/fuzz-tests.sh: perf_fuzz for
# 30 s, CPU 1 off and on line, the switch toggled, no trinity) alone, in
# RUNS boots of the emulated Haswell (mk/boot-pmu.sh, TESTS=fuzz), seeds
# SEEDS in turn (default 1 2 3), the first HOGS_FROM boots (default all)
# on the host as it is and the rest beside HOGS busy loops (default 2,
# one per core of CI's machine). A boot not done in LIMIT seconds
# (default 300) is a hang: mk/hang.py's samples, stack scans and RIP
# histogram are in its hang.txt. MODE=soak: make soak's boot instead
# (trinity beside perf_fuzz), FUZZ_SECS seconds (default 30) either way.
# One line a boot, then the count.
# Usage: mk/fuzz-loop.sh QEMU BZIMAGE INITRAMFS OUTDIR
set -eu
qemu=$1 kernel=$2 initrd=$3 out=$4
runs=${RUNS:-10} seeds=${SEEDS:-1 2 3} limit=${LIMIT:-300} secs=${FUZZ_SECS:-30}
mode=${MODE:-fuzz}
hogs=${HOGS:-2} plain=${HOGS_FROM:-$runs}
here=$(dirname "$0")
pids='' nhogs=0
stop_hogs() {
	for pid in $pids; do
		kill "$pid"
	done
}
# A shell that a signal stops runs no EXIT trap: leave through exit.
trap 'exit 130' INT TERM HUP
trap stop_hogs EXIT
mkdir -p "$out"
# shellcheck disable=SC2086 # a list of seeds
set -- $seeds
i=0 pass=0 fail=0
while [ $i -lt "$runs" ]; do
	seed=$1
	shift
	set -- "$@" "$seed"
	load=0
	if [ $i -ge "$plain" ]; then
		load=$hogs
		while [ $nhogs -lt "$hogs" ]; do
			sh -c 'while :; do :; done' &
			pids="$pids $!" nhogs=$((nhogs + 1))
		done
	fi
	dir=$out/run-$i
	start=$(date +%s)
	if TESTS=$mode SOAK_SECS=$secs SOAK_SEED=$seed "$here/boot-pmu.sh" \
		"$qemu" "$kernel" "$initrd" "$dir" on "$limit" \
		> "$dir.log" 2>&1; then
		res=ok pass=$((pass + 1))
	else
		res=FAIL fail=$((fail + 1))
		grep -q 'QEMU timed out' "$dir.log" && res=HANG
	fi
	echo "fuzz-loop: run $i, seed $seed, $load busy loops:" \
		"$res in $(($(date +%s) - start)) s ($dir.log)"
	i=$((i + 1))
done
echo "fuzz-loop: $pass of $runs boots passed, $fail failed"
[ "$fail" = 0 ]
