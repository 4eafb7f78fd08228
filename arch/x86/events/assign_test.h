/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test instances and brute-force oracles for x86_assign_counters(),
 * shared by the user-space harness (tools/testing/x86-perf-sched) and
 * KUnit: plain C over struct event_constraint, no allocation, no
 * recursion, a seeded PRNG so a failing instance can be replayed.
 * Include it after perf_event.h.
 *
 * The oracles know nothing of matchings:
 *  - assign_test_search() tries every counter (or none) for every event;
 *  - assign_test_max() tries every window (or none) for every pair event
 *    and bounds the other events by a minimum cut (Hall/Koenig): with
 *    gpmax, the most events placed is the minimum over subsets X of
 *    them of |others| + |fixed counters X allows| +
 *    min(|generic counters X allows|, gpmax).
 */
#ifndef _X86_EVENTS_ASSIGN_TEST_H
#define _X86_EVENTS_ASSIGN_TEST_H

#define ASSIGN_TEST_MAX		14	/* events in an instance */
#define ASSIGN_TEST_FIXED	(~0ULL << INTEL_PMC_IDX_FIXED)
#define ASSIGN_TEST_GP		(BIT_ULL(INTEL_PMC_IDX_FIXED) - 1)

struct assign_test {
	int			n;
	int			gpmax;
	u64			counters;	/* of the PMU */
	int			prev[ASSIGN_TEST_MAX];
	struct event_constraint	ec[ASSIGN_TEST_MAX];
	struct event_constraint	*c[ASSIGN_TEST_MAX];
};

/* splitmix64 */
static inline u64 assign_test_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number below @bound. */
static inline u32 assign_test_below(u64 *state, u32 bound)
{
	return ((assign_test_rand(state) >> 32) * bound) >> 32;
}

/* A random bit of @mask, which is not 0. */
static inline int assign_test_pick(u64 *state, u64 mask)
{
	int k = assign_test_below(state, hweight64(mask));

	while (k--)
		mask &= mask - 1;
	return __ffs64(mask);
}

/* A random non-empty subset of @mask, which is not 0. */
static inline u64 assign_test_subset(u64 *state, u64 mask)
{
	u64 sub = assign_test_rand(state) & mask;

	return sub ? sub : BIT_ULL(assign_test_pick(state, mask));
}

static inline void assign_test_event(struct assign_test *t, int e, u64 mask,
				     int flags)
{
	t->ec[e] = (struct event_constraint) {
		.idxmsk64	= mask,
		.weight		= hweight64(mask),
		.flags		= flags,
	};
	t->c[e] = &t->ec[e];
	t->prev[e] = -1;
}

static inline bool assign_test_is_pair(const struct assign_test *t, int e)
{
	return t->ec[e].flags & PERF_X86_EVENT_PAIR;
}

/*
 * A random instance: a PMU of 1-8 generic, 0-4 fixed and 0-4 metric
 * counters; up to two more events than counters (at most @nmax), each
 * of a kind real PMUs have; in a quarter of the instances up to three
 * pair events, half of them on even starts only as on AMD; gpmax the
 * generic count, half of it (HT workaround), less the pairs (AMD), any
 * smaller value, or the event count (uncore); random previous counters,
 * valid or not.
 */
static inline void assign_test_random(struct assign_test *t, u64 *state,
				      int nmax)
{
	int nr_gp = 1 + assign_test_below(state, 8);
	int nr_fixed = assign_test_below(state, 5);
	int nr_metric = assign_test_below(state, 5);
	u64 gp = GENMASK_ULL(nr_gp - 1, 0);
	u64 fixed = (BIT_ULL(nr_fixed) - 1) << INTEL_PMC_IDX_FIXED;
	u64 metric = (BIT_ULL(nr_metric) - 1) << INTEL_PMC_IDX_METRIC_BASE;
	u64 starts = GENMASK_ULL(nr_gp - 1, 0) >> 1;
	bool pairs = starts && !assign_test_below(state, 4);
	int e, nr_pairs = 0;
	u64 mask;

	if (pairs && assign_test_below(state, 2))
		starts &= 0x5555555555555555ULL;

	t->counters = gp | fixed | metric;
	t->n = 1 + assign_test_below(state, min(nmax, nr_gp + nr_fixed +
						nr_metric + 2));

	for (e = 0; e < t->n; e++) {
		switch (assign_test_below(state, 8)) {
		case 0:		/* unconstrained */
			mask = gp;
			break;
		case 1:		/* fixed or generic: cycles, instructions */
			mask = fixed ? gp | BIT_ULL(assign_test_pick(state, fixed)) : gp;
			break;
		case 2:		/* fixed only: ref-cycles, slots */
			mask = fixed ? BIT_ULL(assign_test_pick(state, fixed)) : gp;
			break;
		case 3:		/* a TopDown metric */
			mask = metric ? BIT_ULL(assign_test_pick(state, metric)) : gp;
			break;
		case 4:		/* the low counters: PEBS, branch counters */
			mask = GENMASK_ULL(assign_test_below(state, nr_gp), 0);
			break;
		case 5:
			mask = assign_test_subset(state, gp);
			break;
		default:
			mask = assign_test_subset(state, t->counters);
			break;
		}

		if (pairs && nr_pairs < 3 && !assign_test_below(state, 3)) {
			assign_test_event(t, e, assign_test_subset(state, starts),
					  PERF_X86_EVENT_PAIR);
			nr_pairs++;
		} else {
			assign_test_event(t, e, mask, 0);
		}

		switch (assign_test_below(state, 3)) {
		case 1:
			t->prev[e] = assign_test_pick(state, t->c[e]->idxmsk64);
			break;
		case 2:
			t->prev[e] = assign_test_pick(state, t->counters);
			break;
		}
	}

	switch (assign_test_below(state, 6)) {
	case 0:
		t->gpmax = nr_gp / 2;
		break;
	case 1:
		t->gpmax = nr_gp - nr_pairs;
		break;
	case 2:
		t->gpmax = assign_test_below(state, nr_gp + 1);
		break;
	case 3:
		t->gpmax = t->n;
		break;
	default:
		t->gpmax = nr_gp;
		break;
	}
}

/* Is @assign a valid assignment of all events of @t? */
static inline bool assign_test_valid(const struct assign_test *t,
				     const int *assign)
{
	u64 used = 0, bits;
	int e, idx, nr_gp = 0;

	for (e = 0; e < t->n; e++) {
		idx = assign[e];
		if (idx < 0 || idx >= X86_PMC_IDX_MAX ||
		    !(t->ec[e].idxmsk64 & BIT_ULL(idx)))
			return false;

		bits = BIT_ULL(idx);
		if (assign_test_is_pair(t, e)) {
			if (idx >= INTEL_PMC_IDX_FIXED)
				return false;
			bits |= BIT_ULL(idx + 1);
		}
		if (used & bits)
			return false;
		used |= bits;
		nr_gp += idx < INTEL_PMC_IDX_FIXED;
	}

	return nr_gp <= max(t->gpmax, 0);
}

/*
 * The most events of @t any valid assignment places, by trying every
 * counter and none for each event in turn, skipping only branches that
 * cannot beat the best found.
 */
static inline int assign_test_search(const struct assign_test *t)
{
	u64 cand[ASSIGN_TEST_MAX + 1], used[ASSIGN_TEST_MAX + 1], bits;
	int nr_gp[ASSIGN_TEST_MAX + 1], placed[ASSIGN_TEST_MAX + 1];
	bool skip[ASSIGN_TEST_MAX + 1];
	int d = 0, best = 0, idx;

	used[0] = 0;
	nr_gp[0] = 0;
	placed[0] = 0;
	cand[0] = t->ec[0].idxmsk64;
	skip[0] = true;

	while (d >= 0) {
		if (d == t->n || placed[d] + t->n - d <= best) {
			best = max(best, placed[d]);
			d--;
			continue;
		}

		if (cand[d]) {
			idx = __ffs64(cand[d]);
			cand[d] &= cand[d] - 1;
			bits = BIT_ULL(idx);
			if (assign_test_is_pair(t, d)) {
				if (idx >= INTEL_PMC_IDX_FIXED)
					continue;
				bits |= BIT_ULL(idx + 1);
			}
			if ((used[d] & bits) ||
			    (idx < INTEL_PMC_IDX_FIXED && nr_gp[d] >= t->gpmax))
				continue;
			used[d + 1] = used[d] | bits;
			nr_gp[d + 1] = nr_gp[d] + (idx < INTEL_PMC_IDX_FIXED);
			placed[d + 1] = placed[d] + 1;
		} else if (skip[d]) {
			skip[d] = false;
			used[d + 1] = used[d];
			nr_gp[d + 1] = nr_gp[d];
			placed[d + 1] = placed[d];
		} else {
			d--;
			continue;
		}

		d++;
		if (d < t->n) {
			cand[d] = t->ec[d].idxmsk64;
			skip[d] = true;
		}
	}

	return best;
}

/*
 * The most of @m events with masks @mask that can sit on distinct
 * counters of @avail, at most @gpmax on generic ones: the minimum cut
 * over all subsets. Subsets are walked in binary order, keeping for
 * each k the counters allowed by the members numbered k or higher.
 */
static inline int assign_test_flow(const u64 *mask, int m, u64 avail,
				   int gpmax)
{
	u64 from[ASSIGN_TEST_MAX + 1] = { 0 }, reach;
	int best = m, cut, k, low;
	u32 x;

	gpmax = max(gpmax, 0);
	for (x = 1; x < BIT(m); x++) {
		low = __ffs(x);
		reach = from[low + 1] | (mask[low] & avail);
		for (k = 0; k <= low; k++)
			from[k] = reach;
		cut = m - hweight32(x) + hweight64(reach & ASSIGN_TEST_FIXED) +
		      min((int)hweight64(reach & ASSIGN_TEST_GP), gpmax);
		best = min(best, cut);
	}

	return best;
}

/*
 * The most events of @t any valid assignment places: every window or
 * none for each pair event, the minimum cut for the others.
 */
static inline int assign_test_max(const struct assign_test *t)
{
	u64 mask[ASSIGN_TEST_MAX], used;
	int pair[ASSIGN_TEST_MAX], at[ASSIGN_TEST_MAX];
	int e, k, m = 0, nr_pairs = 0, placed, best = 0;
	u64 starts;

	for (e = 0; e < t->n; e++) {
		if (assign_test_is_pair(t, e)) {
			pair[nr_pairs] = e;
			at[nr_pairs++] = -1;
		} else {
			mask[m++] = t->ec[e].idxmsk64;
		}
	}

	for (;;) {
		used = 0;
		placed = 0;
		for (k = 0; k < nr_pairs; k++) {
			if (at[k] < 0)
				continue;
			if (used & (3ULL << at[k]))
				break;
			used |= 3ULL << at[k];
			placed++;
		}
		if (k == nr_pairs && placed <= max(t->gpmax, 0))
			best = max(best, placed +
				   assign_test_flow(mask, m, ~used,
						    t->gpmax - placed));

		/* next choice: none, then every start in turn */
		for (k = 0; k < nr_pairs; k++) {
			starts = t->ec[pair[k]].idxmsk64 & ASSIGN_TEST_GP;
			if (at[k] >= 0)
				starts &= ~GENMASK_ULL(at[k], 0);
			if (starts) {
				at[k] = __ffs64(starts);
				break;
			}
			at[k] = -1;
		}
		if (k == nr_pairs)
			return best;
	}
}

/*
 * For an instance where the events with prev[] >= 0 hold an assignment
 * of themselves that is valid but for gpmax (each on a counter, a pair
 * on a window start, its mask allows, no counter shared): the fewest of
 * them that any valid assignment of all events moves, or -1 if there is
 * none. Tries all sets of movers, smallest first: the others stay, and
 * the movers and new events must fit what is left (assign_test_max()).
 */
static inline int assign_test_min_moves(const struct assign_test *t)
{
	u64 held = 0, kept, used, bits, mask;
	struct assign_test rest;
	int e, k, m, nr_held, nr_gp;
	u32 set;

	for (e = 0; e < t->n; e++) {
		if (t->prev[e] >= 0)
			held |= BIT_ULL(e);
	}
	nr_held = hweight64(held);

	for (k = 0; k <= nr_held; k++) {
		/* every k-subset of the holders, by Gosper's hack */
		for (set = BIT(k) - 1; set < BIT(nr_held);) {
			kept = 0;
			for (e = 0, m = 0; e < t->n; e++) {
				if (!(held & BIT_ULL(e)))
					continue;
				if (!(set & BIT(m++)))
					kept |= BIT_ULL(e);
			}
			used = 0;
			nr_gp = 0;
			for (e = 0; e < t->n; e++) {
				if (!(kept & BIT_ULL(e)))
					continue;
				bits = BIT_ULL(t->prev[e]);
				if (assign_test_is_pair(t, e))
					bits |= bits << 1;
				used |= bits;
				nr_gp += t->prev[e] < INTEL_PMC_IDX_FIXED;
			}
			rest.n = 0;
			rest.gpmax = t->gpmax - nr_gp;
			rest.counters = t->counters;
			for (e = 0; e < t->n; e++) {
				if (kept & BIT_ULL(e))
					continue;
				mask = t->ec[e].idxmsk64 & ~used;
				if (assign_test_is_pair(t, e))
					mask &= ~(used >> 1);
				assign_test_event(&rest, rest.n++, mask,
						  t->ec[e].flags);
			}
			if (nr_gp <= t->gpmax && assign_test_max(&rest) == rest.n)
				return k;
			if (!set)
				break;
			set = (((set ^ (set + (set & -set))) >> 2) /
			       (set & -set)) | (set + (set & -set));
		}
	}

	return -1;
}

#endif
