/* Unit tests for what lets the search skip work without changing its results
 * (search_unit.c): the bound table's micro-batch sum and its CP-free part never decrease
 * with the micro-batch, and the CP-free part is the same for ring, Ulysses and USP (the
 * premises of certified columns, fill_table), over every model preset on clusters of
 * each family, across TP, CP (ring, Ulysses, USP), EP, expert TP, SP, TP overlap, precision
 * and the ZeRO-3 framework; the framework rules the search checks read no micro-batch (the
 * premise of skipping a row's larger micro-batches after a rejection, score); and on MoE
 * jobs with context parallelism the bounded search returns exactly what the exhaustive one
 * (no step-time bound, so nothing certified) returns. */
#include "check.h"
#include "core/framework.h"
#include "fixture.h"
#include "core/evaluate.h"
#include "io/paths.h"
#include "io/plan.h"
#include "solve/search.h"
#include "solve/search_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static paths_t paths;

/* micro-batches whose sums are compared in turn (all divide 960) */
static const int mbs[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 16, 20, 24, 32, 40, 48, 60, 64, 96, 120, 160, 240, 480, 960};
#define NMBS ((int)(sizeof mbs / sizeof mbs[0]))

/* The CP-free sum of each micro-batch of the last family checked (-1: invalid), which the
 * other Ulysses degrees of the same family must repeat. */
static double nocp_of[NMBS];

/* Check one strategy family over the micro-batches: its column sum (search_col_base) and
 * its CP-free part never fall; with ref set, the CP-free parts equal nocp_of's. Returns the
 * pairs compared, -1 after a failed check (reported). */
static int family(const model_t *m, const cluster_t *c, strategy_t s, int devices, int ref)
{
	double prev = -1, prev_n = -1;
	int prev_b = 0, pairs = 0;
	for (int i = 0; i < NMBS; i++) {
		s.micro_batch = mbs[i];
		if (strat_validate(&s, m, c, devices, NULL, 0)) {
			if (!ref)
				nocp_of[i] = -1;
			continue;
		}
		eval_kinds k;
		eval_costs ec;
		eval_kinds_get(m, c, &s, &k);
		eval_costs_time(m, c, &s, &k, &ec);
		double base = search_col_base(m, &ec), nocp = base - search_col_cp(m, &k);
		int same = !ref || nocp_of[i] < 0 || fabs(nocp - nocp_of[i]) <= 1e-12 * base;
		if (!ref)
			nocp_of[i] = nocp;
		if (prev >= 0)
			pairs++;
		if (prev >= 0 && (!(base >= prev) || !(nocp >= prev_n) || !same)) {
			CHECK(0, check_fmt("column sum %s on %s (tp %d cp %d/%d%s ep %d etp %d sp %d overlap %d %s zero %d): "
					"micro-batch %d takes %.9g s (%.9g without CP), against %.9g s (%.9g) at %d%s", m->name,
					c->name, s.tp, s.cp, strat_cp_ulysses(&s), s.cp_kind == CP_ULYSSES ? " ulysses" : "", s.ep,
					s.etp, s.sp, s.tp_overlap, strat_precision_name(s.precision), s.zero, mbs[i], base, nocp, prev,
					prev_n, prev_b, same ? "" : "; its CP-free part differs from the ring's"));
			return -1;
		}
		prev = base;
		prev_n = nocp;
		prev_b = mbs[i];
	}
	return pairs;
}

/* The families of one model on one cluster: every combination below that validates. */
static void model_on(const model_t *m, const cluster_t *c, long long *pairs, int *bad)
{
	static const int tps[] = {1, 2, 8, 16}, cps[] = {1, 2, 8}, eps[] = {1, 8}, etps[] = {1, 2};
	int moe = model_max_experts(m) > 0;
	for (size_t it = 0; it < sizeof tps / sizeof tps[0]; it++)
		for (size_t ic = 0; ic < sizeof cps / sizeof cps[0]; ic++)
			for (size_t ie = 0; ie < (moe ? 2u : 1u); ie++)
				for (size_t ix = 0; ix < (moe ? 2u : 1u); ix++)
					for (int flags = 0; flags < 16; flags++)
						for (int var = 0; var < (cps[ic] > 1 ? 3 : 1); var++) {
							strategy_t s = strat_default();
							s.tp = tps[it];
							s.cp = cps[ic];
							s.dp = 8;
							s.ep = eps[ie];
							s.etp = etps[ix];
							s.seq = 8192;
							s.global_batch = s.dp * 960;
							s.cp_kind = var == 1 ? CP_ULYSSES : CP_RING;
							s.cp_ulysses = var == 2 ? 2 : 0;
							s.sp = flags & 1;
							s.tp_overlap = (flags >> 1) & 1;
							s.precision = (uint8_t)((flags >> 2) & 1 ? PREC_FP8 : PREC_BF16);
							s.zero = (flags >> 3) & 1 ? 3 : 0; /* torchtitan's pricing under auto */
							int devices = s.dp * s.tp * s.cp;
							int n = family(m, c, s, devices, var > 0);
							if (n < 0 && ++*bad > 5)
								return;
							*pairs += n > 0 ? n : 0;
						}
}

static void test_monotone(void)
{
	static char models[64][128];
	static const char *const clusters[] = {"h800", "dgx-a100-80g", "v100", "mi300x", "gb200-nvl72", "ascend-910b"};
	int nm = fixture_presets(&paths, "models", models, 64);
	long long pairs = 0;
	int bad = 0;
	for (size_t ic = 0; ic < sizeof clusters / sizeof clusters[0]; ic++)
		for (int im = 0; im < nm && bad <= 5; im++) {
			static plan_t p;
			char text[1024];
			snprintf(text, sizeof text, "model: %.200s\ncluster: %s\ndevices: 8\nstrategy: {global_batch: 8}\n",
					models[im], clusters[ic]);
			if (!CHECK(fixture_load(&p, &paths, text) == 0, check_fmt("%s on %s loads", models[im], clusters[ic])))
				continue;
			model_on(&p.model, &p.cluster, &pairs, &bad);
		}
	CHECK(bad == 0 && pairs > 100000, check_fmt("column sums never fall as the micro-batch grows (%lld pairs over %d "
			"models on %d clusters)", pairs, nm, (int)(sizeof clusters / sizeof clusters[0])));
}

/* fw_search_check reads no micro-batch: a rejected strategy is rejected at every one. */
static void test_framework_rules_ignore_mbs(void)
{
	static plan_t p;
	if (!CHECK(fixture_load(&p, &paths, "model: deepseek-v3\ncluster: h800\ndevices: 64\n"
			"strategy: {global_batch: 960, seq_length: 4096}\n") == 0, "framework rules: job loads"))
		return;
	uint64_t rng = 0x5eed;
	int same = 1, rejected = 0, n = 0;
	for (int i = 0; i < 20000 && same; i++) {
		strategy_t s = p.strategy;
		s.tp = 1 << fixture_rnd(&rng, 4);
		s.pp = 1 << fixture_rnd(&rng, 3);
		s.cp = 1 << fixture_rnd(&rng, 3);
		s.vpp = 1 + (int)fixture_rnd(&rng, 3);
		s.ep = 1 << fixture_rnd(&rng, 4);
		s.etp = 1 << fixture_rnd(&rng, 2);
		s.zero = (int)fixture_rnd(&rng, 4);
		s.schedule = (uint8_t)fixture_rnd(&rng, SCHED_COUNT);
		s.recompute = (uint8_t)fixture_rnd(&rng, RC_COUNT);
		s.sp = fixture_rnd(&rng, 2);
		s.cp_kind = (uint8_t)(fixture_rnd(&rng, 2) ? CP_ULYSSES : CP_RING);
		s.cp_ulysses = fixture_rnd(&rng, 2) ? 2 : 0;
		s.micro_batch = 1;
		int r1 = fw_search_check(&s, &p.model, NULL) != 0;
		s.micro_batch = 1 + (int)fixture_rnd(&rng, 64);
		int r2 = fw_search_check(&s, &p.model, NULL) != 0;
		same = r1 == r2;
		rejected += r1;
		n++;
	}
	CHECK(same && rejected > 1000 && rejected < n, check_fmt("framework rules: the same verdict at every micro-batch "
			"(%d of %d strategies rejected)", rejected, n));
}

/* The bounded search (certified columns, rows cut after a framework's rejection) against
 * the exhaustive one: the same results in the same order, fewer strategies looked at. */
static void test_same_as_exhaustive(void)
{
	static const char *const jobs[] = {
		"model: mixtral-8x7b\ncluster: dgx-h100\ndevices: 32\nstrategy: {global_batch: 64, seq_length: 32768}\n",
		"model: qwen2.5-72b\ncluster: h800\ndevices: 64\nstrategy: {global_batch: 128, seq_length: 16384}\n",
		"model: mixtral-8x22b\ncluster: dgx-a100-80g\ndevices: 64\nstrategy: {global_batch: 256, seq_length: 8192}\n",
	};
	for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
		static plan_t p;
		if (!CHECK(fixture_load(&p, &paths, jobs[i]) == 0, "exhaustive: job loads"))
			continue;
		search_job j = {&p.model, &p.cluster, p.devices, p.strategy, p.budget_gib};
		search_opts o;
		memset(&o, 0, sizeof o);
		o.top = 20;
		o.no_ilp = 1;
		o.threads = 2;
		search_result a, r;
		int ra = search_run(&j, NULL, &o, &a);
		o.exhaustive = 1;
		int rr = search_run(&j, NULL, &o, &r);
		int same = ra == 0 && rr == 0 && a.n == r.n && a.n > 0 && a.checked < r.checked;
		for (int x = 0; same && x < a.n; x++)
			same = a.item[x].step == r.item[x].step && a.item[x].peak_gib == r.item[x].peak_gib &&
				!search_canon_cmp(&a.item[x].s, &r.item[x].s) && a.item[x].alike == r.item[x].alike;
		CHECK(same, check_fmt("bounded search of %s on %d %s: the exhaustive search's %d results (checked %lld "
				"against %lld)", p.model.name, p.devices, p.cluster.name, r.n, a.checked, r.checked));
		search_free(&a);
		search_free(&r);
	}
}

int main(void)
{
	fixture_paths(&paths);
	test_monotone();
	test_framework_rules_ignore_mbs();
	test_same_as_exhaustive();
	return check_done();
}
