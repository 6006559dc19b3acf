/* Optimality of the bubble ILP against exhaustive enumeration: small random pipelines of
 * mixed layer kinds (and an MTP layer), every schedule, vpp 1 to 3, budgets from loose to
 * exactly tight to just infeasible, with and without pins. The enumeration tries every
 * split into chunks and every recompute mode of every layer, prices each stage with the
 * same pricing the ILP uses, and keeps the least makespan among the plans that fit.
 * Each instance is solved several ways: DP-assisted, plain ILP, the chunk model, and on
 * vpp > 1 the chunk DP's round-starts form, a DP cut short by its work limit and the
 * chunk DP placing a head longer than pp round by round wherever it can. */
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

/* A random instance. tail < 0: runs of random kinds; else layers from `tail` on are all
 * of one kind (the shape of DeepSeek-V3's dense-then-MoE layers). */
static void make_instance_t(int L, int p, int v, int nk, int mtp, int sched, int tail)
{
	memset(&mdl, 0, sizeof mdl);
	mdl.nkinds = nk + (mtp ? 1 : 0);
	if (mtp)
		mdl.kind[nk].mtp = true;
	int k = irand(0, nk - 1), ktail = irand(0, nk - 1);
	for (int l = 0; l < L; l++) {
		if (urand(0, 1) < 0.35)
			k = irand(0, nk - 1); /* runs of kinds, like dense-then-MoE, and mixtures */
		model_append(&mdl, tail >= 0 && l >= tail ? ktail : k, 1);
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

static void make_instance(int L, int p, int v, int nk, int mtp, int sched)
{
	make_instance_t(L, p, v, nk, mtp, sched, -1);
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

/* The same enumeration organised per stage, to reach ~10 layers: for a split, every
 * recompute assignment of each stage's layers is priced on its own; those that fit are
 * cut to their Pareto front in (T, g) (a plan is no worse when one stage gets faster or
 * its term of the sum smaller, the others unchanged) and every combination of the
 * fronts is tried. */
#define B2_PTS 512

typedef struct {
	double T, g, mem;
} b2pt;

typedef struct {
	int P, total;
	int chunk[16];
	int mode[32];
	int lay[8][32], nlay[8];    /* layers (MTP included) of each stage */
	b2pt pt[8][B2_PTS];
	int npt[8];
	double best, bestpeak, minpeak, stmin[8];
} brute2_t;

static void b2_modes(brute2_t *b, int st, int i)
{
	if (i == b->nlay[st]) {
		ilp_mix x;
		ilp_price q;
		memset(&x, 0, sizeof x);
		for (int j = 0; j < b->nlay[st]; j++)
			x.n[model_layer_kind(&mdl, b->lay[st][j])][b->mode[j]]++;
		ilp_price_stage(&ec, mdl.nkinds, st, &x, &q);
		if (q.mem < b->stmin[st])
			b->stmin[st] = q.mem;
		if (q.mem > ec.budget || b->npt[st] == B2_PTS)
			return;
		ilp_form f;
		ilp_form_init(&ec, &f);
		b->pt[st][b->npt[st]++] = (b2pt){q.f + q.b, ilp_form_g(&f, &q), q.mem};
		return;
	}
	int l = b->lay[st][i], pm = l < mdl.layers ? pinned_mode(l) : -1;
	for (int mode = 0; mode < RC_COUNT; mode++) {
		if (pm >= 0 && mode != pm)
			continue;
		b->mode[i] = mode;
		b2_modes(b, st, i + 1);
	}
}

static int b2_cmp(const void *a, const void *b)
{
	const b2pt *x = a, *y = b;
	if (x->T != y->T)
		return x->T < y->T ? -1 : 1;
	return (x->g > y->g) - (x->g < y->g);
}

static void b2_combine(brute2_t *b, const ilp_form *f, int st, double tmax, double g, double peak)
{
	if (st == ec.pp) {
		double M = f->cM * tmax + ilp_form_h(f, g);
		if (M < b->best) {
			b->best = M;
			b->bestpeak = peak;
		}
		return;
	}
	for (int i = 0; i < b->npt[st]; i++) {
		const b2pt *q = &b->pt[st][i];
		b2_combine(b, f, st + 1, q->T > tmax ? q->T : tmax, g + q->g, q->mem > peak ? q->mem : peak);
	}
}

static void b2_split(brute2_t *b)
{
	int pos = 0;
	for (int s = 0; s < ec.pp; s++)
		b->nlay[s] = 0;
	for (int c = 0; c < b->P; c++) {
		int st = c % ec.pp, hi = pos + b->chunk[c] + (c == b->P - 1 ? mdl.mtp_layers : 0);
		for (int l = pos; l < hi; l++)
			b->lay[st][b->nlay[st]++] = l;
		pos += b->chunk[c];
	}
	double peak = 0;
	for (int s = 0; s < ec.pp; s++) {
		b->npt[s] = 0;
		b->stmin[s] = INFINITY;
		b2_modes(b, s, 0);
		peak = b->stmin[s] > peak ? b->stmin[s] : peak;
		/* Pareto front in (T, g): T ascending, g strictly falling */
		qsort(b->pt[s], (size_t)b->npt[s], sizeof(b2pt), b2_cmp);
		int n = 0;
		for (int i = 0; i < b->npt[s]; i++)
			if (!n || b->pt[s][i].g < b->pt[s][n - 1].g)
				b->pt[s][n++] = b->pt[s][i];
		b->npt[s] = n;
	}
	if (peak < b->minpeak)
		b->minpeak = peak;
	ilp_form f;
	ilp_form_init(&ec, &f);
	b2_combine(b, &f, 0, 0, 0, 0);
}

static void b2_splits(brute2_t *b, int c, int left)
{
	if (c == b->P - 1) {
		b->chunk[c] = left;
		brute_t t; /* pins_ok_split reads the split from a brute_t */
		t.P = b->P;
		memcpy(t.chunk, b->chunk, sizeof t.chunk);
		if (pins_ok_split(&t))
			b2_split(b);
		return;
	}
	for (int n = 1; n <= left - (b->P - 1 - c); n++) {
		b->chunk[c] = n;
		b2_splits(b, c + 1, left - n);
	}
}

static double brute2(double *minpeak, double *bestpeak)
{
	static brute2_t b;
	memset(&b, 0, sizeof b);
	b.P = ec.pp * ec.vpp;
	b.total = mdl.layers + mdl.mtp_layers;
	b.best = INFINITY;
	b.minpeak = INFINITY;
	b2_splits(&b, 0, mdl.layers);
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

static int nsolved, ninfeasible, nways;

typedef double (*brute_fn)(double *minpeak, double *bestpeak);

static void run_case_with(const char *tag, int seed, brute_fn enumerate)
{
	strategy_t base = strat_default();
	base.pp = ec.pp;
	base.vpp = ec.vpp;
	ec.budget = INFINITY;
	double minpeak, fastpeak;
	enumerate(&minpeak, &fastpeak);
	/* loose (the fastest plan fits), between, the least peak of any plan (the tightest
	 * budget that fits), and just under it */
	double budgets[4] = {fastpeak * 1.2, minpeak + (fastpeak - minpeak) * urand(0.1, 0.9), minpeak,
		minpeak * (1 - 1e-5)};
	for (int bi = 0; bi < 4; bi++) {
		ec.budget = budgets[bi];
		double bm, bp;
		double truth = enumerate(&bm, &bp);
		for (int way = 0; way < (ec.vpp > 1 ? 6 : 3); way++) {
			ilp_params prm;
			memset(&prm, 0, sizeof prm);
			prm.time_limit_ms = 20000;
			prm.no_dp = way == 1;
			prm.chunk_model = way == 2;
			prm.dp_starts = way == 3 ? 1 : way == 5 ? 2 : 0; /* 5: the head placed round by round */
			prm.dp_work = way == 4 ? 40 : 0; /* the DP stops early: GLPK has to finish */
			nways++;
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
				/* a schedule priced above the solver's form (GPipe's phases, ZB with few
				 * micro-batches, ZB-V's max(F, B_in)) is reported feasible, not proven optimal:
				 * its makespan must still be the enumeration's on these instances */
				int gp = st == ILP_FEASIBLE && strstr(r.why, "form leaves out");
				if (!CHECK((st == ILP_OPTIMAL || gp) && fabs(r.makespan - truth) <= 1e-9 * truth, name))
					printf("  status %s (%s), ilp %.12g, enumeration %.12g\n", ilp_status_name(st), r.why,
							r.makespan, truth);
				snprintf(name, sizeof name, "brute %s seed %d budget %d way %d: plan honours pins and budget",
						tag, seed, bi, way);
				if (st == ILP_OPTIMAL || gp)
					CHECK(plan_ok(&r), name);
				snprintf(name, sizeof name, "brute %s seed %d budget %d way %d: idle split adds up", tag, seed,
						bi, way);
				CHECK_NEAR(r.bubble_prep + r.bubble_imb + r.bubble_rc + r.useful, r.makespan, 1e-9, name); /* relative to the makespan: the idle time may be 0 */
				nsolved++;
			}
			ilp_free(&r);
		}
	}
}

static void run_case(const char *tag, int seed)
{
	run_case_with(tag, seed, brute);
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
	/* the per-stage enumeration agrees with the per-layer one where both reach */
	int agree = 1;
	for (int i = 0; i < 6; i++, seed++) {
		pins.n = 0;
		make_instance_t(6 + i % 2, 2, 1 + i % 2, 2, i % 2, i % 2 ? SCHED_INTERLEAVED : SCHED_1F1B, i % 3 ? 2 : -1);
		if (i % 3 == 2)
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_RECOMPUTE, 1, 3, 0, RC_FULL};
		double m1, p1, m2, p2;
		ec.budget = INFINITY;
		brute(&m1, &p1);
		ec.budget = m1 + (p1 - m1) * 0.5;
		double a = brute(&m1, &p1), b = brute2(&m2, &p2);
		agree &= (a == INFINITY && b == INFINITY) || fabs(a - b) <= 1e-12 * a;
		agree &= fabs(m1 - m2) <= 1e-12 * m1;
	}
	CHECK(agree, "brute: the per-stage enumeration agrees with the per-layer one");
	/* the chunk model at the sizes where it is its own problem: 8 to 10 layers of two kinds
	 * on 2 or 3 stages with vpp 2 (and 2 stages with vpp 3), an MTP layer now and then;
	 * a uniform tail after a mixed head (the chunk DP's rounds form), or kinds throughout
	 * (its round-starts form); without pins, with recompute pins in the head or the tail,
	 * a stage pin, a stage's layer count */
	for (int i = 0; i < 24; i++, seed++) {
		int v = i % 6 == 5 ? 3 : 2, p = v == 3 ? 2 : 2 + i % 2, L = 8 + i % 3, tail = i % 4 == 3 ? -1 : irand(0, p);
		if (v == 3 || p == 3)
			L = L > 9 ? 9 : L;
		make_instance_t(L, p, v, 2, i % 3 == 0, SCHED_INTERLEAVED, tail);
		pins.n = 0;
		const char *tag = tail >= 0 ? "mixed-tail" : "mixed";
		switch (i % 8) {
		case 1:
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_RECOMPUTE, 0, 1, 0, irand(0, 2)};
			tag = "pins-head-recompute";
			break;
		case 2:
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_RECOMPUTE, L - 3, L - 1, 0, irand(1, 2)};
			tag = "pins-tail-recompute";
			break;
		case 4: /* a suffix on the last stage: the last chunk holds it */
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_STAGE, L - 1 - i % 3, L, p - 1, 0};
			tag = "pins-stage-suffix";
			break;
		case 5: /* in round 0's reach */
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_STAGE, 1, 2, 1, 0};
			tag = "pins-stage-head";
			break;
		case 7: /* in the tail, not a suffix: the chunk DP enumerates round starts */
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_STAGE, L - 4, L - 3, 0, 0};
			tag = "pins-stage-tail";
			break;
		case 6:
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_LAYERS, 0, 0, 0, v + 1};
			tag = "pins-count";
			break;
		default:
			break;
		}
		char name[64];
		snprintf(name, sizeof name, "vpp%d-p%d-L%d-%s", v, p, L, tag);
		run_case_with(name, seed, brute2);
	}
	/* vpp 3 with a suffix of two or three layers pinned to the last stage: the rounds form
	 * gives the last chunk the suffix and shares the rest of the tail evenly */
	for (int i = 0; i < 4; i++, seed++) {
		make_instance_t(9, 2, 3, 2, i % 2, SCHED_INTERLEAVED, irand(0, 2));
		pins.n = 0;
		pins.pin[pins.n++] = (ilp_pin){ILP_PIN_STAGE, 7 - i % 2, 9, 1, 0};
		run_case_with("vpp3-p2-L9-pins-stage-suffix", seed, brute2);
	}
	/* a head longer than p (DeepSeek-V3's three dense layers on two stages): the chunk DP
	 * places round 0, then rounds 1, 2, ... one by one while they start inside the head, the
	 * rest as a tail count; with vpp 2 to 4, an MTP layer now and then, and pins in the head,
	 * on a suffix and on a stage's count */
	for (int i = 0; i < 16; i++, seed++) {
		int v = 2 + i % 3, L = v == 4 ? 9 : 8 + i % 2, head = 3 + i % 3;
		if (v == 3 && L > 9)
			L = 9;
		make_instance_t(L, 2, v, 2, i % 4 == 1, SCHED_INTERLEAVED, head);
		pins.n = 0;
		const char *tag = "head";
		switch (i % 5) {
		case 1:
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_STAGE, 1, 3, 1, 0};
			tag = "head-pins-stage";
			break;
		case 2:
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_STAGE, L - 2, L, 1, 0};
			tag = "head-pins-suffix";
			break;
		case 3:
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_RECOMPUTE, 2, 4, 0, irand(0, 2)};
			tag = "head-pins-recompute";
			break;
		case 4:
			pins.pin[pins.n++] = (ilp_pin){ILP_PIN_LAYERS, 0, 0, 1, v + 1 + i % 2};
			tag = "head-pins-count";
			break;
		default:
			break;
		}
		char name[64];
		snprintf(name, sizeof name, "vpp%d-p2-L%d-%s%d", v, L, tag, head);
		run_case_with(name, seed, brute2);
	}
	CHECK(nsolved > 100 && ninfeasible > 20, "brute: the cases cover both feasible and infeasible budgets");
	printf("  %d feasible and %d infeasible comparisons (%d solves)\n", nsolved, ninfeasible, nways);
	return check_done();
}
