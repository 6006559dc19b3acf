/* compute.h - how long compute takes: GEMMs on the tensor cores (a roofline with a roll-off
 * for small shapes), element-wise kernels bound by HBM bandwidth, and the attention core by
 * kernel (flash or unfused).
 *
 * Sources: the roofline model (Williams, Waterman and Patterson 2009); GEMM efficiency
 * falling for small dimensions from tile quantisation and wave effects (NVIDIA, "Matrix
 * Multiplication Background User's Guide", 2023, including its wave quantisation); flash attention skipping the causal half
 * and recomputing QK^T in backward at 2.5x the forward FLOPs (Dao 2023, FlashAttention-2,
 * arXiv 2307.08691); Megatron's unfused scale-mask-softmax and dropout traffic (Korthikanti
 * et al. 2022, arXiv 2205.05198, Sec. 4). The efficiency constants (gemm, gemm_half, fp8_gemm,
 * flash, flash_sdpa, hbm) come from the cluster preset, calibrated per device family.
 * The GEMM and element-wise timings are inline: every layer prices dozens of them. */
#ifndef STRATA_CORE_COST_COMPUTE_H
#define STRATA_CORE_COST_COMPUTE_H

#include "core/cost/context.h"

/* Seconds of `batch` M x K by K x N GEMMs run by one kernel (a batched or grouped GEMM).
 * Big GEMMs reach `gemm` of peak (times mult, e.g. the grouped-GEMM factor). A GEMM's
 * output tiles run in waves of one tile per SM, the last wave partly empty: T tiles on S
 * SMs keep T / (ceil(T/S) S) of them busy, on average over shapes T / (T + S/2), the form
 * used here with T = output elements / tile (a part-filled tile counts its share, so a thin
 * M or N also pays for the idle rows of its tiles); each tile's main loop over K has a fixed
 * prologue and epilogue, so a short K reaches K / (K + half). Time is then proportional to
 * (M N + S/2 tiles) (K + half): it grows with every dimension. A device without a known SM
 * count keeps the older form, the roll-off in the smallest dimension d / (d + half). No
 * GEMM beats the time to stream its operands from HBM. */
static inline double compute_gemm_n(const cost_ctx *x, double M, double K, double N, double batch,
		double mult)
{
	double d = M < K ? M : K;
	d = d < N ? d : N;
	if (d <= 0)
		return 0;
	double eff;
	if (x->wave > 0) {
		double out = batch * M * N;
		eff = x->geff * mult * K / (K + x->ghalf) * out / (out + x->wave);
	} else {
		eff = x->geff * mult * d / (d + x->ghalf);
	}
	double tc = 2.0 * batch * M * K * N / (x->peak * eff);
	double tm = batch * (M * K + K * N + M * N) * ACT_BYTES / x->hbm;
	return tc > tm ? tc : tm;
}

/* Seconds of one M x K by K x N GEMM (compute_gemm_n with batch 1). */
static inline double compute_gemm(const cost_ctx *x, double M, double K, double N, double mult)
{
	return compute_gemm_n(x, M, K, N, 1, mult);
}

/* Seconds of an element-wise pass moving `bytes` through HBM. */
static inline double compute_elem(const cost_ctx *x, double bytes)
{
	return bytes / x->hbm;
}

/* The attention core of one layer (scores, softmax, weighted sum) for the strategy's kernel:
 * forward and backward seconds, and what selective recomputation of it re-runs. */
typedef struct {
	double f, b, sel;
} compute_attn;

struct layer_shape;
/* Price the attention core of a layer of shape sh whose core does core_fl FLOPs (both
 * causal halves counted). */
compute_attn compute_attn_core(const cost_ctx *x, const struct layer_shape *sh, double core_fl);

#endif
