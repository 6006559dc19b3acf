/* sweep.h - one knob of a job swept over a range (global batch, sequence length, devices,
 * micro-batch), each point evaluated by the cost model: what `strata sweep` prints and the
 * explorer's sweep view plots. */
#ifndef STRATA_SOLVE_SWEEP_H
#define STRATA_SOLVE_SWEEP_H

#include "core/evaluate.h"

#define SWEEP_MAX 64

typedef enum { SWEEP_GBS, SWEEP_SEQ, SWEEP_DEVICES, SWEEP_MBS, SWEEP_KNOBS } sweep_knob;
/* What a chart plots. */
typedef enum { SWEEP_STEP, SWEEP_MFU, SWEEP_PEAK, SWEEP_TOKENS, SWEEP_METRICS } sweep_metric;

typedef struct {
	sweep_knob knob;
	int n;
	long v[SWEEP_MAX];
} sweep_spec;

typedef struct {
	long value;
	int valid, fits, dp;
	double step, mfu, tokens_per_s, peak_gib;
	char why[256];          /* !valid: the core's reason */
} sweep_point;

/* Parse "KNOB=a..b" (a, 2a, 4a, ... up to b), "KNOB=a..b+s" (a, a+s, ... up to b) or
 * "KNOB=a,b,c"; KNOB is gbs|global_batch, seq|seq_length, devices|n, mbs|micro_batch.
 * 0, or -1 with the reason in err. */
int sweep_parse(const char *text, sweep_spec *o, char *err, size_t errlen);
/* 1 when text starts with a sweep knob's name and '=' (a spec, not a file). */
int sweep_is_spec(const char *text);
/* The plan key of a knob ("global_batch") and its short name ("gbs"). */
const char *sweep_knob_key(sweep_knob k);
const char *sweep_knob_short(sweep_knob k);
/* A metric by name (step, mfu, peak, tokens); -1 when unknown. Its name. */
int sweep_parse_metric(const char *name);
const char *sweep_metric_name(sweep_metric m);
/* The metric's value at a valid point. */
double sweep_metric_of(const sweep_point *p, sweep_metric m);
/* The job's strategy s with the knob at value v: devices (dp re-derived: *devices set)
 * or the strategy field. */
void sweep_apply(sweep_knob k, long v, strategy_t *s, int *devices);
/* Evaluate each point of spec from the job (m, c, devices, s, budget) into out[spec->n]. */
void sweep_run(const model_t *m, const cluster_t *c, int devices, const strategy_t *s, double budget_gib,
		const sweep_spec *spec, sweep_point *out, eval_result *scratch);

#endif
