#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest's side of mk/cost.sh, the cost of the emulated PMU: the
# task-clock of /pmu-long (mk/pmu-loop.S with 100,000,000 iterations,
# 300,000,004 user instructions) on CPU 0, REPS (5) times for each case:
#   alone    nothing measures it;
#   count    perf stat -e instructions:u,branches:u,r81d0:u (with a PMU);
#   sample   perf record -e instructions:u -c 1000000 (with a PMU);
#   pebs     perf record -e instructions:upp -c 1000000 (with PEBS: large
#            PEBS, records written by the emulated PMU).
# The task-clock is that of the command and its children (perf stat
# inherits): with count and sample, the perf that measures the loop is in
# it. One line per run on standard output: cost CASE MILLISECONDS.
REPS=5
LONG=/pmu-long

# Under TCG a PMI takes milliseconds: perf would lower its sample rate.
echo 100000 > /proc/sys/kernel/perf_event_max_sample_rate
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent

# run CASE COMMAND...: COMMAND's task-clock, REPS times
run() {
	c=$1
	shift
	i=0
	while [ $i -lt "$REPS" ]; do
		i=$((i + 1))
		if ! taskset -c 0 perf stat -x, -e task-clock -o /tmp/cost.stat \
		     -- "$@" > /tmp/cost.out 2>&1; then
			echo "cost $c failed"
			sed 's/^/# /' /tmp/cost.out
			return
		fi
		echo "cost $c $(awk -F, '$3 == "task-clock" { print $1 }' /tmp/cost.stat)"
	done
}

run alone "$LONG"
[ -d /sys/bus/event_source/devices/cpu ] || exit 0
run count perf stat -e instructions:u,branches:u,r81d0:u -- "$LONG"
run sample perf record -q -e instructions:u -c 1000000 -o /tmp/cost.data -- "$LONG"
dmesg | grep -q 'PEBS fmt' || exit 0
run pebs perf record -q -e instructions:upp -c 1000000 -o /tmp/cost.data -- "$LONG"
