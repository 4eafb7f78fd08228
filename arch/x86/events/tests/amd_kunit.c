// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the AMD counter pair accounting (PERF_X86_EVENT_PAIR,
 * Large Increment per Cycle events on Zen): cpuc->n_pair, which
 * x86_schedule_events() takes off the generic counters it may use.
 *
 * #included at the end of arch/x86/events/amd/core.c, so that the fake
 * Zen PMU releases events through the driver's own
 * amd_put_event_constraints_f17h().
 */

#include <kunit/test.h>

#include "fake_pmu.h"

/* A Large Increment per Cycle event: a pair window starting at 0, 2 or 4 */
#define AMD_TEST_PAIR	__EVENT_CONSTRAINT(0, 0x15, 0, 3, 0, PERF_X86_EVENT_PAIR)

static const struct fake_pmu_desc amd_test_zen_pmu = {
	.cntr_mask		= 0x3f,
	.flags			= PMU_FL_PAIR,
	.put_event_constraints	= amd_put_event_constraints_f17h,
};

/*
 * A group of one pair event fails next to three running ones (six
 * counters). collect_event() counted it once in cpuc->n_pair and
 * cpuc->n_txn_pair; x86_pmu_cancel_txn() takes the transaction's pairs
 * off again, and amd_put_event_constraints_f17h(), which
 * x86_schedule_events() calls for the new events of a failed pass, must
 * not do it a second time: n_pair stays at the three pairs that run.
 */
static void amd_pair_txn_accounting(struct kunit *test)
{
	struct fake_pmu_event *fe[4];
	struct cpu_hw_events *cpuc;
	int i;

	fake_pmu_install(test, &amd_test_zen_pmu);
	cpuc = fake_pmu_cpuc_alloc(test);
	for (i = 0; i < 4; i++)
		fe[i] = fake_pmu_event_alloc(test, &(struct event_constraint)AMD_TEST_PAIR, -1);

	KUNIT_ASSERT_EQ(test, fake_pmu_add_group(cpuc, fe, 3), 0);
	KUNIT_EXPECT_EQ(test, cpuc->n_pair, 3);
	KUNIT_EXPECT_EQ(test, fake_pmu_add_group(cpuc, &fe[3], 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, cpuc->n_pair, 3);
}

static struct kunit_case amd_test_cases[] = {
	KUNIT_CASE(amd_pair_txn_accounting),
	{}
};

static struct kunit_suite amd_test_suite = {
	.name = "perf_x86_amd_pair",
	.test_cases = amd_test_cases,
};

kunit_test_suite(amd_test_suite);
