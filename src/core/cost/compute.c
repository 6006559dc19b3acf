/* compute.c - the attention core's kernel time (compute.h has the sources). */
#include "core/framework.h"
#include "core/cost/compute.h"
#include "core/cost/layer.h"

compute_attn compute_attn_core(const cost_ctx *x, const struct layer_shape *sh, double core_fl)
{
	const cluster_t *c = x->c;
	const strategy_t *s = x->s;
	const layer_kind *t = sh->t;
	compute_attn a;
	if (s->flash) {
		/* causal flash attention skips the masked half; backward recomputes QK^T and
		 * does 2.5x the forward FLOPs; kernels run at the `flash` fraction of peak
		 * (`flash_sdpa` for PyTorch SDPA's FlashAttention-2 under torchtitan) */
		double fl = 0.5 * core_fl;
		double fe = x->fw->sdpa_attention && c->eff.flash_sdpa > 0 ? c->eff.flash_sdpa : c->eff.flash;
		/* The kernel walks 128 x 128 tiles of the score matrix: a causal row of n key
		 * tiles computes its diagonal tile whole, so n(n+1)/2 tiles do the work of n^2/2
		 * (FlashAttention-2, Dao 2023, sec. 3.1.1, causal masking); its thread blocks, one
		 * per (sequence, head, 128-query tile), run in waves over the SMs (the GEMM wave
		 * form of compute_gemm_n) */
		double n = sh->kv_len / COMPUTE_TILE_N;
		if (n > 0)
			fe *= n / (n + 1);
		if (x->wave > 0) {
			double blocks = x->b * sh->heads_l * (x->seq / s->cp) / COMPUTE_TILE_N;
			double half = x->wave / (COMPUTE_TILE_M * COMPUTE_TILE_N);
			fe *= blocks / (blocks + half);
		}
		a.f = fl / (x->peak16 * fe);
		a.b = 2.5 * fl / (x->peak16 * fe);
		a.sel = a.f;
		return a;
	}
	/* unfused: two batched GEMMs of head_dim depth plus a fused scale-mask-softmax and
	 * dropout streaming the score matrix through HBM (the whole matrix: an unfused kernel
	 * masks a local window, it does not skip it) */
	double dh = sh->mla ? (double)(t->qk_nope + t->qk_rope) : t->head_dim;
	double bh = x->b * sh->heads_l; /* one batched GEMM over micro-batch and heads */
	double g1 = compute_gemm_n(x, x->seq / s->cp, dh, x->seq, bh, 1);
	double g2 = compute_gemm_n(x, x->seq / s->cp, x->seq, sh->mla ? t->v_head : t->head_dim, bh, 1);
	/* bytes per score element beyond the GEMM that writes it: Megatron's fused
	 * scale-mask-softmax reads and writes once (4), dropout reads, writes and keeps a
	 * 1-byte mask (5); backward: dropout grad reads grad and mask, writes (5), softmax
	 * grad reads output and grad, writes (6) */
	double sm_f = compute_elem(x, sh->scores * (4.0 + (sh->adrop ? 5.0 : 0.0)));
	double sm_b = compute_elem(x, sh->scores * (6.0 + (sh->adrop ? 5.0 : 0.0)));
	a.f = g1 + g2 + sm_f;
	a.b = 2 * (g1 + g2) + sm_b;
	/* selective re-runs the forward plus the unfused softmax's extra pass */
	a.sel = a.f + compute_elem(x, sh->scores * 2.0);
	return a;
}
