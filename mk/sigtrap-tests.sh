#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest's side of mk/sigtrap-figures.sh: the two stress cases of the
# kselftest sigtrap_threads (perf_events), signal_stress and
# signal_stress_with_disable, each RUNS times (default 2) alone, then
# once under perf lock record (the kernel's lock:contention_begin and
# contention_end tracepoints). One line per run on standard output:
#   sigtrap CASE run SECONDS STATUS
#   sigtrap CASE lock SECONDS STATUS SPINS WAIT LONGEST TOP
# SECONDS the case's time (/proc/uptime; under perf lock record too, not
# perf's start and end), STATUS its exit status (the harness fails a
# case after 30 s); SPINS, WAIT and LONGEST the spinlock contentions
# that perf lock contention reports, their total and longest wait (ms),
# TOP the caller with the most spinlock wait.
# Usage: sigtrap-tests.sh, or sigtrap-tests.sh one CASE: CASE once, its
# SECONDS and STATUS.
ST=/kselftest/perf_events/sigtrap_threads
RUNS=${RUNS:-2}

# up: the seconds since boot
up() {
	cut -d' ' -f1 /proc/uptime
}

if [ "${1:-}" = one ]; then
	b=$(up)
	$ST -t "$2" > /tmp/sigtrap.out 2>&1
	rc=$?
	awk -v b="$b" -v e="$(up)" -v rc=$rc \
		'BEGIN { printf "%.2f %d\n", e - b, rc }'
	# a failed case's output, for the console
	[ $rc = 0 ] || sed 's/^/# /' /tmp/sigtrap.out >&2
	exit 0
fi

# spins FILE: the spinlocks in perf lock contention's report of FILE
# (which perf writes to standard error)
spins() {
	perf lock contention -i "$1" -E 1000 -k wait_total 2>&1 | awk '
	function ms(v, u) {
		return u == "h" ? v * 3600000 : u == "m" ? v * 60000 : \
			u == "s" ? v * 1000 : u == "ms" ? v : \
			u == "us" ? v / 1000 : v / 1000000
	}
	$8 == "spinlock" {
		n += $1
		t += ms($2, $3)
		if (ms($4, $5) > m)
			m = ms($4, $5)
		if (top == "")
			top = $9
	}
	END { printf "%d %.1f %.1f %s\n", n, t, m, top == "" ? "-" : top }'
}

mount -t tracefs nodev /sys/kernel/tracing || exit 1
cd /tmp || exit 1
for c in signal_stress signal_stress_with_disable; do
	i=0
	while [ $i -lt "$RUNS" ]; do
		echo "sigtrap $c run $("$0" one $c)"
		i=$((i + 1))
	done
	if t=$(perf lock record -o /tmp/lock.data -- "$0" one $c 2> /dev/null) &&
	   [ -n "$t" ]; then
		echo "sigtrap $c lock $t $(spins /tmp/lock.data)"
	else
		echo "# sigtrap: perf lock record of $c failed"
	fi
done
