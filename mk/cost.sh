#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The cost of the emulated PMU: the same kernel and initramfs booted on
# QEMU with the PMU off, on without the erratum model (plain), with its
# leak and loss models (on, loss) and as a Skylake with PEBS, one boot
# after the other, ROUNDS times (default 2), each boot running
# mk/cost-tests.sh (TESTS=cost mk/boot-pmu.sh; 5 runs per case). Prints
# per boot and case the number of runs, the least and the largest
# task-clock of its runs (ms), the loop's instructions per second at the
# least (millions) and its ratio to the least of the PMU-off boot's loop
# alone.
# The guest's time is the host's: a machine busy with other work gives
# other figures, and the least of many runs is what compares.
# Usage: mk/cost.sh QEMU BZIMAGE INITRAMFS OUTDIR
set -eu
qemu=$1 kernel=$2 initrd=$3 out=$4
insns=300000004

modes="off plain on loss skylake"
rounds=${ROUNDS:-2}

rm -rf "$out"
mkdir -p "$out"
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	for mode in $modes; do
		echo "cost: round $r, boot $mode"
		log=$out/$mode-$r
		TESTS=cost mk/boot-pmu.sh "$qemu" "$kernel" "$initrd" "$log" \
			"$mode" > "$log.log" 2>&1 ||
			{ cat "$log.log"; echo "cost: the $mode boot failed" >&2; exit 1; }
		if grep -a -q '^cost .* failed' "$log/tests.log"; then
			cat "$log/tests.log"
			echo "cost: a run of the $mode boot failed" >&2
			exit 1
		fi
		grep -a '^cost ' "$log/tests.log" | sed "s/^cost /$mode /" >> "$out/runs"
	done
done

echo "boot     case     runs    least  largest  Minsn/s  ratio"
awk -v insns=$insns '
	{ k = $1 " " $2; v = $3 + 0
	  if (!(k in min) || v < min[k]) min[k] = v
	  if (!(k in max) || v > max[k]) max[k] = v
	  if (!(k in seen)) order[n++] = k
	  seen[k]++ }
	END {
		base = min["off alone"]
		for (i = 0; i < n; i++) {
			k = order[i]
			split(k, f, " ")
			printf "%-8s %-8s %4d %8.1f %8.1f %8.1f %6.2f\n", f[1], f[2],
				seen[k], min[k], max[k], insns / min[k] / 1000,
				min[k] / base
		}
	}' "$out/runs"
