// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the fake-PMU helpers themselves (fake_pmu.h): installing
 * describes the PMU, what they replace is put back, and the core PMU's
 * callbacks they run schedule a group on a fake cpuc as on a CPU.
 *
 * #included at the end of arch/x86/events/core.c, after tests/fake_pmu.c.
 */

/* A PMU with counter pairs (AMD Zen), one with TopDown metrics (SPR) */
static const struct fake_pmu_desc fake_pmu_test_pair_pmu = {
	.cntr_mask		= 0x3f,
	.flags			= PMU_FL_PAIR,
};

static const struct fake_pmu_desc fake_pmu_test_metrics_pmu = {
	.cntr_mask		= 0xff,
	.fixed_cntr_mask	= 0xf,
	.num_topdown_events	= 8,
};

/* 4 generic and 3 fixed counters (SNB), constrained by the mask only */
static const struct fake_pmu_desc fake_pmu_test_snb_pmu = {
	.cntr_mask		= 0xf,
	.fixed_cntr_mask	= 0x7,
};

/* A put callback of its own */
static void fake_pmu_test_put_event_constraints(struct cpu_hw_events *cpuc,
						struct perf_event *event)
{
	fake_pmu_put_event_constraints(cpuc, event);
}

static const struct fake_pmu_desc fake_pmu_test_own_put_pmu = {
	.cntr_mask		= 0x3f,
	.flags			= PMU_FL_PAIR,
	.put_event_constraints	= fake_pmu_test_put_event_constraints,
};

/* The targets of the scheduling static calls */
struct fake_pmu_test_calls {
	void *get, *put, *start, *commit, *stop;
};

static void fake_pmu_test_query_calls(struct fake_pmu_test_calls *calls)
{
	calls->get = static_call_query(x86_pmu_get_event_constraints);
	calls->put = static_call_query(x86_pmu_put_event_constraints);
	calls->start = static_call_query(x86_pmu_start_scheduling);
	calls->commit = static_call_query(x86_pmu_commit_scheduling);
	calls->stop = static_call_query(x86_pmu_stop_scheduling);
}

/*
 * Installing describes the PMU, uninstalling (or the end of the test)
 * restores x86_pmu, the static calls and "unconstrained" byte for byte.
 */
static void fake_pmu_test_restore(struct kunit *test)
{
	struct fake_pmu_test_calls before_calls, calls;
	struct event_constraint before_unconstrained;
	struct x86_pmu *before;

	before = kunit_kmalloc(test, sizeof(*before), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	memcpy(before, &x86_pmu, sizeof(*before));
	memcpy(&before_unconstrained, &unconstrained, sizeof(unconstrained));
	fake_pmu_test_query_calls(&before_calls);

	fake_pmu_install(test, &fake_pmu_test_pair_pmu);
	KUNIT_EXPECT_EQ(test, x86_pmu.cntr_mask64, 0x3f);
	KUNIT_EXPECT_EQ(test, x86_pmu.flags, PMU_FL_PAIR);
	KUNIT_EXPECT_EQ(test, unconstrained.idxmsk64, 0x3f);
	KUNIT_EXPECT_EQ(test, unconstrained.weight, 6);
	fake_pmu_test_query_calls(&calls);
	KUNIT_EXPECT_PTR_EQ(test, calls.get, (void *)fake_pmu_get_event_constraints);
	KUNIT_EXPECT_PTR_EQ(test, calls.put, (void *)fake_pmu_put_event_constraints);
	KUNIT_EXPECT_PTR_EQ(test, calls.commit, (void *)fake_pmu_commit_scheduling);
	KUNIT_EXPECT_NULL(test, calls.start);
	KUNIT_EXPECT_NULL(test, calls.stop);

	/* installing again describes the new PMU */
	fake_pmu_install(test, &fake_pmu_test_own_put_pmu);
	fake_pmu_test_query_calls(&calls);
	KUNIT_EXPECT_PTR_EQ(test, calls.put,
			    (void *)fake_pmu_test_put_event_constraints);
	fake_pmu_install(test, &fake_pmu_test_metrics_pmu);
	KUNIT_EXPECT_EQ(test, x86_pmu.flags, 0);
	KUNIT_EXPECT_EQ(test, x86_pmu.fixed_cntr_mask64, 0xf);
	KUNIT_EXPECT_TRUE(test, x86_pmu.intel_cap.perf_metrics);
	KUNIT_EXPECT_EQ(test, x86_pmu.num_topdown_events, 8);

	fake_pmu_uninstall(test);
	KUNIT_EXPECT_MEMEQ(test, &x86_pmu, before, sizeof(*before));
	KUNIT_EXPECT_MEMEQ(test, &unconstrained, &before_unconstrained,
			   sizeof(unconstrained));
	fake_pmu_test_query_calls(&calls);
	KUNIT_EXPECT_MEMEQ(test, &calls, &before_calls, sizeof(calls));

	/* the PMU is free again; the end of the test restores it */
	fake_pmu_install(test, &fake_pmu_test_snb_pmu);
	KUNIT_EXPECT_EQ(test, x86_pmu.cntr_mask64, 0xf);
}

/*
 * A group of four takes the four counters and keeps them once enabled; a
 * fifth event does not fit, is refused, and only its constraint is
 * released; a delete releases the deleted event's. Every CPU's
 * cpu_hw_events is as before: the helpers lent this CPU's to the fake
 * cpuc only for each call.
 */
static void fake_pmu_test_schedule_group(struct kunit *test)
{
	struct event_constraint any = EVENT_CONSTRAINT(0, 0xf, 0);
	struct cpu_hw_events *saved, *cpuc;
	struct fake_pmu_event *fe[5];
	unsigned long used = 0;
	int cpu, i;

	saved = kunit_kcalloc(test, nr_cpu_ids, sizeof(*saved), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, saved);
	for_each_possible_cpu(cpu)
		saved[cpu] = per_cpu(cpu_hw_events, cpu);

	fake_pmu_install(test, &fake_pmu_test_snb_pmu);
	cpuc = fake_pmu_cpuc_alloc(test);
	for (i = 0; i < ARRAY_SIZE(fe); i++)
		fe[i] = fake_pmu_event_alloc(test, &any, -1);

	KUNIT_ASSERT_EQ(test, fake_pmu_add_group(cpuc, fe, 4), 0);
	KUNIT_EXPECT_EQ(test, cpuc->n_events, 4);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_LT(test, cpuc->assign[i], 4);
		used |= BIT(cpuc->assign[i]);
		KUNIT_EXPECT_EQ(test, fe[i]->n_commit, 1);
		KUNIT_EXPECT_EQ(test, fe[i]->commit_cntr, cpuc->assign[i]);
	}
	KUNIT_EXPECT_EQ(test, used, 0xf);
	fake_pmu_enable(cpuc);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, fe[i]->event.hw.idx, cpuc->assign[i]);

	KUNIT_EXPECT_EQ(test, fake_pmu_add_group(cpuc, &fe[4], 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, cpuc->n_events, 4);
	KUNIT_EXPECT_GE(test, fe[4]->n_get, 1);
	KUNIT_EXPECT_EQ(test, fe[4]->n_put, 1);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, fe[i]->n_put, 0);

	KUNIT_EXPECT_EQ(test, fake_pmu_del(cpuc, fe[0]), 0);
	KUNIT_EXPECT_EQ(test, cpuc->n_events, 3);
	KUNIT_EXPECT_EQ(test, fe[0]->n_put, 1);
	KUNIT_EXPECT_EQ(test, fake_pmu_del(cpuc, fe[0]), -ENOENT);
	fake_pmu_enable(cpuc);

	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_MEMEQ_MSG(test, &saved[cpu],
				       per_cpu_ptr(&cpu_hw_events, cpu),
				       sizeof(*saved), "cpu %d", cpu);
}

static struct kunit_case fake_pmu_test_cases_list[] = {
	KUNIT_CASE(fake_pmu_test_restore),
	KUNIT_CASE(fake_pmu_test_schedule_group),
	{}
};

static struct kunit_suite fake_pmu_test_suite = {
	.name = "perf_x86_fake_pmu",
	.test_cases = fake_pmu_test_cases_list,
};

kunit_test_suites(&fake_pmu_test_suite);
