// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of PEBS on synthetic DS buffers.
 *
 * #included at the end of arch/x86/events/intel/ds.c, so it drives the
 * driver's own code: the setup of a PEBS event, intel_pmu_hw_config()
 * (through fake_pmu_intel_hw_config()) and intel_pmu_pebs_enable() with
 * pebs_update_threshold(), and the drains, intel_pmu_drain_pebs_nhm() for
 * PEBS format 3, intel_pmu_drain_pebs_icl() for adaptive PEBS and
 * intel_pmu_drain_arch_pebs() for architectural PEBS.
 *
 * A test installs a fake PEBS PMU (fake_pmu_install() and the x86_pmu
 * fields that intel_pmu_init() and intel_ds_init() set for the format),
 * gets a DS area and a PEBS buffer of its own and writes records into the
 * buffer as the CPU would. The driver works on this CPU's cpu_hw_events:
 * pebs_cpu_enter() disables interrupts, as a drain runs, saves and clears
 * them and points their DS area at the test's; pebs_cpu_exit() puts them
 * back as they were and enables interrupts again. Code in between may
 * neither sleep nor fail an assertion; what the tests check is read after
 * pebs_cpu_exit(). Without a registered PMU driver (that is when
 * fake_pmu_install() lets a test run) nothing else uses cpu_hw_events.
 *
 * KUnit static stubs replace the hardware seams, for the test's thread
 * only:
 *  - intel_pmu_pebs_read_counter(): the counter read of an auto-reload
 *    event returns what the test put in pebs_test.counter[];
 *  - pebs_tsc_to_time(): a record's TSC becomes PEBS_TEST_TIME(tsc), a
 *    clock that is not the TSC, so that a sample's time can only come
 *    from its own record;
 *  - pebs_paravirt_sched_clock(): sched_clock() is the native one, unless
 *    the test says it is a paravirt one (pebs_test.paravirt);
 *  - intel_pmu_pebs_output() and intel_pmu_pebs_overflow(): each sample is
 *    recorded in pebs_test.samples[] with the path it took; the latter's
 *    then goes on to perf_event_overflow(), whose throttle stops the event
 *    through the core PMU's x86_pmu_stop();
 *  - arch_pebs_index_read() and arch_pebs_index_write(): arch-PEBS's
 *    MSR_IA32_PEBS_INDEX is pebs_test.arch_index;
 *  - x86_perf_event_write_counter() (fake_pmu_stub_counter_write()): the
 *    value a counter would start at is pebs_test.counter_start;
 * Two callbacks of the fake PMU, global as x86_pmu is (no PMU driver is
 * registered while a test runs):
 *  - x86_pmu.set_period: the call is counted, with the period_left it
 *    was given, and goes on to intel_pmu_set_period(). Its
 *    x86_perf_event_set_period() returns at once, as for every event
 *    without a counter base (hw.event_base 0, as an event of the fake PMU
 *    has): it neither computes the next period nor writes the counter,
 *    which a test sets up itself where it matters; pebs_restart_due()
 *    gives its event a base, and sees the write through the stub;
 *  - x86_pmu.disable, which would write the counter's EVTSEL
 *    (intel_pmu_disable_event()): only the format's PEBS disable runs,
 *    which drains a large PEBS buffer first.
 * They go into their static calls, and x86_pmu.drain_pebs into its own,
 * which that drain calls (put back when the test ends). A drain outside
 * NMI accounts its time per sample (perf_sample_event_took()): one held
 * up lowers kernel.perf_event_max_sample_rate as on a machine.
 *
 * What the driver would write to MSRs is left out where the setup is
 * modelled (pebs_test_start()); nothing here reaches a wrmsr or rdpmc, as
 * the PMU is disabled (cpuc->enabled 0) and no event has a counter base
 * but one whose counter write is stubbed.
 */

#include "fake_pmu.h"

#define PEBS_TEST_MAX_SAMPLES	64
#define PEBS_TEST_PERIOD	100003ULL
/* the sched_clock() time of a TSC, as the stubbed conversion has it */
#define PEBS_TEST_TIME(tsc)	(2 * (tsc) + 1000000000ULL)
#define PEBS_TEST_TSC(i)	(5000000ULL + 1009 * (i))
#define PEBS_TEST_IP(i)		(0xffffffff81000000ULL + 0x10 * (i))
#define PEBS_TEST_ADDR(i)	(0xffff888000100000ULL + 0x40 * (i))
#define PEBS_TEST_EVENT		0x01c0	/* INST_RETIRED.PREC_DIST */

/* Skylake: PEBS format 3 on the 4 generic counters; 3 fixed counters */
static const struct fake_pmu_desc pebs_skl_pmu = {
	.cntr_mask		= 0xf,
	.fixed_cntr_mask	= 0x7,
};

/* Ice Lake: adaptive PEBS (format 4, baseline) on 8 generic, 4 fixed */
static const struct fake_pmu_desc pebs_icl_pmu = {
	.cntr_mask		= 0xff,
	.fixed_cntr_mask	= 0xf,
};

/**
 * struct pebs_test_sample - a sample as it left the driver
 * @event: its event
 * @overflow: through perf_event_overflow() rather than perf_event_output()
 * @sample_flags: perf_sample_data.sample_flags
 * @time: perf_sample_data.time, 0 unless PERF_SAMPLE_TIME is in @sample_flags
 * @period: perf_sample_data.period
 * @addr: perf_sample_data.addr, 0 unless PERF_SAMPLE_ADDR is in @sample_flags
 * @ip: the sample's regs->ip
 * @ax: the sample's regs->ax
 */
struct pebs_test_sample {
	struct perf_event	*event;
	bool			overflow;
	u64			sample_flags;
	u64			time;
	u64			period;
	u64			addr;
	u64			ip;
	u64			ax;
};

/**
 * struct pebs_test - the state of one test, in test->priv
 * @ds: the DS area that this CPU's cpu_hw_events point at in the window
 * @buffer: the PEBS buffer of @ds, x86_pmu.pebs_buffer_size bytes
 * @saved: this CPU's cpu_hw_events as pebs_cpu_enter() found them
 * @cpu: the CPU of the last window
 * @iregs: the interrupted registers a drain in the PMI gets
 * @counter: what the stubbed counter read returns, per counter index
 * @pebs_enabled: cpuc->pebs_enabled at pebs_cpu_exit()
 * @pebs_record_size: cpuc->pebs_record_size at pebs_cpu_exit()
 * @irq_flags: the interrupt state pebs_cpu_enter() found
 * @n_reads: calls of the counter read
 * @n_times: calls of the TSC conversion since pebs_cpu_enter() (the setup
 *	of a PEBS event makes one: intel_pmu_large_pebs_time())
 * @no_time: the TSC conversion fails (the TSC is not the clocksource)
 * @paravirt: sched_clock() is a paravirt one (kvm-clock, say)
 * @n_output: samples through intel_pmu_pebs_output()
 * @n_overflow: samples through intel_pmu_pebs_overflow()
 * @arch_index: arch-PEBS's MSR_IA32_PEBS_INDEX, as its drain reads it
 * @n_index_writes: the drain's writes of @arch_index
 * @n_set_period: calls of x86_pmu_set_period()
 * @set_period_left: hw.period_left of the event of the last of those calls
 * @n_samples: entries of @samples
 * @samples: the samples in the order they left the driver
 */
struct pebs_test {
	struct debug_store	*ds;
	void			*buffer;
	struct cpu_hw_events	*saved;
	int			cpu;
	struct pt_regs		iregs;
	u64			counter[X86_PMC_IDX_MAX];
	u64			pebs_enabled;
	int			pebs_record_size;
	unsigned long		irq_flags;
	unsigned int		n_reads;
	unsigned int		n_times;
	bool			no_time;
	bool			paravirt;
	unsigned int		n_output;
	unsigned int		n_overflow;
	u64			arch_index;
	unsigned int		n_index_writes;
	unsigned int		n_set_period;
	s64			set_period_left;
	u64			counter_start;
	unsigned int		n_samples;
	struct pebs_test_sample	samples[PEBS_TEST_MAX_SAMPLES];
};

static struct pebs_test *pebs_test_of_current(void)
{
	return kunit_get_current_test()->priv;
}

static u64 pebs_test_read_counter(struct hw_perf_event *hwc)
{
	struct pebs_test *t = pebs_test_of_current();

	t->n_reads++;
	return t->counter[hwc->idx];
}

static bool pebs_test_tsc_to_time(u64 tsc, u64 *time)
{
	struct pebs_test *t = pebs_test_of_current();

	t->n_times++;
	if (t->no_time)
		return false;
	*time = PEBS_TEST_TIME(tsc);
	return true;
}

static bool pebs_test_paravirt_sched_clock(void)
{
	return pebs_test_of_current()->paravirt;
}

static void pebs_test_record(struct perf_event *event,
			     struct perf_sample_data *data,
			     struct pt_regs *regs, bool overflow)
{
	struct pebs_test *t = pebs_test_of_current();
	struct pebs_test_sample *s;

	if (t->n_samples == PEBS_TEST_MAX_SAMPLES)
		return;

	s = &t->samples[t->n_samples++];
	s->event = event;
	s->overflow = overflow;
	s->sample_flags = data->sample_flags;
	s->time = data->sample_flags & PERF_SAMPLE_TIME ? data->time : 0;
	s->period = data->period;
	s->addr = data->sample_flags & PERF_SAMPLE_ADDR ? data->addr : 0;
	s->ip = regs->ip;
	s->ax = regs->ax;
}

static void pebs_test_output(struct perf_event *event,
			     struct perf_sample_data *data,
			     struct pt_regs *regs)
{
	pebs_test_of_current()->n_output++;
	pebs_test_record(event, data, regs, false);
}

static void pebs_test_overflow(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	struct pebs_test *t = pebs_test_of_current();

	t->n_overflow++;
	pebs_test_record(event, data, regs, true);
	perf_event_overflow(event, data, regs);
}

/* The sample's consumer: perf_event_overflow() calls it, as a sink. */
static void pebs_test_overflow_handler(struct perf_event *event,
				       struct perf_sample_data *data,
				       struct pt_regs *regs)
{
}

/*
 * intel_pmu_disable_event() for a PEBS event, less what it writes to MSRs
 * (the counter's control, a PEBS counter group's configuration) and the
 * state of KVM and TSX a test does not set (intel_clear_masks()): the
 * format's PEBS disable, which drains a large PEBS buffer first.
 */
static void pebs_test_disable_event(struct perf_event *event)
{
	if (event->attr.precise_ip)
		x86_pmu.pebs_disable(event);
}

/* x86_pmu_drain_pebs as pebs_test_init() found it */
static void (*pebs_test_drain_saved)(struct pt_regs *iregs,
				     struct perf_sample_data *data);

static void pebs_test_put_drain(void *unused)
{
	static_call_update(x86_pmu_drain_pebs, pebs_test_drain_saved);
}

static int pebs_test_set_period(struct perf_event *event)
{
	struct pebs_test *t = pebs_test_of_current();

	t->n_set_period++;
	t->set_period_left = local64_read(&event->hw.period_left);
	return fake_pmu_intel_set_period(event);
}

static void pebs_test_write_counter(struct hw_perf_event *hwc, u64 val)
{
	pebs_test_of_current()->counter_start = val;
}

static u64 pebs_test_arch_index_read(void)
{
	return pebs_test_of_current()->arch_index;
}

static void pebs_test_arch_index_write(u64 index)
{
	struct pebs_test *t = pebs_test_of_current();

	t->n_index_writes++;
	t->arch_index = index;
}

/*
 * A PEBS PMU of @format (3: Skylake, 4: Ice Lake with adaptive PEBS), as
 * intel_pmu_init() and intel_ds_init() describe it, with a DS area and a
 * PEBS buffer as alloc_ds_buffer() and alloc_pebs_buffer() set them up,
 * and the stubs in place.
 */
static struct pebs_test *pebs_test_install(struct kunit *test, int format)
{
	struct pebs_test *t = test->priv;
	unsigned long base;
	size_t max;

	memset(t, 0, sizeof(*t));
	fake_pmu_install(test, format < 4 ? &pebs_skl_pmu : &pebs_icl_pmu);

	x86_pmu.version = format < 4 ? 4 : 5;
	x86_pmu.cntval_bits = 48;
	x86_pmu.cntval_mask = BIT_ULL(48) - 1;
	x86_pmu.max_period = x86_pmu.cntval_mask >> 1;
	x86_pmu.config_mask = X86_RAW_EVENT_MASK;
	x86_pmu.ds_pebs = 1;
	x86_pmu.pebs_active = 1;
	x86_pmu.pebs_buffer_size = PEBS_BUFFER_SIZE;
	x86_pmu.pebs_events_mask = x86_pmu.cntr_mask64;
	x86_pmu.large_pebs_flags = LARGE_PEBS_FLAGS | PERF_SAMPLE_TIME;
	x86_pmu.intel_cap.pebs_format = format;
	if (format < 4) {
		x86_pmu.pebs_record_size = sizeof(struct pebs_record_skl);
		x86_pmu.drain_pebs = intel_pmu_drain_pebs_nhm;
	} else {
		x86_pmu.intel_cap.pebs_baseline = 1;
		x86_pmu.pebs_record_size = sizeof(struct pebs_basic);
		x86_pmu.drain_pebs = intel_pmu_drain_pebs_icl;
		x86_pmu.large_pebs_flags |= PERF_SAMPLE_BRANCH_STACK;
		x86_pmu.flags |= PMU_FL_PEBS_ALL;
		x86_pmu.pebs_capable = ~0ULL;
	}

	t->ds = kunit_kzalloc(test, sizeof(*t->ds), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->ds);
	t->buffer = kunit_kzalloc(test, x86_pmu.pebs_buffer_size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->buffer);
	t->saved = kunit_kzalloc(test, sizeof(*t->saved), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->saved);

	base = (unsigned long)t->buffer;
	max = x86_pmu.pebs_record_size *
	      (x86_pmu.pebs_buffer_size / x86_pmu.pebs_record_size);
	t->ds->pebs_buffer_base = base;
	t->ds->pebs_index = base;
	t->ds->pebs_absolute_maximum = base + max;

	t->iregs.ip = PEBS_TEST_IP(1000);
	t->iregs.cs = __KERNEL_CS;

	kunit_activate_static_stub(test, intel_pmu_pebs_read_counter,
				   pebs_test_read_counter);
	kunit_activate_static_stub(test, pebs_tsc_to_time,
				   pebs_test_tsc_to_time);
	kunit_activate_static_stub(test, pebs_paravirt_sched_clock,
				   pebs_test_paravirt_sched_clock);
	kunit_activate_static_stub(test, intel_pmu_pebs_output,
				   pebs_test_output);
	kunit_activate_static_stub(test, intel_pmu_pebs_overflow,
				   pebs_test_overflow);
	kunit_activate_static_stub(test, arch_pebs_index_read,
				   pebs_test_arch_index_read);
	kunit_activate_static_stub(test, arch_pebs_index_write,
				   pebs_test_arch_index_write);
	fake_pmu_stub_counter_write(test, pebs_test_write_counter);
	x86_pmu.set_period = pebs_test_set_period;
	x86_pmu.disable = pebs_test_disable_event;
	fake_pmu_update_static_calls();
	x86_pmu.pebs_disable = intel_pmu_pebs_disable;
	static_call_update(x86_pmu_drain_pebs, x86_pmu.drain_pebs);
	return t;
}

/*
 * An architectural PEBS PMU (CPUID leaf 0x23) with PEBS on the counters
 * @counters, the AUX and GPR groups, as intel_arch_pebs_init() and
 * update_pmu_cap_from_perfmonext() describe it: Ice Lake's counters,
 * the drain intel_pmu_drain_arch_pebs(), whose buffer is cpuc->pebs_vaddr
 * (pebs_cpu_enter()). It reads none of the DS fields the install leaves.
 */
static struct pebs_test *pebs_test_install_arch(struct kunit *test,
						u64 counters)
{
	struct pebs_test *t = pebs_test_install(test, 4);

	x86_pmu.version = 6;
	x86_pmu.arch_pebs = 1;
	x86_pmu.intel_cap.pebs_baseline = 0;
	x86_pmu.drain_pebs = intel_pmu_drain_arch_pebs;
	static_call_update(x86_pmu_drain_pebs, x86_pmu.drain_pebs);
	x86_pmu.pebs_enable = __intel_pmu_pebs_enable;
	x86_pmu.pebs_disable = __intel_pmu_pebs_disable;
	x86_pmu.arch_pebs_cap.caps = ARCH_PEBS_AUX | ARCH_PEBS_GPR;
	x86_pmu.arch_pebs_cap.counters = counters;
	x86_pmu.arch_pebs_cap.pdists = counters;
	x86_pmu.intel_ctrl = x86_pmu.cntr_mask64 |
			     x86_pmu.fixed_cntr_mask64 << INTEL_PMC_IDX_FIXED;
	return t;
}

/*
 * A sampling event on counter @idx with a fixed period, configured by
 * intel_pmu_hw_config(). The period is set up as perf_event_alloc() does.
 * Its type is the core PMU's, as for a raw event.
 */
static struct perf_event *pebs_test_event(struct kunit *test, int idx,
					  u64 sample_type, u8 precise_ip)
{
	struct event_constraint c = {
		.code		= PEBS_TEST_EVENT,
		.idxmsk64	= BIT_ULL(idx),
	};
	struct perf_event *event;
	struct hw_perf_event *hwc;

	event = &fake_pmu_event_alloc(test, &c, idx)->event;
	hwc = &event->hw;
	event->attr.type = event->pmu->type;
	event->attr.size = sizeof(event->attr);
	event->attr.sample_period = PEBS_TEST_PERIOD;
	event->attr.sample_type = sample_type;
	event->attr.precise_ip = precise_ip;

	/* what the overflow and the throttle read, as perf_event_alloc() sets it */
	INIT_LIST_HEAD(&event->sibling_list);
	event->clock = local_clock;
	event->overflow_handler = pebs_test_overflow_handler;
	event->state = PERF_EVENT_STATE_ACTIVE;
	/* as __x86_pmu_event_init() leaves it for hw_config() */
	hwc->dyn_constraint = ~0ULL;
	hwc->sample_period = PEBS_TEST_PERIOD;
	hwc->last_period = hwc->sample_period;
	local64_set(&hwc->period_left, hwc->sample_period);

	return event;
}

static struct perf_event *pebs_test_pebs_event(struct kunit *test, int idx,
					       u64 sample_type)
{
	struct perf_event *event = pebs_test_event(test, idx, sample_type, 2);

	KUNIT_ASSERT_EQ(test, fake_pmu_intel_hw_config(event), 0);
	event->hw.idx = idx;
	return event;
}

static void pebs_cpu_enter(struct pebs_test *t)
{
	struct cpu_hw_events *cpuc;

	local_irq_save(t->irq_flags);
	t->cpu = smp_processor_id();
	cpuc = this_cpu_ptr(&cpu_hw_events);
	memcpy(t->saved, cpuc, sizeof(*cpuc));
	t->n_times = 0;

	/*
	 * No event, no PEBS state, as after intel_pmu_cpu_starting(); the
	 * PMU disabled, as in a PMI.
	 */
	memset(cpuc, 0, sizeof(*cpuc));
	cpuc->pmu = t->saved->pmu;
	cpuc->ds = t->ds;
	cpuc->pebs_record_size = x86_pmu.pebs_record_size;
	if (x86_pmu.arch_pebs)
		cpuc->pebs_vaddr = t->buffer;
}

static void pebs_cpu_exit(struct pebs_test *t)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);

	t->pebs_enabled = cpuc->pebs_enabled;
	t->pebs_record_size = cpuc->pebs_record_size;
	memcpy(cpuc, t->saved, sizeof(*cpuc));
	local_irq_restore(t->irq_flags);
}

/* max_samples_per_tick, as the sysctl that sets it gives it */
static unsigned int pebs_test_per_tick(void)
{
	return DIV_ROUND_UP(READ_ONCE(sysctl_perf_event_sample_rate), HZ);
}

/*
 * @event one interrupt short of max_samples_per_tick in this tick, as after
 * that many PMIs less one: its next perf_event_overflow() throttles it. A
 * first overflow starts its count of the tick (hw.interrupts_seq); with
 * interrupts off no tick ends it.
 */
static void pebs_test_near_throttle(struct perf_event *event)
{
	struct perf_sample_data data = {};
	struct pt_regs regs = {};

	lockdep_assert_irqs_disabled();
	perf_event_overflow(event, &data, &regs);
	event->hw.interrupts = pebs_test_per_tick() - 1;
}

/*
 * What x86_pmu_add() and x86_pmu_start() do for a PEBS event, in the
 * window: intel_pmu_pebs_add() without the sched_task callback of a
 * registered PMU (perf_sched_cb_inc()), prev_count at -period as
 * x86_perf_event_set_period() leaves it, and intel_pmu_pebs_enable(). With
 * adaptive PEBS the record layout changes first, as intel_pmu_pebs_enable()
 * changes it, less the write of MSR_PEBS_DATA_CFG. Arch-PEBS enables with
 * x86_pmu.pebs_enable, __intel_pmu_pebs_enable() (the rest is an MSR write
 * of intel_pmu_enable_event_ext()).
 */
static void pebs_test_start(struct perf_event *event)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	struct hw_perf_event *hwc = &event->hw;
	bool needed_cb = pebs_needs_sched_cb(cpuc);
	u64 cfg;

	cpuc->n_pebs++;
	if (hwc->flags & PERF_X86_EVENT_LARGE_PEBS)
		cpuc->n_large_pebs++;
	if (cpuc->n_pebs == 1)
		cpuc->pebs_data_cfg = PEBS_UPDATE_DS_SW;
	if (needed_cb != pebs_needs_sched_cb(cpuc))
		cpuc->pebs_data_cfg |= PEBS_UPDATE_DS_SW;
	if (x86_pmu.intel_cap.pebs_baseline) {
		cfg = pebs_update_adaptive_cfg(event);
		if (cfg & ~cpuc->pebs_data_cfg)
			cpuc->pebs_data_cfg |= cfg | PEBS_UPDATE_DS_SW;

		cfg = cpuc->pebs_data_cfg & ~PEBS_UPDATE_DS_SW;
		if (cfg != cpuc->active_pebs_data_cfg) {
			adaptive_pebs_record_size_update();
			cpuc->active_pebs_data_cfg = cfg;
		}
	}

	local64_set(&hwc->prev_count, (u64)-local64_read(&hwc->period_left));
	cpuc->events[hwc->idx] = event;
	__set_bit(hwc->idx, cpuc->active_mask);

	if (x86_pmu.arch_pebs)
		x86_pmu.pebs_enable(event);
	else
		intel_pmu_pebs_enable(event);
}

/* the counter of @event, @n events after its last reload to -period */
static void pebs_test_set_counter(struct pebs_test *t,
				  struct perf_event *event, u64 n)
{
	t->counter[event->hw.idx] = (n - event->hw.sample_period) &
				    x86_pmu.cntval_mask;
}

/* a format 3 record of the counters @status, at the index of the buffer */
static void pebs_test_write_skl(struct pebs_test *t, u64 status, int i)
{
	struct pebs_record_skl *rec = (void *)(unsigned long)t->ds->pebs_index;

	memset(rec, 0, sizeof(*rec));
	rec->flags = X86_EFLAGS_FIXED;
	rec->ip = PEBS_TEST_IP(i) + 1;
	rec->real_ip = PEBS_TEST_IP(i);
	rec->status = status;
	rec->dla = PEBS_TEST_ADDR(i);
	rec->tsc = PEBS_TEST_TSC(i);
	t->ds->pebs_index += sizeof(*rec);
}

/* format 3 records of @status from the index up to the absolute maximum */
static int pebs_test_fill_skl(struct pebs_test *t, u64 status)
{
	int i, n;

	n = (t->ds->pebs_absolute_maximum - t->ds->pebs_index) /
	    sizeof(struct pebs_record_skl);
	for (i = 0; i < n; i++)
		pebs_test_write_skl(t, status, i);
	return n;
}

/* an adaptive record of the groups @cfg for the counters @counters */
static void pebs_test_write_adaptive(struct pebs_test *t, u64 cfg,
				     u64 counters, int i)
{
	struct pebs_basic *basic = (void *)(unsigned long)t->ds->pebs_index;
	struct pebs_meminfo *meminfo = (void *)(basic + 1);
	size_t size = sizeof(*basic);

	memset(basic, 0, sizeof(*basic));
	if (cfg & PEBS_DATACFG_MEMINFO) {
		memset(meminfo, 0, sizeof(*meminfo));
		meminfo->address = PEBS_TEST_ADDR(i);
		size += sizeof(*meminfo);
	}
	basic->format_group = cfg;
	basic->format_size = size;
	basic->ip = PEBS_TEST_IP(i);
	basic->applicable_counters = counters;
	basic->tsc = PEBS_TEST_TSC(i);
	t->ds->pebs_index += size;
}

/* the GPR group's ax of record @i, in no other register */
#define PEBS_TEST_AX(i)		(0xa0000ULL + (i))

/*
 * Arch-PEBS record @i for the counters @counters at @at, in one piece or,
 * with @split, in two fragments: a header and the basic group, with the
 * continuation bit; then a header and the GPR group. Returns its end.
 */
static void *pebs_test_write_arch(void *at, u64 counters, int i, bool split)
{
	struct arch_pebs_header *h = at;
	struct arch_pebs_basic *basic = (void *)(h + 1);
	struct arch_pebs_gprs *gprs;

	memset(h, 0, sizeof(*h) + sizeof(*basic));
	h->size = sizeof(*h) + sizeof(*basic);
	h->basic = 1;
	basic->ip = PEBS_TEST_IP(i);
	basic->applicable_counters = counters;
	basic->tsc = PEBS_TEST_TSC(i);
	if (!split)
		return basic + 1;

	h->cont = 1;
	h = (void *)(basic + 1);
	gprs = (void *)(h + 1);
	memset(h, 0, sizeof(*h) + sizeof(*gprs));
	h->size = sizeof(*h) + sizeof(*gprs);
	h->gpr = 1;
	gprs->flags = X86_EFLAGS_FIXED;
	gprs->ip = PEBS_TEST_IP(i) + 1;
	gprs->ax = PEBS_TEST_AX(i);
	return gprs + 1;
}

/* the samples @first.. of @event are records @rec.. in order */
static void pebs_expect_samples(struct kunit *test, struct perf_event *event,
				unsigned int first, int rec, unsigned int n,
				bool overflow_last)
{
	struct pebs_test *t = test->priv;
	unsigned int i;

	KUNIT_ASSERT_LE(test, first + n, t->n_samples);
	for (i = 0; i < n; i++) {
		struct pebs_test_sample *s = &t->samples[first + i];

		KUNIT_EXPECT_PTR_EQ_MSG(test, s->event, event, "sample %u", i);
		KUNIT_EXPECT_TRUE_MSG(test, s->sample_flags & PERF_SAMPLE_TIME,
				      "sample %u", i);
		KUNIT_EXPECT_EQ_MSG(test, s->time,
				    PEBS_TEST_TIME(PEBS_TEST_TSC(rec + i)),
				    "sample %u", i);
		KUNIT_EXPECT_EQ_MSG(test, s->period, event->hw.sample_period,
				    "sample %u", i);
		KUNIT_EXPECT_EQ_MSG(test, s->ip, PEBS_TEST_IP(rec + i),
				    "sample %u", i);
		KUNIT_EXPECT_EQ_MSG(test, s->overflow,
				    overflow_last && i == n - 1,
				    "sample %u", i);
	}
}

/*
 * After intel_pmu_save_and_restart_reload(): the event counted @count in
 * all, and its counter, read last @since events after its last reload, is
 * the new prev_count, @since into a period of sample_period.
 */
static void pebs_expect_count(struct kunit *test, struct perf_event *event,
			      u64 count, u64 since)
{
	u64 period = event->hw.sample_period;

	KUNIT_EXPECT_EQ(test, (u64)local64_read(&event->count), count);
	KUNIT_EXPECT_EQ(test, (u64)local64_read(&event->hw.prev_count),
			(since - period) & x86_pmu.cntval_mask);
	KUNIT_EXPECT_EQ(test, local64_read(&event->hw.period_left),
			period - since);
}

/*
 * intel_pmu_hw_config() gives a PEBS event auto-reload when it has a fixed
 * period and either no wakeup_events or a watermark, and large PEBS when
 * also every sample_type bit is one a record provides for the format and
 * the event has no aux action nor aux sampling (0d5eb14c1e2e, v6.13). A
 * record provides the time while its TSC converts to perf's clock, or
 * takes the drain's under a paravirt sched_clock(), as before.
 */
static void pebs_hw_config_large_pebs(struct kunit *test)
{
	static const struct {
		const char	*name;
		u64		sample_type;
		bool		freq;
		bool		use_clockid;
		bool		no_time;
		bool		paravirt;
		u32		wakeup_events;
		bool		watermark;
		u32		aux_sample_size;
		bool		aux_pause;
		u8		precise_ip;
		unsigned int	flags;
	} cases[] = {
		{ "ip tid time", PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		  PERF_SAMPLE_TIME, .precise_ip = 2,
		  .flags = PERF_X86_EVENT_AUTO_RELOAD |
			   PERF_X86_EVENT_LARGE_PEBS },
		{ "addr period", PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
		  PERF_SAMPLE_PERIOD, .precise_ip = 1,
		  .flags = PERF_X86_EVENT_AUTO_RELOAD |
			   PERF_X86_EVENT_LARGE_PEBS },
		{ "callchain", PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
		  .precise_ip = 2, .flags = PERF_X86_EVENT_AUTO_RELOAD },
		{ "read", PERF_SAMPLE_IP | PERF_SAMPLE_READ,
		  .precise_ip = 2, .flags = PERF_X86_EVENT_AUTO_RELOAD },
		{ "time, TSC not converted", PERF_SAMPLE_IP | PERF_SAMPLE_TIME,
		  .no_time = true, .precise_ip = 2,
		  .flags = PERF_X86_EVENT_AUTO_RELOAD },
		{ "no time, TSC not converted", PERF_SAMPLE_IP,
		  .no_time = true, .precise_ip = 2,
		  .flags = PERF_X86_EVENT_AUTO_RELOAD |
			   PERF_X86_EVENT_LARGE_PEBS },
		{ "time, paravirt clock", PERF_SAMPLE_IP | PERF_SAMPLE_TIME,
		  .no_time = true, .paravirt = true, .precise_ip = 2,
		  .flags = PERF_X86_EVENT_AUTO_RELOAD |
			   PERF_X86_EVENT_LARGE_PEBS },
		{ "clockid time, paravirt clock", PERF_SAMPLE_IP |
		  PERF_SAMPLE_TIME, .use_clockid = true, .paravirt = true,
		  .precise_ip = 2, .flags = PERF_X86_EVENT_AUTO_RELOAD },
		{ "clockid time", PERF_SAMPLE_IP | PERF_SAMPLE_TIME,
		  .use_clockid = true, .precise_ip = 2,
		  .flags = PERF_X86_EVENT_AUTO_RELOAD },
		{ "clockid no time", PERF_SAMPLE_IP, .use_clockid = true,
		  .precise_ip = 2,
		  .flags = PERF_X86_EVENT_AUTO_RELOAD |
			   PERF_X86_EVENT_LARGE_PEBS },
		{ "freq", PERF_SAMPLE_IP | PERF_SAMPLE_TIME, .freq = true,
		  .precise_ip = 2 },
		{ "wakeup_events", PERF_SAMPLE_IP | PERF_SAMPLE_TIME,
		  .wakeup_events = 1, .precise_ip = 2 },
		{ "wakeup_watermark", PERF_SAMPLE_IP | PERF_SAMPLE_TIME,
		  .wakeup_events = 4096, .watermark = true, .precise_ip = 2,
		  .flags = PERF_X86_EVENT_AUTO_RELOAD |
			   PERF_X86_EVENT_LARGE_PEBS },
		{ "aux sample", PERF_SAMPLE_IP | PERF_SAMPLE_TIME,
		  .aux_sample_size = 4096, .precise_ip = 2,
		  .flags = PERF_X86_EVENT_AUTO_RELOAD },
		{ "aux pause", PERF_SAMPLE_IP | PERF_SAMPLE_TIME,
		  .aux_pause = true, .precise_ip = 2,
		  .flags = PERF_X86_EVENT_AUTO_RELOAD },
		{ "not precise", PERF_SAMPLE_IP | PERF_SAMPLE_TIME },
	};
	const unsigned int pebs_flags = PERF_X86_EVENT_AUTO_RELOAD |
					PERF_X86_EVENT_LARGE_PEBS;
	struct pebs_test *t = pebs_test_install(test, 3);
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct perf_event *event;

		t->no_time = cases[i].no_time;
		t->paravirt = cases[i].paravirt;
		event = pebs_test_event(test, 0, cases[i].sample_type,
					cases[i].precise_ip);
		event->attr.freq = cases[i].freq;
		if (cases[i].freq)
			event->attr.sample_freq = 4000;
		event->attr.use_clockid = cases[i].use_clockid;
		event->attr.wakeup_events = cases[i].wakeup_events;
		event->attr.watermark = cases[i].watermark;
		event->attr.aux_sample_size = cases[i].aux_sample_size;
		event->attr.aux_pause = cases[i].aux_pause;

		KUNIT_EXPECT_EQ_MSG(test, fake_pmu_intel_hw_config(event), 0,
				    "%s", cases[i].name);
		KUNIT_EXPECT_EQ_MSG(test, event->hw.flags & pebs_flags,
				    cases[i].flags, "%s", cases[i].name);
		KUNIT_EXPECT_EQ_MSG(test,
				    !!(event->attach_state &
				       PERF_ATTACH_SCHED_CB),
				    !!(cases[i].flags &
				       PERF_X86_EVENT_LARGE_PEBS),
				    "%s", cases[i].name);
	}
}

/*
 * pebs_update_threshold(), format 3: with only large PEBS events the
 * threshold leaves one record per PEBS counter below the end of the
 * buffer; one event without large PEBS brings it down to one record.
 * intel_pmu_pebs_enable() arms the reload value -period.
 */
static void pebs_threshold_fmt3(struct kunit *test)
{
	struct pebs_test *t = pebs_test_install(test, 3);
	size_t size = sizeof(struct pebs_record_skl);
	unsigned long base = t->ds->pebs_buffer_base;
	u64 large, mixed, reset = -PEBS_TEST_PERIOD & x86_pmu.cntval_mask;
	struct perf_event *ev0, *ev1;

	ev0 = pebs_test_pebs_event(test, 0, PERF_SAMPLE_IP | PERF_SAMPLE_TIME);
	ev1 = pebs_test_pebs_event(test, 1, PERF_SAMPLE_IP |
				   PERF_SAMPLE_CALLCHAIN);
	KUNIT_ASSERT_TRUE(test, ev0->hw.flags & PERF_X86_EVENT_LARGE_PEBS);
	KUNIT_ASSERT_FALSE(test, ev1->hw.flags & PERF_X86_EVENT_LARGE_PEBS);

	pebs_cpu_enter(t);
	pebs_test_start(ev0);
	large = t->ds->pebs_interrupt_threshold;
	pebs_test_start(ev1);
	mixed = t->ds->pebs_interrupt_threshold;
	pebs_cpu_exit(t);

	KUNIT_EXPECT_EQ(test, t->ds->pebs_absolute_maximum,
			base + size * (PEBS_BUFFER_SIZE / size));
	KUNIT_EXPECT_EQ(test, large, t->ds->pebs_absolute_maximum - 4 * size);
	/* 64 KiB hold 327 records; the PMI comes after 323 */
	KUNIT_EXPECT_EQ(test, (large - base) / size, 323);
	KUNIT_EXPECT_EQ(test, mixed, base + size);
	KUNIT_EXPECT_EQ(test, t->ds->pebs_event_reset[0], reset);
	KUNIT_EXPECT_EQ(test, t->ds->pebs_event_reset[1], reset);
	KUNIT_EXPECT_EQ(test, t->pebs_enabled, 0x3);
}

/*
 * pebs_update_threshold(), adaptive PEBS: the record size follows the
 * groups the events need, and with PMU_FL_PEBS_ALL the threshold leaves a
 * record for each generic and each fixed counter.
 */
static void pebs_threshold_adaptive(struct kunit *test)
{
	static const struct {
		u64	sample_type;
		u64	cfg;
		size_t	size;
	} cases[] = {
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TIME, 0,
		  sizeof(struct pebs_basic) },
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR,
		  PEBS_DATACFG_MEMINFO,
		  sizeof(struct pebs_basic) + sizeof(struct pebs_meminfo) },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct pebs_test *t = pebs_test_install(test, 4);
		unsigned long base = t->ds->pebs_buffer_base;
		struct perf_event *event;

		event = pebs_test_pebs_event(test, 0, cases[i].sample_type);
		KUNIT_ASSERT_TRUE(test,
				  event->hw.flags & PERF_X86_EVENT_LARGE_PEBS);
		KUNIT_EXPECT_EQ(test, pebs_update_adaptive_cfg(event),
				cases[i].cfg);

		pebs_cpu_enter(t);
		pebs_test_start(event);
		pebs_cpu_exit(t);

		KUNIT_EXPECT_EQ_MSG(test, t->pebs_record_size, cases[i].size,
				    "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, t->ds->pebs_interrupt_threshold,
				    base + PEBS_BUFFER_SIZE -
				    (8 + 4) * cases[i].size, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, event->hw.config &
				    ICL_EVENTSEL_ADAPTIVE,
				    ICL_EVENTSEL_ADAPTIVE, "case %d", i);
	}
}

/*
 * The drain of format 3 records in the PMI: one sample per record, in
 * buffer order, each with the time of its own record's TSC and the period
 * as its weight; all but the last through perf_event_output(), the last
 * through perf_event_overflow(). The count grows by the counter delta plus
 * one period per record, as if every record were one overflow.
 */
static void pebs_drain_fmt3(struct kunit *test)
{
	struct pebs_test *t = pebs_test_install(test, 3);
	struct perf_sample_data data = {};
	struct perf_event *event;
	u64 old;
	int i, n = 5;

	event = pebs_test_pebs_event(test, 2, PERF_SAMPLE_IP |
				     PERF_SAMPLE_TID | PERF_SAMPLE_TIME);

	for (i = 0; i < n; i++)
		pebs_test_write_skl(t, BIT_ULL(2), i);

	pebs_cpu_enter(t);
	pebs_test_start(event);
	old = local64_read(&event->hw.prev_count);
	pebs_test_set_counter(t, event, 7);
	intel_pmu_drain_pebs_nhm(&t->iregs, &data);
	pebs_cpu_exit(t);

	KUNIT_EXPECT_EQ(test, old, -PEBS_TEST_PERIOD);
	KUNIT_EXPECT_EQ(test, t->ds->pebs_index, t->ds->pebs_buffer_base);
	KUNIT_EXPECT_EQ(test, t->n_samples, n);
	KUNIT_EXPECT_EQ(test, t->n_output, n - 1);
	KUNIT_EXPECT_EQ(test, t->n_overflow, 1);
	KUNIT_EXPECT_EQ(test, t->n_times, n);
	KUNIT_EXPECT_EQ(test, t->n_reads, 1);
	KUNIT_EXPECT_EQ(test, t->n_set_period, 0);
	pebs_expect_samples(test, event, 0, 0, n, true);
	pebs_expect_count(test, event, n * PEBS_TEST_PERIOD + 7, 7);
}

/*
 * A drain outside the PMI (no iregs: context switch, pmu::read) outputs
 * every record, the last one too; an empty buffer only updates the count
 * by the counter delta.
 */
static void pebs_drain_fmt3_no_pmi(struct kunit *test)
{
	struct pebs_test *t = pebs_test_install(test, 3);
	struct perf_sample_data data = {};
	struct perf_event *event;
	u64 mid;
	int i, n = 3;

	event = pebs_test_pebs_event(test, 0, PERF_SAMPLE_IP |
				     PERF_SAMPLE_TIME);
	for (i = 0; i < n; i++)
		pebs_test_write_skl(t, BIT_ULL(0), i);

	pebs_cpu_enter(t);
	pebs_test_start(event);
	pebs_test_set_counter(t, event, 11);
	intel_pmu_drain_pebs_nhm(NULL, &data);
	mid = local64_read(&event->count);
	pebs_test_set_counter(t, event, 40);
	intel_pmu_drain_pebs_nhm(NULL, &data);
	pebs_cpu_exit(t);

	KUNIT_EXPECT_EQ(test, t->n_samples, n);
	KUNIT_EXPECT_EQ(test, t->n_output, n);
	KUNIT_EXPECT_EQ(test, t->n_overflow, 0);
	KUNIT_EXPECT_EQ(test, t->n_reads, 2);
	KUNIT_EXPECT_EQ(test, t->n_set_period, 0);
	pebs_expect_samples(test, event, 0, 0, n, false);
	KUNIT_EXPECT_EQ(test, mid, n * PEBS_TEST_PERIOD + 11);
	pebs_expect_count(test, event, n * PEBS_TEST_PERIOD + 40, 40);
}

/*
 * A buffer filled up to its absolute maximum, then the event's counter
 * overflowed: the assist that found no room wrote no record and did not
 * reload the counter (Intel SDM), which counted on from 0. The drain
 * counts every event and starts the counter again from period_left,
 * through x86_pmu_set_period(). (A drain of a counter that its last
 * record reloaded does not write it: pebs_drain_fmt3*.)
 */
static void pebs_drain_full(struct kunit *test)
{
	struct pebs_test *t = pebs_test_install(test, 3);
	struct perf_sample_data data = {};
	struct perf_event *event;
	u64 period = PEBS_TEST_PERIOD, past = 4242;
	int n;

	event = pebs_test_pebs_event(test, 1, PERF_SAMPLE_IP |
				     PERF_SAMPLE_TIME);
	n = pebs_test_fill_skl(t, BIT_ULL(1));

	pebs_cpu_enter(t);
	pebs_test_start(event);
	pebs_test_set_counter(t, event, period + past);
	intel_pmu_drain_pebs_nhm(&t->iregs, &data);
	pebs_cpu_exit(t);

	KUNIT_EXPECT_EQ(test, t->n_output, n - 1);
	KUNIT_EXPECT_EQ(test, t->n_overflow, 1);
	KUNIT_EXPECT_EQ(test, t->n_set_period, 1);
	KUNIT_EXPECT_EQ(test, t->set_period_left, -(s64)past);
	pebs_expect_count(test, event, (n + 1) * period + past, period + past);
}

/*
 * The same full buffer, drained in the PMI, where the event's last record
 * throttles it: perf_event_overflow() stops the event, and the tick's
 * unthrottle starts it again without writing the counter. The drain still
 * starts the counter again from period_left, or it would resume past its
 * overflow, with no record for 2^48 events.
 */
static void pebs_drain_full_throttled(struct kunit *test)
{
	struct pebs_test *t = pebs_test_install(test, 3);
	struct perf_sample_data data = {};
	struct perf_event *event;
	u64 period = PEBS_TEST_PERIOD, past = 4242;
	int n;

	event = pebs_test_pebs_event(test, 1, PERF_SAMPLE_IP |
				     PERF_SAMPLE_TIME);
	n = pebs_test_fill_skl(t, BIT_ULL(1));
	/* the first overflow of pebs_test_near_throttle() must not throttle */
	KUNIT_ASSERT_GT(test, pebs_test_per_tick(), 1);

	pebs_cpu_enter(t);
	pebs_test_start(event);
	pebs_test_near_throttle(event);
	pebs_test_set_counter(t, event, period + past);
	intel_pmu_drain_pebs_nhm(&t->iregs, &data);
	pebs_cpu_exit(t);

	KUNIT_EXPECT_EQ(test, t->n_output, n - 1);
	KUNIT_EXPECT_EQ(test, t->n_overflow, 1);
	KUNIT_EXPECT_EQ(test, t->pebs_enabled, 0);
	KUNIT_EXPECT_TRUE(test, event->hw.state & PERF_HES_STOPPED);
	/* MAX_INTERRUPTS: throttled */
	KUNIT_EXPECT_EQ(test, event->hw.interrupts, ~0ULL);
	KUNIT_EXPECT_EQ(test, t->n_set_period, 1);
	KUNIT_EXPECT_EQ(test, t->set_period_left, -(s64)past);
	pebs_expect_count(test, event, (n + 1) * period + past, period + past);
}

/*
 * A large PEBS event stopped with records in its buffer (a context switch
 * out, PERF_EVENT_IOC_DISABLE): x86_pmu_stop() disables it, and its PEBS
 * disable drains the buffer while the event is still in pebs_enabled, so
 * that the drain takes its records: each is output, none through the
 * overflow path, and the count has their periods. Then the event is out
 * of pebs_enabled and stopped.
 */
static void pebs_stop_drains(struct kunit *test)
{
	struct pebs_test *t = pebs_test_install(test, 3);
	struct perf_event *event;
	int i, n = 3;

	event = pebs_test_pebs_event(test, 1, PERF_SAMPLE_IP |
				     PERF_SAMPLE_TIME);
	for (i = 0; i < n; i++)
		pebs_test_write_skl(t, BIT_ULL(1), i);

	pebs_cpu_enter(t);
	pebs_test_start(event);
	pebs_test_set_counter(t, event, 7);
	event->pmu->stop(event, 0);
	pebs_cpu_exit(t);

	KUNIT_EXPECT_EQ(test, t->n_output, n);
	KUNIT_EXPECT_EQ(test, t->n_overflow, 0);
	KUNIT_EXPECT_EQ(test, t->pebs_enabled, 0);
	KUNIT_EXPECT_TRUE(test, event->hw.state & PERF_HES_STOPPED);
	pebs_expect_samples(test, event, 0, 0, n, false);
	pebs_expect_count(test, event, n * PEBS_TEST_PERIOD + 7, 7);
}

/*
 * Two events whose records interleave: each gets its own records, but
 * one event after the other, not in the order of the TSCs; the last
 * record of each event goes through perf_event_overflow().
 */
static void pebs_drain_fmt3_two_events(struct kunit *test)
{
	struct pebs_test *t = pebs_test_install(test, 3);
	struct perf_sample_data data = {};
	struct perf_event *ev0, *ev1;
	u64 type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME;
	int i;

	ev0 = pebs_test_pebs_event(test, 0, type);
	ev1 = pebs_test_pebs_event(test, 1, type);
	for (i = 0; i < 6; i++)
		pebs_test_write_skl(t, BIT_ULL(i & 1), i);

	pebs_cpu_enter(t);
	pebs_test_start(ev0);
	pebs_test_start(ev1);
	pebs_test_set_counter(t, ev0, 1);
	pebs_test_set_counter(t, ev1, 2);
	intel_pmu_drain_pebs_nhm(&t->iregs, &data);
	pebs_cpu_exit(t);

	KUNIT_ASSERT_EQ(test, t->n_samples, 6);
	KUNIT_EXPECT_EQ(test, t->n_overflow, 2);
	for (i = 0; i < 6; i++) {
		struct pebs_test_sample *s = &t->samples[i];
		int rec = i < 3 ? 2 * i : 2 * (i - 3) + 1;

		KUNIT_EXPECT_PTR_EQ_MSG(test, s->event, i < 3 ? ev0 : ev1,
					"sample %d", i);
		KUNIT_EXPECT_EQ_MSG(test, s->time,
				    PEBS_TEST_TIME(PEBS_TEST_TSC(rec)),
				    "sample %d", i);
		KUNIT_EXPECT_EQ_MSG(test, s->overflow, i == 2 || i == 5,
				    "sample %d", i);
	}
	KUNIT_EXPECT_EQ(test, (u64)local64_read(&ev0->count),
			3 * PEBS_TEST_PERIOD + 1);
	KUNIT_EXPECT_EQ(test, (u64)local64_read(&ev1->count),
			3 * PEBS_TEST_PERIOD + 2);
}

/*
 * A drain of a buffer with room left (the threshold of another counter,
 * pmu::read(), a context switch) that finds a counter past its overflow:
 * its assist is still to come, to write its record and reload it, as the
 * SDM has it for the event after the overflow (or after some delay). The
 * drain counts its events and leaves the counter alone: a write there
 * would drop that record, or be overwritten by its reload, as a write
 * disarms an armed assist or not (the SDM does not say).
 */
static void pebs_drain_room(struct kunit *test)
{
	struct pebs_test *t = pebs_test_install(test, 3);
	struct perf_sample_data data = {};
	u64 period = PEBS_TEST_PERIOD;
	struct perf_event *event;

	event = pebs_test_pebs_event(test, 1, PERF_SAMPLE_IP |
				     PERF_SAMPLE_TIME);
	pebs_test_write_skl(t, BIT_ULL(1), 0);
	pebs_test_write_skl(t, BIT_ULL(1), 1);

	pebs_cpu_enter(t);
	pebs_test_start(event);
	pebs_test_set_counter(t, event, period + 3);
	intel_pmu_drain_pebs_nhm(&t->iregs, &data);
	pebs_cpu_exit(t);

	KUNIT_EXPECT_EQ(test, t->n_samples, 2);
	KUNIT_EXPECT_EQ(test, t->n_set_period, 0);
	pebs_expect_count(test, event, 3 * period + 3, period + 3);
}

/*
 * A buffer full of one counter's records, the other counter past its
 * overflow without a record in it: the assist found no room. The drain
 * reads that counter too and starts it again from period_left; the
 * counter of the records, reloaded by its last one, is not written.
 */
static void pebs_drain_full_other(struct kunit *test)
{
	struct pebs_test *t = pebs_test_install(test, 3);
	struct perf_sample_data data = {};
	u64 period = PEBS_TEST_PERIOD;
	struct perf_event *ev0, *ev1;
	int n;

	ev0 = pebs_test_pebs_event(test, 0, PERF_SAMPLE_IP |
				   PERF_SAMPLE_TIME);
	ev1 = pebs_test_pebs_event(test, 1, PERF_SAMPLE_IP |
				   PERF_SAMPLE_TIME);
	n = pebs_test_fill_skl(t, BIT_ULL(0));

	pebs_cpu_enter(t);
	pebs_test_start(ev0);
	pebs_test_start(ev1);
	pebs_test_set_counter(t, ev0, 7);
	pebs_test_set_counter(t, ev1, period + 5);
	intel_pmu_drain_pebs_nhm(&t->iregs, &data);
	pebs_cpu_exit(t);

	KUNIT_EXPECT_EQ(test, t->n_output, n - 1);
	KUNIT_EXPECT_EQ(test, t->n_overflow, 1);
	KUNIT_EXPECT_EQ(test, t->n_set_period, 1);
	KUNIT_EXPECT_EQ(test, t->set_period_left, -5);
	pebs_expect_count(test, ev0, n * period + 7, 7);
	pebs_expect_count(test, ev1, period + 5, period + 5);
}

/*
 * A drain that finds the counter at its overflow, with no event since,
 * counts the whole period and leaves the counter to its armed assist,
 * prev_count 0. As x86_pmu_start() writes the counter (x86_pmu.set_period,
 * intel_pmu_set_period()), intel_pmu_pebs_keep_due() leaves the period one
 * event, not a whole period, before x86_perf_event_set_period() sees it (the
 * event has a counter base, its write stubbed): written 2 short (the value
 * the write is given), the counter gives the record due whether the write
 * ends the arm or not, and the next drain counts from there. The period
 * starts anew: last_period takes the one PERF_EVENT_IOC_PERIOD set while the
 * event was stopped. After a drain that finds the counter reloaded, for a
 * new event (intel_pmu_hw_config()), for a KVM guest's (exclude_host) and
 * for an event without auto-reload (its assist resets the counter to 0,
 * prev_count 0 tells nothing), the period left is kept.
 */
static void pebs_restart_due(struct kunit *test)
{
	struct pebs_test *t = pebs_test_install(test, 3);
	struct perf_sample_data data = {};
	u64 period = PEBS_TEST_PERIOD;
	u64 mask = x86_pmu.cntval_mask;
	struct perf_event *event, *other;
	s64 new_left, due_left, mid_left;
	u64 last, mid_count, mid_prev;
	u64 new_start, due_start;

	event = pebs_test_pebs_event(test, 2, PERF_SAMPLE_IP |
				     PERF_SAMPLE_TIME);
	/* a counter base: x86_perf_event_set_period() runs, to the write */
	event->hw.event_base = MSR_ARCH_PERFMON_PERFCTR0 + 2;
	static_call(x86_pmu_set_period)(event);
	new_left = local64_read(&event->hw.period_left);
	new_start = t->counter_start;
	pebs_test_write_skl(t, BIT_ULL(2), 0);
	pebs_test_write_skl(t, BIT_ULL(2), 1);

	pebs_cpu_enter(t);
	pebs_test_start(event);
	pebs_test_set_counter(t, event, period);
	intel_pmu_drain_pebs_nhm(&t->iregs, &data);
	mid_count = local64_read(&event->count);
	mid_prev = local64_read(&event->hw.prev_count);
	mid_left = local64_read(&event->hw.period_left);
	event->hw.sample_period = 2 * period;
	static_call(x86_pmu_set_period)(event);
	due_left = local64_read(&event->hw.period_left);
	due_start = t->counter_start;
	last = event->hw.last_period;
	pebs_test_write_skl(t, BIT_ULL(2), 2);
	pebs_test_set_counter(t, event, 5);
	intel_pmu_drain_pebs_nhm(&t->iregs, &data);
	static_call(x86_pmu_set_period)(event);
	pebs_cpu_exit(t);

	/* the drain at the overflow: the whole period, prev_count 0 */
	KUNIT_EXPECT_EQ(test, mid_count, 3 * period);
	KUNIT_EXPECT_EQ(test, mid_prev, 0);
	KUNIT_EXPECT_EQ(test, mid_left, 0);
	KUNIT_EXPECT_EQ(test, new_left, period);
	KUNIT_EXPECT_EQ(test, new_start, -period & mask);
	/* the write of the due start: 2 short, the least it writes */
	KUNIT_EXPECT_EQ(test, due_left, 1);
	KUNIT_EXPECT_EQ(test, due_start, -2ULL & mask);
	KUNIT_EXPECT_EQ(test, last, 2 * period);
	KUNIT_EXPECT_EQ(test, t->n_samples, 3);
	/* the three calls above, none by a drain */
	KUNIT_EXPECT_EQ(test, t->n_set_period, 3);
	/* the last start: the period left after 5 events past the reload */
	KUNIT_EXPECT_EQ(test, local64_read(&event->count), 3 * period + 7);
	KUNIT_EXPECT_EQ(test, local64_read(&event->hw.period_left),
			2 * period - 5);
	KUNIT_EXPECT_EQ(test, t->counter_start, (5 - 2 * period) & mask);

	local64_set(&event->hw.prev_count, 0);
	event->attr.exclude_host = 1;
	static_call(x86_pmu_set_period)(event);
	KUNIT_EXPECT_EQ(test, local64_read(&event->hw.period_left),
			2 * period - 5);

	/* without auto-reload (a wakeup at every sample) the period is kept */
	other = pebs_test_event(test, 3, PERF_SAMPLE_IP, 2);
	other->attr.wakeup_events = 1;
	KUNIT_ASSERT_EQ(test, fake_pmu_intel_hw_config(other), 0);
	KUNIT_ASSERT_FALSE(test, other->hw.flags & PERF_X86_EVENT_AUTO_RELOAD);
	local64_set(&other->hw.prev_count, 0);
	static_call(x86_pmu_set_period)(other);
	KUNIT_EXPECT_EQ(test, local64_read(&other->hw.period_left), period);
}

/*
 * The drain of adaptive records, basic group only and basic + memory
 * info, on a generic and on a fixed counter: as for format 3, the time
 * from each record's TSC, the last record through perf_event_overflow(),
 * the same count arithmetic; the address from the memory info group. The
 * reload value of fixed counter n is pebs_event_reset[8 + n] in format 4.
 */
static void pebs_drain_adaptive(struct kunit *test)
{
	static const struct {
		u64	sample_type;
		int	idx;
		int	reset;
	} cases[] = {
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TIME, 3, 3 },
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR, 3, 3 },
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TIME, INTEL_PMC_IDX_FIXED + 1,
		  MAX_PEBS_EVENTS_FMT4 + 1 },
	};
	int c, i, n = 4;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		struct pebs_test *t = pebs_test_install(test, 4);
		int idx = cases[c].idx;
		struct perf_sample_data data = {};
		struct perf_event *event;
		u64 cfg;

		event = pebs_test_pebs_event(test, idx, cases[c].sample_type);
		cfg = pebs_update_adaptive_cfg(event);
		for (i = 0; i < n; i++)
			pebs_test_write_adaptive(t, cfg, BIT_ULL(idx), i);

		pebs_cpu_enter(t);
		pebs_test_start(event);
		pebs_test_set_counter(t, event, 5);
		intel_pmu_drain_pebs_icl(&t->iregs, &data);
		pebs_cpu_exit(t);

		KUNIT_EXPECT_EQ_MSG(test, t->pebs_enabled, BIT_ULL(idx),
				    "case %d", c);
		KUNIT_EXPECT_EQ_MSG(test, t->ds->pebs_event_reset[cases[c].reset],
				    -PEBS_TEST_PERIOD & x86_pmu.cntval_mask,
				    "case %d", c);
		KUNIT_EXPECT_EQ_MSG(test, t->n_samples, n, "case %d", c);
		KUNIT_EXPECT_EQ_MSG(test, t->n_output, n - 1, "case %d", c);
		KUNIT_EXPECT_EQ_MSG(test, t->n_overflow, 1, "case %d", c);
		KUNIT_EXPECT_EQ_MSG(test, t->n_times, n, "case %d", c);
		pebs_expect_samples(test, event, 0, 0, n, true);
		pebs_expect_count(test, event, n * PEBS_TEST_PERIOD + 5, 5);
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_EQ_MSG(test, t->samples[i].addr,
					    cfg & PEBS_DATACFG_MEMINFO ?
					    PEBS_TEST_ADDR(i) : 0,
					    "case %d sample %d", c, i);
	}
}

/*
 * Architectural PEBS: intel_pmu_hw_config() keeps a PEBS event to the
 * counters arch-PEBS serves (hw.dyn_constraint); intel_pmu_drain_arch_pebs()
 * turns the records that MSR_IA32_PEBS_INDEX says were written into
 * samples, each with the time of its own TSC, a record split in two
 * fragments into one sample with the groups of both (the second's GPRs),
 * then resets the index to the buffer's start with the threshold of large
 * PEBS. With nothing written, it only updates the count.
 */
static void pebs_drain_arch(struct kunit *test)
{
	struct pebs_test *t = pebs_test_install_arch(test, 0x3);
	struct perf_sample_data data = {};
	union arch_pebs_index index = {};
	struct perf_event *event;
	void *end = t->buffer;
	u64 mid;
	int i, n = 3;

	event = pebs_test_pebs_event(test, 1, PERF_SAMPLE_IP |
				     PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_INTR);
	KUNIT_EXPECT_EQ(test, event->hw.dyn_constraint, 0x3);
	KUNIT_EXPECT_TRUE(test, event->hw.flags & PERF_X86_EVENT_LARGE_PEBS);

	for (i = 0; i < n; i++)
		end = pebs_test_write_arch(end, BIT_ULL(1), i, i == 1);
	index.en = 1;
	index.thresh = ARCH_PEBS_THRESH_SINGLE;
	index.wr = (end - t->buffer) >> ARCH_PEBS_INDEX_WR_SHIFT;
	t->arch_index = index.whole;

	pebs_cpu_enter(t);
	pebs_test_start(event);
	pebs_test_set_counter(t, event, 7);
	intel_pmu_drain_arch_pebs(&t->iregs, &data);
	mid = local64_read(&event->count);
	pebs_test_set_counter(t, event, 20);
	intel_pmu_drain_arch_pebs(&t->iregs, &data);
	pebs_cpu_exit(t);

	index.wr = 0;
	index.thresh = ARCH_PEBS_THRESH_MULTI;
	KUNIT_EXPECT_EQ(test, t->pebs_enabled, BIT_ULL(1));
	KUNIT_EXPECT_EQ(test, t->n_index_writes, 1);
	KUNIT_EXPECT_EQ(test, t->arch_index, index.whole);
	KUNIT_EXPECT_EQ(test, t->n_samples, n);
	KUNIT_EXPECT_EQ(test, t->n_output, n - 1);
	KUNIT_EXPECT_EQ(test, t->n_overflow, 1);
	KUNIT_EXPECT_EQ(test, t->n_times, n);
	KUNIT_EXPECT_EQ(test, t->n_reads, 2);
	pebs_expect_samples(test, event, 0, 0, n, true);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, t->samples[i].ax,
				    i == 1 ? PEBS_TEST_AX(i) : t->iregs.ax,
				    "sample %d", i);
	KUNIT_EXPECT_EQ(test, mid, n * PEBS_TEST_PERIOD + 7);
	pebs_expect_count(test, event, n * PEBS_TEST_PERIOD + 20, 20);
}

/* x86_pmu and this CPU's cpu_hw_events are as they were after a test. */
static void pebs_restores_state(struct kunit *test)
{
	struct x86_pmu *pmu = kunit_kzalloc(test, sizeof(*pmu), GFP_KERNEL);
	struct perf_sample_data data = {};
	struct perf_event *event;
	struct pebs_test *t;
	bool same;

	KUNIT_ASSERT_NOT_NULL(test, pmu);
	memcpy(pmu, &x86_pmu, sizeof(*pmu));
	t = pebs_test_install(test, 3);
	event = pebs_test_pebs_event(test, 0, PERF_SAMPLE_IP);
	pebs_test_write_skl(t, BIT_ULL(0), 0);

	pebs_cpu_enter(t);
	pebs_test_start(event);
	intel_pmu_drain_pebs_nhm(&t->iregs, &data);
	pebs_cpu_exit(t);

	/* nothing but the test touches cpu_hw_events without a PMU driver */
	same = !memcmp(per_cpu_ptr(&cpu_hw_events, t->cpu), t->saved,
		       sizeof(*t->saved));
	KUNIT_EXPECT_TRUE(test, same);
	KUNIT_EXPECT_PTR_NE(test, per_cpu(cpu_hw_events, t->cpu).ds, t->ds);

	fake_pmu_uninstall(test);
	same = !memcmp(pmu, &x86_pmu, sizeof(*pmu));
	KUNIT_EXPECT_TRUE(test, same);
}

static int pebs_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct pebs_test), GFP_KERNEL);
	if (!test->priv)
		return -ENOMEM;
	pebs_test_drain_saved = static_call_query(x86_pmu_drain_pebs);
	return kunit_add_action_or_reset(test, pebs_test_put_drain, NULL);
}

static struct kunit_case pebs_test_cases[] = {
	KUNIT_CASE(pebs_hw_config_large_pebs),
	KUNIT_CASE(pebs_threshold_fmt3),
	KUNIT_CASE(pebs_threshold_adaptive),
	KUNIT_CASE(pebs_drain_fmt3),
	KUNIT_CASE(pebs_drain_room),
	KUNIT_CASE(pebs_drain_full_other),
	KUNIT_CASE(pebs_restart_due),
	KUNIT_CASE(pebs_drain_fmt3_no_pmi),
	KUNIT_CASE(pebs_drain_fmt3_two_events),
	KUNIT_CASE(pebs_drain_full),
	KUNIT_CASE(pebs_drain_full_throttled),
	KUNIT_CASE(pebs_stop_drains),
	KUNIT_CASE(pebs_drain_adaptive),
	KUNIT_CASE(pebs_drain_arch),
	KUNIT_CASE(pebs_restores_state),
	{}
};

static struct kunit_suite pebs_test_suite = {
	.name = "perf_x86_intel_pebs",
	.init = pebs_test_init,
	.test_cases = pebs_test_cases,
};

kunit_test_suite(pebs_test_suite);
