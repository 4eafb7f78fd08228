/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event scheduling simulator: the generic perf_events layer and
 * x86_schedule_events() modelled around the counter assigners the kernel
 * compiles (today's greedy of BASE, x86_assign_counters() of
 * arch/x86/events/assign.c), on PMUs whose constraint tables are cut out
 * of BASE at build time. See sim.c for the model, sched_sim.c for the
 * command line.
 */
#ifndef _SIM_H
#define _SIM_H

#include "perf_event.h"

#define SIM_MAX_EVENTS	32	/* in one thread's event list */
#define SIM_NAME_LEN	64

enum sim_algo {
	SIM_GREEDY,		/* perf_assign_events() of BASE */
	SIM_MATCHER,		/* x86_assign_counters() */
	SIM_NR_ALGOS
};

/* The sides of a comparison with sim.versus; tallies are indexed by them. */
enum sim_side {
	SIM_73 = SIM_GREEDY,	/* greedy, stop at the first failure, 7.3's XSU */
	SIM_SERIES = SIM_MATCHER, /* matcher, past failures, the series' XSU */
};

enum sim_policy {
	SIM_RR,			/* round-robin: the kernel's rotate_ctx() */
	SIM_ROC,		/* rate-of-change (Lim et al.), exact arithmetic */
	SIM_ROC_PAPER,		/* rate-of-change as the paper computes it */
	SIM_NR_POLICIES
};

/* How a multiplexed count is estimated. */
enum sim_estimator {
	SIM_SCALED,		/* perf's: count * enabled / running */
	SIM_INTERP,		/* Lim et al.'s: unobserved ticks interpolated */
	SIM_NR_ESTIMATORS
};

/* Synthetic workloads of -m rates. */
enum sim_workload {
	SIM_MIXED,		/* half constants, half square waves */
	SIM_CONST,
	SIM_SQUARE,
	SIM_PHASE,		/* sim_rate_phases() */
};

#define SIM_TICK_NS	1000000	/* a tick, in the paper's cost: 1 ms */
#define SIM_PHASES	8	/* segments of a phase workload */
#define SIM_MAX_NOISE	50	/* percent */

struct sim_pmu {
	char			name[16];
	char			desc[64];
	const char		*pfm;		/* libpfm4 PMU name, or NULL */
	int			nr_gp;
	int			nr_fixed;
	int			nr_metric;
	bool			xsu;		/* HT erratum workaround */
	bool			pair;		/* PMU_FL_PAIR */
	struct event_constraint	*table;		/* BASE's, checked */
	struct event_constraint	unconstrained;
	struct event_constraint	pair_constraint;
};

/* A segment of a phase workload: @len ticks going from @from to @to per tick. */
struct sim_phase {
	long	len;
	long	from;
	long	to;
};

/*
 * A synthetic count rate: @lo per tick, or @lo and @hi for @period ticks
 * each, or @nr_phases segments repeated; each tick, at most @noise
 * percent up or down, drawn from @seed and the run (sim.run).
 */
struct sim_rate {
	long			lo;
	long			hi;
	long			period;
	int			nr_phases;
	int			noise;
	u64			seed;
	struct sim_phase	phase[SIM_PHASES];
};

struct sim_event {
	char			name[SIM_NAME_LEN];
	u64			code;
	struct event_constraint	ec;		/* static constraint */
	bool			excl;		/* corrupts the sibling's counter */
	struct sim_rate		rate;

	int			idx;		/* hw.idx: last counter, or -1 */
	bool			active;		/* on a counter this tick */
	long			runs;		/* ticks on a counter */
	long			corrupted;	/* ticks beside a corrupting event */
	double			count;		/* counted while active */
	double			truth;		/* counted had it always run */
	long			last_run;	/* last tick it ran, or -1 */
	int			nr_obs;		/* observations, at most 3 kept */
	double			obs_x[3];	/* time running at each */
	double			obs_y[3];	/* count at each */
	long			obs_t[3];	/* tick of each */
	double			interp;		/* count to last_run, gaps interpolated */
	double			last_rate;	/* counted in tick last_run */
};

struct sim_thread {
	int			n;
	struct sim_event	ev[SIM_MAX_EVENTS];
	int			list[SIM_MAX_EVENTS];	/* the list, in order */
	bool			rotate;		/* something did not fit */
	int			scheduled;	/* events on counters */
	u64			xsu_excl;	/* states[tid]: EXCLUSIVE */
	u64			xsu_shared;	/* states[tid]: SHARED */
	long			starve_until;	/* starving[tid], until this tick */
	bool			resched;	/* the sibling asked for a pass */
};

struct sim {
	const struct sim_pmu	*pmu;
	enum sim_algo		algo;
	enum sim_policy		policy;
	int			limit;		/* events per pass; 0: stop at a failure */
						/* (versus: the series', 0: 2 * nr_gp) */
	int			retry;		/* events tried past the first failure */
						/* (the kernel's bound); 0: no such bound */
	int			nr_threads;	/* 2: sibling hyper-threads */
	bool			xsu;		/* ht_bug_workaround on */
	bool			half;		/* gpmax / 2 with an exclusive event */
	bool			base;		/* XSU protocol as BASE (7.3) */
	bool			versus;		/* evaluate 7.3 against the series */
	long			switch_on;	/* workaround off before this tick */
	long			iter;
	u64			run;		/* the run, for the rates' noise */
	long			corrupted;	/* event-ticks beside a corrupting event */
	long			over_half;	/* thread-ticks over the half rule */
	long			fast_over;	/* fast paths over gpmax */
	long			stale;		/* XSU states no event holds */
	struct sim_thread	t[2];
};

/*
 * Totals of an evaluation, per algorithm where it matters, or with
 * sim.versus per side (enum sim_side).
 */
struct sim_tally {
	long	instances;
	long	full[SIM_NR_ALGOS];	/* every event scheduled in one pass */
	long	placed[SIM_NR_ALGOS];	/* events scheduled in one pass */
	long	better;			/* matcher (series) schedules more in one pass */
	long	worse;			/* matcher (series) schedules fewer */
	double	share[SIM_NR_ALGOS];	/* sum of mean scaling factors */
	long	share_better;		/* matcher's (series') mean scaling factor higher */
	long	share_worse;		/* lower */
	long	corrupted[SIM_NR_ALGOS];
	long	over_half[SIM_NR_ALGOS];
	long	fast_over[SIM_NR_ALGOS];
	long	stale[SIM_NR_ALGOS];
	double	thread_share[SIM_NR_ALGOS][2];
	double	sq_error[SIM_NR_POLICIES][SIM_NR_ESTIMATORS];	/* rates */
	long	events;			/* rates: events measured */
	bool	single;			/* rates: against single-event runs */
};

/* pmu.c */
int sim_pmu_get(const char *name, struct sim_pmu *pmu);
void sim_pmu_list(void);
const struct event_constraint *sim_constraint(const struct sim_pmu *pmu,
					      u64 code);
int sim_event_parse(const struct sim_pmu *pmu, const char *str,
		    struct sim_event *ev);
bool sim_have_names(void);

/* sim.c */
void sim_event_set(struct sim_event *ev, u64 mask, int flags, bool excl);
void sim_reset(struct sim *s);
int sim_pass(struct sim *s, int tid);
void sim_tick(struct sim *s);
void sim_run(struct sim *s, long iters);
double sim_roc_cost(const struct sim_event *ev, long now);
double sim_roc_paper_cost(const struct sim_event *ev, long now);
double sim_estimate(const struct sim_event *ev, long iters,
		    enum sim_estimator how);
void sim_rate_phases(struct sim_rate *r, u64 seed, long max_len, int noise);
double sim_share(const struct sim *s, int tid);

int sim_series_limit(const struct sim *s);
void sim_eval(struct sim *s, long iters, struct sim_tally *tl);
void sim_eval_exhaustive(const struct sim *cfg, int k, long iters,
			 struct sim_tally *tl);
void sim_eval_random(const struct sim *cfg, int k, bool table, long iters,
		     long count, u64 seed, struct sim_tally *tl);
void sim_eval_xsu(const struct sim *cfg, int k, long iters, long count,
		  u64 seed, struct sim_tally *tl);
void sim_eval_rates(const struct sim *cfg, int k, long iters, long count,
		    u64 seed, enum sim_workload load, int max_period, int noise,
		    bool single, struct sim_tally *tl);

#endif
