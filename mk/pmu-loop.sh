#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What the guest's test program (mk/pmu-loop.S) retires, for the guest's
# test scripts (mk/pmu-tests.sh, mk/pebs-tests.sh), which source it from
# the initramfs as /pmu-loop.sh. Its instructions, numbered from 1 at
# _start (3 * N + 4 in all):
#   1                _start+0x0   mov $N, %ecx
#   2 + 3i           _start+0x5   mov (%rsp), %rax    (i = 0 .. N - 1)
#   3 + 3i           _start+0x9   dec %ecx
#   4 + 3i           _start+0xb   jnz 1b
#   3N + 2, +3, +4   _start+0xd, +0x12, +0x14: mov, xor, syscall
N=1000000
INSNS=$((3 * N + 4))

# offset J: the place in _start of the J-th instruction the program retires
offset() {
	awk -v j="$1" -v n=$N 'BEGIN {
		if (j == 1) o = 0
		else if (j <= 3 * n + 1) o = substr("5 9 b", 1 + 2 * ((j - 2) % 3), 1)
		else if (j == 3 * n + 2) o = "d"
		else if (j == 3 * n + 3) o = "12"
		else o = "14"
		printf "_start+0x%s\n", o
	}'
}
