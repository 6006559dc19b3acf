/* ilp_opts.c - the choices the ILP picks from, and the DP that bounds it.
 *
 * Stage model (vpp = 1, or one kind of layer everywhere): an option is "stage s holds
 * layers [a, b)" with the fastest recompute mix that fits (ilp_knap); options of
 * consecutive stages chain a -> b like arcs of a path from layer 0 to layer L. On this
 * model the makespan cM * max T + h(sum g) is solved exactly by a DP per threshold on
 * max T (the "fixed T" idea): the DP gives the ILP its optimum as a warm start and a
 * lower-bound cut, and removes every option that cannot be part of a better plan.
 *
 * Chunk model (vpp > 1 with kinds or pins that make chunk positions matter): an option is
 * "chunk j holds [a, b) with this recompute choice of its free layers"; a stage's memory
 * and time are sums over its chunks, so the knapsack is left to the ILP (per-chunk
 * Pareto points of bytes saved vs. seconds added are its columns). The chunk DP
 * (ilp_cdp.c) runs first: its plan is the warm start, its bounds prune the options and,
 * when its rounds form applies and it was exhaustive, the model is posed per stage
 * instead (the round model: round 0's chunk and a count of tail layers, with the
 * knapsack's mix, like the stage model). */
#include "solve/ilp_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ilp_should_stop(ilp_inst *in)
{
	if (in->stop)
		return 1;
	if (in->prm->cancel && atomic_load(in->prm->cancel))
		in->stop = 1;
	else if (in->prm->time_limit_ms > 0 && ilp_ms_since(&in->t0) > in->prm->time_limit_ms)
		in->stop = 1;
	return in->stop;
}

void ilp_range_counts(const ilp_inst *in, int a, int b, int last, int (*fixed)[RC_COUNT], int *nfree)
{
	memset(fixed, 0, sizeof(int) * MODEL_MAX_KINDS * RC_COUNT);
	memset(nfree, 0, sizeof(int) * MODEL_MAX_KINDS);
	if (in->virt) { /* one pseudo-kind: that of layer 0 */
		int k = model_layer_kind(in->m, 0);
		if (in->rcpin[0] >= 0)
			fixed[k][in->rcpin[0]] = b - a;
		else
			nfree[k] = b - a;
	} else {
		for (int k = 0; k < in->nk; k++) {
			for (int mode = 0; mode < RC_COUNT; mode++)
				fixed[k][mode] = ilp_cnt(in, k * 4 + mode, a, b);
			nfree[k] = ilp_cnt(in, k * 4 + ILP_FREE, a, b);
		}
	}
	if (last && in->mtp > 0)
		nfree[in->mtp_kind] += in->mtp;
}

/* 1: [a, b) may go on (a chunk of) stage st as far as stage pins go; 0: not this b, a
 * longer range may do; -1: no longer range can. A stage model range must hold every
 * layer pinned to its stage. On the chunk model a pinned block lies wholly inside one
 * chunk of its stage, since the chunks between two chunks of a stage are not empty. */
int ilp_stage_pins_ok(const ilp_inst *in, int st, int a, int b)
{
	if (!in->has_stage_pins)
		return 1;
	for (int l = a; l < b; l++)
		if (in->stpin[l] >= 0 && in->stpin[l] != st)
			return -1; /* holds a layer pinned elsewhere: longer ranges do too */
	if (in->chunk_model) {
		if (a > 0 && in->stpin[a] == st && in->stpin[a - 1] == st)
			return -1; /* would start inside a pinned block */
		return b < in->L && in->stpin[b] == st && in->stpin[b - 1] == st ? 0 : 1;
	}
	for (int l = 0; l < a; l++)
		if (in->stpin[l] == st)
			return -1;
	for (int l = b; l < in->L; l++)
		if (in->stpin[l] == st)
			return 0;
	return 1;
}

void ilp_prune_dead(ilp_inst *in, int units)
{
	int W = in->L + 1;
	char *fin = calloc((size_t)(units + 1) * W, 1);
	char *keep = calloc((size_t)in->nopt + 1, 1);
	if (!fin || !keep) {
		free(fin);
		free(keep);
		return; /* dead ends only cost time, never correctness */
	}
	fin[units * W + in->L] = 1;
	for (int i = in->nopt - 1; i >= 0; i--) { /* options are in unit order */
		const ilp_opt *o = &in->opt[i];
		if (fin[(o->unit + 1) * W + o->b]) {
			keep[i] = 1;
			fin[o->unit * W + o->a] = 1;
		}
	}
	/* forward: the start must be reachable too */
	char *reach = calloc((size_t)(units + 1) * W, 1);
	if (reach) {
		reach[0] = 1;
		for (int i = 0; i < in->nopt; i++) {
			const ilp_opt *o = &in->opt[i];
			if (keep[i] && !reach[o->unit * W + o->a])
				keep[i] = 0;
			if (keep[i])
				reach[(o->unit + 1) * W + o->b] = 1;
		}
	}
	int n = 0;
	for (int i = 0; i < in->nopt; i++)
		if (keep[i])
			in->opt[n++] = in->opt[i];
	in->nopt = n;
	free(reach);
	free(fin);
	free(keep);
}

/* Chunk model: each stage's price when empty; a chunk's option holds its share over it. */
static void chunk_consts(ilp_inst *in)
{
	ilp_mix empty;
	memset(&empty, 0, sizeof empty);
	for (int st = 0; st < in->p; st++)
		ilp_price_stage(in->ec, in->nk, st, &empty, &in->cst[st]);
}

/* The option of chunk j holding [a, b) with mix x: its share of its stage's time, g and
 * the memory that adds up over chunks (the transient buffer is W_s's, the constants the
 * stage's). Returns the chunk's memory priced alone as a stage (it must fit by itself). */
static double chunk_opt(const ilp_inst *in, int j, int a, int b, const ilp_mix *x, ilp_opt *o)
{
	const int st = j % in->p;
	const ilp_price *c0 = &in->cst[st];
	ilp_price q;
	memset(o, 0, sizeof *o);
	o->mix = *x;
	ilp_price_stage(in->ec, in->nk, st, x, &q);
	o->q.f = q.f - c0->f;
	o->q.b = q.b - c0->b;
	o->q.w = q.w - c0->w;
	o->q.rc = q.rc;
	o->q.work = q.work;
	o->q.mem = q.mem - q.work - c0->mem;
	o->st = st;
	o->unit = j;
	o->a = a;
	o->b = b;
	o->T = o->q.f + o->q.b;
	o->g = ilp_form_g(&in->form, &o->q);
	return q.mem;
}

static int chunk_options(ilp_inst *in)
{
	const int p = in->p, L = in->L, P = in->P, W = L + 1;
	char *reach = calloc((size_t)(P + 1) * W, 1);
	if (!reach)
		return -1;
	reach[0] = 1;
	int fixed[MODEL_MAX_KINDS][RC_COUNT], nfree[MODEL_MAX_KINDS];
	for (int j = 0; j < P; j++) {
		const int st = j % p;
		for (int a = 0; a < L; a++) {
			if (!reach[j * W + a])
				continue;
			if (ilp_tick(in, 1))
				goto cut;
			int bmax = L - (P - 1 - j), bmin = j == P - 1 ? L : a + 1;
			for (int b = bmin; b <= bmax; b++) {
				if (in->cnt_pin[st] >= 0 && b - a > in->cnt_pin[st] - (in->v - 1))
					break;
				int ok = ilp_stage_pins_ok(in, st, a, b);
				if (ok < 0)
					break;
				if (!ok)
					continue;
				ilp_range_counts(in, a, b, j == P - 1, fixed, nfree);
				ilp_price q0;
				if (ilp_tlower(in, st, fixed, nfree, &q0) > in->tau_max)
					break;
				int present[MODEL_MAX_KINDS], np = 0, any = 0;
				for (int k = 0; k < in->nk; k++)
					if (nfree[k] > 0)
						present[np++] = k;
				for (unsigned set = 0; set < (1u << np); set++) {
					int kinds[MODEL_MAX_KINDS], nks = 0;
					for (int i = 0; i < np; i++)
						if (set & (1u << i))
							kinds[nks++] = present[i];
					ilp_cpt *pts = NULL, zero;
					int npt = 1;
					memset(&zero, 0, sizeof zero);
					if (nks) {
						npt = ilp_knap_combine(&in->knap, kinds, nks, nfree, &pts);
						if (npt < 0)
							goto cut;
					}
					for (int i = 0; i < npt; i++) {
						const ilp_cpt *c = nks ? &pts[i] : &zero;
						int used = 1; /* every kind of the subset recomputes something */
						for (int t = 0; t < nks; t++)
							if (c->sel[kinds[t]] + c->full[kinds[t]] == 0)
								used = 0;
						if (!used)
							continue;
						ilp_mix x;
						memset(&x, 0, sizeof x);
						for (int k = 0; k < in->nk; k++) {
							for (int mode = 0; mode < RC_COUNT; mode++)
								x.n[k][mode] = fixed[k][mode];
							x.n[k][RC_SELECTIVE] += c->sel[k];
							x.n[k][RC_FULL] += c->full[k];
							x.n[k][RC_NONE] += nfree[k] - c->sel[k] - c->full[k];
						}
						ilp_opt o;
						if (chunk_opt(in, j, a, b, &x, &o) > in->ec->budget)
							continue;
						if (ilp_add_opt(in, &o) || ilp_tick(in, 1)) {
							free(pts);
							goto cut;
						}
						any = 1;
					}
					free(pts);
				}
				if (!any)
					break; /* nothing fits even alone: longer chunks do not either */
				reach[(j + 1) * W + b] = 1;
			}
		}
	}
	free(reach);
	ilp_prune_dead(in, P);
	return 0;
cut: /* stopped, or at the memory cap: the options are not all there */
	free(reach);
	in->opts_cut = 1;
	return in->stop || in->mem_hit ? 0 : -1;
}

/* Min sum of g over paths of options with T <= tau (stage model): fills path[st]; returns
 * the sum or INFINITY. F and arg are scratch of (p + 1) * (L + 1). */
static double dp_path(const ilp_inst *in, double tau, double *F, int *arg, int *path, double *tmax)
{
	const int p = in->p, W = in->L + 1;
	for (int i = 0; i < (p + 1) * W; i++)
		F[i] = INFINITY;
	F[0] = 0;
	for (int i = 0; i < in->nopt; i++) {
		const ilp_opt *o = &in->opt[i];
		if (o->T > tau)
			continue;
		double v = F[o->st * W + o->a] + o->g;
		int at = (o->st + 1) * W + o->b;
		if (v < F[at]) {
			F[at] = v;
			arg[at] = i;
		}
	}
	double best = F[p * W + in->L];
	if (best == INFINITY)
		return best;
	*tmax = 0;
	for (int st = p - 1, x = in->L; st >= 0; st--) {
		int i = arg[(st + 1) * W + x];
		path[st] = i;
		if (in->opt[i].T > *tmax)
			*tmax = in->opt[i].T;
		x = in->opt[i].a;
	}
	return best;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The threshold DP: exact optimum of the stage model, then pruning by bounds. */
static int stage_dp(ilp_inst *in)
{
	const int p = in->p, W = in->L + 1, n = in->nopt;
	double *F = malloc((size_t)(p + 1) * W * sizeof *F), *G = malloc((size_t)(p + 1) * W * sizeof *G);
	int *arg = malloc((size_t)(p + 1) * W * sizeof *arg), *path = malloc((size_t)p * sizeof *path);
	int *bestp = malloc((size_t)p * sizeof *bestp);
	double *ts = malloc((size_t)(n ? n : 1) * sizeof *ts);
	int rc = -1;
	if (!F || !G || !arg || !path || !bestp || !ts)
		goto out;
	rc = 0;
	for (int i = 0; i < n; i++)
		ts[i] = in->opt[i].T;
	qsort(ts, (size_t)n, sizeof *ts, cmp_double);
	int nt = 0;
	for (int i = 0; i < n; i++)
		if (!nt || ts[i] > ts[nt - 1])
			ts[nt++] = ts[i];
	double tmax, gmin = dp_path(in, INFINITY, F, arg, path, &tmax);
	if (gmin == INFINITY)
		goto out; /* no plan: the caller reports infeasible */
	/* bottleneck: the least threshold that still admits a path */
	int lo = 0, hi = nt - 1;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (dp_path(in, ts[mid], F, arg, path, &tmax) < INFINITY)
			hi = mid;
		else
			lo = mid + 1;
	}
	in->tau_lb = ts[lo];
	const ilp_form *f = &in->form;
	double best = INFINITY;
	int exact = 1, steps = 0;
	for (int i = lo; i < nt; i++) {
		if (f->cM * ts[i] + ilp_form_h(f, gmin) >= best * (1 - 1e-12))
			break; /* no larger threshold can do better */
		if (++steps > 4000 || ilp_should_stop(in)) {
			exact = 0;
			break;
		}
		double g = dp_path(in, ts[i], F, arg, path, &tmax);
		if (g == INFINITY)
			continue;
		double v = f->cM * tmax + ilp_form_h(f, g);
		if (v < best) {
			best = v;
			memcpy(bestp, path, (size_t)p * sizeof *path);
		}
	}
	if (best == INFINITY)
		goto out;
	in->ub = best;
	if (exact)
		in->lb = best;
	/* least sum of g before (F) and after (G) every position, then prune */
	dp_path(in, INFINITY, F, arg, path, &tmax);
	for (int i = 0; i < (p + 1) * W; i++)
		G[i] = INFINITY;
	G[p * W + in->L] = 0;
	for (int i = n - 1; i >= 0; i--) {
		const ilp_opt *o = &in->opt[i];
		double v = G[(o->st + 1) * W + o->b] + o->g;
		if (v < G[o->st * W + o->a])
			G[o->st * W + o->a] = v;
	}
	int *map = realloc(arg, (size_t)(n > (p + 1) * W ? n : (p + 1) * W) * sizeof *map);
	if (!map) {
		rc = -1;
		goto out;
	}
	arg = map; /* old index -> new index */
	int m = 0;
	for (int i = 0; i < n; i++) {
		const ilp_opt *o = &in->opt[i];
		double t = o->T > in->tau_lb ? o->T : in->tau_lb;
		double lbv = f->cM * t + ilp_form_h(f, F[o->st * W + o->a] + o->g + G[(o->st + 1) * W + o->b]);
		int on_path = bestp[o->st] == i;
		map[i] = -1;
		if (on_path || lbv <= best * (1 + 1e-9)) {
			map[i] = m;
			in->opt[m++] = in->opt[i];
		}
	}
	in->nopt = m;
	in->warm = malloc((size_t)p * sizeof *in->warm);
	if (in->warm)
		for (int st = 0; st < p; st++)
			in->warm[st] = map[bestp[st]];
out:
	free(F);
	free(G);
	free(arg);
	free(path);
	free(bestp);
	free(ts);
	return rc;
}

/* Least time (fwd + bwd, no recomputation) of one main layer: every chunk holds one. */
static double least_layer_time(const ilp_inst *in)
{
	double t = INFINITY;
	for (int l = 0; l < in->L; l++) {
		const eval_kind_cost *q = &in->ec->kind[model_layer_kind(in->m, l)];
		double tl = q->fwd + q->bwd + (in->rcpin[l] > 0 ? q->rc[in->rcpin[l]] : 0);
		t = tl < t ? tl : t;
	}
	return t;
}

/* Is the option's chunk one the DP's bound passes found on a plan as good as its best
 * (always, when they did not run)? */
static int on_good_stage(const ilp_inst *in, const ilp_opt *o)
{
	if (!in->dp_rng)
		return 1;
	int lo = 0, hi = in->dp_nrng, key[4] = {o->unit, o->a, o->b, o->tail};
	while (lo < hi) {
		int mid = (lo + hi) / 2, c = 0;
		for (int i = 0; i < 4 && !c; i++)
			c = (in->dp_rng[4 * mid + i] > key[i]) - (in->dp_rng[4 * mid + i] < key[i]);
		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Round model: the option of stage st holding [a, b) in round 0 and t layers of the
 * tail's kind in its later chunks, with the fastest mix that fits; -1 if nothing fits. */
static int round_opt(ilp_inst *in, int st, int a, int b, int t, ilp_opt *o)
{
	int fixed[MODEL_MAX_KINDS][RC_COUNT], nfree[MODEL_MAX_KINDS];
	ilp_range_counts(in, a, b, st == in->p - 1, fixed, nfree);
	int k = model_layer_kind(in->m, in->L - 1), mode = in->rcpin[in->L - 1];
	if (mode >= 0)
		fixed[k][mode] += t;
	else
		nfree[k] += t;
	memset(o, 0, sizeof *o);
	if (ilp_knap_best(&in->knap, st, (const int(*)[RC_COUNT])fixed, nfree, &o->mix, &o->q))
		return -1;
	o->st = o->unit = st;
	o->a = a;
	o->b = b;
	o->tail = t;
	o->T = o->q.f + o->q.b;
	o->g = ilp_form_g(&in->form, &o->q);
	return 0;
}

/* Round model: one option per stage the DP's bound passes kept, and its plan as warm. */
static int round_options(ilp_inst *in)
{
	const int p = in->p;
	for (int i = 0; i < in->dp_nrng; i++) {
		const int *r = &in->dp_rng[4 * i];
		ilp_opt o;
		if (round_opt(in, r[0], r[1], r[2], r[3], &o))
			continue; /* cannot happen: the DP priced this stage the same way */
		if (ilp_add_opt(in, &o))
			return -1;
	}
	int *warm = malloc((size_t)p * sizeof *warm);
	if (!warm)
		return -1;
	for (int s = 0; s < p; s++) {
		int a = in->dp_cut[s], b = in->dp_cut[s + 1], t = 0;
		for (int j = s + p; j < in->P; j += p)
			t += in->dp_cut[j + 1] - in->dp_cut[j];
		int at = -1;
		for (int i = 0; i < in->nopt && at < 0; i++)
			if (in->opt[i].unit == s && in->opt[i].a == a && in->opt[i].b == b && in->opt[i].tail == t)
				at = i;
		ilp_opt o;
		if (at < 0 && !round_opt(in, s, a, b, t, &o)) {
			if (ilp_add_opt(in, &o)) {
				free(warm);
				return -1;
			}
			at = in->nopt - 1;
		}
		if (at < 0) {
			free(warm);
			return 0;
		}
		warm[s] = at;
	}
	free(in->warm);
	in->warm = warm;
	return 0;
}

int ilp_chunk_warm(ilp_inst *in)
{
	const int p = in->p, P = in->P, v = in->v;
	const ilp_form *f = &in->form;
	/* drop options that no plan better than the DP's contains: the stage's other chunks
	 * hold a layer each at least, and the rest of the pipeline recomputes nothing at best */
	double tmin = least_layer_time(in), tmtp = 0;
	if (in->mtp > 0) {
		const eval_kind_cost *q = &in->ec->kind[in->mtp_kind];
		tmtp = in->mtp * (q->fwd + q->bwd);
	}
	int n = 0;
	for (int i = 0; i < in->nopt; i++) {
		const ilp_opt *o = &in->opt[i];
		double t = in->cst[o->st].f + in->cst[o->st].b + o->T + (v - 1) * tmin +
			(o->st == p - 1 && o->unit != P - 1 ? tmtp : 0);
		int fixed[MODEL_MAX_KINDS][RC_COUNT], nfree[MODEL_MAX_KINDS];
		ilp_range_counts(in, o->a, o->b, o->unit == P - 1, fixed, nfree);
		double rc = o->q.rc; /* recompute beyond the pinned modes (those are in g0) */
		for (int k = 0; k < in->nk; k++)
			rc -= fixed[k][RC_SELECTIVE] * in->ec->kind[k].rc[RC_SELECTIVE] +
				fixed[k][RC_FULL] * in->ec->kind[k].rc[RC_FULL];
		double lbv = f->cM * (t > in->tau_lb ? t : in->tau_lb) + ilp_form_h(f, in->g0 + f->gB * (rc > 0 ? rc : 0));
		if (t <= in->tau_max && lbv <= in->ub * (1 + 1e-9) && on_good_stage(in, o))
			in->opt[n++] = *o;
	}
	in->nopt = n;
	ilp_prune_dead(in, P);
	/* the DP's plan as options: each stage's fastest fitting mix, its free selective and
	 * full layers handed to the stage's chunks in order */
	int *warm = malloc((size_t)P * sizeof *warm);
	if (!warm)
		return -1;
	for (int s = 0; s < p; s++) {
		int fx[MODEL_MAX_KINDS][RC_COUNT], nf[MODEL_MAX_KINDS], fixed[MODEL_MAX_KINDS][RC_COUNT],
			nfree[MODEL_MAX_KINDS], sel[MODEL_MAX_KINDS], full[MODEL_MAX_KINDS];
		memset(fx, 0, sizeof fx);
		memset(nf, 0, sizeof nf);
		for (int j = s; j < P; j += p) {
			ilp_range_counts(in, in->dp_cut[j], in->dp_cut[j + 1], j == P - 1, fixed, nfree);
			for (int k = 0; k < in->nk; k++) {
				nf[k] += nfree[k];
				for (int mode = 0; mode < RC_COUNT; mode++)
					fx[k][mode] += fixed[k][mode];
			}
		}
		ilp_mix mix;
		ilp_price q;
		if (ilp_knap_best(&in->knap, s, (const int(*)[RC_COUNT])fx, nf, &mix, &q)) {
			free(warm); /* cannot happen: the DP priced this stage the same way */
			return 0;
		}
		for (int k = 0; k < in->nk; k++) {
			sel[k] = mix.n[k][RC_SELECTIVE] - fx[k][RC_SELECTIVE];
			full[k] = mix.n[k][RC_FULL] - fx[k][RC_FULL];
		}
		for (int j = s; j < P; j += p) {
			int a = in->dp_cut[j], b = in->dp_cut[j + 1];
			ilp_range_counts(in, a, b, j == P - 1, fixed, nfree);
			ilp_mix x;
			memset(&x, 0, sizeof x);
			for (int k = 0; k < in->nk; k++) {
				int nfu = full[k] < nfree[k] ? full[k] : nfree[k];
				int nse = sel[k] < nfree[k] - nfu ? sel[k] : nfree[k] - nfu;
				for (int mode = 0; mode < RC_COUNT; mode++)
					x.n[k][mode] = fixed[k][mode];
				x.n[k][RC_FULL] += nfu;
				x.n[k][RC_SELECTIVE] += nse;
				x.n[k][RC_NONE] += nfree[k] - nfu - nse;
				full[k] -= nfu;
				sel[k] -= nse;
			}
			ilp_opt o;
			chunk_opt(in, j, a, b, &x, &o);
			int at = -1;
			for (int i = 0; i < in->nopt && at < 0; i++) {
				const ilp_opt *e = &in->opt[i];
				if (e->unit == j && e->a == a && e->b == b && !memcmp(&e->mix, &x, sizeof x))
					at = i;
			}
			if (at < 0) {
				if (ilp_add_opt(in, &o)) {
					free(warm);
					return -1;
				}
				at = in->nopt - 1;
			}
			warm[j] = at;
		}
	}
	free(in->warm);
	in->warm = warm;
	return 0;
}

/* Was the solve cancelled (not just out of time)? */
static int cancelled(const ilp_inst *in)
{
	return in->prm->cancel && atomic_load(in->prm->cancel);
}

/* Chunk model, options cut short: no model for GLPK, only a plan: the DP's, or else the
 * plan's own split with the knapsack's mixes (when it fits). 0, or -1. */
static int chunk_fallback(ilp_inst *in)
{
	in->nopt = 0;
	if (!in->dp_cut && in->ub0 < INFINITY) {
		in->dp_cut = malloc((size_t)(in->P + 1) * sizeof *in->dp_cut);
		if (!in->dp_cut)
			return -1;
		in->dp_cut[0] = 0;
		for (int c = 0; c < in->P; c++)
			in->dp_cut[c + 1] = in->dp_cut[c] + in->base_chunk[c];
		in->ub = in->ub0;
	}
	in->grace = 1; /* a few knapsacks, after a stop too */
	int rc = in->dp_cut ? ilp_chunk_warm(in) : 0;
	in->grace = 0;
	return rc;
}

int ilp_build_options(ilp_inst *in, char *why, size_t whylen)
{
	int rc;
	if (in->chunk_model) {
		chunk_consts(in);
		rc = in->prm->no_dp || ilp_should_stop(in) ? 0 : ilp_chunk_dp(in);
		if (!rc && in->dp_rng && in->dp_rounds) {
			in->round_model = 1; /* the DP's rounds form, posed per stage */
			rc = round_options(in);
		} else {
			/* a DP that searched everything and found nothing has proven there is no plan */
			if (!rc && !(in->dp_exact && !in->dp_cut))
				rc = chunk_options(in);
			if (!rc && in->opts_cut && !(cancelled(in) && !in->dp_cut))
				rc = chunk_fallback(in);
			else if (!rc && in->dp_cut)
				rc = ilp_chunk_warm(in);
		}
		if (rc && (in->mem_hit || (in->stop && !cancelled(in)))) { /* the round model did not fit the cap */
			in->round_model = 0;
			in->opts_cut = 1;
			rc = chunk_fallback(in);
		}
		if (!rc && !in->warm && !in->prm->no_dp && ilp_should_stop(in) && !cancelled(in)) {
			in->opts_cut = 1; /* out of time before the DP had a plan: the plan's own split */
			rc = chunk_fallback(in);
		}
	} else {
		rc = ilp_stage_first(in);
		if (!rc)
			rc = ilp_stage_options(in);
		if (!rc && in->opts_many && !in->opts_cut) {
			in->nopt = 0;
			rc = ilp_stage_exact(in);
		}
		if (!rc && !in->prm->no_dp && in->nopt > 0 && !in->opts_cut && !in->opts_many &&
				!ilp_should_stop(in) && stage_dp(in)) {
			snprintf(why, whylen, "out of memory in the DP bounds");
			return -1;
		}
		/* no plan of the DP's (cut short, or time up before it ran): the first plan, unless
		 * the solve was cancelled (a cancel keeps only what the search itself found) */
		if (!rc && !in->warm && !in->prm->no_dp && (in->opts_cut || in->opts_many || ilp_should_stop(in)) &&
				!cancelled(in))
			rc = ilp_stage_first_options(in);
	}
	if (rc) {
		snprintf(why, whylen, "out of memory while building the ILP");
		return -1;
	}
	return 0;
}
