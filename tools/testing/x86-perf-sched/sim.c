// SPDX-License-Identifier: GPL-2.0
/*
 * The model, tick by tick (one tick is one multiplexing interval):
 *
 * Generic layer (ctx_flexible_sched_in(), merge_sched_in()): the events
 * of a thread's list are passed down from its head one more at a time,
 * a growing window; the first window that fails ends the pass and the
 * window before it runs. With a limit (the thesis's proposal, ch. 7.2),
 * an event whose window fails is left out and the pass goes on, up to
 * that many events passed down. A thread where some event did not fit
 * rotates at the next tick (perf_rotate_context()): its events are
 * scheduled out, its first active event (the head, with no active one)
 * moves to the tail, and a new pass runs. A thread where everything fit
 * keeps its counters. One event per group, as in the thesis.
 *
 * Arch layer, each window (x86_schedule_events()), as the series has it:
 * constraints, dynamic under the HT workaround; gpmax as the kernel
 * computes it: the generic counters, halved while an exclusive event is
 * present on either thread (the half rule), less the pair events on
 * PMU_FL_PAIR PMUs; the fast path, every event of the window on the
 * counter it last ran on (hw.idx, which survives scheduling out), left
 * at the first event that would take one generic counter more than gpmax
 * allows (fixed counters and TopDown metrics do not count); else the
 * assigner of s->algo with that gpmax. The greedy is called with the weights of the window,
 * the matcher with hw.idx as its previous counters, as the series calls
 * it.
 *
 * HT workaround (XSU, thesis ch. 5; intel_get_excl_constraints()): a
 * thread's dynamic constraint drops the counters its sibling holds
 * EXCLUSIVE, and for a corrupting event those it holds SHARED. A window
 * that fits commits every event of the window (intel_commit_scheduling()),
 * from all of the thread's counters unused at the first one: a counter
 * that an earlier window of the pass committed and this one no longer
 * uses is released. Scheduling an event out frees its counter
 * (intel_put_excl_constraints() from x86_pmu_del()). An event whose
 * window fails is put too, which leaves the states alone. The two
 * threads run their passes one after the other, thread 0 first, each
 * under the lock as a whole. With s->switch_on, the workaround is off
 * (no dynamic constraints, no half rule, no commits) before that tick
 * and is switched on then, as ht_bug_workaround does: each thread in
 * turn resets its states, schedules its events out and runs a pass, with
 * no rotation. Not modelled there: a sibling's exclusive events that
 * ran while it was off count as present in that tick's pass of thread 0.
 *
 * With s->base, the model is 6.12's (BASE's) as it is, around either
 * assigner: the fast path does not count the generic counters, so events
 * that held more than gpmax of them keep them; a window that fits only
 * sets the states of the counters it uses, so a counter committed by an
 * earlier window of the pass keeps its state until an event scheduled
 * out of it frees it; and a failed event's put also frees the counter in
 * its stale hw.idx, which another event may hold (upstream's put, the
 * bug the series fixes first). The switch is the series'; with s->base
 * it only stands for events that ran before the half rule applied.
 *
 * Counted, in either model: fast-path windows that keep more generic
 * counters than gpmax (fast_over; never in the series' model); the ticks
 * a thread spends on more generic counters than the half rule allows,
 * for that or because the sibling's exclusive event came later
 * (over_half); the states no event holds after each pass (stale; never
 * in the series' model).
 *
 * Every tick, each event on a counter of a thread whose sibling runs a
 * corrupting event on the same generic counter index counts as corrupted:
 * with the workaround on, that must never happen.
 *
 * Counts are synthetic: each tick an event counts its rate (struct
 * sim_rate) while it is on a counter; perf stat's estimate is that count
 * times the ticks enabled over the ticks running. Rate-of-change
 * rotation orders the list by the cost of Lim et al., computed from the
 * event's last three (time running, count) observations.
 *
 * Not modelled: groups, pinned events, PEBS, shared extra registers,
 * TSX force abort, branch counters, hybrid PMUs; time within a tick.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "assign_test.h"

/* what tells two mean scaling factors apart */
#define ROUNDING	(1.0 / (1 << 30))

void sim_event_set(struct sim_event *ev, u64 mask, int flags, bool excl)
{
	ev->ec = (struct event_constraint) {
		.idxmsk64	= mask,
		.weight		= hweight64(mask),
		.flags		= flags,
	};
	ev->excl = excl;
	ev->rate = (struct sim_rate) { .lo = 1000 };
}

/* Back to the start: empty counters, lists in the order given. */
void sim_reset(struct sim *s)
{
	struct sim_thread *t;
	struct sim_event *ev;
	int tid, e;

	s->iter = 0;
	s->corrupted = 0;
	s->over_half = 0;
	s->fast_over = 0;
	s->stale = 0;
	for (tid = 0; tid < 2; tid++) {
		t = &s->t[tid];
		t->rotate = false;
		t->scheduled = 0;
		t->xsu_excl = 0;
		t->xsu_shared = 0;
		for (e = 0; e < t->n; e++) {
			ev = &t->ev[e];
			t->list[e] = e;
			ev->idx = -1;
			ev->active = false;
			ev->runs = 0;
			ev->corrupted = 0;
			ev->count = 0;
			ev->truth = 0;
			ev->last_run = -1;
			ev->nr_obs = 0;
		}
	}
}

/* Is the HT workaround on at this tick? */
static bool xsu_on(const struct sim *s)
{
	return s->xsu && s->iter >= s->switch_on;
}

static bool sibling_exclusive(const struct sim *s, int tid)
{
	const struct sim_thread *sib = &s->t[tid ^ 1];
	int e;

	for (e = 0; e < sib->n; e++) {
		if (sib->ev[e].active && sib->ev[e].excl)
			return true;
	}
	return false;
}

/*
 * x86_schedule_events() for the events @win[0..n-1] of thread @tid, the
 * last one new. On success, their counters into @assign.
 */
static bool schedule(struct sim *s, int tid, const int *win, int n,
		     int *assign)
{
	struct event_constraint dyn[SIM_MAX_EVENTS], *c[SIM_MAX_EVENTS];
	int prev[SIM_MAX_EVENTS], i, ret, gpmax, nr_pair = 0, nr_gp = 0;
	int wmin = X86_PMC_IDX_MAX, wmax = 0;
	struct sim_thread *t = &s->t[tid];
	const struct sim_thread *sib = &s->t[tid ^ 1];
	bool excl = false, xsu = xsu_on(s);
	struct sim_event *ev;
	u64 used = 0, m;

	for (i = 0; i < n; i++) {
		ev = &t->ev[win[i]];
		dyn[i] = ev->ec;
		if (xsu) {
			dyn[i].idxmsk64 &= ~sib->xsu_excl;
			if (ev->excl)
				dyn[i].idxmsk64 &= ~sib->xsu_shared;
			dyn[i].weight = hweight64(dyn[i].idxmsk64);
		}
		c[i] = &dyn[i];
		prev[i] = ev->idx;
		wmin = min(wmin, dyn[i].weight);
		wmax = max(wmax, dyn[i].weight);
		excl |= ev->excl;
		nr_pair += !!(dyn[i].flags & PERF_X86_EVENT_PAIR);
	}

	gpmax = s->pmu->nr_gp;
	if (xsu && s->half && (excl || sibling_exclusive(s, tid)))
		gpmax /= 2;
	if (s->pmu->pair)
		gpmax -= nr_pair;

	/*
	 * fast path: every event on the counter it last ran on; the series
	 * leaves it at the first event that would take one generic counter
	 * more than gpmax allows, BASE does not count them
	 */
	for (i = 0; i < n; i++) {
		if (prev[i] < 0 || !(c[i]->idxmsk64 & BIT_ULL(prev[i])))
			break;
		m = BIT_ULL(prev[i]);
		if (c[i]->flags & PERF_X86_EVENT_PAIR)
			m |= m << 1;
		if (used & m)
			break;
		if (!s->base && prev[i] < INTEL_PMC_IDX_FIXED && ++nr_gp > gpmax)
			break;
		used |= m;
		assign[i] = prev[i];
	}

	if (i == n) {
		for (i = 0, nr_gp = 0; i < n; i++)
			nr_gp += assign[i] < INTEL_PMC_IDX_FIXED;
		s->fast_over += nr_gp > gpmax;
	} else {
		if (s->algo == SIM_GREEDY)
			ret = greedy_assign_events(c, n, wmin, wmax, gpmax, assign);
		else
			ret = x86_assign_counters(c, n, gpmax, prev, assign);
		if (ret) {
			ev = &t->ev[win[n - 1]];
			if (xsu && s->base && ev->idx >= 0) {
				t->xsu_excl &= ~BIT_ULL(ev->idx);
				t->xsu_shared &= ~BIT_ULL(ev->idx);
			}
			return false;
		}
	}

	if (xsu) {
		/* the series: from all counters unused, at the first commit */
		if (!s->base) {
			t->xsu_excl = 0;
			t->xsu_shared = 0;
		}
		for (i = 0; i < n; i++) {
			m = BIT_ULL(assign[i]);
			if (t->ev[win[i]].excl) {
				t->xsu_excl |= m;
				t->xsu_shared &= ~m;
			} else {
				t->xsu_shared |= m;
				t->xsu_excl &= ~m;
			}
		}
	}

	return true;
}

/*
 * One scheduling pass of thread @tid over its list, the events taking
 * their counters as x86_pmu_enable() does. Returns how many run.
 */
int sim_pass(struct sim *s, int tid)
{
	int win[SIM_MAX_EVENTS], assign[SIM_MAX_EVENTS], ok[SIM_MAX_EVENTS];
	struct sim_thread *t = &s->t[tid];
	int j, n = 0, limit = s->limit ? s->limit : t->n;
	u64 held = 0;

	for (j = 0; j < t->n && j < limit; j++) {
		win[n] = t->list[j];
		if (schedule(s, tid, win, n + 1, assign)) {
			n++;
			memcpy(ok, assign, n * sizeof(*ok));
		} else if (!s->limit) {
			break;
		}
	}

	for (j = 0; j < n; j++) {
		t->ev[win[j]].active = true;
		t->ev[win[j]].idx = ok[j];
		held |= BIT_ULL(ok[j]);
	}
	t->scheduled = n;
	t->rotate = n < t->n;
	s->stale += hweight64((t->xsu_excl | t->xsu_shared) & ~held);

	return n;
}

/* Every event out, as x86_pmu_del() does: its counter is unused again. */
static void sched_out(struct sim *s, int tid)
{
	struct sim_thread *t = &s->t[tid];
	struct sim_event *ev;
	int e;

	for (e = 0; e < t->n; e++) {
		ev = &t->ev[e];
		if (!ev->active)
			continue;
		ev->active = false;
		t->xsu_excl &= ~BIT_ULL(ev->idx);
		t->xsu_shared &= ~BIT_ULL(ev->idx);
	}
	t->scheduled = 0;
}

/*
 * The rate-of-change cost of Lim et al. from the last three observations
 * A, B, C of @ev (x: time running, y: count): the deviation of B from
 * the line AC, halved, times the ticks since it last ran. Unknown, so
 * highest, before three observations.
 */
double sim_roc_cost(const struct sim_event *ev, long now)
{
	const double *x = ev->obs_x, *y = ev->obs_y;
	double dy = 0;

	if (ev->nr_obs < 3)
		return HUGE_VAL;
	if (x[2] != x[0])
		dy = (y[2] - y[0]) / (x[2] - x[0]) * (x[1] - x[0]);

	return fabs((y[1] - y[0] - dy) / 2) * (now - ev->last_run);
}

/*
 * rotate_ctx(): the first active event, or the head, to the tail. With
 * rate-of-change, then the costliest events first, ties in that order.
 */
static void rotate(struct sim *s, int tid)
{
	struct sim_thread *t = &s->t[tid];
	double cost[SIM_MAX_EVENTS];
	int j, k, first = 0, e;

	for (j = 0; j < t->n; j++) {
		if (t->ev[t->list[j]].active) {
			first = j;
			break;
		}
	}
	e = t->list[first];
	memmove(&t->list[first], &t->list[first + 1],
		(t->n - first - 1) * sizeof(*t->list));
	t->list[t->n - 1] = e;

	if (s->policy != SIM_ROC)
		return;
	for (e = 0; e < t->n; e++)
		cost[e] = sim_roc_cost(&t->ev[e], s->iter);
	/* insertion sort, stable */
	for (j = 1; j < t->n; j++) {
		e = t->list[j];
		for (k = j; k > 0 && cost[t->list[k - 1]] < cost[e]; k--)
			t->list[k] = t->list[k - 1];
		t->list[k] = e;
	}
}

static long rate_at(const struct sim_rate *r, long tick)
{
	if (r->period && (tick / r->period) & 1)
		return r->hi;
	return r->lo;
}

/*
 * The tick's counts, the corruption the erratum causes, and the threads
 * on more generic counters than the half rule allows.
 */
static void account(struct sim *s)
{
	int owner[2][INTEL_PMC_IDX_FIXED], nr_gp[2] = { 0 }, tid, e, o;
	bool excl = false;
	struct sim_thread *t;
	struct sim_event *ev;
	long rate;

	memset(owner, -1, sizeof(owner));
	for (tid = 0; tid < s->nr_threads; tid++) {
		t = &s->t[tid];
		for (e = 0; e < t->n; e++) {
			ev = &t->ev[e];
			rate = rate_at(&ev->rate, s->iter);
			ev->truth += rate;
			if (!ev->active)
				continue;
			ev->runs++;
			ev->count += rate;
			ev->last_run = s->iter;
			if (ev->nr_obs == 3) {
				memmove(ev->obs_x, ev->obs_x + 1, 2 * sizeof(double));
				memmove(ev->obs_y, ev->obs_y + 1, 2 * sizeof(double));
				ev->nr_obs--;
			}
			ev->obs_x[ev->nr_obs] = ev->runs;
			ev->obs_y[ev->nr_obs++] = ev->count;
			excl |= ev->excl;
			if (ev->idx < INTEL_PMC_IDX_FIXED) {
				owner[tid][ev->idx] = e;
				nr_gp[tid]++;
			}
		}
	}
	for (tid = 0; tid < s->nr_threads; tid++)
		s->over_half += xsu_on(s) && s->half && excl &&
				nr_gp[tid] > s->pmu->nr_gp / 2;

	if (s->nr_threads < 2)
		return;
	for (tid = 0; tid < 2; tid++) {
		t = &s->t[tid];
		for (e = 0; e < t->n; e++) {
			ev = &t->ev[e];
			if (!ev->active || ev->idx >= INTEL_PMC_IDX_FIXED)
				continue;
			o = owner[tid ^ 1][ev->idx];
			if (o >= 0 && s->t[tid ^ 1].ev[o].excl) {
				ev->corrupted++;
				s->corrupted++;
			}
		}
	}
}

void sim_tick(struct sim *s)
{
	struct sim_thread *t;
	int tid;

	for (tid = 0; tid < s->nr_threads; tid++) {
		t = &s->t[tid];
		if (!s->iter) {
			sim_pass(s, tid);
		} else if (s->xsu && s->iter == s->switch_on) {
			/* ht_bug_workaround switched on: reset, reschedule */
			t->xsu_excl = 0;
			t->xsu_shared = 0;
			sched_out(s, tid);
			sim_pass(s, tid);
		} else if (t->rotate) {
			rotate(s, tid);
			sched_out(s, tid);
			sim_pass(s, tid);
		}
	}
	account(s);
	s->iter++;
}

void sim_run(struct sim *s, long iters)
{
	while (iters--)
		sim_tick(s);
}

/* The mean scaling factor of thread @tid's events so far. */
double sim_share(const struct sim *s, int tid)
{
	const struct sim_thread *t = &s->t[tid];
	long runs = 0;
	int e;

	if (!t->n || !s->iter)
		return 0;
	for (e = 0; e < t->n; e++)
		runs += t->ev[e].runs;
	return (double)runs / t->n / s->iter;
}

/*
 * The series' bound with s->versus: at most s->limit events passed down
 * per pass, by default twice the generic counters (-k 0).
 */
int sim_series_limit(const struct sim *s)
{
	return s->limit ? s->limit : 2 * s->pmu->nr_gp;
}

/*
 * Instance @s on both sides, one pass from empty counters, then @iters
 * ticks from the start: the greedy against the matcher, both with the
 * generic layer and XSU protocol of @s; or, with s->versus, 6.12 (the
 * greedy, stopping at the first failing window, 6.12's XSU protocol)
 * against the series (the matcher, going on past failing windows up to
 * sim_series_limit(), the series' protocol).
 */
void sim_eval(struct sim *s, long iters, struct sim_tally *tl)
{
	int placed[SIM_NR_ALGOS], limit = s->limit, a, tid;
	int series = sim_series_limit(s);
	double share[SIM_NR_ALGOS];
	bool base = s->base;

	for (a = 0; a < SIM_NR_ALGOS; a++) {
		s->algo = a;
		if (s->versus) {
			s->limit = a == SIM_SERIES ? series : 0;
			s->base = a == SIM_612;
		}
		sim_reset(s);
		placed[a] = sim_pass(s, 0);
		tl->placed[a] += placed[a];
		tl->full[a] += placed[a] == s->t[0].n;
		share[a] = 0;
		if (!iters)
			continue;
		sim_reset(s);
		sim_run(s, iters);
		for (tid = 0; tid < s->nr_threads; tid++) {
			tl->thread_share[a][tid] += sim_share(s, tid);
			share[a] += sim_share(s, tid) / s->nr_threads;
		}
		tl->share[a] += share[a];
		tl->corrupted[a] += s->corrupted;
		tl->over_half[a] += s->over_half;
		tl->fast_over[a] += s->fast_over;
		tl->stale[a] += s->stale;
	}
	s->limit = limit;
	s->base = base;

	tl->instances++;
	tl->better += placed[SIM_MATCHER] > placed[SIM_GREEDY];
	tl->worse += placed[SIM_MATCHER] < placed[SIM_GREEDY];
	/* by more than rounding */
	tl->share_better += share[SIM_MATCHER] > share[SIM_GREEDY] + ROUNDING;
	tl->share_worse += share[SIM_MATCHER] < share[SIM_GREEDY] - ROUNDING;
}

/*
 * Every tuple of @k non-empty masks over the generic counters of
 * cfg->pmu (events with no other flag), in thread 0.
 */
void sim_eval_exhaustive(const struct sim *cfg, int k, long iters,
			 struct sim_tally *tl)
{
	struct sim *s = malloc(sizeof(*s));
	long code, total = 1;
	int e, nr_masks = (1 << cfg->pmu->nr_gp) - 1;

	*s = *cfg;
	s->nr_threads = 1;
	s->t[0].n = k;
	for (e = 0; e < k; e++) {
		snprintf(s->t[0].ev[e].name, SIM_NAME_LEN, "e%d", e + 1);
		total *= nr_masks;
	}

	memset(tl, 0, sizeof(*tl));
	for (code = 0; code < total; code++) {
		long g = code;

		for (e = 0; e < k; e++, g /= nr_masks)
			sim_event_set(&s->t[0].ev[e], g % nr_masks + 1, 0, false);
		sim_eval(s, iters, tl);
	}
	free(s);
}

/*
 * A random event of cfg->pmu into @ev: with @table, the constraint of a
 * random entry of its table or (half of the time) an unconstrained
 * event, on AMD a pair event a third of the time; else a random
 * non-empty mask of generic counters.
 */
static void random_event(const struct sim_pmu *pmu, bool table, u64 *state,
			 struct sim_event *ev)
{
	const struct event_constraint *c = &pmu->unconstrained;
	u64 gp = GENMASK_ULL(pmu->nr_gp - 1, 0);
	int nr = 0;

	if (!table) {
		sim_event_set(ev, assign_test_subset(state, gp), 0, false);
		return;
	}
	if (pmu->pair) {
		if (!assign_test_below(state, 3))
			c = &pmu->pair_constraint;
	} else if (pmu->table && assign_test_below(state, 2)) {
		while (pmu->table[nr].weight != -1)
			nr++;
		c = &pmu->table[assign_test_below(state, nr)];
	}
	sim_event_set(ev, c->idxmsk64, c->flags,
		      pmu->xsu && (c->flags & PERF_X86_EVENT_EXCL));
}

/* @count random instances of @k events from @seed, in thread 0. */
void sim_eval_random(const struct sim *cfg, int k, bool table, long iters,
		     long count, u64 seed, struct sim_tally *tl)
{
	struct sim *s = malloc(sizeof(*s));
	u64 state = seed;
	long i;
	int e;

	*s = *cfg;
	s->nr_threads = 1;
	s->t[0].n = k;
	memset(tl, 0, sizeof(*tl));
	for (i = 0; i < count; i++) {
		for (e = 0; e < k; e++)
			random_event(s->pmu, table, &state, &s->t[0].ev[e]);
		sim_eval(s, iters, tl);
	}
	free(s);
}

/*
 * Sibling threads, each with 1 to @k random events from the table of
 * cfg->pmu, a third of them corrupting (codes 0xd0-0xd3): the mean
 * scaling factor of each thread over @iters ticks, per algorithm.
 */
void sim_eval_xsu(const struct sim *cfg, int k, long iters, long count,
		  u64 seed, struct sim_tally *tl)
{
	const struct event_constraint *excl = sim_constraint(cfg->pmu, 0xd0);
	struct sim *s = malloc(sizeof(*s));
	struct sim_event *ev;
	u64 state = seed;
	int tid, e;
	long i;

	*s = *cfg;
	s->nr_threads = 2;
	memset(tl, 0, sizeof(*tl));
	for (i = 0; i < count; i++) {
		for (tid = 0; tid < 2; tid++) {
			s->t[tid].n = 1 + assign_test_below(&state, k);
			for (e = 0; e < s->t[tid].n; e++) {
				ev = &s->t[tid].ev[e];
				if (assign_test_below(&state, 3))
					random_event(s->pmu, true, &state, ev);
				else
					sim_event_set(ev, excl->idxmsk64,
						      excl->flags, cfg->pmu->xsu);
			}
		}
		sim_eval(s, iters, tl);
	}
	free(s);
}

/*
 * Multiplexing error with synthetic counts: @k unconstrained events on
 * cfg->pmu, each counting a constant rate or, half of them, a square
 * wave of period 1 to @max_period ticks, rates from 100 to 10099; the
 * squared relative error of perf's scaled count (count * enabled /
 * running) against the true count after @iters ticks, summed over the
 * events, round-robin against rate-of-change rotation.
 */
void sim_eval_rates(const struct sim *cfg, int k, long iters, long count,
		    u64 seed, int max_period, struct sim_tally *tl)
{
	struct sim *s = malloc(sizeof(*s));
	struct sim_rate rate[SIM_MAX_EVENTS];
	struct sim_event *ev;
	double est, err;
	u64 state = seed;
	int e, p;
	long i;

	*s = *cfg;
	s->nr_threads = 1;
	s->t[0].n = k;
	memset(tl, 0, sizeof(*tl));
	for (i = 0; i < count; i++) {
		for (e = 0; e < k; e++) {
			rate[e].lo = 100 + assign_test_below(&state, 10000);
			rate[e].hi = 100 + assign_test_below(&state, 10000);
			rate[e].period = assign_test_below(&state, 2) ?
					 1 + assign_test_below(&state, max_period) : 0;
		}
		for (p = SIM_RR; p <= SIM_ROC; p++) {
			s->policy = p;
			for (e = 0; e < k; e++) {
				ev = &s->t[0].ev[e];
				sim_event_set(ev, s->pmu->unconstrained.idxmsk64,
					      0, false);
				ev->rate = rate[e];
			}
			sim_reset(s);
			sim_run(s, iters);
			for (e = 0; e < k; e++) {
				ev = &s->t[0].ev[e];
				est = ev->runs ? ev->count * iters / ev->runs : 0;
				err = est / ev->truth - 1;
				tl->sq_error[p] += err * err;
			}
		}
		tl->instances++;
		tl->events += k;
	}
	free(s);
}
