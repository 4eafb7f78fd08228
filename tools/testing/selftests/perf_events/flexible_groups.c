// SPDX-License-Identifier: GPL-2.0
/*
 * Flexible groups past one that does not fit. Of three flexible groups
 * that need N - 1, 2 and 1 of the N counters a task can have, the last
 * fits next to either of the others, whichever the rotation puts first:
 * it runs all the time. A pass that stops at the first group that does
 * not fit leaves it off once in every three rotations.
 *
 * N is the largest group of branch instruction events that runs for this
 * task on its CPU: the PMU's counters that no CPU-wide event holds. The
 * test skips where it cannot open such events or they do not count on
 * that CPU, with fewer than three such counters, and where the first two
 * groups did not have to take turns (N found too low). Other users'
 * flexible events on the CPU change what the task gets while it runs:
 * run it on an otherwise idle machine.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>
#include <linux/types.h>

#include "../kselftest_harness.h"

#define MAX_COUNTERS	32	/* the largest group tried */
#define RUN_NS		500000000ULL	/* time the three groups run */
#define CHUNK		100000	/* iterations of busy() between clock reads */

struct group_read {
	__u64 nr, enabled, running;
	__u64 values[MAX_COUNTERS];
};

/* Loads, stores and branches for @n iterations at least. */
static void busy(unsigned long n)
{
	static unsigned long word;

	while (n--) {
		word++;
		/* keep each load and store */
		asm volatile("" : : : "memory");
	}
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A group of @n branch instruction events of this task: its leader, or -errno. */
static int open_group(int *fds, int n)
{
	struct perf_event_attr attr = {
		.size		= sizeof(attr),
		.type		= PERF_TYPE_HARDWARE,
		.config		= PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		.exclude_kernel	= 1,
		.exclude_hv	= 1,
		.read_format	= PERF_FORMAT_GROUP |
				  PERF_FORMAT_TOTAL_TIME_ENABLED |
				  PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	int i;

	for (i = 0; i < n; i++) {
		attr.disabled = !i;
		fds[i] = syscall(__NR_perf_event_open, &attr, 0, -1,
				 i ? fds[0] : -1, 0);
		if (fds[i] < 0)
			return -errno;
	}
	return fds[0];
}

static void close_all(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static int read_group(int fd, struct group_read *r)
{
	return read(fd, r, sizeof(*r)) >= 3 * (ssize_t)sizeof(__u64) ? 0 : -1;
}

/*
 * The counters a task has here: the largest group that runs all the
 * time alone (a larger one is refused at open or waits), or -errno where
 * a single event cannot be opened.
 */
static int task_counters(void)
{
	int fds[MAX_COUNTERS], n, ret, fits = 0;
	struct group_read r;

	for (n = 1; n <= MAX_COUNTERS; n++) {
		memset(fds, -1, sizeof(fds));
		ret = open_group(fds, n);
		if (ret >= 0 && !ioctl(fds[0], PERF_EVENT_IOC_ENABLE, 0)) {
			busy(CHUNK);
			ioctl(fds[0], PERF_EVENT_IOC_DISABLE, 0);
			ret = read_group(fds[0], &r) ? -EIO : 0;
		} else if (ret >= 0) {
			ret = -errno;
		}
		close_all(fds, n);
		if (ret < 0)
			return n == 1 ? ret : fits;
		if (!r.running || r.running != r.enabled)
			break;
		fits = n;
	}
	return fits;
}

/* Why a single branch instruction event cannot be opened: skip, not fail. */
static bool cannot_open(int err)
{
	switch (err) {
	case -ENOENT:		/* no such event */
	case -EOPNOTSUPP:	/* no sampling or exclusion of this kind */
	case -ENODEV:		/* no PMU for it */
	case -EACCES:		/* perf_event_paranoid, a security module */
	case -EPERM:		/* a seccomp filter too */
	case -EINVAL:		/* a PMU that cannot exclude the kernel */
		return true;
	}
	return false;
}

TEST(past_a_group_that_does_not_fit)
{
	int fds[3][MAX_COUNTERS], size[3], n, g, cpu;
	struct group_read r[3];
	cpu_set_t set;
	__u64 end;

	/* one CPU, one PMU: the counters found are those the groups get */
	cpu = sched_getcpu();
	ASSERT_LE(0, cpu);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));

	n = task_counters();
	if (cannot_open(n))
		SKIP(return, "no branch instructions event at user level: %s",
		     strerror(-n));
	ASSERT_LE(0, n) TH_LOG("%s", strerror(-n));
	if (!n)
		SKIP(return, "branch instructions do not count on CPU %d", cpu);
	if (n < 3)
		SKIP(return, "%d counters free on CPU %d, 3 needed", n, cpu);
	if (n == MAX_COUNTERS)
		SKIP(return, "no limit found to %d counters", MAX_COUNTERS);

	size[0] = n - 1;
	size[1] = 2;
	size[2] = 1;
	memset(fds, -1, sizeof(fds));
	for (g = 0; g < 3; g++)
		ASSERT_LE(0, open_group(fds[g], size[g]))
			TH_LOG("group %d of %d events: %s", g, size[g],
			       strerror(errno));
	for (g = 0; g < 3; g++)
		ASSERT_EQ(0, ioctl(fds[g][0], PERF_EVENT_IOC_ENABLE, 0));

	end = now_ns() + RUN_NS;
	while (now_ns() < end)
		busy(CHUNK);

	for (g = 0; g < 3; g++) {
		ASSERT_EQ(0, ioctl(fds[g][0], PERF_EVENT_IOC_DISABLE, 0));
		ASSERT_EQ(0, read_group(fds[g][0], &r[g]));
		ASSERT_EQ(size[g], r[g].nr);
		TH_LOG("group of %d: ran %llu of %llu ns", size[g],
		       (unsigned long long)r[g].running,
		       (unsigned long long)r[g].enabled);
	}
	for (g = 0; g < 3; g++)
		close_all(fds[g], size[g]);

	/* the rotation gives each of the first two its turns */
	EXPECT_LT(0, r[0].running);
	EXPECT_LT(0, r[1].running);
	if (r[0].running == r[0].enabled && r[1].running == r[1].enabled)
		SKIP(return, "the groups did not take turns: more than %d counters",
		     n);
	/* the last all the time, whatever the order */
	EXPECT_LT(0, r[2].running);
	EXPECT_EQ(r[2].enabled, r[2].running)
		TH_LOG("a flexible pass stopped at the group that did not fit");
}

TEST_HARNESS_MAIN
