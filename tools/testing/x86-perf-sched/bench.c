// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of today's greedy perf_assign_events() (greedy.o, from BASE) and
 * of x86_assign_counters() (arch/x86/events/assign.c), called as
 * perf_assign_events() calls them, on the same constraint lists.
 *
 *   bench -c                   every case under callgrind: the Makefile
 *                              runs it with --toggle-collect on the
 *                              functions; each case ends in a dump
 *   bench -r DUMP -s CI -S CI -g TXT
 *                              the tables: instructions from the dumps,
 *                              ns per call timed here, stack usage from
 *                              the gcc call graphs, moved events
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include "perf_event.h"
#include "assign_test.h"

#define MAX_EVENTS	20
#define CG_CALLS	1000
#define NS_CALLS	20000
#define NS_ROUNDS	7

#define GP(n)		((1ULL << (n)) - 1)
#define FIXED(i)	(1ULL << (INTEL_PMC_IDX_FIXED + (i)))
#define METRIC(i)	(1ULL << (INTEL_PMC_IDX_METRIC_BASE + (i)))
#define PAIR		BIT_ULL(63)	/* in a case's mask: a pair event */
#define OVERLAP		BIT_ULL(62)	/* in a case's mask: overlap flag */

struct bench_case {
	char	group;
	char	name[64];
	int	n;
	int	gpmax;
	bool	prev;		/* the matcher gets prev[] as from the kernel */
	u64	mask[MAX_EVENTS];
};

static struct bench_case cases[96];
static int nr_cases;

/*
 * An older assign.c, if the Makefile linked one (make bench OLD=FILE):
 * a third column of instructions, the matcher against its old self.
 */
#pragma weak old_x86_assign_counters
int old_x86_assign_counters(struct event_constraint **constraints, int n,
			    int gpmax, const int *prev, int *assign);
static int nr_algos;

static struct bench_case *add(char group, const char *name, int gpmax)
{
	struct bench_case *c = &cases[nr_cases++];

	c->group = group;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->gpmax = gpmax;
	return c;
}

static void push(struct bench_case *c, u64 mask)
{
	c->mask[c->n++] = mask;
}

/*
 * (d) failing passes on the shapes of real PMUs: the window of the
 * generic layer that is one event too many, so x86_schedule_events()
 * fails. Each twice: as perf_assign_events() and the validation call it
 * (no prev[]), and as x86_schedule_events() calls the matcher for a new
 * event, with prev[] the counters the matcher gave the window before it
 * (the greedy has no prev[]; it starts from scratch either way).
 */
static void failing_case(const char *name, int gpmax, const u64 *mask,
			 int n)
{
	struct bench_case *c;
	char buf[64];
	int p, i;

	for (p = 0; p < 2; p++) {
		snprintf(buf, sizeof(buf), "%s%s", name, p ? ", prev[]" : "");
		c = add('d', buf, gpmax);
		c->prev = p;
		for (i = 0; i < n; i++)
			push(c, mask[i]);
	}
}

static void failing_cases(void)
{
	/* cycles, instructions, ref-cycles, slots: fixed counters 1, 0, 2, 3 */
	const u64 cyc = GP(8) | FIXED(1), ins = GP(8) | FIXED(0);
	const u64 spr_ref[] = {
		FIXED(3), METRIC(0), METRIC(1), METRIC(2), METRIC(3),
		METRIC(4), METRIC(5), METRIC(6), METRIC(7), cyc, ins, FIXED(2),
		GP(8), GP(8), GP(4), GP(8), 0x3, GP(8), GP(8), FIXED(2),
	};
	const u64 spr_gp[] = {
		FIXED(3), METRIC(0), METRIC(1), METRIC(2), METRIC(3),
		METRIC(4), METRIC(5), METRIC(6), METRIC(7), cyc, ins,
		GP(8), GP(8), GP(4), GP(8), GP(8), GP(4), GP(8), 0x3, GP(8),
	};
	const u64 ht84[] = { cyc, ins, FIXED(2), GP(8), GP(8), GP(8), GP(8),
			     GP(8) };
	const u64 ht84_pebs[] = { cyc, ins, GP(8), GP(4), GP(8), 0x1, 0x1 };
	const u64 zen2[] = { 0x15 | PAIR, 0x15 | PAIR, GP(6), GP(6), GP(6) };
	const u64 zen3[] = { 0x15 | PAIR, GP(6), 0x15 | PAIR, 0x15 | PAIR };
	const u64 zen1[] = { 0x15 | PAIR, GP(6), GP(6), GP(6), GP(6), GP(6) };
	/* the sibling holds counters 0 and 1 exclusive: 0xc is left */
	const u64 hsw_excl[] = { 0xc | FIXED(1), 0xc | FIXED(0), FIXED(2),
				 0xc, 0xc, 0xc };
	const u64 thesis72[] = { 0xf, 0x4, 0x4 };
	const u64 thesis71[] = { 0xf, 0xf, 0xf };

	failing_case("SPR: 20 on 8+4+8 metrics, 2nd ref-cycles", 8, spr_ref,
		     ARRAY_SIZE(spr_ref));
	failing_case("SPR: 20 on 8+4+8 metrics, 9th generic", 8, spr_gp,
		     ARRAY_SIZE(spr_gp));
	failing_case("Intel 8+4, gpmax 4 (HT): 3 fixed + 5", 4, ht84,
		     ARRAY_SIZE(ht84));
	failing_case("Intel 8+4, gpmax 4 (HT): 2 x 0x1", 4, ht84_pebs,
		     ARRAY_SIZE(ht84_pebs));
	failing_case("AMD Zen: 2 pairs + 3, gpmax 4", 4, zen2,
		     ARRAY_SIZE(zen2));
	failing_case("AMD Zen: 3 pairs + 1, gpmax 3", 3, zen3,
		     ARRAY_SIZE(zen3));
	failing_case("AMD Zen: 1 pair + 5, gpmax 5", 5, zen1,
		     ARRAY_SIZE(zen1));
	failing_case("HSW HT, sibling excl 0-1, gpmax 2: 3 fixed + 3 x 0xc",
		     2, hsw_excl, ARRAY_SIZE(hsw_excl));
	failing_case("thesis 7.2 (HSW): 0xf 0x4 0x4", 4, thesis72,
		     ARRAY_SIZE(thesis72));
	failing_case("thesis 7.1 (HSW HT, gpmax 2): 3 x 0xf", 2, thesis71,
		     ARRAY_SIZE(thesis71));
}

static void setup(void)
{
	static const u64 xsu[] = { 0x6, 0x8, 0x9, 0xb };
	static const u64 searched[] = {
		0xd00000081, 0x800000008, 0xa00000008, 0x200000037, 0x400000028,
		0x2a, 0xe00000003, 0xb000000db, 0xc00000000, 0x800000029,
		0x30000003f, 0x400000000, 0xd00000031,
	};
	static const u64 searched_pairs[] = {
		0x9b, 0xa9, 0xf4, 0xcc, 0x3b | PAIR, 0x9c, 0x87 | PAIR,
		0x67 | PAIR, 0xd6,
	};
	struct bench_case *c;
	char name[64];
	int n, i;

	/* (a) unconstrained events on 8 generic + 4 fixed counters */
	for (n = 1; n <= 16; n++) {
		snprintf(name, sizeof(name), "%d unconstrained%s", n,
			 n > 8 ? " (overcommitted)" : "");
		c = add('a', name, 8);
		for (i = 0; i < n; i++)
			push(c, GP(8));
	}

	/* (b) constrained lists as in the thesis, and today's PMUs */
	c = add('b', "HSW XSU, thesis 7.2: 0x6 0x8 0x9 0xb", 4);
	for (i = 0; i < 4; i++)
		push(c, xsu[i]);

	c = add('b', "HSW perf stat -d: 3 fixed-capable + 4", 4);
	push(c, GP(4) | FIXED(1));
	push(c, GP(4) | FIXED(0));
	push(c, FIXED(2));
	for (i = 0; i < 4; i++)
		push(c, GP(4));

	c = add('b', "HSW HT workaround, gpmax 2", 2);
	push(c, GP(4) | FIXED(1));
	push(c, GP(4) | FIXED(0));
	push(c, 0x4);
	push(c, GP(4));

	c = add('b', "HSW 0xf 0x4 0xf 0x3", 4);
	push(c, 0xf);
	push(c, 0x4);
	push(c, 0xf);
	push(c, 0x3);

	c = add('b', "ICL TopDown: slots + 4 metrics + 4", 8);
	push(c, FIXED(3));
	for (i = 0; i < 4; i++)
		push(c, METRIC(i));
	push(c, GP(8) | FIXED(0));
	push(c, GP(8) | FIXED(1));
	push(c, GP(8));
	push(c, GP(8));

	c = add('b', "AMD F15h overlap: 0x09 + 3 x 0x07", 6);
	push(c, 0x09 | OVERLAP);
	for (i = 0; i < 3; i++)
		push(c, 0x07);

	c = add('b', "AMD Zen: 2 pairs + 2", 4);
	push(c, 0x15 | PAIR);
	push(c, 0x15 | PAIR);
	push(c, GP(6));
	push(c, GP(6));

	/* (c) worst cases */
	c = add('c', "chain: 7 x {k,k+1}, then {0}", 8);
	for (i = 0; i < 7; i++)
		push(c, 3ULL << i);
	push(c, 1);

	c = add('c', "staircase: 0xff 0x7f ... 0x01", 8);
	for (i = 0; i < 8; i++)
		push(c, GP(8 - i));

	c = add('c', "12 on 8: 0xff.. then 0x01.., fails", 8);
	for (i = 0; i < 6; i++)
		push(c, GP(8));
	for (i = 0; i < 6; i++)
		push(c, 1ULL << i);

	c = add('c', "20 x {k,k+1} on 20 counters", 20);
	for (i = 0; i < 19; i++)
		push(c, 3ULL << i);
	push(c, 1);

	/* first fit leaves 8 events, each with a path of its own */
	c = add('c', "8 paths at once: 8 x {2k,2k+1}, 8 x {2k}", 16);
	for (i = 0; i < 8; i++)
		push(c, 3ULL << (2 * i));
	for (i = 0; i < 8; i++)
		push(c, 1ULL << (2 * i));

	c = add('c', "pairs: 2 x 0x7f + 5, all 15 sets, fails", 8);
	push(c, 0x7f | PAIR);
	push(c, 0x7f | PAIR);
	for (i = 0; i < 5; i++)
		push(c, GP(8));

	/* the slowest instances a random search found, without and with pairs */
	c = add('c', "searched: 13 on 8 generic + 4 fixed", 8);
	for (i = 0; i < ARRAY_SIZE(searched); i++)
		push(c, searched[i]);

	c = add('c', "searched: 3 pairs + 6 on 8, fails", 8);
	for (i = 0; i < ARRAY_SIZE(searched_pairs); i++)
		push(c, searched_pairs[i]);

	c = add('c', "AMD F15h: 0x09 x 2 + 0x07 x 3 + 0x38", 6);
	push(c, 0x09 | OVERLAP);
	push(c, 0x09 | OVERLAP);
	for (i = 0; i < 3; i++)
		push(c, 0x07);
	push(c, 0x38);

	failing_cases();
}

struct instance {
	struct event_constraint	ec[MAX_EVENTS];
	struct event_constraint	*c[MAX_EVENTS];
	int			prev[MAX_EVENTS];
	int			wmin;
	int			wmax;
};

static void build(const struct bench_case *bc, struct instance *in)
{
	int e;

	in->wmin = X86_PMC_IDX_MAX;
	in->wmax = 0;
	for (e = 0; e < bc->n; e++) {
		u64 mask = bc->mask[e] & ~(PAIR | OVERLAP);

		in->ec[e] = (struct event_constraint) {
			.idxmsk64	= mask,
			.weight		= hweight64(mask),
			.overlap	= !!(bc->mask[e] & OVERLAP),
			.flags		= bc->mask[e] & PAIR ? PERF_X86_EVENT_PAIR : 0,
		};
		in->c[e] = &in->ec[e];
		in->wmin = min(in->wmin, in->ec[e].weight);
		in->wmax = max(in->wmax, in->ec[e].weight);
	}

	/* the counters of the window before, the last event new */
	for (e = 0; e < bc->n; e++)
		in->prev[e] = -1;
	if (bc->prev && x86_assign_counters(in->c, bc->n - 1, bc->gpmax, NULL,
					    in->prev))
		fprintf(stderr, "bench: %s: the window before fails\n", bc->name);
}

static int run(const struct bench_case *bc, struct instance *in, int algo,
	       long calls)
{
	int assign[MAX_EVENTS], ret = 0;
	long i;

	for (i = 0; i < calls; i++) {
		memcpy(assign, in->prev, sizeof(int) * bc->n);
		if (algo == 2)
			ret = old_x86_assign_counters(in->c, bc->n, bc->gpmax,
						      bc->prev ? assign : NULL,
						      assign);
		else if (algo)
			ret = x86_assign_counters(in->c, bc->n, bc->gpmax,
						  bc->prev ? assign : NULL, assign);
		else
			ret = greedy_assign_events(in->c, bc->n, in->wmin, in->wmax,
						   bc->gpmax, assign);
		__asm__ volatile("" : : "r" (assign) : "memory");
	}
	return ret;
}

static double ns_per_call(const struct bench_case *bc, struct instance *in,
			  int algo)
{
	struct timespec t0, t1;
	double best = 1e30, ns;
	int round;

	for (round = 0; round < NS_ROUNDS; round++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		run(bc, in, algo, NS_CALLS);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
		best = min(best, ns / NS_CALLS);
	}
	return best;
}

static void callgrind_cases(void)
{
	struct instance in;
	char tag[32];
	int i, algo;

	for (i = 0; i < nr_cases; i++) {
		build(&cases[i], &in);
		for (algo = 0; algo < nr_algos; algo++) {
			run(&cases[i], &in, algo, CG_CALLS);
			snprintf(tag, sizeof(tag), "case-%d-%d", i, algo);
			CALLGRIND_DUMP_STATS_AT(tag);
		}
	}
}

/* Instructions per call of every case and algorithm, from the dumps. */
static int read_dumps(const char *base, double ir[][3])
{
	char path[4096], line[256];
	int k, i, algo, found = 0;
	FILE *f;

	for (k = 1; k < 1000; k++) {
		long long total = -1;

		snprintf(path, sizeof(path), "%s.%d", base, k);
		f = fopen(path, "r");
		if (!f)
			break;
		i = -1;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "desc: Trigger: Client Request: case-%d-%d",
				   &i, &algo) == 2)
				continue;
			if (sscanf(line, "summary: %lld", &total) == 1 ||
			    sscanf(line, "totals: %lld", &total) == 1)
				break;
		}
		fclose(f);
		if (i >= 0 && i < nr_cases && total >= 0) {
			ir[i][algo] = (double)total / CG_CALLS;
			found++;
		}
	}
	return found == nr_algos * nr_cases ? 0 : -1;
}

static const char *outcome(int ret)
{
	static char buf[2][16];
	static int k;

	k ^= 1;
	if (!ret)
		return "all";
	snprintf(buf[k], sizeof(buf[k]), "%d left", ret);
	return buf[k];
}

static void print_table(double ir[][3])
{
	static const char * const groups[] = {
		"(a) unconstrained, 8 generic + 4 fixed counters",
		"(b) constrained lists",
		"(c) worst cases",
		"(d) failing passes on real shapes (the window one event too many)",
	};
	struct instance in;
	double worst_a = 0, worst_d = 0;
	int i, g = -1;

	for (i = 0; i < nr_cases; i++) {
		struct bench_case *bc = &cases[i];
		double ns[3];
		int ret[2];

		if (bc->group - 'a' != g) {
			g = bc->group - 'a';
			printf("\n%s\n\n", groups[g]);
			printf("| case | n | greedy instr | matcher instr | ratio |");
			printf(" greedy ns | matcher ns | greedy places | matcher places |");
			if (nr_algos == 3)
				printf(" old matcher instr | matcher/old | old matcher ns |");
			printf("\n|---|--:|--:|--:|--:|--:|--:|---|---|%s\n",
			       nr_algos == 3 ? "--:|--:|--:|" : "");
		}
		build(bc, &in);
		ret[0] = run(bc, &in, 0, 1);
		ret[1] = run(bc, &in, 1, 1);
		ns[0] = ns_per_call(bc, &in, 0);
		ns[1] = ns_per_call(bc, &in, 1);
		printf("| %s | %d | %.0f | %.0f | %.2f | %.1f | %.1f | %s | %s |",
		       bc->name, bc->n, ir[i][0], ir[i][1], ir[i][1] / ir[i][0],
		       ns[0], ns[1], outcome(ret[0]), outcome(ret[1]));
		if (nr_algos == 3)
			printf(" %.0f | %.2f | %.1f |", ir[i][2],
			       ir[i][1] / ir[i][2], ns_per_call(bc, &in, 2));
		printf("\n");
		if (bc->group == 'a')
			worst_a = max(worst_a, ir[i][1] / ir[i][0]);
		if (bc->group == 'd')
			worst_d = max(worst_d, ir[i][1] / ir[i][0]);
	}
	printf("\n(a): the matcher takes at most %.2fx the greedy's instructions\n",
	       worst_a);
	printf("(d): the matcher takes at most %.2fx the greedy's instructions\n",
	       worst_d);
}

/*
 * Stack: the deepest path through the call graph gcc wrote for
 * assign.c, from x86_assign_counters().
 */
static char fn_name[32][256];
static int fn_bytes[32], nr_fn;
static int edge_from[256], edge_to[256], nr_edges;

/* A name is at most 255 characters, as edge_format and stack_usage() read. */
static int fn_index(const char *name)
{
	int i;

	for (i = 0; i < nr_fn; i++) {
		if (!strcmp(fn_name[i], name))
			return i;
	}
	if (nr_fn == 32) {
		fprintf(stderr, "bench: more than 32 functions in the call graph\n");
		exit(1);
	}
	snprintf(fn_name[nr_fn], sizeof(fn_name[0]), "%s", name);
	fn_bytes[nr_fn] = 0;
	return nr_fn++;
}

static int deepest(int f, char *path, size_t len)
{
	char best_path[512] = "", sub[512];
	const char *name;
	int i, best = 0, d;

	for (i = 0; i < nr_edges; i++) {
		if (edge_from[i] != f)
			continue;
		d = deepest(edge_to[i], sub, sizeof(sub));
		if (d > best) {
			best = d;
			snprintf(best_path, sizeof(best_path), "%s", sub);
		}
	}
	name = strrchr(fn_name[f], ':');
	snprintf(path, len, "%s %d%s%s", name ? name + 1 : fn_name[f],
		 fn_bytes[f], best_path[0] ? " > " : "", best_path);
	return fn_bytes[f] + best;
}

static const char edge_format[] =
	"edge: { sourcename: \"%255[^\"]\" targetname: \"%255[^\"]\"";

static void name_too_long(const char *ci)
{
	fprintf(stderr, "bench: a name in %s is 255 characters or more: a shorter O=\n",
		ci);
	exit(1);
}

static void stack_usage(const char *ci, const char *what)
{
	char line[1024], a[256], b[256], path[512];
	int bytes, root, i;
	FILE *f = fopen(ci, "r");

	nr_fn = 0;
	nr_edges = 0;
	if (!f) {
		printf("stack, %s: no %s\n", what, ci);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (sscanf(line, "node: { title: \"%255[^\"]\"", a) == 1) {
			if (strlen(a) == 255)
				name_too_long(ci);
			p = strstr(line, "\\n");
			p = p ? strstr(p + 2, "\\n") : NULL;
			if (p && sscanf(p + 2, "%d bytes", &bytes) == 1)
				fn_bytes[fn_index(a)] = bytes;
		} else if (!strncmp(line, "edge:", 5)) {
			if (sscanf(line, edge_format, a, b) != 2 ||
			    strlen(a) == 255 || strlen(b) == 255)
				name_too_long(ci);
			if (nr_edges == 256) {
				fprintf(stderr, "bench: more than 256 calls in %s\n", ci);
				exit(1);
			}
			edge_from[nr_edges] = fn_index(a);
			edge_to[nr_edges++] = fn_index(b);
		}
	}
	fclose(f);

	root = fn_index("x86_assign_counters");
	bytes = deepest(root, path, sizeof(path));
	printf("stack, %s: %d bytes on the deepest path: %s\n", what, bytes, path);
	for (i = 0; i < nr_fn; i++) {
		if (!strstr(fn_name[i], ":assign_events"))
			continue;
		bytes = fn_bytes[root] + deepest(i, path, sizeof(path));
		printf("stack, %s, no pairs: %d bytes: x86_assign_counters %d > %s\n",
		       what, bytes, fn_bytes[root], path);
	}
}

/*
 * Events arrive one at a time, as x86_pmu_add() adds them, each staying
 * a random number of steps. Upstream first tries to keep every running
 * event on its counter (the fastpath of x86_schedule_events()); a new
 * event fails that, and then the greedy reassigns everything. The
 * matcher gets the running counters as prev[]. Both see the same
 * arrivals; counted are running events that change counter.
 */
struct pmu_model {
	const char	*name;
	int		nr_gp;
	int		nr_fixed;
	bool		pairs;
	bool		amd_f15;
};

static u64 model_event(const struct pmu_model *pm, u64 *state, int *flags)
{
	static const u64 f15[] = { 0x01, 0x07, 0x08, 0x09, 0x3f, 0x38, 0x3f, 0x3f };
	u64 gp = GP(pm->nr_gp);

	*flags = 0;
	if (pm->amd_f15)
		return f15[assign_test_below(state, 8)];
	if (pm->pairs && !assign_test_below(state, 6)) {
		*flags = PERF_X86_EVENT_PAIR;
		return 0x15;
	}
	switch (assign_test_below(state, 8)) {
	case 0:
		return pm->nr_fixed ? gp | FIXED(assign_test_below(state, pm->nr_fixed)) : gp;
	case 1:
		return GP(4);			/* PEBS, branch counters */
	case 2:
		return 1ULL << assign_test_below(state, min(pm->nr_gp, 4));
	case 3:
		return 3ULL << (2 * assign_test_below(state, pm->nr_gp / 2));
	default:
		return gp;
	}
}

#define ARRIVALS	100000

static void moves_run(const struct pmu_model *pm)
{
	struct event_constraint ec[MAX_EVENTS], *cp[MAX_EVENTS];
	int idx[MAX_EVENTS], assign[MAX_EVENTS], leave[MAX_EVENTS];
	long fits[2] = { 0 }, moved[2] = { 0 };
	int algo, step, e, n, ret, flags, wmin, wmax, gpmax, stay;
	u64 state, mask;

	for (algo = 0; algo < 2; algo++) {
		state = 0x6d6f766573ULL;
		n = 0;
		for (step = 0; step < ARRIVALS; step++) {
			for (e = 0; e < n;) {
				if (leave[e] > step) {
					e++;
					continue;
				}
				n--;
				memmove(&ec[e], &ec[e + 1], (n - e) * sizeof(ec[0]));
				memmove(&idx[e], &idx[e + 1], (n - e) * sizeof(idx[0]));
				memmove(&leave[e], &leave[e + 1], (n - e) * sizeof(leave[0]));
			}

			mask = model_event(pm, &state, &flags);
			stay = 1 + assign_test_below(&state, 16);
			if (n == pm->nr_gp + pm->nr_fixed + 1)
				continue;

			ec[n] = (struct event_constraint) {
				.idxmsk64 = mask, .weight = hweight64(mask),
				.flags = flags,
			};
			idx[n] = -1;
			leave[n] = step + stay;
			gpmax = pm->nr_gp;
			for (e = 0, wmin = X86_PMC_IDX_MAX, wmax = 0; e <= n; e++) {
				cp[e] = &ec[e];
				wmin = min(wmin, ec[e].weight);
				wmax = max(wmax, ec[e].weight);
				assign[e] = idx[e];
				gpmax -= !!(ec[e].flags & PERF_X86_EVENT_PAIR);
			}
			if (algo)
				ret = x86_assign_counters(cp, n + 1, gpmax, assign, assign);
			else
				ret = greedy_assign_events(cp, n + 1, wmin, wmax, gpmax,
							   assign);
			if (ret)
				continue;

			fits[algo]++;
			for (e = 0; e < n; e++)
				moved[algo] += assign[e] != idx[e];
			for (e = 0; e <= n; e++)
				idx[e] = assign[e];
			n++;
		}
	}

	printf("| %s | %d | %ld | %ld | %.3f | %ld | %ld | %.3f |\n", pm->name,
	       ARRIVALS, fits[0], moved[0], (double)moved[0] / fits[0],
	       fits[1], moved[1], (double)moved[1] / fits[1]);
}

int main(int argc, char **argv)
{
	static double ir[96][3];
	static const struct pmu_model models[] = {
		{ "Intel, 8 generic + 4 fixed", 8, 4, false, false },
		{ "Intel, 4 generic + 3 fixed", 4, 3, false, false },
		{ "AMD F15h, 6 counters", 6, 0, false, true },
		{ "AMD Zen, 6 counters, pairs", 6, 0, true, false },
	};
	const char *dump = NULL, *ci = NULL, *ci_sp = NULL, *greedy = NULL;
	char line[512];
	FILE *f;
	int opt, i;

	setup();
	nr_algos = old_x86_assign_counters ? 3 : 2;
	while ((opt = getopt(argc, argv, "cr:s:S:g:")) != -1) {
		switch (opt) {
		case 'c':
			callgrind_cases();
			return 0;
		case 'r':
			dump = optarg;
			break;
		case 's':
			ci = optarg;
			break;
		case 'S':
			ci_sp = optarg;
			break;
		case 'g':
			greedy = optarg;
			break;
		default:
			return 2;
		}
	}
	if (!dump || read_dumps(dump, ir)) {
		fprintf(stderr, "bench: no callgrind dumps %s.N for every case\n",
			dump ? dump : "");
		return 1;
	}

	f = greedy ? fopen(greedy, "r") : NULL;
	if (f && fgets(line, sizeof(line), f))
		printf("greedy: %s", line);
	if (f)
		fclose(f);
	printf("matcher: arch/x86/events/assign.c\n");
	if (nr_algos == 3)
		printf("old matcher: the OLD= file, its x86_assign_counters() renamed\n");
	printf("instructions per call: valgrind --tool=callgrind, %d calls per case;\n",
	       CG_CALLS);
	printf("ns per call: best of %d rounds of %d calls on this machine\n",
	       NS_ROUNDS, NS_CALLS);
	print_table(ir);

	printf("\n");
	stack_usage(ci, "-fno-stack-protector");
	stack_usage(ci_sp, "-fstack-protector-strong");

	printf("\nmoved events: %d arrivals, each staying 1-16 arrivals long\n\n", ARRIVALS);
	printf("| PMU | arrivals | greedy fits | greedy moved | per fit |");
	printf(" matcher fits | matcher moved | per fit |\n");
	printf("|---|--:|--:|--:|--:|--:|--:|--:|\n");
	for (i = 0; i < ARRAY_SIZE(models); i++)
		moves_run(&models[i]);

	return 0;
}
