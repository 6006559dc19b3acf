/* knob.h - the strategy knobs a person turns in the explorer, and stepping each one to the
 * next value the core accepts. Pure: no I/O, no allocation. The rules themselves live in
 * strat_validate(); this module only proposes candidates in order and keeps the first one
 * the core accepts, so the explorer can never step into an invalid strategy. */
#ifndef STRATA_CORE_KNOB_H
#define STRATA_CORE_KNOB_H

#include "core/cluster.h"
#include "core/model.h"
#include "core/strategy.h"

#include <stddef.h>

typedef enum {
	KNOB_DP, KNOB_TP, KNOB_PP, KNOB_VPP, KNOB_CP, KNOB_EP, KNOB_ETP, KNOB_ZERO,
	KNOB_MBS, KNOB_GBS, KNOB_SEQ, KNOB_SP, KNOB_RECOMPUTE, KNOB_SCHEDULE, KNOB_PRECISION,
	KNOB_BUDGET, KNOB_DEVICES, KNOB_COUNT
} knob_id;

/* What the knobs change: the strategy, the device count (its own knob; dp follows it, and a
 * dp step adds or removes whole replicas, so devices moves along) and the memory budget
 * (0 = the cluster default). */
typedef struct {
	strategy_t s;
	int devices;
	double budget_gib;
} knob_job;

/* The knob shown on row `row` (0 .. KNOB_COUNT-1) of the explorer's list: devices first,
 * then dp, tp, ... budget; and the row of a knob (the inverse). */
knob_id knob_at(int row);
int knob_row(knob_id k);
/* Plan-file key of a knob ("tp", "micro_batch", "budget_gib", "devices"). */
const char *knob_key(knob_id k);
/* Short label for display ("micro batch"). */
const char *knob_label(knob_id k);
/* Knob named by a plan key or an alias (mbs, gbs, seq, budget, n); -1 when none. */
int knob_find(const char *key);
/* Current value for display ("8", "on", "selective", "76.0"). */
void knob_format(const knob_job *j, const cluster_t *c, knob_id k, char *out, size_t n);
/* "key=value" in plan syntax, for a pin of the knob's current value. */
void knob_pin_text(const knob_job *j, const cluster_t *c, knob_id k, char *out, size_t n);
/* Bit of the knob a "key=value" pin fixes; 0 for other pins (e.g. experts.ep=8). */
unsigned knob_pin_bit(const char *pin);
/* Keep the derived quantities consistent after knob k (devices when k < 0 or KNOB_DEVICES)
 * changed: dp = devices / (tp*pp*cp) after tp, pp, cp or devices; devices = dp*tp*pp*cp
 * after dp (the devices bit is then in the mask);
 * the interleaved schedule with vpp > 1 and vpp = 1 without it. Returns a bit mask of the
 * other knobs it changed. Leaves dp alone when the division is not exact (the core then
 * explains why the strategy is invalid). */
unsigned knob_rederive(knob_job *j, int k);
/* Move knob k one valid value up (dir > 0) or down (dir < 0). Candidates that would change
 * a knob in `pinned` are skipped. 0 and j updated (*changed gets the mask of other knobs
 * that moved along); -1 with a sentence in why when no valid value exists that way. */
int knob_step(const model_t *m, const cluster_t *c, knob_job *j, knob_id k, int dir, unsigned pinned,
		unsigned *changed, char *why, size_t whylen);

#endif
