#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot the test kernel under QEMU (TCG) with the test initramfs.
# Console (kernel log, KUnit KTAP) goes to CONSOLE_LOG, the initramfs'
# test output (kselftest and perf TAP) to TESTS_LOG. QEMU ends when the
# guest reboots (-no-reboot) or panics (panic=-1), or after TIMEOUT.
# initramfs_async=0: the initramfs is unpacked before the KUnit suites
# run, so that its messages do not cut into their KTAP.
# Usage: mk/boot.sh BZIMAGE INITRAMFS CONSOLE_LOG TESTS_LOG [TIMEOUT]
set -eu
kernel=$1 initrd=$2 console=$3 tests=$4 limit=${5:-900}
rm -f "$console" "$tests"
bios=
[ -f /usr/share/qemu/qboot.rom ] && bios="-bios /usr/share/qemu/qboot.rom"
# shellcheck disable=SC2086
timeout --foreground -k 10 "$limit" qemu-system-x86_64 \
	-nodefaults -no-reboot -display none -monitor none $bios \
	-machine pc -accel tcg -cpu qemu64 -smp 2 -m 2G \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 oops=panic kunit_shutdown=none initramfs_async=0" \
	-serial "file:$console" -serial "file:$tests" || {
	rc=$?
	[ $rc = 124 ] && echo "boot: QEMU timed out after ${limit}s" >&2
	exit $rc
}
