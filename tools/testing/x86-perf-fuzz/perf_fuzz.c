// SPDX-License-Identifier: GPL-2.0
/*
 * perf_fuzz: a random driver of valid hardware events for the x86 event
 * scheduler and the HT erratum workaround of Sandy Bridge, Ivy Bridge and
 * Haswell (its exclusion state, the XSU), in the spirit of perf_fuzzer
 * (perf_event_tests), small and targeted: where a generic fuzzer rarely
 * makes a valid hardware event, nearly every event this one opens is.
 *
 * Two workers, one per CPU at first, each make events, groups pinned and
 * flexible, counting and sampling, of corrupting (0xd0-0xd3) and other
 * events, some with counter constraints, per task (the worker itself, or
 * one of two spinning children) and per CPU, and on them: enable,
 * disable, reset, refresh, period changes, set-output, reads, mmap and
 * ring reads, closes in any order, and moves to the other CPU. Beside
 * them, one thread toggles /sys/devices/cpu/ht_bug_workaround (and
 * writes values the ABI rejects), one takes CPU 1 offline and online,
 * and one measures a program of known counts (LOOP; mk/pmu-loop.S).
 *
 * What it checks as it runs:
 *   - every read: the size its read_format gives, time enabled >= time
 *     running, and a group's count of events;
 *   - every ring read: whole records of the types asked for, never more
 *     than the buffer holds;
 *   - the switch: a valid write takes and reads back, an invalid one
 *     fails with EINVAL and changes nothing;
 *   - the known program, while the workaround is on all the time it runs:
 *     where its group ran all the time it was enabled, its instructions,
 *     branches and loads (a corrupting event) are exact.
 * At the end, with every fd closed (the fds are what they were), the
 * per-CPU state must be idle: on each CPU in turn, four generic events,
 * a corrupting one among them, run all the time next to the idle
 * sibling. A counter left Exclusive or Shared, or a thread left
 * starving, would make them multiplex. Then the known program, measured
 * alone, is exact.
 *
 * The sequence of operations of each worker comes from the seed (-s);
 * the interleaving with the other threads does not. The last line is
 * "perf_fuzz: ok" or the first broken invariant, and the exit status 0
 * or 1. Run as root on an Intel PMU (the events are Haswell's).
 *
 * Usage: perf_fuzz [-v] [-s SEED] [-t SECONDS] [-T TOGGLE_MS] [-H HOTPLUG_MS]
 *		    [-l LOOP -i INSNS -b BRANCHES -m LOADS]
 * -v: every operation as it happens, on standard output.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SWITCH		"/sys/devices/cpu/ht_bug_workaround"
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define NR_WORKERS	2
#define NR_SPINNERS	2
#define MAX_EVENTS	24
#define RING_PAGES	8
#define MAX_READ	(8 + 16 + MAX_EVENTS * 24 * 2)

/*
 * Sampling periods (events) and frequencies (Hz), and the sampling events
 * a worker keeps at most: a PMI takes 60 to 200 microseconds in a guest
 * under QEMU TCG with KASAN and lockdep (the kernel's own measure), the
 * emulated cycles count at 1 GHz, and the sample rate's limit is per
 * event. With periods from 5,000,000 and any number of sampling events,
 * the guest's CPU 0 spent its time in PMIs while CPU 1 was offline: RCU
 * stalls.
 */
#define MIN_PERIOD	50000000
#define MAX_PERIOD	200000000
#define MIN_FREQ	1
#define MAX_FREQ	20
#define MAX_SAMPLING	4

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BIT_ULL(n)	(1ULL << (n))

/* Intel's raw event encoding */
#define EDGE		BIT_ULL(18)
#define INV		BIT_ULL(23)
#define CMASK(n)	((unsigned long long)(n) << 24)

struct kind {
	__u32 type;
	__u64 config;
};

/*
 * The events, as Haswell has them: the generic ones, the corrupting ones
 * of the erratum (0xd0-0xd3), some with counter constraints (0x148 on
 * counter 2, 0x8a3 on counter 2, 0x1c0 on counter 1), the INV/CMASK form
 * of Linux's precise cycles, edges, and software events to lead groups.
 */
static const struct kind kinds[] = {
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ PERF_TYPE_RAW, 0x81d0 },
	{ PERF_TYPE_RAW, 0x82d0 },
	{ PERF_TYPE_RAW, 0x01d1 },
	{ PERF_TYPE_RAW, 0x01d2 },
	{ PERF_TYPE_RAW, 0x01d3 },
	{ PERF_TYPE_RAW, 0x00c4 },
	{ PERF_TYPE_RAW, 0x00c0 },
	{ PERF_TYPE_RAW, 0x00c5 },
	{ PERF_TYPE_RAW, 0x0148 },
	{ PERF_TYPE_RAW, 0x08a3 },
	{ PERF_TYPE_RAW, 0x01c0 },
	{ PERF_TYPE_RAW, 0x01c2 | INV | CMASK(16) },
	{ PERF_TYPE_RAW, 0x00c4 | EDGE | CMASK(1) },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
};

#define NR_KINDS	ARRAY_SIZE(kinds)
#define READ_STOP()	__atomic_load_n(&stop, __ATOMIC_RELAXED)

struct event {
	int fd;
	bool leader;
	bool sampling;
	pid_t pid;
	int cpu;
	__u64 read_format;
	__u64 sample_type;
	void *ring;
};

struct worker {
	int id;
	pthread_t thread;
	__u64 rng;
	struct event ev[MAX_EVENTS];
	int nr;
	unsigned long opened, failed_opens, ops, reads, records;
};

static struct worker workers[NR_WORKERS];
static pid_t spinners[NR_SPINNERS];
static int stop;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static char failure[512];
static bool verbose;

/*
 * The last HISTORY operations of every thread, with their time (ms since
 * the start), as they happened: the first failure keeps a copy, printed
 * at the end, so that a failure seen once says what led to it. Under
 * report_lock.
 */
#define HISTORY		64
#define HISTORY_LINE	160
static char history[HISTORY][HISTORY_LINE];
static char history_at_failure[HISTORY][HISTORY_LINE];
static unsigned int history_next, history_kept;
static struct timespec start_time;

/* Every operation and its result, into the history; with -v, printed too */
static void trace(const char *fmt, ...)
{
	struct timespec now;
	char *line;
	va_list ap;
	int n;

	pthread_mutex_lock(&report_lock);
	clock_gettime(CLOCK_MONOTONIC, &now);
	line = history[history_next++ % HISTORY];
	n = snprintf(line, HISTORY_LINE, "%8ld ",
		     (long)((now.tv_sec - start_time.tv_sec) * 1000 +
			    (now.tv_nsec - start_time.tv_nsec) / 1000000));
	va_start(ap, fmt);
	vsnprintf(line + n, HISTORY_LINE - n, fmt, ap);
	va_end(ap);
	if (verbose) {
		fputs(line, stdout);
		fflush(stdout);
	}
	pthread_mutex_unlock(&report_lock);
}

/*
 * The switch's state and its writers: the toggling thread holds the lock
 * for writing while it writes the switch, the loop's measurement holds it
 * for reading while the program runs, so that the workaround stays as
 * sw_on says for the whole measurement.
 */
static pthread_rwlock_t sw_lock = PTHREAD_RWLOCK_INITIALIZER;
static bool sw_on;
static unsigned long toggles, rejected, hotplugs, hotplug_errors;
static unsigned long loop_exact, loop_multiplexed, loop_off;

static const char *loop_path;
static __u64 loop_insns, loop_branches, loop_loads;

static void fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&report_lock);
	if (!failure[0]) {
		va_start(ap, fmt);
		vsnprintf(failure, sizeof(failure), fmt, ap);
		va_end(ap);
		memcpy(history_at_failure, history, sizeof(history));
		history_kept = history_next;
	}
	pthread_mutex_unlock(&report_lock);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

/* xorshift64*: each worker's own sequence, from the seed */
static __u64 rnd(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static unsigned int below(__u64 *s, unsigned int n)
{
	return rnd(s) % n;
}

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
		       PERF_FLAG_FD_CLOEXEC);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

static int read_switch(void)
{
	char c = 0;
	int fd = open(SWITCH, O_RDONLY);

	if (fd < 0)
		return -1;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '1' ? 1 : c == '0' ? 0 : -1;
}

/* Loads and branches, so that the events count */
static void spin(unsigned long n)
{
	unsigned long i, sink = 0;

	for (i = 0; i < n; i++) {
		sink += i;
		__asm__ __volatile__("" : "+r" (sink));
	}
}

static size_t read_size(__u64 rf, unsigned int nr)
{
	size_t per = 8 + (rf & PERF_FORMAT_ID ? 8 : 0) +
		     (rf & PERF_FORMAT_LOST ? 8 : 0);
	size_t times = (rf & PERF_FORMAT_TOTAL_TIME_ENABLED ? 8 : 0) +
		       (rf & PERF_FORMAT_TOTAL_TIME_RUNNING ? 8 : 0);

	if (rf & PERF_FORMAT_GROUP)
		return 8 + times + nr * per;
	return per + times;
}

/*
 * Read an event and check what came back: the size its read_format
 * gives, time enabled >= time running. An event in error state (a pinned
 * one that found no counter) reads as end of file.
 */
static void check_read(struct worker *w, struct event *e)
{
	__u64 buf[MAX_READ / 8];
	__u64 enabled, running, nr = 1;
	ssize_t n;
	int i = 0;

	n = read(e->fd, buf, sizeof(buf));
	w->reads++;
	if (n == 0)
		return;
	if (n < 0) {
		fail("read of an event (fd %d): %s", e->fd, strerror(errno));
		return;
	}
	if (e->read_format & PERF_FORMAT_GROUP) {
		nr = buf[i++];
		if (nr < 1 || nr > MAX_EVENTS * NR_WORKERS) {
			fail("read: a group of %llu events",
			     (unsigned long long)nr);
			return;
		}
	} else {
		i++;
	}
	if ((size_t)n != read_size(e->read_format, nr)) {
		fail("read: %zd bytes for read_format %#llx and %llu events",
		     n, (unsigned long long)e->read_format,
		     (unsigned long long)nr);
		return;
	}
	if ((e->read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) &&
	    (e->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)) {
		enabled = buf[i];
		running = buf[i + 1];
		if (running > enabled)
			fail("read of fd %d: time running %llu > time enabled %llu",
			     e->fd, (unsigned long long)running,
			     (unsigned long long)enabled);
	}
}

/*
 * Consume an event's ring: whole records of the types its attributes
 * ask for, never more unread data than the buffer holds (the ring is
 * mapped writable: the kernel does not overwrite what was not read).
 */
static void read_ring(struct worker *w, struct event *e)
{
	struct perf_event_mmap_page *pg = e->ring;
	char *data = (char *)e->ring + pg->data_offset;
	__u64 head, tail, size = pg->data_size;
	struct perf_event_header *h;

	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	if (head - tail > size) {
		fail("ring: %llu bytes unread in a ring of %llu",
		     (unsigned long long)(head - tail),
		     (unsigned long long)size);
		return;
	}
	while (tail < head) {
		h = (struct perf_event_header *)(data + tail % size);
		if (h->size < sizeof(*h) || h->size % 8 ||
		    tail + h->size > head) {
			fail("ring: a record of %u bytes at %llu of %llu",
			     h->size, (unsigned long long)tail,
			     (unsigned long long)head);
			return;
		}
		switch (h->type) {
		case PERF_RECORD_SAMPLE:
		case PERF_RECORD_LOST:
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
		case PERF_RECORD_LOST_SAMPLES:
			break;
		default:
			fail("ring: a record of type %u", h->type);
			return;
		}
		tail += h->size;
		w->records++;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

static void close_event(struct worker *w, int i)
{
	struct event *e = &w->ev[i];

	trace("w%d close %d\n", w->id, e->fd);
	if (e->ring)
		munmap(e->ring, (RING_PAGES + 1) * getpagesize());
	close(e->fd);
	w->ev[i] = w->ev[--w->nr];
}

static void open_event(struct worker *w)
{
	static const __u64 formats[] = {
		PERF_FORMAT_TOTAL_TIME_ENABLED, PERF_FORMAT_TOTAL_TIME_RUNNING,
		PERF_FORMAT_ID, PERF_FORMAT_GROUP, PERF_FORMAT_LOST,
	};
	static const __u64 samples[] = {
		PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
		PERF_SAMPLE_PERIOD, PERF_SAMPLE_CPU, PERF_SAMPLE_READ,
	};
	const struct kind *k = &kinds[below(&w->rng, NR_KINDS)];
	struct perf_event_attr attr;
	struct event *e, *leader = NULL;
	unsigned int i, sampling = 0;
	int group_fd = -1, fd;

	if (w->nr == MAX_EVENTS)
		return;
	for (i = 0; i < (unsigned int)w->nr; i++)
		sampling += w->ev[i].sampling;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = k->type;
	attr.config = k->config;
	attr.exclude_kernel = below(&w->rng, 3) == 0;
	attr.exclude_user = !attr.exclude_kernel && below(&w->rng, 6) == 0;
	attr.exclude_hv = 1;
	attr.disabled = below(&w->rng, 3) == 0;
	for (i = 0; i < ARRAY_SIZE(formats); i++)
		if (below(&w->rng, 2))
			attr.read_format |= formats[i];
	if (below(&w->rng, 2) && sampling < MAX_SAMPLING) {
		if (below(&w->rng, 4) == 0) {
			attr.freq = 1;
			attr.sample_freq = MIN_FREQ + below(&w->rng, MAX_FREQ);
		} else {
			attr.sample_period = MIN_PERIOD +
					     below(&w->rng, MAX_PERIOD);
		}
		for (i = 0; i < ARRAY_SIZE(samples); i++)
			if (below(&w->rng, 2))
				attr.sample_type |= samples[i];
		attr.wakeup_events = 1;
	}

	/* A sibling of one of this worker's groups, or a new group */
	if (w->nr && below(&w->rng, 5) < 2) {
		leader = &w->ev[below(&w->rng, w->nr)];
		if (!leader->leader)
			leader = NULL;
	}
	e = &w->ev[w->nr];
	memset(e, 0, sizeof(*e));
	if (leader) {
		group_fd = leader->fd;
		e->pid = leader->pid;
		e->cpu = leader->cpu;
	} else {
		attr.pinned = below(&w->rng, 5) == 0;
		switch (below(&w->rng, 4)) {
		case 0:
			e->pid = 0;
			e->cpu = -1;
			break;
		case 1:
			e->pid = spinners[below(&w->rng, NR_SPINNERS)];
			e->cpu = -1;
			break;
		case 2:
			e->pid = -1;
			e->cpu = below(&w->rng, 2);
			break;
		default:
			e->pid = 0;
			e->cpu = below(&w->rng, 2);
			break;
		}
	}
	fd = perf_open(&attr, e->pid, e->cpu, group_fd);
	trace("w%d open %u:%#llx u%d k%d pid %d cpu %d grp %d pin %d off %d %s %llu rf %#llx: %d\n",
	      w->id, attr.type, (unsigned long long)attr.config,
	      !attr.exclude_user, !attr.exclude_kernel, e->pid, e->cpu,
	      group_fd, attr.pinned, attr.disabled,
	      attr.freq ? "freq" : "period",
	      (unsigned long long)attr.sample_period,
	      (unsigned long long)attr.read_format, fd < 0 ? -errno : fd);
	if (fd < 0) {
		w->failed_opens++;
		return;
	}
	w->opened++;
	e->fd = fd;
	e->leader = !leader;
	e->sampling = attr.sample_period != 0;
	e->read_format = attr.read_format;
	e->sample_type = attr.sample_type;
	w->nr++;
}

static void ioctl_event(struct worker *w, struct event *e)
{
	__u32 flag = below(&w->rng, 3) == 0 ? PERF_IOC_FLAG_GROUP : 0;
	unsigned int cmd = below(&w->rng, 7);
	__u64 period;
	struct event *o;

	trace("w%d ioctl %d op %u flag %u\n", w->id, e->fd, cmd, flag);
	switch (cmd) {
	case 0:
	case 1:
		ioctl(e->fd, PERF_EVENT_IOC_ENABLE, flag);
		break;
	case 2:
		ioctl(e->fd, PERF_EVENT_IOC_DISABLE, flag);
		break;
	case 3:
		ioctl(e->fd, PERF_EVENT_IOC_RESET, flag);
		break;
	case 4:
		/* REFRESH: only sampling events take it */
		ioctl(e->fd, PERF_EVENT_IOC_REFRESH, 1 + below(&w->rng, 4));
		break;
	case 5:
		period = MIN_PERIOD + below(&w->rng, MAX_PERIOD);
		ioctl(e->fd, PERF_EVENT_IOC_PERIOD, &period);
		break;
	default:
		o = &w->ev[below(&w->rng, w->nr)];
		if (o->ring)
			ioctl(e->fd, PERF_EVENT_IOC_SET_OUTPUT, o->fd);
		break;
	}
}

static void mmap_event(struct event *e)
{
	void *p;

	if (e->ring || !e->sampling)
		return;
	p = mmap(NULL, (RING_PAGES + 1) * getpagesize(),
		 PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
	if (p != MAP_FAILED)
		e->ring = p;
}

static void migrate(struct worker *w)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(below(&w->rng, 2), &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;
	unsigned int op;
	int i;

	CPU_ZERO(&set);
	CPU_SET(w->id, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!READ_STOP()) {
		op = below(&w->rng, 100);
		i = w->nr ? (int)below(&w->rng, w->nr) : -1;
		w->ops++;
		trace("w%d op %u on %d\n", w->id, op, i < 0 ? -1 : w->ev[i].fd);
		if (op < 25 || i < 0)
			open_event(w);
		else if (op < 37)
			close_event(w, i);
		else if (op < 60)
			ioctl_event(w, &w->ev[i]);
		else if (op < 72)
			check_read(w, &w->ev[i]);
		else if (op < 77)
			mmap_event(&w->ev[i]);
		else if (op < 85 && w->ev[i].ring)
			read_ring(w, &w->ev[i]);
		else if (op < 88)
			migrate(w);
		else
			spin(20000 + below(&w->rng, 200000));
	}
	while (w->nr)
		close_event(w, w->nr - 1);
	return NULL;
}

static void *toggle_main(void *arg)
{
	static const char * const invalid[] = { "2", "x", "-1", "o" };
	unsigned int ms = *(unsigned int *)arg, n = 0;
	bool on;
	int err;

	while (!READ_STOP()) {
		sleep_ms(ms);
		pthread_rwlock_wrlock(&sw_lock);
		if (++n % 8 == 0) {
			err = write_file(SWITCH, invalid[n / 8 % 4]);
			if (err != -EINVAL || read_switch() != sw_on)
				fail("switch: \"%s\" gave %d and left %d",
				     invalid[n / 8 % 4], err, read_switch());
			rejected++;
		} else {
			on = !sw_on;
			trace("switch %d\n", on);
			err = write_file(SWITCH, on ? "1" : "0");
			if (err || read_switch() != on)
				fail("switch: \"%d\" gave %d and left %d",
				     on, err, read_switch());
			sw_on = on;
			toggles++;
		}
		pthread_rwlock_unlock(&sw_lock);
	}
	return NULL;
}

static void *hotplug_main(void *arg)
{
	unsigned int ms = *(unsigned int *)arg;

	while (!READ_STOP()) {
		sleep_ms(ms);
		trace("cpu1 offline\n");
		if (write_file(CPU1_ONLINE, "0")) {
			hotplug_errors++;
			continue;
		}
		sleep_ms(ms);
		trace("cpu1 online\n");
		if (write_file(CPU1_ONLINE, "1"))
			hotplug_errors++;
		else
			hotplugs++;
	}
	return NULL;
}

/*
 * The known program under a group of its instructions, branches and
 * loads, counted in user mode from its exec (enable_on_exec), as perf
 * stat counts it.
 */
static void measure_loop(void)
{
	static const __u32 types[] = {
		PERF_TYPE_HARDWARE, PERF_TYPE_RAW, PERF_TYPE_RAW,
	};
	static const __u64 configs[] = {
		PERF_COUNT_HW_INSTRUCTIONS, 0x00c4, 0x81d0,
	};
	const __u64 want[] = { loop_insns, loop_branches, loop_loads };
	struct perf_event_attr attr;
	int fds[3], p[2], status, i, leader = -1;
	__u64 buf[6];
	bool on;
	pid_t pid;

	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		char c;

		close(p[1]);
		if (read(p[0], &c, 1) == 1)
			execl(loop_path, loop_path, NULL);
		_exit(127);
	}
	close(p[0]);
	for (i = 0; i < 3; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = types[i];
		attr.config = configs[i];
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		attr.disabled = i == 0;
		attr.enable_on_exec = i == 0;
		attr.read_format = PERF_FORMAT_GROUP |
				   PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		fds[i] = perf_open(&attr, pid, -1, leader);
		if (fds[i] < 0) {
			fail("loop: perf_event_open of %#llx: %s",
			     (unsigned long long)configs[i], strerror(errno));
			kill(pid, SIGKILL);
			close(p[1]);
			waitpid(pid, NULL, 0);
			while (i--)
				close(fds[i]);
			return;
		}
		leader = fds[0];
	}
	pthread_rwlock_rdlock(&sw_lock);
	on = sw_on;
	if (write(p[1], "g", 1) != 1)
		kill(pid, SIGKILL);
	close(p[1]);
	waitpid(pid, &status, 0);
	pthread_rwlock_unlock(&sw_lock);
	if (read(fds[0], buf, sizeof(buf)) != sizeof(buf) || buf[0] != 3) {
		fail("loop: the group's read");
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fail("loop: %s exited with status %#x", loop_path, status);
	} else if (buf[1] < buf[2]) {
		fail("loop: time running %llu > time enabled %llu",
		     (unsigned long long)buf[2], (unsigned long long)buf[1]);
	} else if (!on) {
		loop_off++;
	} else if (buf[1] != buf[2]) {
		loop_multiplexed++;
	} else {
		for (i = 0; i < 3; i++)
			if (buf[3 + i] != want[i])
				fail("loop: %#llx counted %llu, not %llu",
				     (unsigned long long)configs[i],
				     (unsigned long long)buf[3 + i],
				     (unsigned long long)want[i]);
		loop_exact++;
	}
	for (i = 0; i < 3; i++)
		close(fds[i]);
}

static void *loop_main(void *arg)
{
	(void)arg;
	while (!READ_STOP()) {
		measure_loop();
		sleep_ms(50);
	}
	return NULL;
}

/*
 * Four generic events, a corrupting one among them, on CPU cpu while
 * nothing else measures: they must run all the time.
 */
static void check_idle(int cpu)
{
	static const __u64 configs[] = { 0x81d0, 0x00c4, 0x00c0, 0x00c5 };
	__u64 buf[3];
	struct perf_event_attr attr;
	int fds[4], i;

	for (i = 0; i < 4; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_RAW;
		attr.config = configs[i];
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		fds[i] = perf_open(&attr, -1, cpu, -1);
		if (fds[i] < 0) {
			fail("idle: perf_event_open on CPU %d: %s", cpu,
			     strerror(errno));
			while (i--)
				close(fds[i]);
			return;
		}
	}
	/* Several multiplexing intervals (4 ms at HZ=250) */
	sleep_ms(300);
	for (i = 0; i < 4; i++) {
		if (read(fds[i], buf, sizeof(buf)) != sizeof(buf))
			fail("idle: read on CPU %d", cpu);
		else if (buf[1] != buf[2] || !buf[1])
			fail("idle: %#llx on CPU %d ran %llu of %llu ns next to an idle sibling",
			     (unsigned long long)configs[i], cpu,
			     (unsigned long long)buf[2],
			     (unsigned long long)buf[1]);
	}
	for (i = 0; i < 4; i++)
		close(fds[i]);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: perf_fuzz [-v] [-s SEED] [-t SECONDS] [-T TOGGLE_MS] [-H HOTPLUG_MS]\n"
		"                 [-l LOOP -i INSNS -b BRANCHES -m LOADS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	unsigned int secs = 30, toggle_ms = 100, hotplug_ms = 1000;
	pthread_t toggler, plugger, looper;
	unsigned long opened = 0, failed = 0, ops = 0, reads = 0, records = 0;
	int fds_before, i, opt, cpu;
	unsigned long n;
	unsigned int h;

	while ((opt = getopt(argc, argv, "s:t:T:H:l:i:b:m:v")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			secs = strtoul(optarg, NULL, 0);
			break;
		case 'T':
			toggle_ms = strtoul(optarg, NULL, 0);
			break;
		case 'H':
			hotplug_ms = strtoul(optarg, NULL, 0);
			break;
		case 'l':
			loop_path = optarg;
			break;
		case 'i':
			loop_insns = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			loop_branches = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			loop_loads = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			bad_usage();
		}
	}
	if (!seed || !toggle_ms || !hotplug_ms ||
	    (loop_path && (!loop_insns || !loop_branches || !loop_loads)))
		bad_usage();
	printf("perf_fuzz: seed %llu, %u s, switch every %u ms, CPU 1 off and on every %u ms\n",
	       seed, secs, toggle_ms, 2 * hotplug_ms);
	if (write_file(SWITCH, "1") || read_switch() != 1) {
		printf("perf_fuzz: %s cannot be switched on\n", SWITCH);
		return 1;
	}
	sw_on = true;
	clock_gettime(CLOCK_MONOTONIC, &start_time);
	fds_before = count_fds();

	for (i = 0; i < NR_SPINNERS; i++) {
		spinners[i] = fork();
		if (spinners[i] == 0) {
			for (;;)
				spin(1000000);
		}
	}
	for (i = 0; i < NR_WORKERS; i++) {
		workers[i].id = i;
		workers[i].rng = seed * 2 + i;
		rnd(&workers[i].rng);
		pthread_create(&workers[i].thread, NULL, worker_main,
			       &workers[i]);
	}
	pthread_create(&toggler, NULL, toggle_main, &toggle_ms);
	pthread_create(&plugger, NULL, hotplug_main, &hotplug_ms);
	if (loop_path)
		pthread_create(&looper, NULL, loop_main, NULL);

	for (i = 0; i < (int)secs * 10 && !READ_STOP(); i++)
		sleep_ms(100);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < NR_WORKERS; i++) {
		pthread_join(workers[i].thread, NULL);
		opened += workers[i].opened;
		failed += workers[i].failed_opens;
		ops += workers[i].ops;
		reads += workers[i].reads;
		records += workers[i].records;
	}
	pthread_join(toggler, NULL);
	pthread_join(plugger, NULL);
	if (loop_path)
		pthread_join(looper, NULL);
	for (i = 0; i < NR_SPINNERS; i++) {
		kill(spinners[i], SIGKILL);
		waitpid(spinners[i], NULL, 0);
	}
	if (write_file(CPU1_ONLINE, "1"))
		fail("CPU 1 does not come back online");
	/* The threads are gone: sw_lock is not needed. */
	if (write_file(SWITCH, "1"))
		fail("the switch does not go back on");
	else
		sw_on = true;

	printf("# events opened %lu (%lu opens failed), operations %lu\n",
	       opened, failed, ops);
	printf("# reads %lu, ring records %lu\n", reads, records);
	printf("# switch writes %lu (%lu rejected)\n", toggles, rejected);
	printf("# CPU 1 offline and online %lu times (%lu writes failed)\n",
	       hotplugs, hotplug_errors);
	if (loop_path)
		printf("# the loop alongside: %lu exact, %lu multiplexed, %lu switch off\n",
		       loop_exact, loop_multiplexed, loop_off);
	if (!failure[0] && count_fds() != fds_before)
		fail("fds: %d open, %d before", count_fds(), fds_before);
	for (cpu = 0; cpu < 2 && !failure[0]; cpu++)
		check_idle(cpu);
	/* And the loop alone, now that nothing else measures: exact. */
	if (!failure[0] && loop_path) {
		n = loop_exact;
		measure_loop();
		if (!failure[0] && loop_exact != n + 1)
			fail("loop: %s with nothing else measuring",
			     sw_on ? "multiplexed" : "the switch off");
	}
	if (!failure[0] && !opened)
		fail("no event opened");
	if (failure[0]) {
		h = history_kept < HISTORY ? history_kept : HISTORY;
		printf("# the last %u operations before the failure (ms, thread, what):\n",
		       h);
		for (h = history_kept - h; h < history_kept; h++)
			printf("# %s", history_at_failure[h % HISTORY]);
		printf("perf_fuzz: seed %llu: %s\n", seed, failure);
		return 1;
	}
	printf("perf_fuzz: ok\n");
	return 0;
}
