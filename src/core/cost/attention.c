/* attention.c - the projections of an attention block and the FLOPs of its core.
 *
 * GQA/MHA: one fused QKV GEMM (K and V at the KV heads' width) and the output projection
 * (Megatron-LM's ColumnParallelLinear/RowParallelLinear; Ainslie et al. 2023 for GQA).
 * MLA (DeepSeek-V2, arXiv 2405.04434, and V3): Q through an optional low-rank down/up
 * projection, K and V from a shared compressed latent (kv_lora) plus a decoupled RoPE key;
 * the up-projections are what Megatron-Core's mla_up_proj recomputation re-runs.
 * Core FLOPs: 2 GEMMs of 2*s*kv*d each per head (QK^T and PV; Narayanan et al. 2021,
 * arXiv 2104.04473), with the attended key length of local attention (layer.c, kv_len). */
#include "core/cost/layer.h"

attn_proj attn_project(const cost_ctx *x, const layer_shape *sh)
{
	const layer_kind *t = sh->t;
	const strategy_t *s = x->s;
	double tok = sh->tok, h = sh->h, heads_l = sh->heads_l;
	attn_proj a = {0, 0, 0, 0};
	if (sh->mla) {
		double qk = t->qk_nope + t->qk_rope;
		if (t->q_lora > 0) {
			a.up_t += compute_gemm(x, tok, t->q_lora, sh->qd, 1);
			a.up_fl += 2.0 * tok * t->q_lora * sh->qd;
			a.f += compute_gemm(x, tok, h, t->q_lora, 1);
		} else {
			a.f += compute_gemm(x, tok, h, sh->qd, 1);
		}
		a.up_t += compute_gemm(x, tok, t->kv_lora, heads_l * (t->qk_nope + t->v_head), 1);
		a.up_fl += 2.0 * tok * t->kv_lora * heads_l * (t->qk_nope + t->v_head);
		a.f += a.up_t + compute_gemm(x, tok, h, t->kv_lora + t->qk_rope, 1);
		a.core_fl = 2.0 * x->b * (x->seq / s->cp) * sh->kv_len * heads_l * (qk + t->v_head);
	} else {
		a.f += compute_gemm(x, tok, h, sh->qd + sh->kd + sh->vd, 1);
		a.core_fl = 4.0 * x->b * (x->seq / s->cp) * sh->kv_len * heads_l * t->head_dim;
	}
	a.f += compute_gemm(x, tok, sh->od, h, 1);
	return a;
}
