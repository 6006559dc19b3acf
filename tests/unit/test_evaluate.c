/* Unit tests for src/core/evaluate.c: per-layer activation memory against Korthikanti et al.
 * 2022 (arXiv 2205.05198) Table 2, model-state bytes per ZeRO level, in-flight micro-batches
 * per pipeline schedule, the composition of the step time, the validity rules, and layer
 * kinds of their own width (activations, per-kind costs, P2P at stage boundaries, buffers).
 *
 * The cluster is built here with an explicit efficiency block, so recalibrating the cluster
 * presets cannot change any number these tests compare exactly. */
#include "check.h"
#include "fixture.h"
#include "core/cluster.h"
#include "core/cost/comm.h"
#include "core/cost/memory.h"
#include "core/evaluate.h"
#include "core/model.h"
#include "core/strategy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

static eval_result res, res2; /* large: keep them off the stack */

/* An A100-80GB-like cluster of 8-GPU nodes with every efficiency constant fixed. */
static cluster_t fixed_cluster(void)
{
	return fixture_cluster();
}

/* GPT-3 175B as in Korthikanti et al. 2022 Table 1/2: h=12288, a=96, 96 layers, vocab 51200,
 * GELU MLP of 4h, dropout 0.1 on attention probabilities and hidden states. */
static void gpt3(model_t *m)
{
	model_config c;
	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "GPT-3 175B");
	c.hidden = 12288;
	c.ffn = 4 * 12288;
	c.layers = 96;
	c.heads = 96;
	c.kv_heads = 96;
	c.vocab = 51200;
	c.tied = true;
	c.hidden_dropout = 0.1;
	c.attention_dropout = 0.1;
	fixture_model(m, &c);
}

/* A Llama-3-8B-shaped dense model (SwiGLU, GQA 32/8, untied), no dropout. */
static void llama8b(model_t *m)
{
	model_config c;
	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "llama-like 8B");
	c.hidden = 4096;
	c.ffn = 14336;
	c.layers = 32;
	c.heads = 32;
	c.kv_heads = 8;
	c.vocab = 128256;
	c.gated = true;
	fixture_model(m, &c);
}

/* A Mixtral-8x7B-shaped MoE (8 experts, top-2). */
static void mixtral(model_t *m)
{
	model_config c;
	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "mixtral-like");
	c.hidden = 4096;
	c.ffn = 14336;
	c.layers = 32;
	c.heads = 32;
	c.kv_heads = 8;
	c.vocab = 32000;
	c.gated = true;
	c.experts = 8;
	c.topk = 2;
	fixture_model(m, &c);
}

static strategy_t strat(int dp, int tp, int pp, int gbs, int seq)
{
	strategy_t s = strat_default();
	s.dp = dp;
	s.tp = tp;
	s.pp = pp;
	s.global_batch = gbs;
	s.seq = seq;
	return s;
}

static int run(const model_t *m, const cluster_t *c, int devices, const strategy_t *s, double budget,
		eval_result *r, const char *what)
{
	if (eval_run(m, c, devices, s, budget, r)) {
		printf("  %s: rejected: %s\n", what, r->why);
		return -1;
	}
	return 0;
}

/* ---- Korthikanti et al. 2022, Table 2: activation bytes per layer ---------------------------
 * s = 2048, b = 1, h = 12288, a = 96, t = 8; 16-bit activations, 1-byte dropout masks. */
static void test_korthikanti(void)
{
	model_t m;
	cluster_t c = fixed_cluster();
	gpt3(&m);
	const double s = 2048, b = 1, h = 12288, a = 96, t = 8;
	const double sbh = s * b * h;
	strategy_t st = strat(1, 1, 1, 1, 2048);
	st.flash = false;
	st.sp = false;

	/* no parallelism: sbh(34 + 5as/h) */
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_NONE), sbh * (34 + 5 * a * s / h), 1e-12,
			"korthikanti: no parallelism sbh(34 + 5as/h)");
	/* tensor parallel, no sequence parallel: sbh(10 + 24/t + 5as/(ht)) */
	st.tp = 8;
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_NONE), sbh * (10 + 24 / t + 5 * a * s / (h * t)),
			1e-12, "korthikanti: TP8 without SP sbh(10 + 24/t + 5as/(ht))");
	/* tensor + sequence parallel: sbh/t (34 + 5as/h) */
	st.sp = true;
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_NONE), sbh / t * (34 + 5 * a * s / h), 1e-12,
			"korthikanti: TP8+SP sbh/t(34 + 5as/h)");
	/* + selective recompute of the attention core: exactly 34 sbh/t */
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_SELECTIVE), 34 * sbh / t, 1e-12,
			"korthikanti: TP8+SP+selective 34 sbh/t");
	/* full recompute keeps only the layer input: 2 sbh/t with SP */
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_FULL), 2 * sbh / t, 1e-12,
			"korthikanti: full recompute with SP 2 sbh/t");
	/* full recompute without SP keeps the whole input on every TP rank: 2 sbh */
	st.sp = false;
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_FULL), 2 * sbh, 1e-12,
			"korthikanti: full recompute without SP 2 sbh");
	/* Table 2 in numbers (per layer, GPT-3 175B, t = 8 with SP): 34 sbh/t = 106,954,752 B */
	st.sp = true;
	CHECK(eval_layer_activation(&m, &c, &st, 0, RC_SELECTIVE) == 106954752.0,
			"korthikanti: selective = 106,954,752 bytes per layer");

	/* context parallelism splits the sequence: activations halve with cp = 2 */
	double one = eval_layer_activation(&m, &c, &st, 0, RC_NONE);
	st.cp = 2;
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_NONE), one / 2, 1e-12,
			"activation: cp=2 halves a layer's activations");
	st.cp = 1;

	/* flash attention stores no s^2 score matrix: activations grow linearly with s and
	 * selective recompute has nothing left to drop */
	st.flash = true;
	double f2k = eval_layer_activation(&m, &c, &st, 0, RC_NONE);
	CHECK(f2k < one, "activation: flash attention stores less than the unfused core");
	CHECK(eval_layer_activation(&m, &c, &st, 0, RC_SELECTIVE) == f2k,
			"activation: with flash, selective == none");
	st.seq = 4096;
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_NONE), 2 * f2k, 1e-12,
			"activation: with flash, doubling s doubles activations (no s^2 term)");
	/* micro-batch size scales linearly */
	st.seq = 2048;
	st.micro_batch = 4;
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_NONE), 4 * f2k, 1e-12,
			"activation: micro-batch 4 = 4x micro-batch 1");

	/* fp8 under Transformer Engine (Megatron) saves the fp8 copy of each GEMM input for
	 * the weight gradient: QKV input 2 -> 1 B, FC1 input 2 -> 1, FC2 input (4h wide)
	 * 2 -> 1: 1 + 1 + 4 = 6 sbh/t fewer bytes; the out-projection input gains its fp8
	 * copy beside flash's 16-bit output (+1 sbh/t): 5 sbh/t = 15,728,640 B less per layer
	 * at s = 2048, h = 12288, t = 8. Unfused attention keeps only the fp8 copy of the
	 * context: 7 sbh/t less. torchtitan (torchao's Float8Linear) saves 16-bit inputs. */
	st.micro_batch = 1;
	st.precision = PREC_BF16;
	double bf = eval_layer_activation(&m, &c, &st, 0, RC_NONE);
	st.precision = PREC_FP8;
	CHECK(bf - eval_layer_activation(&m, &c, &st, 0, RC_NONE) == 15728640.0,
			"activation: fp8 (TE) saves 5 sbh/t = 15,728,640 B per layer with flash");
	st.flash = false;
	double uf8 = eval_layer_activation(&m, &c, &st, 0, RC_NONE);
	st.precision = PREC_BF16;
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_NONE) - uf8, 7 * sbh / t, 1e-12,
			"activation: fp8 (TE) saves 7 sbh/t with unfused attention");
	st.flash = true;
	st.precision = PREC_FP8;
	st.framework = FW_TORCHTITAN;
	CHECK(eval_layer_activation(&m, &c, &st, 0, RC_NONE) == bf,
			"activation: fp8 under torchtitan saves 16-bit GEMM inputs");
	st.framework = FW_AUTO;
	st.precision = PREC_BF16;

	/* bad arguments give -1 */
	st.micro_batch = 1;
	CHECK(eval_layer_activation(&m, &c, &st, 5, RC_NONE) == -1, "activation: unknown kind -> -1");
	CHECK(eval_layer_activation(&m, &c, &st, 0, RC_COUNT) == -1, "activation: unknown mode -> -1");
	st.tp = 0;
	CHECK(eval_layer_activation(&m, &c, &st, 0, RC_NONE) == -1, "activation: tp=0 -> -1");
}

/* ---- model states per ZeRO level (Megatron theoretical_memory_usage.py; ZeRO paper):
 * bf16 weights 2 B, fp32 gradients 4 B, fp32 master + Adam m, v 12 B per parameter;
 * ZeRO-1 shards the 12 B over d, ZeRO-2 also the gradients, ZeRO-3 everything (fp32 master
 * shard 4 + gradient 4 + Adam 8 = 16 B / d). */
/* FSDP2 under PyTorch's pipelining (torchtitan, pp > 1, several micro-batches): unsharded
 * 16-bit parameters (2 B) and unsharded fp32 gradient accumulation (4 B) per parameter of
 * the stage, with the fp32 master and Adam's moments sharded (12/d); at d = 8 and
 * 6.33e9 parameters per device (Llama 3 405B at tp 8, pp 8): (2 + 4 + 1.5) B = 47.5 GB,
 * against 2 + 4/8 + 12/8 = 4 B = 25.3 GB (ZeRO-2 as Megatron or DeepSpeed runs it). */
static void test_fsdp_pp(void)
{
	strategy_t s = strat(8, 1, 8, 64, 4096);
	s.zero = 2;
	s.framework = FW_TORCHTITAN;
	mem_state o = mem_state_bytes(&s, 8, 8);
	CHECK(o.wb == 2 && o.gb == 4 && o.ob == 1.5, "fsdp+pp: 2 + 4 + 12/d bytes per parameter");
	CHECK_NEAR((o.wb + o.gb + o.ob) * 6.33e9, 47.475e9, 1e-12, "fsdp+pp: 47.5 GB at 6.33e9 parameters");
	s.zero = 3;
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.wb + o.gb + o.ob == 7.5, "fsdp+pp: ZeRO-3 keeps the same unsharded copies");
	s.global_batch = 8; /* one micro-batch: nothing accumulates */
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.wb + o.gb + o.ob == 2.0, "fsdp+pp: one micro-batch keeps ZeRO-3's 16/d");
	s.global_batch = 64;
	s.framework = FW_MEGATRON;
	s.zero = 2;
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.wb + o.gb + o.ob == 4.0, "fsdp+pp: Megatron's ZeRO-2 is 2 + 4/d + 12/d");
}

/* ---- the precision-aware optimizer (Megatron --exp-avg-dtype, --exp-avg-sq-dtype,
 * --main-grads-dtype, --main-params-dtype; TE FusedAdam). DeepSeek-V3 (arXiv 2412.19437,
 * Sec. 3.3.2) keeps Adam's moments in bf16 and master weights and gradients in fp32. Under
 * Megatron (or `auto`, priced as it below ZeRO-3), bf16 training, ZeRO-1 at d = 8: weights
 * 2, main grads 4, optimizer (2 master remainder + 2 m + 2 v) / 8 = 0.75, so 6.75 B per
 * parameter against 6 + 12/8 = 7.5 in fp32. */
static void test_opt_dtypes(void)
{
	strategy_t s = strat(8, 1, 1, 8, 4096);
	s.zero = 1;
	mem_state o = mem_state_bytes(&s, 8, 8);
	CHECK(o.wb == 2 && o.gb == 4 && o.ob == 1.5, "opt: fp32 defaults keep 2 + 4 + 12/d");
	s.opt_dt[OPT_EXP_AVG] = s.opt_dt[OPT_EXP_AVG_SQ] = ODT_BF16;
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.wb == 2 && o.gb == 4 && o.ob == 0.75, "opt: bf16 moments under ZeRO-1 at d=8: 2 + 4 + 6/8 = 6.75 B");
	s.framework = FW_TORCHTITAN; /* no remainder: a full fp32 master (4 + 2 + 2) / 8 */
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.ob == 1.0, "opt: without master remainders (4 + 2 + 2)/8 = 1 B");
	s.framework = FW_MEGATRON;
	s.precision = PREC_FP16; /* fp16 params: the remainder trick needs bf16 */
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.ob == 1.0, "opt: fp16 training keeps the whole fp32 master");
	s.precision = PREC_BF16;
	s.opt_dt[OPT_EXP_AVG] = s.opt_dt[OPT_EXP_AVG_SQ] = ODT_FP8;
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.ob == 0.5, "opt: fp8 moments (2 + 1 + 1)/8 = 0.5 B");
	/* NVIDIA's low-memory recipe: fp16 moments and main params, bf16 main grads */
	s.opt_dt[OPT_EXP_AVG] = s.opt_dt[OPT_EXP_AVG_SQ] = s.opt_dt[OPT_MAIN_PARAMS] = ODT_FP16;
	s.opt_dt[OPT_MAIN_GRADS] = ODT_BF16;
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.wb == 2 && o.gb == 2 && o.ob == 0.75, "opt: fp16 m, v, master and bf16 grads: 2 + 2 + 6/8 B");
	s.zero = 0;
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.gb == 2 && o.ob == 6, "opt: ZeRO-0 holds them whole: 2 + 6 B");
	s.zero = 2;
	o = mem_state_bytes(&s, 8, 8);
	CHECK(o.gb == 0.25 && o.ob == 0.75, "opt: ZeRO-2 shards the bf16 grads: 2/8 + 6/8 B");
	/* ZeRO-3 (auto: FSDP): the fp32 shard is the master, bf16 m and v: (4 + 4 + 2 + 2)/8 */
	strategy_t z = strat(8, 1, 1, 8, 4096);
	z.zero = 3;
	z.opt_dt[OPT_EXP_AVG] = z.opt_dt[OPT_EXP_AVG_SQ] = ODT_BF16;
	o = mem_state_bytes(&z, 8, 8);
	CHECK(o.wb == 0.5 && o.gb == 0.5 && o.ob == 0.5, "opt: ZeRO-3 with bf16 moments 12/d = 1.5 B");

	/* the optimizer step streams 2*4 grad + 2*2 remainder + 2 bf16 weight + 2*2 m + 2*2 v
	 * + 2 written = 24 bytes per parameter instead of 34 */
	model_t m;
	cluster_t c = fixed_cluster();
	llama8b(&m);
	strategy_t a = strat(8, 1, 1, 8, 4096), b = a;
	a.zero = b.zero = 1;
	b.opt_dt[OPT_EXP_AVG] = b.opt_dt[OPT_EXP_AVG_SQ] = ODT_BF16;
	eval_result ra, rb;
	if (!run(&m, &c, 8, &a, 1e5, &ra, "opt fp32") && !run(&m, &c, 8, &b, 1e5, &rb, "opt bf16")) {
		double fixed = c.eff.step_ms * 1e-3;
		CHECK_NEAR((rb.optimizer - fixed) / (ra.optimizer - fixed), 24.0 / 34.0, 1e-9,
				"opt: the bf16-moment step streams 24/34 of the bytes");
		CHECK_NEAR(eval_stage_mem(&ra, 0).optimizer - eval_stage_mem(&rb, 0).optimizer, model_total_params(&m, false) * 6 / 8, 1e-6,
				"opt: bf16 moments save 6/d B per parameter of the model");
	}
}

static void test_zero(void)
{
	model_t m;
	cluster_t c = fixed_cluster();
	llama8b(&m);
	/* pp = 1, tp = 1: one device holds the whole model. The final norm (h params) is not
	 * counted per stage: a 5e-7 relative difference, inside the 1e-6 tolerance. */
	const double P = model_total_params(&m, false);
	strategy_t s = strat(8, 1, 1, 8, 4096);

	s.zero = 0;
	if (!run(&m, &c, 8, &s, 1e5, &res, "zero0")) {
		CHECK_NEAR(eval_stage_mem(&res, 0).weights, 2 * P, 1e-6, "zero0: weights 2 B/param");
		CHECK_NEAR(eval_stage_mem(&res, 0).grads, 4 * P, 1e-6, "zero0: gradients 4 B/param");
		CHECK_NEAR(eval_stage_mem(&res, 0).optimizer, 12 * P, 1e-6, "zero0: optimizer 12 B/param");
	}
	s.zero = 1;
	if (!run(&m, &c, 8, &s, 1e5, &res, "zero1")) {
		CHECK_NEAR(eval_stage_mem(&res, 0).weights, 2 * P, 1e-6, "zero1: weights 2 B/param");
		CHECK_NEAR(eval_stage_mem(&res, 0).grads, 4 * P, 1e-6, "zero1: gradients 4 B/param");
		CHECK_NEAR(eval_stage_mem(&res, 0).optimizer, 12 * P / 8, 1e-6, "zero1: optimizer 12/d B/param (d=8)");
	}
	s.zero = 2;
	if (!run(&m, &c, 8, &s, 1e5, &res, "zero2")) {
		CHECK_NEAR(eval_stage_mem(&res, 0).grads, 4 * P / 8, 1e-6, "zero2: gradients 4/d B/param");
		CHECK_NEAR(eval_stage_mem(&res, 0).optimizer, 12 * P / 8, 1e-6, "zero2: optimizer 12/d B/param");
	}
	s.zero = 3;
	if (!run(&m, &c, 8, &s, 1e5, &res, "zero3 d=8")) {
		const eval_mem e0 = eval_stage_mem(&res, 0), *e = &e0;
		CHECK_NEAR(e->weights + e->grads + e->optimizer, 16 * P / 8, 1e-6,
				"zero3: all model states 16/d B/param (d=8)");
		/* doubling dp halves every model-state component */
		strategy_t s16 = strat(16, 1, 1, 16, 4096);
		s16.zero = 3;
		if (!run(&m, &c, 16, &s16, 1e5, &res2, "zero3 d=16")) {
			CHECK_NEAR(eval_stage_mem(&res2, 0).weights, e->weights / 2, 1e-12, "zero3: weights / dp");
			CHECK_NEAR(eval_stage_mem(&res2, 0).grads, e->grads / 2, 1e-12, "zero3: gradients / dp");
			CHECK_NEAR(eval_stage_mem(&res2, 0).optimizer, e->optimizer / 2, 1e-12, "zero3: optimizer / dp");
			CHECK(eval_stage_mem(&res2, 0).activations == e->activations,
					"zero3: activations do not depend on dp");
		}
	}
	/* ZeRO-1 with cp: the optimizer is sharded over dp*cp */
	s = strat(4, 1, 1, 4, 4096);
	s.cp = 2;
	s.zero = 1;
	if (!run(&m, &c, 8, &s, 1e5, &res, "zero1 cp2"))
		CHECK_NEAR(eval_stage_mem(&res, 0).optimizer, 12 * P / 8, 1e-6, "zero1: optimizer sharded over dp*cp");
	/* tp = 2: matrices split, so model states nearly halve */
	s = strat(4, 2, 1, 4, 4096);
	s.zero = 1;
	if (!run(&m, &c, 8, &s, 1e5, &res, "tp2")) {
		CHECK(eval_stage_mem(&res, 0).weights < P * 2 / 2 * 1.001 && eval_stage_mem(&res, 0).weights > P * 2 / 2 * 0.999,
				"tp2: weights ~ 2P/tp (norms replicated)");
	}
}

/* ---- in-flight micro-batches per schedule (Megatron 1F1B / interleaved, GPipe) ------------- */
static void test_schedules(void)
{
	model_t m;
	cluster_t c = fixed_cluster();
	llama8b(&m);
	const int p = 4;
	strategy_t s = strat(2, 1, p, 16, 4096); /* 8 micro-batches per replica */
	s.recompute = RC_SELECTIVE;

	if (!run(&m, &c, 8, &s, 1e5, &res, "1f1b"))
		return;
	CHECK(res.microbatches == 8, "1f1b: 8 micro-batches");
	CHECK(eval_stage_mem(&res, 0).inflight == p, "1f1b: stage 0 holds p micro-batches");
	CHECK(eval_stage_mem(&res, 1).inflight == p - 1, "1f1b: stage 1 holds p-1");
	CHECK(eval_stage_mem(&res, p - 1).inflight == 1, "1f1b: last stage holds one micro-batch");
	CHECK(eval_stage_mem(&res, 0).layers == 8 && eval_stage_mem(&res, 3).layers == 8, "1f1b: 32 layers split 8 per stage");
	/* stage 0 activations: p x (8 layers x per-layer + the embedding's 8bs bytes of token ids
	 * and loss mask); with no dropout nothing else is stored per micro-batch */
	double act = eval_layer_activation(&m, &c, &s, 0, RC_SELECTIVE);
	CHECK_NEAR(eval_stage_mem(&res, 0).activations, p * (8 * act + 8.0 * s.micro_batch * s.seq), 1e-12,
			"1f1b: stage 0 activations = p x (layers x per-layer + 8bs)");
	/* stages 1 and 2 have neither embedding nor head: exact multiples of one micro-batch */
	CHECK_NEAR(eval_stage_mem(&res, 1).activations, 3 * 8 * act, 1e-12, "1f1b: stage 1 activations = 3 x 8 layers");
	CHECK_NEAR(eval_stage_mem(&res, 2).activations, 2 * 8 * act, 1e-12, "1f1b: stage 2 activations = 2 x 8 layers");
	CHECK(res.peak_stage == 0, "1f1b: stage 0 is the memory peak");
	double a1f1b = eval_stage_mem(&res, 0).activations;

	/* interleaved with v chunks: stage 0 holds p(1 + (p-1)/(pv)) micro-batches' worth */
	s.schedule = SCHED_INTERLEAVED;
	s.vpp = 2;
	if (!run(&m, &c, 8, &s, 1e5, &res, "interleaved"))
		return;
	CHECK_NEAR(eval_stage_mem(&res, 0).inflight, p * (1 + (p - 1.0) / (p * 2)), 1e-12,
			"interleaved: stage 0 factor 1 + (p-1)/(pv)");
	CHECK(eval_stage_mem(&res, 0).activations > a1f1b, "interleaved: stage 0 holds more than 1F1B");
	CHECK(res.chunks == 8 && eval_stage_mem(&res, 0).layers == 8, "interleaved: 8 chunks of 4 layers, 8 per stage");

	/* GPipe keeps all m micro-batches on every stage */
	s.schedule = SCHED_GPIPE;
	s.vpp = 1;
	if (!run(&m, &c, 8, &s, 1e5, &res, "gpipe"))
		return;
	int ok = 1;
	for (int i = 0; i < p; i++)
		ok &= eval_stage_mem(&res, i).inflight == 8;
	CHECK(ok, "gpipe: every stage holds m micro-batches");
	CHECK_NEAR(eval_stage_mem(&res, 1).activations, 8 * 8 * act, 1e-12, "gpipe: stage 1 activations = m x 8 layers");

	/* fewer micro-batches than stages: 1F1B cannot hold more than m */
	s = strat(2, 1, p, 4, 4096); /* 2 micro-batches */
	if (!run(&m, &c, 8, &s, 1e5, &res, "1f1b m<p"))
		return;
	CHECK(eval_stage_mem(&res, 0).inflight == 2, "1f1b: in-flight capped at m when m < p");
}

/* ---- step time composition and throughput ------------------------------------------------- */
static void test_time(void)
{
	model_t m;
	cluster_t c = fixed_cluster();
	llama8b(&m);
	strategy_t s = strat(2, 2, 4, 32, 4096); /* 16 devices, 16 micro-batches */
	s.recompute = RC_FULL;
	s.zero = 1;
	if (run(&m, &c, 16, &s, 0, &res, "time"))
		return;
	double parts = res.compute + res.recompute + res.bubble + res.optimizer + res.comm_exposed;
	CHECK_NEAR(parts, res.step, 1e-9, "time: compute+recompute+bubble+optimizer+comm_exposed == step");
	CHECK_NEAR(res.tp + res.cp + res.ep + res.pp + res.dp, res.comm_exposed, 1e-9,
			"time: comm_exposed = tp + cp + ep + pp + dp");
	CHECK(res.compute > 0 && res.recompute > 0 && res.bubble > 0 && res.tp > 0 && res.pp > 0,
			"time: full recompute, TP and PP all cost something");
	CHECK(res.cp == 0 && res.ep == 0, "time: no cp/ep time without cp/ep");
	CHECK(res.mfu > 0 && res.mfu < 1, "time: MFU in (0, 1)");
	CHECK(res.hfu > res.mfu && res.hfu < 1, "time: HFU > MFU under full recompute, < 1");
	CHECK_NEAR(res.tokens_per_s, 32.0 * 4096 / res.step, 1e-12, "time: tokens/s = gbs * seq / step");
	/* MFU by definition: model FLOPs / (step * devices * peak) */
	CHECK_NEAR(res.mfu, res.model_flops / (res.step * 16 * 312e12), 1e-12, "time: MFU definition");
	/* model FLOPs per step ~ 6 * params * tokens + attention (Narayanan et al. 2021): with
	 * s=4096 attention adds ~ 6*L*s*h/(6P) ~ 10%, so the ratio lies in [1.0, 1.3] */
	double six = 6 * model_total_params(&m, false) * 32 * 4096;
	CHECK(res.model_flops > six * 1.0 && res.model_flops < six * 1.3, "time: model FLOPs ~ 6 N tokens (+attention)");
	CHECK_NEAR(res.budget_bytes, 76 * GIB, 1e-12, "time: default budget = memory - reserve_gib");

	/* the budget only decides `fits`, never the time */
	double step = res.step;
	if (!run(&m, &c, 16, &s, 1.0, &res2, "budget 1 GiB")) {
		CHECK(res2.step == step, "budget: a 1 GiB budget leaves the time unchanged");
		CHECK(!res2.fits && res.fits, "budget: 1 GiB does not fit, the default does");
	}
	if (!run(&m, &c, 16, &s, 1e5, &res2, "budget 1e5 GiB"))
		CHECK(res2.step == step && res2.fits, "budget: a huge budget leaves the time unchanged");

	/* doubling the global batch at the same micro-batch doubles the per-micro-batch part;
	 * bubble, optimizer and exposed DP reduction are per step */
	strategy_t s2 = s;
	s2.global_batch = 64;
	if (!run(&m, &c, 16, &s2, 0, &res2, "gbs 64")) {
		double lin1 = res.step - res.bubble - res.optimizer - res.dp;
		double lin2 = res2.step - res2.bubble - res2.optimizer - res2.dp;
		CHECK_NEAR(lin2, 2 * lin1, 1e-9, "batch: per-micro-batch time exactly doubles with gbs");
		double r = (res2.step - res2.bubble) / (res.step - res.bubble);
		CHECK(r > 1.9 && r < 2.05, "batch: step minus bubble roughly doubles");
		CHECK(res2.bubble == res.bubble, "batch: the 1F1B bubble does not grow with m");
		CHECK(res2.tokens_per_s > res.tokens_per_s, "batch: more micro-batches, higher throughput");
	}

	/* more recomputation never makes a step faster */
	s2 = s;
	s2.recompute = RC_NONE;
	if (!run(&m, &c, 16, &s2, 0, &res2, "recompute none")) {
		CHECK(res2.step < step && res2.recompute == 0, "recompute: none is faster than full");
		CHECK_NEAR(res2.mfu / res2.hfu, 1, 1e-12, "recompute: MFU == HFU without recompute");
		CHECK(res2.peak_bytes > res.peak_bytes, "recompute: none needs more memory than full");
	}
}

/* TP spanning two 8-GPU nodes runs its all-reduces over the network: slower per micro-batch
 * than TP inside a node, although the volume per rank barely changes. */
static void test_tp_across_nodes(void)
{
	model_t m;
	cluster_t c = fixed_cluster();
	llama8b(&m);
	strategy_t s8 = strat(4, 8, 1, 8, 4096), s16 = strat(2, 16, 1, 8, 4096);
	if (run(&m, &c, 32, &s8, 0, &res, "tp8") || run(&m, &c, 32, &s16, 0, &res2, "tp16"))
		return;
	double per8 = eval_stage_time_of(&res, 0).tp, per16 = eval_stage_time_of(&res2, 0).tp; /* TP seconds per micro-batch */
	CHECK(per8 > 0 && per16 > per8, "tp across nodes: tp=16 costs more TP time per micro-batch than tp=8");
	CHECK(res2.tp / res2.microbatches > res.tp / res.microbatches,
			"tp across nodes: also in the step totals per micro-batch");
	/* same on a cluster with 16-GPU nodes: tp=16 fits in a node and costs about as tp=8 */
	cluster_t big = c;
	big.node_devices = 16;
	if (!run(&m, &big, 32, &s16, 0, &res2, "tp16 in a 16-GPU node"))
		CHECK(eval_stage_time_of(&res2, 0).tp < per16, "tp across nodes: tp=16 inside a 16-GPU node is cheaper");
}

/* ---- validity rules: each rejection names the rule that failed ----------------------------- */
static void expect_reject(const model_t *m, const cluster_t *c, int devices, const strategy_t *s,
		const char *needle, const char *name)
{
	int rc = eval_run(m, c, devices, s, 0, &res);
	if (!CHECK(rc == -1 && !res.valid && strstr(res.why, needle), name))
		printf("  rc %d, why \"%s\", want it to contain \"%s\"\n", rc, res.why, needle);
}

static void test_invalid(void)
{
	model_t m, moe;
	cluster_t c = fixed_cluster();
	llama8b(&m);
	mixtral(&moe);
	strategy_t s;

	s = strat(1, 3, 1, 1, 4096);
	s.sp = false;
	expect_reject(&m, &c, 3, &s, "tp=3 does not divide 32 attention heads", "invalid: tp not dividing heads");
	s = strat(1, 16, 1, 1, 4096); /* 32 heads ok, 8 kv heads divide 16 ok: valid */
	CHECK(eval_run(&m, &c, 16, &s, 0, &res) == 0, "valid: tp=16 with 8 KV heads (replicated KV)");
	s = strat(3, 1, 1, 3, 4096);
	s.ep = 3;
	expect_reject(&moe, &c, 3, &s, "ep=3 does not divide 8 experts", "invalid: ep not dividing experts");
	s = strat(8, 1, 1, 24, 4096);
	s.micro_batch = 2;
	expect_reject(&m, &c, 8, &s, "not divisible by dp*micro_batch", "invalid: gbs not divisible by dp*mbs");
	s = strat(2, 2, 1, 2, 4096);
	expect_reject(&m, &c, 8, &s, "= 4 does not equal 8 devices", "invalid: degrees not multiplying to devices");
	s = strat(8, 1, 1, 8, 4096);
	s.zero = 4;
	expect_reject(&m, &c, 8, &s, "zero must be 0, 1, 2 or 3", "invalid: zero=4");
	s = strat(8, 1, 1, 8, 4096);
	s.ep = 2;
	expect_reject(&m, &c, 8, &s, "no experts", "invalid: ep on a dense model");
	s = strat(2, 1, 4, 8, 4096);
	s.vpp = 2;
	expect_reject(&m, &c, 8, &s, "needs the interleaved schedule", "invalid: vpp without interleaved");
	s = strat(8, 1, 1, 8, 4096);
	s.vpp = 2;
	s.schedule = SCHED_INTERLEAVED;
	expect_reject(&m, &c, 8, &s, "needs pp > 1", "invalid: vpp with pp=1");
	s = strat(2, 1, 4, 12, 4096); /* 6 micro-batches, pp=4 */
	s.vpp = 2;
	s.schedule = SCHED_INTERLEAVED;
	expect_reject(&m, &c, 8, &s, "divisible by pp=4", "invalid: interleaved needs m divisible by pp");
	s = strat(8, 1, 1, 8, 4096);
	s.precision = PREC_FP8;
	expect_reject(&m, &c, 8, &s, "fp8 is not supported", "invalid: fp8 on a device without an fp8 peak");
	s = strat(1, 1, 64, 128, 4096);
	expect_reject(&m, &c, 64, &s, "32 layers cannot fill 64 pipeline stages", "invalid: more stages than layers");
	s = strat(4, 1, 1, 4, 4094);
	s.cp = 2;
	expect_reject(&m, &c, 8, &s, "divisible by 2*cp", "invalid: ring cp needs seq divisible by 2cp");
	s = strat(4, 2, 1, 4, 4095);
	expect_reject(&m, &c, 8, &s, "sequence parallelism needs", "invalid: SP needs seq divisible by tp");
	s = strat(4, 1, 2, 8, 4096);
	s.nchunks = 2;
	s.chunk_layers[0] = 10;
	s.chunk_layers[1] = 20;
	expect_reject(&m, &c, 8, &s, "sum to 30, the model has 32 layers", "invalid: stage layers not summing to layers");
	s = strat(0, 1, 1, 8, 4096);
	expect_reject(&m, &c, 8, &s, "dp must be a positive integer", "invalid: dp=0");

	/* a valid explicit stage split is used as given */
	s = strat(4, 1, 2, 8, 4096);
	s.nchunks = 2;
	s.chunk_layers[0] = 12;
	s.chunk_layers[1] = 20;
	if (!run(&m, &c, 8, &s, 0, &res, "stage_layers 12/20"))
		CHECK(eval_stage_mem(&res, 0).layers == 12 && eval_stage_mem(&res, 1).layers == 20, "stage layers: 12 + 20 used as given");
	/* per-layer recompute ranges: full on every layer == recompute full */
	s = strat(8, 1, 1, 8, 4096);
	s.nranges = 1;
	s.range[0] = (rc_range){0, 32, RC_FULL};
	strategy_t sf = strat(8, 1, 1, 8, 4096);
	sf.recompute = RC_FULL;
	if (!run(&m, &c, 8, &s, 0, &res, "range full") && !run(&m, &c, 8, &sf, 0, &res2, "full"))
		CHECK_NEAR(eval_stage_mem(&res, 0).activations, eval_stage_mem(&res2, 0).activations, 1e-12,
				"recompute ranges: [0:32] full == recompute full");
}

/* ---- MoE: expert states sharded over EP, all-to-all time only with ep > 1 ------------------ */
static void test_moe(void)
{
	model_t m;
	cluster_t c = fixed_cluster();
	mixtral(&m);
	strategy_t s1 = strat(8, 1, 1, 8, 4096), s8 = s1;
	s8.ep = 8;
	s1.zero = s8.zero = 0;
	if (run(&m, &c, 8, &s1, 1e5, &res, "moe ep1") || run(&m, &c, 8, &s8, 1e5, &res2, "moe ep8"))
		return;
	layer_params lp = model_layer_params(&m, 1);
	double saved = 32 * lp.experts_routed * (1 - 1.0 / 8) * 2; /* bf16 weights */
	CHECK_NEAR(eval_stage_mem(&res, 0).weights - eval_stage_mem(&res2, 0).weights, saved, 1e-9,
			"moe: ep=8 keeps 1/8 of the routed expert weights");
	CHECK(res.ep == 0 && res2.ep > 0, "moe: all-to-all time only with ep > 1");
	CHECK_NEAR(res.params_active, model_active_params(&m), 1e-12, "moe: result reports active params");
}

/* DualPipe hides each MoE layer's all-to-alls under the paired chunk's compute: against
 * 1F1B the layer saves (1 - contention) of its EP time while that fits in the window, so
 * the saving halves from contention 0 to 0.5 and vanishes at contention 1. */
static void test_dualpipe_ep(void)
{
	static eval_costs ec;
	model_t m;
	cluster_t c = fixed_cluster();
	mixtral(&m);
	strategy_t s = strat(8, 1, 2, 32, 4096); /* 4 micro-batches: DualPipe needs 2 pp */
	s.ep = 8;
	s.zero = 1;
	double saved[3];
	const double kap[3] = {0, 0.5, 1};
	char why[256];
	for (int i = 0; i < 3; i++) {
		c.eff.contention = kap[i];
		s.schedule = SCHED_1F1B;
		if (!CHECK(eval_costs_get(&m, &c, 16, &s, 1e5, &ec, why, sizeof why) == 0, "dualpipe ep: 1f1b costs"))
			return;
		double t1 = ec.kind[1].fwd + ec.kind[1].bwd, d1 = ec.kind[0].fwd + ec.kind[0].bwd, p1 = ec.p2p;
		s.schedule = SCHED_DUALPIPE;
		if (!CHECK(eval_costs_get(&m, &c, 16, &s, 1e5, &ec, why, sizeof why) == 0, "dualpipe ep: dualpipe costs"))
			return;
		CHECK(p1 > 0 && fabs(ec.p2p - kap[i] * p1) <= 1e-12 * p1,
				check_fmt("dualpipe pp: a send under the paired chunk costs contention %.1f of itself", kap[i]));
		saved[i] = t1 - (ec.kind[1].fwd + ec.kind[1].bwd);
		CHECK_NEAR(ec.kind[0].fwd + ec.kind[0].bwd, d1, 1e-15, "dualpipe ep: a layer without experts is unchanged");
	}
	CHECK(saved[0] > 0, "dualpipe ep: the MoE layer's all-to-alls are hidden");
	CHECK_NEAR(saved[1], 0.5 * saved[0], 1e-12, "dualpipe ep: contention 0.5 keeps half the saving");
	CHECK_NEAR(saved[2], 0, 1e-15, "dualpipe ep: contention 1 saves nothing");
}

/* ---- layer kinds of their own width ------------------------------------------------------
 * A vision-language shape: enc GPT-style encoder layers of width 1024 (16 heads of 64, plain
 * MLP 4096) in front of dec Llama-style decoder layers of the model's width 4096 (GQA 32/8,
 * gated MLP 14336); dropout 0.1 on attention and hidden states, as in Korthikanti's GPT-3. */
static void vlm(model_t *m, int enc, int dec)
{
	memset(m, 0, sizeof *m);
	snprintf(m->name, sizeof m->name, "vlm-like");
	m->hidden = 4096;
	m->vocab = 32000;
	m->gated = true;
	m->hidden_dropout = m->attention_dropout = 0.1;
	m->kind[0] = (layer_kind){.hidden = 1024, .mlp = MLP_PLAIN, .heads = 16, .kv_heads = 16, .head_dim = 64,
		.ffn = 4096};
	m->kind[1] = (layer_kind){.heads = 32, .kv_heads = 8, .head_dim = 128, .ffn = 14336};
	m->nkinds = 2;
	model_append(m, 0, enc);
	model_append(m, 1, dec);
}

/* Every eval_run field for two models must be the same bits. */
static int same_result(const model_t *a, const model_t *b, const cluster_t *c, int devices, const strategy_t *s)
{
	memset(&res, 0, sizeof res);
	memset(&res2, 0, sizeof res2);
	int ra = eval_run(a, c, devices, s, 0, &res), rb = eval_run(b, c, devices, s, 0, &res2);
	return ra == 0 && rb == 0 && !memcmp(&res, &res2, sizeof res);
}

static void test_kind_width(void)
{
	static model_t m, v, u; /* static: several KiB each */
	cluster_t c = fixed_cluster();
	vlm(&m, 24, 32);

	/* Korthikanti's per-layer count at the encoder's own width h = 1024, a = 16 */
	const double s = 2048, b = 1, h = 1024, a = 16, t = 8;
	const double sbh = s * b * h;
	strategy_t st = strat(1, 1, 1, 1, 2048);
	st.flash = false;
	st.sp = false;
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_NONE), sbh * (34 + 5 * a * s / h), 1e-12,
			"kind width: encoder activations sbh(34 + 5as/h) at its own h = 1024");
	st.tp = 8;
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_NONE), sbh * (10 + 24 / t + 5 * a * s / (h * t)), 1e-12,
			"kind width: encoder, TP8 without SP sbh(10 + 24/t + 5as/(ht))");
	st.sp = true;
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_NONE), sbh / t * (34 + 5 * a * s / h), 1e-12,
			"kind width: encoder, TP8+SP sbh/t(34 + 5as/h)");
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_SELECTIVE), 34 * sbh / t, 1e-12,
			"kind width: encoder, TP8+SP+selective 34 sbh/t");
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 0, RC_FULL), 2 * sbh / t, 1e-12,
			"kind width: encoder, full recompute keeps its 1024-wide input 2 sbh/t");
	CHECK_NEAR(eval_layer_activation(&m, &c, &st, 1, RC_FULL), 2 * s * b * 4096 / t, 1e-12,
			"kind width: decoder, full recompute keeps its 4096-wide input");

	/* each kind costs what the same layer costs in a model of its own width and MLP type:
	 * parameters, FLOPs, GEMM times, activations, TP communication */
	memset(&v, 0, sizeof v);
	v.hidden = 1024;
	v.vocab = 32000;
	v.hidden_dropout = v.attention_dropout = 0.1;
	v.kind[0] = m.kind[0];
	v.kind[0].hidden = 0;
	v.kind[0].mlp = MLP_MODEL;
	v.nkinds = 1;
	model_append(&v, 0, 24);
	u = m;
	u.nruns = u.layers = 0;
	u.kind[0] = m.kind[1];
	u.nkinds = 1;
	model_append(&u, 0, 32);
	eval_costs ea, eb;
	char why[256];
	strategy_t s2 = strat(4, 2, 1, 64, 4096);
	int ok = eval_costs_get(&m, &c, 8, &s2, 0, &ea, why, sizeof why) == 0 &&
		eval_costs_get(&v, &c, 8, &s2, 0, &eb, why, sizeof why) == 0;
	CHECK(ok && !memcmp(&ea.kind[0], &eb.kind[0], sizeof ea.kind[0]),
			"kind width: the encoder kind costs what a 1024-wide plain model's layer costs (tp 2)");
	ok = ok && eval_costs_get(&u, &c, 8, &s2, 0, &eb, why, sizeof why) == 0;
	CHECK(ok && !memcmp(&ea.kind[1], &eb.kind[0], sizeof ea.kind[1]),
			"kind width: the decoder kind costs what a 4096-wide gated model's layer costs");
	/* pipeline-independent costs: P2P at the narrowest width, buffers at the widest */
	comm_link intra = {.bw = c.node_gbps * 1e9 * c.eff.coll_intra, .lat = 2e-6, .inter = 0}; /* PP neighbours in a node */
	strategy_t s3 = strat(1, 1, 2, 16, 4096);
	ok = eval_costs_get(&m, &c, 2, &s3, 0, &ea, why, sizeof why) == 0;
	CHECK(ok && ea.p2p == comm_p2p(intra, 4096.0 * 1024 * 2), "kind width: eval_costs prices P2P at the narrowest width");

	/* pipeline P2P: the width of the layers at the stage boundary, the wider side where
	 * they differ */
	double p_enc = comm_p2p(intra, 4096.0 * 1024 * 2), p_dec = comm_p2p(intra, 4096.0 * 4096 * 2);
	struct { int first; double want; const char *name; } cut[] = {
		{12, p_enc, "kind width: a stage boundary inside the encoder sends 1024-wide activations"},
		{24, p_dec, "kind width: a boundary between encoder and decoder is priced at the wider side"},
		{40, p_dec, "kind width: a boundary inside the decoder sends 4096-wide activations"},
	};
	for (int i = 0; i < 3; i++) {
		s3.nchunks = 2;
		s3.chunk_layers[0] = (int16_t)cut[i].first;
		s3.chunk_layers[1] = (int16_t)(56 - cut[i].first);
		ok = run(&m, &c, 2, &s3, 0, &res, "kind width p2p") == 0;
		CHECK(ok && eval_stage_time_of(&res, 0).pp == 2 * cut[i].want && eval_stage_time_of(&res, 1).pp == 2 * cut[i].want &&
				ea.p2p <= cut[i].want, cut[i].name);
	}
	/* a middle stage of encoder layers only: its TP workspace and P2P buffers are 1024 wide
	 * (tp 2 with SP: P2P carries a 1/2 shard); the first and last stage keep the model's
	 * width for the embedding and the head */
	strategy_t s4 = strat(1, 2, 3, 16, 4096);
	s4.nchunks = 3;
	s4.chunk_layers[0] = 8;
	s4.chunk_layers[1] = 8;
	s4.chunk_layers[2] = 40;
	ok = eval_costs_get(&m, &c, 6, &s4, 0, &ea, why, sizeof why) == 0 && run(&m, &c, 6, &s4, 0, &res, "kind width buf") == 0;
	CHECK(ok && eval_stage_mem(&res, 1).buffers == ea.kind[0].work + 4096.0 * 1024 * 2 + 2 * (4096.0 * 1024 * 2 / 2),
			"kind width: an encoder-only stage's buffers are 1024 wide");
	CHECK(ok && eval_stage_mem(&res, 0).buffers == ea.kind[0].work + 4096.0 * 4096 * 2 + 2 * (4096.0 * 1024 * 2 / 2),
			"kind width: the first stage's TP workspace has the embedding's width");
	CHECK(ok && ea.buffers == 4096.0 * 4096 * 2 + 2 * (4096.0 * 4096 * 2 / 2),
			"kind width: eval_costs prices the stage buffers at the widest width");

	/* every kind setting width = hidden_size and the model's MLP type evaluates as unset,
	 * also down the per-chunk path that an extra (unused, narrower) kind forces */
	model_t *models[3];
	static model_t g, l8, x8;
	gpt3(&g);
	llama8b(&l8);
	mixtral(&x8);
	models[0] = &g;
	models[1] = &l8;
	models[2] = &x8;
	strategy_t ss[3] = {strat(2, 8, 4, 64, 2048), strat(4, 2, 8, 64, 4096), strat(2, 4, 8, 64, 4096)};
	ss[1].zero = 3;
	ss[1].recompute = RC_FULL;
	ss[2].ep = 2;
	ss[2].vpp = 2;
	ss[2].schedule = SCHED_INTERLEAVED;
	for (int i = 0; i < 3; i++) {
		model_t *base = models[i];
		u = *base;
		for (int k = 0; k < u.nkinds; k++) {
			u.kind[k].hidden = u.hidden;
			u.kind[k].mlp = u.gated ? MLP_GATED : MLP_PLAIN;
		}
		CHECK(same_result(base, &u, &c, 64, &ss[i]), check_fmt("kind width: %s with every width set to "
				"hidden_size evaluates bit-identically", base->name));
		u.kind[u.nkinds] = u.kind[0];
		u.kind[u.nkinds].hidden = 16;
		u.nkinds++;
		CHECK(!model_uniform(&u) && same_result(base, &u, &c, 64, &ss[i]),
				check_fmt("kind width: %s priced per chunk (an unused narrow kind) is bit-identical", base->name));
	}
}

/* Divisibility rules hold for every layer kind, not only the first: a decoder whose 40
 * heads tp=16 cannot split is rejected although the encoder's 16 heads split fine. */
static void test_invalid_later_kind(void)
{
	static model_t m;
	cluster_t c = fixed_cluster();
	vlm(&m, 2, 2);
	m.kind[1].heads = 40;
	m.kind[1].head_dim = 128;
	strategy_t s = strat(1, 16, 1, 1, 4096);
	s.sp = false;
	expect_reject(&m, &c, 16, &s, "tp=16 does not divide 40 attention heads", "invalid: tp not dividing a later kind's heads");
	m.kind[1].heads = 32;
	m.kind[1].kv_heads = 12; /* 12 and 16: neither divides the other */
	expect_reject(&m, &c, 16, &s, "tp=16 and 12 key/value heads", "invalid: tp vs a later kind's KV heads");
	m.kind[1].kv_heads = 8;
	CHECK(eval_run(&m, &c, 16, &s, 0, &res) == 0, "valid: tp=16 splits both kinds");
}

/* strategy.framework = torchtitan: "selective" is torchtitan's per-op checkpointing, which
 * keeps the block input, the outputs of the 1st, 3rd, 5th and 7th matmul of a Llama block
 * (wq, wv, w1, w2), the SDPA output and its fp32 log-sum-exp; DTensor TP hides no backward
 * collective; the loss keeps 10 bytes per logit instead of Megatron's 6. */
static void test_framework(void)
{
	model_t m;
	cluster_t c = fixed_cluster();
	llama8b(&m);
	strategy_t s = strat(8, 1, 1, 8, 8192);
	s.recompute = RC_SELECTIVE;
	double tok = 8192, h = 4096, q = 4096, v = 1024, ffn = 14336, heads = 32;
	double meg = eval_layer_activation(&m, &c, &s, 0, RC_SELECTIVE);
	s.framework = FW_TORCHTITAN;
	double tt = eval_layer_activation(&m, &c, &s, 0, RC_SELECTIVE);
	double want = tok * (2 * h + 2 * q + 2 * v + 2 * ffn + 2 * h + 2 * q) + 4 * heads * tok;
	CHECK_NEAR(tt, want, 1e-12, "framework: torchtitan op-SAC keeps input, wq, wv, w1, w2, SDPA out + lse");
	CHECK_NEAR(tt / (tok * h), 15.53125, 1e-12, "framework: op-SAC = 15.53 bytes per token and hidden unit");
	CHECK(meg > 2 * tt, "framework: Megatron selective with flash keeps over twice as much (34 vs 15.5 per token-unit)");
	CHECK(eval_layer_activation(&m, &c, &s, 0, RC_NONE) == eval_layer_activation(&m, &c, &(strategy_t){
			.dp = 8, .tp = 1, .pp = 1, .vpp = 1, .cp = 1, .ep = 1, .etp = 1, .micro_batch = 1,
			.global_batch = 8, .seq = 8192, .flash = true, .sp = true, .vocab_parallel = true}, 0, RC_NONE),
			"framework: none and full are the same under both frameworks");

	/* op-SAC recomputes wk, wo and w3 (and element-wise ops): slower than Megatron's
	 * selective with flash, faster than full recompute; HFU counts the extra matmuls */
	strategy_t a = s;
	a.framework = FW_MEGATRON;
	if (!run(&m, &c, 8, &a, 0, &res, "megatron selective") && !run(&m, &c, 8, &s, 0, &res2, "torchtitan selective")) {
		CHECK(res2.recompute > res.recompute, "framework: op-SAC recomputes more than attention-core selective");
		CHECK(res2.hw_flops > res.hw_flops && res2.model_flops == res.model_flops,
				"framework: op-SAC adds hardware FLOPs, not model FLOPs");
		double mm = 2 * tok * h * (v + h + ffn) * 32; /* wk, wo, w3 of 32 layers */
		CHECK_NEAR(res2.hw_flops - res2.model_flops, 8 * mm, 1e-9,
				"framework: the recomputed FLOPs are exactly wk, wo and w3 (8 devices, one micro-batch)");
		CHECK(res2.peak_bytes < res.peak_bytes, "framework: op-SAC needs less memory");
	}
	strategy_t f = s;
	f.recompute = RC_FULL;
	if (!run(&m, &c, 8, &f, 0, &res, "torchtitan full"))
		CHECK(res.recompute > res2.recompute, "framework: full recompute costs more than op-SAC");

	/* TP: DTensor backward collectives are all exposed; Megatron hides some behind wgrad */
	strategy_t t1 = strat(2, 4, 1, 2, 4096), t2;
	t1.recompute = RC_NONE;
	t2 = t1;
	t2.framework = FW_TORCHTITAN;
	if (!run(&m, &c, 8, &t1, 0, &res, "megatron tp") && !run(&m, &c, 8, &t2, 0, &res2, "torchtitan tp")) {
		CHECK(res2.tp > res.tp, "framework: torchtitan exposes more TP time than Megatron");
		CHECK(res2.compute == res.compute, "framework: TP semantics change no compute");
	}
	/* async TP (tp_comm_overlap) overlaps both directions, as Megatron's does */
	t1.tp_overlap = t2.tp_overlap = true;
	if (!run(&m, &c, 8, &t1, 0, &res, "megatron tp overlap") && !run(&m, &c, 8, &t2, 0, &res2, "torchtitan async tp"))
		CHECK_NEAR(res2.tp, res.tp, 1e-12, "framework: async TP exposes what Megatron's overlap does");

	/* the loss: 10 bytes per logit on the last stage instead of 6 */
	strategy_t l1 = strat(8, 1, 1, 8, 4096), l2;
	l1.recompute = RC_FULL;
	l2 = l1;
	l2.framework = FW_TORCHTITAN;
	if (!run(&m, &c, 8, &l1, 0, &res, "megatron loss") && !run(&m, &c, 8, &l2, 0, &res2, "torchtitan loss"))
		CHECK_NEAR(eval_stage_mem(&res2, 0).activations - eval_stage_mem(&res, 0).activations, 4.0 * 4096 * 128256, 1e-12,
				"framework: torchtitan's loss keeps 4 more bytes per logit");
}

/* ---- local attention -----------------------------------------------------------------------
 * A sliding window w leaves each query min(i + 1, w) keys: s*w - w^2/2 pairs against the
 * s^2/2 of causal attention, so the attention FLOPs use a key length of 2w - w^2/s; chunks of
 * c tokens (causal inside each) leave s*c/2 pairs, a key length of c. Model FLOPs count the
 * core as 4*b*s*kv*heads*head_dim per layer forward, three times for the step. */
static void test_local_attention(void)
{
	model_config cfg;
	memset(&cfg, 0, sizeof cfg);
	snprintf(cfg.name, sizeof cfg.name, "llama-like");
	cfg.hidden = 4096, cfg.ffn = 14336, cfg.layers = 32, cfg.heads = 32, cfg.kv_heads = 8, cfg.vocab = 128256;
	cfg.gated = true;
	model_t full, win;
	fixture_model(&full, &cfg);
	cluster_t c = fixed_cluster();
	const double S = 32768, W = 4096, C = 8192, B = 8; /* gbs 8 over dp 8 */
	strategy_t s = strat(8, 1, 1, 8, (int)S);
	if (run(&full, &c, 8, &s, 0, &res, "local: full") )
		return;
	double f_full = res.model_flops, t_full = res.step;
	cfg.window = (int)W;
	fixture_model(&win, &cfg);
	CHECK(win.nkinds == 1 && win.kind[0].window == 4096, "local: a window on every layer is one kind");
	if (run(&win, &c, 8, &s, 0, &res, "local: window"))
		return;
	double want = 3 * 4.0 * B * S * (S - (2 * W - W * W / S)) * 32 * 128 * 32;
	CHECK_NEAR(f_full - res.model_flops, want, 1e-9, "local: a 4096 window removes the pairs beyond it (model FLOPs)");
	CHECK(res.step < t_full, "local: and the step is shorter");
	cfg.window = 0;
	cfg.chunk = (int)C;
	fixture_model(&win, &cfg);
	if (run(&win, &c, 8, &s, 0, &res, "local: chunks"))
		return;
	want = 3 * 4.0 * B * S * (S - C) * 32 * 128 * 32;
	CHECK_NEAR(f_full - res.model_flops, want, 1e-9, "local: 8192-token chunks keep s*c/2 pairs (model FLOPs)");
	/* a window at least the sequence changes nothing */
	cfg.chunk = 0;
	cfg.window = (int)S;
	fixture_model(&win, &cfg);
	strategy_t s2 = strat(8, 1, 1, 8, 32768);
	memset(&res, 0, sizeof res);
	memset(&res2, 0, sizeof res2);
	CHECK(eval_run(&full, &c, 8, &s2, 0, &res) == 0 && eval_run(&win, &c, 8, &s2, 0, &res2) == 0 &&
			res.step == res2.step && res.model_flops == res2.model_flops && res.peak_bytes == res2.peak_bytes,
			"local: a window as long as the sequence prices like full attention");
	/* listed layers: half the layers local, half the saving */
	cfg.window = (int)W;
	cfg.local_listed = true;
	for (int l = 0; l < 32; l += 2)
		cfg.local[l / 8] |= (uint8_t)(1u << (l % 8));
	fixture_model(&win, &cfg);
	CHECK(win.nkinds == 2 && win.nruns == 32 && win.kind[win.run[0].kind].window == 4096 &&
			win.kind[win.run[1].kind].window == 0, "local: listed layers get a local kind of their own, alternating");
	if (run(&win, &c, 8, &s, 0, &res, "local: listed"))
		return;
	want = 3 * 4.0 * B * S * (S - (2 * W - W * W / S)) * 32 * 128 * 16;
	CHECK_NEAR(f_full - res.model_flops, want, 1e-9, "local: 16 of 32 layers local, half the FLOPs saved");
}

/* ---- Megatron-Core --recompute-modules -------------------------------------------------------
 * Per layer and micro-batch, each module drops what it stores beyond its input: layernorm the
 * two norm outputs (2 x 2h*T_sp bytes), moe_act the routed experts' activation output
 * (2*T*k*f_e bytes), shared_experts the shared expert's intermediates, moe everything of the
 * MoE block but its input, mla_up_proj MLA's up-projected Q, K and V. Default: core_attn. */
static void test_rc_modules(void)
{
	model_config cfg;
	memset(&cfg, 0, sizeof cfg);
	snprintf(cfg.name, sizeof cfg.name, "moe-mla");
	cfg.hidden = 1024, cfg.ffn = 4096, cfg.layers = 4, cfg.heads = 16, cfg.vocab = 32000, cfg.gated = true;
	cfg.experts = 8, cfg.topk = 2, cfg.moe_ffn = 512, cfg.shared = 1;
	cfg.q_lora = 256, cfg.kv_lora = 128, cfg.qk_nope = 64, cfg.qk_rope = 32, cfg.v_head = 64;
	model_t m;
	fixture_model(&m, &cfg);
	cluster_t c = fixed_cluster();
	strategy_t s = strat(8, 1, 1, 8, 2048);
	int k = model_layer_kind(&m, 0);
	const double T = 2048, h = 1024, fe = 512, g = 2, H = 16;
	double base = eval_layer_activation(&m, &c, &s, k, RC_SELECTIVE);
	double none = eval_layer_activation(&m, &c, &s, k, RC_NONE);
	CHECK(base == none, "rc modules: the default (core_attn) under flash keeps what none keeps");
	struct { unsigned mods; double saved; const char *name; } cases[] = {
		{RCM_CORE_ATTN | RCM_LAYERNORM, 2 * 2 * h * T, "rc modules: layernorm drops the two norm outputs"},
		{RCM_CORE_ATTN | RCM_MOE_ACT, 2 * T * 2 * fe, "rc modules: moe_act drops the routed activation output"},
		{RCM_CORE_ATTN | RCM_SHARED_EXPERTS, 2 * T * fe * (g + 1), "rc modules: shared_experts drops its intermediates"},
		{RCM_CORE_ATTN | RCM_MLA_UP_PROJ, 2 * T * H * (96 + 96 + 64), "rc modules: mla_up_proj drops Q, K, V"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		s.rc_modules = (uint8_t)cases[i].mods;
		CHECK_NEAR(base - eval_layer_activation(&m, &c, &s, k, RC_SELECTIVE), cases[i].saved, 1e-12, cases[i].name);
	}
	/* moe covers moe_act and shared_experts; what it keeps is the block input */
	s.rc_modules = RCM_CORE_ATTN | RCM_MOE;
	double moe = eval_layer_activation(&m, &c, &s, k, RC_SELECTIVE);
	s.rc_modules = RCM_CORE_ATTN | RCM_MOE | RCM_MOE_ACT | RCM_SHARED_EXPERTS;
	CHECK(eval_layer_activation(&m, &c, &s, k, RC_SELECTIVE) == moe, "rc modules: moe covers moe_act and shared_experts");
	CHECK(moe < base - 2 * T * 2 * fe - 2 * T * fe * (g + 1), "rc modules: moe drops more than its parts");
	/* time: each module adds its forward to the recompute; the step grows with them */
	s.rc_modules = RCM_CORE_ATTN;
	s.recompute = RC_SELECTIVE;
	if (run(&m, &c, 8, &s, 0, &res, "rc modules: default"))
		return;
	double t0 = res.step, r0 = res.recompute, hw0 = res.hw_flops;
	s.rc_modules = RCM_CORE_ATTN | RCM_MOE | RCM_LAYERNORM | RCM_MLA_UP_PROJ;
	if (run(&m, &c, 8, &s, 0, &res, "rc modules: more"))
		return;
	CHECK(res.recompute > r0 && res.step > t0 && res.hw_flops > hw0,
			"rc modules: more modules, more recompute time and hardware FLOPs");
	/* MLA up-projection FLOPs: 2*T*(q_lora*H*(nope+rope) + kv_lora*H*(nope+v)) per layer */
	s.rc_modules = RCM_CORE_ATTN | RCM_MLA_UP_PROJ;
	if (run(&m, &c, 8, &s, 0, &res, "rc modules: mla"))
		return;
	double up = 2 * T * (256 * H * 96 + 128 * H * (64 + 64));
	CHECK_NEAR(res.hw_flops - hw0, 4 * 8 * up, 1e-9, "rc modules: mla_up_proj re-runs the up-projection FLOPs");
}

/* ---- MoE capacity factor: the busiest expert rank holds cf times the mean tokens ------------
 * Mixtral-like, ep 8, tp 1: per layer and micro-batch the routed part keeps
 * T*k*(2h + 3f)*2 bytes (dispatched input, gate/up outputs, activation output), so cf = 1.25
 * adds a quarter of it; the useful (model) FLOPs do not change. */
static void test_moe_capacity(void)
{
	model_t m;
	cluster_t c = fixed_cluster();
	mixtral(&m);
	strategy_t s = strat(8, 1, 1, 8, 4096);
	s.ep = 8;
	int k = model_layer_kind(&m, 0);
	double a1 = eval_layer_activation(&m, &c, &s, k, RC_NONE);
	if (run(&m, &c, 8, &s, 0, &res, "moe cf: 1"))
		return;
	double t1 = res.step, f1 = res.model_flops;
	s.moe_cf = 1.25;
	double a2 = eval_layer_activation(&m, &c, &s, k, RC_NONE);
	const double T = 4096, kk = 2, h = 4096, fe = 14336;
	CHECK_NEAR(a2 - a1, 0.25 * T * kk * (2 * h + 3 * fe) * 2, 1e-12, "moe cf: 1.25 keeps a quarter more of the routed tokens");
	if (run(&m, &c, 8, &s, 0, &res, "moe cf: 1.25"))
		return;
	CHECK(res.step > t1 && res.model_flops == f1, "moe cf: a slower step, the same model FLOPs");
	s.moe_cf = 0;
	CHECK(eval_layer_activation(&m, &c, &s, k, RC_NONE) == a1, "moe cf: 0 (a zeroed strategy) reads as 1");
	s.moe_cf = 17;
	CHECK(eval_run(&m, &c, 8, &s, 0, &res) != 0 && strstr(res.why, "moe_capacity_factor"),
			"moe cf: above 16 is refused, naming the key");
}

/* The default budget per device family, by hand: allocated * (1 + oom_frag) = memory -
 * context (eval_default_budget_gib). H100 80 GB: (80 - 0.5) / 1.05 = 75.714...; Ascend
 * 910B 64 GB: (64 - 3.3) / 1.05 = 57.809...; an explicit reserve_gib keeps the flat rule,
 * and a plan's budget still wins over both. */
static void test_default_budget(void)
{
	cluster_t h100 = fixed_cluster(), ascend = fixed_cluster();
	h100.eff.reserve_gib = 0;
	h100.eff.context_gib = 0.5;
	h100.eff.oom_frag = 0.05;
	CHECK_NEAR(eval_default_budget_gib(&h100), 75.71428571428571, 1e-12, "budget: H100 (80 - 0.5) / 1.05");
	ascend.mem_gib = 64;
	ascend.eff.reserve_gib = 0;
	ascend.eff.context_gib = 3.3;
	ascend.eff.oom_frag = 0.05;
	CHECK_NEAR(eval_default_budget_gib(&ascend), 57.80952380952381, 1e-12, "budget: Ascend 910B (64 - 3.3) / 1.05");
	cluster_t flat = h100;
	flat.eff.reserve_gib = 4;
	CHECK_NEAR(eval_default_budget_gib(&flat), 76, 1e-12, "budget: reserve_gib > 0 keeps memory - reserve");
	cluster_eff d = cluster_default_eff();
	CHECK(d.reserve_gib == 0 && d.oom_frag > 0, "budget: the neutral defaults use context and oom_frag");
	static model_t m;
	llama8b(&m);
	strategy_t s = strat(8, 1, 1, 8, 2048);
	eval_result r;
	if (!run(&m, &h100, 8, &s, 0, &r, "budget default"))
		CHECK_NEAR(r.budget_bytes, 75.71428571428571 * GIB, 1e-12, "budget: evaluate uses the default");
	if (!run(&m, &h100, 8, &s, 60, &r, "budget explicit"))
		CHECK_NEAR(r.budget_bytes, 60 * GIB, 1e-12, "budget: an explicit budget wins");
}

int main(void)
{
	test_korthikanti();
	test_zero();
	test_fsdp_pp();
	test_opt_dtypes();
	test_schedules();
	test_time();
	test_tp_across_nodes();
	test_invalid();
	test_moe();
	test_dualpipe_ep();
	test_kind_width();
	test_invalid_later_kind();
	test_framework();
	test_local_attention();
	test_rc_modules();
	test_moe_capacity();
	test_default_budget();
	return check_done();
}
