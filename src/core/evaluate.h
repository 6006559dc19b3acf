/* evaluate.h - the cost model: memory per pipeline stage and step time of one strategy.
 * Closed forms only; no allocation, no I/O, safe to call millions of times. */
#ifndef STRATA_CORE_EVALUATE_H
#define STRATA_CORE_EVALUATE_H

#include "core/model.h"
#include "core/cluster.h"
#include "core/strategy.h"
#include "core/cost/layer.h"

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
	double host;                /* exposed activation copies to and from the host (inside fwd+bwd) */
	double dp_exposed, optimizer; /* once per step */
} eval_stage_time;

/* Pipeline stages lo..hi-1 of one evaluation: they hold the same layers and cost the same
 * per micro-batch, so they differ only in their in-flight micro-batches (the schedule's
 * closed form in the stage index), which eval_stage_mem derives on demand. */
typedef struct {
	eval_mem mem;               /* activations, total and inflight: 0 (they are per stage) */
	eval_stage_time st;         /* every stage of the span's */
	double act;                 /* activation bytes per in-flight micro-batch */
	int lo, hi;
} eval_span;

/* The figures of each stage are kept per span of alike stages, not per stage, so that an
 * evaluation costs about the same at any pipeline depth: read them with eval_stage_mem and
 * eval_stage_time_of. */
typedef struct {
	int valid;                  /* 0: strategy rejected, see why */
	char why[256];
	int stages, chunks, microbatches;
	int schedule;               /* SCHED_*: places each stage's in-flight micro-batches */
	int nspans;                 /* spans, in stage order, covering stages 0..stages-1 */
	double logits;              /* bytes the last stage adds for the logits and loss */
	eval_span span[EVAL_MAX_STAGES];
	double peak_bytes, budget_bytes;
	int peak_stage, fits;
	/* step time and its parts (seconds); the parts add up to step */
	double step, compute, recompute, bubble, optimizer;
	double tp, cp, ep, pp, dp, comm_exposed;
	double pp_once;             /* the part of pp paid once per step: the tied embedding's
	                             * gradient all-reduce between the first and last stage */
	double host;                /* activation offload's exposed host copies (in comm_exposed) */
	int dp_group;               /* what the dp part synchronises: EVAL_DP_* (its name) */
	int slow_stage;             /* stage that sets the steady-state pace */
	double tokens_per_s, mfu, hfu;
	double model_flops, hw_flops; /* per step, whole job */
	double params_total, params_active;
} eval_result;

/* Memory of pipeline stage i (0 <= i < r->stages) of a valid evaluation: its span's bytes
 * with the stage's own in-flight micro-batches, activations and total. */
eval_mem eval_stage_mem(const eval_result *r, int i);
/* Seconds per micro-batch of stage i (0 <= i < r->stages) of a valid evaluation. */
eval_stage_time eval_stage_time_of(const eval_result *r, int i);
/* The span holding stage i (0 <= i < r->stages). */
const eval_span *eval_span_of(const eval_result *r, int i);

/* What eval_result.dp (the gradient sync) runs over. With dp > 1 it is the data-parallel
 * group ("dp comm"); with one replica there is no such group, but the dense gradients are
 * still reduced over the cp ranks (Megatron's data-parallel-with-cp group), and the
 * experts' over their own data-parallel group dp*cp*tp/(ep*etp), so the part is named
 * after the group that is really there: "dp-cp comm" or "edp comm". */
enum { EVAL_DP, EVAL_DP_CP, EVAL_EDP };
/* The JSON name of a dp group: "dp", "dp-cp", "edp". */
const char *eval_dp_group_name(int g);

/* One part of the step time (they add up to eval_result.step). */
typedef struct {
	const char *name;           /* "compute", "recompute", "bubble", "tp comm", ... */
	double s;                   /* seconds per step */
} eval_part;

#define EVAL_NPARTS 9
/* The parts of r's step time, in the order the reports print them, into out[EVAL_NPARTS]. */
void eval_step_parts(const eval_result *r, eval_part out[EVAL_NPARTS]);

/* 1 when a and b are valid and agree on every figure eval --json reports (each part of the
 * step, memory and times per stage, peak, MFU, HFU, tokens/s, counts) within a relative
 * tolerance rel (0: bit-equal); 0 otherwise. */
int eval_alike(const eval_result *a, const eval_result *b, double rel);

/* Evaluate a strategy. budget_gib <= 0 means the cluster default (memory less reserve).
 * Returns 0 when evaluated (fits may still be 0), -1 when the strategy is invalid. */
int eval_run(const model_t *m, const cluster_t *c, int devices, const strategy_t *s,
		double budget_gib, eval_result *r);

/* The layer-kind costs of a strategy: the part of eval_run that depends on neither the
 * device split (dp, pp, vpp), the batch, the recompute mode, the layer split, the ZeRO level
 * (but through the framework it implies) nor the schedule (but DualPipe). The search prices
 * them once per eval_kinds_same class and reuses them across device splits. */
typedef struct {
	int nkinds;
	layer_cost kc[MODEL_MAX_KINDS];
} eval_kinds;

/* Every field of a strategy that the layer-kind costs read: strategies with equal keys
 * share them (eval_kinds_same). Padding is zeroed, so keys compare with memcmp. */
typedef struct {
	int tp, cp, ep, etp, micro_batch, seq, cp_ulysses, moe_redundant;
	double moe_cf;
	uint8_t sp, flash, tp_overlap, precision, rc_modules, fp8_cache, loss_fusion;
	uint8_t framework, dualpipe, moe_disp, moe_route;
} eval_kinds_key;

/* Price the layer kinds of s into k. */
void eval_kinds_get(const model_t *m, const cluster_t *c, const strategy_t *s, eval_kinds *k);
/* The key of s's layer-kind costs (the CP split as its Ulysses degree). */
eval_kinds_key eval_kinds_key_of(const strategy_t *s);
/* Turn k, priced for a strategy whose key differs from s's in cp_ulysses alone, into s's:
 * only the CP communication depends on the split, so only it is priced again (the search's
 * USP variants). The result equals eval_kinds_get's for s bit for bit. */
void eval_kinds_resplit(const model_t *m, const cluster_t *c, const strategy_t *s, eval_kinds *k);
/* 1 when a and b share their layer-kind costs (their eval_kinds_key are equal). */
int eval_kinds_same(const strategy_t *a, const strategy_t *b);
/* eval_run with the layer-kind costs k of a strategy that is eval_kinds_same as s (NULL:
 * priced here): the same result, bit for bit. */
int eval_run_kinds(const model_t *m, const cluster_t *c, int devices, const strategy_t *s,
		double budget_gib, const eval_kinds *k, eval_result *r);

/* Activation bytes one layer of kind k keeps per micro-batch on one device under recompute
 * mode `mode` (the per-layer term of Korthikanti et al. 2022); -1 if the strategy is
 * invalid. */
double eval_layer_activation(const model_t *m, const cluster_t *c, const strategy_t *s, int k, int mode);

/* Default memory budget of a cluster in GiB, allocated bytes: device memory less the context and allocator slack. */
double eval_default_budget_gib(const cluster_t *c);
/* The conventions a peak is measured in: PyTorch's max_memory_allocated (what evaluate
 * computes), the caching allocator's reserve (max_memory_reserved), nvidia-smi (the whole
 * process: the reserve plus the CUDA context). */
enum { EVAL_MEM_ALLOCATED, EVAL_MEM_RESERVED, EVAL_MEM_NVIDIA_SMI };
/* An allocated peak of alloc_gib in convention conv, with the cluster's constants. */
double eval_mem_convention(const cluster_t *c, double alloc_gib, int conv);
/* The highest MFU an evaluation can report on c at `precision`, under the model's FLOP
 * convention (Megatron's: attention counts the whole score matrix, while causal flash
 * kernels compute half of it); *hfu (may be NULL) the same for HFU. */
double eval_mfu_ceiling(const cluster_t *c, int precision, double *hfu);

/* Per-micro-batch, per-device costs of one layer of a kind, split the way eval_run adds
 * them up, so the bubble ILP (src/solve) can price any layer split and recompute mix. */
typedef struct {
	double fwd, bwd, wgrad;     /* seconds, with exposed TP/CP/EP communication; wgrad is in bwd */
	double rc[RC_COUNT];        /* seconds recomputation adds to bwd, by recompute mode */
	double act[RC_COUNT];       /* activation bytes kept for backward, by recompute mode */
	double work;                /* transient bytes while the layer runs backward */
	double p_dense, p_expert;   /* parameters held by one device */
} eval_kind_cost;

/* Everything a stage's time and memory are made of besides which layers it holds. */
typedef struct {
	int pp, vpp, microbatches, schedule, dualpipe;
	double budget;              /* bytes */
	eval_kind_cost kind[MODEL_MAX_KINDS];
	double p2p;                 /* seconds per chunk added to fwd and to bwd (pp > 1); at the
	                             * narrowest layer width when kinds differ in width (a lower
	                             * bound: eval_run prices each chunk at the width of its edges) */
	double emb_fwd, emb_bwd, emb_params, emb_act;   /* first stage: embedding (+ its acts per mb) */
	double head_fwd, head_bwd, head_wgrad, head_params, logits; /* last stage: LM head(s), loss */
	double wb, gb, ob, wbe, gbe, obe; /* bytes per dense / expert parameter: weights, grads, optimizer */
	double buffers;             /* stage buffers besides the layers' work: TP, P2P, ZeRO-3; at the
	                             * widest layer width when kinds differ (an upper bound) */
	double inflight[EVAL_MAX_STAGES]; /* micro-batches of activations held, per stage */
} eval_costs;

/* Fill o with the layer-kind costs and stage extras of a strategy (budget as in eval_run).
 * Returns 0, or -1 with the reason in why when the strategy is invalid. */
int eval_costs_get(const model_t *m, const cluster_t *c, int devices, const strategy_t *s,
		double budget_gib, eval_costs *o, char *why, size_t whylen);
/* The same for a strategy that strat_validate accepts, from the layer-kind costs k of an
 * eval_kinds_same strategy (NULL: priced here); inflight 0 leaves o->inflight zero (the
 * search's bound reads no per-stage figure). */
void eval_costs_kinds(const model_t *m, const cluster_t *c, const strategy_t *s, double budget_gib,
		const eval_kinds *k, int inflight, eval_costs *o);
/* Only the time fields of eval_costs_kinds (counts, layer-kind tables, embedding, head and
 * P2P), the same bits; the memory fields are left as they were (the search's bound). */
void eval_costs_time(const model_t *m, const cluster_t *c, const strategy_t *s, const eval_kinds *k, eval_costs *o);

#endif
