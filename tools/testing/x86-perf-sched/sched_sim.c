// SPDX-License-Identifier: GPL-2.0
/*
 * sched_sim: the perf_events event scheduling simulator of the thesis
 * (ch. 7.2), around the counter assigners the kernel compiles. See
 * usage() and the model at the top of sim.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

#define DEFAULT_ITERS		1000
#define DEFAULT_EVAL_ITERS	12

static const char usage_text[] =
"usage: sched_sim [-p PMU] [-M] [-n N] [-k K] [-r POLICY] [-w 0|1] [-S T] [-H]\n"
"                 [-P] [-v] -e EVENTS [-C MASKS] [-R RATES]\n"
"                 [-e EVENTS [-C MASKS] [-R RATES]]\n"
"       sched_sim -m exhaustive|random|xsu|rates [-p PMU] [-K K] [-c N] [-s SEED]\n"
"                 [-T] [-n N] [-k K] [-w 0|1] [-S T] [-H] [-P|-V]\n"
"                 [-W WORKLOAD] [-E] [-R N]\n"
"       sched_sim -l [-p PMU]\n"
"\n"
"  -p PMU     snb, ivb, hsw (default), skl, icl, spr, zen, or gpN (N generic\n"
"             counters, no table); -l lists them and PMU's constraint table\n"
"  -e EVENTS  a thread's event list, comma-separated: raw codes (0x81d0, r81d0)\n"
"             or libpfm4 names; a second -e is the sibling hyper-thread\n"
"  -C MASKS   constraint masks for the events of the -e before it (alone:\n"
"             events e1, e2, ...); a mask may end in :c (corrupting), :n (not\n"
"             corrupting) or :p (pair event); - keeps the table's constraint\n"
"  -R RATES   synthetic counts per tick of those events: N, LO:HI:PERIOD\n"
"             (LO and HI alternate every PERIOD ticks), or phase:SEED:LEN:NOISE\n"
"             (seeded phases and ramps of up to LEN ticks, NOISE percent of\n"
"             noise); default 1000\n"
"  -M         the matcher, x86_assign_counters(); default: today's greedy\n"
"  -n N       iterations (default %d; %d per instance in the -m modes)\n"
"  -k K       go on past a failing window, passing at most K events per pass\n"
"             (0: twice the generic counters); default: stop at the first\n"
"  -j J       go on past a failing window, passing at most J events after the\n"
"             first failing one (the kernel's bound, PERF_FLEXIBLE_RETRY, 8);\n"
"             with -k K, at most K events in all\n"
"  -r POLICY  rotation: rr (round-robin, default), roc (rate-of-change) or\n"
"             roc-paper (rate-of-change as the paper computes it)\n"
"  -w 0|1     HT workaround (XSU) on snb, ivb, hsw; default 1\n"
"  -S T       HT workaround off before tick T, switched on then as\n"
"             ht_bug_workaround does (both threads reschedule)\n"
"  -H         no half rule: gpmax is not halved with an exclusive event\n"
"  -P         the XSU protocol of 7.3 as it is, not the series': the fast\n"
"             path ignores gpmax, counters events moved off keep their\n"
"             state, a failed event frees its stale counter\n"
"  -v         every iteration\n"
"  -m MODE    exhaustive: every tuple of -K non-empty masks over the generic\n"
"             counters; random: -c seeded instances of -K events (-T: from the\n"
"             table); xsu: -c pairs of sibling lists of 1 to -K events;\n"
"             rates: -c sets of -K events with random rates, each policy and\n"
"             estimator; there -R N is the longest square-wave period or phase\n"
"             (default 50)\n"
"  -W LOAD    in -m rates: mixed (default: half constants, half square\n"
"             waves), const, square, or phase[:NOISE] (NOISE percent, default\n"
"             10)\n"
"  -E         in -m rates: errors against separate single-event runs (Lim\n"
"             et al.), not the true counts of the same run\n"
"  -V         in -m exhaustive, random, xsu: 7.3 (greedy, stops at the first\n"
"             failing window, 7.3's XSU protocol) against the series (matcher,\n"
"             past failing windows, at most -k K events per pass, default\n"
"             twice the generic counters, the series' protocol), not greedy\n"
"             against matcher\n";

static void usage(void)
{
	fprintf(stderr, usage_text, DEFAULT_ITERS, DEFAULT_EVAL_ITERS);
	exit(2);
}

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "sched_sim: %s '%s'\n", what, arg);
	exit(2);
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || end == s || v < 0)
		die("not a count:", s);
	return v;
}

/* Split @list at commas into @item; returns how many. */
static int split(char *list, char **item, int max)
{
	int n = 0;
	char *p;

	for (p = strtok(list, ", "); p; p = strtok(NULL, ", ")) {
		if (n == max)
			die("more than 32 events in", p);
		item[n++] = p;
	}
	return n;
}

static void parse_events(const struct sim_pmu *pmu, char *list,
			 struct sim_thread *t)
{
	char *item[SIM_MAX_EVENTS];
	int e;

	t->n = split(list, item, SIM_MAX_EVENTS);
	for (e = 0; e < t->n; e++) {
		if (sim_event_parse(pmu, item[e], &t->ev[e]))
			exit(2);
	}
}

static void parse_masks(char *list, struct sim_thread *t)
{
	char *item[SIM_MAX_EVENTS], *end;
	struct sim_event *ev;
	int e, n, flags;
	bool excl;
	u64 mask;

	n = split(list, item, SIM_MAX_EVENTS);
	if (!t->n) {
		for (e = 0; e < n; e++) {
			memset(&t->ev[e], 0, sizeof(t->ev[e]));
			snprintf(t->ev[e].name, SIM_NAME_LEN, "e%d", e + 1);
		}
		t->n = n;
	}
	if (n != t->n)
		die("not one mask per event:", list);

	for (e = 0; e < n; e++) {
		ev = &t->ev[e];
		if (!strcmp(item[e], "-"))
			continue;
		mask = strtoull(item[e], &end, 0);
		flags = 0;
		excl = ev->excl;
		if (!strcmp(end, ":c"))
			excl = true;
		else if (!strcmp(end, ":n"))
			excl = false;
		else if (!strcmp(end, ":p"))
			flags = PERF_X86_EVENT_PAIR;
		else if (*end)
			die("bad mask", item[e]);
		if (!mask)
			die("empty mask", item[e]);
		sim_event_set(ev, mask, flags, excl);
	}
}

static void parse_rates(char *list, struct sim_thread *t)
{
	char *item[SIM_MAX_EVENTS];
	int e, n, got, noise;
	struct sim_rate *r;
	long len;
	u64 seed;
	char end;

	n = split(list, item, SIM_MAX_EVENTS);
	if (n != t->n)
		die("not one rate per event:", list);
	for (e = 0; e < n; e++) {
		r = &t->ev[e].rate;
		if (sscanf(item[e], "phase:%llu:%ld:%d%c", &seed, &len, &noise,
			   &end) == 3) {
			if (len < 1 || noise < 0 || noise > SIM_MAX_NOISE)
				die("bad rate", item[e]);
			sim_rate_phases(r, seed, len, noise);
			continue;
		}
		got = sscanf(item[e], "%ld:%ld:%ld%c", &r->lo, &r->hi,
			     &r->period, &end);
		if (got == 1 && !strchr(item[e], ':'))
			r->period = 0;
		else if (got != 3 || r->period <= 0)
			die("bad rate", item[e]);
		if (r->lo < 0 || r->hi < 0)
			die("bad rate", item[e]);
	}
}

static const char *counter(int idx, char *buf, size_t size)
{
	if (idx < 0)
		return "----";
	if (idx >= INTEL_PMC_IDX_METRIC_BASE)
		snprintf(buf, size, "metric%d", idx - INTEL_PMC_IDX_METRIC_BASE);
	else if (idx >= INTEL_PMC_IDX_FIXED)
		snprintf(buf, size, "fixed%d", idx - INTEL_PMC_IDX_FIXED);
	else
		snprintf(buf, size, "cntr%d", idx);
	return buf;
}

static void print_event(const struct sim *s, int nr, const struct sim_event *ev,
			bool list, bool rates)
{
	char buf[24];

	if (list) {
		printf("%d - ---- ---- %s (code=%#llx, constraint=%#llx%s%s)\n",
		       nr, ev->name, ev->code, ev->ec.idxmsk64,
		       ev->excl ? ", C" : "",
		       ev->ec.flags & PERF_X86_EVENT_PAIR ? ", pair" : "");
		return;
	}

	printf("%d %c %6.2f%% %-8s %s (constraint=%#llx%s%s)", nr,
	       ev->active ? '+' : '-', 100.0 * ev->runs / s->iter,
	       counter(ev->idx, buf, sizeof(buf)), ev->name, ev->ec.idxmsk64,
	       s->nr_threads > 1 ? (ev->excl ? " C" : " NC") : "",
	       ev->ec.flags & PERF_X86_EVENT_PAIR ? " pair" : "");
	if (s->nr_threads > 1 && ev->corrupted)
		printf(" corrupted %.2f%%", 100.0 * ev->corrupted / s->iter);
	if (rates)
		printf(" count=%.0f scaled=%.0f true=%.0f error=%+.2f%%",
		       ev->count, sim_estimate(ev, s->iter, SIM_SCALED),
		       ev->truth, 100 * (sim_estimate(ev, s->iter, SIM_SCALED) /
					 ev->truth - 1));
	if (rates && s->policy == SIM_ROC_PAPER)
		printf(" interpolated=%.0f error=%+.2f%%",
		       sim_estimate(ev, s->iter, SIM_INTERP),
		       100 * (sim_estimate(ev, s->iter, SIM_INTERP) /
			      ev->truth - 1));
	printf("\n");
}

static void print_threads(const struct sim *s, bool list, bool rates)
{
	const struct sim_thread *t;
	int tid, j;

	for (tid = 0; tid < s->nr_threads; tid++) {
		t = &s->t[tid];
		if (s->nr_threads > 1)
			printf("HT%d ", tid);
		if (list) {
			printf("Event List:\n");
		} else {
			printf("scheduled %d out of %d events", t->scheduled, t->n);
			if (s->nr_threads > 1)
				printf(", mean scaling factor %.2f%%",
				       100 * sim_share(s, tid));
			printf("\n");
		}
		/* events by their number, not their place in the list */
		for (j = 0; j < t->n; j++)
			print_event(s, j + 1, &t->ev[j], list, rates);
	}
}

static const char *const policy_name[SIM_NR_POLICIES] = {
	"round-robin", "rate-of-change", "roc-paper",
};

static void header(const struct sim *s)
{
	printf("----------------------------------------\n");
	printf("Processor Name : %s\n", s->pmu->desc);
	printf("Generic Counters No : %d\n", s->pmu->nr_gp);
	printf("Fixed-Purpose Counters No : %d\n", s->pmu->nr_fixed);
	if (s->pmu->nr_metric)
		printf("TopDown Metrics No : %d\n", s->pmu->nr_metric);
	printf("Scheduler : %s\n", s->algo == SIM_MATCHER ?
	       "matcher, x86_assign_counters() of arch/x86/events/assign.c" :
	       "greedy, perf_assign_events() of BASE");
	if (s->retry)
		printf("Generic layer : past failing windows, at most %d events after the first\n",
		       s->retry);
	if (s->limit)
		printf("Generic layer : past failing windows, at most %d events per pass\n",
		       s->limit);
	else if (!s->retry)
		printf("Generic layer : stops at the first failing window\n");
	printf("Rotation : %s\n", policy_name[s->policy]);
	if (s->pmu->xsu && s->xsu && s->switch_on)
		printf("HT workaround : off, switched on at iteration %ld\n",
		       s->switch_on);
	else if (s->pmu->xsu)
		printf("HT workaround : %s\n", s->xsu ? "on" : "off");
	if (s->pmu->xsu && s->xsu)
		printf("XSU protocol : %s%s\n", s->base ?
		       "7.3's (fast path ignores gpmax, no release, stale put)" :
		       "the series'", s->half ? "" : ", no half rule");
	printf("----------------------------------------\n");
}

static void simulate(struct sim *s, long iters, bool verbose, bool rates)
{
	int tid;

	header(s);
	print_threads(s, true, false);
	printf("...\n");
	sim_reset(s);
	while (s->iter < iters) {
		sim_tick(s);
		if (!verbose && s->iter < iters)
			continue;
		printf("Iteration %ld\n", s->iter);
		print_threads(s, false, rates && s->iter == iters);
	}
	if (s->nr_threads > 1) {
		printf("corrupted event-iterations : %ld\n", s->corrupted);
		printf("thread-iterations over the half rule : %ld\n", s->over_half);
		printf("fast-path windows over gpmax : %ld\n", s->fast_over);
		printf("stale XSU states after a pass : %ld\n", s->stale);
		for (tid = 0; tid < 2; tid++)
			printf("HT%d mean scaling factor : %.2f%%\n", tid,
			       100 * sim_share(s, tid));
	}
}

static double pct(double part, double whole)
{
	return whole ? 100 * part / whole : 0;
}

static void print_rates(const struct sim *s, const struct sim_tally *tl,
			long iters, int k, const char *load)
{
	double rr = tl->sq_error[SIM_RR][SIM_SCALED] / tl->events, mse;
	int p, m;

	printf("rates: %ld sets of %d unconstrained events (%s) on %d counters, %ld ticks\n",
	       tl->instances, k, load, s->pmu->nr_gp, iters);
	printf("mean squared relative error of the estimated counts, against %s:\n",
	       tl->single ? "separate single-event runs" : "the true counts");
	printf("%38s%21s\n", "scaled (perf)", "interpolated (paper)");
	for (p = 0; p < SIM_NR_POLICIES; p++) {
		printf("  %-15s", policy_name[p]);
		for (m = 0; m < SIM_NR_ESTIMATORS; m++) {
			mse = tl->sq_error[p][m] / tl->events;
			/* relative to round-robin with perf's scaling */
			if (rr)
				printf(" %10.6f %8.2fx", mse, mse / rr);
			else
				printf(" %10.6f", mse);
		}
		printf("\n");
	}
}

static void print_tally(const char *mode, const struct sim *s,
			const struct sim_tally *tl, long iters, int k,
			const char *load)
{
	const char *name[SIM_NR_ALGOS] = { "greedy", "matcher" };
	const char *whose = "matcher's";
	const long *f = tl->full, *p = tl->placed;
	const double *sh = tl->share;
	long n = tl->instances;

	if (!strcmp(mode, "rates")) {
		print_rates(s, tl, iters, k, load);
		return;
	}

	printf("%s: %ld instances of %d events%s on %s\n", mode, n, k,
	       strcmp(mode, "xsu") ? "" : " at most per thread", s->pmu->desc);
	if (s->versus) {
		name[SIM_73] = "7.3";
		name[SIM_SERIES] = "series";
		whose = "series'";
		printf("7.3:   greedy, stops at the first failing window%s\n",
		       s->xsu ? ", 7.3's XSU protocol" : "");
		printf("series: matcher, past failing windows, at most %d events %s%s\n",
		       s->retry ? s->retry : sim_series_limit(s),
		       s->retry ? "after the first" : "per pass",
		       s->xsu ? ", the series' XSU protocol" : "");
	}
	printf("%46s  %10s\n", name[0], name[1]);
	if (strcmp(mode, "xsu")) {
		printf("scheduled fully in one pass        %10ld  %10ld\n",
		       f[SIM_GREEDY], f[SIM_MATCHER]);
		printf("  share of the instances          %9.2f%%  %9.2f%%\n",
		       pct(f[SIM_GREEDY], n), pct(f[SIM_MATCHER], n));
		printf("events scheduled in one pass       %10ld  %10ld  (%+.2f%%)\n",
		       p[SIM_GREEDY], p[SIM_MATCHER],
		       pct(p[SIM_MATCHER] - p[SIM_GREEDY], p[SIM_GREEDY]));
	}
	if (iters) {
		printf("mean scaling factor, %4ld iterations %9.2f%%  %9.2f%%\n",
		       iters, pct(sh[SIM_GREEDY], n), pct(sh[SIM_MATCHER], n));
	}
	if (!strcmp(mode, "xsu")) {
		printf("  HT0                             %9.2f%%  %9.2f%%\n",
		       pct(tl->thread_share[SIM_GREEDY][0], n),
		       pct(tl->thread_share[SIM_MATCHER][0], n));
		printf("  HT1                             %9.2f%%  %9.2f%%\n",
		       pct(tl->thread_share[SIM_GREEDY][1], n),
		       pct(tl->thread_share[SIM_MATCHER][1], n));
		printf("corrupted event-iterations         %10ld  %10ld\n",
		       tl->corrupted[SIM_GREEDY], tl->corrupted[SIM_MATCHER]);
		printf("thread-iterations over half rule   %10ld  %10ld\n",
		       tl->over_half[SIM_GREEDY], tl->over_half[SIM_MATCHER]);
		printf("fast-path windows over gpmax       %10ld  %10ld\n",
		       tl->fast_over[SIM_GREEDY], tl->fast_over[SIM_MATCHER]);
		printf("stale XSU states after a pass      %10ld  %10ld\n",
		       tl->stale[SIM_GREEDY], tl->stale[SIM_MATCHER]);
	} else {
		printf("%s schedules more events in one pass: %ld (%.2f%%), fewer: %ld\n",
		       name[1], tl->better, pct(tl->better, n), tl->worse);
	}
	if (iters)
		printf("%s mean scaling factor higher: %ld (%.2f%%), lower: %ld (%.2f%%)\n",
		       whose, tl->share_better, pct(tl->share_better, n),
		       tl->share_worse, pct(tl->share_worse, n));
}

static void list_table(const struct sim_pmu *pmu)
{
	const struct event_constraint *c;
	char code[40];

	sim_pmu_list();
	printf("\n%s: unconstrained %#llx%s\n", pmu->desc,
	       pmu->unconstrained.idxmsk64,
	       pmu->pair ? ", event 0x03 (retired SSE/AVX FLOPs) pairs" : "");
	if (pmu->pair)
		printf("pair constraint %#llx weight %d\n",
		       pmu->pair_constraint.idxmsk64, pmu->pair_constraint.weight);
	if (!pmu->table)
		return;
	printf("#---------------#---------------#--------------------#------\n");
	printf("# CODE          # CMASK         # CONSTRAINTS        # FLAGS\n");
	printf("#---------------#---------------#--------------------#------\n");
	for (c = pmu->table; c->weight != -1; c++) {
		if (c->size)
			snprintf(code, sizeof(code), "%#llx-%#llx", c->code,
				 c->code + c->size);
		else
			snprintf(code, sizeof(code), "%#llx", c->code);
		printf("%-15s | %#13llx | %#18llx | %s\n", code, c->cmask,
		       c->idxmsk64, c->flags & PERF_X86_EVENT_EXCL ? "EXCL" : "");
	}
}

int main(int argc, char **argv)
{
	char *events[2] = { NULL }, *masks[2] = { NULL }, *rates[2] = { NULL };
	int nr_events = 0, nr_masks = 0, nr_rates = 0, k = 4, opt, tid;
	const char *mode = "sim", *pmu_name = "hsw", *load = "mixed";
	bool verbose = false, table = false, list = false, single = false;
	enum sim_workload workload = SIM_MIXED;
	int noise = 10;
	long iters = -1, count = 10000, period;
	struct sim_pmu pmu;
	struct sim_tally tl;
	u64 seed = 1;
	struct sim s;

	memset(&s, 0, sizeof(s));
	s.half = true;
	s.xsu = true;
	while ((opt = getopt(argc, argv, "p:e:C:R:Mn:k:j:r:w:S:HPVvm:K:c:s:TlW:Eh")) != -1) {
		switch (opt) {
		case 'p':
			pmu_name = optarg;
			break;
		case 'e':
			if (nr_events == 2)
				usage();
			events[nr_events++] = optarg;
			break;
		case 'C':
			/* for the thread of the last -e; without any, the next */
			tid = nr_events ? nr_events - 1 : nr_masks;
			if (tid > 1 || masks[tid])
				usage();
			masks[tid] = optarg;
			nr_masks = tid + 1;
			break;
		case 'R':
			tid = nr_events ? nr_events - 1 : nr_rates;
			if (tid > 1 || rates[tid])
				usage();
			rates[tid] = optarg;
			nr_rates = tid + 1;
			break;
		case 'M':
			s.algo = SIM_MATCHER;
			break;
		case 'n':
			iters = number(optarg);
			break;
		case 'k':
			s.limit = number(optarg);
			if (!s.limit)
				s.limit = -1;
			break;
		case 'j':
			s.retry = number(optarg);
			if (!s.retry)
				usage();
			break;
		case 'r':
			if (!strcmp(optarg, "roc"))
				s.policy = SIM_ROC;
			else if (!strcmp(optarg, "roc-paper"))
				s.policy = SIM_ROC_PAPER;
			else if (strcmp(optarg, "rr"))
				usage();
			break;
		case 'w':
			s.xsu = number(optarg);
			break;
		case 'S':
			s.switch_on = number(optarg);
			break;
		case 'H':
			s.half = false;
			break;
		case 'P':
			s.base = true;
			break;
		case 'V':
			s.versus = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'm':
			mode = optarg;
			break;
		case 'K':
			k = number(optarg);
			break;
		case 'c':
			count = number(optarg);
			break;
		case 's':
			seed = number(optarg);
			break;
		case 'T':
			table = true;
			break;
		case 'l':
			list = true;
			break;
		case 'W':
			load = optarg;
			if (!strcmp(optarg, "const"))
				workload = SIM_CONST;
			else if (!strcmp(optarg, "square"))
				workload = SIM_SQUARE;
			else if (!strncmp(optarg, "phase", 5))
				workload = SIM_PHASE;
			else if (strcmp(optarg, "mixed"))
				usage();
			if (workload == SIM_PHASE && optarg[5] == ':')
				noise = number(optarg + 6);
			else if (workload == SIM_PHASE && optarg[5])
				usage();
			if (noise > SIM_MAX_NOISE)
				die("noise above 50% in", optarg);
			break;
		case 'E':
			single = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (sim_pmu_get(pmu_name, &pmu))
		die("unknown PMU", pmu_name);
	s.pmu = &pmu;
	s.xsu = s.xsu && pmu.xsu;
	if (s.limit < 0)
		s.limit = 2 * pmu.nr_gp;
	if (s.versus && (s.base || !strcmp(mode, "sim") ||
			 !strcmp(mode, "rates")))
		die("-V is for -m exhaustive, random or xsu, without -P:", mode);
	if (list) {
		list_table(&pmu);
		return 0;
	}
	if (k < 1 || k > SIM_MAX_EVENTS)
		die("bad -K", "1-32");

	if (strcmp(mode, "sim")) {
		if (iters < 0)
			iters = DEFAULT_EVAL_ITERS;
		printf("$");
		for (opt = 0; opt < argc; opt++)
			printf(" %s", argv[opt]);
		printf("\n");
		if (!strcmp(mode, "exhaustive")) {
			if (pow((1 << min(pmu.nr_gp, 30)) - 1, k) > 1e9)
				die("exhaustive: more than 10^9 instances on", pmu.name);
			sim_eval_exhaustive(&s, k, iters, &tl);
		} else if (!strcmp(mode, "random")) {
			sim_eval_random(&s, k, table, iters, count, seed, &tl);
		} else if (!strcmp(mode, "xsu")) {
			if (!pmu.xsu)
				die("no HT workaround on", pmu.name);
			sim_eval_xsu(&s, k, iters, count, seed, &tl);
		} else if (!strcmp(mode, "rates")) {
			period = rates[0] ? number(rates[0]) : 50;
			if (period < 1)
				die("bad -R period", rates[0]);
			sim_eval_rates(&s, k, iters, count, seed, workload,
				       period, noise, single, &tl);
		} else {
			usage();
		}
		print_tally(mode, &s, &tl, iters, k, load);
		return 0;
	}

	s.nr_threads = max(nr_events, max(nr_masks, nr_rates));
	if (!s.nr_threads)
		usage();
	if (s.nr_threads > 1 && !pmu.xsu)
		die("no sibling mode without the HT erratum on", pmu.name);
	for (tid = 0; tid < s.nr_threads; tid++) {
		if (events[tid])
			parse_events(&pmu, events[tid], &s.t[tid]);
		if (masks[tid])
			parse_masks(masks[tid], &s.t[tid]);
		if (!s.t[tid].n)
			usage();
		if (rates[tid])
			parse_rates(rates[tid], &s.t[tid]);
	}

	simulate(&s, iters < 0 ? DEFAULT_ITERS : iters, verbose,
		 nr_rates || s.policy != SIM_RR);
	return 0;
}
