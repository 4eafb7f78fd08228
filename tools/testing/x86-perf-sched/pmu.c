// SPDX-License-Identifier: GPL-2.0
/*
 * PMU presets of the simulator. The constraint tables, the macros that
 * build them, the check intel_pmu_init() runs on them, constraint_match()
 * and AMD's pair event test are cut out of BASE at build time (see the
 * Makefile and extract.sh) and compiled here unmodified; nothing of them
 * is copied into this directory. The lookup is the one of
 * x86_get_event_constraints() and amd_get_event_constraints_f17h(), for
 * events that are neither precise nor use shared registers.
 *
 * Event names are libpfm4's when the simulator is built with it
 * (Debian: libpfm4-dev); raw codes work either way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_LIBPFM
#include <perfmon/pfmlib.h>
#endif

#include "perf_event.h"
#include "sim.h"

/* What the text cut out of BASE needs besides the shim. */
#define __read_mostly
#define HWEIGHT(w)		__builtin_popcountll(w)

#include "kernel-defs.h"
#include "intel-tables.c"

struct hw_perf_event {
	u64	config;
};

static const struct {
	int	flags;
} x86_pmu = { .flags = PMU_FL_PAIR };

#include "amd-pair.c"

/* Family 17h (Zen 1 and 2): six counters, PMU_FL_PAIR. */
#define ZEN_COUNTERS	6

static inline int x86_pmu_max_num_counters(const void *pmu)
{
	return ZEN_COUNTERS;
}

/* The pair constraint as amd_core_pmu_init() builds it. */
static struct event_constraint zen_pair_constraint(void)
{
	struct event_constraint pair_constraint;
	u64 even_ctr_mask = 0ULL;
	int i;

#include "amd-pair-init.c"

	return pair_constraint;
}

struct preset {
	const char		*name;
	const char		*desc;
	const char		*pfm;
	int			nr_gp;
	int			nr_fixed;
	int			nr_metric;
	bool			xsu;
	bool			pair;
	struct event_constraint	*table;
};

static const struct preset presets[] = {
	{ "snb", "Sandy Bridge (HT on)", "snb", 4, 3, 0, true, false,
	  intel_snb_event_constraints },
	{ "ivb", "Ivy Bridge (HT on)", "ivb", 4, 3, 0, true, false,
	  intel_ivb_event_constraints },
	{ "hsw", "Haswell (HT on)", "hsw", 4, 3, 0, true, false,
	  intel_hsw_event_constraints },
	{ "skl", "Skylake (HT off)", "skl", 8, 3, 0, false, false,
	  intel_skl_event_constraints },
	{ "icl", "Ice Lake", "icl", 8, 4, 4, false, false,
	  intel_icl_event_constraints },
	{ "spr", "Sapphire Rapids", "spr", 8, 4, 8, false, false,
	  intel_glc_event_constraints },
	{ "zen", "AMD Zen 2 (family 17h)", "amd64_fam17h_zen2", ZEN_COUNTERS,
	  0, 0, false, true, NULL },
};

static bool checked[ARRAY_SIZE(presets)];

/*
 * Fill @pmu from a preset, or for "gpN" a PMU of N generic counters and
 * nothing else. Returns 0, or -1 for an unknown name.
 */
int sim_pmu_get(const char *name, struct sim_pmu *pmu)
{
	const struct preset *p = NULL;
	u64 cntr_mask, fixed_mask;
	int i, nr_gp;
	char end;

	memset(pmu, 0, sizeof(*pmu));
	if (sscanf(name, "gp%d%c", &nr_gp, &end) == 1) {
		if (nr_gp < 1 || nr_gp > INTEL_PMC_IDX_FIXED)
			return -1;
		snprintf(pmu->name, sizeof(pmu->name), "gp%d", nr_gp);
		snprintf(pmu->desc, sizeof(pmu->desc),
			 "%d generic counters, no table", nr_gp);
		pmu->nr_gp = nr_gp;
	} else {
		for (i = 0; i < ARRAY_SIZE(presets) && !p; i++) {
			if (!strcmp(name, presets[i].name))
				p = &presets[i];
		}
		if (!p)
			return -1;
		snprintf(pmu->name, sizeof(pmu->name), "%s", p->name);
		snprintf(pmu->desc, sizeof(pmu->desc), "%s", p->desc);
		pmu->pfm = p->pfm;
		pmu->nr_gp = p->nr_gp;
		pmu->nr_fixed = p->nr_fixed;
		pmu->nr_metric = p->nr_metric;
		pmu->xsu = p->xsu;
		pmu->pair = p->pair;
		pmu->table = p->table;
	}

	cntr_mask = GENMASK_ULL(pmu->nr_gp - 1, 0);
	fixed_mask = BIT_ULL(pmu->nr_fixed) - 1;
	if (p && p->table && !checked[p - presets]) {
		/* as intel_pmu_init() does, once */
		intel_pmu_check_event_constraints(p->table, cntr_mask, fixed_mask,
						  cntr_mask | fixed_mask << INTEL_PMC_IDX_FIXED);
		checked[p - presets] = true;
	}

	pmu->unconstrained = (struct event_constraint)
		__EVENT_CONSTRAINT(0, cntr_mask, 0, pmu->nr_gp, 0, 0);
	if (pmu->pair)
		pmu->pair_constraint = zen_pair_constraint();

	return 0;
}

void sim_pmu_list(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(presets); i++)
		printf("%-4s %-26s %d generic + %d fixed%s%s%s\n",
		       presets[i].name, presets[i].desc, presets[i].nr_gp,
		       presets[i].nr_fixed,
		       presets[i].nr_metric ? " + TopDown metrics" : "",
		       presets[i].xsu ? ", XSU (erratum BJ122/BV98/HSD29)" : "",
		       presets[i].pair ? ", pair events" : "");
	printf("gpN  N generic counters, no constraint table\n");
}

/* The static constraint of @code, as the kernel looks it up. */
const struct event_constraint *sim_constraint(const struct sim_pmu *pmu,
					      u64 code)
{
	struct hw_perf_event hwc = { .config = code };
	struct event_constraint *c;

	if (pmu->pair)
		return amd_is_pair_event_code(&hwc) ? &pmu->pair_constraint :
						      &pmu->unconstrained;
	if (pmu->table) {
		for_each_event_constraint(c, pmu->table) {
			if (constraint_match(c, code))
				return c;
		}
	}

	return &pmu->unconstrained;
}

#ifdef HAVE_LIBPFM
bool sim_have_names(void)
{
	return true;
}

/* libpfm4's encoding of @str on @pmu, for user and kernel. */
static int encode(const struct sim_pmu *pmu, const char *str, u64 *code)
{
	static char forced[32];
	pfm_pmu_encode_arg_t arg;
	typeof(*arg.codes) codes[4];

	if (!pmu->pfm)
		return -1;
	if (strcmp(forced, pmu->pfm)) {
		if (forced[0])
			pfm_terminate();
		setenv("LIBPFM_FORCE_PMU", pmu->pfm, 1);
		forced[0] = 0;
		if (pfm_initialize() != PFM_SUCCESS)
			return -1;
		snprintf(forced, sizeof(forced), "%s", pmu->pfm);
	}

	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.codes = codes;
	arg.count = ARRAY_SIZE(codes);
	if (pfm_get_os_event_encoding(str, PFM_PLM0 | PFM_PLM3, PFM_OS_NONE,
				      &arg) != PFM_SUCCESS || arg.count < 1)
		return -1;

	*code = codes[0];
	return 0;
}
#else
bool sim_have_names(void)
{
	return false;
}

static int encode(const struct sim_pmu *pmu, const char *str, u64 *code)
{
	return -1;
}
#endif

/*
 * @str is a raw code ("0x81d0", or perf's "r81d0") or an event name;
 * fill @ev with its code and static constraint. Returns 0, or -1 with a
 * message.
 */
int sim_event_parse(const struct sim_pmu *pmu, const char *str,
		    struct sim_event *ev)
{
	const struct event_constraint *c;
	char *end;
	u64 code;

	if (!strncmp(str, "0x", 2) || str[0] == 'r') {
		code = strtoull(str + (str[0] == 'r' ? 1 : 2), &end, 16);
		if (*end || end == str + 1) {
			fprintf(stderr, "sched_sim: bad raw event '%s'\n", str);
			return -1;
		}
	} else if (encode(pmu, str, &code)) {
		if (sim_have_names())
			fprintf(stderr, "sched_sim: libpfm4 knows no event '%s' on %s\n",
				str, pmu->pfm ? pmu->pfm : pmu->name);
		else
			fprintf(stderr,
				"sched_sim: '%s': no libpfm4-dev at build time, raw codes only (0x81d0)\n",
				str);
		return -1;
	}

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", str);
	ev->code = code;
	c = sim_constraint(pmu, code);
	sim_event_set(ev, c->idxmsk64, c->flags,
		      pmu->xsu && (c->flags & PERF_X86_EVENT_EXCL));

	return 0;
}
