// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit proof of the cross-hyper-thread exclusion (XSU) protocol that works
 * around errata BJ122, BV98 and HSD29 of Sandy Bridge, Ivy Bridge and
 * Haswell: a "corrupting" memory event (MEM_*_RETIRED, codes 0xd0-0xd3)
 * corrupts whatever the sibling thread counts on the counter of the same
 * index.
 *
 * #included at the end of arch/x86/events/intel/core.c, so it drives the
 * real scheduling path: x86_schedule_events() with hsw_get_event_constraints()
 * (intel_get_event_constraints(), intel_get_excl_constraints()),
 * intel_{start,commit,stop}_scheduling() and intel_put_event_constraints(),
 * on two fake sibling cpu_hw_events sharing one struct intel_excl_cntrs
 * (tests/fake_pmu.h). Each callback goes through a hook that checks that
 * excl_cntrs->lock is held from start to stop of a pass.
 *
 * The perf core is modelled per thread as an ordered list of single-event
 * groups, as perf stat makes them: scheduling in adds them in list order
 * and stops at the first that fails (ctx_flexible_sched_in(), can_add_hw),
 * which then asks for rotation; rotation schedules all out, moves the first
 * active event to the tail and schedules in again (perf_rotate_context()).
 *
 * States: the kernel keeps in states[t] what thread t committed on each
 * counter (X: corrupting event, S: other event, U: nothing); the thesis
 * figures draw the same letters on the sibling's side, as what the sibling
 * may still do there.
 */

#include "fake_pmu.h"

#define XSU_NR_GP		4
#define XSU_MAX_EVENTS		8
#define XSU_FIXED(n)		(INTEL_PMC_IDX_FIXED + (n))
#define XSU_TICKS		840	/* a multiple of 1 to 8 */

/* the events of the thesis; 0xd0-0xd3 corrupt the sibling's counter */
#define XSU_LOADS		0x81d0	/* MEM_UOPS_RETIRED.ALL_LOADS */
#define XSU_L1_MISS		0x08d1	/* MEM_LOAD_UOPS_RETIRED.L1_MISS */
#define XSU_L2_MISS		0x10d1	/* MEM_LOAD_UOPS_RETIRED.L2_MISS */
#define XSU_L1_HIT		0x01d1	/* MEM_LOAD_UOPS_RETIRED.L1_HIT */
#define XSU_LBR_INSERTS		0x20cc	/* ROB_MISC_EVENTS.LBR_INSERTS */
#define XSU_BRANCHES		0x00c4	/* BR_INST_RETIRED.ALL_BRANCHES */
#define XSU_INST		0x00c0	/* fixed counter 0 or generic */
#define XSU_CYCLES		0x003c	/* fixed counter 1 or generic */
#define XSU_L1D_PEND		0x0148	/* counter 2 only */
#define XSU_PREC_DIST		0x01c0	/* counter 1 only */
#define XSU_LDLAT		0x01cd	/* counter 3 only */

/*
 * Haswell's constraints as intel_pmu_check_event_constraints() leaves them
 * (fixed-counter events may also take a generic counter), cut to what the
 * tests use.
 */
static struct event_constraint xsu_hsw_constraints[] = {
	__EVENT_CONSTRAINT(XSU_INST, BIT_ULL(XSU_FIXED(0)) | 0xf,
			   FIXED_EVENT_FLAGS, 5, 0, 0),
	__EVENT_CONSTRAINT(XSU_CYCLES, BIT_ULL(XSU_FIXED(1)) | 0xf,
			   FIXED_EVENT_FLAGS, 5, 0, 0),
	INTEL_UEVENT_CONSTRAINT(XSU_L1D_PEND, 0x4),
	INTEL_UEVENT_CONSTRAINT(XSU_PREC_DIST, 0x2),
	INTEL_EVENT_CONSTRAINT(0xcd, 0x8),
	INTEL_EXCLEVT_CONSTRAINT(0xd0, 0xf),
	INTEL_EXCLEVT_CONSTRAINT(0xd1, 0xf),
	INTEL_EXCLEVT_CONSTRAINT(0xd2, 0xf),
	INTEL_EXCLEVT_CONSTRAINT(0xd3, 0xf),
	EVENT_CONSTRAINT_END
};

static bool xsu_corrupting(u64 config)
{
	u64 code = config & ARCH_PERFMON_EVENTSEL_EVENT;

	return code >= 0xd0 && code <= 0xd3;
}

/*
 * Hooks around the scheduling callbacks. Within a pass that runs the
 * protocol (sched_started), every callback must find excl_cntrs->lock held;
 * outside, put must not (it takes the lock itself).
 */
static struct xsu_hook_counts {
	unsigned int	passes;
	unsigned int	locked_calls;
	unsigned int	unlocked_calls;
} xsu_hooks;

/* a pass that runs the protocol is under way on @cpuc */
static bool xsu_in_pass(struct cpu_hw_events *cpuc)
{
	return cpuc->excl_cntrs->states[cpuc->excl_thread_id].sched_started;
}

static void xsu_hook_check(struct cpu_hw_events *cpuc)
{
	if (!xsu_in_pass(cpuc))
		return;

	lockdep_assert_held(&cpuc->excl_cntrs->lock);
	if (raw_spin_is_locked(&cpuc->excl_cntrs->lock))
		xsu_hooks.locked_calls++;
	else
		xsu_hooks.unlocked_calls++;
}

static struct event_constraint *
xsu_get_event_constraints(struct cpu_hw_events *cpuc, int idx,
			  struct perf_event *event)
{
	xsu_hook_check(cpuc);
	return hsw_get_event_constraints(cpuc, idx, event);
}

static void xsu_put_event_constraints(struct cpu_hw_events *cpuc,
				      struct perf_event *event)
{
	xsu_hook_check(cpuc);
	intel_put_event_constraints(cpuc, event);
}

static void xsu_start_scheduling(struct cpu_hw_events *cpuc)
{
	intel_start_scheduling(cpuc);
	if (xsu_in_pass(cpuc))
		xsu_hooks.passes++;
	xsu_hook_check(cpuc);
}

static void xsu_commit_scheduling(struct cpu_hw_events *cpuc, int idx,
				  int cntr)
{
	xsu_hook_check(cpuc);
	intel_commit_scheduling(cpuc, idx, cntr);
}

static void xsu_stop_scheduling(struct cpu_hw_events *cpuc)
{
	xsu_hook_check(cpuc);
	intel_stop_scheduling(cpuc);
	lockdep_assert_not_held(&cpuc->excl_cntrs->lock);
	if (raw_spin_is_locked(&cpuc->excl_cntrs->lock))
		xsu_hooks.unlocked_calls++;
}

/* Haswell with HT: 4 generic and 3 fixed counters, the workaround on */
static const struct fake_pmu_desc xsu_hsw_ht_pmu = {
	.cntr_mask		= GENMASK_ULL(XSU_NR_GP - 1, 0),
	.fixed_cntr_mask	= 0x7,
	.flags			= PMU_FL_EXCL_CNTRS | PMU_FL_EXCL_ENABLED,
	.get_event_constraints	= xsu_get_event_constraints,
	.put_event_constraints	= xsu_put_event_constraints,
	.start_scheduling	= xsu_start_scheduling,
	.commit_scheduling	= xsu_commit_scheduling,
	.stop_scheduling	= xsu_stop_scheduling,
	.settle_scheduling	= intel_excl_settle,
};

struct xsu_event {
	struct fake_pmu_event	*fe;
	bool			used;
	bool			active;
	unsigned int		ticks;
};

/* one hyper-thread: its cpuc and its perf context's event list */
struct xsu_thread {
	struct cpu_hw_events	*cpuc;
	struct xsu_event	slot[XSU_MAX_EVENTS];
	struct xsu_event	*list[XSU_MAX_EVENTS];
	int			n;
	bool			rotate_necessary;
	bool			held;	/* its perf_pmu_disable() section open */
};

struct xsu_core {
	struct kunit		*test;
	struct xsu_thread	ht[2];
};

static struct xsu_core *xsu_core_alloc(struct kunit *test)
{
	struct event_constraint none = { };
	struct xsu_core *core;
	int t, i;

	fake_pmu_install(test, &xsu_hsw_ht_pmu);
	x86_pmu.event_constraints = xsu_hsw_constraints;
	memset(&xsu_hooks, 0, sizeof(xsu_hooks));

	core = kunit_kzalloc(test, sizeof(*core), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, core);
	core->test = test;
	for (t = 0; t < 2; t++) {
		core->ht[t].cpuc = fake_pmu_cpuc_alloc(test);
		for (i = 0; i < XSU_MAX_EVENTS; i++)
			core->ht[t].slot[i].fe = fake_pmu_event_alloc(test,
								      &none, -1);
	}
	fake_pmu_cpuc_make_siblings(test, core->ht[0].cpuc, core->ht[1].cpuc);

	return core;
}

static int xsu_state(struct xsu_core *core, int t, int idx)
{
	struct cpu_hw_events *cpuc = core->ht[t].cpuc;

	return cpuc->excl_cntrs->states[cpuc->excl_thread_id].state[idx];
}

static bool xsu_enabled(void)
{
	return is_ht_workaround_enabled();
}

/* the event programmed on counter @idx of thread @t, or NULL */
static struct perf_event *xsu_on_counter(struct xsu_core *core, int t,
					 int idx)
{
	struct cpu_hw_events *cpuc = core->ht[t].cpuc;
	int i;

	for (i = 0; i < cpuc->n_events; i++) {
		if (cpuc->event_list[i]->hw.idx == idx)
			return cpuc->event_list[i];
	}

	return NULL;
}

/* Generic counters 0-3 of thread @t: 'C' corrupting, 'N' other, '.' free */
static const char *xsu_map(struct xsu_core *core, int t, char *buf)
{
	struct perf_event *event;
	int idx;

	for (idx = 0; idx < XSU_NR_GP; idx++) {
		event = xsu_on_counter(core, t, idx);
		buf[idx] = !event ? '.' :
			   xsu_corrupting(event->hw.config) ? 'C' : 'N';
	}
	buf[idx] = '\0';

	return buf;
}

/* states[] of thread @t on counters 0-3, as 'X', 'S' and 'U' */
static const char *xsu_states(struct xsu_core *core, int t, char *buf)
{
	static const char letter[] = {
		[INTEL_EXCL_UNUSED]	= 'U',
		[INTEL_EXCL_SHARED]	= 'S',
		[INTEL_EXCL_EXCLUSIVE]	= 'X',
	};
	int idx;

	for (idx = 0; idx < XSU_NR_GP; idx++)
		buf[idx] = letter[xsu_state(core, t, idx)];
	buf[idx] = '\0';

	return buf;
}

/* Schedule in the inactive events of @t in list order, up to the first failure. */
static void xsu_sched_in(struct xsu_core *core, int t)
{
	struct xsu_thread *ht = &core->ht[t];
	struct xsu_event *xe;
	int i;

	ht->rotate_necessary = false;
	for (i = 0; i < ht->n; i++) {
		xe = ht->list[i];
		if (xe->active)
			continue;
		if (fake_pmu_add_group(ht->cpuc, &xe->fe, 1)) {
			ht->rotate_necessary = true;
			break;
		}
		xe->active = true;
	}
	/* perf_pmu_enable(): x86_pmu_enable() programs the assignment */
	if (!ht->held)
		fake_pmu_enable(ht->cpuc);
}

static void xsu_sched_out(struct xsu_core *core, int t)
{
	struct xsu_thread *ht = &core->ht[t];
	int i;

	for (i = 0; i < ht->n; i++) {
		if (!ht->list[i]->active)
			continue;
		KUNIT_ASSERT_EQ(core->test,
				fake_pmu_del(ht->cpuc, ht->list[i]->fe), 0);
		ht->list[i]->active = false;
	}
}

/* Add an event to the tail of the list of @t and try to schedule it in. */
static struct xsu_event *xsu_add(struct xsu_core *core, int t, u64 config)
{
	struct xsu_thread *ht = &core->ht[t];
	struct event_constraint c = { .code = config };
	struct xsu_event *xe = NULL;
	struct perf_event *event;
	int i;

	KUNIT_ASSERT_LT(core->test, ht->n, XSU_MAX_EVENTS);
	for (i = 0; i < XSU_MAX_EVENTS; i++) {
		if (!ht->slot[i].used) {
			xe = &ht->slot[i];
			break;
		}
	}
	KUNIT_ASSERT_NOT_NULL(core->test, xe);

	fake_pmu_event_set_constraint(xe->fe, &c);
	event = &xe->fe->event;
	event->hw.idx = -1;
	event->hw.flags = 0;
	event->hw.extra_reg.idx = EXTRA_REG_NONE;
	event->hw.branch_reg.idx = EXTRA_REG_NONE;
	xe->used = true;
	xe->active = false;
	xe->ticks = 0;
	ht->list[ht->n++] = xe;

	/* a thread waiting for rotation tries again only then */
	if (!ht->rotate_necessary)
		xsu_sched_in(core, t);

	return xe;
}

/* Remove event @i of the list of @t (perf_event_release_kernel()). */
static void xsu_remove(struct xsu_core *core, int t, int i)
{
	struct xsu_thread *ht = &core->ht[t];
	struct xsu_event *xe = ht->list[i];

	KUNIT_ASSERT_FALSE(core->test, ht->held);
	if (xe->active) {
		KUNIT_ASSERT_EQ(core->test, fake_pmu_del(ht->cpuc, xe->fe), 0);
		fake_pmu_enable(ht->cpuc);
	}
	xe->active = false;
	xe->used = false;
	for (; i < ht->n - 1; i++)
		ht->list[i] = ht->list[i + 1];
	ht->n--;
}

/* perf_rotate_context(): the first active event goes to the tail. */
static void xsu_rotate(struct xsu_core *core, int t)
{
	struct xsu_thread *ht = &core->ht[t];
	struct xsu_event *xe;
	int i, first = 0;

	if (!ht->n)
		return;
	for (i = 0; i < ht->n; i++) {
		if (ht->list[i]->active) {
			first = i;
			break;
		}
	}

	xsu_sched_out(core, t);
	xe = ht->list[first];
	for (i = first; i < ht->n - 1; i++)
		ht->list[i] = ht->list[i + 1];
	ht->list[ht->n - 1] = xe;
	xsu_sched_in(core, t);
}

/* One multiplexing interval: each thread that needs it rotates. */
static void xsu_tick(struct xsu_core *core)
{
	struct xsu_thread *ht;
	int t, i;

	for (t = 0; t < 2; t++) {
		if (core->ht[t].rotate_necessary)
			xsu_rotate(core, t);
	}
	for (t = 0; t < 2; t++) {
		ht = &core->ht[t];
		for (i = 0; i < ht->n; i++)
			ht->list[i]->ticks += ht->list[i]->active;
	}
}

static const int xsu_counters[] = {
	0, 1, 2, 3, XSU_FIXED(0), XSU_FIXED(1), XSU_FIXED(2),
};

/*
 * The invariants, after every step. Returns NULL or what is violated,
 * written to @buf.
 */
static const char *xsu_violation(struct xsu_core *core, char *buf, size_t len)
{
	struct perf_event *on[2], *event;
	struct cpu_hw_events *cpuc;
	struct xsu_thread *ht;
	int t, i, k, idx, expect, n_active, n_acct;

	for (t = 0; t < 2; t++) {
		ht = &core->ht[t];
		cpuc = ht->cpuc;

		if (raw_spin_is_locked(&cpuc->excl_cntrs->lock) ||
		    cpuc->excl_cntrs->states[t].sched_started) {
			snprintf(buf, len, "HT%d: lock left held", t);
			return buf;
		}

		/* what is programmed is what the perf core thinks is active */
		n_active = 0;
		for (i = 0; i < ht->n; i++)
			n_active += ht->list[i]->active;
		if (n_active != cpuc->n_events) {
			snprintf(buf, len, "HT%d: %d active, %d on the cpuc",
				 t, n_active, cpuc->n_events);
			return buf;
		}

		/* n_excl and has_exclusive[] follow the corrupting events */
		n_acct = 0;
		for (i = 0; i < cpuc->n_events; i++) {
			event = cpuc->event_list[i];
			n_acct += !!(event->hw.flags & PERF_X86_EVENT_EXCL_ACCT);
			for (k = 0; k < i; k++) {
				if (cpuc->event_list[k]->hw.idx == event->hw.idx) {
					snprintf(buf, len, "HT%d: counter %d twice",
						 t, event->hw.idx);
					return buf;
				}
			}
		}
		if (n_acct != cpuc->n_excl ||
		    !!cpuc->excl_cntrs->has_exclusive[t] != !!cpuc->n_excl) {
			snprintf(buf, len, "HT%d: n_excl %d, %d accounted, has_exclusive %d",
				 t, cpuc->n_excl, n_acct,
				 cpuc->excl_cntrs->has_exclusive[t]);
			return buf;
		}
	}

	if (!xsu_enabled())
		return NULL;

	for (k = 0; k < ARRAY_SIZE(xsu_counters); k++) {
		idx = xsu_counters[k];
		for (t = 0; t < 2; t++)
			on[t] = xsu_on_counter(core, t, idx);

		for (t = 0; t < 2; t++) {
			/* (i) no event next to a corrupting one */
			if (on[t] && on[t ^ 1] &&
			    xsu_corrupting(on[t]->hw.config)) {
				snprintf(buf, len,
					 "counter %d: corrupting %#llx on HT%d, %#llx on HT%d",
					 idx, on[t]->hw.config, t,
					 on[t ^ 1]->hw.config, t ^ 1);
				return buf;
			}

			/* (ii) the states say what is programmed */
			expect = !on[t] ? INTEL_EXCL_UNUSED :
				 xsu_corrupting(on[t]->hw.config) ?
				 INTEL_EXCL_EXCLUSIVE : INTEL_EXCL_SHARED;
			if (xsu_state(core, t, idx) != expect) {
				snprintf(buf, len,
					 "HT%d counter %d: state %d, programmed %#llx",
					 t, idx, xsu_state(core, t, idx),
					 on[t] ? on[t]->hw.config : 0);
				return buf;
			}
		}
	}

	return NULL;
}

static void xsu_expect_valid(struct xsu_core *core, const char *what)
{
	char buf[128];
	const char *v = xsu_violation(core, buf, sizeof(buf));

	KUNIT_EXPECT_TRUE_MSG(core->test, !v, "%s: %s", what, v ?: "");
}

static void xsu_remove_all(struct xsu_core *core)
{
	int t;

	for (t = 0; t < 2; t++) {
		while (core->ht[t].n)
			xsu_remove(core, t, core->ht[t].n - 1);
	}
}

static void xsu_expect_all_unused(struct kunit *test, struct xsu_core *core)
{
	int t, k;

	for (t = 0; t < 2; t++) {
		KUNIT_EXPECT_EQ(test, core->ht[t].cpuc->n_events, 0);
		KUNIT_EXPECT_EQ(test, core->ht[t].cpuc->n_excl, 0);
		KUNIT_EXPECT_EQ(test, core->ht[t].cpuc->excl_cntrs->has_exclusive[t], 0);
		for (k = 0; k < ARRAY_SIZE(xsu_counters); k++)
			KUNIT_EXPECT_EQ_MSG(test, xsu_state(core, t, xsu_counters[k]),
					    INTEL_EXCL_UNUSED, "HT%d counter %d",
					    t, xsu_counters[k]);
	}
}

/*
 * Thesis ch. 5.2, Fig. 5.4 to 5.10: one corrupting and two non-corrupting
 * events on HT0, one non-corrupting and two corrupting events on HT1, all
 * statically unconstrained on 4 counters, added in turn. Each event goes to
 * the first counter its dynamic constraint allows, as in the figures, until
 * Fig. 5.9: the thesis prototype had no limit on generic counters, the
 * kernel gives a thread at most half of them while a corrupting event is
 * present, so HT0's third event fails where the thesis put it on C3. HT1's
 * third event fails as in Fig. 5.10, but for the same limit: C3, which
 * HT0 did not take here, would be free for it.
 */
static const struct xsu_fig_step {
	const char	*fig;
	int		ht;
	u64		config;
	bool		fails;
	const char	*map[2];
	const char	*states[2];
} xsu_fig_steps[] = {
	{ "5.4",  -1, 0,		false,	{ "....", "...." }, { "UUUU", "UUUU" } },
	{ "5.5",  0, XSU_LOADS,	false,	{ "C...", "...." }, { "XUUU", "UUUU" } },
	{ "5.6",  1, XSU_LBR_INSERTS,	false,	{ "C...", ".N.." }, { "XUUU", "USUU" } },
	{ "5.7",  0, XSU_BRANCHES,	false,	{ "CN..", ".N.." }, { "XSUU", "USUU" } },
	{ "5.8",  1, XSU_L1_MISS,	false,	{ "CN..", ".NC." }, { "XSUU", "USXU" } },
	{ "5.9",  0, XSU_LBR_INSERTS,	true,	{ "CN..", ".NC." }, { "XSUU", "USXU" } },
	{ "5.10", 1, XSU_L2_MISS,	true,	{ "CN..", ".NC." }, { "XSUU", "USXU" } },
};

static void xsu_thesis_fig_5(struct kunit *test)
{
	struct xsu_core *core = xsu_core_alloc(test);
	const struct xsu_fig_step *s;
	struct xsu_event *xe;
	char buf[8];
	int i, t;

	for (i = 0; i < ARRAY_SIZE(xsu_fig_steps); i++) {
		s = &xsu_fig_steps[i];
		if (s->ht >= 0) {
			xe = xsu_add(core, s->ht, s->config);
			KUNIT_EXPECT_EQ_MSG(test, !xe->active, s->fails,
					    "Fig. %s", s->fig);
		}
		for (t = 0; t < 2; t++) {
			KUNIT_EXPECT_STREQ_MSG(test, xsu_map(core, t, buf),
					       s->map[t], "Fig. %s HT%d", s->fig, t);
			KUNIT_EXPECT_STREQ_MSG(test, xsu_states(core, t, buf),
					       s->states[t], "Fig. %s HT%d", s->fig, t);
		}
		xsu_expect_valid(core, s->fig);
	}

	/* "when an event is scheduled out, its state goes back to U" */
	xsu_remove(core, 0, 0);
	KUNIT_EXPECT_STREQ(test, xsu_states(core, 0, buf), "USUU");
	xsu_expect_valid(core, "HT0 C removed");

	xsu_remove_all(core);
	xsu_expect_all_unused(test, core);
}

/*
 * The lock: every callback of a pass that runs the protocol finds
 * excl_cntrs->lock held (the hooks also lockdep_assert_held() it), and
 * nothing holds it between passes, also after failed passes.
 */
static void xsu_lock_held_in_pass(struct kunit *test)
{
	struct xsu_core *core = xsu_core_alloc(test);
	int i;

	for (i = 0; i < 6; i++)
		xsu_add(core, i & 1, i < 3 ? XSU_LOADS : XSU_LBR_INSERTS);
	xsu_tick(core);
	xsu_remove(core, 0, 0);

	KUNIT_EXPECT_GT(test, xsu_hooks.passes, 6);
	KUNIT_EXPECT_GT(test, xsu_hooks.locked_calls, 3 * xsu_hooks.passes);
	KUNIT_EXPECT_EQ(test, xsu_hooks.unlocked_calls, 0);

	xsu_remove_all(core);
	KUNIT_EXPECT_FALSE(test, raw_spin_is_locked(&core->ht[0].cpuc->excl_cntrs->lock));
}

/*
 * x86_schedule_events() puts the new events of a failed pass from within
 * the pass. Their hw.idx is the counter they had when they last ran, which
 * another event of this thread may hold by now: put must leave the state
 * of that counter alone. HT0 rotates three events under the half rule:
 * BRANCHES and LBR_INSERTS take counters 0 and 1, then 0x81d0, which ran
 * on counter 0 before the rotation, fails.
 */
static void xsu_put_stale_counter(struct kunit *test)
{
	struct xsu_core *core = xsu_core_alloc(test);
	char buf[8];

	xsu_add(core, 0, XSU_LOADS);
	xsu_add(core, 0, XSU_BRANCHES);
	KUNIT_EXPECT_FALSE(test, xsu_add(core, 0, XSU_LBR_INSERTS)->active);
	KUNIT_EXPECT_STREQ(test, xsu_map(core, 0, buf), "CN..");

	xsu_rotate(core, 0);
	KUNIT_EXPECT_STREQ(test, xsu_map(core, 0, buf), "NN..");
	KUNIT_EXPECT_STREQ(test, xsu_states(core, 0, buf), "SSUU");
	xsu_expect_valid(core, "rotated");

	/* so a corrupting event of HT1 keeps off counters 0 and 1 */
	KUNIT_EXPECT_TRUE(test, xsu_add(core, 1, XSU_LOADS)->active);
	KUNIT_EXPECT_STREQ(test, xsu_map(core, 1, buf), "..C.");
	xsu_expect_valid(core, "HT1 corrupting");

	xsu_remove_all(core);
	xsu_expect_all_unused(test, core);
}

/*
 * A running event that the scheduler moves to another counter gives up
 * the state of the counter it leaves. HT0: instructions on a generic
 * counter (fixed counter 0 was taken when it came) and branches on
 * another. A corrupting event arrives: with the previous counters, three
 * generic ones would be in use, more than half, so the scheduler reassigns
 * them and puts instructions on fixed counter 0, the others on counters 0
 * and 1. The counter instructions left is free and must be Unused, else
 * the sibling cannot put a corrupting event there.
 */
static void xsu_moved_counter_released(struct kunit *test)
{
	struct xsu_core *core = xsu_core_alloc(test);
	char buf[8];

	xsu_add(core, 0, XSU_INST);
	xsu_add(core, 0, XSU_INST);
	xsu_add(core, 0, XSU_LBR_INSERTS);
	xsu_add(core, 0, XSU_BRANCHES);
	KUNIT_EXPECT_STREQ(test, xsu_map(core, 0, buf), "NNN.");
	xsu_remove(core, 0, 2);
	xsu_remove(core, 0, 0);
	KUNIT_EXPECT_STREQ(test, xsu_states(core, 0, buf), "USSU");

	KUNIT_EXPECT_TRUE(test, xsu_add(core, 0, XSU_LOADS)->active);
	KUNIT_EXPECT_STREQ(test, xsu_map(core, 0, buf), "NC..");
	KUNIT_EXPECT_EQ(test, xsu_on_counter(core, 0, XSU_FIXED(0))->hw.config,
			XSU_INST);
	KUNIT_EXPECT_STREQ(test, xsu_states(core, 0, buf), "SXUU");
	xsu_expect_valid(core, "moved");

	/* so HT1 can count a corrupting event on counter 2 */
	KUNIT_EXPECT_TRUE(test, xsu_add(core, 1, XSU_L1_MISS)->active);
	KUNIT_EXPECT_STREQ(test, xsu_map(core, 1, buf), "..C.");
	xsu_expect_valid(core, "HT1 corrupting");

	xsu_remove_all(core);
	xsu_expect_all_unused(test, core);
}

/*
 * The state of a counter an event moved off is released only once the
 * event was read off it. As in xsu_moved_counter_released, HT0's
 * corrupting event comes, instructions moves to fixed counter 0, and one
 * generic counter that HT0 held is left; this time HT0's
 * perf_pmu_disable() section stays open after the pass, as when perf adds
 * more groups: the event that left that counter still counts there until
 * x86_pmu_enable() reads it. HT1's corrupting event, which only that
 * counter could take (HT1's 0x01cd holds counter 3, HT0's events the
 * other two), must wait until then.
 */
static void xsu_moved_counter_read_first(struct kunit *test)
{
	struct xsu_core *core = xsu_core_alloc(test);
	struct cpu_hw_events *cpuc = core->ht[0].cpuc;
	u64 before = 0, after = 0;
	struct perf_event *moved;
	struct xsu_event *miss;
	char buf[8];
	int i, left;

	xsu_add(core, 1, XSU_LDLAT);
	xsu_add(core, 0, XSU_INST);
	xsu_add(core, 0, XSU_INST);
	xsu_add(core, 0, XSU_LBR_INSERTS);
	xsu_add(core, 0, XSU_BRANCHES);
	xsu_remove(core, 0, 2);
	xsu_remove(core, 0, 0);
	for (i = 0; i < cpuc->n_events; i++)
		before |= BIT_ULL(cpuc->event_list[i]->hw.idx);

	core->ht[0].held = true;
	KUNIT_EXPECT_TRUE(test, xsu_add(core, 0, XSU_LOADS)->active);
	for (i = 0; i < cpuc->n_events; i++)
		after |= BIT_ULL(cpuc->assign[i]);
	KUNIT_EXPECT_TRUE(test, after & BIT_ULL(XSU_FIXED(0)));
	KUNIT_ASSERT_EQ(test, hweight64(before & ~after & 0xf), 1);
	left = __ffs64(before & ~after & 0xf);
	moved = xsu_on_counter(core, 0, left);
	KUNIT_ASSERT_NOT_NULL(test, moved);
	KUNIT_EXPECT_EQ(test, xsu_states(core, 0, buf)[left], 'S');
	miss = xsu_add(core, 1, XSU_L1_MISS);
	KUNIT_EXPECT_FALSE(test, miss->active);

	core->ht[0].held = false;
	fake_pmu_enable(cpuc);
	KUNIT_EXPECT_NE(test, moved->hw.idx, left);
	KUNIT_EXPECT_EQ(test, xsu_states(core, 0, buf)[left], 'U');
	xsu_rotate(core, 1);
	KUNIT_EXPECT_TRUE(test, miss->active);
	KUNIT_EXPECT_PTR_EQ(test, xsu_on_counter(core, 1, left),
			    &miss->fe->event);
	xsu_expect_valid(core, "moved, read first");

	xsu_remove_all(core);
	xsu_expect_all_unused(test, core);
}

/*
 * The same for a corrupting event that moves off a counter another event
 * of its thread takes. HT1 counts branches on counters 0-2 when HT0's
 * 0x81d0 comes, which takes counter 3; HT1 then keeps one of them. HT0's
 * 0x01cd, which only counter 3 can count, comes in a section held open,
 * and 0x81d0 moves to counter 1. Until HT0's PMU is enabled, 0x81d0 still
 * counts on counter 3, which stays Exclusive: HT1's 0x01cd waits. Then
 * counter 3 is Shared, and HT1's 0x01cd takes it at its rotation.
 */
static void xsu_moved_corrupting_read_first(struct kunit *test)
{
	struct xsu_core *core = xsu_core_alloc(test);
	struct xsu_event *ldlat;
	char buf[8];
	int i;

	for (i = 0; i < 3; i++)
		xsu_add(core, 1, XSU_BRANCHES);
	KUNIT_EXPECT_TRUE(test, xsu_add(core, 0, XSU_LOADS)->active);
	for (i = 0; i < 2; i++)
		xsu_remove(core, 1, 1);
	KUNIT_ASSERT_STREQ(test, xsu_states(core, 0, buf), "UUUX");
	KUNIT_ASSERT_STREQ(test, xsu_states(core, 1, buf), "SUUU");

	core->ht[0].held = true;
	KUNIT_EXPECT_TRUE(test, xsu_add(core, 0, XSU_LDLAT)->active);
	KUNIT_EXPECT_STREQ(test, xsu_states(core, 0, buf), "UXUX");
	ldlat = xsu_add(core, 1, XSU_LDLAT);
	KUNIT_EXPECT_FALSE(test, ldlat->active);

	core->ht[0].held = false;
	fake_pmu_enable(core->ht[0].cpuc);
	KUNIT_EXPECT_STREQ(test, xsu_map(core, 0, buf), ".C.N");
	KUNIT_EXPECT_STREQ(test, xsu_states(core, 0, buf), "UXUS");
	xsu_rotate(core, 1);
	KUNIT_EXPECT_TRUE(test, ldlat->active);
	xsu_expect_valid(core, "corrupting moved, read first");

	xsu_remove_all(core);
	xsu_expect_all_unused(test, core);
}

/*
 * Dynamic constraints live in cpuc->constraint_list[], one entry per index
 * of cpuc->event_list[]. x86_pmu_del() moves the events behind a removed
 * one down a place, with their constraints: HT0's corrupting event moves
 * from index 1 to 0 but keeps entry 1. The next new event, at index 1,
 * must not take that entry over: the corrupting event would be scheduled
 * and committed with the other event's constraint, as non-corrupting.
 */
static void xsu_shifted_constraint(struct kunit *test)
{
	struct xsu_core *core = xsu_core_alloc(test);
	struct cpu_hw_events *cpuc = core->ht[0].cpuc;
	struct xsu_event *loads;
	char buf[8];

	xsu_add(core, 0, XSU_LBR_INSERTS);
	loads = xsu_add(core, 0, XSU_LOADS);
	xsu_remove(core, 0, 0);
	KUNIT_EXPECT_STREQ(test, xsu_states(core, 0, buf), "UXUU");

	KUNIT_EXPECT_TRUE(test, xsu_add(core, 0, XSU_BRANCHES)->active);
	KUNIT_EXPECT_PTR_NE(test, cpuc->event_constraint[0],
			    cpuc->event_constraint[1]);
	KUNIT_EXPECT_TRUE(test, cpuc->event_constraint[0]->flags &
				PERF_X86_EVENT_EXCL);
	KUNIT_EXPECT_EQ(test, xsu_state(core, 0, loads->fe->event.hw.idx),
			INTEL_EXCL_EXCLUSIVE);
	xsu_expect_valid(core, "shifted");

	/* so HT1's branches keep off the counter of 0x81d0 */
	KUNIT_EXPECT_TRUE(test, xsu_add(core, 1, XSU_BRANCHES)->active);
	xsu_expect_valid(core, "HT1 branches");

	xsu_remove_all(core);
	xsu_expect_all_unused(test, core);
}

/*
 * The same shift the other way round: HT0's branches move from index 1 to
 * 0 and keep entry 1, and cycles come at index 1. Cycles may use fixed
 * counter 1: branches with the constraint of cycles would be placed there
 * and count cycles.
 */
static void xsu_shifted_constraint_fixed(struct kunit *test)
{
	struct xsu_core *core = xsu_core_alloc(test);
	struct cpu_hw_events *cpuc = core->ht[0].cpuc;
	struct xsu_event *branches;

	xsu_add(core, 0, XSU_LBR_INSERTS);
	branches = xsu_add(core, 0, XSU_BRANCHES);
	xsu_remove(core, 0, 0);

	KUNIT_EXPECT_TRUE(test, xsu_add(core, 0, XSU_CYCLES)->active);
	KUNIT_EXPECT_FALSE(test, cpuc->event_constraint[0]->idxmsk64 &
				 BIT_ULL(XSU_FIXED(1)));
	KUNIT_EXPECT_TRUE(test, branches->active);
	KUNIT_EXPECT_LT(test, branches->fe->event.hw.idx, XSU_NR_GP);
	KUNIT_ASSERT_NOT_NULL(test, xsu_on_counter(core, 0, XSU_FIXED(1)));
	KUNIT_EXPECT_EQ(test, xsu_on_counter(core, 0, XSU_FIXED(1))->hw.config,
			XSU_CYCLES);
	xsu_expect_valid(core, "shifted");

	xsu_remove_all(core);
	xsu_expect_all_unused(test, core);
}

/*
 * The same shift with the counter masks of hw.dyn_constraint (branch
 * counters, auto counter reload, arch PEBS), which
 * intel_get_event_constraints() applies in cpuc->constraint_list[] on a
 * PMU without the HT bug: eight generic counters, event 1 may use only
 * counters 0-1. Event 0 goes, event 1 moves to index 0; an event with
 * counters 6-7 comes, at index 1. Event 1 keeps its own mask and counter.
 */
static const struct fake_pmu_desc xsu_dyn_pmu = {
	.cntr_mask		= GENMASK_ULL(7, 0),
	.fixed_cntr_mask	= 0x7,
	.flags			= PMU_FL_DYN_CONSTRAINT,
	.get_event_constraints	= intel_get_event_constraints,
	.put_event_constraints	= intel_put_event_constraints,
};

static void xsu_shifted_dyn_constraint(struct kunit *test)
{
	static const u64 dyn[] = { ~0ULL, 0x03, 0xc0 };
	struct event_constraint c = { .code = XSU_BRANCHES };
	struct fake_pmu_event *fe[ARRAY_SIZE(dyn)];
	struct cpu_hw_events *cpuc;
	int i;

	fake_pmu_install(test, &xsu_dyn_pmu);
	cpuc = fake_pmu_cpuc_alloc(test);
	KUNIT_ASSERT_NOT_NULL(test, cpuc->constraint_list);
	for (i = 0; i < ARRAY_SIZE(dyn); i++) {
		fe[i] = fake_pmu_event_alloc(test, &c, -1);
		fe[i]->event.hw.dyn_constraint = dyn[i];
		fe[i]->event.hw.extra_reg.idx = EXTRA_REG_NONE;
		fe[i]->event.hw.branch_reg.idx = EXTRA_REG_NONE;
	}

	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, fake_pmu_add_group(cpuc, &fe[i], 1), 0);
		fake_pmu_enable(cpuc);
	}
	KUNIT_EXPECT_EQ(test, fake_pmu_del(cpuc, fe[0]), 0);
	fake_pmu_enable(cpuc);
	KUNIT_ASSERT_EQ(test, fake_pmu_add_group(cpuc, &fe[2], 1), 0);
	fake_pmu_enable(cpuc);

	KUNIT_EXPECT_PTR_NE(test, cpuc->event_constraint[0],
			    cpuc->event_constraint[1]);
	KUNIT_EXPECT_EQ(test, cpuc->event_constraint[0]->idxmsk64, 0x03);
	KUNIT_EXPECT_TRUE(test, BIT_ULL(fe[1]->event.hw.idx) & 0x03);
	KUNIT_EXPECT_TRUE(test, BIT_ULL(fe[2]->event.hw.idx) & 0xc0);

	for (i = 1; i < ARRAY_SIZE(dyn); i++)
		KUNIT_EXPECT_EQ(test, fake_pmu_del(cpuc, fe[i]), 0);
	fake_pmu_enable(cpuc);
}

/*
 * The fast path keeps previous counters only within the limit of half the
 * generic counters. Two corrupting events and one other last ran on
 * counters 0, 1 and 2, at different times: a rotation of the three on the
 * two counters of the limit can leave them so, and the test gives them
 * those counters directly. They may not all come back.
 */
static void xsu_fast_path_half_counters(struct kunit *test)
{
	static const u64 config[] = { XSU_LOADS, XSU_L1_MISS, XSU_LBR_INSERTS };
	struct xsu_core *core = xsu_core_alloc(test);
	struct cpu_hw_events *cpuc = core->ht[0].cpuc;
	struct fake_pmu_event *fe[ARRAY_SIZE(config)];
	struct event_constraint c = { };
	char buf[8];
	int i;

	for (i = 0; i < ARRAY_SIZE(config); i++) {
		c.code = config[i];
		fe[i] = fake_pmu_event_alloc(test, &c, i);
		fe[i]->event.hw.extra_reg.idx = EXTRA_REG_NONE;
		fe[i]->event.hw.branch_reg.idx = EXTRA_REG_NONE;
	}

	KUNIT_EXPECT_EQ(test, fake_pmu_add_group(cpuc, fe, 2), 0);
	fake_pmu_enable(cpuc);
	KUNIT_EXPECT_STREQ(test, xsu_states(core, 0, buf), "XXUU");
	KUNIT_EXPECT_EQ(test, fake_pmu_add_group(cpuc, fe + 2, 1), -EINVAL);
	fake_pmu_enable(cpuc);
	KUNIT_EXPECT_EQ(test, cpuc->n_events, 2);
	KUNIT_EXPECT_STREQ(test, xsu_states(core, 0, buf), "XXUU");

	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, fake_pmu_del(cpuc, fe[i]), 0);
	fe[2]->event.hw.idx = 2;
	KUNIT_EXPECT_EQ(test, fake_pmu_add_group(cpuc, fe, 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, cpuc->n_events, 0);
	xsu_expect_all_unused(test, core);
}

/*
 * Haswell: an event with in_tx_cp=1 may only use counter 2
 * (hsw_get_event_constraints()). A corrupting one must mark counter 2
 * exclusive like any other, so that the sibling keeps off it.
 */
static void xsu_hsw_checkpointed(struct kunit *test)
{
	struct xsu_core *core = xsu_core_alloc(test);
	char buf[8];

	KUNIT_EXPECT_TRUE(test,
			  xsu_add(core, 0, XSU_LOADS | HSW_IN_TX_CHECKPOINTED)->active);
	KUNIT_EXPECT_STREQ(test, xsu_map(core, 0, buf), "..C.");
	KUNIT_EXPECT_STREQ(test, xsu_states(core, 0, buf), "UUXU");
	xsu_expect_valid(core, "HT0 checkpointed");

	/* L1D_PEND_MISS.PENDING only counts on counter 2 */
	KUNIT_EXPECT_FALSE(test, xsu_add(core, 1, XSU_L1D_PEND)->active);
	xsu_expect_valid(core, "HT1 on counter 2");

	/* and a checkpointed event of HT1 does not get counter 2 either */
	xsu_remove_all(core);
	xsu_add(core, 0, XSU_L1D_PEND);
	KUNIT_EXPECT_FALSE(test,
			   xsu_add(core, 1, XSU_LOADS | HSW_IN_TX_CHECKPOINTED)->active);
	/* once HT0 is gone, it does, and keeps it across passes */
	xsu_remove(core, 0, 0);
	xsu_tick(core);
	KUNIT_EXPECT_STREQ(test, xsu_map(core, 1, buf), "..C.");
	KUNIT_EXPECT_STREQ(test, xsu_states(core, 1, buf), "UUXU");
	xsu_add(core, 1, XSU_LBR_INSERTS);
	KUNIT_EXPECT_STREQ(test, xsu_map(core, 1, buf), "N.C.");
	KUNIT_EXPECT_STREQ(test, xsu_states(core, 1, buf), "SUXU");
	KUNIT_EXPECT_FALSE(test, xsu_add(core, 0, XSU_L1D_PEND)->active);
	xsu_expect_valid(core, "HT1 checkpointed");

	xsu_remove_all(core);
	xsu_expect_all_unused(test, core);
}

/* The fake PMU is gone after each test: x86_pmu is as it was. */
static void xsu_restores_pmu(struct kunit *test)
{
	struct event_constraint *constraints = x86_pmu.event_constraints;
	unsigned int flags = x86_pmu.flags;
	struct xsu_core *core = xsu_core_alloc(test);

	xsu_add(core, 0, XSU_LOADS);
	xsu_remove_all(core);
	fake_pmu_uninstall(test);
	KUNIT_EXPECT_PTR_EQ(test, x86_pmu.event_constraints, constraints);
	KUNIT_EXPECT_EQ(test, x86_pmu.flags, flags);
}

static struct kunit_case xsu_test_cases[] = {
	KUNIT_CASE(xsu_thesis_fig_5),
	KUNIT_CASE(xsu_lock_held_in_pass),
	KUNIT_CASE(xsu_put_stale_counter),
	KUNIT_CASE(xsu_moved_counter_released),
	KUNIT_CASE(xsu_moved_counter_read_first),
	KUNIT_CASE(xsu_moved_corrupting_read_first),
	KUNIT_CASE(xsu_shifted_constraint),
	KUNIT_CASE(xsu_shifted_constraint_fixed),
	KUNIT_CASE(xsu_shifted_dyn_constraint),
	KUNIT_CASE(xsu_fast_path_half_counters),
	KUNIT_CASE(xsu_hsw_checkpointed),
	KUNIT_CASE(xsu_restores_pmu),
	{}
};

static struct kunit_suite xsu_test_suite = {
	.name = "perf_x86_intel_xsu",
	.test_cases = xsu_test_cases,
};

kunit_test_suite(xsu_test_suite);
