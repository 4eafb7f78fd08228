#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest's side of the migration boots (mk/boot-pmu.sh migrate, the
# emulated Haswell with the erratum's leak model, and skylake-migrate,
# the emulated Skylake with PEBS): the state of the emulated PMU migrates
# (QEMU's patch 0010). It starts /pmu-mig (mk/pmu-loop.S, 10^9
# iterations: about ten seconds of the host's time counted) twice, on
# CPU 0 under perf stat (with an event that counts edges, E), on CPU 1
# under perf record (instructions:u on the Haswell, whose samples come
# with the PMI; instructions:upp on the Skylake, PEBS records, a buffer
# of them written by the emulated CPU in the guest's memory between two
# PMIs), and says "# migrate: ready" once both run; meanwhile the host
# migrates the guest to a file and a second QEMU runs it on from there,
# and mk/boot-pmu.sh checks that the first QEMU saw the ready and not
# the end of the loops, and the second their end. The counts and the
# samples must be exact as in mk/pmu-tests.sh and mk/pebs-tests.sh,
# across the migration: a count that a counter had not taken yet at the
# save, the state of the edges, or an overflow due then, lost or taken
# twice, shows. (Not the erratum's transfers: with the workaround on,
# the sibling's counter of the corrupting event's index counts nothing.
# Nor an armed PEBS assist or a PMI in its skid: each lasts an
# instruction or two of every 10^7, though on the emulator more of the
# host's time, QEMU's README says.) TAP on standard output.

# N, INSNS, offset (mk/pmu-loop.sh) for /pmu-mig's 10^9 iterations
. /pmu-loop.sh
N=1000000000
INSNS=$((3 * N + 4))
PERIOD=10000000
SKID=$(tr ' ' '\n' < /proc/cmdline |
	sed -n 's/^pmu_skid=\([0-9]*\)$/\1/p' | tail -n 1)
SKID=${SKID:-0}
FIRST=$(tr ' ' '\n' < /proc/cmdline |
	sed -n 's/^pebs_reload_first=\(on\|off\)$/\1/p' | tail -n 1)
FIRST=${FIRST:-off}
DISARM=$(tr ' ' '\n' < /proc/cmdline |
	sed -n 's/^pebs_write_disarm=\(on\|off\)$/\1/p' | tail -n 1)
DISARM=${DISARM:-on}
# The event sampled, and the instruction of the k-th sample (at K) and
# how many there are: with the PMI, k * PERIOD + 1 + SKID (mk/pmu-tests.sh,
# test 2); PEBS, the record's own instruction, k * (PERIOD + 1) or, if
# the record's event counts in the reloaded counter, k * PERIOD + 1
# (mk/pebs-tests.sh, tests 1 and 4).
REGS=
if [ "$(cat /sys/devices/cpu/caps/pmu_name)" = skylake ]; then
	EVENT=instructions:upp
	# Each record's ECX: the instruction it stands for (judge_pebs()).
	REGS=--intr-regs=cx
	if [ "$FIRST" = on ]; then
		at() { echo $(($1 * PERIOD + 1)); }
		SAMPLES=$(((INSNS - 1) / PERIOD))
	else
		at() { echo $(($1 * (PERIOD + 1))); }
		SAMPLES=$((INSNS / (PERIOD + 1)))
	fi
else
	EVENT=instructions:u
	at() { echo $(($1 * PERIOD + 1 + SKID)); }
	SAMPLES=0
	while [ $(($(at $((SAMPLES + 1))) <= INSNS)) = 1 ]; do
		SAMPLES=$((SAMPLES + 1))
	done
fi

# tap STATUS DESCRIPTION (mk/tap.sh)
. /tap.sh
echo "TAP version 13"
echo "1..2"

# exact EVENT FILE EXPECTED: perf stat -x';' wrote EXPECTED for EVENT,
# counted all the time (an event's terms hold commas)
exact() {
	v=$(awk -F';' -v e="$1" '$3 == e { print $1 }' "$2")
	run=$(awk -F';' -v e="$1" '$3 == e { print $5 }' "$2")
	echo "# $1: $v (expected $3), running $run%"
	[ "$v" = "$3" ] && [ "$run" = "100.00" ]
}

# The loop's branches never follow one another: as many rising edges of
# "a branch retired" (E, CMASK 1) as branches (mk/pmu-tests.sh, test 13).
EDGE=cpu/event=0xc4,edge=1,cmask=1/u
# At PERIOD the loop gives about 30 samples a second, far below the
# kernel's default limit of 100,000. But under TCG a PMI takes 100-500 us,
# and at perf_cpu_time_max_percent's default, 25, perf lowers the limit by
# itself: to 1,000 a second in idle boots, to 250 in a cold CI run of
# 2026-12-06 (the migration's copy and another boot beside this one slowed
# the vCPUs), one sample a tick at HZ=250, where Linux throttles the event
# at each of its samples until the next tick (__perf_event_account_interrupt():
# interrupts >= max_samples_per_tick): 291 samples of 300 there, and
# 271 PERF_RECORD_THROTTLE with the limit set to 250 by hand. So, as
# mk/pebs-tests.sh does, the limit is set back to its default, in case
# the boot lowered it, and the guard turned off so that it stays there.
# The test is of the migration, not of the guard: perf stat's counts
# here do not depend on either, and sampling at the default guard is
# mk/pmu-tests.sh's (the on and loss boots, where it lowers the limit to
# 1,000-1,750, 4-7 samples a tick, no throttle).
echo 100000 > /proc/sys/kernel/perf_event_max_sample_rate
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent
taskset -c 1 perf record -q --switch-events -e $EVENT -c $PERIOD $REGS \
	-o /tmp/mig.data -- /pmu-mig &
rec=$!
taskset -c 0 perf stat -x';' -o /tmp/mig.stat \
	-e instructions:u,branches:u,r81d0:u -e $EDGE -- /pmu-mig &
st=$!
# Ready once both loops run: each runs ten seconds or more from there.
i=0
while [ "$(pidof pmu-mig | wc -w)" -lt 2 ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "# migrate: ready"
wait $st
src=$?
wait $rec
rrc=$?
echo "# migrate: done"
throttles=$(perf report -D -i /tmp/mig.data 2> /dev/null |
	grep -c 'PERF_RECORD_THROTTLE')

bad=$src
exact instructions:u /tmp/mig.stat $INSNS || bad=1
exact branches:u /tmp/mig.stat $((N + 1)) || bad=1
exact r81d0:u /tmp/mig.stat $N || bad=1
exact $EDGE /tmp/mig.stat $((N + 1)) || bad=1
what="the loop's instructions, branches, loads and branch edges"
tap $bad "across a migration perf stat counts $what exactly"

# judge_pmi: pinned to CPU 1, one event counts the whole task: exactly SAMPLES
# samples, the k-th at instruction $(at k) of the program, but on the
# Haswell for one that the task left the CPU before since the one before,
# and, with a skid, one in the kernel, where an interrupt taken within
# the skid takes the PMI (mk/pmu-tests.sh, test 2, says why).
judge_pmi() {
	perf script -i /tmp/mig.data --show-switch-events -F ip,sym,symoff \
		2> /dev/null | awk '/PERF_RECORD_SWITCH OUT/ { out = 1 }
		!/PERF_RECORD_SWITCH/ { print $2, out + 0; out = 0 }' > /tmp/mig.got
	k=0
	: > /tmp/mig.want
	while [ $k -lt "$SAMPLES" ]; do
		k=$((k + 1))
		offset "$(at $k)" >> /tmp/mig.want
	done
	samples=$(wc -l < /tmp/mig.got)
	paste -d' ' /tmp/mig.got /tmp/mig.want > /tmp/mig.cmp
	off=$(awk -v skid="$SKID" '$1 != $3 &&
		!(skid > 0 && $1 == "[unknown]") && !$2' /tmp/mig.cmp | wc -l)
	moved=$(awk '$1 != $3 && $2' /tmp/mig.cmp | wc -l)
	kern=$(grep -c '^\[unknown\] ' /tmp/mig.got)
	echo "# $EVENT: $samples samples (expected $SAMPLES), $off not at the" \
		"expected instruction, $kern in the kernel, $moved elsewhere" \
		"after a switch out; $throttles throttles"
	[ "$off" = 0 ] ||
		awk '$1 != $3 { print "#   sample " NR ": " $0 }' /tmp/mig.cmp
	what="every sample at its instruction"
	[ "$rrc" = 0 ] && [ "$samples" = "$SAMPLES" ] && [ "$off" = 0 ]
	tap $? "across a migration perf record -e $EVENT -c $PERIOD: $what"
}

# judge_pebs: on the Skylake each PEBS record holds the registers after its
# instruction (--intr-regs=cx): ECX, the loop's count down from N, and
# the record's place in the loop (mk/pmu-loop.sh) give the instruction it
# stands for, j. A stop of the event moves the records after it where it
# finds the counter 1 event short of its overflow (the start writes it 2
# short, x86_perf_event_set_period()'s minimum: 1 event late) or at its
# overflow, its record due (the start writes it 2 short, the series'
# pebs-keep-due patch: where the write ends the arm, pebs_write_disarm=on,
# that record comes 2 events late; where it does not, at its place). The
# loop does not sleep: such a stop comes with a preemption, a switch out,
# and near an overflow the emulator runs blocks of one instruction, so a
# preemption lands there far more often than those 2 instructions' share
# of 10,000,000 (QEMU's README: "What is not modelled"). So: j - $(at k),
# the k-th record's delay, never changes from one record to the next but
# after switches out, and there grows by at most 2 (1 with
# pebs_write_disarm=off) for each; every record stands for an instruction
# of the loop (at 0x5, 0x9 or 0xb, ECX in its range). perf record does
# not say where a switch found the counter: a kernel that lost an event
# or two at some other stop would pass here too (its moves are printed).
# And a second stop within those 2 events would lose the record, as
# Linux is written (the start then writes a whole period), which fails
# the count of records: two preemptions 2 instructions apart, not seen.
judge_pebs() {
	perf script -i /tmp/mig.data --show-switch-events -F ip,sym,symoff,iregs \
		2> /dev/null | awk -v n=$N '/PERF_RECORD_SWITCH OUT/ { out++ }
		/PERF_RECORD_SWITCH/ { next }
		{
			p = -1
			if ($2 == "_start+0x5") p = 0
			else if ($2 == "_start+0x9") p = 1
			else if ($2 == "_start+0xb") p = 2
			cx = -1
			for (f = 3; f <= NF; f++)
				if ($f ~ /^CX:0x/)
					cx = substr($f, 4) + 0
			i = n - cx - (p > 0)
			j = (p < 0 || cx < 0 || i < 0 || i >= n) ? -1 : 2 + 3 * i + p
			print j, out + 0, $2
			out = 0
		}' > /tmp/mig.got
	k=0
	: > /tmp/mig.want
	while [ $k -lt "$SAMPLES" ]; do
		k=$((k + 1))
		at $k >> /tmp/mig.want
	done
	samples=$(wc -l < /tmp/mig.got)
	paste -d' ' /tmp/mig.got /tmp/mig.want > /tmp/mig.cmp
	most=2
	[ "$DISARM" = off ] && most=1
	awk -v most=$most '{
		late = $1 < 0 ? -1 : $1 - $4
		outs = $2 " switch" ($2 == 1 ? "" : "es") " out"
		if ($1 < 0 || late != last &&
		    (late < last || late - last > most * $2))
			print "#   sample " NR ": instruction " $1 " (" $3 \
				"), after " outs ", expected " $4 " + " last
		else if (late != last)
			print "#   sample " NR ": moved " late - last \
				" event" (late - last == 1 ? "" : "s") \
				" late, after " outs
		if ($1 >= 0)
			last = late
	}' /tmp/mig.cmp > /tmp/mig.judged
	cat /tmp/mig.judged
	off=$(grep -c 'expected' /tmp/mig.judged)
	moved=$(grep -c 'moved' /tmp/mig.judged)
	kern=$(grep -c '^-1 ' /tmp/mig.got)
	echo "# $EVENT: $samples samples (expected $SAMPLES), $off not at their" \
		"instruction, $kern not in the loop, $moved moved after a switch out" \
		"(pebs_write_disarm=$DISARM); $throttles throttles"
	what="every sample at its instruction, or moved after a switch out"
	[ "$rrc" = 0 ] && [ "$samples" = "$SAMPLES" ] && [ "$off" = 0 ]
	tap $? "across a migration perf record -e $EVENT -c $PERIOD: $what"
}

if [ "$EVENT" = instructions:upp ]; then
	judge_pebs
else
	judge_pmi
fi
