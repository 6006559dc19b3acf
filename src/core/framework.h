/* framework.h - what each training framework can run, and how it runs it.
 *
 * One table per framework (Megatron-LM, torchtitan, DeepSpeed): the schedules, ZeRO/FSDP
 * levels, cp kinds, recompute granularities and pipeline layouts it runs, checked by
 * fw_check, and the few ways it runs the same plan differently (loss kernel, attention
 * kernel, selective recomputation, TP backward collectives), read by the cost model.
 * strat_validate rejects a plan its named framework cannot run; the search proposes only
 * what the framework runs; an export writes only a plan its target runs. */
#ifndef STRATA_CORE_FRAMEWORK_H
#define STRATA_CORE_FRAMEWORK_H

#include "core/model.h"
#include "core/strategy.h"

#include <stdbool.h>
#include <stddef.h>

#define FW_WHY 300          /* one reason, a sentence */
#define FW_MAX_ISSUES 16

/* Gather granularity of sharded (ZeRO-3) parameters. FW_Z3_LAYER: one all-gather and one
 * reduce-scatter per transformer layer, plus one per embedding and output unit; the current
 * and the prefetched unit are unsharded at once (FSDP2's fully_shard per TransformerBlock
 * in torchtitan, torchtitan/models/llama3/infra/parallelize.py; Megatron-FSDP's default
 * fsdp_unit_modules, the transformer layer). FW_Z3_MODULE: DeepSpeed ZeRO-3's
 * PartitionedParameterCoordinator fetches each parameterised submodule's parameters, and
 * prefetches the next ones, in coalesced all-gathers of up to stage3_prefetch_bucket_size
 * elements (5e7), under a live cap of stage3_max_live_parameters (1e9); parameters under
 * stage3_param_persistence_threshold (1e5, norms and biases) stay unpartitioned; gradients
 * are reduce-scattered in buckets of reduce_bucket_size elements (5e8), defaults of
 * deepspeed/runtime/zero/config.py. */
enum { FW_Z3_LAYER = 0, FW_Z3_MODULE = 1 };
#define FW_DS_PREFETCH 5e7
#define FW_DS_LIVE 1e9
#define FW_DS_REDUCE_BUCKET 5e8
#define FW_DS_PERSIST 1e5
/* stage3_max_reuse_distance (1e9 elements, deepspeed/runtime/zero/config.py): a parameter
 * whose next use comes within this many elements of traced parameters is not released */
#define FW_DS_REUSE 1e9

/* What a framework runs (masks and switches) and how it runs it (the cost model reads
 * the fields from logit_bytes on through fw_caps_of). */
typedef struct {
	const char *key;          /* "megatron": the plan-file name */
	const char *name;         /* "Megatron-LM": as printed */
	unsigned sched;           /* schedule_t bits it runs with pp > 1 */
	unsigned zero;            /* ZeRO levels it runs (bit per level) */
	unsigned zero_pp;         /* ... and with pp > 1 */
	unsigned zero_tp;         /* ... and with tp > 1 */
	unsigned cp_kinds;        /* cp_kind_t bits of the modes it runs (strat_cp_mode) */
	unsigned recompute;       /* recompute_t bits */
	unsigned precision;       /* PREC_* bits */
	bool vpp;                 /* virtual stages (interleaved chunks) */
	bool uneven;              /* explicit per-stage layer counts */
	bool empty_stage;         /* ... a stage may hold no layer */
	bool rc_block;            /* per-layer recompute as "the first N layers of every stage" */
	bool rc_modules;          /* Megatron-Core's --recompute-modules */
	bool sp_off;              /* tensor parallelism without sequence parallelism */
	bool sp_on;               /* ... and with it */
	bool tp_overlap;          /* overlapped TP collectives (TE userbuffers, async TP) */
	bool etp;                 /* an expert TP other than 1 */
	bool unfused_attention;   /* flash_attention false */
	bool mtp;                 /* multi-token-prediction modules */
	bool mixed_layers;        /* layers of several dense/MoE shapes or widths */
	/* how it runs a plan */
	double logit_bytes;       /* bytes its loss keeps per logit of the micro-batch */
	double fused_logit_bytes; /* ... with its fused loss kernel on (loss_fusion); 0: none */
	const char *fused_loss_why; /* why none, after "has no fused cross-entropy kernel" */
	unsigned fp8_cache;       /* fp8_cache_t bits: the fp8 activation caching it runs */
	bool deepep;              /* moe_dispatcher deepep: DeepEP's node-deduplicated dispatch */
	bool sdpa_attention;      /* PyTorch SDPA kernels (the `flash_sdpa` efficiency) */
	bool per_op_sac;          /* `selective` is per-op checkpointing (torchtitan's) */
	bool tp_bwd_serial;       /* TP backward collectives waited for in autograd */
	double dp_bucket;         /* parameters per gradient-sync bucket (0: one FSDP unit) */
	double dp_bucket_rank;    /* ... at least this many per data-parallel rank */
	bool pp_scatter;          /* without SP, a pipeline send is split over the TP ranks
	                           * and all-gathered on arrival (scatter/gather) */
	bool fp8_saved_inputs;    /* fp8 GEMMs save the fp8 copy of their input (TE) */
	bool fsdp_pp_unsharded;   /* FSDP under PP keeps unsharded params and fp32 grads */
	bool opt_remainders;      /* a precision-aware optimizer keeps fp32 masters as 16-bit
	                           * remainders beside the bf16 weights (Megatron + TE) */
	int zero3_unit;           /* what ZeRO-3 gathers in one collective (FW_Z3_*) */
	bool expert_launches;     /* one GEMM launch per local expert (TE GroupedLinear's
	                           * per-expert cuBLAS calls, DeepSpeed's expert loop), not
	                           * one grouped kernel (torch._grouped_mm) */
	unsigned opt_dtypes[OPT_KEYS]; /* ODT_* bits each optimizer tensor may be stored in */
	unsigned opt_zero;        /* ZeRO levels that run non-fp32 optimizer tensors */
	const char *opt_why;      /* why not, after "cannot store ... in bf16" */
	/* CPU offload (core/cost/dp.c prices it) */
	unsigned offload_zero;    /* ZeRO levels under which it offloads optimizer states */
	unsigned offload_partial; /* ... and those that take a fraction below 1 */
	bool offload_fp32;        /* the offloaded optimizer keeps fp32 states only */
	bool offload_grads;       /* the sharded gradients (ZeRO >= 2) live on the host too */
	double offload_keep;      /* ZeRO-3: bytes per parameter of the shard the device keeps */
	double offload_down;      /* bytes per updated parameter sent down (gradients) */
	double offload_up;        /* bytes per updated parameter sent up (parameters) */
	bool offload_per_mb;      /* the copies ride on every micro-batch's gathers/reductions */
	int offload_overlap;      /* FW_OVL_*: what of the copies and the host step is hidden */
	const char *offload_why;  /* why not, after "cannot offload the optimizer under ZeRO-k" */
	bool act_offload;         /* activations of the first N layers kept on the host */
	bool ulysses_kv_repeat;   /* Ulysses with fewer key/value heads per TP rank than its
	                           * degree, repeating them (USP's rule; TE's a2a asserts they
	                           * divide) */
	bool redundant_experts;   /* replicas of hot experts on the EP ranks (EPLB) */
} fw_caps;
/* Why no framework hosts redundant experts in training (fw_check, the exports). */
#define FW_NO_REDUNDANT "each expert is placed once per EP rank (DeepSeek's EPLB replicas are its own " \
	"deployment; Megatron-LM's UltraEP fork, not upstream, adds --moe-num-redundant-experts-per-rank)"

/* How an offloaded optimizer step overlaps: nothing (copies and host step in series), the
 * gradient copies under backward (host step and parameter copies after it), or per
 * parameter in a pipeline of copy down, host step and copy up (the slowest of the three). */
enum { FW_OVL_SERIAL = 0, FW_OVL_GRADS = 1, FW_OVL_PIPELINED = 2 };

/* Reasons a framework cannot run a plan, each a sentence naming it and the feature. */
typedef struct {
	int n;
	char text[FW_MAX_ISSUES][FW_WHY];
} fw_issues;

/* A plan's pipeline in model order, as the frameworks lay it out (zb-v: two chunks per
 * rank, down then up), with its recompute pattern. */
typedef struct {
	int nstages;                          /* pp*vpp, or 2*pp for zb-v */
	int stage_layers[2 * STRAT_MAX_CHUNKS];
	int even;                             /* the default split, or explicit counts all equal */
	int empty;                            /* a stage without layers */
	int rc_mode;                          /* one recompute mode for every layer, or -1 */
	int rc_block;                         /* k > 0: full recompute of exactly the first k
	                                       * layers of every stage, none elsewhere
	                                       * (Megatron's block method) */
} fw_layout;

extern const fw_caps fw_table[FW_COUNT];

/* The table of framework fw (FW_MEGATRON .. FW_DEEPSPEED); FW_AUTO gives Megatron-LM's. */
static inline const fw_caps *fw_caps_of(int fw)
{
	return &fw_table[fw > FW_AUTO && fw < FW_COUNT ? fw : FW_MEGATRON];
}
/* How plan s is run: the table of the framework that prices it (strat_framework). */
static inline const fw_caps *fw_run_caps(const strategy_t *s)
{
	return fw_caps_of(strat_framework(s));
}
/* Why framework fw cannot run s on m: fills out (may be NULL) and returns the number of
 * reasons; 0 when it runs it as priced. The plan's rules and the model's together. */
int fw_check(int fw, const strategy_t *s, const model_t *m, fw_issues *out);
/* The plan's rules only (degrees, schedule, ZeRO, recompute, layout): cheap unless the
 * plan has explicit stage counts or per-layer recompute. */
int fw_check_plan(int fw, const strategy_t *s, const model_t *m, fw_issues *out);
/* The model's rules (MTP, layer shapes), appended to out after n reasons; the new count. */
int fw_check_model(int fw, const model_t *m, fw_issues *out, int n);
/* A plan that names its framework must be one it runs (fw_check_plan; the model's rules
 * are the export's and the search's): 0, or -1 with the first reason. */
int fw_validate(const strategy_t *s, const model_t *m, char *why, size_t n);
/* The search's rule for a plan: one that names its framework is checked by
 * strat_validate; an `auto` plan must be run by the framework that prices it, its layout
 * aside (per-layer recompute comes from the user's pins, stage counts from the ILP, which
 * keeps to the framework itself). 0 when it may be proposed, else the number of reasons
 * (the first in out, which may be NULL). */
int fw_search_check(const strategy_t *s, const model_t *m, fw_issues *out);
/* The frameworks that run s as priced, as "megatron, deepspeed" (or "none") into buf. */
void fw_runners(const strategy_t *s, const model_t *m, char *buf, size_t n);
/* Why an `auto` plan is priced as its framework, a phrase ("ZeRO-3 is FSDP's"). */
const char *fw_auto_reason(const strategy_t *s);
/* The pipeline layout and recompute pattern of s on m. */
void fw_layout_of(const strategy_t *s, const model_t *m, fw_layout *out);
enum { FW_MIXED_SHAPES = 1, FW_MIXED_WIDTHS = 2 };
/* FW_MIXED_SHAPES when m's layers have several dense or MoE shapes, | FW_MIXED_WIDTHS
 * when a kind has its own hidden size or MLP type; 0 for one shape of each family. */
int fw_mixed_layers(const model_t *m);

#endif
