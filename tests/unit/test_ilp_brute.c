/* Optimality of the bubble ILP against exhaustive enumeration: small random pipelines of
 * mixed layer kinds (and an MTP layer), every schedule, vpp 1 and 2, budgets from loose to
 * exactly tight to just infeasible, with and without pins. The enumeration tries every
 * split into chunks and every recompute mode of every layer, prices each stage with the
 * same pricing the ILP uses, and keeps the least makespan among the plans that fit.
 * Each instance is solved three ways: DP-assisted, plain ILP, and the chunk model. */
#include "check.h"
#include "solve/ilp.h"
#include "solve/ilp_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static model_t mdl;
static eval_costs ec;
static ilp_pins pins;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double urand(double lo, double hi)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

static int irand(int lo, int hi) { return lo + (int)urand(0, hi - lo + 1 - 1e-9); }

/* A random instance; returns the number of main layers. */
static void make_instance(int L, int p, int v, int nk, int mtp, int sched)
{
	memset(&mdl, 0, sizeof mdl);
	mdl.nkinds = nk + (mtp ? 1 : 0);
	if (mtp)
		mdl.kind[nk].mtp = true;
	int k = irand(0, nk - 1);
	for (int l = 0; l < L; l++) {
		if (urand(0, 1) < 0.35)
			k = irand(0, nk - 1); /* runs of kinds, like dense-then-MoE, and mixtures */
		model_append(&mdl, k, 1);
	}
	if (mtp)
		model_append(&mdl, nk, mtp);
	memset(&ec, 0, sizeof ec);
	ec.pp = p;
	ec.vpp = v;
	ec.microbatches = irand(1, 3) * p;
	ec.schedule = sched;
	ec.dualpipe = sched == SCHED_DUALPIPE;
	for (int i = 0; i < mdl.nkinds; i++) {
		eval_kind_cost *q = &ec.kind[i];
		q->fwd = urand(1, 3);
		q->bwd = q->fwd * urand(1.5, 2.5);
		q->wgrad = q->bwd * urand(0.3, 0.5);
		q->rc[RC_SELECTIVE] = q->fwd * urand(0, 0.3);
		q->rc[RC_FULL] = q->fwd * urand(0.8, 1);
		q->act[RC_NONE] = urand(4, 10);
		q->act[RC_SELECTIVE] = q->act[RC_NONE] * (urand(0, 1) < 0.3 ? 1 : urand(0.4, 0.9));
		q->act[RC_FULL] = q->act[RC_NONE] * urand(0.05, 0.3);
		q->work = urand(0, 6);
		q->p_dense = urand(0.5, 2);
		q->p_expert = urand(0, 1) < 0.5 ? urand(0, 1) : 0;
	}
	ec.p2p = urand(0, 0.3);
	ec.emb_fwd = urand(0, 1);
	ec.emb_bwd = urand(0, 2);
	ec.emb_params = urand(0, 3);
	ec.emb_act = urand(0, 1);
	ec.head_fwd = urand(0, 2);
	ec.head_bwd = urand(0, 4);
	ec.head_wgrad = ec.head_bwd * 0.4;
	ec.head_params = urand(0, 3);
	ec.logits = urand(0, 5);
	ec.wb = 2;
	ec.gb = 4;
	ec.ob = urand(0.5, 12);
	ec.wbe = 2;
	ec.gbe = 4;
	ec.obe = urand(0.5, 12);
	ec.buffers = urand(0, 2);
	for (int s = 0; s < p; s++)
		ec.inflight[s] = sched == SCHED_GPIPE ? ec.microbatches : p - s + urand(0, 1);
	ec.budget = INFINITY;
}

/* Exhaustive search state. */
typedef struct {
	int P, total;                 /* chunks, layers incl. MTP */
	int chunk[16];
	int mode[16];
	double best;                  /* least makespan that fits */
	double bestpeak;              /* peak memory of that plan */
	double minpeak;               /* least peak over all plans (pins respected) */
} brute_t;

static int pins_ok_split(const brute_t *b)
{
	int pos = 0, cnt[8] = {0};
	for (int c = 0; c < b->P; c++) {
		int st = c % ec.pp;
		cnt[st] += b->chunk[c];
		for (int l = pos; l < pos + b->chunk[c]; l++)
			for (int i = 0; i < pins.n; i++)
				if (pins.pin[i].kind == ILP_PIN_STAGE && l >= pins.pin[i].lo && l < pins.pin[i].hi &&
						pins.pin[i].stage != st)
					return 0;
		pos += b->chunk[c];
	}
	for (int i = 0; i < pins.n; i++)
		if (pins.pin[i].kind == ILP_PIN_LAYERS && cnt[pins.pin[i].stage] != pins.pin[i].value)
			return 0;
	return 1;
}

static int pinned_mode(int l)
{
	int mode = -1;
	for (int i = 0; i < pins.n; i++)
		if (pins.pin[i].kind == ILP_PIN_RECOMPUTE && l >= pins.pin[i].lo && l < pins.pin[i].hi)
			mode = pins.pin[i].value;
	return mode;
}

static void eval_modes(brute_t *b)
{
	ilp_mix x[8];
	ilp_price pr[8];
	memset(x, 0, sizeof x);
	int pos = 0;
	for (int c = 0; c < b->P; c++) {
		int hi = pos + b->chunk[c] + (c == b->P - 1 ? mdl.mtp_layers : 0);
		for (int l = pos; l < hi; l++)
			x[c % ec.pp].n[model_layer_kind(&mdl, l)][b->mode[l]]++;
		pos += b->chunk[c];
	}
	double peak = 0;
	for (int s = 0; s < ec.pp; s++) {
		ilp_price_stage(&ec, mdl.nkinds, s, &x[s], &pr[s]);
		peak = pr[s].mem > peak ? pr[s].mem : peak;
	}
	if (peak < b->minpeak)
		b->minpeak = peak;
	if (peak > ec.budget)
		return;
	ilp_form f;
	ilp_form_init(&ec, &f);
	double M = ilp_makespan(&f, pr);
	if (M < b->best) {
		b->best = M;
		b->bestpeak = peak;
	}
}

static void all_modes(brute_t *b, int l)
{
	if (l == b->total) {
		eval_modes(b);
		return;
	}
	int pm = l < mdl.layers ? pinned_mode(l) : -1;
	for (int mode = 0; mode < RC_COUNT; mode++) {
		if (pm >= 0 && mode != pm)
			continue;
		b->mode[l] = mode;
		all_modes(b, l + 1);
	}
}

static void all_splits(brute_t *b, int c, int left)
{
	if (c == b->P - 1) {
		b->chunk[c] = left;
		if (pins_ok_split(b))
			all_modes(b, 0);
		return;
	}
	for (int n = 1; n <= left - (b->P - 1 - c); n++) {
		b->chunk[c] = n;
		all_splits(b, c + 1, left - n);
	}
}

static double brute(double *minpeak, double *bestpeak)
{
	brute_t b;
	memset(&b, 0, sizeof b);
	b.P = ec.pp * ec.vpp;
	b.total = mdl.layers + mdl.mtp_layers;
	b.best = INFINITY;
	b.minpeak = INFINITY;
	all_splits(&b, 0, mdl.layers);
	*minpeak = b.minpeak;
	*bestpeak = b.bestpeak;
	return b.best;
}

/* The ILP's plan respects pins and budget, and its makespan re-prices the same. */
static int plan_ok(const ilp_result *r)
{
	int pos = 0, P = ec.pp * ec.vpp;
	for (int c = 0; c < P; c++) {
		if (r->chunk_layers[c] < 1)
			return 0;
		for (int l = pos; l < pos + r->chunk_layers[c]; l++) {
			int pm = pinned_mode(l);
			if (pm >= 0 && r->layer_rc[l] != pm)
				return 0;
			for (int i = 0; i < pins.n; i++)
				if (pins.pin[i].kind == ILP_PIN_STAGE && l >= pins.pin[i].lo && l < pins.pin[i].hi &&
						pins.pin[i].stage != c % ec.pp)
					return 0;
		}
		pos += r->chunk_layers[c];
	}
	for (int s = 0; s < ec.pp; s++)
		if (r->st[s].mem > ec.budget * (1 + 1e-12))
			return 0;
	return pos == mdl.layers;
}

static int nsolved, ninfeasible;

static void run_case(const char *tag, int seed)
{
	strategy_t base = strat_default();
	base.pp = ec.pp;
	base.vpp = ec.vpp;
	ec.budget = INFINITY;
	double minpeak, fastpeak;
	brute(&minpeak, &fastpeak);
	/* loose (the fastest plan fits), between, the least peak of any plan (the tightest
	 * budget that fits), and just under it */
	double budgets[4] = {fastpeak * 1.2, minpeak + (fastpeak - minpeak) * urand(0.1, 0.9), minpeak,
		minpeak * (1 - 1e-5)};
	for (int bi = 0; bi < 4; bi++) {
		ec.budget = budgets[bi];
		double bm, bp;
		double truth = brute(&bm, &bp);
		for (int way = 0; way < 3; way++) {
			ilp_params prm;
			memset(&prm, 0, sizeof prm);
			prm.time_limit_ms = 20000;
			prm.no_dp = way == 1;
			prm.chunk_model = way == 2;
			ilp_result r;
			int st = ilp_solve_costs(&mdl, &ec, &base, &pins, &prm, &r);
			char name[200];
			snprintf(name, sizeof name, "brute %s seed %d budget %d way %d: %s", tag, seed, bi, way,
					truth == INFINITY ? "infeasible as enumeration says" : "optimal makespan matches enumeration");
			if (truth == INFINITY) {
				if (!CHECK(st == ILP_INFEASIBLE, name))
					printf("  status %s, makespan %.9g\n", ilp_status_name(st), r.makespan);
				ninfeasible++;
			} else {
				if (!CHECK(st == ILP_OPTIMAL && fabs(r.makespan - truth) <= 1e-9 * truth, name))
					printf("  status %s (%s), ilp %.12g, enumeration %.12g\n", ilp_status_name(st), r.why,
							r.makespan, truth);
				snprintf(name, sizeof name, "brute %s seed %d budget %d way %d: plan honours pins and budget",
						tag, seed, bi, way);
				if (st == ILP_OPTIMAL)
					CHECK(plan_ok(&r), name);
				snprintf(name, sizeof name, "brute %s seed %d budget %d way %d: idle split adds up", tag, seed,
						bi, way);
				CHECK_NEAR(r.bubble_prep + r.bubble_imb + r.bubble_rc, r.makespan - r.useful, 1e-9, name);
				nsolved++;
			}
			ilp_free(&r);
		}
	}
}

int main(void)
{
	static const int scheds[] = {SCHED_1F1B, SCHED_GPIPE, SCHED_ZBH1, SCHED_ZBH2, SCHED_ZBV, SCHED_DUALPIPE};
	int seed = 0;
	/* vpp = 1: every schedule, mixed kinds, MTP, no pins */
	for (int i = 0; i < 12; i++, seed++) {
		int p = 2 + (i % 2), sched = scheds[i % 6];
		if (sched == SCHED_DUALPIPE)
			p = 2;
		pins.n = 0;
		make_instance(6 + (i % 2), p, 1, 1 + i % 3, i % 3 == 0, sched);
		run_case("vpp1", seed);
	}
	/* vpp = 2 (interleaved): one kind (stage model on counts) and mixed kinds (chunk model) */
	for (int i = 0; i < 8; i++, seed++) {
		pins.n = 0;
		make_instance(6 + (i % 2), 2, 2, i < 4 ? 1 : 2 + i % 2, i % 2, SCHED_INTERLEAVED);
		run_case(i < 4 ? "vpp2-uniform" : "vpp2-mixed", seed);
	}
	/* pins: recompute of a range, stage of a range, a stage's layer count */
	for (int i = 0; i < 12; i++, seed++) {
		int v = i % 3 == 2 ? 2 : 1, p = v == 2 ? 2 : 2 + (i % 2);
		make_instance(7, p, v, 1 + i % 2, 0, v == 2 ? SCHED_INTERLEAVED : scheds[i % 4]);
		pins.n = 0;
		int lo = irand(0, 5), hi = lo + irand(1, 2);
		pins.pin[pins.n++] = (ilp_pin){ILP_PIN_RECOMPUTE, lo, hi, 0, irand(0, 2)};
		if (i % 2 == 0)
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_STAGE, 6, 7, p - 1, 0};
		if (i % 4 == 1)
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_STAGE, 0, 2, 0, 0};
		if (i % 4 == 3)
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_LAYERS, 0, 0, 0, v + 1};
		run_case("pins", seed);
	}
	CHECK(nsolved > 100 && ninfeasible > 20, "brute: the cases cover both feasible and infeasible budgets");
	printf("  %d feasible and %d infeasible comparisons\n", nsolved, ninfeasible);
	return check_done();
}
