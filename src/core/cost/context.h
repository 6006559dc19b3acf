/* context.h - what every cost formula of one evaluation reads: the job, tokens per device,
 * the peaks and efficiencies of the precision in use, and the links of the TP, CP and EP
 * groups. Built once per evaluation (ctx_init), read-only afterwards. */
#ifndef STRATA_CORE_COST_CONTEXT_H
#define STRATA_CORE_COST_CONTEXT_H

#include "core/cluster.h"
#include "core/cost/comm.h"
#include "core/model.h"
#include "core/strategy.h"

#define COST_GIB (1024.0 * 1024.0 * 1024.0)
#define ACT_BYTES 2.0 /* activations are stored in 16 bits (fp8 runs keep bf16 copies) */

typedef struct {
	const model_t *m;
	const cluster_t *c;
	const strategy_t *s;
	double b, seq;          /* micro-batch, sequence length */
	double tok;             /* tokens per device as the TP group sees them: b * seq / cp */
	double tok_sp;          /* the sequence-parallel shard: tok / sp_div */
	double tok_moe;         /* tokens each rank routes: tok / tp (Megatron splits them over TP) */
	double moe_cf;          /* busiest expert rank's tokens over the mean (1 = balanced) */
	double sp_div;          /* tp with sequence parallelism, else 1 */
	double peak, peak16;    /* tensor peak of the run's precision, and of its 16-bit format */
	double hbm;             /* achievable HBM bandwidth, bytes/s */
	double geff, ghalf;     /* GEMM efficiency (fp8 or 16-bit) and its roll-off dimension */
	comm_link tp_l, cp_l, ep_l;
	double tp_exp;          /* fraction of TP communication left exposed (1 - tp_overlap) */
} cost_ctx;

/* Fill x for evaluating strategy s of model m on cluster c. */
void ctx_init(cost_ctx *x, const model_t *m, const cluster_t *c, const strategy_t *s);

#endif
