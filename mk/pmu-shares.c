// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-shares: the counter time of one CPU's events per interval, with
 * bounds on the interval's windows, for mk/pmu-tests.sh (CPU 0's events
 * across its sibling's offline and online).
 *
 * perf stat -I reads its events one after the other, so each event's
 * interval is a window of its own, between its two reads. A reader
 * preempted between two reads (by the workload on its CPU, or its vCPU
 * by the host) makes the windows differ by milliseconds, and the events'
 * shares of their own windows can then add up to more than the counters
 * give in any one window. This reader brackets its reads of the events
 * with two reads of a cpu-clock event on the same CPU, whose count is
 * perf's clock (local_clock()), the clock of the events' times enabled
 * and running: with a(k) and z(k) the cpu-clock's reads before and after
 * the events' reads of interval k, every event's window of interval k
 * lies within [a(k - 1), z(k)] (the union) and holds [z(k - 1), a(k)]
 * (the intersection).
 *
 * Usage: pmu-shares CPU MS STOP CONFIG...
 * Counts each raw CONFIG at user level (as perf's rCONFIG:u) on CPU,
 * reads every MS milliseconds until the file STOP exists, and prints one
 * line per interval, in ns:
 *	union intersection sum run1 enabled1 run2 enabled2 ...
 * where sum is the events' time running added up. Run it on CPU: a read
 * from another CPU takes an interrupt of CPU, and the bracket needs one
 * clock.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 8

/* What read() gives with the read_format below. */
struct reading {
	unsigned long long value;
	unsigned long long enabled;
	unsigned long long running;
};

static int open_event(__u32 type, __u64 config, int cpu, int user)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.exclude_kernel = user;
	attr.exclude_hv = user;
	return syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
}

static void read_event(int fd, struct reading *r)
{
	if (read(fd, r, sizeof(*r)) != sizeof(*r)) {
		perror("pmu-shares: read");
		exit(1);
	}
}

/* The clock before, every event, the clock after. */
static void read_all(int clock, const int *fd, int n, struct reading *r,
		     unsigned long long *a, unsigned long long *z)
{
	struct reading c;
	int i;

	read_event(clock, &c);
	*a = c.value;
	for (i = 0; i < n; i++)
		read_event(fd[i], &r[i]);
	read_event(clock, &c);
	*z = c.value;
}

int main(int argc, char **argv)
{
	struct reading prev[MAX_EVENTS], cur[MAX_EVENTS];
	unsigned long long a0, z0, a, z, sum, run, ena;
	struct timespec period;
	int fd[MAX_EVENTS];
	int cpu, ms, n, i, clock;

	if (argc < 5 || argc - 4 > MAX_EVENTS) {
		fprintf(stderr, "usage: pmu-shares CPU MS STOP CONFIG... (at most %d)\n",
			MAX_EVENTS);
		return 2;
	}
	cpu = atoi(argv[1]);
	ms = atoi(argv[2]);
	n = argc - 4;
	period.tv_sec = ms / 1000;
	period.tv_nsec = (ms % 1000) * 1000000L;
	clock = open_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, cpu, 0);
	if (clock < 0) {
		perror("pmu-shares: cpu-clock");
		return 1;
	}
	for (i = 0; i < n; i++) {
		char *end;
		__u64 config = strtoull(argv[4 + i], &end, 0);

		if (*end || end == argv[4 + i]) {
			fprintf(stderr, "pmu-shares: not a number: %s\n",
				argv[4 + i]);
			return 2;
		}
		fd[i] = open_event(PERF_TYPE_RAW, config, cpu, 1);
		if (fd[i] < 0) {
			fprintf(stderr, "pmu-shares: %s: ", argv[4 + i]);
			perror(NULL);
			return 1;
		}
	}
	read_all(clock, fd, n, prev, &a0, &z0);
	while (access(argv[3], F_OK)) {
		nanosleep(&period, NULL);
		read_all(clock, fd, n, cur, &a, &z);
		sum = 0;
		for (i = 0; i < n; i++)
			sum += cur[i].running - prev[i].running;
		printf("%llu %llu %llu", z - a0, a - z0, sum);
		for (i = 0; i < n; i++) {
			run = cur[i].running - prev[i].running;
			ena = cur[i].enabled - prev[i].enabled;
			printf(" %llu %llu", run, ena);
			prev[i] = cur[i];
		}
		printf("\n");
		fflush(stdout);
		a0 = a;
		z0 = z;
	}
	return 0;
}
