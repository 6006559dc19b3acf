/* context.c - the per-evaluation quantities every cost module reads (context.h). */
#include "core/framework.h"
#include "core/cost/context.h"
#include "core/cost/memory.h"

void ctx_init(cost_ctx *x, const model_t *m, const cluster_t *c, const strategy_t *s)
{
	x->m = m;
	x->c = c;
	x->s = s;
	x->b = s->micro_batch;
	x->seq = s->seq;
	x->tok = x->b * s->seq / s->cp;
	x->sp_div = (s->sp && s->tp > 1) ? s->tp : 1;
	x->tok_sp = x->tok / x->sp_div;
	x->tok_moe = x->tok / s->tp; /* Megatron MoE splits tokens over TP before dispatch */
	x->moe_cf = s->moe_cf > 0 ? s->moe_cf : 1.0; /* a zeroed strategy is balanced */
	double p16 = c->peak_tflops[PREC_BF16] > 0 ? c->peak_tflops[PREC_BF16] : c->peak_tflops[PREC_FP16];
	x->peak16 = (s->precision == PREC_FP16 && c->peak_tflops[PREC_FP16] > 0 ? c->peak_tflops[PREC_FP16] : p16) * 1e12;
	x->peak = c->peak_tflops[s->precision] * 1e12;
	x->geff = s->precision == PREC_FP8 ? c->eff.fp8_gemm : c->eff.gemm;
	x->ghalf = c->eff.gemm_half;
	x->wave = c->sms > 0 ? 0.5 * c->sms * COMPUTE_TILE_M * COMPUTE_TILE_N : 0;
	x->hbm = c->hbm_gbps * 1e9 * c->eff.hbm;
	x->tp_l = comm_group(c, s->tp, 1);
	x->cp_l = comm_group(c, s->cp, s->tp);
	x->ep_l = comm_group(c, s->ep, s->etp);
	x->tp_exp = s->tp_overlap ? 1 - c->eff.tp_overlap : 1;
	x->fw = fw_run_caps(s);
	x->ob = mem_opt_bytes(s);
	x->pp_div = (s->tp > 1 && !s->sp && x->fw->pp_scatter) ? s->tp : 1;
}
