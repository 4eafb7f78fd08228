// SPDX-License-Identifier: GPL-2.0
/*
 * Today's greedy perf_assign_events(), compiled unmodified: the Makefile
 * copies arch/x86/events/core.c of BASE from "struct sched_state {" to
 * "EXPORT_SYMBOL_GPL(perf_assign_events);" into $(O)/greedy-core.c.
 */
#include "perf_event.h"

#define perf_assign_events greedy_assign_events
#include "greedy-core.c"
