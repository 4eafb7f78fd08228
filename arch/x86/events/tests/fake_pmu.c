// SPDX-License-Identifier: GPL-2.0
/*
 * Fake x86 PMUs for KUnit tests of the x86 PMU code, see fake_pmu.h.
 *
 * #included at the end of arch/x86/events/core.c.
 */

#include <kunit/resource.h>

#include "fake_pmu.h"

/*
 * Who owns x86_pmu, the core PMU's struct pmu and this CPU's cpu_hw_events.
 * Without a registered PMU driver nothing else writes x86_pmu after
 * init_hw_perf_events() (an early initcall, long done when KUnit runs): the
 * sysfs knobs that change it belong to the unregistered "cpu" PMU, and the
 * NMI handler and hotplug callbacks were never installed. Readers of the
 * fields we set (the scheduler, collect_events() and the PMU's callbacks)
 * are only reached through that PMU or through these helpers, and nothing
 * else uses the per-CPU cpu_hw_events. Built-in KUnit tests run one at a
 * time, so the owner is just a guard against a second user;
 * static_call_update() does its own locking against other text patching.
 * A mutex could not be used: KUnit runs a test's cleanup actions in another
 * kthread than the test.
 */
static struct kunit *fake_pmu_owner;

/* The state before the owner's first fake_pmu_install(). */
static struct fake_pmu_saved {
	struct x86_pmu		pmu;
	struct event_constraint	unconstrained;
	/* targets of the static calls the helpers set, in the x86_pmu fields */
	struct x86_pmu		calls;
	int			pmu_type;
	struct perf_cpu_pmu_context * __percpu *cpu_pmu_context;
} fake_pmu_saved;

/*
 * A fake cpuc, and the count of perf_pmu_disable() calls not yet undone on
 * it: perf_pmu_disable() keeps it in the core PMU's per-CPU context, which
 * only the CPU whose cpu_hw_events holds the cpuc uses.
 */
struct fake_pmu_cpuc {
	struct cpu_hw_events	cpuc;
	int			pmu_disable_count;
};

/*
 * The core PMU's per-CPU context while the fake PMU is installed: the
 * unregistered PMU has none. perf_pmu_disable() and perf_pmu_enable() use
 * its pmu_disable_count, of the fake cpuc that this CPU's cpu_hw_events
 * holds (fake_pmu_enter()). Every CPU's pointer points at it; they are
 * allocated at the first install and kept.
 */
static struct perf_cpu_pmu_context fake_pmu_cpc;
static struct perf_cpu_pmu_context * __percpu *fake_pmu_cpcs;

static void fake_pmu_alloc_disable_count(struct kunit *test)
{
	struct perf_cpu_pmu_context * __percpu *cpcs, **cpc;
	int cpu;

	if (READ_ONCE(fake_pmu_cpcs))
		return;
	cpcs = alloc_percpu(struct perf_cpu_pmu_context *);
	/*
	 * Not KUNIT_ASSERT_NOT_NULL(): it compares with a generic pointer,
	 * which a per-CPU one in the %gs address space (compilers with named
	 * address spaces) cannot be compared with.
	 */
	KUNIT_ASSERT_TRUE(test, cpcs);
	for_each_possible_cpu(cpu) {
		cpc = per_cpu_ptr(cpcs, cpu);
		*cpc = &fake_pmu_cpc;
	}
	if (cmpxchg(&fake_pmu_cpcs, NULL, cpcs))
		free_percpu(cpcs);
}

/* Give the core PMU the per-CPU context, or put back what it had */
static void fake_pmu_set_disable_count(struct fake_pmu_saved *saved,
				       bool fake)
{
	if (fake) {
		saved->cpu_pmu_context = pmu.cpu_pmu_context;
		pmu.cpu_pmu_context = fake_pmu_cpcs;
	} else {
		pmu.cpu_pmu_context = saved->cpu_pmu_context;
	}
}

/* This CPU's count of the core PMU's perf_pmu_disable() calls not undone */
static int *fake_pmu_disable_count(void)
{
	return &fake_pmu_cpc.pmu_disable_count;
}

/*
 * While a helper runs the core PMU's callbacks on a fake cpuc, with
 * interrupts off: the fake cpuc, which this CPU's cpu_hw_events holds, and
 * what that held before.
 */
static struct cpu_hw_events *fake_pmu_held;
static struct cpu_hw_events fake_pmu_real_cpuc;

/*
 * The hardware seam: what x86_pmu_enable(), x86_pmu_disable(),
 * x86_pmu_start() and x86_pmu_stop() would have the counters' MSRs do. The
 * PMI handler is what makes x86_pmu_initialized() true; it is never called,
 * as no NMI handler is registered without a PMU driver.
 */
static int fake_pmu_handle_irq(struct pt_regs *regs)
{
	return 0;
}

static void fake_pmu_disable_all(void)
{
}

static void fake_pmu_enable_all(int added)
{
}

static void fake_pmu_enable_event(struct perf_event *event)
{
}

static void fake_pmu_disable_event(struct perf_event *event)
{
}

static int fake_pmu_set_period(struct perf_event *event)
{
	return 0;
}

static u64 fake_pmu_update(struct perf_event *event)
{
	return 0;
}

static void fake_pmu_update_calls(const struct x86_pmu *p)
{
	static_call_update(x86_pmu_disable_all, p->disable_all);
	static_call_update(x86_pmu_enable_all, p->enable_all);
	static_call_update(x86_pmu_enable, p->enable);
	static_call_update(x86_pmu_disable, p->disable);
	static_call_update(x86_pmu_set_period, p->set_period);
	static_call_update(x86_pmu_update, p->update);
	static_call_update(x86_pmu_schedule_events, p->schedule_events);
	static_call_update(x86_pmu_get_event_constraints, p->get_event_constraints);
	static_call_update(x86_pmu_put_event_constraints, p->put_event_constraints);
	static_call_update(x86_pmu_start_scheduling, p->start_scheduling);
	static_call_update(x86_pmu_commit_scheduling, p->commit_scheduling);
	static_call_update(x86_pmu_stop_scheduling, p->stop_scheduling);
}

static void fake_pmu_restore(void *data)
{
	struct fake_pmu_saved *saved = data;

	fake_pmu_update_calls(&saved->calls);
	memcpy(&x86_pmu, &saved->pmu, sizeof(x86_pmu));
	memcpy(&unconstrained, &saved->unconstrained, sizeof(unconstrained));
	pmu.type = saved->pmu_type;
	fake_pmu_set_disable_count(saved, false);
	/* pairs with the cmpxchg() of the next fake_pmu_install() */
	smp_store_release(&fake_pmu_owner, NULL);
}

void fake_pmu_install(struct kunit *test, const struct fake_pmu_desc *desc)
{
	struct fake_pmu_saved *saved = &fake_pmu_saved;
	struct kunit *owner;
	int ret;

	/* Once installed, x86_pmu_initialized(): check the owner first. */
	if (READ_ONCE(fake_pmu_owner) != test &&
	    (x86_pmu_initialized() || is_hybrid()))
		kunit_skip(test, "%s PMU driver registered, not replacing it",
			   x86_pmu.name ?: "a");

	fake_pmu_alloc_disable_count(test);
	owner = cmpxchg(&fake_pmu_owner, NULL, test);
	KUNIT_ASSERT_TRUE_MSG(test, !owner || owner == test,
			      "fake PMU in use by %s", owner ? owner->name : "");
	if (!owner) {
		memcpy(&saved->pmu, &x86_pmu, sizeof(x86_pmu));
		memcpy(&saved->unconstrained, &unconstrained,
		       sizeof(unconstrained));
		saved->calls.disable_all = static_call_query(x86_pmu_disable_all);
		saved->calls.enable_all = static_call_query(x86_pmu_enable_all);
		saved->calls.enable = static_call_query(x86_pmu_enable);
		saved->calls.disable = static_call_query(x86_pmu_disable);
		saved->calls.set_period = static_call_query(x86_pmu_set_period);
		saved->calls.update = static_call_query(x86_pmu_update);
		saved->calls.schedule_events =
			static_call_query(x86_pmu_schedule_events);
		saved->calls.get_event_constraints =
			static_call_query(x86_pmu_get_event_constraints);
		saved->calls.put_event_constraints =
			static_call_query(x86_pmu_put_event_constraints);
		saved->calls.start_scheduling =
			static_call_query(x86_pmu_start_scheduling);
		saved->calls.commit_scheduling =
			static_call_query(x86_pmu_commit_scheduling);
		saved->calls.stop_scheduling =
			static_call_query(x86_pmu_stop_scheduling);
		saved->pmu_type = pmu.type;
		fake_pmu_set_disable_count(saved, true);
		ret = kunit_add_action_or_reset(test, fake_pmu_restore, saved);
		KUNIT_ASSERT_EQ(test, ret, 0);
	}

	memcpy(&x86_pmu, &saved->pmu, sizeof(x86_pmu));
	x86_pmu.handle_irq = fake_pmu_handle_irq;
	x86_pmu.disable_all = fake_pmu_disable_all;
	x86_pmu.enable_all = fake_pmu_enable_all;
	x86_pmu.enable = fake_pmu_enable_event;
	x86_pmu.disable = fake_pmu_disable_event;
	x86_pmu.set_period = fake_pmu_set_period;
	x86_pmu.update = fake_pmu_update;
	x86_pmu.schedule_events = x86_schedule_events;
	x86_pmu.cntr_mask64 = desc->cntr_mask;
	x86_pmu.fixed_cntr_mask64 = desc->fixed_cntr_mask;
	x86_pmu.intel_cap.perf_metrics = desc->num_topdown_events > 0;
	x86_pmu.num_topdown_events = desc->num_topdown_events;
	x86_pmu.flags = desc->flags;

	x86_pmu.get_event_constraints = desc->get_event_constraints ?:
					fake_pmu_get_event_constraints;
	x86_pmu.put_event_constraints = desc->put_event_constraints ?:
					fake_pmu_put_event_constraints;
	x86_pmu.start_scheduling = desc->start_scheduling;
	x86_pmu.commit_scheduling = desc->commit_scheduling ?:
				    fake_pmu_commit_scheduling;
	x86_pmu.stop_scheduling = desc->stop_scheduling;
	fake_pmu_update_calls(&x86_pmu);
	/*
	 * The type perf_pmu_register() gives the core PMU: is_x86_event()
	 * tells its events by it.
	 */
	pmu.type = PERF_TYPE_RAW;

	unconstrained = (struct event_constraint)
		__EVENT_CONSTRAINT(0, x86_pmu.cntr_mask64,
				   0, x86_pmu_num_counters(NULL), 0, 0);
}

void fake_pmu_uninstall(struct kunit *test)
{
	KUNIT_ASSERT_PTR_EQ(test, READ_ONCE(fake_pmu_owner), test);
	kunit_release_action(test, fake_pmu_restore, &fake_pmu_saved);
}

KUNIT_DEFINE_ACTION_WRAPPER(fake_pmu_cpuc_finish, intel_cpuc_finish,
			    struct cpu_hw_events *);

struct cpu_hw_events *fake_pmu_cpuc_alloc(struct kunit *test)
{
	struct fake_pmu_cpuc *fc;
	struct cpu_hw_events *cpuc;
	int ret;

	KUNIT_ASSERT_PTR_EQ_MSG(test, READ_ONCE(fake_pmu_owner), test,
				"fake_pmu_install() first");

	fc = kunit_kzalloc(test, sizeof(*fc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fc);
	cpuc = &fc->cpuc;
	cpuc->pmu = &pmu;
	/* as the per-CPU cpu_hw_events starts out */
	cpuc->enabled = 1;

	ret = intel_cpuc_prepare(cpuc, raw_smp_processor_id());
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = kunit_add_action_or_reset(test, fake_pmu_cpuc_finish, cpuc);
	KUNIT_ASSERT_EQ(test, ret, 0);

	return cpuc;
}

void fake_pmu_cpuc_make_siblings(struct kunit *test, struct cpu_hw_events *cpuc,
				 struct cpu_hw_events *sibling)
{
	struct intel_excl_cntrs *c = cpuc->excl_cntrs;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, sibling->excl_cntrs);
	KUNIT_ASSERT_PTR_NE(test, sibling->excl_cntrs, c);

	kfree(sibling->excl_cntrs);
	sibling->excl_cntrs = c;
	sibling->excl_thread_id = 1;
	c->core_id = 0;
	c->refcnt = 2;
}

void fake_pmu_event_set_constraint(struct fake_pmu_event *fe,
				   const struct event_constraint *c)
{
	struct perf_event *event = &fe->event;

	fe->constraint = *c;
	fe->constraint.weight = hweight64(c->idxmsk64);

	event->attr.config = c->code;
	event->hw.config = c->code;
	if (c->flags & PERF_X86_EVENT_PAIR)
		event->hw.flags |= PERF_X86_EVENT_PAIR;
	else
		event->hw.flags &= ~PERF_X86_EVENT_PAIR;
}

struct fake_pmu_event *fake_pmu_event_alloc(struct kunit *test,
					    const struct event_constraint *c,
					    int prev_idx)
{
	struct fake_pmu_event *fe;

	fe = kunit_kzalloc(test, sizeof(*fe), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fe);

	fe->event.pmu = &pmu;
	fe->event.group_leader = &fe->event;
	fe->event.hw.idx = prev_idx;
	fe->commit_cntr = -1;
	fake_pmu_event_set_constraint(fe, c);

	return fe;
}

/*
 * Make @cpuc this CPU's cpu_hw_events, for the core PMU's callbacks, which
 * take theirs from there, until fake_pmu_leave(); interrupts stay off.
 */
static unsigned long fake_pmu_enter(struct cpu_hw_events *cpuc)
{
	struct fake_pmu_cpuc *fc = container_of(cpuc, struct fake_pmu_cpuc, cpuc);
	unsigned long flags;

	local_irq_save(flags);
	WARN_ON_ONCE(fake_pmu_held);
	fake_pmu_held = cpuc;
	memcpy(&fake_pmu_real_cpuc, this_cpu_ptr(&cpu_hw_events),
	       sizeof(fake_pmu_real_cpuc));
	memcpy(this_cpu_ptr(&cpu_hw_events), cpuc, sizeof(*cpuc));
	*fake_pmu_disable_count() = fc->pmu_disable_count;
	return flags;
}

static void fake_pmu_leave(struct cpu_hw_events *cpuc, unsigned long flags)
{
	struct fake_pmu_cpuc *fc = container_of(cpuc, struct fake_pmu_cpuc, cpuc);

	fc->pmu_disable_count = *fake_pmu_disable_count();
	memcpy(cpuc, this_cpu_ptr(&cpu_hw_events), sizeof(*cpuc));
	memcpy(this_cpu_ptr(&cpu_hw_events), &fake_pmu_real_cpuc,
	       sizeof(fake_pmu_real_cpuc));
	fake_pmu_held = NULL;
	local_irq_restore(flags);
}

struct cpu_hw_events *fake_pmu_cpuc_of(struct cpu_hw_events *cpuc)
{
	if (fake_pmu_held && cpuc == this_cpu_ptr(&cpu_hw_events))
		return fake_pmu_held;
	return cpuc;
}

int fake_pmu_add_group(struct cpu_hw_events *cpuc, struct fake_pmu_event **fe,
		       int n)
{
	unsigned long flags;
	int i, added, ret = 0;

	flags = fake_pmu_enter(cpuc);
	/* the perf_ctx_disable() that the scheduling pass starts with */
	if (!*fake_pmu_disable_count())
		perf_pmu_disable(&pmu);

	/* group_sched_in() */
	pmu.start_txn(&pmu, PERF_PMU_TXN_ADD);
	for (added = 0; added < n; added++) {
		ret = pmu.add(&fe[added]->event, PERF_EF_START);
		if (ret)
			break;
	}
	if (!ret)
		ret = pmu.commit_txn(&pmu);
	if (ret) {
		for (i = 0; i < added; i++)
			pmu.del(&fe[i]->event, 0);
		pmu.cancel_txn(&pmu);
	}

	fake_pmu_leave(cpuc, flags);
	return ret;
}

int fake_pmu_validate_group(struct kunit *test, struct fake_pmu_event **fe,
			    int n)
{
	struct perf_event *leader = &fe[0]->event;
	struct perf_event_context *ctx;
	int i, ret;

	KUNIT_ASSERT_GE(test, n, 2);
	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	mutex_init(&ctx->mutex);

	/* the group as perf_group_attach() left it, the last event not yet */
	INIT_LIST_HEAD(&leader->sibling_list);
	for (i = 0; i < n; i++) {
		fe[i]->event.ctx = ctx;
		fe[i]->event.group_leader = leader;
		if (i && i < n - 1)
			list_add_tail(&fe[i]->event.sibling_list,
				      &leader->sibling_list);
	}

	/* perf_event_open() validates it with the context's mutex held */
	mutex_lock(&ctx->mutex);
	ret = validate_group(&fe[n - 1]->event);
	mutex_unlock(&ctx->mutex);
	return ret;
}

int fake_pmu_del(struct cpu_hw_events *cpuc, struct fake_pmu_event *fe)
{
	unsigned long flags;
	int i;

	for (i = 0; i < cpuc->n_events; i++) {
		if (cpuc->event_list[i] == &fe->event)
			break;
	}
	if (i == cpuc->n_events)
		return -ENOENT;
	/* x86_pmu_del() marks the event's counter dirty */
	if (WARN_ON_ONCE(fe->event.hw.idx < 0))
		return -EINVAL;

	flags = fake_pmu_enter(cpuc);
	/* a deletion comes within a scheduling pass */
	if (!*fake_pmu_disable_count())
		perf_pmu_disable(&pmu);
	pmu.del(&fe->event, 0);
	fake_pmu_leave(cpuc, flags);
	return 0;
}

void fake_pmu_enable(struct cpu_hw_events *cpuc)
{
	unsigned long flags;

	flags = fake_pmu_enter(cpuc);
	/* the perf_ctx_enable() that ends the scheduling pass */
	if (*fake_pmu_disable_count())
		perf_pmu_enable(&pmu);
	fake_pmu_leave(cpuc, flags);
}

struct event_constraint *
fake_pmu_get_event_constraints(struct cpu_hw_events *cpuc, int idx,
			       struct perf_event *event)
{
	struct fake_pmu_event *fe = to_fake_pmu_event(event);

	fe->n_get++;
	return &fe->constraint;
}

void fake_pmu_put_event_constraints(struct cpu_hw_events *cpuc,
				    struct perf_event *event)
{
	to_fake_pmu_event(event)->n_put++;
}

void fake_pmu_commit_scheduling(struct cpu_hw_events *cpuc, int idx, int cntr)
{
	struct fake_pmu_event *fe = to_fake_pmu_event(cpuc->event_list[idx]);

	fe->n_commit++;
	fe->commit_cntr = cntr;
}

void fake_pmu_update_static_calls(void)
{
	fake_pmu_update_calls(&x86_pmu);
}
