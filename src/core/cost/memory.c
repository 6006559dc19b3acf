/* memory.c - activation, model-state, buffer and logit bytes (memory.h has the sources). */
#include "core/framework.h"
#include "core/cost/memory.h"

/* Bytes per element of a tensor cached in fp8 with one fp32 scale per 1x128 tile
 * (DeepSeek-V3 report, Sec. 3.3.2: fine-grained, tile-wise activation quantization) */
#define FP8_TILE_BYTES (1.0 + 4.0 / 128.0)
/* ... and in the report's 12-bit E5M6 format for the attention out-projection's input */
#define E5M6_TILE_BYTES (1.5 + 4.0 / 128.0)

/* MLP block: the block input (norm output), the first GEMM's outputs and the activation's
 * output; for MoE the fp32 router probabilities and, per routed copy at the busiest rank,
 * the permuted input and output and the expert's intermediate tensors. */
static void mlp_acts(const cost_ctx *x, const layer_shape *sh, double gin, layer_acts *a)
{
	const layer_kind *t = sh->t;
	double h = sh->h, tsp = sh->tsp, tok = sh->tok, g = sh->g;
	a->mlp = 0;
	a->moe_fn = 0;
	a->shared = 0;
	/* FC1 and FC2 inputs are GEMM inputs kept for the weight gradient (gin bytes); the
	 * FC1 output stays 16-bit for the activation's backward */
	if (sh->dense_mlp)
		a->mlp += gin * h * tsp + tok * sh->fl * (g * ACT_BYTES + gin);
	if (sh->moe) {
		/* the block input feeds the (16-bit) router GEMM: kept 16-bit; the permuted input
		 * and the activation output are the grouped GEMMs' inputs */
		double ef = sh->ef, tml = sh->etml; /* gathered over expert TP */
		a->moe_fn = tml * ef * gin;
		double routed = tml * (h * (gin + ACT_BYTES) + ef * (g * ACT_BYTES + gin));
		if (x->s->fp8_cache == FP8C_DEEPSEEK) {
			/* DeepSeek-V3: tokens are dispatched in fp8 and that copy is the up-projection's
			 * cached input (no 16-bit one); the SwiGLU input is cached in fp8 and its output,
			 * the down-projection's input, recomputed in backward (layer.c prices it) */
			a->moe_fn = 0;
			routed = tml * (h + ef * g) * FP8_TILE_BYTES;
		}
		a->mlp += 2 * h * tsp + x->tok_moe * t->experts * 4.0 /* fp32 router probs */ + routed;
		if (t->shared > 0) {
			a->shared = tok * sh->sf * (g * ACT_BYTES + gin);
			a->mlp += a->shared;
		}
	}
}

layer_acts mem_layer_acts(const cost_ctx *x, const layer_shape *sh)
{
	const layer_kind *t = sh->t;
	const strategy_t *s = x->s;
	double h = sh->h, tsp = sh->tsp, tok = sh->tok;
	layer_acts a;
	double gin = mem_gemm_input_bytes(s);
	/* the out-projection input: 16-bit; in fp8 its fp8 copy, and flash attention keeps
	 * its 16-bit output besides for its own backward (flash-attn and TE's fused
	 * attention save `out`), so fp8 adds a byte there instead of saving one */
	double ob = gin == ACT_BYTES ? ACT_BYTES : gin + (s->flash ? ACT_BYTES : 0);
	/* DeepSeek-V3 caches it once, in E5M6, for both the linear's and attention's backward */
	if (s->fp8_cache == FP8C_DEEPSEEK)
		ob = E5M6_TILE_BYTES;
	/* attention block: two norm inputs, QKV-projection input, Q, K, V, out-projection
	 * input; MLA also keeps its latents (the down-projections' outputs) */
	a.attn = sh->mla ? tok * (t->q_lora + t->kv_lora + t->qk_rope) * ACT_BYTES : 0;
	a.attn += (2 * 2 * h * tsp) + gin * h * tsp + tok * ((sh->qd + sh->kd + sh->vd) * ACT_BYTES + sh->od * ob);
	if (sh->hdrop)
		a.attn += 2 * h * tsp; /* two 1-byte dropout masks (attention and MLP outputs) */
	/* attention core: flash keeps the fp32 log-sum-exp; unfused the softmax output (and
	 * with dropout its 1-byte mask and output) */
	if (s->flash)
		a.core = 4.0 * x->b * sh->heads_l * (x->seq / s->cp);
	else
		a.core = sh->scores * (2.0 + (sh->adrop ? 3.0 : 0.0));
	mlp_acts(x, sh, gin, &a);
	a.input = 2 * h * tsp;
	/* while a layer runs backward, gradients of its largest intermediates coexist */
	a.work = tok * ((sh->dense_mlp ? sh->g * t->ffn / sh->tp : 0) + (sh->qd + sh->kd + sh->vd)) * ACT_BYTES * 2;
	return a;
}

mem_opt mem_opt_bytes(const strategy_t *s)
{
	mem_opt o;
	o.m = strat_opt_dtype_bytes(s->opt_dt[OPT_EXP_AVG]);
	o.v = strat_opt_dtype_bytes(s->opt_dt[OPT_EXP_AVG_SQ]);
	o.g = strat_opt_dtype_bytes(s->opt_dt[OPT_MAIN_GRADS]);
	o.p = strat_opt_dtype_bytes(s->opt_dt[OPT_MAIN_PARAMS]);
	/* Megatron's precision-aware optimizer with bf16 parameters (--bf16, fp8 on top of it) keeps only the low 16 bits of an fp32 master weight, the high ones being the bf16
	 * parameter itself (OptimizerConfig.store_param_remainders, default True with TE >= 2.1;
	 * distrib_optimizer.py allocates the master shard as int16). Not under ZeRO-3, whose
	 * shard is the only copy. */
	o.rem = s->zero < 3 && strat_opt_lowp(s) && s->opt_dt[OPT_MAIN_PARAMS] == ODT_FP32 &&
		s->precision != PREC_FP16 && fw_run_caps(s)->opt_remainders;
	if (o.rem)
		o.p = 2;
	return o;
}

mem_state mem_state_bytes(const strategy_t *s, double d_dense, double d_exp)
{
	const mem_opt b = mem_opt_bytes(s);
	return mem_state_with(s, &b, d_dense, d_exp);
}

mem_state mem_state_with(const strategy_t *s, const mem_opt *ob, double d_dense, double d_exp)
{
	mem_state o;
	/* fp8 weight copies (mxfp8: the 8-bit copy plus one E8M0 scale per 32 values; fp4: NVFP4's
	 * 4-bit copy plus an E4M3 scale per 16 values, OCP MX spec v1.0 and TE's NVFP4 recipe) */
	double fp8w = s->precision == PREC_FP8 ? 1.0 : s->precision == PREC_MXFP8 ? 1.0 + 1.0 / 32 :
		s->precision == PREC_FP4 ? 0.5 + 1.0 / 16 : 0.0;
	/* Adam keeps the main (master) parameter and its two moments, the DDP buffer the main
	 * gradient, each in its dtype (Megatron --main-params-dtype, --exp-avg-dtype,
	 * --exp-avg-sq-dtype, --main-grads-dtype): all fp32 by default, 4 + 4 + 4 and 4 bytes */
	const mem_opt b = *ob;
	double pmv = b.p + b.m + b.v, g = b.g;
	switch (s->zero) {
	case 0: o.wb = o.wbe = 2 + fp8w; o.gb = o.gbe = g; o.ob = o.obe = pmv; break;
	case 1: o.wb = o.wbe = 2 + fp8w; o.gb = o.gbe = g; o.ob = pmv / d_dense; o.obe = pmv / d_exp; break;
	case 2:
		o.wb = o.wbe = 2 + fp8w;
		o.gb = g / d_dense;
		o.gbe = g / d_exp;
		o.ob = pmv / d_dense;
		o.obe = pmv / d_exp;
		break;
	default: /* ZeRO-3/FSDP: the main-parameter shard is the master copy; Adam m and v
		 * sharded; fp8 casts happen per gathered layer, so no whole-model fp8 copy */
		o.wb = b.p / d_dense;
		o.wbe = b.p / d_exp;
		o.gb = g / d_dense;
		o.gbe = g / d_exp;
		o.ob = (b.m + b.v) / d_dense;
		o.obe = (b.m + b.v) / d_exp;
		break;
	}
	/* FSDP2 under PyTorch's pipelining (torchtitan): the stage turns resharding after
	 * backward and gradient sync off for every micro-batch but the last
	 * (torch/distributed/pipelining/stage.py, backward_maybe_with_nosync), and torchtitan
	 * does not reshard after forward under PP (parallelize_llama). So the 16-bit unsharded
	 * parameters stay, and the unsharded gradients accumulate in the fp32 reduce dtype
	 * (_fsdp_param.py, to_accumulated_grad_if_needed) until the last backward: 2 + 4
	 * bytes per parameter of the stage; master weights and Adam's moments stay sharded.
	 * torchao's float8 casts weights in each forward, with no standing fp8 copy.
	 * Only for a plan that names the framework: an `auto` ZeRO-3 plan keeps the ZeRO
	 * paper's 16/D (a higher ZeRO level never costs memory there). */
	int unsharded = s->zero >= 2 && s->pp > 1 && strat_microbatches(s) > 1 && s->framework != FW_AUTO &&
		fw_run_caps(s)->fsdp_pp_unsharded;
	if (unsharded) {
		o.wb = o.wbe = 2;
		o.gb = o.gbe = g;
		o.ob = pmv / d_dense;
		o.obe = pmv / d_exp;
	}
	if (s->opt_offload > 0)
		mem_offload(s, d_dense, d_exp, unsharded, &o);
	return o;
}

void mem_offload(const strategy_t *s, double d_dense, double d_exp, int unsharded, mem_state *o)
{
	/* A fraction f of each rank's optimizer shard lives and is updated on the host
	 * (core/framework.c has each framework's implementation): its master weights and
	 * moments leave the device; where the framework keeps the gradient partition on the
	 * host (DeepSpeed's ZeRO-Offload, FSDP2's CPUOffloadPolicy) the sharded gradients too;
	 * under ZeRO-3 the fp32 parameter shard, of which DeepSpeed keeps a 16-bit copy on the
	 * device and FSDP2 nothing. Unsharded gradients and weights (ZeRO 0-1, FSDP2 under
	 * pipelining) stay. */
	const fw_caps *f = fw_run_caps(s);
	double k = 1 - s->opt_offload, off = s->opt_offload;
	o->ob *= k;
	o->obe *= k;
	if (f->offload_grads && s->zero >= 2 && !unsharded) {
		o->gb *= k;
		o->gbe *= k;
	}
	if (s->zero == 3 && !unsharded) {
		o->wb = k * o->wb + off * f->offload_keep / d_dense;
		o->wbe = k * o->wbe + off * f->offload_keep / d_exp;
	}
}

/* Transformer Engine's fp8 Linear (te.pytorch.module.linear / layernorm_linear, the
 * modules Megatron-Core builds in fp8) casts a GEMM's input to fp8 in forward and saves
 * that fp8 copy (its transpose on Hopper) for the weight gradient instead of the 16-bit
 * input. torchao's Float8Linear (torchtitan) saves the high-precision input and casts
 * again in backward, so the framework table says which one runs. */
double mem_gemm_input_bytes(const strategy_t *s)
{
	return prec_low(s->precision) && fw_run_caps(s)->fp8_saved_inputs ? 1.0 : ACT_BYTES;
}

/* Bytes per logit the framework's loss keeps (core/framework.c). Megatron's vocab-parallel
 * cross entropy: bf16 logits + one fp32 copy exponentiated in
 * place (6); torchtitan's loss, cross_entropy(pred.float(), labels), also keeps
 * log_softmax's separate fp32 output for backward (10). With loss_fusion, the framework's
 * fused kernel (Megatron + TE: the bf16 logits, overwritten with their gradient, 2). */
double mem_logit_bytes(const strategy_t *s)
{
	const fw_caps *f = fw_run_caps(s);
	return s->loss_fusion && f->fused_logit_bytes > 0 ? f->fused_logit_bytes : f->logit_bytes;
}

