/* context.h - what every cost formula of one evaluation reads: the job, tokens per device,
 * the peaks and efficiencies of the precision in use, and the links of the TP, CP and EP
 * groups. Built once per evaluation (ctx_init), read-only afterwards. */
#ifndef STRATA_CORE_COST_CONTEXT_H
#define STRATA_CORE_COST_CONTEXT_H

#include "core/cluster.h"
#include "core/framework.h"
#include "core/cost/comm.h"
#include "core/model.h"
#include "core/strategy.h"

#define COST_GIB (1024.0 * 1024.0 * 1024.0)
/* The output tile of one GEMM thread block (cuBLAS's large-GEMM tiles for 16-bit inputs on
 * Volta to Hopper: 256 x 128; NVIDIA, "Matrix Multiplication Background User's Guide",
 * section "Wave Quantization"), by which compute_gemm counts waves. */
#define COMPUTE_TILE_M 256.0
#define COMPUTE_TILE_N 128.0
#define ACT_BYTES 2.0 /* activations are stored in 16 bits (fp8 runs keep bf16 copies) */

/* Bytes per element of the optimizer's tensors as the plan stores them: main parameter,
 * main gradient, Adam's first and second moment; rem when the main parameter is kept as
 * the 16-bit remainder of an fp32 master beside the bf16 weight (p is then 2). */
typedef struct {
	double p, g, m, v;
	int rem;
} mem_opt;

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
	double wave;            /* output elements of half a wave of GEMM tiles (compute_gemm);
	                         * 0: the device's SM count is unknown */
	comm_link tp_l, ep_l;
	/* USP (strat_cp_ulysses): the Ulysses group, u adjacent CP ranks (stride tp), and the
	 * ring over the cp/u groups (stride tp*u); Megatron's hierarchical CP puts the first
	 * level on adjacent ranks (parallel_state.py, hierarchical_context_parallel_sizes) */
	int cp_u;
	comm_link cpu_l, cpr_l;
	double moe_rep;         /* physical over logical experts per EP rank (strat_moe_replica) */
	int experts;            /* the most routed experts of a layer kind (model_max_experts) */
	double tp_exp;          /* fraction of TP communication left exposed (1 - tp_overlap) */
	double pp_div;          /* TP ranks a pipeline send is split over (scatter/gather), or 1 */
	const fw_caps *fw;       /* the table of the framework that prices the plan */
	mem_opt ob;             /* the optimizer's bytes per element (mem_opt_bytes) */
} cost_ctx;

/* Fill x for evaluating strategy s of model m on cluster c. */
void ctx_init(cost_ctx *x, const model_t *m, const cluster_t *c, const strategy_t *s);
/* Only what the CP split's communication reads (lcomm_cp_price), the rest zeroed: USP
 * variants of priced layer kinds (eval_kinds_resplit). */
void ctx_init_cp(cost_ctx *x, const model_t *m, const cluster_t *c, const strategy_t *s);
/* The context layer kind k is priced in: x itself, or for a vision-encoder kind a copy in
 * *buf that sees each image as a sequence of its own (seq = enc_tokens, micro-batch b x
 * images per sample; the CP group shares the images out, see layer_comm.c). */
const cost_ctx *ctx_kind(const cost_ctx *x, int k, cost_ctx *buf);

/* Seconds to send a stage boundary of `bytes` (per TP rank, as the layer holds it) to the
 * next stage over link l. Without sequence parallelism every TP rank holds the whole
 * boundary; Megatron-LM and DeepSpeed then send 1/tp of it from each rank, in parallel on
 * their own links, and all-gather it over TP on arrival (Narayanan et al. 2021, arXiv
 * 2104.04473, sec. 4.1, "scatter/gather communication optimization"). */
static inline double ctx_pp_send(const cost_ctx *x, comm_link l, double bytes)
{
	if (x->pp_div <= 1)
		return comm_p2p(l, bytes);
	return comm_p2p(l, bytes / x->pp_div) + comm_allgather(x->tp_l, x->s->tp, bytes);
}

#endif
