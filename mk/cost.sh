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
# other figures, and the least of many runs is what compares. So the
# figure that does not depend on the host comes last: each boot logs the
# TCG ops of the TBs it translates from /pmu-long's page (-d op_opt,
# -dfilter), and the first TB of the loop's body (_start+0x5,
# mk/pmu-loop.sh), translated as the loop runs alone, is compared with
# the PMU-off boot's: the same ops where no counter is enabled (QEMU's
# patch 0004), the per-instruction cost of the PMU none. Before that,
# each boot's number of ops of every TB of the loop's body, in the order
# translated, of its first round: the later ones are the same body under
# other TB flags (RF set where an interrupt or a fault returned into it,
# with the PMU off too; HF_PMU_* where counters count, whose events
# patch 0014 adds per TB).
# Usage: mk/cost.sh QEMU BZIMAGE INITRAMFS OUTDIR
set -eu
qemu=$1 kernel=$2 initrd=$3 out=$4
insns=300000004

modes="off plain on loss skylake"
rounds=${ROUNDS:-2}

rm -rf "$out"
mkdir -p "$out"
# /pmu-long's _start, from the initramfs: its page for -dfilter, and the
# loop's first instruction as a TB's first op shows it (an offset in the
# page: TCG's TBs are position-independent, CF_PCREL).
gunzip -c "$initrd" | (cd "$out" && cpio -i --quiet pmu-long)
start=$(nm "$out/pmu-long" | awk '$3 == "_start" { print "0x" $1 }')
rm -f "$out/pmu-long"
if [ -z "$start" ]; then
	echo "cost: no _start in the initramfs' pmu-long" >&2
	exit 1
fi
page=$((start & ~0xfff))
# The loop's body, mov (%rsp), %rax; dec %ecx; jnz (mk/pmu-loop.sh): a TB
# of these three, whatever else the page holds (busybox, static, may
# share it).
body=""
for o in 5 9 11; do
	body="$body $(printf '%016x' $(((start & 0xfff) + o)))"
done
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	for mode in $modes; do
		echo "cost: round $r, boot $mode"
		log=$out/$mode-$r
		args="${QEMU_ARGS:-} -d op_opt -D $log.ops"
		args="$args -dfilter $(printf '0x%x+0x1000' $page)"
		QEMU_ARGS=$args TESTS=cost mk/boot-pmu.sh "$qemu" "$kernel" \
			"$initrd" "$log" "$mode" > "$log.log" 2>&1 ||
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

# loop_tb OPS: the ops of the first TB of the loop's body (its three
# instructions and no other) in the log OPS, the host's addresses
# (exit_tb) and register preferences left out. The boots' first case runs
# the loop alone (mk/cost-tests.sh), so that translation has no counter
# enabled.
loop_tb() {
	awk -v body="$body" '
		function done() { return insns == body }
		/^OP after optimization/ {
			if (done())
				exit
			blk = ""
			insns = ""
			next
		}
		/^Restarting/ { next }
		/^ ---- / { insns = insns " " $2 }
		{ blk = blk $0 "\n" }
		END { if (done()) printf "%s", blk }' "$1" |
		sed -e 's/exit_tb [$]0x[0-9a-f]*/exit_tb/' -e 's/ *pref=[^ ]*//' \
		    -e 's/ *$//' -e '/^$/d'
}
# loop_ops OPS: the number of ops of each TB of the loop's body in the
# log OPS, in the order translated: the first the loop's alone, later ones
# the same body under other TB flags (RF after an interrupt or a fault,
# HF_PMU_* where counters count).
loop_ops() {
	awk -v body="$body" '
		function tb() { if (insns == body) printf " %d", ops }
		/^OP after optimization/ { tb(); insns = ""; ops = 0; next }
		/^ ---- / { insns = insns " " $2; next }
		/^ [a-z]/ { ops++ }
		END { tb(); print "" }' "$1"
}
r=1
for mode in $modes; do
	echo "$mode: the ops of the loop's TBs, in the order translated:" \
		"$(loop_ops "$out/$mode-$r.ops")"
done
loop_tb "$out/off-$r.ops" > "$out/loop-off"
ops=$(grep -c '^ [a-z]' "$out/loop-off" || true)
for mode in $modes; do
	[ "$mode" = off ] && continue
	loop_tb "$out/$mode-$r.ops" > "$out/loop-$mode"
	what="$mode: the loop's TB with no counter enabled"
	if [ "$ops" -gt 0 ] && cmp -s "$out/loop-off" "$out/loop-$mode"; then
		echo "$what: the $ops ops of the PMU-off boot's"
	else
		echo "$what differs from the PMU-off boot's" \
			"($out/loop-off, $out/loop-$mode)"
		bad=1
	fi
done
exit "${bad:-0}"
