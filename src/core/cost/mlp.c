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
#include "core/framework.h"

/* Kernels Megatron-Core's MoE layer launches per forward besides the experts' GEMMs (counted
 * from megatron/core/transformer/moe: TopKRouter.forward: gating GEMM aside, softmax, top-k,
 * the routing map's scatter, the load-balancing loss's two reductions and its scaling: 6;
 * the token dispatcher's permute and unpermute: index computation, gather, scatter-add with
 * the routing probabilities: 6). A lower bound: the all-to-alls' split bookkeeping adds more. */
#define MOE_ROUTER_KERNELS 6.0
#define MOE_PERMUTE_KERNELS 6.0

/* Seconds by which `kernels` host-launched kernels moving `bytes` through HBM in all take
 * longer than their memory time: none finishes before the launch floor kernel_us. */
static double moe_launch_floor(const cost_ctx *x, double kernels, double bytes)
{
	double floor = kernels * x->c->eff.kernel_us * 1e-6, mem = compute_elem(x, bytes);
	return floor > mem ? floor - mem : 0;
}

/* Forward seconds of the routed experts' two GEMMs (fc1, with the gate fused, and fc2).
 * The GEMM M dimension is the tokens one local expert receives: the busiest EP rank's
 * routed copies (tokens x topk x capacity factor, gathered over expert TP) over its
 * experts/ep local experts, so more and smaller experts give smaller, less efficient
 * GEMMs. The local experts' tiles share the waves (compute_gemm_n: one grouped GEMM, or
 * per-expert GEMMs on several streams, Transformer Engine's num_gemm_streams). A framework
 * that launches one GEMM per expert (TE's GroupedLinear issues a cuBLAS GEMM per expert,
 * transformer_engine/pytorch/module/grouped_linear.py; DeepSpeed loops over its experts)
 * cannot finish a matrix before the host has launched all of them, kernel_us apart: a
 * matrix takes at least experts x kernel_us. One grouped kernel per matrix (torchtitan's
 * torch._grouped_mm) waits on one launch. */
static double moe_experts(const cost_ctx *x, const layer_shape *sh)
{
	const layer_kind *t = sh->t;
	const strategy_t *s = x->s;
	double h = sh->h, g = sh->g, ef = sh->ef;
	double me = sh->etml * s->ep / t->experts; /* tokens per local expert */
	double nloc = (double)t->experts / s->ep;
	double gg = x->c->eff.grouped_gemm, kl = x->c->eff.kernel_us * 1e-6;
	double t1 = compute_gemm_n(x, me, h, g * ef, nloc, gg), t2 = compute_gemm_n(x, me, ef, h, nloc, gg);
	if (x->fw->expert_launches)
		kl *= nloc;
	return (t1 > kl ? t1 : kl) + (t2 > kl ? t2 : kl);
}

mlp_cost mlp_price(const cost_ctx *x, const layer_shape *sh)
{
	const layer_kind *t = sh->t;
	double tok = sh->tok, h = sh->h, g = sh->g;
	mlp_cost o = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	if (sh->dense_mlp) {
		double fl = sh->fl;
		o.t += compute_gemm(x, tok, h, g * fl, 1) + compute_gemm(x, tok, fl, h, 1);
		o.fl += 2.0 * tok * h * fl * (g + 1);
		o.elem += tok * fl * (g + 1) * ACT_BYTES;
	}
	if (sh->moe) {
		double ef = sh->ef, tm = sh->etm, tml = sh->etml; /* gathered over expert TP */
		o.routed_t = moe_experts(x, sh);
		o.routed_fl = 2.0 * tm * h * ef * (g + 1);
		o.t += o.routed_t;
		o.t += compute_gemm(x, x->tok_moe, h, t->experts, 1);   /* router */
		o.fl += o.routed_fl + 2.0 * x->tok_moe * h * t->experts;
		o.moe_fn_elem = tml * ef * (g + 1) * ACT_BYTES;
		/* the router's softmax and top-k read and write fp32 scores (12 bytes per score);
		 * permutation and unpermutation read and write each routed copy (4h) */
		double r_bytes = x->tok_moe * t->experts * 12.0, p_bytes = tml * 4 * h * ACT_BYTES;
		o.elem += r_bytes + p_bytes + tml * ef * (g + 1) * ACT_BYTES;
		o.launch = moe_launch_floor(x, MOE_ROUTER_KERNELS, r_bytes) + moe_launch_floor(x, MOE_PERMUTE_KERNELS, p_bytes);
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
