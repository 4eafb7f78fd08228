// SPDX-License-Identifier: GPL-2.0
/*
 * A group leader whose CPU went offline takes no new sibling.
 *
 * Taking a CPU offline removes the events of its context and breaks up
 * their groups: each sibling becomes a leader, and each leader leaves its
 * group. The file descriptors stay open. A sibling that perf_event_open()
 * attached to such a leader afterwards was not detached when the leader
 * was closed, and kept pointing to the freed leader: KASAN reported a
 * use-after-free in perf_event_update_time() when the sibling was closed.
 *
 * Software events only (cpu-clock): no PMU needed. Needs root, CPU
 * hotplug and a CPU other than CPU 0 that can go offline; skips
 * otherwise.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/syscall.h>

#include <linux/perf_event.h>

#include "../kselftest_harness.h"

#define ONLINE_FMT	"/sys/devices/system/cpu/cpu%d/online"
#define MAX_CPU		64

/* A cpu-clock event on @cpu, in the group of @group_fd (or -1) */
static int cpu_clock(int cpu, int group_fd)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
	};

	return syscall(__NR_perf_event_open, &attr, -1, cpu, group_fd,
		       PERF_FLAG_FD_CLOEXEC);
}

/* Write @val to the online file of @cpu: 0, or -errno */
static int set_online(int cpu, const char *val)
{
	char path[64];
	int fd, ret = 0;

	snprintf(path, sizeof(path), ONLINE_FMT, cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Whether @cpu is online and can go offline (it has an online file) */
static int hotpluggable(int cpu)
{
	char path[64], c = 0;
	int fd, ok;

	snprintf(path, sizeof(path), ONLINE_FMT, cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	ok = read(fd, &c, 1) == 1 && c == '1';
	close(fd);
	return ok;
}

FIXTURE(cpu_offline_group)
{
	int cpu;
	int leader;
};

FIXTURE_SETUP(cpu_offline_group)
{
	int cpu;

	self->cpu = -1;
	self->leader = -1;
	if (geteuid())
		SKIP(return, "must run as root to take a CPU offline");
	for (cpu = 1; cpu < MAX_CPU && self->cpu < 0; cpu++)
		if (hotpluggable(cpu))
			self->cpu = cpu;
	if (self->cpu < 0)
		SKIP(return, "no online CPU but CPU 0 can go offline");
	self->leader = cpu_clock(self->cpu, -1);
	ASSERT_GE(self->leader, 0)
		TH_LOG("cpu-clock on CPU %d: %s", self->cpu, strerror(errno));
	ASSERT_EQ(set_online(self->cpu, "0"), 0);
	ASSERT_EQ(set_online(self->cpu, "1"), 0);
}

FIXTURE_TEARDOWN(cpu_offline_group)
{
	if (self->cpu >= 0)
		set_online(self->cpu, "1");
	if (self->leader >= 0)
		close(self->leader);
}

/* The leader that went offline with its CPU refuses a sibling */
TEST_F(cpu_offline_group, sibling_refused)
{
	int fd = cpu_clock(self->cpu, self->leader);

	/* Closing the sibling first keeps a kernel with the bug safe. */
	if (fd >= 0)
		close(fd);
	ASSERT_EQ(fd, -1)
		TH_LOG("a sibling of a leader that went offline was opened");
	ASSERT_EQ(errno, ENODEV);
}

/* A group made after the CPU came back takes its siblings as before */
TEST_F(cpu_offline_group, new_group)
{
	int leader = cpu_clock(self->cpu, -1), fd;

	ASSERT_GE(leader, 0);
	fd = cpu_clock(self->cpu, leader);
	EXPECT_GE(fd, 0) TH_LOG("a sibling of a new leader: %s",
				strerror(errno));
	if (fd >= 0)
		close(fd);
	close(leader);
}

TEST_HARNESS_MAIN
