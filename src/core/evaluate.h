/* evaluate.h - the cost model: memory per pipeline stage and step time of one strategy.
 * Closed forms only; no allocation, no I/O, safe to call millions of times. */
#ifndef STRATA_CORE_EVALUATE_H
#define STRATA_CORE_EVALUATE_H

#include "core/model.h"
#include "core/cluster.h"
#include "core/strategy.h"

#define EVAL_MAX_STAGES 256

/* Bytes per device on one pipeline stage, by component. */
typedef struct {
	double weights, grads, optimizer, activations, buffers, total;
	int layers;                 /* transformer layers held (all chunks) */
	double inflight;            /* micro-batches whose activations are held at the peak */
} eval_mem;

/* Seconds per micro-batch on one stage (all chunks), for the timeline and the ILP. */
typedef struct {
	double fwd, bwd, wgrad;     /* wgrad is the weight-gradient part of bwd (zero-bubble) */
	double recompute;           /* part of bwd spent recomputing */
	double compute;             /* fwd+bwd compute without recompute */
	double tp, cp, ep, pp;      /* exposed communication inside fwd+bwd */
	double dp_exposed, optimizer; /* once per step */
} eval_stage_time;

typedef struct {
	int valid;                  /* 0: strategy rejected, see why */
	char why[256];
	int stages, chunks, microbatches;
	eval_mem mem[EVAL_MAX_STAGES];
	eval_stage_time st[EVAL_MAX_STAGES];
	double peak_bytes, budget_bytes;
	int peak_stage, fits;
	/* step time and its parts (seconds); the parts add up to step */
	double step, compute, recompute, bubble, optimizer;
	double tp, cp, ep, pp, dp, comm_exposed;
	int slow_stage;             /* stage that sets the steady-state pace */
	double tokens_per_s, mfu, hfu;
	double model_flops, hw_flops; /* per step, whole job */
	double params_total, params_active;
} eval_result;

/* Evaluate a strategy. budget_gib <= 0 means the cluster default (memory less reserve).
 * Returns 0 when evaluated (fits may still be 0), -1 when the strategy is invalid. */
int eval_run(const model_t *m, const cluster_t *c, int devices, const strategy_t *s,
		double budget_gib, eval_result *r);

/* Activation bytes one layer of kind k keeps per micro-batch on one device under recompute
 * mode `mode` (the per-layer term of Korthikanti et al. 2022); -1 if the strategy is
 * invalid. */
double eval_layer_activation(const model_t *m, const cluster_t *c, const strategy_t *s, int k, int mode);

/* Default memory budget of a cluster in GiB (device memory less the runtime reserve). */
double eval_default_budget_gib(const cluster_t *c);

#endif
