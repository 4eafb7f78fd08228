#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The tests of the boot on the emulated Haswell (mk/boot-pmu.sh; QEMU with
# tools/testing/qemu-pmu/): Debian's unmodified perf on hardware events.
# Exact counts of the test program (mk/pmu-loop.S), samples through the PMI, the
# HT erratum workaround switched while events run on both threads, the
# erratum with the workaround off and on, a CPU hotplug cycle of the
# sibling, the workaround following it, multiplexing past a group that
# does not fit, a corrupting event next to a sibling that holds every
# counter without multiplexing, and every counter for a thread whose
# sibling needs none. TAP on
# standard output. LOOP names the test program (default /pmu-loop).
LOOP=${LOOP:-/pmu-loop}
N=1000000
INSNS=$((3 * N + 4))
BRANCHES=$((N + 1))
LOADS=$N
PERIOD=100000
HT=/sys/devices/cpu/ht_bug_workaround
CPU1=/sys/devices/system/cpu/cpu1/online

t=0
# tap STATUS DESCRIPTION: one TAP line, ok if STATUS is 0
tap() {
	t=$((t + 1))
	if [ "$1" = 0 ]; then
		echo "ok $t $2"
	else
		echo "not ok $t $2"
	fi
}

# value EVENT FILE: what perf stat -x, wrote to FILE for EVENT
value() {
	awk -F, -v e="$1" '$3 == e { print $1 }' "$2"
}

# exact EVENT FILE EXPECTED: the count is EXPECTED, counted all the time
exact() {
	v=$(value "$1" "$2")
	run=$(awk -F, -v e="$1" '$3 == e { print $5 }' "$2")
	echo "# $1: $v (expected $3), running $run%"
	[ "$v" = "$3" ] && [ "$run" = "100.00" ]
}

# Under TCG a PMI takes milliseconds: perf lowers its sample rate (the
# kselftests before have) and then throttles. Undo it and keep it so.
echo 100000 > /proc/sys/kernel/perf_event_max_sample_rate
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent

# share EVENT FILE: the share of the time EVENT ran, in percent
share() {
	awk -F, -v e="$1" '$3 == e { print $5 }' "$2"
}

echo "TAP version 13"
echo "1..10"

perf stat -x, -o /tmp/stat -e instructions:u,branches:u,r81d0:u -- "$LOOP"
rc=$?
ok=0
exact instructions:u /tmp/stat $INSNS || ok=1
exact branches:u /tmp/stat $BRANCHES || ok=1
exact r81d0:u /tmp/stat $LOADS || ok=1
tap $((rc | ok)) "perf stat counts the loop's instructions, branches, loads exactly"

# perf record -- cmd opens one event per CPU for the task, each with its
# own period: a task that migrates gives floor(n0 / P) + floor(n1 / P)
# samples, one fewer than its count allows whenever the remainders add up
# to a period. Pinned to CPU 0 (taskset, inherited by the workload), one
# event counts it all: exactly INSNS / PERIOD samples. The last overflow
# comes 4 instructions before the exit: its sample may land in the kernel
# (the PMI's skid), so one sample may lie outside _start.
taskset -c 0 perf record -q -e instructions:u -c $PERIOD -o /tmp/rec.data -- "$LOOP"
rc=$?
perf script -i /tmp/rec.data -F ip,sym > /tmp/rec.txt 2> /dev/null
samples=$(wc -l < /tmp/rec.txt)
loop=$(grep -c ' _start$' /tmp/rec.txt)
echo "# $samples samples (expected $((INSNS / PERIOD))), $loop in _start"
[ "$rc" = 0 ] && [ "$samples" = $((INSNS / PERIOD)) ] &&
	[ "$loop" -ge $((samples - 1)) ]
tap $? "perf record -c $PERIOD: one sample per period, in the loop"

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

# The erratum (QEMU's pmu-ht-erratum model): /pmu-loop's loads (r81d0, a
# corrupting event) on CPU 0 and, until that run is over, branch-misses on
# CPU 1, its sibling (perf may take a second or two to start under TCG: a
# fixed sleep on CPU 1 could end before the loop runs, as it did under
# load). Alone on their CPUs, both take counter 0. branch-misses
# counts nothing in the model, so all it reports leaked from CPU 0, which
# loses it: every second load while the workaround is off; nothing while
# it is on, as the workaround keeps the two off the same counter index.
echo "# erratum: ht_bug_workaround, r81d0:u on CPU 0, branch-misses on CPU 1"
ok=0
for ht in 0 1; do
	echo $ht > $HT
	rm -f /tmp/sib.go /tmp/sib.done
	taskset -c 0 perf stat -x, -C 1 -e branch-misses -o /tmp/sib$ht -- \
		sh -c ': > /tmp/sib.go
		       while [ ! -e /tmp/sib.done ]; do sleep 0.1; done' &
	pid=$!
	while [ ! -e /tmp/sib.go ]; do
		sleep 0.1
	done
	taskset -c 0 perf stat -x, -e r81d0:u -o /tmp/main$ht -- "$LOOP" ||
		ok=1
	: > /tmp/sib.done
	wait $pid || ok=1
	main=$(value r81d0:u /tmp/main$ht)
	sib=$(value branch-misses /tmp/sib$ht)
	echo "# erratum: $ht $main $sib"
	if [ $ht = 0 ]; then
		[ "$main" = $((LOADS / 2)) ] && [ "$sib" = $((LOADS / 2)) ] ||
			ok=1
	else
		[ "$main" = $LOADS ] && [ "$sib" = 0 ] || ok=1
	fi
done
echo 1 > $HT
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
	awk -F, -v n=$LOADS '$3 == "r81d0:u" { c++; s += $5
		if ($1 != n || $5 != "100.00") part = 1 }
		END { printf "%d %.2f %s\n", c, s, part ? "scaled" : "exact" }' \
		/tmp/smt$1
}
ok=0
echo 0 > $CPU1 || ok=1
off=$(smt off)
echo 1 > $CPU1 || ok=1
on=$(smt on)
# CPU 1's measurement lasts until CPU 0's is over (perf takes a second or
# two to start under TCG: a fixed sleep could end first).
rm -f /tmp/smt.go /tmp/smt.done
perf stat -C 1 -x, -o /tmp/smtsib -e r00c4,r00c5,r01c2,r02c2 -- \
	sh -c ': > /tmp/smt.go; while [ ! -e /tmp/smt.done ]; do sleep 0.1; done' &
pid=$!
while [ ! -e /tmp/smt.go ]; do
	sleep 0.1
done
busy=$(smt busy)
: > /tmp/smt.done
wait $pid || ok=1
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

# Multiplexing (series patch "perf/core: Go on past a flexible group that
# does not fit"): three flexible groups of 3, 2 and 1 events on the four
# generic counters of each CPU, rotated every 4 ms. 6.12 stops each pass
# at the group that does not fit: the groups run 2/3, 1/3 and 2/3 of the
# time. Going on past it puts the third group on in every pass.
perf stat -a -x, -o /tmp/mux -e '{r00c4,r00c5,r01c2},{r02c2,r01c4},r04c4' \
	-- sleep 2
rc=$?
a=$(share r00c4 /tmp/mux)
b=$(share r02c2 /tmp/mux)
c=$(share r04c4 /tmp/mux)
echo "# running: groups of 3, 2, 1 events: $a%, $b%, $c%"
[ "$rc" = 0 ] && awk -v c="$c" 'BEGIN { exit !(c >= 99) }'
tap $? "multiplexing: the group of one runs all the time past the group of two"

# No starvation (series patch "perf/x86/intel: Let a starving corrupting
# event make its sibling keep to half the counters"): four other events
# take CPU 1's four generic counters, fit, and never multiplex; then a
# corrupting event on CPU 0, its sibling, finds no counter. In 6.12 it
# never ran (<not counted>). Now CPU 1 reschedules under the half rule at
# once, and the event runs from CPU 0's next rotation (4 ms).
# CPU 1 counts until CPU 0's second is over, however slowly perf starts.
rm -f /tmp/gap.go /tmp/gap.done
perf stat -C 1 -x, -o /tmp/gap1 -e r00c4,r00c5,r01c2,r02c2 -- \
	sh -c ': > /tmp/gap.go; while [ ! -e /tmp/gap.done ]; do sleep 0.1; done' &
pid=$!
while [ ! -e /tmp/gap.go ]; do
	sleep 0.1
done
perf stat -C 0 -x, -o /tmp/gap0 -e r81d0 -- sleep 1
rc=$?
: > /tmp/gap.done
wait $pid
g=$(share r81d0 /tmp/gap0)
echo "# r81d0 on CPU 0 next to four events on CPU 1: running $g%;" \
	"CPU 1's: $(share r00c4 /tmp/gap1)% $(share r00c5 /tmp/gap1)%" \
	"$(share r01c2 /tmp/gap1)% $(share r02c2 /tmp/gap1)%"
[ "$rc" = 0 ] && awk -v g="$g" 'BEGIN { exit !(g >= 50) }'
tap $? "a corrupting event next to a sibling holding every counter runs"

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
exact r81d0:u /tmp/idle $LOADS || ok=1
exact r82d0:u /tmp/idle 0 || ok=1
tap $((rc | ok)) "next to an idle sibling, two corrupting and two other events count exactly"
