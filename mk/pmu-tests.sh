#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The tests of the boot on the emulated Haswell (mk/boot-pmu.sh; QEMU with
# tools/testing/qemu-pmu/): Debian's unmodified perf on hardware events.
# Exact counts of the test program (mk/pmu-loop.S), samples through the PMI, the
# HT erratum workaround switched while events run on both threads, the
# erratum with the workaround off and on, a CPU hotplug cycle of the
# sibling, the workaround following it, a corrupting event next to a
# sibling that holds every counter without multiplexing, every counter
# for a thread whose sibling needs none, the erratum's receiving counter
# keeping to its USR/OS bits, CMASK and INV, AnyThread, E, and events
# running across the sibling's offline and online. What the series
# guarantees on any affected CPU (flexible groups past one that does
# not fit, a sibling's pinned group next to a corrupting event) is in
# its kselftests (tools/testing/selftests/perf_events/), which the same
# boot runs first. TAP on standard output. LOOP names the test program
# (default /pmu-loop).
# ERRATUM names QEMU's model of the erratum (x-pmu-ht-erratum, default
# leak): with loss, the erratum tests of that model first, then the
# others (the second boot). pmu_skid=N on the command line is the PMI's
# skid that QEMU was given (x-pmu-skid, mk/boot-pmu.sh; 0 without it).
# On hardware (make deb-pkg, the README's "On real hardware"): turn the
# NMI watchdog off, as the guest boots with nmi_watchdog=0 (it holds a
# counter), and check that CPU 1 is CPU 0's sibling
# (/sys/devices/system/cpu/cpu0/topology/thread_siblings_list). Tests 5,
# 9, 10, 16 and 17 (numbers of the boot with leak) assert the emulator's
# rule of the erratum (exactly every second load; with ERRATUM=loss the
# loss tests too), 11 and 15 its cycle (at most one instruction, so
# CMASK, INV and E are exact), the bounds of 12 to 14 assume one cycle
# per instruction, 22 asserts the emulator's exact counts across 1,000
# page faults and a #UD, and 23 its count of software interrupts (each a
# branch): there, read their lines instead. With the
# workaround off the sibling's r00c5 gains about as many counts as the
# loads lose; with it on it keeps its own (an idle CPU's kernel
# mispredicts a few branches), and the loads lose about half.
LOOP=${LOOP:-/pmu-loop}
ERRATUM=${ERRATUM:-leak}
SKID=$(tr ' ' '\n' < /proc/cmdline |
	sed -n 's/^pmu_skid=\([0-9]*\)$/\1/p' | tail -n 1)
SKID=${SKID:-0}
# N, INSNS, offset (mk/pmu-loop.sh)
. /pmu-loop.sh
BRANCHES=$((N + 1))
LOADS=$N
# What a corrupting event (0xd0-0xd3) counts of LOADS where no counter of
# the sibling takes its leaving counts, as with the workaround on (QEMU's
# README, "What the SDM leaves open"): the errata say such a count "may be
# dropped", which leak never does and loss does for every second. The
# kernel guarantees that the sibling's events are not corrupted, not that
# the corrupting event counts all: the tests below assert the model's
# count of each reading.
KEPT=$LOADS
[ "$ERRATUM" = loss ] && KEPT=$((LOADS / 2))
PERIOD=100000
HT=/sys/devices/cpu/ht_bug_workaround
CPU1=/sys/devices/system/cpu/cpu1/online

# tap STATUS DESCRIPTION (mk/tap.sh)
. /tap.sh

# value EVENT FILE: what perf stat -x, wrote to FILE for EVENT
value() {
	awk -F, -v e="$1" '$3 == e { print $1 }' "$2"
}

# nth N FILE: the Nth count that perf stat -x';' wrote to FILE, and the
# share of the time it ran (event names with terms hold commas)
nth() {
	grep -v -e '^#' -e '^$' "$2" | sed -n "$1p" | cut -d';' -f1,5
}

# exact EVENT FILE EXPECTED: the count is EXPECTED, counted all the time
exact() {
	v=$(value "$1" "$2")
	run=$(awk -F, -v e="$1" '$3 == e { print $5 }' "$2")
	echo "# $1: $v (expected $3), running $run%"
	[ "$v" = "$3" ] && [ "$run" = "100.00" ]
}

# stat_exact FILE PROGRAM EVENT=COUNT...: perf stat of PROGRAM, written to
# FILE, counts each EVENT exactly and all the time. PROGRAM runs on CPU 0:
# with loss, the model drops every second count of the vCPU's totals of a
# corrupting event, so the counts kept of a window depend on its parity
# at the start, and a task that migrates has a window on each vCPU: with
# an odd number of loads in each, half of 1,000,000 plus or minus one.
# Unpinned, a make check's loss boot counted 500,001 (2026-12-03), which
# the model explains no other way (not traced).
stat_exact() {
	f=$1 prog=$2
	shift 2
	evs=$(echo "$@" | sed 's/=[0-9]*//g; s/ /,/g')
	taskset -c 0 perf stat -x, -o "$f" -e "$evs" -- "$prog" || return 1
	bad=0
	for ec in "$@"; do
		exact "${ec%=*}" "$f" "${ec#*=}" || bad=1
	done
	return $bad
}

# Under TCG a PMI takes milliseconds: perf lowers its sample rate (the
# kselftests before have) and then throttles. Undo it and keep it so.
echo 100000 > /proc/sys/kernel/perf_event_max_sample_rate
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent

# share EVENT FILE: the share of the time EVENT ran, in percent
share() {
	awk -F, -v e="$1" '$3 == e { print $5 }' "$2"
}

# sib_start FILE EVENTS [PERF]: perf stat -C 1 of EVENTS into FILE (or
# the perf command PERF, with its options), counting from when this
# returns until sib_stop. It starts its events disabled (-D -1),
# enables them when told to and says when it has (--control): a workload
# that only signalled it had started could run before perf enabled them,
# and under host load CPU 0's measurements ran with CPU 1's counters still
# off, or after a fixed sleep of CPU 1's had ended. It runs on CPU 1, with
# its workload, which polls.
sib_start() {
	rm -f /tmp/sib.done /tmp/ctl /tmp/ack
	mkfifo /tmp/ctl /tmp/ack
	# shellcheck disable=SC2086
	taskset -c 1 perf ${3:-stat -x,} -C 1 -e "$2" -D -1 \
		--control fifo:/tmp/ctl,/tmp/ack -o "$1" -- \
		sh -c 'while [ ! -e /tmp/sib.done ]; do sleep 0.1; done' &
	sib_pid=$!
	echo enable > /tmp/ctl
	read -r ack < /tmp/ack
	[ "$ack" = ack ]
}

# sib_stop: the perf stat of sib_start ends; its status
sib_stop() {
	: > /tmp/sib.done
	wait $sib_pid
}

# erratum_run SWITCH EVENT: /pmu-loop's loads (r81d0:u, a corrupting
# event) on CPU 0 with ht_bug_workaround at SWITCH while EVENT counts on
# CPU 1, its sibling, all the while; sets main (the loads counted), run
# (the share of the time they ran, in percent) and sib (EVENT's count).
# Alone on their CPUs, both events take counter 0 when the workaround
# lets them. CPU 1's perf stat and its workload stay on CPU 1
# (sib_start): on CPU 0, their own loads at CPL 3 between the loop's
# would shift the parity of CPU 0's totals that picks the loads that leak
# (a load more or less, seen).
erratum_run() {
	echo "$1" > $HT
	rc=0
	sib_start /tmp/sib "$2" || rc=1
	taskset -c 0 perf stat -x, -e r81d0:u -o /tmp/main -- "$LOOP" || rc=1
	sib_stop || rc=1
	echo 1 > $HT
	main=$(value r81d0:u /tmp/main)
	run=$(share r81d0:u /tmp/main)
	sib=$(value "$2" /tmp/sib)
	echo "# erratum: $ERRATUM $1 $2 $main $sib"
	return $rc
}

echo "TAP version 13"

# QEMU's x-pmu-ht-erratum=loss: a count that leaves a corrupting event's
# counter and does not arrive at the sibling's counter of its index
# (disabled, or not counting at that privilege level) is lost, as on
# hardware. The exact figures are the model's rule (every second count
# of each privilege level leaves); where the workaround is on, only its
# guarantee is asserted: the sibling's event is not corrupted.
if [ "$ERRATUM" = loss ]; then
	echo "1..31"
	# r00c5 counts nothing in the model: all it reports leaked.
	erratum_run 0 r00c5
	[ $? = 0 ] && [ "$main" = $((LOADS / 2)) ] &&
		[ "$sib" = $((LOADS / 2)) ]
	tap $? "loss: the erratum moves every second load to the sibling, workaround off"
	erratum_run 0 r00c5:k
	[ $? = 0 ] && [ "$main" = $((LOADS / 2)) ] && [ "$sib" = 0 ]
	tap $? "loss: a count the sibling's counter does not admit (USR) is lost"
	taskset -c 0 perf stat -x, -e r81d0:u -o /tmp/alone -- "$LOOP"
	rc=$?
	echo "# erratum: loss alone r81d0:u $(value r81d0:u /tmp/alone)"
	[ "$rc" = 0 ] && [ "$(value r81d0:u /tmp/alone)" = $((LOADS / 2)) ]
	tap $? "loss: a corrupting event alone loses every second count"
	erratum_run 1 r00c5
	[ $? = 0 ] && [ "$sib" = 0 ] && [ -n "$main" ] && [ "$run" = 100.00 ]
	tap $? "loss: the workaround keeps the sibling's event uncorrupted"
	# The half rule only while the sibling needs counters (series patch
	# "perf/x86/intel: Keep to half the counters only while the sibling
	# needs them"), in this model too: next to an idle CPU 1, CPU 0's
	# three generic events run all the time; the loads lose every second
	# count (no counter of CPU 1 receives them), the rest are exact.
	taskset -c 0 perf stat -x, -o /tmp/lidle -e \
		instructions:u,r00c4:u,r81d0:u,r82d0:u -- "$LOOP"
	rc=$?
	exact instructions:u /tmp/lidle $INSNS || rc=1
	exact r00c4:u /tmp/lidle $BRANCHES || rc=1
	exact r81d0:u /tmp/lidle $((LOADS / 2)) || rc=1
	exact r82d0:u /tmp/lidle 0 || rc=1
	tap $rc "loss: next to an idle sibling, all four events run all the time"
	# Then, while CPU 0 counts these four over and over, CPU 1 starts four
	# events: they find CPU 0 on every counter, starve and get counters
	# (each runs some of the time) and, the workaround keeping them off
	# the loads' counter indexes, count nothing (r00c5: only a leaked load
	# could count).
	rm -f /tmp/lb.go /tmp/lb.done
	taskset -c 0 perf stat -x, -o /tmp/lbusy -e \
		instructions:u,r00c4:u,r81d0:u,r82d0:u -- sh -c ': > /tmp/lb.go
		while [ ! -e /tmp/lb.done ]; do '"$LOOP"'; done' &
	lb_pid=$!
	while [ ! -e /tmp/lb.go ]; do
		sleep 0.1
	done
	sib_start /tmp/larr r00c5,r00c5,r00c5,r00c5
	rc=$?
	sleep 2
	sib_stop || rc=1
	: > /tmp/lb.done
	wait $lb_pid || rc=1
	sib=$(awk -F, '$3 == "r00c5" { printf "%s %s;", $1, $5 }' /tmp/larr)
	echo "# loss: CPU 1's r00c5 x4 (count, share %): $sib"
	echo "$sib" | awk -v RS=';' 'NF { n++; if ($1 != 0 || !($2 > 0))
		bad = 1 } END { exit bad || n != 4 }' || rc=1
	tap $rc "loss: a sibling that starts measuring gets counters, uncorrupted"
else
	echo "1..25"
fi

stat_exact /tmp/stat "$LOOP" instructions:u=$INSNS branches:u=$BRANCHES \
	r81d0:u=$KEPT
tap $? "perf stat counts the loop's instructions, branches, loads ($KEPT) exactly"

# perf record -- cmd opens one event per CPU for the task, each with its
# own period: a task that migrates gives floor(n0 / P) + floor(n1 / P)
# samples, one fewer than its count allows whenever the remainders add up
# to a period. Pinned to CPU 0 (taskset, inherited by the workload), one
# event counts it all: exactly INSNS / PERIOD samples, since the PMI
# handler counts the events of the skid into the next period (the
# kernel's guarantee). Where the sample is, no hardware says for an event
# without PEBS; the emulated PMU takes the PMI SKID instructions after
# the one that overflowed the counter (x-pmu-skid, QEMU's README), before
# the next, and the counter counts nothing in the kernel (:u) before the
# PMI handler sets its next period: the k-th sample is at the (k * PERIOD
# + 1 + SKID)-th instruction of the program, where that is one of its
# instructions (with SKID 4 or more, the last PMI comes in its exit).
# An interrupt taken within the skid takes the PMI into its handler, as
# on hardware: with a skid, a sample in the kernel ("[unknown]") is not a
# miss (seen once in 30 samples, make readings of 2026-12-03); with
# none, the PMI comes before the interrupt (QEMU's patch 0006) and it is.
# This test of the model fails with any other skid. The kernel moves a
# sample itself: on Haswell it gives a counter 32 events at least
# (hsw_limit_period(), x86_perf_event_set_period()), so that a task
# scheduled out fewer than 32 events before an overflow overflows up to
# 31 events late when it runs again; period_left carries the difference,
# and the next sample is back in its place (seen beside a task that woke
# every 50 us on CPU 0, 2026-12-03, in QEMU's trace of the counter's
# reads and writes: the read -1 at the switch out, the write -32 at the
# switch in). So a sample that the task left the CPU before, since the
# sample before it (its PERF_RECORD_SWITCH OUT, --switch-events), is not
# held to its place; here only kernel threads share CPU 0 with the
# program, and the diagnosis counts such samples.
taskset -c 0 perf record -q --switch-events -e instructions:u -c $PERIOD \
	-o /tmp/rec.data -- "$LOOP"
rc=$?
# Each sample's place, and 1 if the task left the CPU since the one before.
perf script -i /tmp/rec.data --show-switch-events -F ip,sym,symoff \
	2> /dev/null | awk '/PERF_RECORD_SWITCH OUT/ { out = 1 }
	!/PERF_RECORD_SWITCH/ { print $2, out + 0; out = 0 }' > /tmp/rec.txt
samples=$(wc -l < /tmp/rec.txt)
k=0
: > /tmp/rec.want
while [ $k -lt $((INSNS / PERIOD)) ] &&
	[ $(((k + 1) * PERIOD + 1 + SKID)) -le $INSNS ]; do
	k=$((k + 1))
	offset $((k * PERIOD + 1 + SKID)) >> /tmp/rec.want
done
awk -v k=$k 'NR <= k' /tmp/rec.txt > /tmp/rec.got
paste -d' ' /tmp/rec.got /tmp/rec.want > /tmp/rec.cmp
bad=$(awk -v skid="$SKID" '$1 != $3 && !(skid > 0 && $1 == "[unknown]") &&
	!$2' /tmp/rec.cmp | wc -l)
moved=$(awk '$1 != $3 && $2' /tmp/rec.cmp | wc -l)
kern=$(grep -c '^\[unknown\] ' /tmp/rec.got)
echo "# $samples samples (expected $((INSNS / PERIOD))), $bad not at the" \
	"expected instruction, $kern in the kernel, $moved elsewhere after a" \
	"switch out; first: $(head -n 1 /tmp/rec.cmp), last: $(tail -n 1 /tmp/rec.cmp)"
[ "$rc" = 0 ] && [ "$samples" = $((INSNS / PERIOD)) ] && [ "$bad" = 0 ] &&
	[ "$(wc -l < /tmp/rec.got)" = "$(wc -l < /tmp/rec.want)" ]
exact=$?
# A miss: each sample's place beside the one expected, for the diagnosis
# (a kernel address is "[unknown]": the PMI taken in the kernel).
if [ $exact != 0 ]; then
	awk '{ print "#   sample " NR " (place, switched out, expected): " $0 }' \
		/tmp/rec.cmp
fi
tap $exact "perf record -c $PERIOD: the k-th sample at instruction k * $PERIOD + 1 + skid ($SKID)"

# Both threads count instructions and a corrupting event while the
# workaround is switched on and off: no run fails, none loses an
# instruction (fixed counter 0 is never multiplexed).
echo 1 > $HT
pids=
for cpu in 0 1; do
	(for i in 1 2 3 4 5 6 7 8; do
		taskset -c $cpu perf stat -x, -o /tmp/ht$cpu.$i \
			-e instructions:u,r81d0:u -- "$LOOP" ||
			echo fail >> /tmp/ht.fail
	done) &
	pids="$pids $!"
done
running() {
	for p in $pids; do
		kill -0 "$p" 2> /dev/null && return 0
	done
	return 1
}
toggles=0
while running; do
	echo $((toggles % 2)) > $HT || echo fail >> /tmp/ht.fail
	toggles=$((toggles + 1))
	sleep 0.2
done
wait
echo 1 > $HT
ok=0
[ -e /tmp/ht.fail ] && ok=1
for f in /tmp/ht0.* /tmp/ht1.*; do
	[ "$(value instructions:u "$f")" = $INSNS ] || ok=1
done
echo "# $toggles switches of $HT during 16 runs"
tap $ok "ht_bug_workaround switched while both threads count"
[ "$(cat $HT)" = 1 ]
tap $? "ht_bug_workaround reads 1 after the switches"

# The erratum (QEMU's x-pmu-ht-erratum=leak): r81d0:u on CPU 0 and r00c5
# (BR_MISP_RETIRED.ALL_BRANCHES) on CPU 1. r00c5 counts nothing in the
# model (which marks branch-misses unavailable in CPUID leaf 0xA), so all
# it reports leaked from CPU 0, which loses it: every second load while
# the workaround is off; nothing while it is on, as the workaround keeps
# the two off the same counter index (CPU 0 then counts KEPT).
ok=0
erratum_run 0 r00c5 || ok=1
[ "$main" = $((LOADS / 2)) ] && [ "$sib" = $((LOADS / 2)) ] || ok=1
erratum_run 1 r00c5 || ok=1
[ "$main" = $KEPT ] && [ "$sib" = 0 ] || ok=1
tap $ok "the erratum corrupts the sibling with the workaround off, not on"

# The sibling goes offline and comes back while events count on all CPUs
# (perf stat has opened them once its workload runs).
perf stat -a -x, -o /tmp/hp -e instructions,r81d0 -- \
	sh -c ': > /tmp/hp.go; sleep 3' &
pid=$!
while [ ! -e /tmp/hp.go ]; do
	sleep 0.1
done
echo 0 > $CPU1 && sleep 1 && echo 1 > $CPU1
ok=$?
wait $pid
rc=$?
echo "# cpu1 online: $(cat $CPU1); instructions $(value instructions /tmp/hp)"
[ "$ok" = 0 ] && [ "$rc" = 0 ] && [ "$(cat $CPU1)" = 1 ] &&
	[ "$(value instructions /tmp/hp)" -gt 0 ]
tap $? "the sibling offline and online while events count"

# The workaround applies to a core only while both its threads are online
# (and the switch is on), and keeps a thread to half of the generic
# counters only while its sibling needs them: four corrupting events
# (r81d0:u) of /pmu-loop on CPU 0, on its four generic counters. With CPU 1
# offline, online and idle, and online with the switch off, all four count
# all the time, exactly. With CPU 1 online and counting four events of its
# own (from before, on all four counters), CPU 0's first event finds no
# counter and starves, CPU 1 keeps to half from then on, and at most two of
# CPU 0's run at once: their shares of the time add up to at most 200%.
smt() {
	taskset -c 0 perf stat -x, -o /tmp/smt$1 \
		-e r81d0:u,r81d0:u,r81d0:u,r81d0:u -- "$LOOP" || echo fail
	awk -F, -v n=$KEPT '$3 == "r81d0:u" { c++; s += $5
		if ($1 != n || $5 != "100.00") part = 1 }
		END { printf "%d %.2f %s\n", c, s, part ? "scaled" : "exact" }' \
		/tmp/smt$1
}
ok=0
echo 0 > $CPU1 || ok=1
off=$(smt off)
echo 1 > $CPU1 || ok=1
on=$(smt on)
sib_start /tmp/smtsib r00c4,r00c5,r01c2,r02c2 || ok=1
busy=$(smt busy)
sib_stop || ok=1
echo 0 > $HT
nowa=$(smt nowa)
echo 1 > $HT
echo "# r81d0:u x4 on CPU 0 (events, sum of shares %, counts):" \
	"cpu1 offline: $off; online, idle: $on; online, counting: $busy;" \
	"online, switch off: $nowa"
[ "$off" = "4 400.00 exact" ] && [ "$on" = "4 400.00 exact" ] &&
	[ "$nowa" = "4 400.00 exact" ] || ok=1
set -- $busy
[ "$1" = 4 ] && awk -v s="$2" 'BEGIN { exit !(s > 0 && s <= 200.05) }' ||
	ok=1
tap $ok "the workaround follows SMT and the sibling: half only while it counts"

# No starvation (series patch "perf/x86/intel: Let a starving corrupting
# event make its sibling keep to half the counters"): four other events
# take CPU 1's four generic counters, fit, and never multiplex; then a
# corrupting event on CPU 0, its sibling, finds no counter. In 7.3 it
# never ran (<not counted>). Now CPU 1 reschedules under the half rule at
# once, and the event runs from CPU 0's next rotation (4 ms).
sib_start /tmp/gap1 r00c4,r00c5,r01c2,r02c2
rc=$?
perf stat -C 0 -x, -o /tmp/gap0 -e r81d0 -- sleep 1 || rc=1
sib_stop || rc=1
g=$(share r81d0 /tmp/gap0)
echo "# r81d0 on CPU 0 next to four events on CPU 1: running $g%;" \
	"CPU 1's: $(share r00c4 /tmp/gap1)% $(share r00c5 /tmp/gap1)%" \
	"$(share r01c2 /tmp/gap1)% $(share r02c2 /tmp/gap1)%"
[ "$rc" = 0 ] && awk -v g="$g" 'BEGIN { exit !(g >= 50) }'
tap $? "a corrupting event next to a sibling holding every counter runs"

# The receiving counter keeps to its own USR and OS bits: r00c5:k does
# not take the loads made at CPL 3, which stay where they were (leak) or
# are lost (loss): KEPT.
erratum_run 0 r00c5:k
[ $? = 0 ] && [ "$main" = $KEPT ] && [ "$sib" = 0 ]
tap $? "the sibling's counter takes no leaked count of a level it does not count"

# Sampling on the receiving counter: CPU 1 samples r00c5 every RPERIOD
# counts while the loads (r81d0:u) of /pmu-long, 100,000,000, count on
# CPU 0, the workaround off. r00c5 counts nothing in the model: its counts
# are the loads that leak from CPU 0, half of them, and each overflow of
# CPU 1's counter is a sample, taken while CPU 1 idles (QEMU's patch
# 0012 arms the counters that take the sibling's counts; in an earlier
# state of the series, CPU 1 saw the overflows only at its next PMU
# access, its perf record's disable: one sample). Linux takes one
# sample for all the periods a counter passed before its PMI handler
# ran, and under TCG that handler takes milliseconds while CPU 0 leaks
# on (/pmu-loop at RPERIOD 10000: 1 to 12 samples of 50): the period is
# long, 24,000,000 of CPU 0's loads apart. While CPU 1's handler runs, its
# counter is off and CPU 0's leaving counts stay home
# (x-pmu-ht-erratum=leak): CPU 0 keeps at least half, and CPU 1's counter
# takes exactly the rest, a sample for each whole period of it (4 with none
# kept home). With loss, the counts that leave while CPU 1's counter is off
# are lost: CPU 0 keeps half exactly, and CPU 1 has a sample per whole
# period of what arrived, 1 to 4.
LONG_LOADS=100000000
RPERIOD=12000000
echo 0 > $HT
rc=0
sib_start /tmp/recv.data r00c5 "record -q -c $RPERIOD" || rc=1
taskset -c 0 perf stat -x, -e r81d0:u -o /tmp/main -- /pmu-long || rc=1
sib_stop || rc=1
echo 1 > $HT
main=$(value r81d0:u /tmp/main)
samples=$(perf script -i /tmp/recv.data -F period 2> /dev/null | wc -l)
echo "# r00c5 on CPU 1, a sample every $RPERIOD: $samples samples" \
	"(expected $(((LONG_LOADS - ${main:-0}) / RPERIOD))); r81d0:u on" \
	"CPU 0: $main"
if [ "$ERRATUM" = loss ]; then
	[ "$rc" = 0 ] && [ "$main" = $((LONG_LOADS / 2)) ] &&
		[ "$samples" -ge 1 ] && [ "$samples" -le $((LONG_LOADS / 2 / RPERIOD)) ]
else
	[ "$rc" = 0 ] && [ "$main" -ge $((LONG_LOADS / 2)) ] &&
		[ "$samples" = $(((LONG_LOADS - main) / RPERIOD)) ]
fi
tap $? "perf record on the counter the sibling's loads leak to: a sample per period"

# CMASK and INV on the loop's events (the SDM's comparison of a cycle's
# events with CMASK; a cycle is an instruction in the model, with at most
# one of each event): cycles with fewer than 16 instructions (INV, CMASK
# 16: Linux's cycles:p aliases) are all its cycles; cycles with a branch
# are its branches, those without one the rest; none has 2 instructions.
perf stat -x';' -o /tmp/cmask -e cpu/event=0xc0,inv=1,cmask=16/u \
	-e cpu/event=0xc4,cmask=1/u -e cpu/event=0xc4,inv=1,cmask=1/u \
	-e cpu/event=0xc0,cmask=2/u -- "$LOOP"
rc=$?
got="$(nth 1 /tmp/cmask) $(nth 2 /tmp/cmask) $(nth 3 /tmp/cmask) $(nth 4 /tmp/cmask)"
want="$INSNS;100.00 $BRANCHES;100.00 $((INSNS - BRANCHES));100.00 0;100.00"
echo "# INV CMASK=16 (0xc0), CMASK=1 (0xc4), INV CMASK=1 (0xc4), CMASK=2 (0xc0): $got"
[ "$rc" = 0 ] && [ "$got" = "$want" ]
tap $? "CMASK and INV compare each cycle's events, as the SDM defines"

# AnyThread counts the events of both threads of the core: CPU 0 idles
# while the loop runs on CPU 1, its sibling (perf too, pinned there).
# Counted on CPU 0 at CPL 3, branches without AnyThread are none of the
# loop's (CPU 0 runs no user code: fewer than 1000); with it at least the
# loop's, on a general-purpose counter, and its cycles on fixed counter
# 1, but not twice over (perf's own user code on CPU 1 while the events
# are enabled adds a little to both).
taskset -c 1 perf stat -C 0 -x';' -o /tmp/any -e cpu/event=0xc4/u \
	-e cpu/event=0xc4,any=1/u -e cpu/event=0x3c,any=1/u -- "$LOOP"
rc=$?
own=$(nth 1 /tmp/any | cut -d';' -f1)
br=$(nth 2 /tmp/any | cut -d';' -f1)
cyc=$(nth 3 /tmp/any | cut -d';' -f1)
echo "# on CPU 0 at CPL 3, the loop on CPU 1: branches $own, with AnyThread" \
	"$br; cycles with AnyThread $cyc"
[ "$rc" = 0 ] && [ "$own" -lt 1000 ] && [ "$br" -ge $BRANCHES ] &&
	[ "$br" -lt $((2 * BRANCHES)) ] && [ "$cyc" -ge $INSNS ] &&
	[ "$cyc" -lt $((2 * INSNS)) ]
tap $? "AnyThread counts the sibling's events too"

# The same across the sibling's INIT: CPU 0's counter with AnyThread is
# enabled when CPU 1 goes offline and comes back online (INIT, SIPI), and
# the loop then runs on CPU 1, which has no counter of its own. QEMU's
# translator counts CPU 1's events only while a counter needs them
# (patch 0004; a counter of the sibling's with AnyThread, patch 0013), and
# INIT resets the flag that says so: patch 0004 derives it anew. CPU 0
# runs the shell (fewer than 100000 user branches).
taskset -c 0 perf stat -C 0 -x';' -o /tmp/anyinit \
	-e cpu/event=0xc4,any=1/u -- sh -c "echo 0 > $CPU1 && echo 1 > $CPU1 &&
	taskset -c 1 $LOOP"
rc=$?
br=$(nth 1 /tmp/anyinit | cut -d';' -f1)
echo "# AnyThread on CPU 0, the loop on CPU 1 after its INIT: branches $br"
[ "$rc" = 0 ] && [ "$br" -ge $BRANCHES ] && [ "$br" -lt $((BRANCHES + 100000)) ]
tap $? "AnyThread counts the sibling's events after the sibling's INIT"

# E with AnyThread counts the edges of both threads, each thread's apart
# (their cycles are not aligned): the loop on CPU 1, which has no counter
# of its own, the counter on CPU 0 at CPL 3, as above. The loop's
# branches never follow one another: at least as many edges as
# branches, not twice as many. QEMU's translator tracks a thread's edges
# only while a counter counts them; in an earlier state of the series,
# only one of its own with E, so CPU 1's edges went uncounted (QEMU's
# patch 0013 tracks the sibling's).
taskset -c 1 perf stat -C 0 -x';' -o /tmp/anyedge \
	-e cpu/event=0xc4,edge=1,cmask=1,any=1/u -- "$LOOP"
rc=$?
e=$(nth 1 /tmp/anyedge | cut -d';' -f1)
echo "# E with AnyThread on CPU 0 at CPL 3, the loop on CPU 1: edges $e"
[ "$rc" = 0 ] && [ "$e" -ge $BRANCHES ] && [ "$e" -lt $((2 * BRANCHES)) ]
tap $? "E with AnyThread counts the sibling's edges too"

# E counts the cycles that meet a counter's condition after one that does
# not: the loop's branches at CPL 3 never follow one another (nor a
# branch at CPL 0, which the counter does not count), so as many edges as
# branches, exactly; its cycles without a branch come in as many runs,
# and one more for each interrupt that splits a run (fewer than 1000).
perf stat -x';' -o /tmp/edge -e cpu/event=0xc4,edge=1,cmask=1/u \
	-e cpu/event=0xc4,edge=1,inv=1,cmask=1/u -- "$LOOP"
rc=$?
e1=$(nth 1 /tmp/edge)
e2=$(nth 2 /tmp/edge | cut -d';' -f1)
echo "# E, CMASK=1 (0xc4): $e1; E, INV, CMASK=1 (0xc4): $e2"
[ "$rc" = 0 ] && [ "$e1" = "$BRANCHES;100.00" ] &&
	[ "$e2" -ge $BRANCHES ] && [ "$e2" -lt $((BRANCHES + 1000)) ]
tap $? "E counts the rising edges of a counter's condition"

# The half rule only while the sibling needs counters (series patch
# "perf/x86/intel: Keep to half the counters only while the sibling needs
# them"): /pmu-loop's instructions, branches, loads and stores (the last
# two corrupting) on CPU 0 while CPU 1 holds no generic counter. Before,
# the three generic events took turns on two counters, ran 52-91% of the
# time and their scaled counts were off by up to 78%; now each counts
# exactly, all the time (the loop stores nothing in user mode).
taskset -c 0 perf stat -x, -o /tmp/idle -e \
	instructions:u,r00c4:u,r81d0:u,r82d0:u -- "$LOOP"
rc=$?
ok=0
exact instructions:u /tmp/idle $INSNS || ok=1
exact r00c4:u /tmp/idle $BRANCHES || ok=1
exact r81d0:u /tmp/idle $KEPT || ok=1
exact r82d0:u /tmp/idle 0 || ok=1
tap $((rc | ok)) "next to an idle sibling, two corrupting and two other events count exactly"

# Events running across the sibling's offline and online (series patches
# "perf/x86/intel: KUnit: bring the XSU threads up and down as CPU hotplug
# does" and "... Keep to half the counters only while the sibling needs
# them"): four corrupting events (0x81d0 at user level) on CPU 0, read
# every 250 ms by /pmu-shares (mk/pmu-shares.c) while /pmu-loop runs
# there over and over, and CPU 1 counts four events of its own, goes
# offline with them, comes back and counts four r00c5 (branch
# mispredicts, which the emulated PMU never counts: a load leaking in is
# the only way to a count). No hotplug callback reschedules either
# thread. With CPU 1 offline all four of CPU 0's events run all the
# time; back online, CPU 1's events get counters and count nothing (no
# leak). Before the offline and after the online, each thread rotates
# its four events on two counters: in every interval of either phase
# CPU 0's events run 200% of the interval at most (two counters all the
# time) and 190% at least (they stop while CPU 0 rotates, and for longer
# if the host preempts the vCPU in the middle of it; three runs measured
# 199.7% to 199.9% of the union, 200.1% of the intersection at least).
# A third counter shorter than the windows' slack (the union less an
# event's window, about 0.1% of the interval) is not seen. The
# events' intervals are windows of their own, between their two reads,
# so the most is judged against the union of the four windows and the
# least against their intersection, both bounded by /pmu-shares' reads
# of perf's clock (perf stat -I gives only each event's share of its own
# window: with the reads of one interval up to 18 ms apart, a helper's
# boot beside two others saw 201%). When a thread rotates, all its
# events go and come back; the series keeps its counters held and its
# corrupting events present until it is done (patches "... Let a
# starving corrupting event make its sibling keep to half the counters"
# and "... Keep to half the counters only while the sibling needs
# them"). Released at once, a pass of the sibling in between took more
# than half, and the thread's events found no counter until its next
# rotation (the figures are in those patches' messages; with the used
# mask and has_exclusive[] released at the put, the hold of patch 38
# that patch 39 relies on, this test failed in 2 runs of 3). Which
# interval is in which phase: /pmu-shares flushes each
# interval's line, so the script counts the intervals printed when a
# phase begins (N) and ends (M), and judges intervals N + 3 to M:
# interval N + 1 was under way at the change, and N + 2 may have begun
# before the change took effect (within a multiplexing interval, 4 ms).
# Each phase lasts 4 s.
# ivals: how many intervals /pmu-shares has printed
ivals() {
	wc -l < /tmp/hx
}
# phase N M: the intervals N + 3 to M, one per line: the events' time
# running in percent of the union of their windows and of their
# intersection (union intersection sum run1 enabled1 ...: /tmp/hx)
phase() {
	awk -v n="$1" -v m="$2" 'NR >= n + 3 && NR <= m {
		printf "%.1f/%.1f\n", 100 * $3 / $1, 100 * $3 / $2 }' /tmp/hx
}
# halves N M: the intervals N + 3 to M ran two counters' worth of time:
# at most twice the union, at least 1.9 times the intersection; prints
# those that did not, whole
halves() {
	awk -v n="$1" -v m="$2" 'NR >= n + 3 && NR <= m &&
		!($3 <= 2 * $1 && $3 >= 1.9 * $2) { print "# not half:", $0; bad = 1 }
		END { exit bad }' /tmp/hx
}
# alone N M: in the intervals N + 3 to M every event ran all its window,
# which holds the intersection
alone() {
	awk -v n="$1" -v m="$2" 'NR >= n + 3 && NR <= m {
		for (i = 4; i < NF; i += 2)
			if ($i != $(i + 1) || $i < $2) {
				print "# not alone:", $0
				bad = 1
			} }
		END { exit bad }' /tmp/hx
}
ok=0
rm -f /tmp/hx /tmp/hx.done
sib_start /tmp/hxsib0 r00c4,r00c5,r01c2,r02c2 || ok=1
taskset -c 0 /pmu-shares 0 250 /tmp/hx.done 0x81d0 0x81d0 0x81d0 0x81d0 \
	> /tmp/hx &
hx_pid=$!
taskset -c 0 sh -c 'while [ ! -e /tmp/hx.done ]; do '"$LOOP"'; done' &
loop_pid=$!
sleep 4
n1=$(ivals)
echo 0 > $CPU1 || ok=1
n2=$(ivals)
sib_stop || ok=1
sleep 4
n3=$(ivals)
echo 1 > $CPU1 || ok=1
sib_start /tmp/hxsib1 r00c5,r00c5,r00c5,r00c5 || ok=1
n4=$(ivals)
sleep 4
n5=$(ivals)
sib_stop || ok=1
: > /tmp/hx.done
wait $hx_pid || ok=1
wait $loop_pid || ok=1
a=$(phase 0 "$n1")
b=$(phase "$n2" "$n3")
c=$(phase "$n4" "$n5")
sib=$(awk -F, '$3 == "r00c5" { printf "%s %s;", $1, $5 }' /tmp/hxsib1)
echo "# intervals printed: offline $n1-$n2, online from $n3, sibling" \
	"counts $n4-$n5; CPU 0's time running per interval, in percent of" \
	"the union/intersection of its windows: sibling counting:" $a \
	"; offline:" $b "; back, counting:" $c
echo "# CPU 1 back, r00c5 x4 (count, share %): $sib"
for p in "$a" "$b" "$c"; do
	[ "$(echo "$p" | wc -w)" -ge 3 ] || ok=1
done
halves 0 "$n1" || ok=1
alone "$n2" "$n3" || ok=1
halves "$n4" "$n5" || ok=1
echo "$sib" | awk -v RS=';' 'NF { n++; if ($1 != 0 || !($2 > 0)) bad = 1 }
	END { exit bad || n != 4 }' || ok=1
tap $ok "CPU 0 across its sibling's offline and online: half, all alone, no leak after"

# The loop with an XCHG with memory instead of its load (/pmu-xchg): the
# lock is implicit (no LOCK prefix), and XCHG loads and stores once.
stat_exact /tmp/xchg /pmu-xchg instructions:u=$INSNS r81d0:u=$KEPT \
	r82d0:u=$KEPT
tap $? "perf stat counts an XCHG with memory as a load and a store"

# The loop with a CMPXCHG8B, then a CMPXCHG16B, of that memory instead,
# without LOCK (/pmu-cmpxchg8b, /pmu-cmpxchg16b): a load and a store each;
# with a 16-byte MOVDQA load of it (/pmu-movdqa): a load. (QEMU's
# translator makes the 16-byte accesses helper calls on a host without
# 16-byte atomics and marks them itself for the count; a host with them,
# as an x86-64 one with AVX, does not take that path.)
for cx in cmpxchg8b cmpxchg16b; do
	stat_exact /tmp/$cx /pmu-$cx instructions:u=$INSNS r81d0:u=$KEPT \
		r82d0:u=$KEPT
	tap $? "perf stat counts a $cx of memory without LOCK as a load and a store"
done
stat_exact /tmp/movdqa /pmu-movdqa instructions:u=$INSNS r81d0:u=$KEPT \
	r82d0:u=0
tap $? "perf stat counts a 16-byte MOVDQA from memory as a load"

# A page fault on every iteration (/pmu-fault, mk/pmu-loop.S): a store
# faults after the iteration's load and stack store, whose instructions
# have completed, in the same TB (QEMU's TCG PMU adds a TB's events where
# it ends, and those before a fault where the fault restores the state);
# then two NOPs and a UD2, whose #UD leaves without restoring it (the TB
# ends before the UD2). SIGILL ends the program, so perf stat's status
# is not asked; its page faults are, so that the faults the test is
# about happened (the guest kernel has no transparent huge pages).
ok=0
taskset -c 0 perf stat -x, -o /tmp/fault \
	-e instructions:u,branches:u,r81d0:u,r82d0:u,page-faults -- /pmu-fault
loads=1000 stores=2000
[ "$ERRATUM" = loss ] && loads=500 stores=1000
exact instructions:u /tmp/fault $((9 + 6 * 1000 + 2)) || ok=1
exact branches:u /tmp/fault 1001 || ok=1
exact r81d0:u /tmp/fault $loads || ok=1
exact r82d0:u /tmp/fault $stores || ok=1
pf=$(value page-faults /tmp/fault)
echo "# page-faults: $pf (expected at least 1000)"
[ "${pf:-0}" -ge 1000 ] || ok=1
tap $ok "perf stat counts exactly a loop that faults in every iteration, up to a UD2"

# Software interrupts count as their delivery completes, in QEMU's TCG
# PMU (its patch 0004: INT3, INT n and INTO's #OF, each an instruction
# and a branch, where delivery ends; INT1, a trap, before its #DB): the
# loop of /pmu-fault, then, instead of its UD2, an INT3 (SIGTRAP), an
# INT1 (SIGTRAP) or an INT 0x10, which faults in its delivery (#GP: the
# gate's DPL is 0; SIGSEGV) and does not retire; or, in 32-bit code
# after a far jump, an INTO that raises #OF (SIGSEGV). Each program ends
# on its signal, so perf stat's status is not asked. Their user-mode
# branches never follow one another, so there are as many rising edges
# of "a branch retired" (E, CMASK 1) as branches, INT3's counted at its
# delivery (patch 0008); but for /pmu-into, whose last JNZ and far jump
# do (an interrupt, or the page fault of the far jump's pointer, between
# the two adds an edge): not asserted there.
ok=0
for sw in int3:6012:1002 int1:6012:1002 intn:6011:1001 into:6013:1003; do
	swprog=${sw%%:*} swwant=${sw#*:}
	taskset -c 0 perf stat -x';' -o "/tmp/$swprog" -e instructions:u \
		-e branches:u -e cpu/event=0xc4,edge=1,cmask=1/u -- "/pmu-$swprog"
	got="$(nth 1 "/tmp/$swprog") $(nth 2 "/tmp/$swprog")"
	swwant="${swwant%:*};100.00 ${swwant#*:};100.00"
	edges=$(nth 3 "/tmp/$swprog")
	echo "# $swprog: instructions, branches: $got (expected $swwant);" \
		"branch edges: $edges"
	[ "$got" = "$swwant" ] || ok=1
	[ "$swprog" = into ] || [ "$edges" = "${swwant#* }" ] || ok=1
done
tap $ok "perf stat counts INT3, INT1 and INTO's #OF, and not an INT n whose delivery faults"

# The switch written while both threads count: /pmu-switch runs the loop,
# writes "1" to the switch and runs the loop again, under r81d0:u on CPU
# 0, while r00c5 counts on CPU 1, the workaround off at first. Both events
# are on counter 0 and every second load of the first loop leaks; the
# write reschedules every CPU's events before it returns, which puts them
# on different counters: the second loop leaks nothing. A reschedule that
# does nothing leaves both on counter 0 (CPU 1 holds nothing in the XSU
# state: it placed its event while the workaround was off).
echo 0 > $HT
ok=0
sib_start /tmp/sib r00c5 || ok=1
taskset -c 0 perf stat -x, -e r81d0:u -o /tmp/main -- /pmu-switch || ok=1
sib_stop || ok=1
main=$(value r81d0:u /tmp/main)
sib=$(value r00c5 /tmp/sib)
echo "# switched on while counting: r81d0:u $main, r00c5 $sib"
[ "$(cat $HT)" = 1 ] && [ "$main" = $((LOADS / 2 + KEPT)) ] &&
	[ "$sib" = $((LOADS / 2)) ] || ok=1
echo 1 > $HT
tap $ok "the switch written while both threads count: no leak after the write"

# A user-only sampling counter near its overflow through a long system
# call: /pmu-park's 12th instruction is an mmap() of 16 MiB with
# MAP_POPULATE, timed by RDTSC around it. Under perf record -e
# instructions:u -c 1038 the counter waits 1,026 events from its
# overflow for the whole call. In an earlier state of the QEMU series,
# before the check was armed from twice as far for a counter of one
# level (now in its patch 0006), the emulator then ran a full check of
# its counters at every TB of the kernel: 355.5 billion TSC cycles
# against 2.4 billion with the counter far (-c 1000000), and make check's
# fuzz phase hung on it (issue 47). Since, the counter is near from 2,048
# events, where the other level's TBs only call the check to leave it (1.4
# to 1.8 times the far case, by hand): at most three times as long, the best
# of three runs each.
# park PERIOD: the TSC cycles of /pmu-park's mmap() under perf record
park() {
	taskset -c 0 perf record -q -e instructions:u -c "$1" \
		-o /tmp/park.data -- /pmu-park | od -An -tu8 | tr -d ' '
}
# best PERIOD: the least of three
best() {
	b=
	for i in 1 2 3; do
		v=$(park "$1")
		[ -n "$v" ] || return 1
		{ [ -z "$b" ] || [ "$v" -lt "$b" ]; } && b=$v
	done
	echo "$b"
}
far=$(best 1000000) && near=$(best 1038)
echo "# /pmu-park's mmap(), TSC cycles, best of 3: the counter far $far," \
	"1,026 events from its overflow $near"
[ -n "$far" ] && [ -n "$near" ] && [ "$near" -le $((3 * far)) ]
tap $? "a user-only counter near its overflow leaves the kernel's speed alone"
