// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the simulator (sim.c, pmu.c, sched_sim.c): figures that are
 * known by hand, from the thesis, or by an independent count, so that a
 * wrong model or a wrong table fails here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sim.h"
#include "assign_test.h"
#include "check.h"

/*
 * The thesis's codes (ch. 7.2): l2_lines_in:any, l1d_pend_miss:occurrences,
 * cycle_activity:stalls_l1d_pending, inst_retired:any_p
 */
#define L2_LINES_IN	0x5307f1ULL
#define L1D_PEND_MISS	0x1570148ULL
#define CYCLE_ACTIVITY	0x85308a3ULL
#define INST_RETIRED	0x53000ULL

static struct sim_pmu pmu;
static struct sim sim;

/* A fresh simulation on PMU @name with one thread, @algo. */
static struct sim *setup(const char *name, enum sim_algo algo)
{
	memset(&sim, 0, sizeof(sim));
	if (sim_pmu_get(name, &pmu)) {
		fprintf(stderr, "sim_test: no PMU %s\n", name);
		exit(2);
	}
	sim.pmu = &pmu;
	sim.algo = algo;
	sim.nr_threads = 1;
	sim.xsu = pmu.xsu;
	sim.half = true;
	return &sim;
}

static void codes(struct sim *s, int tid, const u64 *code, int n)
{
	char str[32];
	int e;

	for (e = 0; e < n; e++) {
		snprintf(str, sizeof(str), "%#llx", code[e]);
		if (sim_event_parse(s->pmu, str, &s->t[tid].ev[e]))
			exit(2);
	}
	s->t[tid].n = n;
}

static void masks(struct sim *s, int tid, const u64 *mask, int n)
{
	int e;

	for (e = 0; e < n; e++) {
		snprintf(s->t[tid].ev[e].name, SIM_NAME_LEN, "e%d", e + 1);
		sim_event_set(&s->t[tid].ev[e], mask[e], 0, false);
	}
	s->t[tid].n = n;
}

/* Do the runs and last counters of thread @tid equal @runs and @idx? */
static bool runs_are(const struct sim *s, int tid, const long *runs,
		     const int *idx)
{
	const struct sim_thread *t = &s->t[tid];
	int e;

	for (e = 0; e < t->n; e++) {
		if (t->ev[e].runs != runs[e] || (idx && t->ev[e].idx != idx[e]))
			return false;
	}
	return true;
}

/* Static constraints as the kernel looks them up, read off BASE by hand. */
static void test_tables(void)
{
	static const struct {
		const char	*pmu;
		u64		code;
		u64		mask;
		int		flags;
	} want[] = {
		{ "hsw", L2_LINES_IN, 0xf, 0 },
		{ "hsw", L1D_PEND_MISS, 0x4, 0 },
		{ "hsw", CYCLE_ACTIVITY, 0x4, 0 },
		{ "hsw", 0xc530ca3, 0x4, 0 },
		{ "hsw", 0x5181d0, 0xf, PERF_X86_EVENT_EXCL },
		{ "hsw", 0x5100c0, 0x10000000fULL, 0 },		/* fixed 0 too */
		{ "hsw", 0x530300, 0x400000000ULL, 0 },		/* fixed 2 only */
		{ "hsw", 0x5101c0, 0x2, 0 },
		{ "snb", 0x530148, 0x4, 0 },
		{ "snb", 0x5102a3, 0x4, 0 },
		{ "snb", 0x5101d3, 0xf, PERF_X86_EVENT_EXCL },
		{ "ivb", 0x5101d2, 0xf, PERF_X86_EVENT_EXCL },
		{ "skl", 0x5101d0, 0xf, 0 },			/* no erratum */
		{ "skl", 0x5120cc, 0xff, 0 },
		{ "skl", 0x53003c, 0x2000000ffULL, 0 },
		{ "icl", 0x510400, 0x800000000ULL, 0 },		/* SLOTS */
		{ "icl", 0x8000, BIT_ULL(48), 0 },		/* retiring */
		{ "icl", 0x8300, BIT_ULL(51), 0 },		/* backend bound */
		{ "icl", 0x510105, 0xf, 0 },			/* range 0x03-0x0a */
		{ "icl", 0x5104a3, 0xff, 0 },
		{ "icl", 0x5108a3, 0xf, 0 },
		{ "icl", 0x510100, 0x100000000ULL, 0 },		/* fixed 0 only */
		{ "spr", 0x8700, BIT_ULL(55), 0 },		/* memory bound */
		{ "spr", 0x51012e, 0xff, 0 },
		{ "spr", 0x510134, 0xf, 0 },			/* range 0x01-0x8f */
		{ "spr", 0x5102cd, 0x1, 0 },
		{ "spr", 0x5101c2, 0xff, 0 },			/* range 0x90-0xfe */
		{ "zen", 0x510f03, 0x15, PERF_X86_EVENT_PAIR },	/* SSE/AVX FLOPs */
		{ "zen", 0x510076, 0x3f, 0 },
	};
	const struct event_constraint *c;
	int i, bad = 0;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		setup(want[i].pmu, SIM_GREEDY);
		c = sim_constraint(&pmu, want[i].code);
		if (c->idxmsk64 != want[i].mask ||
		    c->weight != hweight64(want[i].mask) ||
		    (c->flags & (PERF_X86_EVENT_EXCL | PERF_X86_EVENT_PAIR)) !=
		    want[i].flags) {
			printf("# %s %#llx: %#llx weight %d flags %#x\n",
			       want[i].pmu, want[i].code, c->idxmsk64, c->weight,
			       c->flags);
			bad++;
		}
	}
	result(!bad, "sim: %d constraints of the tables cut out of BASE as read by hand (%d wrong)",
	       (int)ARRAY_SIZE(want), bad);
}

/* Thesis ch. 7.2: scaling factors and counters of its two examples. */
static void test_thesis_single(void)
{
	static const u64 three[] = { L2_LINES_IN, L1D_PEND_MISS, CYCLE_ACTIVITY };
	static const u64 four[] = { L2_LINES_IN, L1D_PEND_MISS, CYCLE_ACTIVITY,
				    INST_RETIRED };
	static const u64 mask4[] = { 0x6, 0x8, 0x9, 0xb };
	static const long runs3[] = { 667, 667, 333 }, runs_g[] = { 750, 750, 750, 750 };
	static const long runs_m[] = { 1000, 1000, 1000, 1000 };
	static const int idx3[] = { 0, 2, 2 }, idx_m[] = { 2, 3, 0, 1 };
	struct sim *s;
	int a, e;
	bool ok;

	for (a = 0; a < SIM_NR_ALGOS; a++) {
		s = setup("hsw", a);
		codes(s, 0, three, 3);
		sim_reset(s);
		sim_run(s, 1000);
		result(runs_are(s, 0, runs3, idx3),
		       "sim: thesis 7.2, %s: l2_lines_in / l1d_pend_miss / cycle_activity 66.7/66.7/33.3%% on cntr0/2/2 (%ld/%ld/%ld of 1000)",
		       a ? "matcher" : "greedy", s->t[0].ev[0].runs,
		       s->t[0].ev[1].runs, s->t[0].ev[2].runs);
	}

	/* -C 0x6,0x8,0x9,0xb: greedy 3 of 4 each tick, matcher all */
	for (a = 0; a < SIM_NR_ALGOS; a++) {
		s = setup("hsw", a);
		codes(s, 0, four, 4);
		for (e = 0; e < 4; e++)
			sim_event_set(&s->t[0].ev[e], mask4[e], 0, false);
		sim_reset(s);
		sim_run(s, 1000);
		ok = a ? runs_are(s, 0, runs_m, idx_m) : runs_are(s, 0, runs_g, NULL);
		result(ok, "sim: thesis 7.2, -C 0x6,0x8,0x9,0xb, %s: %s (%ld %ld %ld %ld of 1000)",
		       a ? "matcher" : "greedy",
		       a ? "100% each on cntr2/3/0/1 as the thesis's" :
			   "75% each (rotation)",
		       s->t[0].ev[0].runs, s->t[0].ev[1].runs,
		       s->t[0].ev[2].runs, s->t[0].ev[3].runs);
	}
}

/* Small cases worked out by hand. */
static void test_by_hand(void)
{
	static const u64 one[] = { 0x1, 0x1, 0x1 }, two[] = { 0x1, 0x1, 0x2 };
	static const u64 excl[] = { 0x5181d0, 0x5120cc, 0x5120cc };
	static const long runs_one[] = { 333, 333, 333 };
	static const long runs_stop[] = { 2, 1, 2 }, runs_go[] = { 2, 1, 3 };
	struct sim *s;
	int n[2], a;

	/* three events for one counter: a third each */
	for (a = 0; a < SIM_NR_ALGOS; a++) {
		s = setup("gp1", a);
		masks(s, 0, one, 3);
		sim_reset(s);
		sim_run(s, 999);
		result(runs_are(s, 0, runs_one, NULL),
		       "sim: gp1, 3 events on counter 0, %s: 1/3 each",
		       a ? "matcher" : "greedy");
	}

	/*
	 * 0x1, 0x1, 0x2: stopping, {A} {B,C} {C,A} per 3 ticks; going on
	 * past the failure, {A,C} {B,C} {C,A}.
	 */
	s = setup("gp2", SIM_GREEDY);
	masks(s, 0, two, 3);
	sim_reset(s);
	n[0] = sim_pass(s, 0);
	sim_reset(s);
	sim_run(s, 3);
	result(n[0] == 1 && runs_are(s, 0, runs_stop, NULL),
	       "sim: gp2, 0x1,0x1,0x2, stop at the first failure: 1 in the first pass, 2/3 1/3 2/3");
	s->limit = 3;
	sim_reset(s);
	n[1] = sim_pass(s, 0);
	sim_reset(s);
	sim_run(s, 3);
	result(n[1] == 2 && runs_are(s, 0, runs_go, NULL),
	       "sim: gp2, 0x1,0x1,0x2, -k 3: 2 in the first pass, 2/3 1/3 3/3");

	/* the half rule: a corrupting event present, two generic counters */
	s = setup("hsw", SIM_MATCHER);
	codes(s, 0, excl, 3);
	sim_reset(s);
	n[0] = sim_pass(s, 0);
	s->xsu = false;
	sim_reset(s);
	n[1] = sim_pass(s, 0);
	result(n[0] == 2 && n[1] == 3,
	       "sim: hsw, 0x81d0 0x20cc 0x20cc: 2 scheduled with the HT workaround (half rule), 3 without (%d, %d)",
	       n[0], n[1]);
}

/* Thesis ch. 7.1: HT0 0x81d0 C, 0x08d1 C, 0x20cc NC; HT1 0x20cc, 0x81d0, 0x08d1. */
static void test_thesis_xsu(void)
{
	static const u64 ht0[] = { 0x5381d0, 0x5308d1, 0x5320cc };
	static const u64 ht1[] = { 0x5320cc, 0x5381d0, 0x5308d1 };
	static const long all[] = { 3000, 3000, 3000 }, mux[] = { 2000, 2000, 1000 };
	static const long hit0[] = { 0, 3000, 3000 };
	static const long hit1[] = { 3000, 3000, 0 };
	static const long half[2][SIM_NR_ALGOS][2][3] = {
		{	/* the series */
			{ { 667, 667, 666 }, { 667, 667, 666 } },	/* greedy */
			{ { 667, 667, 666 }, { 667, 667, 666 } },	/* matcher */
		}, {	/* 7.3 */
			{ { 999, 999, 999 }, { 667, 667, 334 } },
			{ { 999, 999, 998 }, { 667, 667, 334 } },
		},
	};
	static const long over[2][SIM_NR_ALGOS] = { { 0, 0 }, { 997, 996 } };
	static const int idx0[] = { 0, 1, 2 };
	struct sim *s;
	int a, e, base;
	long c[2][3];

	for (a = 0; a < SIM_NR_ALGOS; a++) {
		s = setup("hsw", a);
		s->nr_threads = 2;
		s->half = false;
		codes(s, 0, ht0, 3);
		codes(s, 1, ht1, 3);
		sim_reset(s);
		sim_run(s, 3000);
		result(runs_are(s, 0, all, idx0) && runs_are(s, 1, mux, NULL) &&
		       s->t[1].ev[0].idx == 2 && s->t[1].ev[1].idx == 3 &&
		       !s->corrupted,
		       "sim: thesis 7.1 with XSU (no half rule), %s: HT0 100%% on cntr0-2, HT1 66.7/66.7/33.3%% with 0x20cc on cntr2 and 0x81d0 on cntr3, nothing corrupted",
		       a ? "matcher" : "greedy");
	}

	/* Fig. 7.2: without the workaround every list fits and corrupts */
	s = setup("hsw", SIM_GREEDY);
	s->nr_threads = 2;
	s->xsu = false;
	codes(s, 0, ht0, 3);
	codes(s, 1, ht1, 3);
	sim_reset(s);
	sim_run(s, 3000);
	for (e = 0; e < 3; e++) {
		c[0][e] = s->t[0].ev[e].runs == 3000 ? s->t[0].ev[e].corrupted : -1;
		c[1][e] = s->t[1].ev[e].runs == 3000 ? s->t[1].ev[e].corrupted : -1;
	}
	result(!memcmp(c[0], hit0, sizeof(hit0)) && !memcmp(c[1], hit1, sizeof(hit1)),
	       "sim: thesis Fig. 7.2, workaround off: all run, HT0 0x08d1 0x20cc and HT1 0x20cc 0x81d0 corrupted all the time");

	/*
	 * The half rule. In the series the greedy packs both threads into
	 * 2 counters, 2/3 each, and so does the matcher, whose fast path
	 * keeps to gpmax. In 7.3 the matcher keeps HT0's events on
	 * distinct counters and from the fifth tick the fast path, which
	 * ignores gpmax, leaves HT0 all three (996 ticks over the half
	 * rule); the greedy gets there too once 7.3's put has freed a
	 * counter HT0 holds (tick 2, next test). Before the series' fast
	 * path and release were modelled, the default expected the
	 * matcher's 7.3 figures and, with the series' put, 2/3 each for
	 * the greedy: they changed on purpose.
	 */
	for (base = 0; base < 2; base++) {
		for (a = 0; a < SIM_NR_ALGOS; a++) {
			s = setup("hsw", a);
			s->nr_threads = 2;
			s->base = base;
			codes(s, 0, ht0, 3);
			codes(s, 1, ht1, 3);
			sim_reset(s);
			sim_run(s, 1000);
			for (e = 0; e < 3; e++) {
				c[0][e] = s->t[0].ev[e].runs;
				c[1][e] = s->t[1].ev[e].runs;
			}
			result(!memcmp(c, half[base][a], sizeof(c)) &&
			       s->over_half == over[base][a],
			       "sim: thesis 7.1 with the half rule, %s, %s: HT0 %ld/%ld/%ld HT1 %ld/%ld/%ld of 1000, %ld ticks over the half rule",
			       base ? "7.3 (-P)" : "series", a ? "matcher" : "greedy",
			       c[0][0], c[0][1], c[0][2], c[1][0], c[1][1], c[1][2],
			       s->over_half);
		}
	}

	/* and 7.3's put frees the counter of a corrupting event: corruption */
	s = setup("hsw", SIM_GREEDY);
	s->nr_threads = 2;
	s->base = true;
	codes(s, 0, ht0, 3);
	codes(s, 1, ht1, 3);
	sim_reset(s);
	sim_run(s, 2);
	result(s->t[0].ev[1].corrupted == 1 && s->t[1].ev[1].corrupted == 1 &&
	       s->t[0].ev[1].idx == 0 && s->t[1].ev[1].idx == 0,
	       "sim: thesis 7.1 lists with 7.3's protocol (-P): at tick 2 both threads run a corrupting event on cntr0 (7.3's put)");
}

/*
 * Thesis ch. 7.1, five events on both threads, no half rule: the series
 * releases every counter a window no longer uses, so no state is ever
 * left without an event, under either algorithm. Before the release was
 * modelled, the greedy left cntr3 SHARED at the eighth tick, when the
 * window after HT0's fast path moved 0x104 from cntr3 to cntr1; that
 * expectation was dropped on purpose. 7.3's put frees other counters
 * in this run; test_moved_released() shows 7.3's stale state.
 */
static void test_stale(void)
{
	static const u64 five[] = { 0x5381d0, 0x530024, 0x5320cc, 0x530104,
				    0x530084 };
	long stale[SIM_NR_ALGOS];
	struct sim *s;
	int a;

	for (a = 0; a < SIM_NR_ALGOS; a++) {
		s = setup("hsw", a);
		s->nr_threads = 2;
		s->half = false;
		codes(s, 0, five, 5);
		codes(s, 1, five, 5);
		sim_reset(s);
		sim_run(s, 1000);
		stale[a] = s->stale;
	}
	result(!stale[SIM_GREEDY] && !stale[SIM_MATCHER],
	       "sim: thesis 7.1, five events, series: no stale XSU state in 1000 ticks, greedy or matcher (%ld, %ld)",
	       stale[SIM_GREEDY], stale[SIM_MATCHER]);
}

/*
 * The series' KUnit xsu_moved_counter_released, with the greedy: HT0 has
 * instructions on generic counter 0 and 0x20cc on counter 2 from earlier
 * passes; a corrupting event joins, gpmax halves, and the greedy puts
 * 0x20cc on cntr0, 0x81d0 on cntr1, instructions on fixed counter 0. The
 * series releases cntr2, so HT1's corrupting event gets it; 7.3 leaves
 * it SHARED, and HT1's goes to cntr3.
 */
static void test_moved_released(void)
{
	static const u64 ht0[] = { 0x5300c0, 0x5320cc, 0x5381d0 };
	static const u64 ht1[] = { 0x5301d1 };
	struct sim_thread *t0;
	int base, n, idx1;
	u64 shared;
	struct sim *s;

	for (base = 0; base < 2; base++) {
		s = setup("hsw", SIM_GREEDY);
		s->nr_threads = 2;
		s->base = base;
		codes(s, 0, ht0, 3);
		codes(s, 1, ht1, 1);
		sim_reset(s);
		t0 = &s->t[0];
		t0->ev[0].idx = 0;
		t0->ev[1].idx = 2;
		n = sim_pass(s, 0);
		shared = t0->xsu_shared;
		sim_pass(s, 1);
		idx1 = s->t[1].ev[0].active ? s->t[1].ev[0].idx : -1;
		if (base)
			result(n == 3 && t0->ev[0].idx == INTEL_PMC_IDX_FIXED &&
			       t0->ev[1].idx == 0 && t0->ev[2].idx == 1 &&
			       shared == (0x5 | BIT_ULL(INTEL_PMC_IDX_FIXED)) &&
			       t0->xsu_excl == 0x2 && idx1 == 3 && s->stale == 1,
			       "sim: moved counter, 7.3 (-P): cntr2 stays SHARED after 0x20cc moved off it, HT1's corrupting event on cntr3 (%d)",
			       idx1);
		else
			result(n == 3 && t0->ev[0].idx == INTEL_PMC_IDX_FIXED &&
			       t0->ev[1].idx == 0 && t0->ev[2].idx == 1 &&
			       shared == (0x1 | BIT_ULL(INTEL_PMC_IDX_FIXED)) &&
			       t0->xsu_excl == 0x2 && idx1 == 2 && !s->stale,
			       "sim: moved counter, series: cntr2 released after 0x20cc moved off it, HT1's corrupting event on cntr2 (%d)",
			       idx1);
	}
}

/*
 * The fast path under the half rule (hsw, gpmax 2 with a corrupting
 * event): events whose previous counters are 3, 2 and 1, the first one
 * corrupting, do not all come back in the series (KUnit
 * snb_ht_fast_path_gpmax), in 7.3 they do; a fixed counter does not
 * count: 3, 2 and fixed counter 0 come back in both.
 */
static void test_fast_path(void)
{
	static const u64 three[] = { 0x5381d0, 0x5320cc, 0x5320cc };
	static const u64 fixed[] = { 0x5381d0, 0x5320cc, 0x5300c0 };
	static const int prev3[] = { 3, 2, 1 };
	static const int prevf[] = { 3, 2, INTEL_PMC_IDX_FIXED };
	int base, n[2], e;
	bool kept;
	struct sim *s;

	for (base = 0; base < 2; base++) {
		s = setup("hsw", SIM_GREEDY);
		s->base = base;
		codes(s, 0, three, 3);
		sim_reset(s);
		for (e = 0; e < 3; e++)
			s->t[0].ev[e].idx = prev3[e];
		n[0] = sim_pass(s, 0);
		result(base ? n[0] == 3 && s->fast_over == 1 :
			      n[0] == 2 && !s->fast_over,
		       "sim: fast path, %s: previous counters 3, 2, 1 under gpmax 2: %d scheduled, %ld fast paths over gpmax",
		       base ? "7.3 (-P)" : "series", n[0], s->fast_over);

		codes(s, 0, fixed, 3);
		sim_reset(s);
		for (e = 0; e < 3; e++)
			s->t[0].ev[e].idx = prevf[e];
		n[1] = sim_pass(s, 0);
		kept = true;
		for (e = 0; e < 3; e++)
			kept &= s->t[0].ev[e].idx == prevf[e];
		result(n[1] == 3 && kept && !s->fast_over,
		       "sim: fast path, %s: previous counters 3, 2 and fixed 0 under gpmax 2 all kept",
		       base ? "7.3 (-P)" : "series");
	}
}

/* Sibling threads on hsw: @n0 events @ht0 on HT0, @n1 @ht1 on HT1 */
static struct sim *siblings(int algo, bool base, const u64 *ht0, int n0,
			    const u64 *ht1, int n1)
{
	struct sim *s = setup("hsw", algo);

	s->nr_threads = 2;
	s->base = base;
	codes(s, 0, ht0, n0);
	codes(s, 1, ht1, n1);
	sim_reset(s);
	return s;
}

/*
 * Thesis ch. 8 (Fig. 8.4), as the series' KUnit xsu_fairness_ch8: HT0's
 * four corrupting events ran on the four counters while the workaround
 * was off (tick 0), HT1 has one other event; the workaround is switched
 * on at tick 1. 7.3's fast path gives HT0 all four counters back and
 * HT1 never runs again; the series' keeps to gpmax: HT1 runs all 840
 * ticks after the switch, HT0's events 420 each.
 */
static void test_ch8(void)
{
	static const u64 ht0[] = { 0x5381d0, 0x5301d1, 0x5302d1, 0x5308d1 };
	static const u64 ht1[] = { 0x5320cc };
	long want0, want1, runs0[4];
	int a, base, e;
	struct sim *s;
	bool ok;

	for (base = 0; base < 2; base++) {
		for (a = 0; a < SIM_NR_ALGOS; a++) {
			s = siblings(a, base, ht0, 4, ht1, 1);
			s->switch_on = 1;
			sim_run(s, 841);
			/* tick 0, workaround off: everything, HT1 corrupted */
			want0 = base ? 841 : 1 + 420;
			want1 = base ? 1 : 841;
			ok = s->t[1].ev[0].runs == want1 &&
			     s->corrupted == 1 && !s->stale &&
			     s->over_half == (base ? 840 : 0) &&
			     s->fast_over == (base ? 2 : 0);
			for (e = 0; e < 4; e++) {
				runs0[e] = s->t[0].ev[e].runs;
				ok &= runs0[e] == want0;
			}
			result(ok,
			       "sim: thesis ch. 8 after the switch, %s, %s: HT1 %ld of 841 ticks, HT0 %ld/%ld/%ld/%ld",
			       base ? "7.3 (-P)" : "series", a ? "matcher" : "greedy",
			       s->t[1].ev[0].runs, runs0[0], runs0[1], runs0[2],
			       runs0[3]);
		}
	}
}

/*
 * The gap, as the series' KUnit xsu_fairness_no_gap: HT0's four other
 * events take the four counters first, HT1's corrupting event finds none.
 * 7.3 never runs it; in the series HT1 starves at tick 0 and asks HT0 for
 * a pass, which HT0 runs at the start of tick 1 under the half rule: the
 * corrupting event runs from tick 1 on, HT0's four events half the time.
 */
static void test_no_gap(void)
{
	static const u64 ht0[] = { 0x5320cc, 0x530024, 0x530104, 0x530084 };
	static const u64 ht1[] = { 0x5381d0 };
	int a, base, e;
	long runs0;
	struct sim *s;
	bool ok;

	for (base = 0; base < 2; base++) {
		for (a = 0; a < SIM_NR_ALGOS; a++) {
			s = siblings(a, base, ht0, 4, ht1, 1);
			sim_run(s, 1000);
			runs0 = 0;
			for (e = 0; e < 4; e++)
				runs0 += s->t[0].ev[e].runs;
			ok = s->t[1].ev[0].runs == (base ? 0 : 999) &&
			     !s->corrupted &&
			     runs0 == (base ? 4000 : 4 + 2 * 999);
			result(ok,
			       "sim: the gap, %s, %s: HT1's 0x81d0 %ld of 1000 ticks, HT0's four %ld event-ticks",
			       base ? "7.3 (-P)" : "series", a ? "matcher" : "greedy",
			       s->t[1].ev[0].runs, runs0);
		}
	}
}

/*
 * The XSU invariant over random sibling lists, and its breach by 7.3's
 * put; in the series no fast path over gpmax and no stale state, in 7.3
 * both.
 */
static void test_xsu_invariant(void)
{
	struct sim_tally tl;
	struct sim *s;
	int half, base;
	long bad, fast, stale;

	for (base = 0; base < 2; base++) {
		for (half = 0; half < 2; half++) {
			s = setup("hsw", SIM_GREEDY);
			s->half = half;
			s->base = base;
			sim_eval_xsu(s, 6, 50, 1000, 0x7873750a + half, &tl);
			bad = tl.corrupted[SIM_GREEDY] + tl.corrupted[SIM_MATCHER];
			fast = tl.fast_over[SIM_GREEDY] + tl.fast_over[SIM_MATCHER];
			stale = tl.stale[SIM_GREEDY] + tl.stale[SIM_MATCHER];
			if (base)
				result(bad > 0 && stale > 0 && (fast > 0) == half,
				       "sim: xsu, 7.3 (-P), %s half rule: 1000 sibling lists corrupt %ld event-ticks; %ld fast paths over gpmax, %ld stale states",
				       half ? "with" : "without", bad, fast, stale);
			else
				result(!bad && !fast && !stale,
				       "sim: xsu, series, %s half rule: 1000 sibling lists x 50 ticks x both algorithms, nothing corrupted, no fast path over gpmax, no stale state (%ld, %ld, %ld)",
				       half ? "with" : "without", bad, fast, stale);
		}
	}
}

/* The thesis's pseudocode of today's greedy (ch. 3.2), for one window. */
static bool thesis_greedy(const u64 *mask, int n)
{
	u64 used = 0, free;
	int w, e;

	for (w = 1; w <= INTEL_PMC_IDX_FIXED; w++) {
		for (e = 0; e < n; e++) {
			if (hweight64(mask[e]) != w)
				continue;
			free = mask[e] & ~used;
			if (!free)
				return false;
			used |= free & -free;
		}
	}
	return true;
}

/* The most of the @n events some valid assignment places. By search. */
static int most(const u64 *mask, int n, int nr_gp)
{
	struct assign_test t;
	int e;

	for (e = 0; e < n; e++)
		assign_test_event(&t, e, mask[e], 0);
	t.n = n;
	t.gpmax = nr_gp;
	return assign_test_search(&t);
}

/*
 * sim_eval_exhaustive() for @k events on @nr_gp counters against a count
 * that shares no code with it: growing windows of the thesis's greedy
 * and of a brute-force search; and with -V (k <= 2 * nr_gp, so the
 * series passes the whole list down), 7.3 as the thesis's greedy's
 * windows against the most a search places of the whole list: going on
 * past failures, the matcher keeps every event that fits with those
 * already placed, a greedy basis of the transversal matroid, whose size
 * is the most.
 */
static void exhaustive_cross(int k, int nr_gp)
{
	long full[2] = { 0 }, placed[2] = { 0 }, better = 0, worse = 0;
	long full_vs = 0, placed_vs = 0, better_vs = 0;
	int nr_masks = (1 << nr_gp) - 1, e, w, got[2], rank;
	long code, total = 1, g;
	struct sim_tally tl;
	struct sim *s;
	char name[8];
	u64 mask[8];

	for (e = 0; e < k; e++)
		total *= nr_masks;
	for (code = 0; code < total; code++) {
		for (e = 0, g = code; e < k; e++, g /= nr_masks)
			mask[e] = g % nr_masks + 1;
		for (w = 1; w <= k && thesis_greedy(mask, w); w++)
			;
		got[0] = w - 1;
		for (w = 1; w <= k && most(mask, w, nr_gp) == w; w++)
			;
		got[1] = w - 1;
		full[0] += got[0] == k;
		full[1] += got[1] == k;
		placed[0] += got[0];
		placed[1] += got[1];
		better += got[1] > got[0];
		worse += got[1] < got[0];
		rank = most(mask, k, nr_gp);
		full_vs += rank == k;
		placed_vs += rank;
		better_vs += rank > got[0];
	}

	snprintf(name, sizeof(name), "gp%d", nr_gp);
	sim_eval_exhaustive(setup(name, SIM_GREEDY), k, 0, &tl);
	result(tl.instances == total && tl.full[0] == full[0] &&
	       tl.full[1] == full[1] && tl.placed[0] == placed[0] &&
	       tl.placed[1] == placed[1] && tl.better == better &&
	       tl.worse == worse,
	       "sim: exhaustive K=%d N=%d: %ld instances, full %ld/%ld, better %ld, as counted independently (%ld/%ld, %ld)",
	       k, nr_gp, tl.instances, tl.full[0], tl.full[1], tl.better,
	       full[0], full[1], better);

	s = setup(name, SIM_GREEDY);
	s->versus = true;
	sim_eval_exhaustive(s, k, 0, &tl);
	result(tl.instances == total && tl.full[SIM_73] == full[0] &&
	       tl.placed[SIM_73] == placed[0] &&
	       tl.full[SIM_SERIES] == full_vs &&
	       tl.placed[SIM_SERIES] == placed_vs &&
	       tl.better == better_vs && !tl.worse,
	       "sim: -V exhaustive K=%d N=%d: 7.3 places %ld, the series %ld (most of each list), series more in %ld, fewer in 0, as counted independently (%ld, %ld, %ld)",
	       k, nr_gp, tl.placed[SIM_73], tl.placed[SIM_SERIES], tl.better,
	       placed[0], placed_vs, better_vs);
}

static void test_exhaustive(void)
{
	struct sim_tally tl;

	/* two counters: weight order makes the greedy exact; 7 of 9 fit */
	sim_eval_exhaustive(setup("gp2", SIM_GREEDY), 2, 0, &tl);
	result(tl.instances == 9 && tl.full[0] == 7 && tl.full[1] == 7 &&
	       tl.placed[0] == 16 && tl.placed[1] == 16 && !tl.better,
	       "sim: exhaustive K=N=2 by hand: 9 instances, 7 fit for both, 16 events each");
	exhaustive_cross(3, 3);
	exhaustive_cross(5, 3);
	exhaustive_cross(4, 4);
}

/*
 * Going on past failing windows, the matcher's events are a greedy
 * basis of a (transversal) matroid: it never places fewer in a pass.
 * With uniform masks it must place more somewhere; the SKL and ICL
 * tables nest their masks, where the greedy is exact as well.
 */
static void test_matroid(void)
{
	static const struct {
		const char	*pmu;
		int		k;
		bool		table;
	} runs[] = {
		{ "gp4", 8, false }, { "skl", 16, true }, { "icl", 16, true },
	};
	struct sim_tally tl;
	struct sim *s;
	int i;

	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		s = setup(runs[i].pmu, SIM_GREEDY);
		s->limit = 2 * pmu.nr_gp;
		sim_eval_random(s, runs[i].k, runs[i].table, 0, 20000, 0x6d6174 + i, &tl);
		result(!tl.worse && (runs[i].table || tl.better),
		       "sim: %s, %d events, -k %d: matcher never schedules fewer than greedy (%ld more, %ld fewer of %ld)",
		       runs[i].pmu, runs[i].k, s->limit, tl.better, tl.worse,
		       tl.instances);
	}
}

/*
 * -V, 7.3 against the series, on cases known by hand. The thesis's
 * masks (ch. 7.2) on 4 counters: 7.3's greedy places 3 of 4 in one pass
 * (rotation: 75% each), the series' matcher all 4 (the greedy would
 * place 3 there too, past failures or not). 0x1, 0x1, 0x2 on 2 counters:
 * 7.3 stops at the second event, 1 placed, {A} {B,C} {C,A} per 3 ticks
 * (5 of 9); the series goes on, 2 placed, {A,C} {B,C} {C,A} (6 of 9).
 * Swapped sides fail both; a series with the greedy fails the first, one
 * that stops at the failure (or a 7.3 that goes on) the second.
 */
static void test_versus(void)
{
	static const u64 thesis[] = { 0x6, 0x8, 0x9, 0xb }, two[] = { 0x1, 0x1, 0x2 };
	const double rounding = 1.0 / (1 << 30);
	struct sim_tally tl;
	struct sim *s;

	s = setup("gp4", SIM_MATCHER);
	s->versus = true;
	masks(s, 0, thesis, 4);
	memset(&tl, 0, sizeof(tl));
	sim_eval(s, 12, &tl);
	result(tl.placed[SIM_73] == 3 && tl.placed[SIM_SERIES] == 4 &&
	       !tl.full[SIM_73] && tl.full[SIM_SERIES] == 1 &&
	       tl.better == 1 && !tl.worse &&
	       tl.share[SIM_73] == 0.75 && tl.share[SIM_SERIES] == 1.0 &&
	       tl.share_better == 1 && !s->limit && !s->base,
	       "sim: -V, thesis 7.2 masks 0x6,0x8,0x9,0xb on gp4: 7.3 places 3 in one pass (%ld), 75%% each; the series all 4 (%ld), 100%%",
	       tl.placed[SIM_73], tl.placed[SIM_SERIES]);

	s = setup("gp2", SIM_GREEDY);
	s->versus = true;
	masks(s, 0, two, 3);
	memset(&tl, 0, sizeof(tl));
	sim_eval(s, 9, &tl);
	result(tl.placed[SIM_73] == 1 && tl.placed[SIM_SERIES] == 2 &&
	       tl.better == 1 && !tl.worse &&
	       fabs(tl.share[SIM_73] - 5.0 / 9) < rounding &&
	       fabs(tl.share[SIM_SERIES] - 6.0 / 9) < rounding,
	       "sim: -V, 0x1,0x1,0x2 on gp2: 7.3 stops at the failure, 1 placed, 5/9 of 9 ticks; the series goes on, 2 placed, 6/9 (%ld, %ld, %.4f, %.4f)",
	       tl.placed[SIM_73], tl.placed[SIM_SERIES], tl.share[SIM_73],
	       tl.share[SIM_SERIES]);
}

/*
 * -V is the two ordinary runs it stands for, side by side: 7.3 the
 * greedy column of a run with -P and no -k, the series the matcher
 * column of one with -k 0 (hsw -T, where the half rule and both XSU
 * protocols act); and on sibling lists 7.3's side corrupts and leaves
 * stale states, the series' does neither.
 */
static void test_versus_sides(void)
{
	struct sim_tally vs, g, m;
	struct sim *s;
	bool same;
	int a;

	s = setup("hsw", SIM_GREEDY);
	s->base = true;
	sim_eval_random(s, 8, true, 12, 2000, 0x7673, &g);
	s = setup("hsw", SIM_GREEDY);
	s->limit = 2 * pmu.nr_gp;
	sim_eval_random(s, 8, true, 12, 2000, 0x7673, &m);
	s = setup("hsw", SIM_GREEDY);
	s->versus = true;
	sim_eval_random(s, 8, true, 12, 2000, 0x7673, &vs);
	same = true;
	for (a = 0; a < SIM_NR_ALGOS; a++) {
		const struct sim_tally *t = a == SIM_73 ? &g : &m;

		same &= vs.placed[a] == t->placed[a] && vs.full[a] == t->full[a] &&
			vs.share[a] == t->share[a] &&
			vs.over_half[a] == t->over_half[a] &&
			vs.fast_over[a] == t->fast_over[a];
	}
	result(same && vs.placed[SIM_73] < vs.placed[SIM_SERIES] && !vs.worse,
	       "sim: -V on hsw -T, 8 events: 7.3 = greedy -P, series = matcher -k 0 (placed %ld/%ld, mean scaling %.2f%%/%.2f%%)",
	       vs.placed[SIM_73], vs.placed[SIM_SERIES],
	       100 * vs.share[SIM_73] / vs.instances,
	       100 * vs.share[SIM_SERIES] / vs.instances);

	s = setup("hsw", SIM_GREEDY);
	s->versus = true;
	sim_eval_xsu(s, 6, 50, 1000, 0x7873750a, &vs);
	result(vs.corrupted[SIM_73] > 0 && vs.stale[SIM_73] > 0 &&
	       !vs.corrupted[SIM_SERIES] && !vs.stale[SIM_SERIES] &&
	       !vs.fast_over[SIM_SERIES],
	       "sim: -V, 1000 sibling lists on hsw: 7.3's side corrupts %ld event-ticks and leaves %ld stale states, the series' none (%ld, %ld)",
	       vs.corrupted[SIM_73], vs.stale[SIM_73],
	       vs.corrupted[SIM_SERIES], vs.stale[SIM_SERIES]);
}

/* Rates, perf's scaling and the rate-of-change cost. */
static void test_rates(void)
{
	static const u64 one[] = { 0x1, 0x1 }, four[] = { 0xf, 0xf, 0xf, 0xf, 0xf, 0xf };
	struct sim_event ev = { .nr_obs = 3, .last_run = 5,
				.obs_x = { 1, 2, 3 }, .obs_y = { 10, 20, 40 } };
	struct sim *s;
	const struct sim_event *got;
	double err = 0;
	int p, e;

	/* B lies 5 below AC: cost 5 / 2 per tick since it ran */
	result(sim_roc_cost(&ev, 7) == 5.0,
	       "sim: rate-of-change cost of (1,10) (2,20) (3,40), two ticks after: %g",
	       sim_roc_cost(&ev, 7));
	ev.nr_obs = 2;
	result(isinf(sim_roc_cost(&ev, 7)),
	       "sim: rate-of-change cost before three observations: highest");

	/* constant rates: both estimates are exact under every policy */
	for (p = SIM_RR; p < SIM_NR_POLICIES; p++) {
		s = setup("gp4", SIM_GREEDY);
		s->policy = p;
		masks(s, 0, four, 6);
		for (e = 0; e < 6; e++)
			s->t[0].ev[e].rate.lo = 100 * (e + 1);
		sim_reset(s);
		sim_run(s, 997);
		for (e = 0; e < 6; e++) {
			got = &s->t[0].ev[e];
			err += fabs(sim_estimate(got, 997, SIM_SCALED) / got->truth - 1) +
			       fabs(sim_estimate(got, 997, SIM_INTERP) / got->truth - 1);
		}
	}
	result(!err,
	       "sim: constant rates, 6 events on 4 counters: scaled and interpolated counts exact, every policy");

	/* 0 and 10 on alternate ticks, seen only on the 0 ticks: -100% */
	s = setup("gp1", SIM_GREEDY);
	masks(s, 0, one, 2);
	s->t[0].ev[0].rate = (struct sim_rate) { .lo = 0, .hi = 10, .period = 1 };
	sim_reset(s);
	sim_run(s, 100);
	result(s->t[0].ev[0].runs == 50 && !s->t[0].ev[0].count &&
	       s->t[0].ev[0].truth == 500,
	       "sim: round-robin aliasing: a 0/10 square wave sampled on its 0 ticks counts 0 of 500");
}

/* Run @cmd; its output into @out. Returns the exit status. */
static int run(const char *cmd, char *out, size_t size)
{
	size_t len = 0, got;
	FILE *f = popen(cmd, "r");
	int status;

	if (!f)
		return -1;
	while (len + 1 < size && (got = fread(out + len, 1, size - 1 - len, f)))
		len += got;
	out[len] = 0;
	status = pclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The command line, end to end. */
static void test_cli(const char *sched_sim)
{
	static char out[1 << 16];
	char cmd[512], line[128];
	struct sim_tally tl;
	struct sim *s;
	int rc;

	if (!sched_sim) {
		result(true, "sim: sched_sim command line # SKIP no -s");
		return;
	}

	snprintf(cmd, sizeof(cmd), "%s -n 1000 -e 0x5307f1,0x1570148,0x85308a3", sched_sim);
	rc = run(cmd, out, sizeof(out));
	result(!rc && strstr(out, "scheduled 2 out of 3 events\n") &&
	       strstr(out, "1 +  66.70% cntr0    0x5307f1 (constraint=0xf)\n") &&
	       strstr(out, "2 +  66.70% cntr2    0x1570148 (constraint=0x4)\n") &&
	       strstr(out, "3 -  33.30% cntr2    0x85308a3 (constraint=0x4)\n"),
	       "sim: sched_sim -n 1000 -e <the thesis's three codes>: the thesis's lines");

	if (sim_have_names()) {
		snprintf(cmd, sizeof(cmd),
			 "%s -n 1000 -e l2_lines_in:any,l1d_pend_miss:occurrences,cycle_activity:stalls_l1d_pending",
			 sched_sim);
		rc = run(cmd, out, sizeof(out));
		result(!rc && strstr(out, "(code=0x5307f1, constraint=0xf)") &&
		       strstr(out, "(code=0x1570148, constraint=0x4)") &&
		       strstr(out, "3 -  33.30% cntr2    cycle_activity:stalls_l1d_pending"),
		       "sim: sched_sim with libpfm4 names: thesis codes and constraints, 33.30%%");
	} else {
		result(true, "sim: sched_sim event names # SKIP built without libpfm4-dev");
	}

	snprintf(cmd, sizeof(cmd), "%s -m exhaustive -p gp3 -K 3", sched_sim);
	rc = run(cmd, out, sizeof(out));
	sim_eval_exhaustive(setup("gp3", SIM_GREEDY), 3, 12, &tl);
	snprintf(line, sizeof(line), "scheduled fully in one pass        %10ld  %10ld\n",
		 tl.full[0], tl.full[1]);
	result(!rc && strstr(out, line),
	       "sim: sched_sim -m exhaustive -p gp3 -K 3 prints the engine's counts");

	/* thesis ch. 8 after the switch: the series by default, 7.3 with -P */
	snprintf(cmd, sizeof(cmd), "%s -S 1 -n 841 -e r81d0,r01d1,r02d1,r08d1 -e r20cc",
		 sched_sim);
	rc = run(cmd, out, sizeof(out));
	result(!rc && strstr(out, "HT1 mean scaling factor : 100.00%\n") &&
	       strstr(out, "XSU protocol : the series'\n"),
	       "sim: sched_sim -S 1 (thesis ch. 8): HT1 100.00%% in the series' protocol");
	snprintf(cmd, sizeof(cmd), "%s -P -S 1 -n 841 -e r81d0,r01d1,r02d1,r08d1 -e r20cc",
		 sched_sim);
	rc = run(cmd, out, sizeof(out));
	result(!rc && strstr(out, "HT1 mean scaling factor : 0.12%\n") &&
	       strstr(out, "fast-path windows over gpmax : 2\n"),
	       "sim: sched_sim -P -S 1 (thesis ch. 8): HT1 0.12%%, 7.3's fast path over gpmax");

	snprintf(cmd, sizeof(cmd), "%s -V -m exhaustive -p gp3 -K 3", sched_sim);
	rc = run(cmd, out, sizeof(out));
	s = setup("gp3", SIM_GREEDY);
	s->versus = true;
	sim_eval_exhaustive(s, 3, 12, &tl);
	snprintf(line, sizeof(line),
		 "series schedules more events in one pass: %ld (%.2f%%), fewer: 0\n",
		 tl.better, 100.0 * tl.better / tl.instances);
	result(!rc && !tl.worse && strstr(out, line) &&
	       strstr(out, "                                          7.3      series\n") &&
	       strstr(out, "at most 6 events per pass\n"),
	       "sim: sched_sim -V -m exhaustive -p gp3 -K 3: 7.3 and series columns, the engine's counts, the bound 2N = 6");
	snprintf(cmd, sizeof(cmd), "%s -V -P -m random -p gp4 2>/dev/null", sched_sim);
	rc = run(cmd, out, sizeof(out));
	snprintf(cmd, sizeof(cmd), "%s -V -m rates -p gp4 2>/dev/null", sched_sim);
	result(rc == 2 && run(cmd, out, sizeof(out)) == 2,
	       "sim: sched_sim rejects -V with -P and with -m rates");

	snprintf(cmd, sizeof(cmd), "%s -m rates -p gp4 -K 6 -n 100 -c 10 -W const -E",
		 sched_sim);
	rc = run(cmd, out, sizeof(out));
	result(!rc && strstr(out, "against separate single-event runs:\n") &&
	       strstr(out, "  roc-paper         0.000000   0.000000\n"),
	       "sim: sched_sim -m rates -W const -E: every policy, both estimates exact");
	snprintf(cmd, sizeof(cmd), "%s -m rates -p gp4 -W phase:51 2>/dev/null",
		 sched_sim);
	rc = run(cmd, out, sizeof(out));
	result(rc == 2, "sim: sched_sim rejects more than 50%% noise (exit %d)", rc);

	snprintf(cmd, sizeof(cmd), "%s -p nosuch -e 0x3c 2>/dev/null", sched_sim);
	rc = run(cmd, out, sizeof(out));
	result(rc == 2, "sim: sched_sim rejects an unknown PMU (exit %d)", rc);
}

/*
 * The paper's cost by hand: samples at 1, 2, 3 ms (ticks 0-2), delta_t in
 * ns, C_ABD + C_BCD; and its interpolation of the ticks an event did not
 * run.
 */
static void test_roc_paper(void)
{
	static const u64 one[] = { 0x1, 0x1 };
	struct sim_event ev = { .nr_obs = 3, .last_run = 2,
				.obs_x = { 1, 2, 3 }, .obs_t = { 0, 1, 2 },
				.obs_y = { 1000, 2000, 3000 } };
	struct sim_event *e1, *e2;
	struct sim *s;

	/* on a line: 0 exactly; the slope 2000 / 2e6 truncates to 0 in ns */
	result(!sim_roc_cost(&ev, 3) && !sim_roc_cost(&ev, 9) &&
	       sim_roc_paper_cost(&ev, 3) == 2 * 500 * 1e6 &&
	       sim_roc_paper_cost(&ev, 9) == 2 * 500 * 7e6,
	       "sim: three samples on a line, 1 and 7 ticks after: rate-of-change 0 and 0, roc-paper %g and %g",
	       sim_roc_paper_cost(&ev, 3), sim_roc_paper_cost(&ev, 9));
	/* 5e6 per ms is 5 per ns: the paper's slope is exact, B on AC */
	ev.obs_y[0] = 0;
	ev.obs_y[1] = 5e6;
	ev.obs_y[2] = 1e7;
	result(!sim_roc_paper_cost(&ev, 9),
	       "sim: roc-paper cost of samples on a line at 5 counts per ns: 0");
	ev.nr_obs = 2;
	result(isinf(sim_roc_paper_cost(&ev, 9)),
	       "sim: roc-paper cost before three observations: highest");

	/*
	 * One counter, two events alternating; e1 ramps 0, 10, ..., 90 over
	 * ticks 0-9 (true 450) and runs on the even ticks: 0 + 20 + ... + 80
	 * = 200, scaled 400; interpolated (0+20)/2 + (20+40)/2 + ... + 80
	 * after its last tick = 440. e2 runs the odd ticks of 10 to 90 (250):
	 * scaled 500, interpolated 10 before its first tick + 450 = 460.
	 */
	s = setup("gp1", SIM_GREEDY);
	masks(s, 0, one, 2);
	e1 = &s->t[0].ev[0];
	e2 = &s->t[0].ev[1];
	e1->rate = (struct sim_rate) { .nr_phases = 1,
				       .phase = { { .len = 10, .to = 100 } } };
	e2->rate = e1->rate;
	sim_reset(s);
	sim_run(s, 10);
	result(e1->truth == 450 && sim_estimate(e1, 10, SIM_SCALED) == 400 &&
	       sim_estimate(e1, 10, SIM_INTERP) == 440 &&
	       sim_estimate(e2, 10, SIM_SCALED) == 500 &&
	       sim_estimate(e2, 10, SIM_INTERP) == 460,
	       "sim: a ramp seen on alternate ticks: scaled 400 and 500, interpolated %g and %g of 450",
	       sim_estimate(e1, 10, SIM_INTERP), sim_estimate(e2, 10, SIM_INTERP));
}

/* The phase workload: seeded, within its bounds, noise drawn per run. */
static void test_phases(void)
{
	static const u64 one[] = { 0x1 };
	struct sim_rate r, again;
	double count[2][2];
	bool bounds = true;
	int i, noise, run;
	long level;
	struct sim *s;

	sim_rate_phases(&r, 42, 50, 10);
	sim_rate_phases(&again, 42, 50, 10);
	level = r.phase[0].from;
	for (i = 0; i < SIM_PHASES; i++) {
		bounds &= r.phase[i].len >= 1 && r.phase[i].len <= 50 &&
			  r.phase[i].to >= 100 && r.phase[i].to < 10100 &&
			  (r.phase[i].from == level ||
			   r.phase[i].from == r.phase[i].to);
		level = r.phase[i].to;
	}
	result(bounds && !memcmp(&r, &again, sizeof(r)),
	       "sim: phase workload of seed 42: the same twice, %d segments of 1-50 ticks, levels 100-10099, ramps from the level before",
	       SIM_PHASES);

	s = setup("gp1", SIM_GREEDY);
	masks(s, 0, one, 1);
	for (noise = 0; noise < 2; noise++) {
		for (run = 0; run < 2; run++) {
			sim_rate_phases(&s->t[0].ev[0].rate, 42, 50, 10 * noise);
			s->run = run;
			sim_reset(s);
			sim_run(s, 1000);
			count[noise][run] = s->t[0].ev[0].count;
		}
	}
	result(count[0][0] == count[0][1] && count[1][0] != count[1][1] &&
	       fabs(count[1][0] / count[0][0] - 1) < 0.1 &&
	       fabs(count[1][1] / count[0][0] - 1) < 0.1,
	       "sim: phase workload alone, 1000 ticks: %.0f in either run without noise; with 10%%, %.0f and %.0f",
	       count[0][0], count[1][0], count[1][1]);
}

/*
 * The least share of the ticks any event runs, over @count seeded sets
 * of 8 unconstrained events on 4 counters for @iters ticks under
 * @policy, of constants and square waves (mixed) or of phases.
 */
static double least_share(enum sim_policy policy, bool phases, int count,
			  long iters)
{
	static const u64 eight[] = { 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf };
	double least = 1;
	struct sim_rate *r;
	u64 state = 1;
	struct sim *s;
	int i, e;

	for (i = 0; i < count; i++) {
		s = setup("gp4", SIM_GREEDY);
		s->policy = policy;
		masks(s, 0, eight, 8);
		for (e = 0; e < 8; e++) {
			r = &s->t[0].ev[e].rate;
			if (phases) {
				sim_rate_phases(r, assign_test_rand(&state), 50, 0);
				continue;
			}
			r->lo = 100 + assign_test_below(&state, 10000);
			r->hi = 100 + assign_test_below(&state, 10000);
			if (assign_test_below(&state, 2))
				r->period = 1 + assign_test_below(&state, 50);
		}
		sim_reset(s);
		sim_run(s, iters);
		for (e = 0; e < 8; e++)
			least = min(least, (double)s->t[0].ev[e].runs / iters);
	}
	return least;
}

/*
 * Starvation. Rates are 100 to 10099 per tick: under roc-paper an event
 * that waits outranks one that just ran within about 101 ticks, so each
 * must run at least once in 200 ticks, 0.5%, of its fair 50%. Today's
 * rate-of-change starves an event whose last three samples lie on a line.
 */
static void test_starvation(void)
{
	double rr, roc, paper, phases;

	rr = least_share(SIM_RR, false, 200, 2000);
	roc = least_share(SIM_ROC, false, 200, 2000);
	paper = least_share(SIM_ROC_PAPER, false, 200, 2000);
	phases = least_share(SIM_ROC_PAPER, true, 200, 2000);
	result(paper >= 0.005 && phases >= 0.005,
	       "sim: no starvation under roc-paper, 200 sets of 8 events on gp4, 2000 ticks: every event runs at least 0.5%%: %.2f%% (constants and square waves), %.2f%% (phases)",
	       100 * paper, 100 * phases);
	result(rr == 0.5 && roc < 0.005,
	       "sim: the same sets: round-robin runs every event 50%%, rate-of-change starves one at %.2f%%",
	       100 * roc);
}

/*
 * The kernel's bound, -j J (PERF_FLEXIBLE_RETRY): at most J events past
 * the first failure. 0x1, 0x1, 0x1, 0x2 on two counters: the second
 * fails, the third fails too, the fourth fits but is the second event
 * past the failure.
 */
static void test_kernel_bound(void)
{
	static const u64 bound[] = { 0x1, 0x1, 0x1, 0x2 };
	struct sim *s = setup("gp2", SIM_GREEDY);
	int n[2];

	masks(s, 0, bound, 4);
	s->retry = 1;
	sim_reset(s);
	n[0] = sim_pass(s, 0);
	s->retry = 2;
	sim_reset(s);
	n[1] = sim_pass(s, 0);
	result(n[0] == 1 && n[1] == 2,
	       "sim: gp2, 0x1,0x1,0x1,0x2: -j 1 stops before the 0x2 (%d), -j 2 places it (%d)",
	       n[0], n[1]);
}

void sim_tests(const char *sched_sim)
{
	test_tables();
	test_thesis_single();
	test_by_hand();
	test_thesis_xsu();
	test_stale();
	test_moved_released();
	test_fast_path();
	test_ch8();
	test_no_gap();
	test_xsu_invariant();
	test_exhaustive();
	test_matroid();
	test_versus();
	test_versus_sides();
	test_rates();
	test_roc_paper();
	test_phases();
	test_starvation();
	test_cli(sched_sim);
	test_kernel_bound();
}
