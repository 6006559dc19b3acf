/* advice.h - "why is it slow": the plan's dominant losses in plain words, each with the
 * one change the model says helps most and by how much, measured by evaluating the changed
 * plan; and the placement of each parallel group on the nodes. Above the core: it calls
 * eval_run on alternatives (core/why.c only formats the core's rejection reasons). */
#ifndef STRATA_SOLVE_ADVICE_H
#define STRATA_SOLVE_ADVICE_H

#include "core/evaluate.h"

#define ADV_MAX 6

/* What a loss is: one part of the step (eval_step_parts) or the memory budget. */
typedef enum {
	ADV_MEMORY, ADV_TP, ADV_CP, ADV_EP, ADV_PP, ADV_DP, ADV_BUBBLE, ADV_RECOMPUTE, ADV_OPTIMIZER,
	ADV_COMPUTE, ADV_KINDS
} adv_kind;

typedef struct {
	adv_kind kind;
	double seconds, share;   /* the loss per step and its fraction of the step */
	char loss[200];          /* "tp 16 spans 2 nodes: TP all-reduce on the network is 29 % of the step" */
	int has_fix;             /* a change was found that helps (faster, or fits when over) */
	char fix[120];           /* "tp 8 with pp 8" */
	strategy_t fix_s;        /* the changed strategy (devices unchanged) */
	double fix_step, fix_peak_gib;
	double gain;             /* fix_step / step - 1: negative is faster */
} adv_item;

typedef struct {
	int n;
	adv_item item[ADV_MAX];  /* the largest loss first (an over-budget plan: memory first) */
} adv_list;

/* One parallel group's placement in Megatron's rank order (tp, cp, ep, dp, pp). */
typedef struct {
	const char *name;        /* "TP", "CP", "EP", "DP", "PP" */
	int size;                /* ranks in the group */
	int nodes;               /* nodes one group spans: 1 = inside a node */
} adv_group;

#define ADV_GROUPS 5

/* The losses of r (a valid evaluation of s on devices devices under budget_gib) and their
 * best single change; knobs whose bit (1 << KNOB_*) is in pinned are not changed. 0, or -1
 * when out of memory or r is not valid. */
int advice_run(const model_t *m, const cluster_t *c, int devices, const strategy_t *s, double budget_gib,
		const eval_result *r, unsigned pinned, adv_list *out);
/* The groups of s on c, into out[ADV_GROUPS]. */
void advice_placement(const cluster_t *c, const strategy_t *s, adv_group out[ADV_GROUPS]);
/* One group in words: "TP 8 inside a node", "DP 16 across 16 nodes", "CP 1 (none)". */
void advice_group_text(const adv_group *g, char *out, size_t n);
/* The JSON name of a kind: "memory", "tp", ..., "compute". */
const char *advice_kind_name(adv_kind k);
/* The fix in words with its measured effect: "tp 8 with pp 8: -21 % step (6.25 s, 61.0 GiB)",
 * or "no single change the model tried helps" when there is none. */
void advice_fix_text(const adv_item *it, char *out, size_t n);

#endif
