// SPDX-License-Identifier: GPL-2.0
/*
 * Large PEBS as perf record uses it: a precise instructions event whose
 * samples are PEBS records, left in the buffer until it reaches its
 * threshold or the event stops. (intel_pmu_hw_config() gives large PEBS
 * to a sample type that the records provide, here IP and PERIOD, without
 * a callchain.)
 *
 * freq_without_pmis: a frequency event (perf record -F, perf record's
 * default) of this task at user level. Every sample is at an instruction
 * of the loop it measures: only its code runs at user level between the
 * two ioctl()s, both in it. Once the kernel has stepped the period to
 * the loop's rate (a first run of about a second), the samples come at
 * FREQ a second of the task's time on the CPU, within half of it; none
 * is reported lost and the event is not throttled, at the
 * kernel.perf_event_max_sample_rate the system has (run it at the
 * default, 400 times FREQ; the kernel lowers it where samples take long,
 * as on an emulator's slow PMIs, but hardly to FREQ). The samples'
 * periods add up to at most the count. And the records take far fewer
 * PMIs than there are samples: the kernel steps the period at the tick
 * and drains the buffer there, where each record raised a PMI before.
 *
 * full_buffer_accounted: a fixed period of PERIOD kernel instructions of
 * this task, in a loop of system calls. At the PMI of the buffer's
 * threshold the NMI's own instructions count until the handler stops the
 * counter: at such a period they can fill the buffer, whose assist then
 * writes no record and does not reload the counter (Intel SDM); and the
 * records come faster than kernel.perf_event_max_sample_rate. Every
 * period the event counted is a sample, or one of the lost samples of a
 * PERF_RECORD_LOST_SAMPLES whose misc says why: a full buffer or the
 * throttle. 7.3 sampled nothing after the first full buffer, and
 * reported nothing.
 *
 * Both skip without PEBS; the second where the task may not count
 * kernel instructions (perf_event_paranoid) and, after its checks, where
 * no buffer filled; the first where the kernel has lowered the sample
 * rate limit under 4 * FREQ, and, after its other checks, where the
 * rate is off and the run took half as long again as it was sized for
 * (the CPU held up, as a virtual machine's can be). The task runs on one
 * CPU, on a hybrid machine one of cpu_core, which counts these events.
 * Other users of PMIs on that CPU (the NMI watchdog takes one every few
 * seconds) count in the first one's PMIs.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>
#include <linux/types.h>

#include "../kselftest_harness.h"

#ifdef __x86_64__

#define DATA_PAGES	256	/* ring buffer pages, a power of two */
#define FREQ		250	/* samples a second asked for */
#define WARM_NS		1000000000ULL	/* the frequency loop's first run */
#define RUN_NS		1000000000ULL	/* and its second, measured */
#define PERIOD		50	/* the full buffer's fixed period */
#define SYSCALLS	200	/* getppid()s between reads of the buffer */
#define FULL_NS		1000000000ULL	/* rounds of SYSCALLS for this long */

struct sample {
	__u64 ip;
	__u64 period;
};

/* What a ring buffer held: its samples, lost samples and throttles. */
struct tally {
	__u64 samples, outside, periods;
	__u64 lost, lost_full, lost_throttle, lost_other, lost_reports;
	__u64 full_reports, rb_lost, throttles;
};

/*
 * The range of the loop's code, both ioctl()s in it: the user-level
 * instructions the event counts.
 */
static unsigned long loop_start, loop_end;

/* Enable @fd, run @n iterations, disable it. */
static void run_loop(int fd, unsigned long n)
{
	long ret;

	asm volatile("lea 1f(%%rip), %%rcx\n\t"
		     "mov %%rcx, %[start]\n\t"
		     "lea 3f(%%rip), %%rcx\n\t"
		     "mov %%rcx, %[end]\n"
		     "1:\tmov %[nr], %%eax\n\t"
		     "mov %[enable], %%esi\n\t"
		     "syscall\n"
		     "2:\tdec %[n]\n\t"
		     "jnz 2b\n\t"
		     "mov %[nr], %%eax\n\t"
		     "mov %[disable], %%esi\n\t"
		     "syscall\n"
		     "3:"
		     : [n] "+r" (n), "=&a" (ret),
		       [start] "=m" (loop_start), [end] "=m" (loop_end)
		     : "D" ((long)fd), "d" (0L), [nr] "i" (__NR_ioctl),
		       [enable] "i" (PERF_EVENT_IOC_ENABLE),
		       [disable] "i" (PERF_EVENT_IOC_DISABLE)
		     : "rsi", "rcx", "r11", "memory");
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The PMIs that @cpu has taken (/proc/interrupts, its column CPU@cpu), or -1. */
static long long pmis(int cpu)
{
	char *line = NULL, *p, *end, name[16];
	long long n = -1;
	int i, col = -1;
	size_t size = 0;
	FILE *f;

	f = fopen("/proc/interrupts", "r");
	if (!f)
		return -1;
	snprintf(name, sizeof(name), "CPU%d", cpu);
	if (getline(&line, &size, f) > 0) {
		/* the header: the online CPUs */
		for (i = 0, p = strtok(line, " \t\n"); p;
		     i++, p = strtok(NULL, " \t\n"))
			if (!strcmp(p, name))
				col = i;
	}
	while (col >= 0 && getline(&line, &size, f) > 0) {
		p = line + strspn(line, " ");
		if (strncmp(p, "PMI:", 4))
			continue;
		p += 4;
		for (i = 0; i <= col; i++) {
			n = strtoll(p, &end, 10);
			if (end == p) {
				n = -1;
				break;
			}
			p = end;
		}
		break;
	}
	free(line);
	fclose(f);
	return n;
}

/*
 * Pin the task to the CPU it runs on or, on a hybrid machine, to the
 * first CPU of the PMU that counts PERF_TYPE_HARDWARE events (cpu_core).
 * The CPU, or -1.
 */
static int pin_cpu(void)
{
	cpu_set_t set;
	int cpu = -1;
	FILE *f;

	f = fopen("/sys/bus/event_source/devices/cpu_core/cpus", "r");
	if (f) {
		if (fscanf(f, "%d", &cpu) != 1)
			cpu = -1;
		fclose(f);
	} else {
		cpu = sched_getcpu();
	}
	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -1 : cpu;
}

/* kernel.perf_event_max_sample_rate, or -1 */
static int max_sample_rate(void)
{
	FILE *f;
	int rate;

	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &rate) != 1)
		rate = -1;
	fclose(f);
	return rate;
}

/* A precise instructions event of this task, its PEBS records the samples. */
static int open_pebs(struct perf_event_attr *attr)
{
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_HARDWARE;
	attr->config = PERF_COUNT_HW_INSTRUCTIONS;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
	attr->precise_ip = 2;
	attr->disabled = 1;
	attr->exclude_hv = 1;
	attr->exclude_guest = 1;
	return syscall(__NR_perf_event_open, attr, 0, -1, -1, 0);
}

/* Count the records of the ring buffer @rb not read yet into @t. */
static int read_ring(struct perf_event_mmap_page *rb, struct tally *t)
{
	char *data = (char *)rb + rb->data_offset;
	__u64 size = rb->data_size, head, tail;
	union {
		struct perf_event_header h;
		char bytes[256];
	} rec;
	struct sample *s;
	__u64 off, len, *lost;

	head = __atomic_load_n(&rb->data_head, __ATOMIC_ACQUIRE);
	for (tail = rb->data_tail; tail < head; tail += rec.h.size) {
		off = tail % size;
		memcpy(&rec.h, data + off, sizeof(rec.h));
		if (rec.h.size < sizeof(rec.h) || rec.h.size > sizeof(rec))
			return -1;
		len = size - off < rec.h.size ? size - off : rec.h.size;
		memcpy(rec.bytes, data + off, len);
		memcpy(rec.bytes + len, data, rec.h.size - len);

		switch (rec.h.type) {
		case PERF_RECORD_SAMPLE:
			s = (struct sample *)(&rec.h + 1);
			t->samples++;
			t->periods += s->period;
			if (s->ip < loop_start || s->ip >= loop_end)
				t->outside++;
			break;
		case PERF_RECORD_LOST_SAMPLES:
			lost = (__u64 *)(&rec.h + 1);
			t->lost += *lost;
			t->lost_reports++;
			switch (rec.h.misc & (PERF_RECORD_MISC_LOST_SAMPLES_FULL |
					      PERF_RECORD_MISC_LOST_SAMPLES_THROTTLE)) {
			case PERF_RECORD_MISC_LOST_SAMPLES_FULL:
				t->lost_full += *lost;
				t->full_reports++;
				break;
			case PERF_RECORD_MISC_LOST_SAMPLES_THROTTLE:
				t->lost_throttle += *lost;
				break;
			default:
				t->lost_other += *lost;
				break;
			}
			break;
		case PERF_RECORD_LOST:
			lost = (__u64 *)(&rec.h + 1);
			t->rb_lost += lost[1];
			break;
		case PERF_RECORD_THROTTLE:
			t->throttles++;
			break;
		}
	}
	__atomic_store_n(&rb->data_tail, tail, __ATOMIC_RELEASE);
	return 0;
}

FIXTURE(pebs) {
	struct perf_event_attr attr;
	struct perf_event_mmap_page *rb;
	size_t len;
	int fd, cpu;
};

FIXTURE_SETUP(pebs)
{
	self->fd = -1;
	self->rb = MAP_FAILED;
	self->len = (DATA_PAGES + 1) * sysconf(_SC_PAGESIZE);
	memset(&self->attr, 0, sizeof(self->attr));
	self->cpu = pin_cpu();
	ASSERT_LE(0, self->cpu) TH_LOG("no CPU to pin to: %s", strerror(errno));
}

FIXTURE_TEARDOWN(pebs)
{
	if (self->rb != MAP_FAILED)
		munmap(self->rb, self->len);
	if (self->fd >= 0)
		close(self->fd);
}

/* Why the event cannot be opened, if not for a bug: skip. */
static const char *cannot_open(int err)
{
	switch (err) {
	case ENOENT:		/* no such event */
	case EOPNOTSUPP:	/* no precise sampling */
	case ENODEV:		/* no PMU for it */
	case EINVAL:		/* precise_ip above what the PMU has */
		return "no PEBS for instructions";
	case EACCES:		/* perf_event_paranoid */
	case EPERM:		/* a security module, a seccomp filter */
		return "not allowed";
	}
	return NULL;
}

TEST_F(pebs, freq_without_pmis)
{
	struct tally warm = {}, t = {};
	unsigned long n = 1000;
	long long pmi0, pmi1;
	__u64 start, ns, run[2][2];
	int rate;
	bool near;

	/* perf_event_open() refuses a frequency over the limit */
	rate = max_sample_rate();
	if (rate >= 0 && rate < 4 * FREQ)
		SKIP(return, "kernel.perf_event_max_sample_rate is %d, under 4 * %d: set it back",
		     rate, FREQ);

	self->attr.freq = 1;
	self->attr.sample_freq = FREQ;
	self->attr.exclude_kernel = 1;
	self->attr.read_format = PERF_FORMAT_TOTAL_TIME_RUNNING;
	self->fd = open_pebs(&self->attr);
	if (self->fd < 0 && cannot_open(errno))
		SKIP(return, "%s: %s", cannot_open(errno), strerror(errno));
	ASSERT_LE(0, self->fd) TH_LOG("perf_event_open: %s", strerror(errno));
	self->rb = mmap(NULL, self->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->rb) TH_LOG("mmap: %s", strerror(errno));

	/* iterations for about WARM_NS, with the event off */
	do {
		n *= 2;
		start = now_ns();
		run_loop(-1, n);
		ns = now_ns() - start;
	} while (ns < WARM_NS / 16);
	n = n * WARM_NS / ns;

	/* the period stepped to the loop's rate */
	run_loop(self->fd, n);
	ASSERT_EQ(0, read_ring(self->rb, &warm));
	ASSERT_EQ(sizeof(run[0]), read(self->fd, run[0], sizeof(run[0])));

	/* the measured run, of about RUN_NS */
	pmi0 = pmis(self->cpu);
	start = now_ns();
	run_loop(self->fd, n * RUN_NS / WARM_NS);
	ns = now_ns() - start;
	pmi1 = pmis(self->cpu);
	ASSERT_EQ(0, read_ring(self->rb, &t));
	ASSERT_EQ(sizeof(run[1]), read(self->fd, run[1], sizeof(run[1])));

	TH_LOG("%llu samples in %llu ns running (%llu ns), %lld PMIs",
	       t.samples, run[1][1] - run[0][1], ns, pmi1 - pmi0);
	TH_LOG("%llu samples before; kernel.perf_event_max_sample_rate %d, then %d",
	       warm.samples, rate, max_sample_rate());
	ASSERT_EQ(0, warm.outside + t.outside);
	ASSERT_EQ(0, warm.lost + t.lost);
	ASSERT_EQ(0, warm.rb_lost + t.rb_lost);
	ASSERT_EQ(0, warm.throttles + t.throttles);
	ASSERT_LE(warm.periods + t.periods, run[1][0]);
	/* a PMI per record would be one per sample */
	if (pmi0 >= 0 && pmi1 >= 0)
		ASSERT_LT((pmi1 - pmi0) * 4, t.samples);

	/* FREQ a second of the task's time on the CPU, within half of it */
	ns = run[1][1] - run[0][1];
	near = t.samples * 2 * 1000000000ULL <= 3 * FREQ * ns &&
	       t.samples * 2 * 1000000000ULL >= FREQ * ns;
	if (!near && ns > 3 * RUN_NS / 2)
		SKIP(return, "the run took %llu ns for about %llu: the CPU was held up",
		     ns, RUN_NS);
	ASSERT_TRUE(near);
}

TEST_F(pebs, full_buffer_accounted)
{
	struct tally t = {};
	__u64 count, periods, end;
	int i;

	self->attr.sample_period = PERIOD;
	self->attr.exclude_user = 1;
	self->fd = open_pebs(&self->attr);
	if (self->fd < 0 && cannot_open(errno))
		SKIP(return, "%s: %s", cannot_open(errno), strerror(errno));
	ASSERT_LE(0, self->fd) TH_LOG("perf_event_open: %s", strerror(errno));
	self->rb = mmap(NULL, self->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->rb) TH_LOG("mmap: %s", strerror(errno));

	end = now_ns() + FULL_NS;
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0));
	do {
		for (i = 0; i < SYSCALLS; i++)
			syscall(__NR_getppid);
		ASSERT_EQ(0, read_ring(self->rb, &t));
	} while (now_ns() < end);
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, read_ring(self->rb, &t));
	ASSERT_EQ(sizeof(count), read(self->fd, &count, sizeof(count)));

	periods = count / PERIOD;
	TH_LOG("%llu periods: %llu samples, %llu lost", periods, t.samples,
	       t.lost);
	TH_LOG("%llu of a full buffer (%llu reports), %llu to the throttle",
	       t.lost_full, t.full_reports, t.lost_throttle);
	TH_LOG("kernel.perf_event_max_sample_rate now %d", max_sample_rate());
	ASSERT_EQ(0, t.rb_lost);
	ASSERT_EQ(0, t.lost_other) TH_LOG("a lost sample says no reason");
	/* no sample is made up */
	ASSERT_LE(t.samples + t.lost, periods);
	/*
	 * None goes missing. A report of a full buffer counts its records
	 * as of period + 1 events each, which may have been of period
	 * events each (the SDM does not say): up to one in PERIOD more.
	 * The restart after it starts a whole period where the counter was
	 * a period or more past its overflow: less than one period more a
	 * report. And the last period may be complete, its record to come.
	 */
	ASSERT_LE(periods, t.samples + t.lost + 1 + t.full_reports +
		  t.lost_full / PERIOD)
		TH_LOG("the event stopped sampling");
	if (!t.full_reports)
		SKIP(return, "no PEBS buffer filled");
}

#else /* !__x86_64__ */

TEST(large_pebs)
{
	SKIP(return, "PEBS is x86's");
}

#endif

TEST_HARNESS_MAIN
