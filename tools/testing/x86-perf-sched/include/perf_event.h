/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What arch/x86/events/assign.c and the greedy scheduler extracted from
 * arch/x86/events/core.c need of arch/x86/events/perf_event.h and the
 * headers behind it, for user space.
 */
#ifndef _SHIM_PERF_EVENT_H
#define _SHIM_PERF_EVENT_H

#include <linux/bitops.h>

#define INTEL_PMC_IDX_FIXED		32
#define INTEL_PMC_IDX_METRIC_BASE	(INTEL_PMC_IDX_FIXED + 16)
#define X86_PMC_IDX_MAX			64

#define PERF_X86_EVENT_EXCL		0x0000020
#define PERF_X86_EVENT_PAIR		0x0001000

#define WARN_ON_ONCE(x)			(x)
#define SHIM_NO_EXPORT(sym)		extern int sym##_exported
#define EXPORT_SYMBOL_GPL		SHIM_NO_EXPORT

struct event_constraint {
	union {
		unsigned long	idxmsk[BITS_TO_LONGS(X86_PMC_IDX_MAX)];
		u64		idxmsk64;
	};
	u64		code;
	u64		cmask;
	int		weight;
	int		overlap;
	int		flags;
	unsigned int	size;
};

int x86_assign_counters(struct event_constraint **constraints, int n,
			int gpmax, const int *prev, int *assign);

/* arch/x86/events/core.c of BASE, built as greedy.o */
int greedy_assign_events(struct event_constraint **constraints, int n,
			 int wmin, int wmax, int gpmax, int *assign);

#endif
