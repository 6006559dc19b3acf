/* regime.h - the regimes of a plan that no published validation case measures: where the
 * cost model is extrapolating, so a search winner that depends on them is a hypothesis. */
#ifndef STRATA_CORE_REGIME_H
#define STRATA_CORE_REGIME_H

#include <stddef.h>

#include "core/cluster.h"
#include "core/model.h"
#include "core/strategy.h"

enum {
	REGIME_SCHEDULE = 1,    /* gpipe, zb-v or dualpipe: no validation run uses them */
	REGIME_SHORT_CP = 2,    /* context parallelism across nodes below 16K tokens */
	REGIME_CP_SCALE = 4,    /* cp above 32, or fewer than 2,048 tokens a cp rank: ring
	                         * steps that short are latency-bound, which is not priced */
	REGIME_UNCALIBRATED = 8, /* the device family has no calibrating run: its efficiency
	                          * constants are another family's (cluster_t.eff_from) */
	REGIME_COUNT = 4
};

/* The REGIME_* bits of strategy s of model m on cluster c. */
unsigned regime_unvalidated(const model_t *m, const cluster_t *c, const strategy_t *s);
/* The short name of bit i (0 .. REGIME_COUNT-1): "schedule", "short-context cp", "cp scale". */
const char *regime_name(int i);
/* The names of the bits of r, comma-separated, into buf[n] ("" for none). */
void regime_text(unsigned r, const strategy_t *s, char *buf, size_t n);

#endif
