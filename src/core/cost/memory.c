/* memory.c - activation, model-state, buffer and logit bytes (memory.h has the sources). */
#include "core/framework.h"
#include "core/cost/memory.h"

/* MLP block: the block input (norm output), the first GEMM's outputs and the activation's
 * output; for MoE the fp32 router probabilities and, per routed copy at the busiest rank,
 * the permuted input and output and the expert's intermediate tensors. */
static void mlp_acts(const cost_ctx *x, const layer_shape *sh, layer_acts *a)
{
	const layer_kind *t = sh->t;
	double h = sh->h, tsp = sh->tsp, tok = sh->tok, g = sh->g;
	a->mlp = 0;
	a->moe_fn = 0;
	a->shared = 0;
	if (sh->dense_mlp)
		a->mlp += 2 * h * tsp + tok * sh->fl * (g + 1) * ACT_BYTES;
	if (sh->moe) {
		double ef = sh->ef, tml = sh->etml; /* gathered over expert TP */
		a->moe_fn = tml * ef * ACT_BYTES;
		a->mlp += 2 * h * tsp + x->tok_moe * t->experts * 4.0 /* fp32 router probs */ +
			tml * (2 * h + ef * (g + 1)) * ACT_BYTES;
		if (t->shared > 0) {
			a->shared = tok * sh->sf * (g + 1) * ACT_BYTES;
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
	/* attention block: two norm inputs, QKV-projection input, Q, K, V, out-projection
	 * input; MLA also keeps its latents (the down-projections' outputs) */
	a.attn = sh->mla ? tok * (t->q_lora + t->kv_lora + t->qk_rope) * ACT_BYTES : 0;
	a.attn += (2 * 2 * h * tsp) + 2 * h * tsp + tok * (sh->qd + sh->kd + sh->vd + sh->od) * ACT_BYTES;
	if (sh->hdrop)
		a.attn += 2 * h * tsp; /* two 1-byte dropout masks (attention and MLP outputs) */
	/* attention core: flash keeps the fp32 log-sum-exp; unfused the softmax output (and
	 * with dropout its 1-byte mask and output) */
	if (s->flash)
		a.core = 4.0 * x->b * sh->heads_l * (x->seq / s->cp);
	else
		a.core = sh->scores * (2.0 + (sh->adrop ? 3.0 : 0.0));
	mlp_acts(x, sh, &a);
	a.input = 2 * h * tsp;
	/* while a layer runs backward, gradients of its largest intermediates coexist */
	a.work = tok * ((sh->dense_mlp ? sh->g * t->ffn / sh->tp : 0) + (sh->qd + sh->kd + sh->vd)) * ACT_BYTES * 2;
	return a;
}

mem_state mem_state_bytes(const strategy_t *s, double d_dense, double d_exp)
{
	mem_state o;
	double fp8w = s->precision == PREC_FP8 ? 1.0 : 0.0; /* fp8 weight copies */
	switch (s->zero) {
	case 0: o.wb = o.wbe = 2 + fp8w; o.gb = o.gbe = 4; o.ob = o.obe = 12; break;
	case 1: o.wb = o.wbe = 2 + fp8w; o.gb = o.gbe = 4; o.ob = 12 / d_dense; o.obe = 12 / d_exp; break;
	case 2:
		o.wb = o.wbe = 2 + fp8w;
		o.gb = 4 / d_dense;
		o.gbe = 4 / d_exp;
		o.ob = 12 / d_dense;
		o.obe = 12 / d_exp;
		break;
	default: /* ZeRO-3/FSDP: the fp32 shard is the master copy; Adam m and v sharded;
		 * fp8 casts happen per gathered layer, so no whole-model fp8 copy */
		o.wb = 4 / d_dense;
		o.wbe = 4 / d_exp;
		o.gb = 4 / d_dense;
		o.gbe = 4 / d_exp;
		o.ob = 8 / d_dense;
		o.obe = 8 / d_exp;
		break;
	}
	return o;
}

/* Bytes per logit the framework's loss keeps (core/framework.c). Megatron's vocab-parallel
 * cross entropy: bf16 logits + one fp32 copy exponentiated in
 * place (6); torchtitan's loss, cross_entropy(pred.float(), labels), also keeps
 * log_softmax's separate fp32 output for backward (10). */
double mem_logit_bytes(const strategy_t *s)
{
	return fw_run_caps(s)->logit_bytes;
}

