/* test_place.c - scale-up domains (core/place.h, cost/comm.h), the 2025-26 cluster presets,
 * their precisions and the "uncalibrated family" mark. Figures are hand-computed from the
 * preset numbers (docs/cost-model.md, "Scale-up domains"). */
#include "check.h"
#include "fixture.h"
#include "core/cluster.h"
#include "core/cost/comm.h"
#include "core/evaluate.h"
#include "core/place.h"
#include "core/strategy.h"

#include <stdio.h>
#include <string.h>

static eval_result ra, rb; /* large: keep them off the stack */

static cluster_t load(const paths_t *paths, const char *name)
{
	cluster_t c;
	char err[512];
	memset(&c, 0, sizeof c);
	if (plan_load_cluster(&c, name, paths, err, sizeof err))
		printf("  %s: %s\n", name, err);
	return c;
}

static strategy_t strat(int dp, int tp, int pp)
{
	strategy_t s = strat_default();
	s.dp = dp;
	s.tp = tp;
	s.pp = pp;
	s.global_batch = 512;
	s.seq = 4096;
	return s;
}

/* TP 16: on an NVL72 its ring stays on NVLink (900 GB/s x coll_intra 0.61 = 549 GB/s, 2 us
 * steps); on a DGX H100 it spans two nodes and runs over the 8 NICs of each (8 x 50 = 400
 * GB/s, below the 450 GB/s NVLink cap, x coll_inter 1; 5 us steps). A 64 MiB all-reduce:
 * 2 x 15/16 x 64 MiB / 549e9 + 30 x 2 us = 289.197 us; / 400e9 + 30 x 5 us = 464.573 us. */
static void tp16(const cluster_t *nvl, const cluster_t *h100)
{
	comm_link a = comm_group(nvl, 16, 1), b = comm_group(h100, 16, 1);
	CHECK(!a.inter && b.inter, "place: TP 16 stays in the NVL72 domain, crosses DGX H100 nodes");
	CHECK_NEAR(a.bw, 549e9, 1e-12, "place: TP 16 on NVL72 gets 900 x 0.61 = 549 GB/s");
	CHECK_NEAR(b.bw, 400e9, 1e-12, "place: TP 16 on DGX H100 gets 8 NICs x 50 = 400 GB/s");
	double bytes = 64.0 * 1024 * 1024;
	CHECK_NEAR(comm_allreduce(a, 16, bytes), 2.891969398907104e-4, 1e-9, "place: 64 MiB TP-16 all-reduce on NVL72 = 289.197 us");
	CHECK_NEAR(comm_allreduce(b, 16, bytes), 4.645728e-4, 1e-9, "place: 64 MiB TP-16 all-reduce on DGX H100 = 464.573 us");
	/* the same through the placement view */
	strategy_t s = strat(8, 16, 1);
	place_group g[PLACE_COUNT];
	place_groups(nvl, &s, g);
	CHECK(g[PLACE_TP].in_domain && g[PLACE_TP].size == 16, "place: the view marks TP 16 in the NVL72 domain");
	CHECK_NEAR(g[PLACE_TP].gbps, 549, 1e-12, "place: the view prices TP 16 on NVL72 at 549 GB/s");
	place_groups(h100, &s, g);
	CHECK(!g[PLACE_TP].in_domain, "place: the view marks TP 16 across the network on DGX H100");
}

/* Groups beyond the domain, and pipeline neighbours inside it. */
static void beyond(const cluster_t *nvl, const cluster_t *h100)
{
	/* dp 32 at stride tp 8: 256 ranks > 72, 72 / 8 = 9 members per domain share their 9 NICs:
	 * 9 x 50 = 450 GB/s (below the 900 NVLink cap) */
	comm_link l = comm_group(nvl, 32, 8);
	CHECK(l.inter, "place: DP 32 x TP 8 leaves the NVL72 domain");
	CHECK_NEAR(l.bw, 450e9, 1e-12, "place: DP 32 at stride 8 on NVL72: 9 NICs x 50 = 450 GB/s");
	/* pipeline neighbours 32 ranks apart (tp 8 x dp 4): a pair spans 64 <= 72 on NVL72, not
	 * on an 8-GPU node (one 50 GB/s NIC) */
	strategy_t s = strat(4, 8, 8);
	CHECK_NEAR(comm_pp_link(nvl, &s).bw, 549e9, 1e-12, "place: PP neighbours 32 apart stay on NVLink in an NVL72");
	CHECK_NEAR(comm_pp_link(h100, &s).bw, 50e9, 1e-12, "place: PP neighbours 32 apart use one 50 GB/s NIC on DGX H100");
	char buf[160];
	place_summary(nvl, &s, buf, sizeof buf);
	CHECK(strstr(buf, "tp8") && strstr(buf, "pp8") && strstr(buf, "in domain(72)"),
			check_fmt("place: summary on NVL72 is '%s'", buf));
	/* not rail-optimised with 2:1 leaf oversubscription: the cross-node TP 16 gets 8 x 25 */
	cluster_t over = *h100;
	over.net_not_rail = 1;
	over.net_oversub = 2;
	CHECK_NEAR(comm_group(&over, 16, 1).bw, 200e9, 1e-12, "place: 2:1 oversubscribed non-rail fabric halves TP 16: 200 GB/s");
	over.net_not_rail = 0;
	CHECK_NEAR(comm_group(&over, 16, 1).bw, 400e9, 1e-12, "place: a rail-optimised fabric keeps its rings on the leaf");
}

/* An Infinity Fabric mesh: a group of n uses its n-1 direct links of 64 GB/s. */
static void mesh(const cluster_t *mi)
{
	CHECK_NEAR(comm_group(mi, 2, 1).bw, 64e9 * 0.61, 1e-12, "place: MI300X TP 2 gets one 64 GB/s link x 0.61");
	CHECK_NEAR(comm_group(mi, 4, 1).bw, 192e9 * 0.61, 1e-12, "place: MI300X TP 4 gets 3 links, 192 GB/s x 0.61");
	CHECK_NEAR(comm_group(mi, 8, 1).bw, 448e9 * 0.61, 1e-12, "place: MI300X TP 8 gets all 7 links, 448 GB/s x 0.61");
}

/* A ring's neighbour sends (ring attention's K/V passes) use one path, not the group's
 * aggregate: one direct link of a mesh, the switch port of NVLink, one NIC once the ring
 * leaves the domain (the hop that crosses paces every step). */
static void ring_p2p(const cluster_t *mi, const cluster_t *h100)
{
	CHECK_NEAR(comm_p2p_link(mi, comm_in_domain(mi, 8, 1)).bw, 64e9 * 0.61, 1e-12,
			"place: a CP ring of 8 inside an MI300X node sends over one 64 GB/s link x 0.61");
	CHECK_NEAR(comm_p2p_link(h100, comm_in_domain(h100, 8, 1)).bw, 450e9 * 0.61, 1e-12,
			"place: a CP ring of 8 inside a DGX H100 sends at the 450 GB/s NVLink port x 0.61");
	comm_link x = comm_p2p_link(mi, comm_in_domain(mi, 32, 1));
	CHECK(x.inter && x.bw == 50e9 && fabs(x.lat - 5e-6) < 1e-15,
			"place: a CP ring of 32 over four MI300X nodes steps at one 50 GB/s NIC, 5 us (not 8 NICs' 400)");
	/* 16 MiB of K and V a step: 16,777,216 / 50e9 + 5e-6 = 340.544 us */
	CHECK_NEAR(comm_p2p(x, 16777216.0), 3.4054432e-4, 1e-9, "place: a 16 MiB ring step across nodes = 340.544 us");
}

/* A domain equal to the node changes nothing: a DGX H100 that states domain {8, 450}
 * evaluates bit-identically. Step time on NVL72 beats DGX H100 at TP 16 through tp_s. */
static void same_and_step(const paths_t *paths, const cluster_t *nvl, const cluster_t *h100)
{
	model_t m;
	char err[256];
	if (!CHECK(!plan_load_model(&m, "llama3-70b", paths, err, sizeof err), "place: llama3-70b loads"))
		return;
	cluster_t dom = *h100;
	dom.domain_devices = 8;
	dom.domain_gbps = 450;
	strategy_t s = strat(8, 16, 4);
	int ok = !eval_run(&m, h100, 512, &s, 0, &ra) && !eval_run(&m, &dom, 512, &s, 0, &rb);
	CHECK(ok && eval_alike(&ra, &rb, 0), "place: a domain equal to the node leaves every figure bit-identical");
	/* the same TP 16 plan with the NVL72's NVLink but H100 compute: only the link moves */
	cluster_t h100_nvl = *h100;
	h100_nvl.domain_devices = nvl->domain_devices;
	h100_nvl.domain_gbps = nvl->domain_gbps;
	ok = ok && !eval_run(&m, &h100_nvl, 512, &s, 0, &rb);
	CHECK(ok && rb.tp < ra.tp && rb.step < ra.step, "place: a 72-GPU NVLink domain prices TP 16 below a cross-node TP 16");
}

/* Precisions: MXFP8 and FP4 where the part has them, refused where it does not. */
static void precisions(const paths_t *paths, const cluster_t *nvl, const cluster_t *h100, const cluster_t *mi)
{
	model_t m;
	char err[256], why[256];
	if (!CHECK(!plan_load_model(&m, "llama3-8b", paths, err, sizeof err), "place: llama3-8b loads"))
		return;
	strategy_t s = strat(64, 1, 1);
	s.precision = strat_parse_precision("fp4");
	CHECK(s.precision == PREC_FP4 && strat_validate(&s, &m, h100, 64, why, sizeof why) &&
			strstr(why, "fp4 is not supported"), "place: fp4 on an H100 is refused with the reason");
	CHECK(!strat_validate(&s, &m, nvl, 64, why, sizeof why), "place: fp4 on a GB200 is valid");
	s.precision = PREC_MXFP8;
	CHECK(strat_validate(&s, &m, mi, 64, why, sizeof why) && strstr(why, "mxfp8"), "place: mxfp8 on an MI300X is refused");
	double step[3];
	const int prec[3] = {PREC_BF16, PREC_MXFP8, PREC_FP4};
	int ok = 1;
	for (int i = 0; i < 3; i++) {
		s.precision = prec[i];
		ok = ok && !eval_run(&m, nvl, 64, &s, 0, &ra);
		step[i] = ra.step;
	}
	CHECK(ok && step[2] < step[1] && step[1] < step[0], "place: on GB200 fp4 < mxfp8 < bf16 in step time");
}

int main(void)
{
	paths_t paths;
	fixture_paths(&paths);
	cluster_t nvl = load(&paths, "gb200-nvl72"), h100 = load(&paths, "dgx-h100"), mi = load(&paths, "mi300x");
	CHECK(cluster_domain_devices(&nvl) == 72 && nvl.node_devices == 4, "place: gb200-nvl72 has 4 GPUs a host, 72 a domain");
	CHECK(cluster_domain_devices(&h100) == 8 && cluster_domain_gbps(&h100) == 450, "place: dgx-h100's domain is its node");
	CHECK(!strcmp(nvl.eff_from, "H100") && !h100.eff_from[0], "place: gb200-nvl72 is an uncalibrated family derived from H100");
	cluster_t h20 = load(&paths, "h20");
	CHECK(!h20.eff_from[0] && h20.eff.gemm == h100.eff.gemm && h20.sms == 78,
			"place: h20 inherits H100's calibrated constants and keeps its 78 SMs");
	const char *all[] = {"dgx-b200", "gb300-nvl72", "mi325x", "cloudmatrix-384"};
	for (int i = 0; i < 4; i++) {
		cluster_t c = load(&paths, all[i]);
		CHECK(c.eff_from[0] && c.mem_gib > 0, check_fmt("place: %s loads, marked uncalibrated", all[i]));
	}
	tp16(&nvl, &h100);
	beyond(&nvl, &h100);
	mesh(&mi);
	ring_p2p(&mi, &h100);
	same_and_step(&paths, &nvl, &h100);
	precisions(&paths, &nvl, &h100, &mi);
	return check_done();
}
