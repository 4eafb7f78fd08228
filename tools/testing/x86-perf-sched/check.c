// SPDX-License-Identifier: GPL-2.0
/*
 * x86_assign_counters() (arch/x86/events/assign.c) against brute-force
 * oracles (arch/x86/events/assign_test.h), then the simulator's tests
 * (sim_test.c). TAP on stdout; the last line is "N passed, N failed";
 * exits non-zero on any failure.
 *
 * Every instance is run three ways: without prev[], with assign NULL
 * (validation only), and with the random prev[] of the instance (in
 * place, as x86_schedule_events() does). Checked:
 *  - the return value is 0 exactly when the oracle places every event;
 *  - every assignment returned is valid;
 *  - without pairs and prev[], the return value is n minus the most
 *    events any valid assignment places, and as many events sit on
 *    fixed counters as any valid assignment of all events can put there;
 *  - validation returns what assignment returns.
 * Then the moves tests: one event added to running events on distinct
 * counters, no pairs, gpmax not filled: the matcher given prev[] moves
 * as few as any valid assignment, exhaustively; with pairs, gpmax filled
 * or two new events, how often and by how much it moves more is printed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#include "perf_event.h"
#include "assign_test.h"
#include "check.h"

#define RANDOM_INSTANCES	1000000
#define MOVES_INSTANCES		100000

struct tally {
	long	instances;
	long	failures;
	long	feasible;
	long	greedy_missed;
};

static int nr_passed, nr_failed;
static bool verbose;

void result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", nr_passed + nr_failed + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		nr_passed++;
	else
		nr_failed++;
}

static void dump(const struct assign_test *t, const char *why)
{
	int e;

	if (!verbose)
		return;
	printf("# %s: n=%d gpmax=%d:", why, t->n, t->gpmax);
	for (e = 0; e < t->n; e++)
		printf(" %#llx%s/%d", (unsigned long long)t->ec[e].idxmsk64,
		       assign_test_is_pair(t, e) ? "p" : "", t->prev[e]);
	printf("\n");
}

static int greedy(struct assign_test *t, int *assign)
{
	int e, wmin = X86_PMC_IDX_MAX, wmax = 0;

	for (e = 0; e < t->n; e++) {
		wmin = min(wmin, t->ec[e].weight);
		wmax = max(wmax, t->ec[e].weight);
	}
	return greedy_assign_events(t->c, t->n, wmin, wmax, t->gpmax, assign);
}

static int on_fixed(const struct assign_test *t, const int *assign)
{
	int e, nr = 0;

	for (e = 0; e < t->n; e++)
		nr += assign[e] >= INTEL_PMC_IDX_FIXED;
	return nr;
}

/* The most events of @t that can sit on fixed counters at once. */
static int max_fixed(const struct assign_test *t)
{
	u64 mask[ASSIGN_TEST_MAX];
	int e, m = 0;

	for (e = 0; e < t->n; e++) {
		if (t->ec[e].idxmsk64 & ASSIGN_TEST_FIXED)
			mask[m++] = t->ec[e].idxmsk64;
	}
	return assign_test_flow(mask, m, ASSIGN_TEST_FIXED, 0);
}

/*
 * Check @t; @best is what the oracle places, or -1 to ask it only when
 * the matcher fails (a valid assignment of all events proves itself).
 */
static void check(struct assign_test *t, int best, struct tally *tl)
{
	int assign[ASSIGN_TEST_MAX], inplace[ASSIGN_TEST_MAX];
	int ret, ret_null, ret_prev, e;
	bool pairs = false, bad = false, feasible;

	for (e = 0; e < t->n; e++) {
		pairs |= assign_test_is_pair(t, e);
		inplace[e] = t->prev[e];
	}

	ret = x86_assign_counters(t->c, t->n, t->gpmax, NULL, assign);
	ret_null = x86_assign_counters(t->c, t->n, t->gpmax, NULL, NULL);
	ret_prev = x86_assign_counters(t->c, t->n, t->gpmax, inplace, inplace);

	if (best < 0 && (ret || ret_prev))
		best = assign_test_max(t);
	if (best < 0)
		best = t->n;

	feasible = best == t->n;
	if (ret < 0 || ret > t->n || ret_null != ret)
		bad = true;
	if (!ret != feasible || !ret_prev != feasible)
		bad = true;
	if (!ret && !assign_test_valid(t, assign))
		bad = true;
	if (!ret_prev && !assign_test_valid(t, inplace))
		bad = true;
	if (!pairs && ret != t->n - best)
		bad = true;
	if (!pairs && !ret && on_fixed(t, assign) != max_fixed(t))
		bad = true;

	tl->instances++;
	if (feasible) {
		tl->feasible++;
		if (greedy(t, NULL))
			tl->greedy_missed++;
	}
	if (bad) {
		tl->failures++;
		dump(t, "FAIL");
	}
}

static void report(const char *what, struct tally *tl)
{
	result(!tl->failures,
	       "%s: %ld instances, %ld feasible, %ld failures (greedy misses %ld)",
	       what, tl->instances, tl->feasible, tl->failures,
	       tl->greedy_missed);
}

/*
 * Instance @code of the @n-event tuples over the four counters @bits: the
 * e-th base-15 digit of @code, plus one, selects the counters of event e.
 * Returns the events whose masks are window starts (counters 0-2), which
 * may be pair events.
 */
static u32 decode_tuple(struct assign_test *t, int n, int code,
			const u64 *bits)
{
	u32 startable = 0;
	int e, k, b;
	u64 mask;

	for (e = 0; e < n; e++, code /= 15) {
		k = code % 15 + 1;
		for (mask = 0, b = 0; b < 4; b++) {
			if (k & BIT(b))
				mask |= BIT_ULL(bits[b]);
		}
		assign_test_event(t, e, mask, 0);
		if (!(mask & ~GENMASK_ULL(2, 0)))
			startable |= BIT(e);
	}
	t->n = n;

	return startable;
}

/*
 * Every tuple of up to four non-empty masks over the four counters
 * @bits, for every gpmax from @gpmin to @gpmax; with @pairs, also every
 * choice of pair events among those whose masks are window starts of
 * the four counters. The oracle is the plain search, and
 * assign_test_max() must agree with it.
 */
static void exhaustive(const char *what, const u64 *bits, int gpmin,
		       int gpmax, bool pairs)
{
	struct assign_test t;
	struct tally tl = { 0 };
	long tuples = 0, oracle_bad = 0;
	u64 seed = 1;
	int n, e, g, code, total, flags, best;
	u32 pairmask;

	for (n = 1; n <= 4; n++) {
		for (total = 1, e = 0; e < n; e++)
			total *= 15;
		for (code = 0; code < total; code++) {
			u32 startable = decode_tuple(&t, n, code, bits);

			tuples++;

			for (pairmask = 0; pairmask < BIT(n); pairmask++) {
				if (pairmask & ~startable)
					continue;
				if (pairmask && !pairs)
					break;
				for (e = 0; e < n; e++) {
					flags = pairmask & BIT(e) ?
						PERF_X86_EVENT_PAIR : 0;
					t.ec[e].flags = flags;
					t.prev[e] = assign_test_below(&seed, 7) - 2;
					if (t.prev[e] >= 0 && t.prev[e] < 4)
						t.prev[e] = bits[t.prev[e]];
				}
				for (g = gpmin; g <= gpmax; g++) {
					t.gpmax = g;
					best = assign_test_search(&t);
					if (assign_test_max(&t) != best) {
						oracle_bad++;
						dump(&t, "ORACLE");
					}
					check(&t, best, &tl);
				}
			}
		}
	}

	report(what, &tl);
	result(!oracle_bad, "%s: %ld mask tuples, cut oracle agrees with search (%ld differ)",
	       what, tuples, oracle_bad);
}

/*
 * @count random instances from @seed, split over two processes; with
 * the two oracles compared on the smallest ones.
 */
static void random_run(u64 seed, long count)
{
	struct tally tl[2] = { 0 }, *mine;
	long oracle_bad[2] = { 0 }, i;
	struct assign_test t;
	int fd[2][2], w;
	pid_t pid[2];

	for (w = 0; w < 2; w++) {
		if (pipe(fd[w]))
			exit(2);
		pid[w] = fork();
		if (pid[w] < 0)
			exit(2);
		if (pid[w])
			continue;

		mine = &tl[w];
		for (i = w; i < count; i += 2) {
			u64 state = seed + i * 0x100000001b3ULL;

			assign_test_random(&t, &state, ASSIGN_TEST_MAX);
			check(&t, -1, mine);
			if (t.n <= 7 && assign_test_max(&t) != assign_test_search(&t)) {
				oracle_bad[w]++;
				dump(&t, "ORACLE");
			}
		}
		if (write(fd[w][1], mine, sizeof(*mine)) != sizeof(*mine) ||
		    write(fd[w][1], &oracle_bad[w], sizeof(long)) != sizeof(long))
			exit(2);
		exit(0);
	}

	for (w = 0; w < 2; w++) {
		if (read(fd[w][0], &tl[w], sizeof(tl[w])) != sizeof(tl[w]) ||
		    read(fd[w][0], &oracle_bad[w], sizeof(long)) != sizeof(long))
			tl[w].failures = 1;
		waitpid(pid[w], NULL, 0);
	}
	tl[0].instances += tl[1].instances;
	tl[0].failures += tl[1].failures;
	tl[0].feasible += tl[1].feasible;
	tl[0].greedy_missed += tl[1].greedy_missed;
	report("random", &tl[0]);
	result(!oracle_bad[0] && !oracle_bad[1],
	       "random: cut oracle agrees with search on instances of up to 7 events");
}

/*
 * One event added to events that hold valid counters, as x86_pmu_add()
 * does: when it fits, the matcher must move as few of them as any valid
 * assignment does.
 */
static void moves_run(u64 seed, long count)
{
	struct tally tl = { 0 };
	int assign[ASSIGN_TEST_MAX], e, ret, moved, fewest;
	struct assign_test t;
	long i, total = 0;
	bool fits;

	for (i = 0; i < count; i++) {
		u64 state = seed + i;

		assign_test_random(&t, &state, ASSIGN_TEST_MAX);
		for (e = 0; e < t.n; e++)
			t.ec[e].flags = 0;
		t.gpmax = hweight64(t.counters & ASSIGN_TEST_GP);
		if (t.n < 2 || x86_assign_counters(t.c, t.n - 1, t.gpmax, NULL, assign))
			continue;
		for (e = 0; e < t.n; e++) {
			t.prev[e] = e < t.n - 1 ? assign[e] : -1;
			assign[e] = t.prev[e];
		}

		tl.instances++;
		ret = x86_assign_counters(t.c, t.n, t.gpmax, assign, assign);
		fewest = assign_test_min_moves(&t);
		for (e = 0, moved = 0; e < t.n - 1; e++)
			moved += assign[e] != t.prev[e];
		if (fewest >= 0) {
			tl.feasible++;
			total += fewest;
		}
		fits = fewest >= 0;
		if (!ret != fits ||
		    (!ret && (!assign_test_valid(&t, assign) || moved != fewest))) {
			tl.failures++;
			dump(&t, "MOVES");
		}
	}

	result(!tl.failures,
	       "moves: %ld single additions, %ld fit, fewest moves every time (%ld in all), %ld failures",
	       tl.instances, tl.feasible, total, tl.failures);
}

/*
 * The moves claim of assign.c: when one event is added to running events
 * on distinct counters their masks allow, with no pair events and fewer
 * than gpmax running events on generic counters, the matcher given
 * prev[] moves as few of them as any valid assignment
 * (assign_test_min_moves()). Outside that scope it is measured: with
 * pairs, with the running events filling gpmax, with two new events.
 */
enum { IN_SCOPE, PAIRS, GPMAX_FILLED, TWO_NEW, NR_SCOPES };

struct moves {
	long	instances;
	long	fit;
	long	excess;	/* fitting instances that move more than the fewest */
	long	total;	/* events moved beyond the fewest, in all */
	int	max;
	long	failures;
};

static void moves_check(struct assign_test *t, int nr_new, int nr_gp,
			struct moves *mv)
{
	int assign[ASSIGN_TEST_MAX], e, ret, moved = 0, fewest, scope;
	bool pairs = false, fits;

	for (e = 0; e < t->n; e++) {
		assign[e] = t->prev[e];
		pairs |= assign_test_is_pair(t, e);
	}
	if (pairs)
		scope = PAIRS;
	else if (nr_gp >= t->gpmax)
		scope = GPMAX_FILLED;
	else
		scope = nr_new > 1 ? TWO_NEW : IN_SCOPE;
	mv += scope;

	ret = x86_assign_counters(t->c, t->n, t->gpmax, assign, assign);
	fewest = assign_test_min_moves(t);
	for (e = 0; e < t->n; e++)
		moved += t->prev[e] >= 0 && assign[e] != t->prev[e];

	fits = fewest >= 0;
	mv->instances++;
	if (!ret != fits || (!ret && !assign_test_valid(t, assign))) {
		mv->failures++;
		dump(t, "MOVES");
		return;
	}
	if (ret)
		return;
	mv->fit++;
	if (moved == fewest)
		return;
	mv->excess++;
	mv->total += moved - fewest;
	mv->max = max(mv->max, moved - fewest);
	if (scope == IN_SCOPE) {
		mv->failures++;
		dump(t, "MOVES");
	}
}

/*
 * Every assignment of events @e to @t->n - @nr_new - 1 as their prev[],
 * on top of @used, with @nr_gp of them on generic counters and at most
 * gpmax, the last @nr_new events new.
 */
static void moves_every_prev(struct assign_test *t, int e, int nr_new,
			     u64 used, int nr_gp, struct moves *mv)
{
	u64 m, bits;
	int idx, gp;

	if (e == t->n - nr_new) {
		for (; e < t->n; e++)
			t->prev[e] = -1;
		moves_check(t, nr_new, nr_gp, mv);
		return;
	}
	for (m = t->ec[e].idxmsk64; m; m &= m - 1) {
		idx = __ffs64(m);
		bits = BIT_ULL(idx);
		gp = idx < INTEL_PMC_IDX_FIXED;
		if (assign_test_is_pair(t, e))
			bits |= bits << 1;
		if ((used & bits) || nr_gp + gp > t->gpmax)
			continue;
		t->prev[e] = idx;
		moves_every_prev(t, e + 1, nr_new, used | bits, nr_gp + gp, mv);
	}
}

/*
 * Every tuple of up to four masks over the four counters @bits, with
 * @pairs every choice of pair events among those whose masks are window
 * starts, every gpmax from @gpmin to @gpmax, the last one or two events
 * new and the others on every valid assignment of themselves.
 */
static void moves_exhaustive(const char *what, const u64 *bits, int gpmin,
			     int gpmax, bool pairs)
{
	static const char * const scopes[] = {
		"in scope", "pairs", "gpmax filled", "two new events",
	};
	struct moves mv[NR_SCOPES] = { 0 };
	int n, e, g, code, total, nr_new, i;
	u32 startable, pairmask;
	struct assign_test t;

	for (n = 1; n <= 4; n++) {
		for (total = 1, e = 0; e < n; e++)
			total *= 15;
		for (code = 0; code < total; code++) {
			startable = decode_tuple(&t, n, code, bits);
			for (pairmask = 0; pairmask < BIT(n); pairmask++) {
				if (pairmask & ~startable)
					continue;
				if (pairmask && !pairs)
					break;
				for (e = 0; e < n; e++)
					t.ec[e].flags = pairmask & BIT(e) ?
							PERF_X86_EVENT_PAIR : 0;
				for (g = gpmin; g <= gpmax; g++) {
					t.gpmax = g;
					for (nr_new = 1; nr_new <= min(n, 2); nr_new++)
						moves_every_prev(&t, 0, nr_new, 0, 0, mv);
				}
			}
		}
	}

	result(!mv[IN_SCOPE].failures,
	       "moves, %s, in scope: %ld additions, %ld fit, fewest moves every time, %ld failures",
	       what, mv[IN_SCOPE].instances, mv[IN_SCOPE].fit,
	       mv[IN_SCOPE].failures);
	for (i = PAIRS; i < NR_SCOPES; i++) {
		if (!mv[i].fit)
			continue;
		result(!mv[i].failures,
		       "moves, %s, %s (measured): %ld additions, %ld fit, %ld of them (%.2f%%) move more than the fewest, %.3f more per fit, %.2f where more, at most %d; %ld failures",
		       what, scopes[i], mv[i].instances, mv[i].fit,
		       mv[i].excess, 100.0 * mv[i].excess / mv[i].fit,
		       (double)mv[i].total / mv[i].fit,
		       mv[i].excess ? (double)mv[i].total / mv[i].excess : 0.0,
		       mv[i].max, mv[i].failures);
	}
}

/*
 * AMD family 15h: every tuple of up to six of its constraints, one with
 * the overlap flag. The matcher never reads the flag and needs no
 * backtracking; the greedy needs the flag and still misses some.
 */
static void overlap_run(void)
{
	static const u64 masks[] = { 0x01, 0x07, 0x08, 0x09, 0x3f, 0x38 };
	int assign[6], assign_flat[6], n, e, code, total, g, best, ret;
	struct tally tl = { 0 };
	long flat_missed = 0, differ = 0;
	struct assign_test t, flat;

	for (n = 1; n <= 6; n++) {
		for (total = 1, e = 0; e < n; e++)
			total *= 6;
		for (code = 0; code < total; code++) {
			for (e = 0, g = code; e < n; e++, g /= 6)
				assign_test_event(&t, e, masks[g % 6], 0);
			t.n = n;
			t.gpmax = 6;
			flat = t;
			for (e = 0; e < n; e++) {
				t.ec[e].overlap = t.ec[e].idxmsk64 == 0x09;
				flat.c[e] = &flat.ec[e];
			}

			best = assign_test_search(&t);
			check(&t, best, &tl);
			if (best == n && greedy(&flat, NULL))
				flat_missed++;
			ret = x86_assign_counters(t.c, n, 6, NULL, assign);
			if (ret != x86_assign_counters(flat.c, n, 6, NULL, assign_flat) ||
			    (!ret && memcmp(assign, assign_flat, sizeof(int) * n)))
				differ++;
		}
	}

	report("AMD F15h constraints, up to 6 events", &tl);
	result(!differ,
	       "AMD F15h: matcher ignores the overlap flag; greedy misses %ld with it, %ld without",
	       tl.greedy_missed, flat_missed);
}

/* The instances of the thesis (Haswell, 4 generic counters). */
static void thesis_run(void)
{
	static const u64 xsu[] = { 0x6, 0x8, 0x9, 0xb }, l1d[] = { 0xf, 0x4, 0x4 };
	struct assign_test t;
	int e, assign[4], ret, ret_greedy;

	for (e = 0; e < 4; e++)
		assign_test_event(&t, e, xsu[e], 0);
	t.n = 4;
	t.gpmax = 4;
	ret = x86_assign_counters(t.c, 4, 4, NULL, assign);
	ret_greedy = greedy(&t, NULL);
	result(!ret && assign_test_valid(&t, assign) && ret_greedy,
	       "thesis 7.2: 0x6,0x8,0x9,0xb: matcher places all (%d,%d,%d,%d), greedy leaves %d",
	       assign[0], assign[1], assign[2], assign[3], ret_greedy);

	for (e = 0; e < 3; e++)
		assign_test_event(&t, e, l1d[e], 0);
	t.n = 3;
	ret = x86_assign_counters(t.c, 3, 4, NULL, NULL);
	result(ret == 1, "thesis 7.2: 0xf,0x4,0x4: one event left over (%d)", ret);
}

int main(int argc, char **argv)
{
	static const u64 gp4[] = { 0, 1, 2, 3 };
	static const u64 mixed[] = { 0, 1, INTEL_PMC_IDX_FIXED,
				     INTEL_PMC_IDX_METRIC_BASE };
	long count = RANDOM_INSTANCES;
	const char *sched_sim = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:v")) != -1) {
		switch (opt) {
		case 'n':
			count = atol(optarg);
			break;
		case 's':
			sched_sim = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-n random instances] [-s sched_sim] [-v]\n",
				argv[0]);
			return 2;
		}
	}

	printf("TAP version 13\n");
	thesis_run();
	exhaustive("exhaustive, 4 generic counters", gp4, 4, 4, false);
	exhaustive("exhaustive, 4 generic counters, gpmax 0-3", gp4, 0, 3, false);
	exhaustive("exhaustive, 4 generic counters, pairs, gpmax 1-4", gp4, 1, 4, true);
	exhaustive("exhaustive, 2 generic + fixed + metric, gpmax 0-2", mixed, 0, 2, false);
	overlap_run();
	random_run(0x5eedcb0e26a9ULL, count);
	moves_run(0x6d6f766573ULL, count / 10);
	moves_exhaustive("exhaustive, 4 generic counters, gpmax 1-4", gp4, 1, 4,
			 true);
	moves_exhaustive("exhaustive, 2 generic + fixed + metric, gpmax 0-2",
			 mixed, 0, 2, false);
	sim_tests(sched_sim);
	printf("1..%d\n", nr_passed + nr_failed);
	printf("%d passed, %d failed\n", nr_passed, nr_failed);

	return nr_failed ? 1 : 0;
}
