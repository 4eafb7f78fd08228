// SPDX-License-Identifier: GPL-2.0
/*
 * Fake x86 PMUs for KUnit tests of the counter scheduler, see fake_pmu.h.
 *
 * #included at the end of arch/x86/events/core.c.
 */

#include <kunit/resource.h>

#include "fake_pmu.h"

/*
 * Who owns x86_pmu. Without a registered PMU driver nothing else writes
 * x86_pmu after init_hw_perf_events() (an early initcall, long done when
 * KUnit runs): the sysfs knobs that change it belong to the unregistered
 * "cpu" PMU, and the NMI handler and hotplug callbacks were never installed.
 * Readers of the fields we set (the scheduler and collect_events()) are only
 * reached through that PMU or through these helpers. Built-in KUnit tests run
 * one at a time, so the owner is just a guard against a second user;
 * static_call_update() does its own locking against other text patching.
 * A mutex could not be used: KUnit runs a test's cleanup actions in another
 * kthread than the test.
 */
static struct kunit *fake_pmu_owner;

/* The state before the owner's first fake_pmu_install(). */
static struct fake_pmu_saved {
	struct x86_pmu		pmu;
	struct event_constraint	unconstrained;
	/* targets of the scheduling static calls, in the x86_pmu fields */
	struct x86_pmu		calls;
	int			pmu_type;
} fake_pmu_saved;

static void fake_pmu_update_calls(const struct x86_pmu *p)
{
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
	/* pairs with the cmpxchg() of the next fake_pmu_install() */
	smp_store_release(&fake_pmu_owner, NULL);
}

void fake_pmu_install(struct kunit *test, const struct fake_pmu_desc *desc)
{
	struct fake_pmu_saved *saved = &fake_pmu_saved;
	struct kunit *owner;
	int ret;

	if (x86_pmu_initialized() || is_hybrid())
		kunit_skip(test, "%s PMU driver registered, not replacing it",
			   x86_pmu.name ?: "a");

	owner = cmpxchg(&fake_pmu_owner, NULL, test);
	KUNIT_ASSERT_TRUE_MSG(test, !owner || owner == test,
			      "fake PMU in use by %s", owner ? owner->name : "");
	if (!owner) {
		memcpy(&saved->pmu, &x86_pmu, sizeof(x86_pmu));
		memcpy(&saved->unconstrained, &unconstrained,
		       sizeof(unconstrained));
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
		ret = kunit_add_action_or_reset(test, fake_pmu_restore, saved);
		KUNIT_ASSERT_EQ(test, ret, 0);
	}

	memcpy(&x86_pmu, &saved->pmu, sizeof(x86_pmu));
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

struct cpu_hw_events *fake_pmu_cpuc_alloc(struct kunit *test, bool validate)
{
	struct cpu_hw_events *cpuc;
	int ret;

	KUNIT_ASSERT_PTR_EQ_MSG(test, READ_ONCE(fake_pmu_owner), test,
				"fake_pmu_install() first");

	cpuc = kunit_kzalloc(test, sizeof(*cpuc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cpuc);
	cpuc->is_fake = validate;
	cpuc->pmu = &pmu;

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

int fake_pmu_add_group(struct cpu_hw_events *cpuc, struct fake_pmu_event **fe,
		       int n)
{
	int assign[X86_PMC_IDX_MAX];
	int i, n0, ret;

	/* x86_pmu_start_txn() */
	cpuc->txn_flags = PERF_PMU_TXN_ADD;
	cpuc->n_txn = 0;
	cpuc->n_txn_pair = 0;
	cpuc->n_txn_metric = 0;

	/* x86_pmu_add() in a transaction: collect, schedule at commit */
	for (i = 0; i < n; i++) {
		n0 = cpuc->n_events;
		ret = collect_events(cpuc, &fe[i]->event, false);
		if (ret < 0)
			goto cancel;

		cpuc->n_events = ret;
		cpuc->n_added += ret - n0;
		cpuc->n_txn += ret - n0;
	}

	/* x86_pmu_commit_txn() */
	ret = x86_schedule_events(cpuc, cpuc->n_events, assign);
	if (ret)
		goto cancel;

	memcpy(cpuc->assign, assign, cpuc->n_events * sizeof(int));
	cpuc->txn_flags = 0;
	return 0;

cancel:
	/* x86_pmu_cancel_txn(), after group_sched_in() undid the adds */
	cpuc->txn_flags = 0;
	cpuc->n_added -= cpuc->n_txn;
	cpuc->n_events -= cpuc->n_txn;
	cpuc->n_pair -= cpuc->n_txn_pair;
	cpuc->n_metric -= cpuc->n_txn_metric;
	return ret;
}

int fake_pmu_validate_group(struct cpu_hw_events *cpuc,
			    struct fake_pmu_event **fe, int n)
{
	int i, ret = 0;

	for (i = 0; i < n; i++) {
		cpuc->n_events = ret;
		ret = collect_events(cpuc, &fe[i]->event, false);
		if (ret < 0)
			return ret;
	}

	cpuc->n_events = 0;
	return x86_schedule_events(cpuc, ret, NULL);
}

void fake_pmu_enable(struct cpu_hw_events *cpuc)
{
	int i;

	for (i = 0; i < cpuc->n_events; i++)
		cpuc->event_list[i]->hw.idx = cpuc->assign[i];
	cpuc->n_added = 0;
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
