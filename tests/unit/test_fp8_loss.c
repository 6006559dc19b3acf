/* Unit tests for two memory keys: loss_fusion (the framework's fused cross entropy,
 * Megatron-LM + Transformer Engine's parallel_cross_entropy: 2 bytes per logit instead of
 * 6) and fp8_cache deepseek (the DeepSeek-V3 report's Sec. 3.3.2 activation caching), with
 * hand-computed byte counts, and the frameworks' refusals of what they do not run. */
#include "check.h"
#include "fixture.h"
#include "core/evaluate.h"
#include "core/framework.h"

#include <string.h>

static paths_t paths;
static plan_t plan; /* large: off the stack */
static eval_result ra, rb;

/* Whether framework fw refuses s with a reason containing what. */
static int refuses(int fw, const strategy_t *s, const char *what)
{
	static fw_issues is;
	fw_check(fw, s, &plan.model, &is);
	for (int i = 0; i < is.n; i++)
		if (strstr(is.text[i], what))
			return 1;
	return 0;
}

/* Stage 0's total bytes of s on the loaded plan, or -1 when it does not evaluate. */
static double stage0(const strategy_t *s, eval_result *r)
{
	if (eval_run(&plan.model, &plan.cluster, plan.devices, s, 1e6, r) || !r->valid)
		return -1;
	return eval_stage_mem(r, 0).total;
}

/* Load plan text; 0, or -1 after a failed check named what. */
static int load(const char *text, const char *what)
{
	if (fixture_load(&plan, &paths, text))
		return CHECK(0, what), -1;
	return 0;
}

/* Stage 0's bytes of a less those of b (both must evaluate: the check named what). */
static double saved(const strategy_t *a, const strategy_t *b, const char *what)
{
	double ta = stage0(a, &ra), tb = stage0(b, &rb);
	CHECK(ta > 0 && tb > 0, what);
	return ta - tb;
}

/* Llama-2-7B shape (vocabulary 32000), one device, seq 4096, micro-batch 1: the loss keeps
 * T*V*6 bytes unfused (bf16 logits + their fp32 copy) and T*V*2 fused, so the fused kernel
 * saves 4096 * 32000 * 4 = 524,288,000 bytes of the (only) stage. */
static void test_loss_fusion(void)
{
	if (load("model: llama2-7b\ncluster: dgx-h100\ndevices: 1\n"
				"strategy: {framework: megatron, seq_length: 4096, global_batch: 1}\n", "loss: the plan loads"))
		return;
	strategy_t a = plan.strategy, b = a;
	b.loss_fusion = true;
	CHECK_NEAR(saved(&a, &b, "loss: both plans evaluate"), 524288000.0, 1e-3, "loss: TE's fused loss keeps 2 of the 6 bytes per logit");
	CHECK(!fw_check(FW_MEGATRON, &b, &plan.model, NULL), "loss: megatron runs its fused loss");
	CHECK(refuses(FW_TORCHTITAN, &b, "torchtitan has no fused cross-entropy kernel"),
			"loss: torchtitan has no fused-loss switch");
	CHECK(refuses(FW_DEEPSPEED, &b, "deepspeed has no fused cross-entropy kernel"),
			"loss: DeepSpeed has no fused-loss switch");
	/* a framework without the kernel prices its own loss (an `auto` ZeRO-3 plan is priced
	 * as torchtitan: 10 B per logit either way) */
	a.zero = b.zero = 3;
	a.framework = b.framework = FW_AUTO;
	CHECK(saved(&a, &b, "loss: both ZeRO-3 plans evaluate") == 0,
			"loss: without a kernel to switch on, the bytes stay the framework's");
}

/* A Mixtral-like model of 2 MoE layers, hidden 1024, 8 heads (MHA, out-projection width
 * 1024), 8 experts of width 512 with SwiGLU (g = 2), top-2; one device, seq 1024, fp8,
 * flash attention, no dropout. Per layer, with T = 1024 tokens and T*k = 2048 routed copies:
 * - out-projection input: fp8 copy + 16-bit attention output = 3 B, cached once in E5M6
 *   with a 1x128 fp32 scale = 1.5 + 4/128 = 1.53125 B: T*1024*1.46875 = 1,540,096 B less;
 * - routed experts: permuted input 16-bit + fp8 (3h), SwiGLU input 16-bit (2*g*f_e) and
 *   output fp8 (f_e): 2048*(3072 + 2560) = 11,534,336 B; DeepSeek keeps the fp8 dispatched
 *   input and the fp8 SwiGLU input, each with its tile scale:
 *   2048*(1024 + 1024)*1.03125 = 4,325,376 B; 7,208,960 B less.
 * Two layers: 2 * (1,540,096 + 7,208,960) = 17,498,112 bytes fewer at stage 0. */
static void test_fp8_cache(void)
{
	if (load("model: {name: tiny-moe, hidden_size: 1024, num_hidden_layers: 2, "
				"num_attention_heads: 8, num_key_value_heads: 8, intermediate_size: 512, vocab_size: 32000, "
				"hidden_act: silu, num_local_experts: 8, num_experts_per_tok: 2}\n"
				"cluster: dgx-h100\ndevices: 1\n"
				"strategy: {seq_length: 1024, global_batch: 1, precision: fp8}\n", "fp8 cache: the plan loads"))
		return;
	strategy_t a = plan.strategy, b = a;
	b.fp8_cache = FP8C_DEEPSEEK;
	CHECK_NEAR(saved(&a, &b, "fp8 cache: both plans evaluate"), 17498112.0, 1e-3, "fp8 cache: DeepSeek-V3's caching saves the hand-counted bytes");
	CHECK(eval_stage_time_of(&rb, 0).bwd > eval_stage_time_of(&ra, 0).bwd, "fp8 cache: the recomputed SwiGLU output costs backward time");
	char why[300];
	CHECK(strat_validate(&b, &plan.model, &plan.cluster, plan.devices, why, sizeof why) == 0,
			"fp8 cache: an auto plan may price it (a what-if)");
	for (int fw = FW_MEGATRON; fw < FW_COUNT; fw++)
		CHECK(refuses(fw, &b, "cannot cache activations as fp8_cache deepseek does"),
				check_fmt("fp8 cache: %s does not run it, and says so", strat_framework_name(fw)));
	b.framework = FW_MEGATRON;
	CHECK(strat_validate(&b, &plan.model, &plan.cluster, plan.devices, why, sizeof why) == -1 &&
			strstr(why, "fp8_cache"), "fp8 cache: a plan naming megatron is refused");
	b.framework = FW_AUTO;
	b.precision = PREC_BF16;
	CHECK(strat_validate(&b, &plan.model, &plan.cluster, plan.devices, why, sizeof why) == -1 &&
			strstr(why, "needs precision fp8"), "fp8 cache: bf16 training has no fp8 activations to cache");
}

int main(void)
{
	fixture_paths(&paths);
	test_loss_fusion();
	test_fp8_cache();
	return check_done();
}
