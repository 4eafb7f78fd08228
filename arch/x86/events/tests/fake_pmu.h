/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fake x86 PMUs for KUnit tests of the x86 PMU code: the counter scheduler,
 * the HT erratum's cross-thread exclusion, PEBS.
 *
 * The helpers live in tests/fake_pmu.c, which is compiled as part of
 * arch/x86/events/core.c (it is #included at the end of that file), so they
 * can reach the scheduler's static functions. Test suites elsewhere in
 * arch/x86/events/ include this header after "perf_event.h" and call them.
 *
 * A test describes a PMU with struct fake_pmu_desc and installs it with
 * fake_pmu_install(), allocates fake struct cpu_hw_events and events carrying
 * the constraint the scheduler should see, adds the events the way the perf
 * core and core.c do (fake_pmu_add_group(), fake_pmu_validate_group()) and
 * reads the result from cpuc->assign[] and from the call counts kept in each
 * struct fake_pmu_event.
 *
 * The global PMU state is only replaced while no PMU driver is registered,
 * and everything the helpers change is put back when the test ends, even
 * when it fails.
 */
#ifndef _X86_EVENTS_TESTS_FAKE_PMU_H
#define _X86_EVENTS_TESTS_FAKE_PMU_H

#include <kunit/test.h>

/**
 * struct fake_pmu_desc - description of a fake PMU
 * @cntr_mask: generic counters, bit i is counter i (x86_pmu.cntr_mask64)
 * @fixed_cntr_mask: fixed counters, bit i is fixed counter i, which the
 *	scheduler calls INTEL_PMC_IDX_FIXED + i (x86_pmu.fixed_cntr_mask64)
 * @num_topdown_events: number of TopDown metric pseudo-counters, which the
 *	scheduler calls INTEL_PMC_IDX_METRIC_BASE + i and which are backed by
 *	fixed counter 3 (SLOTS); 0 when the PMU has no PERF_METRICS
 * @flags: PMU_FL_* flags (x86_pmu.flags), e.g. PMU_FL_PAIR or
 *	PMU_FL_EXCL_CNTRS | PMU_FL_EXCL_ENABLED
 * @get_event_constraints: constraint callback, NULL for
 *	fake_pmu_get_event_constraints()
 * @put_event_constraints: release callback, NULL for
 *	fake_pmu_put_event_constraints()
 * @start_scheduling: called before each scheduling round, may be NULL
 * @commit_scheduling: called for each event of a successful round, NULL for
 *	fake_pmu_commit_scheduling()
 * @stop_scheduling: called after each scheduling round, may be NULL
 */
struct fake_pmu_desc {
	u64		cntr_mask;
	u64		fixed_cntr_mask;
	int		num_topdown_events;
	unsigned int	flags;

	struct event_constraint *
			(*get_event_constraints)(struct cpu_hw_events *cpuc,
						 int idx,
						 struct perf_event *event);
	void		(*put_event_constraints)(struct cpu_hw_events *cpuc,
						 struct perf_event *event);
	void		(*start_scheduling)(struct cpu_hw_events *cpuc);
	void		(*commit_scheduling)(struct cpu_hw_events *cpuc, int idx,
					     int cntr);
	void		(*stop_scheduling)(struct cpu_hw_events *cpuc);
};

/**
 * struct fake_pmu_event - a perf event that carries its own constraint
 * @event: the event handed to the scheduler
 * @constraint: what fake_pmu_get_event_constraints() returns for it
 * @n_get: calls of fake_pmu_get_event_constraints() for this event
 * @n_put: calls of fake_pmu_put_event_constraints() for this event
 * @n_commit: calls of fake_pmu_commit_scheduling() for this event
 * @commit_cntr: counter passed to the last of those calls
 */
struct fake_pmu_event {
	struct perf_event	event;
	struct event_constraint	constraint;
	int			n_get;
	int			n_put;
	int			n_commit;
	int			commit_cntr;
};

/**
 * to_fake_pmu_event() - the fake event an event is embedded in
 * @event: an event allocated by fake_pmu_event_alloc()
 *
 * Return: the struct fake_pmu_event that contains @event.
 */
static inline struct fake_pmu_event *to_fake_pmu_event(struct perf_event *event)
{
	return container_of(event, struct fake_pmu_event, event);
}

/**
 * fake_pmu_install() - make x86_pmu describe a fake PMU for this test
 * @test: the test; the previous state is restored when it ends
 * @desc: the PMU to describe
 *
 * Skips @test if a PMU driver is registered: then x86_pmu and the static
 * calls belong to it. Otherwise copies @desc into x86_pmu (counter masks,
 * flags, PERF_METRICS, scheduling callbacks), points the scheduler's static
 * calls at the callbacks and sets the "unconstrained" constraint to all
 * generic counters, as init_hw_perf_events() would. The whole of x86_pmu is
 * saved first, so a test may adjust further x86_pmu fields afterwards. A
 * test may install again to describe another PMU; the state from before its
 * first install is what gets restored.
 */
void fake_pmu_install(struct kunit *test, const struct fake_pmu_desc *desc);

/**
 * fake_pmu_uninstall() - restore the PMU state before the test ends
 * @test: the test that called fake_pmu_install()
 *
 * Puts back x86_pmu, the static calls and "unconstrained" as they were
 * before the first fake_pmu_install() of @test, which would otherwise happen
 * when @test ends.
 */
void fake_pmu_uninstall(struct kunit *test);

/**
 * fake_pmu_cpuc_alloc() - allocate a fake struct cpu_hw_events
 * @test: the test; the cpuc is freed when it ends
 *
 * Call after fake_pmu_install(). Intel per-CPU state is allocated by
 * intel_cpuc_prepare() from the installed flags, like for a real CPU: with
 * PMU_FL_EXCL_CNTRS the cpuc gets its own struct intel_excl_cntrs and a
 * constraint_list.
 *
 * Return: the zeroed, prepared cpuc. Aborts @test when out of memory.
 */
struct cpu_hw_events *fake_pmu_cpuc_alloc(struct kunit *test);

/**
 * fake_pmu_cpuc_make_siblings() - make two fake cpucs hyper-thread siblings
 * @test: the test
 * @cpuc: thread 0, keeps its struct intel_excl_cntrs
 * @sibling: thread 1, shares that of @cpuc from now on
 *
 * Does what intel_pmu_cpu_starting() does for the second thread of a core:
 * both cpucs share one struct intel_excl_cntrs (refcnt 2) and @sibling gets
 * excl_thread_id 1. Both must come from fake_pmu_cpuc_alloc() with
 * PMU_FL_EXCL_CNTRS installed.
 */
void fake_pmu_cpuc_make_siblings(struct kunit *test, struct cpu_hw_events *cpuc,
				 struct cpu_hw_events *sibling);

/**
 * fake_pmu_event_alloc() - allocate a fake event with a given constraint
 * @test: the test; the event is freed when it ends
 * @c: the constraint, see fake_pmu_event_set_constraint()
 * @prev_idx: the counter the event last ran on (hw.idx), -1 for none
 *
 * The event belongs to the core x86 PMU, so collect_events() accepts it.
 *
 * Return: the new event. Aborts @test when out of memory.
 */
struct fake_pmu_event *fake_pmu_event_alloc(struct kunit *test,
					    const struct event_constraint *c,
					    int prev_idx);

/**
 * fake_pmu_event_set_constraint() - change the constraint of a fake event
 * @fe: the event
 * @c: the new constraint: its counter mask, code, flags and overlap are
 *	copied, its weight is computed from the mask
 *
 * The event's config becomes @c->code, so TopDown events are recognised by
 * is_metric_event() and is_slots_event(); PERF_X86_EVENT_PAIR in @c->flags
 * also marks the event as a counter pair (hw.flags).
 */
void fake_pmu_event_set_constraint(struct fake_pmu_event *fe,
				   const struct event_constraint *c);

/**
 * fake_pmu_add_group() - add a group of events to a fake cpuc
 * @cpuc: the cpuc, from fake_pmu_cpuc_alloc()
 * @fe: the events of the group
 * @n: the number of events
 *
 * Calls the core PMU's callbacks as group_sched_in() does, on @cpuc made
 * this CPU's cpu_hw_events for the while: x86_pmu_start_txn(),
 * x86_pmu_add() of each event (collect_events()), x86_pmu_commit_txn()
 * (x86_schedule_events() over all events of @cpuc) and, if an add or the
 * commit fails, x86_pmu_del() of each event added and x86_pmu_cancel_txn().
 * The first call on @cpuc, and the first after fake_pmu_enable(), disables
 * the PMU first, as the perf core's scheduling pass does (perf_pmu_disable(),
 * x86_pmu_disable()); fake_pmu_enable() ends the pass. On success
 * cpuc->assign[] holds the counter of each event of cpuc->event_list[].
 *
 * Return: 0 or the error of collect_events() or x86_schedule_events().
 */
int fake_pmu_add_group(struct cpu_hw_events *cpuc, struct fake_pmu_event **fe,
		       int n);

/**
 * fake_pmu_validate_group() - open the last event of a group: validate_group()
 * @test: the test
 * @fe: the events of the group, the leader first
 * @n: the number of events, at least 2
 *
 * Makes @fe[0] the leader of the others, @fe[1] to @fe[n - 2] its siblings
 * in a context of their own, and calls validate_group() for @fe[n - 1] with
 * the context's mutex held, as perf_event_open() does before it attaches
 * the new event. validate_group() schedules the group on a cpuc of its own
 * (cpuc->is_fake), which it frees.
 *
 * Return: 0 if the group could be scheduled on an otherwise empty PMU, or
 * the error of validate_group().
 */
int fake_pmu_validate_group(struct kunit *test, struct fake_pmu_event **fe,
			    int n);

/**
 * fake_pmu_del() - remove an event from a fake cpuc, as the perf core does
 * @cpuc: the cpuc, from fake_pmu_cpuc_alloc()
 * @fe: an event that a successful fake_pmu_add_group() put on @cpuc, and
 *	fake_pmu_enable() gave a counter
 *
 * Calls x86_pmu_del() outside a transaction, on @cpuc made this CPU's
 * cpu_hw_events for the while: the counter is stopped, the event's
 * constraint released through the put_event_constraints callback and the
 * events behind it moved down in cpuc->event_list[],
 * cpuc->event_constraint[] and cpuc->assign[]. Its hw.idx is kept, so that
 * a later add can take the fast path. The perf
 * core deletes within a scheduling pass: the first call after
 * fake_pmu_enable() starts one, as fake_pmu_add_group() does.
 *
 * Return: 0, -ENOENT if @fe is not on @cpuc, or -EINVAL (and a warning)
 * if it has no counter.
 */
int fake_pmu_del(struct cpu_hw_events *cpuc, struct fake_pmu_event *fe);

/**
 * fake_pmu_enable() - end the scheduling pass: program the last assignment
 * @cpuc: the cpuc
 *
 * Enables the PMU that fake_pmu_add_group() disabled (perf_pmu_enable()),
 * on @cpuc made this CPU's cpu_hw_events for the while: x86_pmu_enable()
 * gives each event of @cpuc its counter from cpuc->assign[] (hw.idx), so the
 * next scheduling round can take the fast path, and starts it. The
 * hardware seam: the x86_pmu callbacks that would write the counters' MSRs
 * (enable_all, disable_all, enable, disable, set_period, update) do nothing.
 */
void fake_pmu_enable(struct cpu_hw_events *cpuc);

/**
 * fake_pmu_cpuc_of() - the fake cpuc a callback of the PMU is called for
 * @cpuc: the cpuc a PMU callback or a static stub got
 *
 * While fake_pmu_add_group(), fake_pmu_enable() (and later helpers) run the
 * core PMU's callbacks on a fake cpuc, this CPU's cpu_hw_events holds it,
 * and the driver passes that on.
 *
 * Return: the fake cpuc that this CPU's cpu_hw_events holds if @cpuc is
 * this CPU's, else @cpuc.
 */
struct cpu_hw_events *fake_pmu_cpuc_of(struct cpu_hw_events *cpuc);

/**
 * fake_pmu_get_event_constraints() - default constraint callback
 * @cpuc: the cpuc being scheduled
 * @idx: index of @event in cpuc->event_list[]
 * @event: an event from fake_pmu_event_alloc()
 *
 * Counts the call in fake_pmu_event.n_get.
 *
 * Return: the event's own constraint.
 */
struct event_constraint *
fake_pmu_get_event_constraints(struct cpu_hw_events *cpuc, int idx,
			       struct perf_event *event);

/**
 * fake_pmu_put_event_constraints() - default release callback
 * @cpuc: the cpuc being scheduled
 * @event: an event from fake_pmu_event_alloc()
 *
 * Counts the call in fake_pmu_event.n_put.
 */
void fake_pmu_put_event_constraints(struct cpu_hw_events *cpuc,
				    struct perf_event *event);

/**
 * fake_pmu_commit_scheduling() - default commit callback
 * @cpuc: the cpuc being scheduled
 * @idx: index of the event in cpuc->event_list[]
 * @cntr: the counter the event was given
 *
 * Counts the call in fake_pmu_event.n_commit and keeps @cntr in
 * fake_pmu_event.commit_cntr.
 */
void fake_pmu_commit_scheduling(struct cpu_hw_events *cpuc, int idx, int cntr);

/**
 * fake_pmu_intel_hw_config() - configure an event as an Intel PMU does
 * @event: an event from fake_pmu_event_alloc(), its attr filled in
 *
 * Calls intel_pmu_hw_config(), the event_init step of Intel PMUs that
 * decides PEBS auto-reload and large PEBS, for suites outside
 * arch/x86/events/intel/core.c (it is defined at the end of that file).
 * x86_pmu must describe a PEBS PMU for precise events.
 *
 * Return: the result of intel_pmu_hw_config().
 */
int fake_pmu_intel_hw_config(struct perf_event *event);

/**
 * fake_pmu_intel_set_period() - start an event's period as an Intel PMU does
 * @event: an event from fake_pmu_event_alloc()
 *
 * Calls intel_pmu_set_period(), x86_pmu.set_period of Intel PMUs, for
 * suites outside arch/x86/events/intel/core.c. Its
 * x86_perf_event_set_period() returns at once for an event of the fake
 * PMU, which has no counter base (hw.event_base 0): no counter is
 * written, and the next period is not computed.
 *
 * Return: the result of intel_pmu_set_period().
 */
int fake_pmu_intel_set_period(struct perf_event *event);

/**
 * fake_pmu_update_static_calls() - make the static calls follow x86_pmu
 *
 * For a suite that changes a callback of the fake PMU it installed (a
 * PEBS suite's set_period and disable, say): the static calls of the
 * callbacks fake_pmu_install() sets take their x86_pmu values. They are
 * put back with the rest when the test ends.
 */
void fake_pmu_update_static_calls(void);

#endif /* _X86_EVENTS_TESTS_FAKE_PMU_H */
