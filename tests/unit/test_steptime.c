/* Unit tests for the step-time physics of issue 19: GEMM wave quantisation, sequence
 * parallelism's backward all-gather, pipeline scatter/gather sends, the gradient-sync
 * buckets no compute hides, and the tied embedding's all-reduce. Each figure is computed
 * by hand in the comment beside it, on a cluster whose constants are fixed here (so a
 * recalibration of the presets cannot move them). */
#include "check.h"
#include "fixture.h"
#include "core/cluster.h"
#include "core/cost/context.h"
#include "core/cost/compute.h"
#include "core/cost/dp.h"
#include "core/evaluate.h"
#include "core/model.h"
#include "core/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An A100-like cluster: 312 TFLOP/s, 108 SMs, 8-GPU nodes on 300 GB/s (x 0.8) NVLink and
 * 25 GB/s (x 0.8) NICs with 5 us latency. */
static cluster_t fixed_cluster(void)
{
	cluster_t c = fixture_cluster();
	c.sms = 108;
	c.eff.tp_overlap = 0;
	return c;
}

/* A Llama-3-8B-shaped dense model (SwiGLU, GQA 32/8), tied or not. */
static void llama8b(model_t *m, bool tied)
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
	c.tied = tied;
	char why[256];
	if (model_from_config(m, &c, why, sizeof why)) {
		printf("  model_from_config: %s\n", why);
		exit(1);
	}
}

static strategy_t strat(int dp, int tp, int pp)
{
	strategy_t s = strat_default();
	s.dp = dp;
	s.tp = tp;
	s.pp = pp;
	s.vpp = 1;
	s.cp = 1;
	s.ep = 1;
	s.etp = 1;
	s.micro_batch = 1;
	s.global_batch = 64;
	s.seq = 4096;
	s.schedule = SCHED_1F1B;
	return s;
}

/* A 4096 x 8192 by 8192 x 1280 GEMM (Llama-70B's QKV at tp 8, 4,096 tokens):
 * the main loop over K = 8192 reaches 0.6 x 8192 / (8192 + 64) = 0.595349; output 4096 x
 * 1280 = 5,242,880 elements, half a wave = 108 / 2 x 256 x 128 = 1,769,472, so waves keep
 * 5,242,880 / 7,012,352 = 0.747664 busy; efficiency 0.445122; 2 x 4096 x 8192 x 1280 /
 * (312e12 x 0.445122) = 618.525 us (HBM bound: 69.1 us). */
static void test_gemm_waves(void)
{
	model_t m;
	llama8b(&m, false);
	cluster_t c = fixed_cluster();
	strategy_t s = strat(1, 8, 1);
	cost_ctx x;
	ctx_init(&x, &m, &c, &s);
	CHECK_NEAR(compute_gemm(&x, 4096, 8192, 1280, 1), 618.5254072e-6, 1e-8, "waves: QKV GEMM 618.525 us by hand");
	/* a GEMM batched with three more shares the waves: cheaper than four alone, dearer
	 * than the FLOPs at the asymptote */
	double one = compute_gemm(&x, 4096, 8192, 1280, 1), four = compute_gemm_n(&x, 4096, 8192, 1280, 4, 1);
	CHECK(four < 4 * one && four > 4 * one * 0.747664, "waves: a batch of 4 runs fuller waves than 4 alone");
	/* never slower for less work: time grows with every dimension */
	int mono = 1;
	for (double M = 64; M <= 65536; M *= 1.5)
		mono = mono && compute_gemm(&x, M * 1.5, 4096, 1024, 1) > compute_gemm(&x, M, 4096, 1024, 1) &&
			compute_gemm(&x, 1024, 4096, M * 1.5, 1) > compute_gemm(&x, 1024, 4096, M, 1);
	CHECK(mono, "waves: GEMM time grows with M and with N");
	/* a cluster that does not state its SM count has no wave term, and its roll-off is in
	 * the smallest dimension: 0.6 x 1280 / (1280 + 64) */
	c.sms = 0;
	ctx_init(&x, &m, &c, &s);
	CHECK_NEAR(compute_gemm(&x, 4096, 8192, 1280, 1), 2.0 * 4096 * 8192 * 1280 / (312e12 * 0.6 * 1280 / 1344), 1e-12,
			"waves: none without sms");
}

/* With tp_overlap 0 nothing hides: a dense layer's forward moves two all-reduce volumes
 * (SP: all-gather + reduce-scatter each); Megatron's backward the same two plus, with SP,
 * the all-gather of each column-parallel input again (half an all-reduce each, latency
 * included): tp_b / tp_f = 3 / 2. DTensor TP (torchtitan) keeps the gathered inputs. */
static void test_sp_backward_gather(void)
{
	model_t m;
	llama8b(&m, false);
	cluster_t c = fixed_cluster();
	strategy_t s = strat(1, 8, 1);
	eval_kinds k;
	s.sp = true;
	eval_kinds_get(&m, &c, &s, &k);
	CHECK_NEAR(k.kc[0].tp_b / k.kc[0].tp_f, 1.5, 1e-12, "sp: Megatron backward = forward + one all-gather per pair");
	s.sp = false;
	eval_kinds_get(&m, &c, &s, &k);
	CHECK_NEAR(k.kc[0].tp_b / k.kc[0].tp_f, 1.0, 1e-12, "sp: without SP backward = forward");
	s.sp = true;
	s.framework = FW_TORCHTITAN;
	s.zero = 2;
	eval_kinds_get(&m, &c, &s, &k);
	CHECK_NEAR(k.kc[0].tp_b / k.kc[0].tp_f, 1.0, 1e-12, "sp: torchtitan gathers no input again");
}

/* One boundary of 4,096 tokens x 4,096 x 2 bytes = 33,554,432 bytes between nodes (20e9
 * B/s, 5 us): sent whole, 1.682722 ms; split over tp 8 (Megatron, no SP), 1/8 of it on each
 * rank's NIC, 214.715 us, plus the all-gather over NVLink (240e9 B/s, 2 us): 7/8 x B / 240e9
 * + 7 x 2 us = 136.334 us; 351.049 us in all. */
static void test_pp_scatter(void)
{
	model_t m;
	llama8b(&m, false);
	cluster_t c = fixed_cluster();
	strategy_t s = strat(1, 8, 2);
	s.sp = false;
	cost_ctx x;
	ctx_init(&x, &m, &c, &s);
	comm_link net = comm_pp_link(&c, &s);
	double B = 4096.0 * 4096 * 2;
	CHECK_NEAR(ctx_pp_send(&x, net, B), 351.0490667e-6, 1e-8, "pp: scatter/gather send 351.049 us by hand");
	s.framework = FW_TORCHTITAN;
	ctx_init(&x, &m, &c, &s);
	CHECK_NEAR(ctx_pp_send(&x, net, B), 1682.7216e-6, 1e-8, "pp: torchtitan sends the whole boundary");
	s.framework = FW_AUTO;
	s.sp = true; /* the boundary is already sharded: nothing to scatter */
	ctx_init(&x, &m, &c, &s);
	CHECK_NEAR(ctx_pp_send(&x, net, B / 8), B / 8 / 20e9 + 5e-6, 1e-12, "pp: SP sends its shard as it is");
}

/* The bucket no compute hides, on a stage of 1e9 parameters whose sync takes 1 s: Megatron
 * max(40M, 1M x dp): 0.04 s at dp 8, 0.064 s at dp 64; DeepSpeed's 5e8 bucket: 0.5 s;
 * FSDP2's unit (2e8 here): 0.2 s. The tied embedding of 128,256 / 8 x 4,096 = 65,667,072
 * parameters per device, fp32 gradients (262,668,288 bytes) all-reduced over the two end
 * stages between nodes: B / 20e9 + 2 x 5 us = 13.143414 ms. */
static void test_step_edges(void)
{
	model_t m;
	llama8b(&m, true);
	cluster_t c = fixed_cluster();
	strategy_t s = strat(8, 8, 4);
	s.zero = 1;
	cost_ctx x;
	ctx_init(&x, &m, &c, &s);
	CHECK_NEAR(dp_edge(&x, 1.0, 1e9, 2e8), 0.04, 1e-12, "edge: Megatron 40M bucket at dp 8");
	s.dp = 64;
	ctx_init(&x, &m, &c, &s);
	CHECK_NEAR(dp_edge(&x, 1.0, 1e9, 2e8), 0.064, 1e-12, "edge: Megatron 1M x dp bucket at dp 64");
	s.framework = FW_DEEPSPEED;
	ctx_init(&x, &m, &c, &s);
	CHECK_NEAR(dp_edge(&x, 1.0, 1e9, 2e8), 0.5, 1e-12, "edge: DeepSpeed 5e8 reduce bucket");
	s.framework = FW_TORCHTITAN;
	s.zero = 2;
	ctx_init(&x, &m, &c, &s);
	CHECK_NEAR(dp_edge(&x, 1.0, 1e9, 2e8), 0.2, 1e-12, "edge: FSDP2 reduces one block last");
	CHECK_NEAR(dp_edge(&x, 1.0, 1e8, 2e8), 1.0, 1e-12, "edge: a stage smaller than a bucket hides nothing");
	s = strat(8, 8, 4);
	ctx_init(&x, &m, &c, &s);
	double vl = 128256.0 / 8 * 4096;
	CHECK_NEAR(dp_tied_embedding(&x, comm_pp_link(&c, &s), vl), 262668288.0 / 20e9 + 10e-6, 1e-12,
			"tied: 13.143 ms all-reduce over the two end stages");
	s.pp = 1;
	ctx_init(&x, &m, &c, &s);
	CHECK(dp_tied_embedding(&x, comm_pp_link(&c, &s), vl) == 0, "tied: one stage holds both, nothing to reduce");
	llama8b(&m, false);
	s.pp = 4;
	ctx_init(&x, &m, &c, &s);
	CHECK(dp_tied_embedding(&x, comm_pp_link(&c, &s), vl) == 0, "tied: untied weights, nothing to reduce");
}

int main(void)
{
	test_gemm_waves();
	test_sp_backward_gather();
	test_pp_scatter();
	test_step_edges();
	printf("%d passed, %d failed\n", check_npass, check_nfail);
	return check_nfail ? 1 : 0;
}
