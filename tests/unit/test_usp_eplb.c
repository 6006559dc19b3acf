/* Unit tests for issue 22 items 3 and 4: USP (context parallelism as a Ulysses degree times
 * a ring degree, Fang & Zhao 2024) and redundant experts (DeepSeek-V3's EPLB). Each figure
 * is computed by hand in the comment beside it on the fixed test cluster (fixture.c: 8-GPU
 * nodes, 300 GB/s x 0.8 NVLink with 2 us per step, 25 GB/s x 0.8 NICs with 5 us), so a
 * recalibration of the presets cannot move them. */
#include "check.h"
#include "fixture.h"
#include "core/cluster.h"
#include "core/cost/context.h"
#include "core/cost/layer.h"
#include "core/evaluate.h"
#include "core/framework.h"
#include "core/model.h"
#include "core/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A Llama-3-8B-shaped dense model: 32 heads of 128, 8 key/value heads. */
static void llama8b(model_t *m)
{
	model_config c;
	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "llama-like 8B");
	c.hidden = 4096, c.ffn = 14336, c.layers = 32, c.heads = 32, c.kv_heads = 8, c.vocab = 128256;
	c.gated = true;
	fixture_model(m, &c);
}

/* A Mixtral-8x7B-shaped MoE: 8 experts of 14336, top-2, every layer. */
static void mixtral(model_t *m)
{
	model_config c;
	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "mixtral-like");
	c.hidden = 4096, c.ffn = 14336, c.layers = 32, c.heads = 32, c.kv_heads = 8, c.vocab = 32000;
	c.gated = true;
	c.experts = 8, c.topk = 2;
	fixture_model(m, &c);
}

static strategy_t strat(int dp, int tp, int cp, int seq)
{
	strategy_t s = strat_default();
	s.dp = dp, s.tp = tp, s.cp = cp, s.seq = seq;
	s.global_batch = dp;
	return s;
}

static int moe_kind(const model_t *m)
{
	for (int k = 0; k < m->nkinds; k++)
		if (m->kind[k].experts > 0)
			return k;
	return 0;
}

/* The layer costs of kind k under s. */
static layer_cost price(const model_t *m, const cluster_t *c, const strategy_t *s, int k)
{
	cost_ctx x;
	layer_cost o;
	ctx_init(&x, m, c, s);
	layer_price(&x, k, &o);
	return o;
}

/* Whether framework fw refuses s with a reason containing text. */
static int issue_has(int fw, const strategy_t *s, const model_t *m, const char *text)
{
	fw_issues is;
	int n = fw_check(fw, s, m, &is), seen = 0;
	for (int i = 0; i < n && i < FW_MAX_ISSUES; i++)
		seen |= strstr(is.text[i], text) != NULL;
	return seen;
}

static int valid(const model_t *m, const cluster_t *c, int devices, const strategy_t *s, char *why, size_t n)
{
	return strat_validate(s, m, c, devices, why, n) == 0;
}

/* ---- USP: the all-to-all inside, the ring across, and where each group sits ---------- */
static void test_usp_comm(void)
{
	model_t m;
	cluster_t c = fixture_cluster();
	llama8b(&m);
	/* tp 4, cp 8 = Ulysses 2 x ring 4, seq 65536, micro-batch 1: 8192 tokens per rank.
	 * Ulysses group: 2 ranks at stride 4 span 8 devices, one node (240 GB/s, 2 us); ring:
	 * 4 ranks at stride 8, one per node (1 NIC: 20 GB/s, 5 us). */
	strategy_t s = strat(1, 4, 8, 65536);
	s.cp_ulysses = 2;
	cost_ctx x;
	ctx_init(&x, &m, &c, &s);
	CHECK(x.cp_u == 2 && !x.cpu_l.inter && x.cpr_l.inter, "usp: Ulysses group inside the node, ring across");
	CHECK_NEAR(x.cpu_l.bw, 240e9, 1e-12, "usp: Ulysses group on NVLink (300 x 0.8 GB/s)");
	CHECK_NEAR(x.cpr_l.bw, 20e9, 1e-12, "usp: ring on one NIC per node (25 x 0.8 GB/s)");
	/* per TP rank: 8 query heads (qd = od = 1024), 2 KV heads (kd = vd = 256). All-to-all
	 * of Q, K, V, O: 8192 x 2560 x 2 = 41,943,040 bytes, (2-1)/2 of it over 240 GB/s plus
	 * one 2 us step = 87.381333 + 2 = 89.381333 us. Ring: 8192 x 512 x 2 = 8,388,608
	 * bytes of K and V a step: 419.4304 + 5 = 424.4304 us; 3 steps (1.27 ms) hide under
	 * the attention core (4 x 8192 x 65536 x 8 x 128 FLOPs, ~18 ms), the first does not.
	 * Forward: 89.381333 + 424.4304 = 513.811733 us; backward the same (6 steps hidden
	 * under the ~2.5x longer backward core). */
	layer_cost o = price(&m, &c, &s, 0);
	CHECK_NEAR(o.cp_f, 513.811733e-6, 1e-6, "usp: forward = all-to-all (89.38 us) + one exposed ring step (424.43 us)");
	CHECK_NEAR(o.cp_b, 513.811733e-6, 1e-6, "usp: backward the same");
	/* ring only (u = 1): the same step over 8 ranks at stride 4, two per node; the hop that
	 * leaves a node still runs on one NIC (20 GB/s) and paces the step: 419.4304 + 5 =
	 * 424.4304 us, no all-to-all; three of its seven steps are exposed no more than USP's */
	strategy_t r = s;
	r.cp_ulysses = 0;
	CHECK_NEAR(price(&m, &c, &r, 0).cp_f, 424.4304e-6, 1e-6, "usp: cp_ulysses 1 is ring attention (one NIC a step: 424.43 us)");
	/* cp_ulysses = cp is Ulysses, priced as cp_kind ulysses is */
	strategy_t u = s, k = s;
	u.cp = k.cp = 2, u.seq = k.seq = 32768;
	u.cp_ulysses = 2;
	k.cp_ulysses = 0, k.cp_kind = CP_ULYSSES;
	CHECK(strat_cp_mode(&u) == CP_ULYSSES && strat_cp_mode(&k) == CP_ULYSSES && strat_cp_mode(&s) == CP_USP,
			"usp: modes ring/ulysses/usp from the Ulysses degree");
	CHECK_NEAR(price(&m, &c, &u, 0).cp_f, price(&m, &c, &k, 0).cp_f, 1e-15, "usp: cp_ulysses = cp is cp_kind ulysses");
}

/* ---- GQA: key/value heads fewer than the Ulysses degree are repeated to it ------------ */
static void test_usp_gqa(void)
{
	model_t m;
	cluster_t c = fixture_cluster();
	llama8b(&m);
	/* tp 8: 4 query heads and 1 KV head per rank; Ulysses 2 (cp 2): the KV head is repeated,
	 * so each rank sends 2 x its K and V. 32768 tokens x (512 + 2 x (128 + 128) + 512) x 2
	 * = 100,663,296 bytes; the group spans 16 devices (stride 8): one NIC per node,
	 * 20 GB/s: 1/2 x 100663296 / 20e9 + 5 us = 2521.5824 us */
	strategy_t s = strat(1, 8, 2, 65536);
	s.cp_ulysses = 2;
	CHECK_NEAR(price(&m, &c, &s, 0).cp_f, 2521.5824e-6, 1e-6, "usp gqa: one KV head repeated to 2 (2521.58 us)");
	char why[256] = "";
	CHECK(valid(&m, &c, 16, &s, why, sizeof why), "usp gqa: valid with the KV head repeated");
	CHECK(issue_has(FW_MEGATRON, &s, &m, "key/value heads"), "usp gqa: Megatron-LM (TE's a2a) refuses repeating KV heads");
}

/* ---- USP's rules --------------------------------------------------------------------- */
static void test_usp_rules(void)
{
	model_t m;
	cluster_t c = fixture_cluster();
	llama8b(&m);
	char why[256] = "";
	strategy_t s = strat(1, 4, 8, 65536);
	s.cp_ulysses = 3;
	CHECK(!valid(&m, &c, 32, &s, why, sizeof why) && strstr(why, "must divide cp"), "usp rules: u must divide cp");
	s.cp_ulysses = 2, s.cp_kind = CP_ULYSSES;
	CHECK(!valid(&m, &c, 32, &s, why, sizeof why) && strstr(why, "cp_kind ring"), "usp rules: ulysses kind with a split");
	s = strat(1, 8, 8, 65536); /* 4 heads per TP rank */
	s.cp_ulysses = 8;
	CHECK(!valid(&m, &c, 64, &s, why, sizeof why) && strstr(why, "cp=8 does not divide the 4 heads"),
			"usp rules: u must divide the heads per TP rank");
	s.cp_ulysses = 4; /* 4 heads, 1 KV head repeated: ring of 2 */
	CHECK(valid(&m, &c, 64, &s, why, sizeof why), "usp rules: u 4 x ring 2 valid");
	s.seq = 65536 + 8; /* ring chunks: seq % (2 cp) */
	CHECK(!valid(&m, &c, 64, &s, why, sizeof why) && strstr(why, "2*cp"), "usp rules: the ring's chunks");
	s = strat(1, 4, 8, 65536);
	s.cp_ulysses = 2;
	fw_issues is;
	CHECK(fw_check(FW_MEGATRON, &s, &m, &is) == 0, "usp rules: Megatron-LM runs a2a+p2p");
	CHECK(issue_has(FW_TORCHTITAN, &s, &m, "usp context parallelism"), "usp rules: torchtitan refuses USP");
	CHECK(issue_has(FW_DEEPSPEED, &s, &m, "usp context parallelism"), "usp rules: DeepSpeed refuses USP");
}

/* ---- redundant experts: memory -------------------------------------------------------- */
static void test_eplb_memory(void)
{
	model_t m;
	cluster_t c = fixture_cluster();
	mixtral(&m);
	int k = moe_kind(&m);
	/* dp 8, ep 4, ZeRO 0: a rank owns 8/4 = 2 experts per layer; 1 replica adds half of them
	 * (3/2 physical per owned). Replica: bf16 weights (2 bytes) and fp32 main gradients
	 * (4 bytes) per parameter, no optimizer state: weights + 32 x P/8 x 2, grads + 32 x P/8
	 * x 4, optimizer unchanged, with P the routed experts' parameters of a layer. */
	strategy_t s0 = strat(8, 1, 1, 4096), s1;
	s0.ep = 4, s0.zero = 0;
	s1 = s0;
	s1.moe_redundant = 1;
	eval_result *r0 = malloc(sizeof *r0), *r1 = malloc(sizeof *r1);
	if (!r0 || !r1 || eval_run(&m, &c, 8, &s0, 1e5, r0) || eval_run(&m, &c, 8, &s1, 1e5, r1)) {
		CHECK(0, "eplb memory: evaluates");
		free(r0);
		free(r1);
		return;
	}
	double p = model_layer_params(&m, k).experts_routed;
	eval_mem a = eval_stage_mem(r0, 0), b = eval_stage_mem(r1, 0);
	CHECK_NEAR(b.weights - a.weights, 32 * p / 8 * 2, 1e-9, "eplb memory: replica weights, 2 bytes each");
	CHECK_NEAR(b.grads - a.grads, 32 * p / 8 * 4, 1e-9, "eplb memory: replica gradients, 4 bytes each");
	CHECK_NEAR(b.optimizer, a.optimizer, 1e-12, "eplb memory: no optimizer state for replicas");
	free(r0);
	free(r1);
}

/* ---- redundant experts: the imbalance they remove ------------------------------------- */
static void test_eplb_imbalance(void)
{
	model_t m;
	cluster_t c = fixture_cluster();
	mixtral(&m);
	int k = moe_kind(&m);
	strategy_t s = strat(8, 1, 1, 4096);
	s.ep = 4, s.zero = 0, s.moe_cf = 1.5;
	/* excess 0.5 over 2 owned experts per rank; with 1 replica over 3: 1 + 0.5 x 2/3 */
	CHECK_NEAR(strat_moe_imbalance(&s, 1.5, 8), 1.5, 1e-15, "eplb imbalance: none without replicas");
	s.moe_redundant = 1;
	CHECK_NEAR(strat_moe_imbalance(&s, 1.5, 8), 4.0 / 3, 1e-15, "eplb imbalance: 1 + 0.5 x 2/3 = 1.3333");
	s.moe_redundant = 6;
	CHECK_NEAR(strat_moe_imbalance(&s, 1.5, 8), 1.125, 1e-15, "eplb imbalance: 6 replicas: 1 + 0.5 x 2/8");
	/* all-to-all with 1 replica: 4096 tokens x top-2 x 4/3 x 4096 x 2 bytes = 89,478,485.3
	 * dispatched; over 4 ranks in one node (240 GB/s, 2 us): 3/4 x that / 240e9 + 3 x 2 us =
	 * 285.620267 us; dispatch and combine: 571.240533 us */
	s.moe_redundant = 1;
	CHECK_NEAR(price(&m, &c, &s, k).ep_f, 571.240533e-6, 1e-6, "eplb imbalance: all-to-all at cf 4/3 (571.24 us)");
	strategy_t s0 = s;
	s0.moe_redundant = 0; /* at cf 1.5: 9/8 of it */
	CHECK_NEAR(price(&m, &c, &s0, k).ep_f, 2 * (0.75 * 4096 * 2 * 1.5 * 4096 * 2 / 240e9 + 6e-6), 1e-9,
			"eplb imbalance: all-to-all at cf 1.5 without replicas");
	CHECK(price(&m, &c, &s, k).f_comp < price(&m, &c, &s0, k).f_comp, "eplb imbalance: replicas shorten the expert compute");
}

/* ---- redundant experts: rules -------------------------------------------------------- */
static void test_eplb_rules(void)
{
	model_t m, d;
	cluster_t c = fixture_cluster();
	mixtral(&m);
	llama8b(&d);
	char why[256] = "";
	strategy_t s = strat(8, 1, 1, 4096);
	s.moe_redundant = 1;
	CHECK(!valid(&m, &c, 8, &s, why, sizeof why) && strstr(why, "ep > 1"), "eplb rules: needs ep > 1");
	CHECK(!valid(&d, &c, 8, &s, why, sizeof why) && strstr(why, "MoE model"), "eplb rules: needs experts");
	s.ep = 4, s.moe_redundant = 7; /* a rank does not own 8 - 2 = 6 experts */
	CHECK(!valid(&m, &c, 8, &s, why, sizeof why) && strstr(why, "exceeds the 6 experts"), "eplb rules: at most E - E/ep");
	s.moe_redundant = 6, s.zero = 3;
	CHECK(!valid(&m, &c, 8, &s, why, sizeof why) && strstr(why, "zero 0, 1 or 2"), "eplb rules: not under ZeRO-3");
	s.zero = 1;
	CHECK(valid(&m, &c, 8, &s, why, sizeof why), "eplb rules: 6 replicas at ep 4 valid");
	for (int fw = FW_MEGATRON; fw < FW_COUNT; fw++)
		CHECK(issue_has(fw, &s, &m, "cannot host redundant experts"), "eplb rules: no framework hosts redundant experts in training");
}

int main(void)
{
	test_usp_comm();
	test_usp_gqa();
	test_usp_rules();
	test_eplb_memory();
	test_eplb_imbalance();
	test_eplb_rules();
	printf("%d passed, %d failed\n", check_npass, check_nfail);
	return check_nfail ? 1 : 0;
}
