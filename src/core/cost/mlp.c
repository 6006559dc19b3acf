/* mlp.c - the MLP block of a layer: a dense MLP, or a router, the routed experts' grouped
 * GEMMs and the shared experts; the MTP module's extra projection.
 *
 * Dense: two (plain) or three (gated, SwiGLU; Shazeer 2020, arXiv 2002.05202) matrices,
 * column- then row-parallel over TP. MoE (Megatron-Core's token dispatcher; Fedus et al.
 * 2021 for top-k routing): tokens are split over TP before dispatch, each routed copy is
 * computed by the expert it goes to (grouped GEMM at the `grouped_gemm` efficiency), the
 * busiest expert rank holds moe_cf times the mean and sets the pace (Megatron's
 * --moe-expert-capacity-factor with padding); the useful FLOPs stay those of the mean.
 * DeepSeek-V3 (arXiv 2412.19437) shared experts run on every token like a dense MLP. */
#include "core/cost/layer.h"

mlp_cost mlp_price(const cost_ctx *x, const layer_shape *sh)
{
	const layer_kind *t = sh->t;
	const strategy_t *s = x->s;
	double tok = sh->tok, h = sh->h, g = sh->g;
	mlp_cost o = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	if (sh->dense_mlp) {
		double fl = sh->fl;
		o.t += compute_gemm(x, tok, h, g * fl, 1) + compute_gemm(x, tok, fl, h, 1);
		o.fl += 2.0 * tok * h * fl * (g + 1);
		o.elem += tok * fl * (g + 1) * ACT_BYTES;
	}
	if (sh->moe) {
		double ef = sh->ef, tm = sh->etm, tml = sh->etml; /* gathered over expert TP */
		double me = tml * s->ep / t->experts;             /* tokens per local expert */
		double nloc = (double)t->experts / s->ep;
		double gg = x->c->eff.grouped_gemm;
		/* one grouped GEMM over the local experts: their tiles share the waves */
		o.routed_t = compute_gemm_n(x, me, h, g * ef, nloc, gg) + compute_gemm_n(x, me, ef, h, nloc, gg);
		o.routed_fl = 2.0 * tm * h * ef * (g + 1);
		o.t += o.routed_t;
		o.t += compute_gemm(x, x->tok_moe, h, t->experts, 1);   /* router */
		o.fl += o.routed_fl + 2.0 * x->tok_moe * h * t->experts;
		o.moe_fn_elem = tml * ef * (g + 1) * ACT_BYTES;
		o.elem += tml * (4 * h + ef * (g + 1)) * ACT_BYTES; /* permute, unpermute, activation */
		if (t->shared > 0) {
			double sf = sh->sf;
			o.sh_t = compute_gemm(x, tok, h, g * sf, 1) + compute_gemm(x, tok, sf, h, 1);
			o.sh_elem = tok * sf * (g + 1) * ACT_BYTES;
			o.sh_fl = 2.0 * tok * h * sf * (g + 1);
			o.t += o.sh_t;
			o.fl += o.sh_fl;
			o.elem += o.sh_elem;
		}
		o.ep_bytes = sh->tml * h * ACT_BYTES; /* a rank dispatches its own tokens */
	}
	if (t->mtp)
		o.t += mlp_mtp_proj(x, sh);
	return o;
}

double mlp_mtp_proj(const cost_ctx *x, const layer_shape *sh)
{
	/* DeepSeek-V3's MTP module projects [norm(h); norm(embedding)] (2h) back to h */
	return compute_gemm(x, sh->tok, 2 * sh->h, sh->h / sh->tp, 1);
}
