#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel under fuzz on the emulated Haswell (mk/boot-pmu.sh): the
# random driver of valid hardware events, perf_fuzz
# (tools/testing/x86-perf-fuzz/), for FUZZ_SECS seconds (default 30) with
# seed FUZZ_SEED (default 1), while it toggles the HT erratum workaround
# every 100 ms and takes CPU 1 offline and online every 2 s, and measures
# the test program (mk/pmu-loop.S) beside it. With TRINITY=1 (make
# soak), trinity runs beside it on perf_event_open, ioctl, read, mmap and
# close. The kernel's reports are the console scan's (mk/reports.sh).
# TAP on standard output.
# N, INSNS (mk/pmu-loop.sh)
. /pmu-loop.sh
# tap STATUS DESCRIPTION (mk/tap.sh)
. /tap.sh
secs=${FUZZ_SECS:-30}
seed=${FUZZ_SEED:-1}

# The pmu tests lift the sample rate's limits; a fuzzer's sampling
# events should meet them: the defaults of a 250 Hz kernel.
echo 25 > /proc/sys/kernel/perf_cpu_time_max_percent
echo 4000 > /proc/sys/kernel/perf_event_max_sample_rate

echo "TAP version 13"
trinity=${TRINITY:-0}
if [ "$trinity" = 1 ]; then
	echo "1..2"
	mkdir -p /tmp/trinity
	# As root (--dangerous), with its logs off; sockets (it would spend its time
	# building a socket cache) and /dev, /proc, /sys files (this
	# console, the test output's serial port) are no fds of its.
	(cd /tmp/trinity && exec /usr/bin/timeout -s INT -k 60 "$secs" \
		trinity --dangerous -q -l off -C 2 \
		--disable-fds=sockets,pseudo -s "$seed" \
		-c perf_event_open -c ioctl -c read -c mmap -c close) \
		> /tmp/trinity.log 2>&1 &
	trinity_pid=$!
else
	echo "1..1"
fi
# dump PID: the state and kernel stack of PID's threads and of every
# task in uninterruptible sleep (not t, mk/tap.sh's count)
dump() {
	for task in /proc/"$1"/task/* $(grep -l '^State:.*D' /proc/[0-9]*/status |
				   sed 's|/status$||'); do
		echo "# $task ($(cat "$task/comm")): $(grep '^State:' "$task/status")"
		sed 's/^/#   /' "$task/stack"
	done
}

# mon: every 5 s, the guest's uptime, the NMIs (the PMIs, the NMI
# watchdog being off), local timer interrupts and function-call IPIs of
# each online CPU, perf's sample rate limit and the load average: what a
# stall, should there be one, is read against. As TAP comments, as they
# come: a guest that hangs has written those before it.
mon() {
	while :; do
		irq=$(awk 'FILENAME == "/proc/uptime" { printf "%s s:", $1; next }
			   FNR == 1 { n = NF; next }
			   $1 == "NMI:" || $1 == "LOC:" || $1 == "CAL:" {
				printf " %s", $1
				for (i = 2; i <= n + 1; i++)
					printf " %s", $i
			   }' /proc/uptime /proc/interrupts)
		# one write per line: the kill at the end cuts none
		echo "# mon $irq, max sample rate" \
			"$(cat /proc/sys/kernel/perf_event_max_sample_rate)," \
			"load $(cut -d' ' -f1-3 /proc/loadavg)"
		sleep 5
	done
}
mon &
mon_pid=$!

/perf-fuzz -s "$seed" -t "$secs" -l /pmu-loop -i $INSNS -b $((N + 1)) \
	-m $N > /tmp/fuzz.log 2>&1 &
fuzz_pid=$!
# A hang is shown, not waited out: 120 s past its time, the stacks, then
# perf_fuzz is killed.
waited=0
while kill -0 $fuzz_pid 2>/dev/null; do
	sleep 1
	waited=$((waited + 1))
	if [ $waited = $((secs + 120)) ]; then
		echo "# perf_fuzz still runs $waited s after its start"
		dump $fuzz_pid
		kill -9 $fuzz_pid
	fi
done
wait $fuzz_pid
rc=$?
kill $mon_pid
wait $mon_pid 2>/dev/null
sed 's/^/# /' /tmp/fuzz.log
tap $rc "perf_fuzz: $secs s, seed $seed: every invariant held, the state idle after"
if [ "$trinity" = 1 ]; then
	wait "$trinity_pid"
	rc=$?
	tail -n 5 /tmp/trinity.log | sed 's/^/# trinity: /'
	# timeout's 124: trinity ran the whole time
	[ "$rc" = 124 ]
	tap $? "trinity on perf_event_open, ioctl, read, mmap, close for $secs s"
fi
