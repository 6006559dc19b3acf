/* Stages kept per span of alike stages (evaluate.h, eval_span): what makes evaluate()'s cost
 * nearly independent of the pipeline depth, checked against the per-stage walk it replaces.
 *   - rep_add (core/cost/repeat.c) gives the bits of the loop it replaces: random sums,
 *     ties to even, exact integer sums, additions below half an ulp, negative and zero
 *     starts;
 *   - sched_inflight never grows with the stage index, under every schedule (the reason a
 *     span's peak is its first stage's);
 *   - on deep pipelines of several models and schedules: the spans cover the stages in
 *     order, every stage of a span holds the same bytes but its activations, and the peak
 *     and its stage are those of a scan over every stage (the first of the largest). */
#include "check.h"
#include "fixture.h"
#include "core/cost/repeat.h"
#include "core/cost/schedule.h"
#include "core/evaluate.h"
#include "io/paths.h"
#include "io/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A double of random bits in [1, 2) scaled by 2^e. */
static double rnd_double(uint64_t *st, int e)
{
	double m = 1 + fixture_rnd(st, 1u << 30) / 1073741824.0 + fixture_rnd(st, 1u << 22) / 4503599627370496.0;
	return ldexp(m, e);
}

static int loop_differs(double s, double x, int n)
{
	double a = s;
	for (int i = 0; i < n; i++)
		a += x;
	double b = rep_add(s, x, n);
	return memcmp(&a, &b, sizeof a) != 0;
}

static void test_rep_add(void)
{
	uint64_t st = 0x5eed;
	int bad = 0, cases = 0;
	for (int i = 0; i < 200000; i++, cases++) {
		double s = rnd_double(&st, (int)fixture_rnd(&st, 40) - 20), x = rnd_double(&st, (int)fixture_rnd(&st, 40) - 20);
		if (fixture_rnd(&st, 4) == 0) /* x a multiple of 1/16 with a half-ulp tail: ties */
			x = floor(x * 8) / 8 + (fixture_rnd(&st, 2) ? 0.0625 : 0);
		bad += loop_differs(s, x, (int)fixture_rnd(&st, 300));
	}
	for (int i = 0; i < 50000; i++, cases++) { /* whole numbers: the exact path and its bound */
		double s = ldexp((double)fixture_rnd(&st, 1u << 30), (int)fixture_rnd(&st, 30));
		double x = ldexp((double)fixture_rnd(&st, 1u << 24) + 0.5 * fixture_rnd(&st, 2), (int)fixture_rnd(&st, 40));
		bad += loop_differs(s, x, (int)fixture_rnd(&st, 300));
	}
	const double edge[][2] = {{0, 0.1}, {-3.5, 0.1}, {1e300, 1e-300}, {1, 1e-17}, {1, 0}, {1e308, 1e307},
		{4503599627370496.0, 0.5}, {4503599627370496.0, 1.5}, {1, -0.25}, {0.1, 0.1}, {5e-324, 5e-324}};
	for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
		for (int n = 0; n < 260; n += 7, cases++)
			bad += loop_differs(edge[i][0], edge[i][1], n);
	CHECK(bad == 0, "rep_add: the bits of the loop it replaces");
	printf("  %d sums, %d differ\n", cases, bad);
}

static void test_inflight_monotone(void)
{
	const int sched[] = {SCHED_1F1B, SCHED_GPIPE, SCHED_INTERLEAVED, SCHED_ZBH1, SCHED_ZBH2, SCHED_ZBV, SCHED_DUALPIPE};
	int bad = 0;
	for (size_t k = 0; k < sizeof sched / sizeof sched[0]; k++)
		for (int p = 1; p <= 64; p++)
			for (int v = 1; v <= 6; v++)
				for (int m = 1; m <= 300; m += m < 20 ? 1 : 17)
					for (int d = 0; d + 1 < p; d++)
						bad += sched_inflight_of(sched[k], p, v, d + 1, m) > sched_inflight_of(sched[k], p, v, d, m);
	CHECK(bad == 0, "sched_inflight: never more on a later stage, every schedule");
}

/* Spans cover the stages in order, stages of a span hold the same bytes but activations,
 * and the peak is the scan's. */
static int spans_agree(const eval_result *r)
{
	int next = 0, peak_stage = 0;
	double peak = 0;
	for (int i = 0; i < r->nspans; i++) {
		const eval_span *sp = &r->span[i];
		if (sp->lo != next || sp->hi <= sp->lo)
			return 0;
		next = sp->hi;
	}
	if (next != r->stages)
		return 0;
	for (int st = 0; st < r->stages; st++) {
		eval_mem m = eval_stage_mem(r, st), f = eval_stage_mem(r, eval_span_of(r, st)->lo);
		if (m.weights != f.weights || m.grads != f.grads || m.optimizer != f.optimizer || m.buffers != f.buffers ||
				m.layers != f.layers || m.inflight > f.inflight)
			return 0;
		if (m.total > peak) {
			peak = m.total;
			peak_stage = st;
		}
	}
	return peak == r->peak_bytes && peak_stage == r->peak_stage;
}

static void test_deep_pipelines(void)
{
	paths_t paths;
	fixture_paths(&paths);
	static const char *models[] = {"llama3-70b", "llama3-405b", "deepseek-v3", "llama4-maverick", "gpt3-175b"};
	static const char *scheds[] = {"1f1b", "gpipe", "interleaved", "zb-h1", "zb-h2", "zb-v", "dualpipe"};
	static const int pps[] = {2, 3, 8, 16, 40, 64, 126};
	plan_t *p = malloc(sizeof *p);
	eval_result *r = malloc(sizeof *r);
	int runs = 0, bad = 0, spans = 0;
	for (size_t mi = 0; p && r && mi < sizeof models / sizeof models[0]; mi++)
		for (size_t si = 0; si < sizeof scheds / sizeof scheds[0]; si++)
			for (size_t pi = 0; pi < sizeof pps / sizeof pps[0]; pi++) {
				char text[512];
				int pp = pps[pi], vpp = !strcmp(scheds[si], "interleaved") ? 2 : 1;
				snprintf(text, sizeof text,
						"model: %s\ncluster: dgx-h100\ndevices: %d\n"
						"strategy: {tp: 8, pp: %d, vpp: %d, sp: true, zero: 1, micro_batch: 1, global_batch: %d,\n"
						"           seq_length: 4096, recompute: selective, schedule: %s}\n",
						models[mi], 8 * pp * 2, pp, vpp, 8 * pp, scheds[si]);
				if (fixture_load(p, &paths, text))
					continue;
				if (eval_run(&p->model, &p->cluster, p->devices, &p->strategy, 0, r))
					continue;
				runs++;
				spans += r->nspans;
				if (!spans_agree(r)) {
					bad++;
					printf("  differs: %s pp %d %s\n", models[mi], pp, scheds[si]);
				}
			}
	CHECK(runs > 100, "deep pipelines: most plans evaluate");
	CHECK(bad == 0, "deep pipelines: spans cover the stages, the peak is the scan's");
	printf("  %d plans, %d spans\n", runs, spans);
	free(p);
	free(r);
}

int main(void)
{
	test_rep_add();
	test_inflight_monotone();
	test_deep_pipelines();
	return check_done();
}
