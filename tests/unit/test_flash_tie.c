/* Unit tests for the attention constants of the cluster presets: on A100 Transformer
 * Engine's attention and PyTorch SDPA's flash backend are the same FlashAttention-2 kernels
 * (flash-attn 2 on sm80; SDPA's FlashAttention-2 since PyTorch 2.2; Dao 2023, arXiv
 * 2307.08691), so the A100 presets set flash_sdpa to 0 (= flash) and a torchtitan plan's
 * attention core costs what a Megatron plan's does; on H100 cuDNN's Hopper kernels and
 * SDPA's FlashAttention-2 differ, and the two cores stand in the ratio of the constants.
 * The figure below is worked by hand from compute_attn_core's formula. */
#include "check.h"
#include "fixture.h"
#include "core/cost/compute.h"
#include "core/cost/context.h"
#include "core/cost/layer.h"
#include "core/framework.h"

#include <stdio.h>
#include <string.h>

static paths_t paths;

/* The attention core (forward seconds) of layer kind 0 of llama3-8b on `cluster` under
 * framework fw: tp 1, one 8192-token sequence. */
static double core_f(const char *cluster, int fw, cluster_t *out)
{
	cluster_t c;
	model_t m;
	char err[256];
	if (plan_load_cluster(&c, cluster, &paths, err, sizeof err) || plan_load_model(&m, "llama3-8b", &paths, err, sizeof err)) {
		printf("  load: %s\n", err);
		return -1;
	}
	plan_family_eff(&c, &paths);
	strategy_t s = strat_default();
	s.dp = 1;
	s.seq = 8192;
	s.micro_batch = 1;
	s.global_batch = 1;
	s.framework = (uint8_t)fw;
	cost_ctx x;
	ctx_init(&x, &m, &c, &s);
	layer_shape sh;
	layer_shape_init(&x, model_layer_kind(&m, 0), &sh);
	if (out)
		*out = c;
	return compute_attn_core(&x, &sh, attn_project(&x, &sh).core_fl).f;
}

static void test_a100(void)
{
	cluster_t c;
	double mg = core_f("dgx-a100-80g", FW_MEGATRON, &c), tt = core_f("dgx-a100-80g", FW_TORCHTITAN, NULL);
	CHECK(c.eff.flash_sdpa == 0, "A100: flash_sdpa is 0 (the FlashAttention-2 kernels of flash)");
	CHECK(mg > 0 && mg == tt, "A100: SDPA's and Transformer Engine's attention cores cost the same");
	/* llama3-8b, 32 heads of 128, s = 8192, b = 1, tp 1: F_core = 4 x 8192^2 x 32 x 128 =
	 * 1.099511627776e12 FLOPs, the causal half 5.49755813888e11; n = 8192/128 = 64 key
	 * tiles: n/(n+1) = 64/65; blocks 32 x 64 = 2048 against half a wave of 108 SMs (54
	 * tiles): 2048/2102. At 312 TFLOP/s x flash:
	 *   5.49755813888e11 / (312e12 x flash x 64/65 x 2048/2102) */
	double want = 5.49755813888e11 / (312e12 * c.eff.flash * (64.0 / 65.0) * (2048.0 / 2102.0));
	CHECK_NEAR(mg, want, 1e-9, "A100: the attention core by hand");
}

static void test_h100(void)
{
	cluster_t c;
	double mg = core_f("dgx-h100", FW_MEGATRON, &c), tt = core_f("dgx-h100", FW_TORCHTITAN, NULL);
	CHECK(c.eff.flash_sdpa > 0 && c.eff.flash_sdpa < c.eff.flash, "H100: SDPA's FlashAttention-2 below cuDNN's kernels");
	CHECK_NEAR(tt / mg, c.eff.flash / c.eff.flash_sdpa, 1e-12, "H100: the cores stand in the ratio flash / flash_sdpa");
}

int main(void)
{
	fixture_paths(&paths);
	test_a100();
	test_h100();
	return check_done();
}
