// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counter assignment for x86 perf_events, by maximum bipartite matching.
 *
 * Events are one side of a bipartite graph and counters the other; the
 * constraint mask of an event (struct event_constraint::idxmsk64) lists
 * its edges. x86_assign_counters() gives every event a counter whenever
 * any valid assignment exists, valid meaning:
 *
 *  - every event is on a counter its mask allows, no counter is shared;
 *  - a PERF_X86_EVENT_PAIR event on generic counter i also holds i + 1;
 *  - at most gpmax events are on generic counters (a pair counts once).
 *
 * Counters at or above INTEL_PMC_IDX_FIXED, the fixed counters and the
 * TopDown metric pseudo-counters, are "fixed" and preferred.
 *
 * First fit: each event takes the first free counter it allows, a fixed
 * one first. For unconstrained events that is all the work there is.
 *
 * Augmenting paths, by the phases of Hopcroft and Karp: from the events
 * left over, all at once, a breadth-first search runs event -> allowed
 * counter -> event holding it -> ... up to the first layer with a free
 * counter; a depth-first search along the layers then finds a maximal
 * set of shortest augmenting paths that share no counter, and along
 * each of them every event moves on to the next counter and the root
 * event takes the first: one more event placed per path, none
 * displaced. Phases repeat until a search finds no free counter: then
 * no augmenting path is left and, as Berge showed, no assignment places
 * more events than this one.
 *
 * Fixed counters and gpmax: without prev[], the fixed counters are
 * matched to a maximum first and the generic ones after. Augmenting
 * never frees a counter, so the result has as many events on fixed
 * counters as any assignment, hence as few on generic ones as any
 * assignment of as many events: gpmax is met whenever it can be.
 *
 * Previous counters: with prev[], events keep the counter they had
 * where it is still allowed and free, and the others search from there.
 * Should the result exceed gpmax, it starts over without prev[]. Moves:
 * when one event is added to running events that hold distinct counters
 * their masks allow, there are no pair events and fewer than gpmax of
 * the running events sit on generic counters, the shortest augmenting
 * path moves the fewest running events of any valid assignment. Not
 * otherwise: with pairs, with gpmax filled, or with several new events
 * it may move more.
 *
 * Pairs make this more than a matching. Every assignment puts the P
 * pair events on some set S of window starts, no two adjacent, out of
 * the generic counters their masks allow. All such S are tried, the
 * windows the pairs hold now first: the pair events are matched to S
 * and the others to the counters outside S and S + 1. That is exact,
 * for one matching per S; W starts allow at most C(W, P) sets, and
 * C(W - P + 1, P) if they are consecutive: 3 on AMD Zen (6 counters,
 * pairs start at 0, 2 or 4), at most 15 with 8 counters. Should the
 * first set fail, cannot_fit() checks Hall's condition on a few sets of
 * events and, if that fails, ends the pass before any other set.
 *
 * Bounds, for n <= X86_PMC_IDX_MAX events on 64 counters: first fit is
 * O(n). A phase costs one word operation per counter in its breadth-
 * first search and enters each counter at most once in its depth-first
 * one, each entry or step back scanning one mask: O(64 * 64) bit
 * operations at most. Hopcroft and Karp bound the phases of a matching
 * of m events by 2 * sqrt(m) + 1, and every phase but the last places
 * one event or more: at most k + 1 for k events left after first fit.
 * No recursion, no allocation: the depth-first search keeps its path in
 * the layer bytes of the counters it spent, and the state on the stack
 * is an owner and a layer byte per counter and a few words.
 */

#include <linux/bitops.h>

#include "perf_event.h"

#define FIXED_MASK	(~0ULL << INTEL_PMC_IDX_FIXED)
#define GP_MASK		(BIT_ULL(INTEL_PMC_IDX_FIXED) - 1)

/*
 * @owner holds the event on each counter in @used; a pair event is
 * recorded on the first counter of its window.
 */
struct assign_state {
	struct event_constraint	**constraints;
	const int		*prev;
	u64			used;
	int			gpmax;
	s8			owner[X86_PMC_IDX_MAX];
};

static inline u64 event_mask(struct assign_state *s, int e)
{
	return s->constraints[e]->idxmsk64;
}

static inline void take_counter(struct assign_state *s, int e, int idx)
{
	s->owner[idx] = e;
	s->used |= BIT_ULL(idx);
}

/*
 * Events of @events keep their previous counter if it is in @avail,
 * still allowed and free. Returns the others.
 */
static u64 keep_prev(struct assign_state *s, u64 events, u64 avail)
{
	u64 left = 0;

	for (; events; events &= events - 1) {
		int e = __ffs64(events);
		int idx = s->prev[e];

		if (idx >= 0 && idx < X86_PMC_IDX_MAX &&
		    (event_mask(s, e) & avail & ~s->used & BIT_ULL(idx)))
			take_counter(s, e, idx);
		else
			left |= BIT_ULL(e);
	}

	return left;
}

/*
 * Each event of @events takes the first free counter of @avail it
 * allows, a fixed one if it can. With @defer, an event that allows a
 * fixed counter but finds none free waits for the fixed-counter search
 * instead of taking a generic one. Returns the events left over.
 */
static u64 first_fit(struct assign_state *s, u64 events, u64 avail,
		     bool defer)
{
	u64 left = 0;

	for (; events; events &= events - 1) {
		int e = __ffs64(events);
		u64 mask = event_mask(s, e) & avail;
		u64 free = mask & ~s->used;

		if (free & FIXED_MASK)
			free &= FIXED_MASK;
		else if (defer && (mask & FIXED_MASK))
			free = 0;

		if (free)
			take_counter(s, e, __ffs64(free));
		else
			left |= BIT_ULL(e);
	}

	return left;
}

/*
 * One phase of Hopcroft and Karp: a maximal set of vertex-disjoint
 * shortest augmenting paths from the events @roots through counters of
 * @avail, each then augmented. Returns the roots placed, 0 if no
 * augmenting path is left.
 *
 * A breadth-first search from all roots at once layers the counters:
 * layer 1 holds the counters the roots allow, layer k + 1 those the
 * events on layer k allow and no earlier layer holds, up to the first
 * layer that holds a free counter, the last, whose number is depth.
 * Every shortest path runs root, counter of layer 1, its event, counter
 * of layer 2, ..., free counter of the last layer. layer[] numbers the
 * counters of the layers before the last; those of the last need no
 * number, as a path ends on a free counter there.
 *
 * A depth-first search from each root in turn then follows the layers,
 * iteratively. A counter it enters is spent for the rest of the phase,
 * on a path found or as a dead end, so the paths share no vertex and
 * each counter is entered once; its layer byte, not read as a layer
 * again, holds the counter before it on the path instead (-1: the root).
 * Along a path found, every event moves on to the next counter and the
 * root takes the first: one more event placed, none displaced. A path
 * ends on a free fixed counter if the event before it allows one.
 */
static u64 phase(struct assign_state *s, u64 roots, u64 avail)
{
	u64 layer_mask = 0, next, spent = 0, placed = 0, cand, reach = avail;
	int depth, k, root, e, idx, tip;
	s8 layer[X86_PMC_IDX_MAX];

	for (next = roots; next; next &= next - 1)
		layer_mask |= event_mask(s, __ffs64(next));

	for (depth = 1; ; depth++) {
		layer_mask &= reach;
		if (!layer_mask)
			return 0;
		reach &= ~layer_mask;
		if (layer_mask & ~s->used)
			break;
		for (next = 0; layer_mask; layer_mask &= layer_mask - 1) {
			idx = __ffs64(layer_mask);
			layer[idx] = depth;
			next |= event_mask(s, s->owner[idx]);
		}
		layer_mask = next;
	}

	for (; roots; roots &= roots - 1) {
		root = __ffs64(roots);
		e = root;
		tip = -1;
		k = 0;
		for (;;) {
			cand = event_mask(s, e) & avail & ~spent;
			if (k + 1 < depth) {
				while (cand && layer[__ffs64(cand)] != k + 1)
					cand &= cand - 1;
			} else {
				cand &= ~s->used;
				if (cand & FIXED_MASK)
					cand &= FIXED_MASK;
			}
			if (!cand) {
				/* A dead end: back to the layer before. */
				if (tip < 0)
					break;
				tip = layer[tip];
				e = tip < 0 ? root : s->owner[tip];
				k--;
				continue;
			}

			idx = __ffs64(cand);
			spent |= BIT_ULL(idx);
			layer[idx] = tip;
			tip = idx;
			if (++k < depth) {
				e = s->owner[idx];
				continue;
			}

			/* Every event on the path moves on to the next counter. */
			s->used |= BIT_ULL(idx);
			for (; idx >= 0; idx = tip) {
				tip = layer[idx];
				s->owner[idx] = tip < 0 ? root : s->owner[tip];
			}
			placed |= BIT_ULL(root);
			break;
		}
	}

	return placed;
}

/* Augment phase by phase until no path is left; returns the events left. */
static u64 match(struct assign_state *s, u64 left, u64 avail)
{
	u64 placed;

	while (left && (placed = phase(s, left, avail)))
		left &= ~placed;

	return left;
}

/*
 * Hall's condition on a few sets of the @events, necessary for them all
 * to have a counter with at most @gpmax of them (a pair counts once) on
 * generic ones: true if it fails, that is if an event allows no counter
 * or two allow one and the same counter only, if more events allow only
 * generic counters than gpmax or than those counters, or if there are
 * more events than the fixed counters they allow and gpmax. A pair
 * event's mask is the window starts it allows: one counter of its own.
 */
static noinline_for_stack bool cannot_fit(struct assign_state *s, u64 events,
					  int gpmax)
{
	u64 all = 0, gp = 0, single = 0, mask;
	int nr = 0, nr_gp = 0;

	for (; events; events &= events - 1, nr++) {
		mask = event_mask(s, __ffs64(events));
		if (!(mask & (mask - 1))) {
			if (!mask || (single & mask))
				return true;
			single |= mask;
		}
		all |= mask;
		if (!(mask & FIXED_MASK)) {
			gp |= mask;
			nr_gp++;
		}
	}

	return nr_gp > min(gpmax, (int)hweight64(gp)) ||
	       nr > (int)hweight64(all & FIXED_MASK) +
		    min(gpmax, (int)hweight64(all & GP_MASK));
}

/*
 * Place the events of @events on counters of @avail, at most gpmax of
 * them on generic ones. Returns how many of them are placed within that
 * limit. Inlined into both callers: one stack frame less.
 */
static __always_inline int place(struct assign_state *s, u64 events,
				 u64 avail)
{
	u64 left, fixed = 0, m;
	int nr_gp;

	if (s->prev) {
		left = match(s, first_fit(s, keep_prev(s, events, avail),
					  avail, false), avail);
		nr_gp = hweight64(s->used & avail & GP_MASK);
		if (left || nr_gp <= s->gpmax)
			goto out;

		/* Too many on generic counters: fixed ones first after all. */
		s->used &= ~avail;
	}

	left = first_fit(s, events, avail, true);
	if (left) {
		for (m = left; m; m &= m - 1) {
			if (event_mask(s, __ffs64(m)) & avail & FIXED_MASK)
				fixed |= m & -m;
		}
		left &= ~fixed | match(s, fixed, avail & FIXED_MASK);
		left = match(s, first_fit(s, left, avail, false), avail);
	}
	nr_gp = hweight64(s->used & avail & GP_MASK);
out:
	return hweight64(events & ~left) - max(nr_gp - s->gpmax, 0);
}

/*
 * The lowest set of @nr bits of @starts, no two adjacent, or 0 if there
 * is none.
 */
static u64 first_windows(u64 starts, int nr)
{
	u64 set = 0, bit;

	for (; nr; nr--) {
		if (!starts)
			return 0;
		bit = starts & -starts;
		set |= bit;
		starts &= ~((bit << 2) - 1);
	}

	return set;
}

/*
 * The next set after @set of as many bits of @starts, no two adjacent,
 * in increasing order; 0 after the last. The lowest bit that can move
 * up moves to the next start clear of the bit above it, and the bits
 * below it restart as low as they can.
 */
static u64 next_windows(u64 set, u64 starts)
{
	u64 bit, above, up;
	int nr;

	for (nr = 0; set; set = above, nr++) {
		bit = set & -set;
		above = set & ~bit;
		up = starts & ~((bit << 1) - 1);
		if (above)
			up &= ((above & -above) >> 1) - 1;
		if (up) {
			up &= -up;
			return above | up |
			       first_windows(starts & ((up >> 1) - 1), nr);
		}
	}

	return 0;
}

/*
 * Put the @pairs on the windows starting at @set, then place the other
 * @events outside the windows. Returns how many events are placed, 0 if
 * the pairs do not fit @set.
 */
static int place_windows(struct assign_state *s, u64 set, u64 pairs,
			 u64 events)
{
	u64 left = pairs;

	s->used = 0;
	if (s->prev)
		left = keep_prev(s, pairs, set);
	if (match(s, first_fit(s, left, set, false), set))
		return 0;

	return hweight64(pairs) + place(s, events & ~pairs, ~(set | set << 1));
}

/*
 * The set of windows to try for the @pairs after @set, 0 for the first:
 * the windows they hold now if those are valid, then every set of
 * window starts they allow in increasing order; 0 after the last.
 */
static u64 next_set(struct assign_state *s, u64 pairs, u64 set)
{
	u64 starts = 0, old = 0, m;
	int idx;

	for (m = pairs; m; m &= m - 1) {
		starts |= event_mask(s, __ffs64(m)) & GP_MASK;
		idx = s->prev ? s->prev[__ffs64(m)] : -1;
		if (idx >= 0 && idx < INTEL_PMC_IDX_FIXED)
			old |= BIT_ULL(idx);
	}
	if (hweight64(old) != hweight64(pairs) || (old & ~starts) ||
	    (old & old << 1))
		old = 0;

	if (!set && old)
		return old;
	if (set == old)
		set = first_windows(starts, hweight64(pairs));
	else
		set = next_windows(set, starts);

	return set && set == old ? next_windows(set, starts) : set;
}

/* On success, the counter of each event into @assign. */
static void write_assign(struct assign_state *s, int *assign)
{
	int idx;

	for (; s->used; s->used &= ~BIT_ULL(idx)) {
		idx = fls64(s->used) - 1;
		assign[s->owner[idx]] = idx;
	}
}

/*
 * x86_assign_counters() without pair events. This and assign_pairs()
 * are entered by a tail call, each with a frame of its own.
 */
static noinline_for_stack int assign_events(struct event_constraint **constraints,
					    int n, int gpmax, const int *prev,
					    int *assign)
{
	struct assign_state s;
	int placed;

	s.constraints = constraints;
	s.prev = prev;
	s.used = 0;
	s.gpmax = max(gpmax, 0);

	placed = place(&s, GENMASK_ULL(n - 1, 0), ~0ULL);
	if (placed == n && assign)
		write_assign(&s, assign);

	return n - placed;
}

/*
 * x86_assign_counters() with @pairs among the events: try every set of
 * windows for them, the one they hold now first.
 */
static noinline_for_stack int assign_pairs(struct event_constraint **constraints,
					   int n, int gpmax, const int *prev,
					   int *assign, u64 pairs)
{
	int best = -1, placed;
	struct assign_state s;
	u64 set;

	s.constraints = constraints;
	s.prev = prev;
	s.gpmax = gpmax - hweight64(pairs);
	if (s.gpmax < 0)
		return n;

	for (set = next_set(&s, pairs, 0); set; set = next_set(&s, pairs, set)) {
		placed = place_windows(&s, set, pairs, GENMASK_ULL(n - 1, 0));
		/* Not all fit the first set: may they fit any? */
		if (placed < n && best < 0 &&
		    cannot_fit(&s, GENMASK_ULL(n - 1, 0), gpmax))
			return n;
		best = max(best, placed);
		if (best == n)
			break;
	}
	if (best == n && assign)
		write_assign(&s, assign);

	return n - max(best, 0);
}

/**
 * x86_assign_counters - find a counter for every event
 * @constraints: constraint of each event
 * @n: number of events, at most X86_PMC_IDX_MAX
 * @gpmax: most events allowed on generic counters
 * @prev: counter each event holds now, or -1; may be @assign; or NULL
 * @assign: counter of each event on success, or NULL to only validate
 *
 * Finds an assignment of all events whenever one exists. Events start
 * from their @prev counter where it is still allowed and free; an
 * augmenting path may move them on.
 *
 * Return: 0 if every event has a counter, else the number of events left
 * over, @n if cannot_fit() ends the pass; without @prev and pairs, that
 * is @n minus the most any valid assignment places.
 */
int x86_assign_counters(struct event_constraint **constraints, int n,
			int gpmax, const int *prev, int *assign)
{
	u64 pairs = 0;
	int e;

	for (e = n; e--;) {
		pairs <<= 1;
		if (constraints[e]->flags & PERF_X86_EVENT_PAIR)
			pairs |= 1;
	}
	if (pairs)
		return assign_pairs(constraints, n, gpmax, prev, assign, pairs);

	return n ? assign_events(constraints, n, gpmax, prev, assign) : 0;
}
