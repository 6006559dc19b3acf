/* context.c - the per-evaluation quantities every cost module reads (context.h). */
#include "core/framework.h"
#include "core/cost/context.h"
#include "core/cost/memory.h"

#include <string.h>

/* The fields the CP split's communication reads (lcomm_cp_price): the micro-batch, the
 * sequence, the Ulysses degree and the links of its two groups. */
static void ctx_cp(cost_ctx *x, const model_t *m, const cluster_t *c, const strategy_t *s)
{
	x->m = m;
	x->c = c;
	x->s = s;
	x->b = s->micro_batch;
	x->seq = s->seq;
	x->cp_u = strat_cp_ulysses(s);
	x->cpu_l = comm_a2a_link(c, x->cp_u, s->tp);
	x->cpr_l = comm_cp_ring_link(c, s, x->cp_u);
}

void ctx_init_cp(cost_ctx *x, const model_t *m, const cluster_t *c, const strategy_t *s)
{
	memset(x, 0, sizeof *x);
	ctx_cp(x, m, c, s);
}

void ctx_init(cost_ctx *x, const model_t *m, const cluster_t *c, const strategy_t *s)
{
	ctx_cp(x, m, c, s);
	x->tok = x->b * s->seq / s->cp;
	x->sp_div = (s->sp && s->tp > 1) ? s->tp : 1;
	x->tok_sp = x->tok / x->sp_div;
	x->tok_moe = x->tok / s->tp; /* Megatron MoE splits tokens over TP before dispatch */
	x->moe_cf = s->moe_cf > 0 ? s->moe_cf : 1.0; /* a zeroed strategy is balanced */
	double p16 = c->peak_tflops[PREC_BF16] > 0 ? c->peak_tflops[PREC_BF16] : c->peak_tflops[PREC_FP16];
	x->peak16 = (s->precision == PREC_FP16 && c->peak_tflops[PREC_FP16] > 0 ? c->peak_tflops[PREC_FP16] : p16) * 1e12;
	x->peak = c->peak_tflops[s->precision] * 1e12;
	x->geff = prec_low(s->precision) ? c->eff.fp8_gemm : c->eff.gemm;
	x->ghalf = c->eff.gemm_half;
	x->wave = c->sms > 0 ? 0.5 * c->sms * COMPUTE_TILE_M * COMPUTE_TILE_N : 0;
	x->hbm = c->hbm_gbps * 1e9 * c->eff.hbm;
	x->tp_l = comm_group(c, s->tp, 1);
	x->ep_l = comm_a2a_link(c, s->ep, s->etp);
	x->experts = model_max_experts(m);
	x->moe_rep = strat_moe_replica(s, x->experts);
	x->tp_exp = s->tp_overlap ? 1 - c->eff.tp_overlap : 1;
	x->fw = fw_run_caps(s);
	x->ob = mem_opt_bytes(s);
	x->pp_div = (s->tp > 1 && !s->sp && x->fw->pp_scatter) ? s->tp : 1;
}

const cost_ctx *ctx_kind(const cost_ctx *x, int k, cost_ctx *buf)
{
	const layer_kind *t = &x->m->kind[k];
	if (t->enc_tokens <= 0)
		return x;
	/* a ViT runs every image of the micro-batch as one sequence of its patches (packed
	 * with per-image masks, Qwen2-VL's cu_seqlens, or batched, LLaVA's CLIP): the attention
	 * span is one image, the GEMMs see all the patches */
	*buf = *x;
	buf->b = x->b * t->enc_images;
	buf->seq = t->enc_tokens;
	buf->tok = buf->b * buf->seq / x->s->cp;
	buf->tok_sp = buf->tok / buf->sp_div;
	buf->tok_moe = buf->tok / x->s->tp;
	return buf;
}
