// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of how the perf core puts event groups on a PMU: the passes
 * of merge_sched_in() over the pinned and the flexible groups of a CPU
 * context and of the task running on that CPU, and the rotation that
 * multiplexes them.
 *
 * #included at the end of kernel/events/core.c, so that the tests drive the
 * static scheduling code itself (ctx_resched(), visit_groups_merge(),
 * merge_sched_in(), perf_rotate_context()) without widening its interface.
 *
 * The fake PMU "kunit_sched" has nr_counters counters. An event takes
 * attr.config of them and stands for a group of that many events (kernel
 * counters have no group leader to join). Its add() fails with -EAGAIN
 * when fewer counters are free, as a PMU's commit_txn() does when a group
 * does not fit, and counts every call: the groups a pass tried. With
 * ->txn, add() takes every event of a group transaction and commit_txn()
 * checks the counters, as x86 does, and counts its calls.
 */

#include <kunit/test.h>

#define KUNIT_SCHED_MAX_EVENTS	32

struct kunit_sched {
	struct pmu		pmu;
	bool			registered;
	int			cpu;
	/* The fake PMU, changed on ->cpu only */
	int			nr_counters;
	int			used;
	int			nr_add;
	bool			txn;
	bool			in_txn;
	int			nr_commit;
	/* The events, in the order they were created */
	int			nr_events;
	struct perf_event	*events[KUNIT_SCHED_MAX_EVENTS];
	/* Taken on ->cpu after each pass */
	char			states[KUNIT_SCHED_MAX_EVENTS + 1];
	int			head;
	int			rotate_necessary;
};

static struct kunit_sched *to_kunit_sched(struct pmu *pmu)
{
	return container_of(pmu, struct kunit_sched, pmu);
}

static int kunit_sched_event_init(struct perf_event *event)
{
	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	if (!event->attr.config || event->attr.config > KUNIT_SCHED_MAX_EVENTS)
		return -EINVAL;
	return 0;
}

static int kunit_sched_pmu_add(struct perf_event *event, int flags)
{
	struct kunit_sched *ks = to_kunit_sched(event->pmu);
	int need = event->attr.config;

	ks->nr_add++;
	if (!ks->in_txn && ks->used + need > ks->nr_counters)
		return -EAGAIN;
	ks->used += need;
	return 0;
}

static void kunit_sched_pmu_del(struct perf_event *event, int flags)
{
	to_kunit_sched(event->pmu)->used -= event->attr.config;
}

static void kunit_sched_pmu_start(struct perf_event *event, int flags)
{
}

static void kunit_sched_start_txn(struct pmu *pmu, unsigned int txn_flags)
{
	struct kunit_sched *ks = to_kunit_sched(pmu);

	ks->in_txn = ks->txn && (txn_flags & PERF_PMU_TXN_ADD);
}

static int kunit_sched_commit_txn(struct pmu *pmu)
{
	struct kunit_sched *ks = to_kunit_sched(pmu);

	if (!ks->in_txn)
		return 0;
	ks->nr_commit++;
	if (ks->used > ks->nr_counters)
		return -EAGAIN;
	ks->in_txn = false;
	return 0;
}

static void kunit_sched_cancel_txn(struct pmu *pmu)
{
	to_kunit_sched(pmu)->in_txn = false;
}

static void kunit_sched_pmu_stop(struct perf_event *event, int flags)
{
}

static void kunit_sched_pmu_read(struct perf_event *event)
{
}

static int kunit_sched_init(struct kunit *test)
{
	struct kunit_sched *ks;

	ks = kunit_kzalloc(test, sizeof(*ks), GFP_KERNEL);
	if (!ks)
		return -ENOMEM;
	test->priv = ks;

	ks->cpu = cpumask_first(cpu_online_mask);
	ks->nr_counters = 4;
	ks->pmu = (struct pmu) {
		.task_ctx_nr	= perf_hw_context,
		.capabilities	= PERF_PMU_CAP_NO_INTERRUPT,
		.event_init	= kunit_sched_event_init,
		.add		= kunit_sched_pmu_add,
		.del		= kunit_sched_pmu_del,
		.start		= kunit_sched_pmu_start,
		.stop		= kunit_sched_pmu_stop,
		.read		= kunit_sched_pmu_read,
		.start_txn	= kunit_sched_start_txn,
		.commit_txn	= kunit_sched_commit_txn,
		.cancel_txn	= kunit_sched_cancel_txn,
		/*
		 * Rotate only when a test says so: the multiplexing
		 * hrtimer must not rotate the groups behind its back.
		 */
		.hrtimer_interval_ms = 3600 * MSEC_PER_SEC,
	};
	if (perf_pmu_register(&ks->pmu, "kunit_sched", -1))
		return -ENODEV;
	ks->registered = true;
	return 0;
}

static void kunit_sched_exit(struct kunit *test)
{
	struct kunit_sched *ks = test->priv;
	int cpu;

	if (!ks || !ks->registered)
		return;
	while (ks->nr_events)
		perf_event_release_kernel(ks->events[--ks->nr_events]);
	/* perf_pmu_unregister() frees the hrtimers a failing pass armed */
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&(*per_cpu_ptr(ks->pmu.cpu_pmu_context, cpu))->hrtimer);
	perf_pmu_unregister(&ks->pmu);
}

/* A new disabled CPU event that takes @need counters; kunit_sched_pass() enables it */
static void kunit_sched_event(struct kunit *test, int need, bool pinned, bool exclusive)
{
	struct kunit_sched *ks = test->priv;
	struct perf_event_attr attr = {
		.type		= ks->pmu.type,
		.size		= sizeof(attr),
		.config		= need,
		.pinned		= pinned,
		.exclusive	= exclusive,
		.disabled	= 1,
	};
	struct perf_event *event;

	KUNIT_ASSERT_LT(test, ks->nr_events, KUNIT_SCHED_MAX_EVENTS);
	event = perf_event_create_kernel_counter(&attr, ks->cpu, NULL, NULL, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, event);
	ks->events[ks->nr_events++] = event;
}

/*
 * A new disabled flexible event of the test's own thread that takes @need
 * counters, counted on ks->cpu, where the thread stays from now on: its
 * context is the task context of ks->cpu in every pass and rotation.
 */
static void kunit_sched_task_event(struct kunit *test, int need)
{
	struct kunit_sched *ks = test->priv;
	struct perf_event_attr attr = {
		.type		= ks->pmu.type,
		.size		= sizeof(attr),
		.config		= need,
		.disabled	= 1,
	};
	struct perf_event *event;

	KUNIT_ASSERT_LT(test, ks->nr_events, KUNIT_SCHED_MAX_EVENTS);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(ks->cpu)), 0);
	event = perf_event_create_kernel_counter(&attr, ks->cpu, current, NULL, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, event);
	ks->events[ks->nr_events++] = event;
}

static void kunit_sched_flexible(struct kunit *test, const int *need, int n)
{
	while (n--)
		kunit_sched_event(test, *need++, false, false);
}

/*
 * What the pass left: per event, in creation order, A (active), - (inactive),
 * E (error) or O (off); the first active flexible group, which the next
 * rotation moves to the tail; rotate_necessary.
 */
static void kunit_sched_snapshot(struct kunit_sched *ks)
{
	struct perf_cpu_pmu_context *cpc = this_cpc(&ks->pmu);
	struct perf_event *first;
	int i;

	first = list_first_entry_or_null(&cpc->epc.flexible_active,
					 struct perf_event, active_list);
	ks->head = -1;
	for (i = 0; i < ks->nr_events; i++) {
		switch (ks->events[i]->state) {
		case PERF_EVENT_STATE_ACTIVE:
			ks->states[i] = 'A';
			break;
		case PERF_EVENT_STATE_INACTIVE:
			ks->states[i] = '-';
			break;
		case PERF_EVENT_STATE_ERROR:
			ks->states[i] = 'E';
			break;
		default:
			ks->states[i] = 'O';
			break;
		}
		if (ks->events[i] == first)
			ks->head = i;
	}
	ks->states[i] = '\0';
	ks->rotate_necessary = cpc->epc.rotate_necessary;
}

/*
 * On ks->cpu: what perf_event_enable() does, for every disabled event at
 * once, so that one ctx_resched() puts them all on: one pinned pass and
 * one flexible pass, in creation order.
 */
static void __kunit_sched_pass(void *info)
{
	struct kunit_sched *ks = info;
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);
	struct perf_event_context *task_ctx = cpuctx->task_ctx;
	int i;

	perf_ctx_lock(cpuctx, task_ctx);
	ctx_time_freeze(cpuctx, &cpuctx->ctx);
	if (task_ctx)
		ctx_time_freeze(cpuctx, task_ctx);
	for (i = 0; i < ks->nr_events; i++) {
		if (ks->events[i]->state == PERF_EVENT_STATE_OFF)
			perf_event_set_state(ks->events[i], PERF_EVENT_STATE_INACTIVE);
	}
	ks->nr_add = 0;
	ks->nr_commit = 0;
	ctx_resched(cpuctx, task_ctx, &ks->pmu, EVENT_ALL | EVENT_CPU);
	kunit_sched_snapshot(ks);
	perf_ctx_unlock(cpuctx, task_ctx);
}

static void kunit_sched_pass(struct kunit *test)
{
	struct kunit_sched *ks = test->priv;

	KUNIT_ASSERT_EQ(test, smp_call_function_single(ks->cpu, __kunit_sched_pass, ks, 1), 0);
}

/* On ks->cpu, what the multiplexing hrtimer does */
static void __kunit_sched_rotate(void *info)
{
	struct kunit_sched *ks = info;
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);

	ks->nr_add = 0;
	ks->nr_commit = 0;
	perf_rotate_context(this_cpc(&ks->pmu));
	perf_ctx_lock(cpuctx, cpuctx->task_ctx);
	kunit_sched_snapshot(ks);
	perf_ctx_unlock(cpuctx, cpuctx->task_ctx);
}

static void kunit_sched_rotate(struct kunit *test)
{
	struct kunit_sched *ks = test->priv;

	KUNIT_ASSERT_EQ(test, smp_call_function_single(ks->cpu, __kunit_sched_rotate, ks, 1), 0);
}

/* Each case with a PMU that checks add() and one that checks commit_txn() */
static const bool kunit_sched_txn_params[] = { false, true };

static void kunit_sched_txn_desc(const bool *txn, char *desc)
{
	strscpy(desc, *txn ? "commit_txn" : "add", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kunit_sched_txn, kunit_sched_txn_params, kunit_sched_txn_desc);

/*
 * The groups tried: add() calls, and commit_txn() calls when the PMU
 * checks there; the counters taken by the groups that are on.
 */
static void kunit_sched_expect_tried(struct kunit *test, int tried, int used)
{
	struct kunit_sched *ks = test->priv;

	KUNIT_EXPECT_EQ(test, ks->nr_add, tried);
	KUNIT_EXPECT_EQ(test, ks->nr_commit, ks->txn ? tried : 0);
	KUNIT_EXPECT_EQ(test, ks->used, used);
}

/*
 * Groups that all fit go on in one pass, one add() each, and nothing asks
 * for rotation.
 */
static void sched_flexible_all_fit(struct kunit *test)
{
	static const int need[] = { 1, 2, 1 };
	struct kunit_sched *ks = test->priv;

	ks->txn = *(const bool *)test->param_value;

	kunit_sched_flexible(test, need, ARRAY_SIZE(need));
	kunit_sched_pass(test);
	KUNIT_EXPECT_STREQ(test, ks->states, "AAA");
	kunit_sched_expect_tried(test, 3, 4);
	KUNIT_EXPECT_EQ(test, ks->rotate_necessary, 0);
	KUNIT_EXPECT_EQ(test, ks->head, 0);
}

/*
 * Four counters, flexible groups of 3, 2 and 1: the first and the third
 * fit together. A group that does not go on asks for rotation.
 *
 * KNOWN GAP, today's behaviour: the pass stops at the group of 2 and does
 * not try the group of 1; a counter stays unused.
 */
static void sched_flexible_past_failure(struct kunit *test)
{
	static const int need[] = { 3, 2, 1 };
	struct kunit_sched *ks = test->priv;

	ks->txn = *(const bool *)test->param_value;

	kunit_sched_flexible(test, need, ARRAY_SIZE(need));
	kunit_sched_pass(test);
	KUNIT_EXPECT_STREQ(test, ks->states, "A--");
	kunit_sched_expect_tried(test, 2, 3);
	KUNIT_EXPECT_EQ(test, ks->rotate_necessary, 1);
}

/*
 * The cost of a pass over a long list: 24 groups of one counter on four
 * counters, as "perf stat" with 24 events multiplexes them. Four go on;
 * every further group fails.
 *
 * Today's behaviour: the pass tries the fifth group and stops: 5 add()
 * calls, or 5 group transactions.
 */
static void sched_flexible_long_list(struct kunit *test)
{
	struct kunit_sched *ks = test->priv;
	int i;

	ks->txn = *(const bool *)test->param_value;

	for (i = 0; i < 24; i++)
		kunit_sched_event(test, 1, false, false);
	kunit_sched_pass(test);
	KUNIT_EXPECT_STREQ(test, ks->states, "AAAA--------------------");
	kunit_sched_expect_tried(test, 5, 4);
	KUNIT_EXPECT_EQ(test, ks->rotate_necessary, 1);
}

/*
 * Pinned groups of 3, 2 and 1, then a flexible group of 1, on four
 * counters. A pinned group that does not go on goes into error state, and
 * so does every pinned group after it: the pinned pass tries no hardware
 * group past its first failure. The flexible pass that follows starts
 * afresh and puts the flexible group on the counter left.
 */
static void sched_pinned_failure_error(struct kunit *test)
{
	struct kunit_sched *ks = test->priv;

	kunit_sched_event(test, 3, true, false);
	kunit_sched_event(test, 2, true, false);
	kunit_sched_event(test, 1, true, false);
	kunit_sched_event(test, 1, false, false);
	kunit_sched_pass(test);
	KUNIT_EXPECT_STREQ(test, ks->states, "AEEA");
	KUNIT_EXPECT_EQ(test, ks->nr_add, 3);
	KUNIT_EXPECT_EQ(test, ks->rotate_necessary, 0);
}

/*
 * Flexible groups of 3, 2, 1 and 2 on four counters, rotated by
 * perf_rotate_context() as the multiplexing hrtimer does: each rotation
 * moves the first active group to the tail, so every group in turn is
 * the first one the pass tries, and the list is back after four.
 *
 * Today's behaviour: each pass stops at its first failure; over the four
 * passes the groups are on 1, 1, 2 and 2 times, 6 group-passes.
 */
static void sched_flexible_rotation(struct kunit *test)
{
	static const char * const states[] = { "A---", "-AA-", "--AA", "---A" };
	static const int need[] = { 3, 2, 1, 2 };
	struct kunit_sched *ks = test->priv;
	int i;

	kunit_sched_flexible(test, need, ARRAY_SIZE(need));
	kunit_sched_pass(test);
	for (i = 0; i < 2 * ARRAY_SIZE(states); i++) {
		KUNIT_EXPECT_STREQ_MSG(test, ks->states, states[i % 4], "pass %d", i);
		KUNIT_EXPECT_EQ_MSG(test, ks->head, i % 4, "pass %d", i);
		KUNIT_EXPECT_EQ(test, ks->rotate_necessary, 1);
		kunit_sched_rotate(test);
	}
}

/*
 * A pinned group takes two of four counters; the flexible groups of 3, 2
 * and 2 behind it: the group of 3 cannot go on at all, each group of 2 can
 * go on alone.
 *
 * Today's behaviour: the group of 3 fails at the head, nothing goes on,
 * and the rotation moves it to the tail (the first group when none is
 * active); the groups of 2 each go on every third pass.
 */
static void sched_flexible_failing_head(struct kunit *test)
{
	static const char * const states[] = { "A---", "A-A-", "A--A" };
	struct kunit_sched *ks = test->priv;
	int i;

	kunit_sched_event(test, 2, true, false);
	kunit_sched_flexible(test, (const int []){ 3, 2, 2 }, 3);
	kunit_sched_pass(test);
	for (i = 0; i < 2 * ARRAY_SIZE(states); i++) {
		KUNIT_EXPECT_STREQ_MSG(test, ks->states, states[i % 3], "pass %d", i);
		kunit_sched_rotate(test);
	}
}

/*
 * An exclusive flexible group goes on only alone: behind a group that is
 * on it cannot, at the head it does and keeps every other hardware group
 * off until the rotation moves it on.
 *
 * Today's behaviour: the pass also stops at the exclusive group that
 * cannot go on, and the group of 1 behind it stays off.
 */
static void sched_flexible_exclusive(struct kunit *test)
{
	static const char * const states[] = { "A--", "-A-", "A-A" };
	struct kunit_sched *ks = test->priv;
	int i;

	kunit_sched_event(test, 1, false, false);
	kunit_sched_event(test, 1, false, true);
	kunit_sched_event(test, 1, false, false);
	kunit_sched_pass(test);
	for (i = 0; i < ARRAY_SIZE(states); i++) {
		KUNIT_EXPECT_STREQ_MSG(test, ks->states, states[i], "pass %d", i);
		kunit_sched_rotate(test);
	}
}

/*
 * The CPU context's flexible groups go on before the task's: ctx_resched()
 * and perf_rotate_context() put the CPU context's flexible groups on, then
 * the flexible groups of the task running on the CPU. Groups of 3, 2 and 1
 * of the CPU context and a group of 1 of the test's own thread, on four
 * counters. The CPU context's pass stops at its group that does not fit,
 * and the task's group takes the counter left: over every three passes
 * the task's group is on twice, and the CPU context's group of 1 twice.
 * The counters are all taken in every pass.
 */
static void sched_flexible_cpu_then_task(struct kunit *test)
{
	static const char * const states[] = { "A--A", "-AAA", "A-A-" };
	static const int need[] = { 3, 2, 1 };
	struct kunit_sched *ks = test->priv;
	int i, task_on = 0;

	kunit_sched_flexible(test, need, ARRAY_SIZE(need));
	kunit_sched_task_event(test, 1);
	kunit_sched_pass(test);
	for (i = 0; i < 2 * ARRAY_SIZE(states); i++) {
		KUNIT_EXPECT_STREQ_MSG(test, ks->states, states[i % 3], "pass %d", i);
		task_on += ks->states[3] == 'A';
		kunit_sched_rotate(test);
	}
	KUNIT_EXPECT_EQ(test, task_on, 4);
}

static struct kunit_case perf_sched_test_cases[] = {
	KUNIT_CASE_PARAM(sched_flexible_all_fit, kunit_sched_txn_gen_params),
	KUNIT_CASE_PARAM(sched_flexible_past_failure, kunit_sched_txn_gen_params),
	KUNIT_CASE_PARAM(sched_flexible_long_list, kunit_sched_txn_gen_params),
	KUNIT_CASE(sched_pinned_failure_error),
	KUNIT_CASE(sched_flexible_rotation),
	KUNIT_CASE(sched_flexible_failing_head),
	KUNIT_CASE(sched_flexible_exclusive),
	KUNIT_CASE(sched_flexible_cpu_then_task),
	{}
};

static struct kunit_suite perf_sched_test_suite = {
	.name = "perf_core_sched",
	.init = kunit_sched_init,
	.exit = kunit_sched_exit,
	.test_cases = perf_sched_test_cases,
};

kunit_test_suite(perf_sched_test_suite);
