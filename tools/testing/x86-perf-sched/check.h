/* SPDX-License-Identifier: GPL-2.0 */
/* What check.c and sim_test.c share. */
#ifndef _CHECK_H
#define _CHECK_H

#include <stdbool.h>

/* One TAP test line. */
void result(bool ok, const char *fmt, ...);

/* The simulator's tests; @sched_sim is its binary, or NULL. */
void sim_tests(const char *sched_sim);

#endif
