/* Unit tests for the granularity of collectives and kernels: NCCL's per-collective start-up
 * and channel-limited bandwidth (core/cost/comm.h), ZeRO-3's gather units and buffers per
 * framework (core/cost/dp.c), and fine-grained MoE experts against the host's launch floor
 * (core/cost/mlp.c). Every expected figure is computed by hand in the comment above it. */
#include "check.h"
#include "core/cluster.h"
#include "core/cost/comm.h"
#include "core/cost/context.h"
#include "core/cost/dp.h"
#include "core/cost/layer.h"
#include "core/framework.h"
#include "core/model.h"
#include "core/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 8-device nodes, 300 GB/s NVLink and one 25 GB/s NIC per device (DGX A100-like), 1000
 * TFLOP/s bf16, 3350 GB/s HBM; every efficiency fixed here. */
static cluster_t test_cluster(void)
{
	cluster_t c;
	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "granularity test cluster");
	snprintf(c.device, sizeof c.device, "TEST-80GB");
	c.mem_gib = 80;
	c.peak_tflops[PREC_BF16] = 1000;
	c.peak_tflops[PREC_FP16] = 1000;
	c.hbm_gbps = 3350;
	c.node_devices = 8;
	c.node_gbps = 300;
	c.net_gbps = 25;
	c.net_lat_us = 5;
	c.eff = (cluster_eff){
		.gemm = 0.6, .gemm_half = 64, .flash = 0.4, .grouped_gemm = 1, .hbm = 0.8, .coll_intra = 0.8,
		.coll_inter = 0.8, .dp_overlap = 0.8, .tp_overlap = 0.6, .layer_us = 20, .kernel_us = 4,
	};
	c.eff_set = 1;
	return c;
}

/* A gated model of `layers` layers, h hidden, ffn-wide MLP (or experts of that width). */
static void build(model_t *m, int h, int ffn, int heads, int kv, int experts, int topk)
{
	model_config c;
	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "granularity test model");
	c.hidden = h;
	c.ffn = ffn;
	c.moe_ffn = ffn;
	c.layers = 32;
	c.heads = heads;
	c.kv_heads = kv;
	c.vocab = 128256;
	c.gated = true;
	c.experts = experts;
	c.topk = topk;
	char why[256];
	if (model_from_config(m, &c, why, sizeof why)) {
		printf("  model_from_config: %s\n", why);
		exit(1);
	}
}

/* ---- comm.h: a gathered buffer split into units ------------------------------------------
 * 16 ranks, stride 1: two nodes, so the 8 NICs of a node carry the ring: bw = min(8 x 25,
 * 300) x 0.8 = 160 GB/s, one channel (one NIC) 25 x 0.8 = 20 GB/s, step latency 5 us.
 * 1 MiB in one all-gather: 32 channels of 32 KiB, 640 GB/s > 160, so the link's 160 GB/s:
 *   15/16 x 1048576 / 160e9 + 15 x 5e-6 + 8.4e-6 = 6.144 + 75 + 8.4 = 89.544 us.
 * The same MiB as 32 gathers of 32 KiB: one channel each, 20 GB/s:
 *   32 x (15/16 x 32768 / 20e9 + 75e-6 + 8.4e-6) = 32 x 84.936 us = 2717.952 us. */
static void test_units(void)
{
	cluster_t c = test_cluster();
	comm_link l = comm_group(&c, 16, 1);
	comm_ring r = comm_ring_of(l, 16);
	CHECK_NEAR(l.bw, 160e9, 1e-12, "comm: 16 ranks over two nodes use the node's 8 NICs");
	CHECK_NEAR(l.chan, 20e9, 1e-12, "comm: one channel is one NIC");
	CHECK_NEAR(comm_ring_allgather_units(&r, l, 1048576, 1), 89.544e-6, 1e-9, "comm: 1 MiB in one gather");
	CHECK_NEAR(comm_ring_allgather_units(&r, l, 1048576, 32), 2717.952e-6, 1e-9,
			"comm: 1 MiB in 32 gathers of 32 KiB, one channel each");
	/* monotonic: more ranks never gather a fixed buffer faster, for any split */
	int ok = 1;
	for (double units = 1; units <= 1024; units *= 4) {
		double prev = 0;
		for (int n = 2; n <= 4096; n++) {
			comm_link ln = comm_group(&c, n, 1);
			comm_ring rn = comm_ring_of(ln, n);
			double t = comm_ring_allgather_units(&rn, ln, 64e6, units);
			ok = ok && t >= prev;
			prev = t;
		}
	}
	CHECK(ok, "comm: a fixed buffer never gathers faster on more ranks");
}

/* A ZeRO-3 plan on 64 data-parallel ranks, one sequence of `seq` tokens each, priced as fw. */
static strategy_t z3_strategy(int fw, int seq)
{
	strategy_t s = strat_default();
	s.dp = 64;
	s.zero = 3;
	s.seq = seq;
	s.global_batch = 64;
	s.framework = (uint8_t)fw;
	return s;
}

/* ---- dp.c: ZeRO-3 gather plan per framework -----------------------------------------------
 * Llama-3-8B shape (h 4096, ffn 14336, 32/8 heads of 128), tp 1. Per layer: attention
 * 4096 x (4096 + 2 x 1024) + 4096 x 4096 = 41,943,040, MLP 3 x 4096 x 14336 = 176,160,768;
 * norms stay unpartitioned. DeepSpeed: 218,103,808 / 5e7 = 4.36216 coalesced gathers (fewer
 * than the 7 tensors); largest tensor 4096 x 14336 = 58,720,256; buffer 2 x (58,720,256 +
 * 5e7) live + 2 x 58,720,256 gradient + 2 x 5e8 bucket = 1,334,881,024 bytes; gradients
 * reduce in 2 bytes. FSDP (torchtitan): one gather per layer, 8 bytes per unit parameter. */
static void test_zero3_plan(void)
{
	model_t m;
	build(&m, 4096, 14336, 32, 8, 0, 0);
	cluster_t c = test_cluster();
	strategy_t s = z3_strategy(FW_DEEPSPEED, 4096);
	cost_ctx x;
	ctx_init(&x, &m, &c, &s);
	dp_z3 z = dp_zero3_plan(&x, 218103808);
	CHECK(z.unit == FW_Z3_MODULE, "zero3: DeepSpeed gathers per submodule");
	CHECK_NEAR(z.gd, 218103808 / 5e7, 1e-12, "zero3: DeepSpeed coalesces a layer into prefetch buckets");
	CHECK_NEAR(z.tmax, 58720256, 1e-12, "zero3: the largest tensor is an MLP matrix");
	CHECK_NEAR(z.buf, 1334881024.0, 1e-12, "zero3: DeepSpeed's live parameters, gradient and reduce bucket");
	CHECK(z.rbytes == 2, "zero3: DeepSpeed reduces 16-bit gradients");
	s.framework = FW_TORCHTITAN;
	ctx_init(&x, &m, &c, &s);
	z = dp_zero3_plan(&x, 218103808);
	CHECK(z.unit == FW_Z3_LAYER && z.gd == 1 && z.ge == 0, "zero3: FSDP gathers one unit per layer");
	CHECK_NEAR(z.buf, 8.0 * 218103808, 1e-12, "zero3: FSDP's current and prefetched unit and fp32 gradient");
	CHECK(z.rbytes == 4, "zero3: FSDP reduces fp32 gradients");
	/* the same bytes in more collectives cost more: DeepSpeed's 4.36 gathers per layer
	 * against FSDP's one, all else equal */
	dp_groups g = dp_groups_of(&x);
	dp_z3 zl = z, zm = z;
	zm.gd = 218103808 / 5e7;
	double fl, bl, fm, bm;
	dp_zero3(&x, &g, &zl, 32 * 218103808.0, 0, 32, 0, 0, 0, &fl, &bl);
	dp_zero3(&x, &g, &zm, 32 * 218103808.0, 0, 32, 0, 0, 0, &fm, &bm);
	CHECK(fm > fl && bm > bl, "zero3: more gathers per layer take longer");
	/* one gather per layer, 64 ranks over 8 nodes: 8 NICs, 160 GB/s; 2 x 218,103,808 bytes
	 * per gather: 63/64 x 436,207,616 / 160e9 + 63 x 5e-6 + 8.4e-6 = 2683.6 + 315 + 8.4
	 * = 3007.0335 us; x 32 layers = 96.225 ms, nothing hidden (no compute window) */
	CHECK_NEAR(fl, 32 * (63.0 / 64 * 436207616 / 160e9 + 63 * 5e-6 + 8.4e-6), 1e-12,
			"zero3: FSDP's forward gathers by hand");
}

/* ---- dp.c: DeepSpeed's re-gather under full recompute -----------------------------------
 * GPT-3-style 530B layer (h 20480, ffn 4h, plain MLP), tp 1, forward order q, k, v, o of
 * 20480^2 = 419,430,400 elements and fc1, fc2 of 20480 x 81920 = 1,677,721,600. After the
 * recompute of a tensor come 2 x the elements after it before its backward: fc2 0 (kept),
 * fc1 2 x 1.68e9 >= 1e9 (released, gathered again), and so every attention tensor: again
 * (4 x 419,430,400 + 1,677,721,600) / (4 x 419,430,400 + 2 x 1,677,721,600) = 2/3.
 * Gated (three MLP matrices): (1,677,721,600 + 2 x 1,677,721,600) / (1,677,721,600 + 3 x
 * 1,677,721,600) = 3/4. Attention alone: q (2 x 1.26e9) and k (2 x 8.4e8), not v (2 x 4.2e8)
 * nor o: 1/2. Llama-3-8B's layer (218,103,808): 2 x the elements after q =
 * 2 x 201,326,592 < 1e9, nothing re-gathered, but the recompute gathers every layer once
 * more: 32 layers x 4.36216 gathers of 2 x 5e7 bytes, each 63/64 x 1e8 / 160e9 + 63 x 5e-6
 * + 8.4e-6 = 938.634 us, 131.02 ms more in backward than without recompute. */
static void test_zero3_regather(void)
{
	double n[6] = {419430400, 419430400, 419430400, 419430400, 1677721600, 1677721600};
	CHECK_NEAR(dp_z3_regather(n, 6, FW_DS_REUSE), 2.0 / 3.0, 1e-12, "regather: 530B layer, all but fc2");
	CHECK_NEAR(dp_z3_regather(n, 4, FW_DS_REUSE), 0.5, 1e-12, "regather: attention alone, q and k");
	model_t m;
	build(&m, 20480, 81920, 128, 128, 0, 0);
	cluster_t c = test_cluster();
	strategy_t s = z3_strategy(FW_DEEPSPEED, 2048);
	s.recompute = RC_FULL;
	cost_ctx x;
	ctx_init(&x, &m, &c, &s);
	dp_z3 z = dp_zero3_plan(&x, 1);
	CHECK(z.rc_full == 1, "regather: every layer recomputed");
	CHECK_NEAR(z.rg_d, 0.75, 1e-12, "regather: gated 530B layer, all but the down projection");
	s.framework = FW_TORCHTITAN;
	ctx_init(&x, &m, &c, &s);
	z = dp_zero3_plan(&x, 1);
	CHECK(z.rc_full == 0, "regather: FSDP gathers a unit once for recompute and backward");

	build(&m, 4096, 14336, 32, 8, 0, 0);
	s.framework = FW_DEEPSPEED;
	double t[2];
	for (int rc = 0; rc < 2; rc++) {
		s.recompute = rc ? RC_FULL : RC_NONE;
		ctx_init(&x, &m, &c, &s);
		dp_groups g = dp_groups_of(&x);
		z = dp_zero3_plan(&x, 218103808);
		double zf;
		dp_zero3(&x, &g, &z, 32 * 218103808.0, 0, 32, 0, 0, 0, &zf, &t[rc]);
	}
	CHECK_NEAR(z.rg_d, 0, 1e-12, "regather: an 8B layer stays gathered from recompute to backward");
	CHECK_NEAR(t[1] - t[0], 32.0 * 218103808 / 5e7 * (63.0 / 64 * 1e8 / 160e9 + 63 * 5e-6 + 8.4e-6), 1e-12,
			"regather: the recompute's gathers by hand");
}

/* ---- mlp.c: fine-grained experts -------------------------------------------------------------
 * h 1024, expert ffn 256 (gated: fc1 N = 512), tp 1, ep 4, b x s = 2048 tokens.
 * A: 64 experts, top-4: 8192 routed copies, 16 local experts of 8192 x 4 / 64 = 512 tokens.
 * B: 16 experts, top-8: 16384 copies, 4 local experts of 16384 x 4 / 16 = 4096 tokens.
 * GEMM time max(2MKN / (1e15 x 0.6 d/(d+64)), (MK+KN+MN) x 2 / (3350e9 x 0.8)), d = min dim:
 *   A fc1 512x1024x512: 536,870,912 / (1e15 x 0.53333) = 1.00663 us (memory 0.97817 us)
 *   A fc2 512x256x1024: d 256, 268,435,456 / 0.48e15 = 0.55924 us, memory 1,835,008 /
 *       2680e9 = 0.68471 us
 *   B fc1 4096x1024x512: 4,294,967,296 / 0.53333e15 = 8.05306 us
 *   B fc2 4096x256x1024: 2,147,483,648 / 0.48e15 = 4.47392 us (memory 4.10843 us)
 * Megatron (TE GroupedLinear, a GEMM per expert, none under kernel_us = 4 us):
 *   A = 16 x (4 + 4) = 128 us for 8192 copies; B = 4 x (8.05306 + 4.47392) = 50.10791 us
 *   for 16384 copies: per copy A / B = (128 / 8192) / (50.10791 / 16384) = 5.10897.
 * torchtitan (one grouped kernel per matrix): A = 16 x 1.006633 + 16 x 0.684705 = 27.06141 us,
 *   per copy against B: (27.06141 / 8192) / (50.10791 / 16384) = 1.08012. */
static double routed(int experts, int topk, int fw)
{
	model_t m;
	build(&m, 1024, 256, 8, 8, experts, topk);
	cluster_t c = test_cluster();
	strategy_t s = strat_default();
	s.dp = 4;
	s.ep = 4;
	s.seq = 2048;
	s.global_batch = 4;
	s.framework = (uint8_t)fw;
	cost_ctx x;
	ctx_init(&x, &m, &c, &s);
	layer_shape sh;
	layer_shape_init(&x, model_layer_kind(&m, 0), &sh);
	return mlp_price(&x, &sh).routed_t;
}

static void test_moe_experts(void)
{
	double a = routed(64, 4, FW_MEGATRON), b = routed(16, 8, FW_MEGATRON);
	CHECK_NEAR(a, 128e-6, 1e-12, "moe: 16 experts of 512 tokens wait on 32 launches");
	CHECK_NEAR(b, 4 * (4294967296.0 / (1e15 * 0.6 * 512 / 576) + 2147483648.0 / (1e15 * 0.6 * 256 / 320)), 1e-12,
			"moe: 4 experts of 4096 tokens are GEMM-bound");
	CHECK_NEAR((a / 8192) / (b / 16384), 5.10897, 1e-5, "moe: per routed copy, 16 x 512 is 5.1x slower than 4 x 4096");
	double ta = routed(64, 4, FW_TORCHTITAN), tb = routed(16, 8, FW_TORCHTITAN);
	CHECK_NEAR((ta / 8192) / (tb / 16384), 1.08012, 1e-5, "moe: one grouped kernel leaves only the GEMM roll-off");
}

int main(void)
{
	test_units();
	test_zero3_plan();
	test_zero3_regather();
	test_moe_experts();
	return check_done();
}
