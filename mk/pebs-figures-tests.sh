#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest's side of mk/pebs-figures.sh: perf record -F F of a precise
# event on /pmu-long (mk/pmu-loop.S with 100,000,000 iterations,
# 300,000,004 user instructions), pinned to CPU 0, for F of 1000, 4000
# and 10000, on the emulated Skylake. One line per run on standard output:
#   figures F SAMPLES PMIS SWITCHES THROTTLES LOST FIRST LAST EARLY
# the samples perf wrote; the PMIs CPU 0 took during the command
# (/proc/interrupts); the loop's switches out of its CPU
# (PERF_RECORD_SWITCH out, --switch-events); the PERF_RECORD_THROTTLE
# and PERF_RECORD_LOST_SAMPLES records (perf report --stats); the first
# and the last sample's time (s); the samples of the first 100 ms from
# the first. Then per F the start-up of short and sleeping tasks:
#   startup F LOOP NAP
# the samples of perf record -F F of /pmu-loop (3,000,004 instructions,
# a few ticks) and of /pmu-nap (50 runs of 300,000 instructions, each
# followed by a sleep of 20 ms); then their CPU time (ms) without perf
# record:
#   cpu LOOP NAP
# Then one line for the records due as
# the task sleeps (mk/pebs-tests.sh, tests 16-17: /pmu-sleep at -c 6,
# its first overflow on a nanosleep):
#   due SAMPLES LOST SLEPT
# SLEPT the nanosleeps that left the CPU (PERF_RECORD_SWITCH out, not
# preempted). Then a full buffer (full lines, below), and last a run
# with perf's CPU time guard at its default (guard, below).
FREQ_LOOP=/pmu-long

# The kernel's sample rate limit as it is (perf_event_max_sample_rate
# 100,000). Under TCG a PMI takes 30 to 130 us, where a PEBS machine takes
# a few; at 7.3's PMI per record perf_sample_event_took() would lower the
# limit below 10 kHz and the figures would measure the emulator's PMIs:
# its guard is off (perf_cpu_time_max_percent 0), for every kernel alike.
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent

# pmis: the PMIs CPU 0 has taken (/proc/interrupts)
pmis() {
	awk '$1 == "PMI:" { print $2 }' /proc/interrupts
}

# stats NAME: the count of the record type NAME in perf report --stats,
# from its first table (the file's)
stats() {
	awk -v n="$1" '$1 == n && $2 == "events:" { print $3; f = 1; exit }
		END { if (!f) print 0 }' /tmp/figures.stats
}

for F in 1000 4000 10000; do
	pmi=$(pmis)
	if ! taskset -c 0 perf record -q --switch-events -F $F \
	     -e instructions:upp -o /tmp/figures.data -- $FREQ_LOOP \
	     > /tmp/figures.out 2>&1; then
		echo "figures $F failed"
		sed 's/^/# /' /tmp/figures.out
		continue
	fi
	pmi=$(($(pmis) - pmi))
	perf report -i /tmp/figures.data --stats 2> /dev/null > /tmp/figures.stats
	perf script -i /tmp/figures.data -F time --ns 2> /dev/null |
		tr -d ' :' > /tmp/figures.t
	sw=$(perf script -i /tmp/figures.data --show-switch-events 2> /dev/null |
		grep -c 'PERF_RECORD_SWITCH OUT')
	echo "figures $F $(wc -l < /tmp/figures.t) $pmi $sw" \
		"$(stats THROTTLE) $(stats LOST_SAMPLES)" \
		"$(head -n 1 /tmp/figures.t) $(tail -n 1 /tmp/figures.t)" \
		"$(awk 'NR == 1 { t = $1 } $1 < t + 0.1 { n++ } END { print n + 0 }' \
			/tmp/figures.t)"
done

# samples PROGRAM F: the samples of perf record -F F of PROGRAM on CPU 0
samples() {
	taskset -c 0 perf record -q -F "$2" -e instructions:upp \
		-o /tmp/startup.data -- "$1" > /dev/null 2>&1 || {
		echo failed
		return
	}
	perf script -i /tmp/startup.data -F ip 2> /dev/null | grep -c .
}

for F in 1000 4000 10000; do
	echo "startup $F $(samples /pmu-loop $F) $(samples /pmu-nap $F)"
done

# cpu PROGRAM: the CPU time of PROGRAM in ms, user and kernel, counted
# without sampling (perf stat -e task-clock): the time a frequency event
# that counts its user instructions runs, its samples due F times it
cpu() {
	perf stat -x, -e task-clock -- "$1" 2>&1 > /dev/null |
		awk -F, '$3 == "task-clock" { print $1; f = 1 }
			END { if (!f) print "failed" }'
}

echo "cpu $(cpu /pmu-loop) $(cpu /pmu-nap)"

taskset -c 0 perf record -q --switch-events -e instructions:upp -c 6 \
	-o /tmp/due.data -- /pmu-sleep > /dev/null 2>&1 ||
	echo "figures due failed"
perf report -i /tmp/due.data --stats 2> /dev/null > /tmp/figures.stats
echo "due $(perf script -i /tmp/due.data -F ip 2> /dev/null | grep -c .)" \
	"$(stats LOST_SAMPLES)" \
	"$(perf script -i /tmp/due.data --show-switch-events -F tid,time,ip \
		--ns 2> /dev/null | grep 'PERF_RECORD_SWITCH OUT' |
		grep -v -c preempt)"

# A full buffer: PEBS on the kernel's instructions of CPU 1 at a period
# of 50 and 100, for a sleep 1 while a busy loop runs there
# (series/cover/pebs-reload): the samples, the first and last sample's
# time, and the LOST_SAMPLES reports as "COUNTxLOST" (perf report -D;
# "COUNTxperf:LOST" for perf's own, of time 0: its ring buffer's). perf
# runs with its default ring buffer, as in mk/pebs-tests.sh: with -m 16M
# the series' run at 50 and its reports had not ended after the boot's
# 600 s, perf busy in user space (2026-12-03, at the default sample rate
# limit).
taskset -c 1 sh -c 'while :; do :; done' &
busy=$!
sleep 1
for p in 50 100; do
	taskset -c 0 perf record -q -C 1 -e instructions:kpp -c $p \
		-o /tmp/full.data -- sleep 1 > /dev/null 2>&1 ||
		echo "figures full failed"
	t=$(perf script -i /tmp/full.data -F time --ns 2> /dev/null | tr -d ' :' |
		awk 'NR == 1 { f = $1 } { l = $1 } END { print NR, f, l }')
	r=$(perf report -D -i /tmp/full.data 2> /dev/null |
		awk '/PERF_RECORD_LOST_SAMPLES/ { n[($2 == 0 ? "perf:" : "") \
			substr($NF, 2)]++ }
			END { for (k in n) printf "%dx%s ", n[k], k }')
	echo "full $p $t ${r:-none}"
done
kill $busy

# Last, as it may lower the limit for the rest of the boot: perf record
# -F 10000 of /pmu-long with perf's CPU time guard at its default (25%)
# and the limit at its default again: the samples, the PMIs, and the
# limit after the run, which the guard lowers where the PMIs take more
# than their share:
#   guard SAMPLES PMIS LIMIT
echo 25 > /proc/sys/kernel/perf_cpu_time_max_percent
echo 100000 > /proc/sys/kernel/perf_event_max_sample_rate
pmi=$(pmis)
taskset -c 0 perf record -q -F 10000 -e instructions:upp \
	-o /tmp/guard.data -- $FREQ_LOOP > /dev/null 2>&1 ||
	echo "figures guard failed"
echo "guard $(perf script -i /tmp/guard.data -F ip 2> /dev/null | grep -c .)" \
	"$(($(pmis) - pmi))" \
	"$(cat /proc/sys/kernel/perf_event_max_sample_rate)"
