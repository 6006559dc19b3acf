/* strategy.h - a parallelisation strategy and its validity rules. */
#ifndef STRATA_CORE_STRATEGY_H
#define STRATA_CORE_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/model.h"
#include "core/cluster.h"

#define STRAT_MAX_RANGES 16
#define STRAT_MAX_CHUNKS 256   /* pp * vpp */

typedef enum { RC_NONE = 0, RC_SELECTIVE = 1, RC_FULL = 2, RC_COUNT = 3 } recompute_t;
typedef enum {
	SCHED_GPIPE = 0, SCHED_1F1B, SCHED_INTERLEAVED, SCHED_ZBH1, SCHED_ZBH2, SCHED_ZBV,
	SCHED_DUALPIPE, SCHED_COUNT
} schedule_t;
/* The context-parallel algorithm. A plan stores CP_RING or CP_ULYSSES in cp_kind; CP_USP is
 * the derived mode of a ring of Ulysses groups (Fang & Zhao 2024, "USP", arXiv 2405.07719)
 * that cp_ulysses between 1 and cp makes (strat_cp_mode). */
typedef enum { CP_RING = 0, CP_ULYSSES = 1, CP_USP = 2, CP_MODES = 3 } cp_kind_t;
/* The training framework, for the few semantics that differ between them on the same
 * strategy: what `selective` recomputation keeps, whether TP backward collectives hide
 * behind the weight-gradient GEMMs, and what the loss keeps. FW_AUTO (the default) is the
 * framework that offers the plan's ZeRO level: Megatron-LM shards at most the optimizer
 * (its distributed optimizer), so ZeRO-3 is PyTorch FSDP, whose selective recomputation is
 * per-op checkpointing (torchtitan's); see strat_framework. What each framework runs and
 * how: core/framework.h. */
typedef enum { FW_AUTO = 0, FW_MEGATRON = 1, FW_TORCHTITAN = 2, FW_DEEPSPEED = 3, FW_COUNT = 4 } framework_t;

/* What `selective` recomputes under Megatron-LM: Megatron-Core's --recompute-modules, a
 * bit each (default RCM_CORE_ATTN, Megatron's own default). */
enum {
	RCM_CORE_ATTN = 1,       /* the attention core (softmax, scores) */
	RCM_LAYERNORM = 2,       /* both norms: their outputs are not kept */
	RCM_MLA_UP_PROJ = 4,     /* MLA's up-projections and RoPE: keep the latents only */
	RCM_MOE_ACT = 8,         /* the routed experts' activation function */
	RCM_MLP = 16,            /* the whole dense MLP */
	RCM_MOE = 32,            /* the whole MoE block, its all-to-alls included */
	RCM_SHARED_EXPERTS = 64, /* the shared experts */
	RCM_COUNT = 7
};

/* Storage dtype of an optimizer tensor under Megatron's precision-aware optimizer
 * (--exp-avg-dtype etc., Transformer Engine's FusedAdam). fp32 (0) is every default. */
typedef enum { ODT_FP32 = 0, ODT_FP16 = 1, ODT_BF16 = 2, ODT_FP8 = 3, ODT_COUNT = 4 } opt_dtype_t;
/* The optimizer tensors whose dtype a plan chooses: Adam's first and second moments, the
 * main (fp32-accumulated) gradients and the main (master) parameters. */
enum { OPT_EXP_AVG = 0, OPT_EXP_AVG_SQ = 1, OPT_MAIN_GRADS = 2, OPT_MAIN_PARAMS = 3, OPT_KEYS = 4 };

/* How fp8 training stores activations for backward. FP8C_NONE: as the framework's fp8
 * linear does (Transformer Engine saves each GEMM input's fp8 copy). FP8C_DEEPSEEK: the
 * DeepSeek-V3 technical report's scheme (arXiv 2412.19437, Sec. 3.3.2, "Low-Precision
 * Storage and Communication"): the attention out-projection's input cached once in a
 * 12-bit E5M6 format that also serves the attention backward, the MoE up-projections'
 * (dispatched) inputs in fp8, and the experts' SwiGLU inputs in fp8 with the SwiGLU output
 * recomputed in backward; each with one fp32 scale per 1x128 tile. */
typedef enum { FP8C_NONE = 0, FP8C_DEEPSEEK = 1, FP8C_COUNT = 2 } fp8_cache_t;

/* How MoE tokens reach their experts (Megatron-Core's token dispatchers): `alltoall`
 * (--moe-token-dispatcher-type alltoall) sends one copy per (token, expert) pair; `deepep`
 * (--moe-token-dispatcher-type flex --moe-enable-deepep, DeepSeek's DeepEP kernels) sends a
 * token once to each node holding any of its experts, over RDMA, and forwards it inside the
 * node over NVLink (docs/cost-model.md, "Expert parallelism"). */
typedef enum { MOED_ALLTOALL = 0, MOED_DEEPEP = 1, MOED_COUNT = 2 } moe_dispatcher_t;

/* Where a token's k experts lie, which sets how many ranks and nodes DeepEP sends it to:
 * `spread` (a trained router: as if drawn at random among the experts) or `contiguous`
 * (k adjacent experts, the benchmark gates that assign tokens round-robin, such as NeMo
 * Automodel's fake_balanced_gate: expert indices (token*k + j) mod E). */
typedef enum { MOER_SPREAD = 0, MOER_CONTIGUOUS = 1, MOER_COUNT = 2 } moe_routing_t;

typedef struct {
	int lo, hi;          /* layer range [lo, hi) */
	uint8_t mode;        /* recompute_t */
} rc_range;

typedef struct {
	int dp, tp, pp, vpp, cp, ep, etp, zero;
	/* USP (Fang & Zhao 2024): the Ulysses degree u of the cp ranks, ring degree cp/u; the
	 * Ulysses group is the inner one (adjacent ranks), the ring the outer (Megatron's
	 * --hierarchical-context-parallel-sizes u cp/u with --cp-comm-type a2a+p2p). 0 or 1:
	 * what cp_kind says (ring: u = 1; ulysses: u = cp). strat_cp_ulysses reads it. */
	int cp_ulysses;
	/* Redundant experts per EP rank (DeepSeek-V3's EPLB, arXiv 2412.19437 Sec. 3.4): each
	 * rank hosts E/ep experts of its own and this many replicas of hot experts, which
	 * lower the busiest rank's excess load (docs/cost-model.md, "Redundant experts"). */
	int moe_redundant;
	int micro_batch, global_batch, seq;
	bool sp, flash, tp_overlap, vocab_parallel;
	bool loss_fusion;    /* the framework's fused cross-entropy kernel (Megatron-LM
	                      * --cross-entropy-loss-fusion --cross-entropy-fusion-impl te) */
	uint8_t fp8_cache;   /* fp8_cache_t: how fp8 activations are cached */
	uint8_t moe_disp;    /* moe_dispatcher_t: how MoE tokens are dispatched */
	uint8_t moe_route;   /* moe_routing_t: where a token's experts lie */
	uint8_t recompute, schedule, precision, cp_kind, framework;
	uint8_t rc_modules;  /* RCM_* bits: what selective recomputes (Megatron-LM) */
	uint8_t opt_dt[OPT_KEYS]; /* opt_dtype_t per OPT_* tensor; all ODT_FP32 by default */
	double moe_cf;       /* tokens of the busiest expert rank over the mean: Megatron's
	                      * --moe-expert-capacity-factor with padding to capacity, or the
	                      * imbalance expected of dropless routing; 1 = balanced (0 reads 1) */
	/* Megatron-LM's uneven pipeline split (core/transformer/transformer_config.py):
	 * layers on the first and last pipeline rank (--decoder-first/last-pipeline-num-layers,
	 * 0 = not set: the rest split evenly over the middle ranks), or the embedding and the
	 * loss counted as one layer each (--account-for-embedding/loss-in-pipeline-split) */
	int16_t first_layers, last_layers;
	bool acct_embed, acct_loss;
	/* CPU offload: the fraction (0..1) of the optimizer states kept in host memory and
	 * updated there (Megatron --optimizer-offload-fraction, DeepSpeed offload_optimizer,
	 * FSDP2's CPUOffloadPolicy), and the layers whose activations are offloaded
	 * (Megatron --cpu-offloading-num-layers) */
	double opt_offload;
	int act_offload;
	int nranges;
	rc_range range[STRAT_MAX_RANGES]; /* per-layer recompute overrides, later ranges win */
	int nchunks;                      /* 0 = even split; else pp*vpp explicit counts */
	int16_t chunk_layers[STRAT_MAX_CHUNKS]; /* layers per (chunk, stage), chunk-major */
} strategy_t;

/* A strategy with Megatron-like defaults (everything 1, bf16, 1f1b, flash on). */
strategy_t strat_default(void);
/* Fill dp from devices when it is 0; returns 0 or -1 with a reason. */
int strat_resolve(strategy_t *s, int devices, char *why, size_t whylen);
/* Check every rule (divisibility, limits); 0 when valid, -1 with a sentence in why. */
int strat_validate(const strategy_t *s, const model_t *m, const cluster_t *c, int devices,
		char *why, size_t whylen);
/* Recompute mode of layer l under the default and the range overrides. */
int strat_layer_recompute(const strategy_t *s, int l);
/* Number of micro-batches per step per DP replica. */
int strat_microbatches(const strategy_t *s);
/* First layer and layer count of chunk (v, stage); chunk index = v*pp + stage. */
void strat_chunk_span(const strategy_t *s, int layers, int v, int stage, int *lo, int *n);

/* Whether the plan sets Megatron's uneven-split keys (first/last stage layers, the
 * embedding or the loss counted in the split). */
static inline bool strat_split_keys(const strategy_t *s)
{
	return s->first_layers > 0 || s->last_layers > 0 || s->acct_embed || s->acct_loss;
}
/* Whether the layers per chunk are the plan's own (explicit counts or the split keys),
 * not strat_even_split's. */
static inline bool strat_explicit_split(const strategy_t *s)
{
	return s->nchunks == s->pp * s->vpp || strat_split_keys(s);
}
/* The split keys' rules on a model of `layers` layers (Megatron's, with its messages'
 * content): 0, or -1 with the reason. */
int strat_split_check(const strategy_t *s, int layers, char *why, size_t whylen);

/* The even split of layers over chunks: base layers each, and one more for the rem chunks
 * from chunk fe on. */
typedef struct {
	int base, rem, fe;
} strat_split;
/* The even split of `layers` over nch chunks (nch >= 1). */
static inline strat_split strat_even_split(int layers, int nch);
/* First layer and layer count of chunk c under the even split sp. */
static inline void strat_split_span(strat_split sp, int c, int *lo, int *n);

static inline strat_split strat_even_split(int layers, int nch)
{
	/* a remainder goes to the middle chunks so that the first and the last chunk (which
	 * also hold embedding and LM head) get the smaller share, as Megatron's padded uneven
	 * split does */
	strat_split sp = {layers / nch, layers % nch, 0};
	sp.fe = sp.rem <= nch - 2 ? 1 : 0;
	return sp;
}

static inline void strat_split_span(strat_split sp, int c, int *lo, int *n)
{
	int before = c - sp.fe; /* extras given to chunks before c */
	before = before < 0 ? 0 : before > sp.rem ? sp.rem : before;
	*lo = c * sp.base + before;
	*n = sp.base + (c >= sp.fe && c < sp.fe + sp.rem ? 1 : 0);
}
/* The Ulysses degree of s's context parallelism (1 = pure ring, cp = pure Ulysses). */
static inline int strat_cp_ulysses(const strategy_t *s)
{
	if (s->cp_kind == CP_ULYSSES)
		return s->cp;
	return s->cp_ulysses > 1 ? s->cp_ulysses : 1;
}
/* The context-parallel mode s runs: CP_RING, CP_ULYSSES or CP_USP (both degrees above 1). */
static inline int strat_cp_mode(const strategy_t *s)
{
	int u = strat_cp_ulysses(s);
	return u <= 1 ? CP_RING : u >= s->cp ? CP_ULYSSES : CP_USP;
}
/* The key/value heads per TP rank of the first layer kind whose count the Ulysses degree
 * does not divide (Ulysses then repeats them to it), or 0. */
int strat_ulysses_kv_short(const strategy_t *s, const model_t *m);
/* Physical over logical experts of a rank holding `experts`/ep experts and s->moe_redundant
 * replicas: (E/ep + r) / (E/ep); 1 without replicas. */
static inline double strat_moe_replica(const strategy_t *s, int experts)
{
	if (s->moe_redundant <= 0 || experts <= 0)
		return 1.0;
	double n = (double)experts / s->ep;
	return (n + s->moe_redundant) / n;
}
/* The busiest expert rank's load over the mean once redundant experts rebalance it: the
 * excess cf - 1 shrinks by E/ep over E/ep + r (docs/cost-model.md, "Redundant experts"). */
static inline double strat_moe_imbalance(const strategy_t *s, double cf, int experts)
{
	return 1.0 + (cf - 1.0) / strat_moe_replica(s, experts);
}
/* Names of enum values (stable, used in files and JSON); strat_cp_kind_name also names
 * CP_USP ("usp"), which no plan stores. */
const char *strat_recompute_name(int v);
const char *strat_schedule_name(int v);
const char *strat_precision_name(int v);
const char *strat_cp_kind_name(int v);
const char *strat_framework_name(int v);
const char *strat_fp8_cache_name(int v);
const char *strat_moe_dispatcher_name(int v);
const char *strat_moe_routing_name(int v);
/* The framework whose semantics price s: its own, or for FW_AUTO torchtitan under ZeRO-3
 * and Megatron-LM otherwise. (Inline: the evaluator asks on every call.) */
static inline int strat_framework(const strategy_t *s)
{
	return s->framework != FW_AUTO ? s->framework : s->zero == 3 ? FW_TORCHTITAN : FW_MEGATRON;
}
/* Plan key of optimizer tensor k ("exp_avg_dtype"), and the dtypes it may take (ODT_* bits:
 * Megatron's choices, e.g. fp32 and bf16 for main grads). */
const char *strat_opt_key(int k);
unsigned strat_opt_dtypes(int k);
/* Name of an opt_dtype_t ("bf16"), and back (-1 when unknown). */
const char *strat_opt_dtype_name(int v);
int strat_parse_opt_dtype(const char *s);
/* Bytes per element of an opt_dtype_t: 4, 2, 2, 1. */
static inline double strat_opt_dtype_bytes(int v)
{
	return v == ODT_FP8 ? 1.0 : v == ODT_FP16 || v == ODT_BF16 ? 2.0 : 4.0;
}
/* Whether any optimizer tensor is stored in other than fp32 (the precision-aware optimizer). */
static inline bool strat_opt_lowp(const strategy_t *s)
{
	return (s->opt_dt[0] | s->opt_dt[1] | s->opt_dt[2] | s->opt_dt[3]) != 0;
}
/* Megatron-Core's name of recompute module bit i (0 .. RCM_COUNT-1). */
const char *strat_rc_module_name(int i);
/* Parse a comma-separated list of module names into RCM_* bits; 0, or -1 naming the
 * first unknown one in bad[n]. */
int strat_parse_rc_modules(const char *list, uint8_t *out, char *bad, size_t n);
/* The names of the bits of m, comma-separated, into buf[n]. */
void strat_rc_modules_text(unsigned m, char *buf, size_t n);
/* Parse enum names; return the value or -1. */
int strat_parse_recompute(const char *s);
int strat_parse_schedule(const char *s);
int strat_parse_precision(const char *s);
int strat_parse_cp_kind(const char *s);
int strat_parse_framework(const char *s);
int strat_parse_fp8_cache(const char *s);
int strat_parse_moe_dispatcher(const char *s);
int strat_parse_moe_routing(const char *s);

#endif
