#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make readings: the guest tests under the readings of what the SDM leaves
# open (QEMU's README, tools/testing/qemu-pmu/) that make check does not
# boot, two boots side by side (mk/pin.sh), each a mk/boot-pmu.sh with
# the reading in its environment: the emulated Skylake's PEBS tests with
# a write that keeps the arm (PEBS_WRITE_DISARM=off), with the record's
# event counted after the reload (PEBS_RELOAD_FIRST=on, all 18 tests),
# and with no skid (PMU_SKID=0); the Skylake's migration boot under the
# first two (mk/migrate-tests.sh judges its records' moves by the
# reading); the emulated Haswell's tests of the erratum's leak model with
# no skid and of its loss model with the default skid (TESTS: no KUnit).
# Then four crossed boots, whose tests are told the other reading than
# QEMU's (CLAIM, or the erratum's tests of the other model): each test
# that tells two readings apart must fail there. Then each boot's TAP
# lines that failed. Exit 1 if a boot of the first seven failed, or a
# crossed one passed.
# Usage: mk/readings.sh QEMU BZIMAGE INITRAMFS OUTDIR
set -u
qemu=$1 kernel=$2 initrd=$3 out=$4
mkdir -p "$out"
dir=$(dirname "$0")

# boot NAME PIN MODE LIMIT VAR=VALUE...: one boot into OUTDIR/NAME, on
# the PINth host CPU, or on all of them for a PIN of 0 (mk/pin.sh)
boot() {
	name=$1 pin=$2 mode=$3 limit=$4
	shift 4
	env "$@" "$dir/timed.sh" -o "$out/$name.log" "boot $name ($*)" \
		"$dir/pin.sh" "$pin" "$dir/boot-pmu.sh" "$qemu" "$kernel" \
		"$initrd" "$out/$name" "$mode" "$limit"
}

boot skylake-keep 1 skylake 1200 PEBS_WRITE_DISARM=off & a=$!
boot skylake-first 2 skylake 1200 PEBS_RELOAD_FIRST=on
wait $a
boot skylake-skid0 1 skylake 1200 PMU_SKID=0 & a=$!
boot migrate-keep 2 skylake-migrate 600 PEBS_WRITE_DISARM=off
wait $a
boot migrate-first 0 skylake-migrate 600 PEBS_RELOAD_FIRST=on
# Alone and on all host CPUs: its upstream kselftests give each case
# 30 s, which sigtrap_threads.signal_stress outran beside a second guest,
# and alone with its two vCPUs on one host CPU (2026-12-05): a vCPU
# waiting for the other's lock (mk/sigtrap-figures.sh).
boot on-skid0 0 on 600 PMU_SKID=0 TESTS=leak
boot loss-skid1 1 loss 600 PMU_SKID=1 & a=$!
boot cross-first 2 skylake-unstable 600 PEBS_RELOAD_FIRST=on \
	CLAIM=pebs_reload_first=off
wait $a
boot cross-keep 1 skylake 1200 CLAIM=pebs_write_disarm=off & a=$!
boot cross-skid 2 loss 600 PMU_SKID=1 CLAIM=pmu_skid=0
wait $a
boot cross-loss 0 loss 600 TESTS=leak

rc=0
for name in skylake-keep skylake-first skylake-skid0 migrate-keep \
	migrate-first on-skid0 loss-skid1 cross-first cross-keep cross-skid \
	cross-loss; do
	tests=$out/$name/tests.log
	nok=$(grep -a -c -e '^not ok' -e '^# not ok' "$tests" 2> /dev/null)
	ok=$(grep -a -c -e '^ok' -e '^# ok' "$tests" 2> /dev/null)
	echo "== $name: ${ok:-0} ok, ${nok:-0} not ok ($out/$name.log)"
	grep -a -e '^not ok' -e '^# not ok' "$tests" 2> /dev/null
	case "$name" in
	cross-*) [ "${nok:-0}" != 0 ] || rc=1 ;;
	*) grep -a -q '^== end' "$tests" 2> /dev/null && [ "${nok:-0}" = 0 ] || rc=1 ;;
	esac
done
exit $rc
