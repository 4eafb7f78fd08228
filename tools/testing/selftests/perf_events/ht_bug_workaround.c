// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/devices/cpu/ht_bug_workaround: the run-time switch of the workaround
 * for the Intel SandyBridge, IvyBridge and Haswell erratum (BJ122, BV98,
 * HSD29) where some memory events corrupt the counter of the same index on
 * the sibling hyper-thread. See Documentation/admin-guide/perf/intel-ht-bug.rst.
 *
 * The file only exists on affected CPUs with SMT siblings; elsewhere, and
 * where there is no hardware PMU at all, every test skips.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <linux/perf_event.h>
#include <linux/types.h>

#include "../kselftest_harness.h"

#define CPU_PMU_DIR	"/sys/bus/event_source/devices/cpu"
#define SWITCH_PATH	CPU_PMU_DIR "/ht_bug_workaround"
#define SIBLINGS_FMT	"/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list"

/* MEM_UOPS_RETIRED.ALL_LOADS: one of the events that corrupt the sibling */
#define RAW_ALL_LOADS	0x81d0

#define MAX_THREADS	2	/* threads per core on the affected CPUs */
#define NR_EVENTS	3	/* per CPU: two counting, one sampling */
#define PHASE_US	200000	/* time each phase of the toggle test runs */
#define RB_PAGES	8	/* data pages of the sampling ring buffer */
#define LONG_INPUT	(2 * 4096 + 3)

/* Read the switch: 0 or 1, or -errno; anything but "0\n" or "1\n" is -EPROTO. */
static int switch_read(void)
{
	char buf[8] = { 0 };
	ssize_t len;
	int fd;

	fd = open(SWITCH_PATH, O_RDONLY);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	if (len < 0)
		len = -errno;
	close(fd);
	if (len < 0)
		return len;

	if (len != 2 || buf[1] != '\n' || (buf[0] != '0' && buf[0] != '1'))
		return -EPROTO;
	return buf[0] - '0';
}

/* One write(2) of @len bytes on a fresh open: 0 when all taken, or -errno. */
static int switch_write(const char *buf, size_t len)
{
	ssize_t ret;
	int fd;

	fd = open(SWITCH_PATH, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, buf, len);
	if (ret < 0)
		ret = -errno;
	else if ((size_t)ret != len)
		ret = -EIO;
	else
		ret = 0;
	close(fd);
	return ret;
}

static int switch_set(int on)
{
	return switch_write(on ? "1" : "0", 1);
}

static long perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			    int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

FIXTURE(ht_bug)
{
	int orig;			/* value to put back in teardown */
	int nr_cpus;			/* threads of the core under test */
	int cpus[MAX_THREADS];
	pid_t busy[MAX_THREADS];	/* a load loop pinned to each of them */
	int fds[MAX_THREADS][NR_EVENTS];
	void *rb[MAX_THREADS];		/* ring buffer of the sampling event */
	size_t rb_size;
};

FIXTURE_SETUP(ht_bug)
{
	int i, j;

	self->orig = -1;
	self->rb_size = (RB_PAGES + 1) * sysconf(_SC_PAGESIZE);
	for (i = 0; i < MAX_THREADS; i++) {
		self->busy[i] = -1;
		self->rb[i] = MAP_FAILED;
		for (j = 0; j < NR_EVENTS; j++)
			self->fds[i][j] = -1;
	}

	if (access(CPU_PMU_DIR, F_OK))
		SKIP(return, "no core PMU: %s is missing", CPU_PMU_DIR);
	if (access(SWITCH_PATH, F_OK))
		SKIP(return,
		     "%s is missing: CPU not affected by BJ122/BV98/HSD29 or no SMT siblings",
		     SWITCH_PATH);
	if (geteuid())
		SKIP(return, "must run as root to change %s", SWITCH_PATH);

	self->orig = switch_read();
	ASSERT_TRUE(self->orig == 0 || self->orig == 1)
		TH_LOG("%s reads %d", SWITCH_PATH, self->orig);
}

FIXTURE_TEARDOWN(ht_bug)
{
	int i, j;

	for (i = 0; i < MAX_THREADS; i++) {
		if (self->busy[i] > 0) {
			kill(self->busy[i], SIGKILL);
			waitpid(self->busy[i], NULL, 0);
		}
		if (self->rb[i] != MAP_FAILED)
			munmap(self->rb[i], self->rb_size);
		for (j = 0; j < NR_EVENTS; j++)
			if (self->fds[i][j] >= 0)
				close(self->fds[i][j]);
	}

	if (self->orig == 0 || self->orig == 1)
		EXPECT_EQ(0, switch_set(self->orig));
}

TEST_F(ht_bug, read_format)
{
	/* the value setup read is already checked; read it again: stable */
	EXPECT_EQ(self->orig, switch_read());
}

TEST_F(ht_bug, write_valid)
{
	/* kstrtobool(), as for allow_tsx_force_abort */
	static const char * const inputs[] = {
		"0", "1", "0\n", "1\n", "n", "y", "N", "Y", "off", "on",
		"OFF\n", "ON\n", "f", "t", "false", "true", "no", "yes",
		"d", "e", "disable", "enable",
	};
	int pass, i, on;

	/* twice, so that each input flips the state once and is a no-op once */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < ARRAY_SIZE(inputs); i++) {
			const char *in = inputs[i];

			on = i & 1;
			ASSERT_EQ(0, switch_write(in, strlen(in)))
				TH_LOG("write of \"%s\" failed", in);
			ASSERT_EQ(on, switch_read())
				TH_LOG("\"%s\" did not switch %s", in,
				       on ? "on" : "off");
		}
	}
}

TEST_F(ht_bug, write_invalid)
{
	static const struct {
		const char *buf;
		size_t len;
	} inputs[] = {
#define IN(s)	{ s, sizeof(s) - 1 }
		IN("2"), IN("-1"), IN("\n"), IN(" 1"), IN("+1"), IN("\n1"),
		IN("\t1"), IN("x"), IN("o"), IN("o\n"), IN("ox"), IN("\0001"),
#undef IN
	};
	char *long_input;
	int state, i;

	long_input = malloc(LONG_INPUT);
	ASSERT_NE(NULL, long_input);
	memset(long_input, '2', LONG_INPUT);

	for (state = 0; state <= 1; state++) {
		ASSERT_EQ(0, switch_set(state));

		for (i = 0; i < ARRAY_SIZE(inputs); i++) {
			EXPECT_EQ(-EINVAL, switch_write(inputs[i].buf, inputs[i].len))
				TH_LOG("input #%d (%zu bytes) not rejected", i, inputs[i].len);
			EXPECT_EQ(state, switch_read());
		}

		/* sysfs hands the store at most a page */
		EXPECT_EQ(-EINVAL, switch_write(long_input, LONG_INPUT));
		EXPECT_EQ(state, switch_read());

		/* sysfs answers a zero-length write itself, without the store */
		EXPECT_EQ(0, switch_write("1", 0));
		EXPECT_EQ(state, switch_read());
	}

	free(long_input);
}

/* Exit codes of the unprivileged child, and what they mean. */
enum {
	CHILD_OK,
	CHILD_SETUID,
	CHILD_OPEN_ALLOWED,
	CHILD_OPEN_ERRNO,
};

static const char * const child_errors[] = {
	[CHILD_SETUID]		= "could not drop privileges",
	[CHILD_OPEN_ALLOWED]	= "unprivileged open for writing succeeded",
	[CHILD_OPEN_ERRNO]	= "unprivileged open failed, but not with EACCES",
};

/* As nobody: the file mode keeps a write open from succeeding. */
static int unprivileged_child(void)
{
	struct passwd *pw = getpwnam("nobody");
	uid_t uid = pw ? pw->pw_uid : 65534;
	gid_t gid = pw ? pw->pw_gid : 65534;
	int ret;

	if (setgroups(0, NULL) || setgid(gid) || setuid(uid) || !getuid())
		return CHILD_SETUID;

	ret = open(SWITCH_PATH, O_WRONLY);
	if (ret >= 0)
		return CHILD_OPEN_ALLOWED;
	if (errno != EACCES)
		return CHILD_OPEN_ERRNO;

	return CHILD_OK;
}

TEST_F(ht_bug, write_unprivileged)
{
	int state, status;
	pid_t pid;

	for (state = 0; state <= 1; state++) {
		ASSERT_EQ(0, switch_set(state));

		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			_exit(unprivileged_child());

		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(CHILD_OK, WEXITSTATUS(status))
			TH_LOG("%s", WEXITSTATUS(status) < ARRAY_SIZE(child_errors) ?
			       child_errors[WEXITSTATUS(status)] : "child failed");
		EXPECT_EQ(state, switch_read());
	}
}

/*
 * The threads of the core of the first CPU this test may run on, as far as
 * they are online and allowed: two with SMT on, one with SMT off at run time.
 */
static int core_threads(int *cpus)
{
	char path[PATH_MAX], list[64], *p, *end;
	cpu_set_t allowed;
	int first = -1, n = 0;
	long a, b, c;
	FILE *f;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return -errno;
	for (c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &allowed))
			first = c;
	if (first < 0)
		return -ENODEV;

	snprintf(path, sizeof(path), SIBLINGS_FMT, first);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	p = fgets(list, sizeof(list), f);
	fclose(f);
	if (!p)
		return -EIO;

	/* "0,4", "0-1" or "0" */
	for (;;) {
		a = strtol(p, &end, 10);
		if (end == p || a < 0)
			break;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				break;
		}
		for (c = a; c <= b && c < CPU_SETSIZE && n < MAX_THREADS; c++)
			if (CPU_ISSET(c, &allowed))
				cpus[n++] = c;
		if (*end != ',')
			break;
		p = end + 1;
	}
	return n ? n : -ENODEV;
}

/*
 * Loads and stores on @cpu until killed: feeds both counting events.
 * Returns only if it cannot run there.
 */
static void busy_loop(int cpu)
{
	static __u64 buf[4096];
	cpu_set_t set;
	__u64 i;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return;
	for (i = 0;; i++) {
		buf[i % 4096] += buf[(i * 7) % 4096];
		/* keep every load and store */
		asm volatile("" : : "r" (buf) : "memory");
	}
}

struct sample_point {
	__u64 value, enabled, running;
};

static int read_event(int fd, struct sample_point *p)
{
	return read(fd, p, sizeof(*p)) == sizeof(*p) ? 0 : -1;
}

/* Where the kernel has written up to; all before it is consumed, too. */
static __u64 rb_consume(void *rb)
{
	struct perf_event_mmap_page *pg = rb;
	__u64 head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);

	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	return head;
}

/*
 * Counting and sampling events on both threads of a core while the
 * workaround is switched off and on: every event must keep being enabled,
 * scheduled and counting through each phase, and the sampling events must
 * keep writing to their ring buffers.
 */
TEST_F_TIMEOUT(ht_bug, events_across_toggle, 60)
{
	static const char * const names[NR_EVENTS] = {
		"instructions", "MEM_UOPS_RETIRED.ALL_LOADS", "sampling cycles",
	};
	struct perf_event_attr attr[NR_EVENTS];
	struct sample_point last[MAX_THREADS][NR_EVENTS], now;
	__u64 head[MAX_THREADS], pos;
	int phase, t, e, state;

	self->nr_cpus = core_threads(self->cpus);
	ASSERT_LT(0, self->nr_cpus)
		TH_LOG("no CPU to test on: %d", self->nr_cpus);
	if (self->nr_cpus < MAX_THREADS)
		TH_LOG("SMT off: only CPU %d of its core online", self->cpus[0]);

	memset(attr, 0, sizeof(attr));
	for (e = 0; e < NR_EVENTS; e++) {
		attr[e].size = sizeof(attr[e]);
		attr[e].read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				      PERF_FORMAT_TOTAL_TIME_RUNNING;
	}
	attr[0].type = PERF_TYPE_HARDWARE;
	attr[0].config = PERF_COUNT_HW_INSTRUCTIONS;
	attr[1].type = PERF_TYPE_RAW;
	attr[1].config = RAW_ALL_LOADS;
	attr[2].type = PERF_TYPE_HARDWARE;
	attr[2].config = PERF_COUNT_HW_CPU_CYCLES;
	attr[2].sample_period = 1000000;
	attr[2].sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	attr[2].wakeup_events = 1;

	for (t = 0; t < self->nr_cpus; t++) {
		for (e = 0; e < NR_EVENTS; e++) {
			self->fds[t][e] = perf_event_open(&attr[e], -1, self->cpus[t], -1, 0);
			if (self->fds[t][e] < 0 && (errno == ENOENT || errno == EOPNOTSUPP ||
						    errno == ENODEV))
				SKIP(return, "no hardware PMU for %s: %s", names[e],
				     strerror(errno));
			ASSERT_LE(0, self->fds[t][e])
				TH_LOG("%s on CPU %d: %s", names[e], self->cpus[t],
				       strerror(errno));
		}
		self->rb[t] = mmap(NULL, self->rb_size, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fds[t][2], 0);
		ASSERT_NE(MAP_FAILED, self->rb[t]);
		head[t] = rb_consume(self->rb[t]);

		self->busy[t] = fork();
		ASSERT_LE(0, self->busy[t]);
		if (!self->busy[t]) {
			busy_loop(self->cpus[t]);
			_exit(1);
		}
	}

	for (t = 0; t < self->nr_cpus; t++)
		for (e = 0; e < NR_EVENTS; e++)
			ASSERT_EQ(0, read_event(self->fds[t][e], &last[t][e]));

	/* as found, flipped, back, flipped again */
	for (phase = 0; phase < 4; phase++) {
		state = phase & 1 ? !self->orig : self->orig;
		if (phase)
			ASSERT_EQ(0, switch_set(state));
		ASSERT_EQ(state, switch_read());

		usleep(PHASE_US);

		for (t = 0; t < self->nr_cpus; t++) {
			for (e = 0; e < NR_EVENTS; e++) {
				ASSERT_EQ(0, read_event(self->fds[t][e], &now));
				EXPECT_LT(last[t][e].enabled, now.enabled)
					TH_LOG("phase %d, CPU %d: %s not enabled", phase,
					       self->cpus[t], names[e]);
				EXPECT_LT(last[t][e].running, now.running)
					TH_LOG("phase %d, CPU %d: %s never scheduled", phase,
					       self->cpus[t], names[e]);
				EXPECT_LT(last[t][e].value, now.value)
					TH_LOG("phase %d, CPU %d: %s stopped counting", phase,
					       self->cpus[t], names[e]);
				last[t][e] = now;
			}
			pos = rb_consume(self->rb[t]);
			EXPECT_NE(head[t], pos)
				TH_LOG("phase %d, CPU %d: no sample written", phase,
				       self->cpus[t]);
			head[t] = pos;
		}
	}
}

TEST_HARNESS_MAIN
