/* test_ep_dispatch.c - the expert-parallel all-to-all across nodes (cost/comm.h
 * comm_a2a_link) and the DeepEP dispatcher (moe_dispatcher deepep, moe_routing), with
 * figures hand-computed from the presets (docs/cost-model.md, "Expert parallelism").
 *
 * Qwen3-30B-A3B (h 2048, 128 experts, top-8) on DGX H100 (8 GPUs a node, NVLink 450 GB/s x
 * coll_intra 0.61, one 50 GB/s NIC a GPU, 5 us), micro-batch 1 x 4,096 tokens, no TP: a
 * rank dispatches B = 4096 x 8 x 2048 x 2 = 134,217,728 bytes (one copy per expert). */
#include "check.h"
#include "fixture.h"
#include "core/cluster.h"
#include "core/cost/comm.h"
#include "core/evaluate.h"
#include "core/strategy.h"

#include <stdio.h>
#include <string.h>

static eval_kinds kinds; /* large: keep it off the stack */

static int moe_kind(const model_t *m)
{
	for (int k = 0; k < m->nkinds; k++)
		if (m->kind[k].experts > 0)
			return k;
	return 0;
}

static double ep_f(const model_t *m, const cluster_t *c, int ep, int disp, int route)
{
	strategy_t s = strat_default();
	s.dp = ep;
	s.ep = ep;
	s.sp = false;
	s.seq = 4096;
	s.global_batch = ep;
	s.moe_disp = (uint8_t)disp;
	s.moe_route = (uint8_t)route;
	eval_kinds_get(m, c, &s, &kinds);
	return kinds.kc[moe_kind(m)].ep_f;
}

/* EP 32 over four nodes. The all-to-all link: each rank's 24/32 leaving the node go through
 * its own NIC (the node's 8 NICs serve its 8 GPUs, which all exchange at once), the 7/32
 * staying inside run on NVLink meanwhile: bw = 31 / max(24 / 50e9, 7 / 274.5e9) = 64.583
 * GB/s (a ring collective would get 8 x 50 = 400). One all-to-all: 31/32 x B / bw + 31 x 5
 * us = 2.168266 ms; forward is dispatch + combine: 4.336532 ms. */
static void alltoall(const model_t *m, const cluster_t *c)
{
	comm_link l = comm_a2a_link(c, 32, 1);
	CHECK(l.inter, "a2a: EP 32 of DGX H100 crosses nodes");
	CHECK_NEAR(l.bw, 31 / (24 / 50e9), 1e-12, "a2a: EP 32 over 4 nodes gets 31 / (24 / 50 GB/s) = 64.58 GB/s");
	CHECK_NEAR(comm_group(c, 32, 1).bw, 400e9, 1e-12, "a2a: the ring collectives of the same group keep 8 NICs");
	CHECK_NEAR(ep_f(m, c, 32, MOED_ALLTOALL, MOER_SPREAD), 4.33653184e-3, 1e-9,
			"a2a: EP 32 alltoall forward = 2 x 2.168266 ms");
	/* inside one node nothing changes: 2 x (7/8 x B / 274.5e9 + 7 x 2 us) = 883.669 us */
	CHECK_NEAR(ep_f(m, c, 8, MOED_ALLTOALL, MOER_SPREAD), 8.836685755919854e-4, 1e-9,
			"a2a: EP 8 in one node = 2 x 441.834 us on NVLink");
}

/* DeepEP sends a token once a node over RDMA. Spread routing: a node (32 of the 128
 * experts) holds none of a token's 8 with C(96,8)/C(128,8) = 0.09275, so 3 x 0.90725 =
 * 2.72176 remote nodes a token; B/8 x 2.72176 / 50e9 = 913.27 us, + 3 x 5 us: forward
 * 1.856541 ms, 2.34x below the alltoall dispatcher. Contiguous routing (k adjacent experts,
 * a benchmark gate): one node a token, remote 3/4 of the time: B/8 x 0.75 / 50e9 + 15 us =
 * 266.658 us, forward 533.316 us. Inside one node (EP 8): a token reaches 8 x (1 -
 * C(112,8)/C(128,8)) = 5.33936 ranks, 7/8 of them over NVLink: 2 x (7/8 x B/8 x 5.33936 /
 * 274.5e9 + 7 x 2 us) = 599.090 us. */
static void deepep(const model_t *m, const cluster_t *c)
{
	CHECK_NEAR(ep_f(m, c, 32, MOED_DEEPEP, MOER_SPREAD), 1.8565410043634898e-3, 1e-9,
			"deepep: EP 32 over 4 nodes, 2.72 remote nodes a token = 2 x 928.27 us");
	CHECK_NEAR(ep_f(m, c, 32, MOED_DEEPEP, MOER_CONTIGUOUS), 5.3331648e-4, 1e-9,
			"deepep: contiguous routing sends a token to one node = 2 x 266.658 us");
	CHECK_NEAR(ep_f(m, c, 8, MOED_DEEPEP, MOER_SPREAD), 5.990899886562542e-4, 1e-9,
			"deepep: EP 8 in one node, a token to 5.34 ranks = 2 x 299.545 us");
	CHECK(ep_f(m, c, 32, MOED_ALLTOALL, MOER_CONTIGUOUS) == ep_f(m, c, 32, MOED_ALLTOALL, MOER_SPREAD),
			"deepep: the alltoall dispatcher sends one copy per expert whatever the routing");
}

/* The frameworks: Megatron-LM and torchtitan run DeepEP, DeepSpeed does not. */
static void frameworks(const model_t *m, const cluster_t *c)
{
	char why[512] = "";
	strategy_t s = strat_default();
	s.dp = 32;
	s.ep = 32;
	s.global_batch = 32;
	s.moe_disp = MOED_DEEPEP;
	s.framework = FW_MEGATRON;
	CHECK(!strat_validate(&s, m, c, 32, why, sizeof why), check_fmt("deepep: Megatron-LM runs it (%s)", why));
	s.framework = FW_DEEPSPEED;
	CHECK(strat_validate(&s, m, c, 32, why, sizeof why) && strstr(why, "DeepEP"),
			"deepep: DeepSpeed refuses it, naming DeepEP");
}

int main(void)
{
	paths_t paths;
	fixture_paths(&paths);
	model_t m;
	cluster_t c;
	char err[512];
	memset(&c, 0, sizeof c);
	if (!CHECK(!plan_load_model(&m, "qwen3-30b-a3b", &paths, err, sizeof err) &&
			!plan_load_cluster(&c, "dgx-h100", &paths, err, sizeof err), "ep dispatch: presets load"))
		return check_done();
	alltoall(&m, &c);
	deepep(&m, &c);
	frameworks(&m, &c);
	return check_done();
}
