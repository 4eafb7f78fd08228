#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What QEMU with tools/testing/qemu-pmu/ refuses (its README, "Enabling
# it"): each case starts QEMU, its vCPUs stopped (-S), with options that
# it must refuse, and checks that it exits with an error and says why;
# and the options of the boots of make check, which it must accept (it
# runs until stopped). mk/qemu.sh runs it after each build.
# Usage: mk/qemu-refusals.sh QEMU
set -eu
qemu=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/qemu-refusals.XXXXXX")
trap 'rm -rf "$out"' EXIT
# The -cpu flags TCG lacks, off, as in mk/boot-pmu.sh.
hsw=Haswell-noTSX,-pcid,-x2apic,-tsc-deadline,-invpcid
skl=Skylake-Client,-pcid,-x2apic,-tsc-deadline,-invpcid,-hle,-rtm,-rdseed
skl=$skl,-3dnowprefetch,-xsavec
# PEBS, as in mk/boot-pmu.sh, and of record format 3.
pebs=ds=on,dtes64=on,pdcm=on,full-width-write=on
fmt3=$pebs,pebs-fmt=3
bad=0

# start OPTION...: QEMU with OPTIONS, its vCPUs stopped, for 2 s at
# most; its status (124: still running, stopped), its output in $out/log
start() {
	rc=0
	timeout 2 "$qemu" -nodefaults -display none -monitor none \
		-L /usr/share/qemu -bios /usr/share/qemu/qboot.rom -S "$@" \
		> "$out/log" 2>&1 || rc=$?
	return "$rc"
}

# refused MESSAGE OPTION...: QEMU refuses OPTIONS, saying MESSAGE
refused() {
	msg=$1
	shift
	rc=0
	start "$@" || rc=$?
	if [ "$rc" = 0 ] || [ "$rc" = 124 ] || ! grep -q -F "$msg" "$out/log"; then
		echo "qemu-refusals: not refused as \"$msg\" (exit $rc): $*"
		sed 's/^/qemu-refusals:   /' "$out/log"
		bad=1
	fi
}

# accepted OPTION...: QEMU starts with OPTIONS, and says nothing but that
# it was stopped
accepted() {
	rc=0
	start "$@" || rc=$?
	if [ "$rc" != 124 ] || grep -v -q 'terminating on signal 15' "$out/log"; then
		echo "qemu-refusals: not accepted (exit $rc): $*"
		sed 's/^/qemu-refusals:   /' "$out/log"
		bad=1
	fi
}

refused "tcg-pmu=on needs pmu=on" -accel tcg -cpu "$hsw,tcg-pmu=on"
refused "tcg-pmu=on needs TCG" -accel qtest -cpu "$hsw,pmu=on,tcg-pmu=on"
refused "it needs an Intel CPU model" -accel tcg -cpu EPYC,pmu=on,tcg-pmu=on
refused "x-pmu-ht-erratum needs the TCG PMU (tcg-pmu=on)" -accel tcg \
	-cpu "$hsw,pmu=on,x-pmu-ht-erratum=leak" -smp 2,cores=1,threads=2
refused "x-pmu-ht-erratum needs two threads per core" -accel tcg \
	-cpu "$hsw,pmu=on,tcg-pmu=on,x-pmu-ht-erratum=leak" -smp 2,cores=2
refused "x-pmu-ht-erratum: 'lose' is none of off, leak, loss" -accel tcg \
	-cpu "$hsw,pmu=on,tcg-pmu=on,x-pmu-ht-erratum=lose"
refused "x-pmu-pebs-baseline needs the TCG PMU's PEBS of format 4" \
	-accel tcg -cpu "$skl,pmu=on,tcg-pmu=on,$fmt3,x-pmu-pebs-baseline=on"
refused "pebs-fmt=4: the TCG PMU writes PEBS records of format 3" \
	-accel tcg -cpu "$skl,pmu=on,tcg-pmu=on,$pebs,pebs-fmt=4"
refused "pebs-fmt=2: the TCG PMU writes PEBS records of format 3" \
	-accel tcg -cpu "$hsw,pmu=on,tcg-pmu=on,$pebs,pebs-fmt=2"
refused "pebs-fmt needs ds, dtes64 and pdcm" -accel tcg \
	-cpu "$skl,pmu=on,tcg-pmu=on,$fmt3,dtes64=off"
refused "ds or dtes64 with tcg-pmu=on needs a PEBS format" -accel tcg \
	-cpu "$skl,pmu=on,tcg-pmu=on,ds=on,pdcm=on"
refused "x-pmu-pebs-baseline needs the TCG PMU (tcg-pmu=on)" -accel tcg \
	-cpu "$skl,pmu=on,x-pmu-pebs-baseline=on"
refused "pebs-fmt needs the TCG PMU (tcg-pmu=on)" -accel tcg \
	-cpu "$skl,pmu=on,pebs-fmt=3"
refused "x-pmu-pebs-write-disarm=off needs the TCG PMU's PEBS" -accel tcg \
	-cpu "$skl,pmu=on,tcg-pmu=on,x-pmu-pebs-write-disarm=off"
refused "x-pmu-pebs-reload-first needs the TCG PMU's PEBS" -accel tcg \
	-cpu "$skl,pmu=on,x-pmu-pebs-reload-first=on"
refused "x-pmu-skid needs the TCG PMU (tcg-pmu=on)" -accel tcg \
	-cpu "$hsw,pmu=on,x-pmu-skid=0"
refused "Record/replay is not supported with the TCG PMU (tcg-pmu=on)" \
	-accel tcg -icount shift=auto,rr=record,rrfile="$out/rr" \
	-cpu "$hsw,pmu=on,tcg-pmu=on"
accepted -accel tcg -cpu "$hsw,pmu=on,tcg-pmu=on,x-pmu-ht-erratum=loss" \
	-smp 2,sockets=1,cores=1,threads=2
x='x-pmu-pebs-baseline=on,x-pmu-pebs-write-disarm=off'
x=$x,x-pmu-pebs-reload-first=on,x-pmu-skid=0
accepted -accel tcg -cpu "$skl,pmu=on,tcg-pmu=on,$pebs,pebs-fmt=4,$x"
accepted -accel tcg -cpu "$skl,pmu=on,tcg-pmu=on,$fmt3"
accepted -accel tcg -cpu "$hsw,pmu=on"
[ "$bad" = 0 ] && echo "qemu-refusals: 17 refused, 4 accepted, as they should be"
exit "$bad"
