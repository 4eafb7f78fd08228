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
 * A window with a corrupting event that fails while the sibling holds
 * more than half of the generic counters marks its thread starving for
 * two ticks (intel_excl_starve()); the sibling keeps to half while it
 * lasts, and when it begins the sibling runs a pass (without rotating) at
 * the start of the next tick, before the rotations: the IPI.
 *
 * With s->base, the model is 7.3's (BASE's) as it is, around either
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
 * times the ticks enabled over the ticks running, Lim et al.'s the
 * count with the ticks it did not run interpolated. Rate-of-change
 * rotation orders the list by the cost of Lim et al., computed from the
 * event's last three observations, exactly (roc) or as the paper's code
 * does (roc-paper).
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
		t->starve_until = 0;
		t->resched = false;
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
			ev->interp = 0;
			ev->last_rate = 0;
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
 * The series' intel_excl_starve(): a failed window of thread @tid with a
 * corrupting event, while the sibling holds more than half of the generic
 * counters, marks @tid starving for two ticks (the lease, renewed by each
 * such failure) and, when the starving begins, asks the sibling for a
 * pass, which it runs at the start of the next tick, before rotating
 * (sim_tick()): the IPI.
 */
static void starve(struct sim *s, int tid)
{
	struct sim_thread *t = &s->t[tid], *sib = &s->t[tid ^ 1];
	u64 gp = (1ULL << s->pmu->nr_gp) - 1;

	if (2 * hweight64((sib->xsu_excl | sib->xsu_shared) & gp) <=
	    s->pmu->nr_gp)
		return;
	if (t->starve_until <= s->iter)
		sib->resched = true;
	t->starve_until = s->iter + 2;
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
	if (xsu && s->half && (excl || sibling_exclusive(s, tid) ||
			       (!s->base && sib->starve_until > s->iter)))
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
			if (xsu && !s->base && s->half && excl)
				starve(s, tid);
			return false;
		}
	}

	if (xsu && !s->base && excl)
		t->starve_until = 0;

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
	int j, n = 0, limit = s->limit ? s->limit : t->n, retry = -1;
	u64 held = 0;

	for (j = 0; j < t->n && j < limit; j++) {
		/* s->retry: at most that many events past the first failure */
		if (retry >= 0 && retry-- == 0)
			break;
		win[n] = t->list[j];
		if (schedule(s, tid, win, n + 1, assign)) {
			n++;
			memcpy(ok, assign, n * sizeof(*ok));
		} else if (s->retry) {
			if (retry < 0)
				retry = s->retry;
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
 * The cost as the paper computes it (sec. 3.2 and its C snippet): the
 * samples of sec. 2.3, x the time read in ns (the end of the tick), y the
 * count; integer arithmetic, delta_y 0 where C_x = A_x; the rate-of-change
 * is C_ABD + C_BCD (definition 1, eqs. 5 and 7), delta_t the ns since the
 * event last ran. The slope (C_y - A_y) / (C_x - A_x) truncates to 0 for
 * an event counting less than once per ns, and the cost is then what it
 * counted from A to B, times delta_t: it grows while the event waits,
 * the paper's starvation prevention. Highest before three observations.
 */
double sim_roc_paper_cost(const struct sim_event *ev, long now)
{
	long long ax, bx, cx, ay, by, cy, dy = 0, cost;

	if (ev->nr_obs < 3)
		return HUGE_VAL;
	ax = (ev->obs_t[0] + 1) * SIM_TICK_NS;
	bx = (ev->obs_t[1] + 1) * SIM_TICK_NS;
	cx = (ev->obs_t[2] + 1) * SIM_TICK_NS;
	ay = ev->obs_y[0];
	by = ev->obs_y[1];
	cy = ev->obs_y[2];
	if (cx != ax)
		dy = (cy - ay) / (cx - ax) * (bx - ax);
	cost = llabs((by - ay - dy) / 2) * (now - ev->last_run) * SIM_TICK_NS;

	return 2.0 * cost;
}

/*
 * @ev's count over @iters ticks: perf's, scaled by the ticks enabled over
 * those running; or Lim et al.'s (sec. 2.2.3, 2.3): ticks it did not run
 * counted at the rate interpolated linearly between the ticks it ran
 * either side, before its first and after its last at the nearest one.
 */
double sim_estimate(const struct sim_event *ev, long iters,
		    enum sim_estimator how)
{
	if (!ev->runs)
		return 0;
	if (how == SIM_SCALED)
		return ev->count * iters / ev->runs;
	return ev->interp + (iters - 1 - ev->last_run) * ev->last_rate;
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

	if (s->policy == SIM_RR)
		return;
	for (e = 0; e < t->n; e++)
		cost[e] = s->policy == SIM_ROC ?
			  sim_roc_cost(&t->ev[e], s->iter) :
			  sim_roc_paper_cost(&t->ev[e], s->iter);
	/* insertion sort, stable */
	for (j = 1; j < t->n; j++) {
		e = t->list[j];
		for (k = j; k > 0 && cost[t->list[k - 1]] < cost[e]; k--)
			t->list[k] = t->list[k - 1];
		t->list[k] = e;
	}
}

/*
 * A phase workload from @seed: SIM_PHASES segments of 1 to @max_len ticks,
 * each at random a phase at a new level or a linear ramp from the level
 * before to a new one, levels 100 to 10099 per tick, repeated; @noise
 * percent of noise on top (rate_at()).
 */
void sim_rate_phases(struct sim_rate *r, u64 seed, long max_len, int noise)
{
	u64 state = seed;
	long level = 100 + assign_test_below(&state, 10000), next;
	struct sim_phase *p;

	memset(r, 0, sizeof(*r));
	r->nr_phases = SIM_PHASES;
	r->noise = noise;
	r->seed = seed;
	for (p = r->phase; p < r->phase + SIM_PHASES; p++) {
		p->len = 1 + assign_test_below(&state, max_len);
		next = 100 + assign_test_below(&state, 10000);
		p->from = assign_test_below(&state, 2) ? level : next;
		p->to = next;
		level = next;
	}
}

/*
 * @r at @tick of run s->run; the noise is drawn from the rate's seed, the
 * run and the tick alone, so that every policy sees the same counts.
 */
static long rate_at(const struct sim *s, const struct sim_rate *r, long tick)
{
	const struct sim_phase *p;
	long v = r->lo, t = 0;
	u64 state;

	if (r->nr_phases) {
		for (p = r->phase; p < r->phase + r->nr_phases; p++)
			t += p->len;
		t = tick % t;
		for (p = r->phase; t >= p->len; p++)
			t -= p->len;
		v = p->from + (p->to - p->from) * t / p->len;
	} else if (r->period && (tick / r->period) & 1) {
		v = r->hi;
	}
	if (!r->noise)
		return v;
	state = r->seed ^ s->run << 32;
	state = assign_test_rand(&state) + tick * 0x9e3779b97f4a7c15ULL;
	return v + v * ((long)assign_test_below(&state, 2 * r->noise + 1) -
			r->noise) / 100;
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
			rate = rate_at(s, &ev->rate, s->iter);
			ev->truth += rate;
			if (!ev->active)
				continue;
			ev->runs++;
			ev->count += rate;
			/* the ticks since it last ran, at the interpolated rate */
			ev->interp += (s->iter - ev->last_run - 1) *
				      (ev->last_run < 0 ? rate :
				       (ev->last_rate + rate) / 2) + rate;
			ev->last_rate = rate;
			ev->last_run = s->iter;
			if (ev->nr_obs == 3) {
				memmove(ev->obs_x, ev->obs_x + 1, 2 * sizeof(double));
				memmove(ev->obs_y, ev->obs_y + 1, 2 * sizeof(double));
				memmove(ev->obs_t, ev->obs_t + 1, 2 * sizeof(long));
				ev->nr_obs--;
			}
			ev->obs_x[ev->nr_obs] = ev->runs;
			ev->obs_t[ev->nr_obs] = s->iter;
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

	/* the sibling's requests of the last tick have arrived */
	for (tid = 0; tid < s->nr_threads; tid++) {
		t = &s->t[tid];
		if (!t->resched || !xsu_on(s))
			continue;
		t->resched = false;
		sched_out(s, tid);
		sim_pass(s, tid);
	}
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
 * per pass, by default twice the generic counters (-k 0); with s->retry
 * (the kernel's bound) only s->limit, if any.
 */
int sim_series_limit(const struct sim *s)
{
	if (s->retry)
		return s->limit;
	return s->limit ? s->limit : 2 * s->pmu->nr_gp;
}

/*
 * Instance @s on both sides, one pass from empty counters, then @iters
 * ticks from the start: the greedy against the matcher, both with the
 * generic layer and XSU protocol of @s; or, with s->versus, 7.3 (the
 * greedy, stopping at the first failing window, 7.3's XSU protocol)
 * against the series (the matcher, going on past failing windows up to
 * sim_series_limit(), the series' protocol).
 */
void sim_eval(struct sim *s, long iters, struct sim_tally *tl)
{
	int placed[SIM_NR_ALGOS], limit = s->limit, retry = s->retry, a, tid;
	int series = sim_series_limit(s);
	double share[SIM_NR_ALGOS];
	bool base = s->base;

	for (a = 0; a < SIM_NR_ALGOS; a++) {
		s->algo = a;
		if (s->versus) {
			s->limit = a == SIM_SERIES ? series : 0;
			s->retry = a == SIM_SERIES ? retry : 0;
			s->base = a == SIM_73;
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
	s->retry = retry;
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

/* A random rate of workload @load into @r. */
static void random_rate(u64 *state, enum sim_workload load, int max_period,
			int noise, struct sim_rate *r)
{
	bool square;

	if (load == SIM_PHASE) {
		sim_rate_phases(r, assign_test_rand(state), max_period, noise);
		return;
	}
	memset(r, 0, sizeof(*r));
	r->lo = 100 + assign_test_below(state, 10000);
	r->hi = 100 + assign_test_below(state, 10000);
	square = load == SIM_SQUARE ||
		 (load == SIM_MIXED && assign_test_below(state, 2));
	if (square)
		r->period = 1 + assign_test_below(state, max_period);
}

/*
 * Multiplexing error with synthetic counts: @k unconstrained events on
 * cfg->pmu, each with a random rate of @load (levels 100 to 10099 per
 * tick; square waves and phase segments of 1 to @max_period ticks;
 * mixed: half of them square waves), run for @iters ticks under each
 * policy. Summed over the events, per policy and estimator: the squared
 * relative error of the estimated count against the true count of the
 * same run or, with @single, as Lim et al. measure it (sec. 4.1), against
 * a separate run of the same workload with the event alone on a counter,
 * where the noise is drawn anew.
 */
void sim_eval_rates(const struct sim *cfg, int k, long iters, long count,
		    u64 seed, enum sim_workload load, int max_period, int noise,
		    bool single, struct sim_tally *tl)
{
	struct sim *s = malloc(sizeof(*s));
	struct sim_rate rate[SIM_MAX_EVENTS];
	double ref[SIM_MAX_EVENTS], err;
	struct sim_event *ev;
	u64 state = seed;
	int e, p, m;
	long i;

	*s = *cfg;
	s->nr_threads = 1;
	memset(tl, 0, sizeof(*tl));
	tl->single = single;
	for (i = 0; i < count; i++) {
		for (e = 0; e < k; e++)
			random_rate(&state, load, max_period, noise, &rate[e]);
		/* the single-event runs: run 1, alone on a counter */
		ev = &s->t[0].ev[0];
		s->t[0].n = 1;
		s->run = 1;
		s->policy = SIM_RR;
		for (e = 0; single && e < k; e++) {
			sim_event_set(ev, s->pmu->unconstrained.idxmsk64, 0, false);
			ev->rate = rate[e];
			sim_reset(s);
			sim_run(s, iters);
			ref[e] = ev->count;
		}
		s->t[0].n = k;
		s->run = 0;
		for (p = SIM_RR; p < SIM_NR_POLICIES; p++) {
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
				for (m = 0; m < SIM_NR_ESTIMATORS; m++) {
					err = sim_estimate(ev, iters, m) /
					      (single ? ref[e] : ev->truth) - 1;
					tl->sq_error[p][m] += err * err;
				}
			}
		}
		tl->instances++;
		tl->events += k;
	}
	free(s);
}
