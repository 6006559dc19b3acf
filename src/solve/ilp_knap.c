/* ilp_knap.c - the recompute knapsack of one stage: which free layers to recompute
 * (selective or full) so the stage fits its budget at the least added backward time.
 *
 * Layers of one kind are interchangeable, so a kind's choices are just how many layers
 * go selective and how many full; their (bytes saved, seconds added) Pareto front is
 * tiny and cached per (kind, count). A stage with several kinds combines the fronts of
 * the kinds it recomputes; which kinds recompute also sets the transient "work" buffer
 * (a recomputed layer is materialised whole), so each subset of kinds is tried. */
#include "solve/ilp_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ilp_knap_init(ilp_knap *k, const eval_costs *ec, int nkinds, int maxn)
{
	k->nkinds = nkinds;
	k->maxn = maxn;
	k->ec = ec;
	k->f = calloc((size_t)nkinds * (maxn + 1), sizeof *k->f);
	return k->f ? 0 : -1;
}

void ilp_knap_free(ilp_knap *k)
{
	if (k->f)
		for (int i = 0; i < k->nkinds * (k->maxn + 1); i++)
			free(k->f[i].pt);
	free(k->f);
	k->f = NULL;
}

static int by_save_desc(const void *a, const void *b)
{
	const ilp_cpt *x = a, *y = b;
	if (x->save != y->save)
		return x->save > y->save ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

/* Keep the points no other point beats on both axes (more saved, less time), in
 * ascending order of save. Returns the count. */
static int pareto(ilp_cpt *pts, int n)
{
	qsort(pts, (size_t)n, sizeof *pts, by_save_desc);
	int out = 0;
	double tmin = INFINITY;
	for (int i = 0; i < n; i++)
		if (pts[i].time < tmin) {
			tmin = pts[i].time;
			pts[out++] = pts[i];
		}
	for (int i = 0; i < out / 2; i++) {
		ilp_cpt t = pts[i];
		pts[i] = pts[out - 1 - i];
		pts[out - 1 - i] = t;
	}
	return out;
}

const ilp_front *ilp_knap_front(ilp_knap *k, int kind, int n)
{
	if (n > k->maxn)
		return NULL;
	ilp_front *fr = &k->f[kind * (k->maxn + 1) + n];
	if (fr->pt)
		return fr;
	const eval_kind_cost *q = &k->ec->kind[kind];
	int cnt = (n + 1) * (n + 2) / 2;
	ilp_cpt *pts = calloc((size_t)cnt, sizeof *pts);
	if (!pts)
		return NULL;
	int i = 0;
	for (int full = 0; full <= n; full++)
		for (int sel = 0; sel + full <= n; sel++) {
			pts[i].save = sel * (q->act[RC_NONE] - q->act[RC_SELECTIVE]) +
				full * (q->act[RC_NONE] - q->act[RC_FULL]);
			pts[i].time = sel * q->rc[RC_SELECTIVE] + full * q->rc[RC_FULL];
			pts[i].sel[kind] = (int16_t)sel;
			pts[i].full[kind] = (int16_t)full;
			i++;
		}
	fr->npt = pareto(pts, cnt);
	fr->pt = pts;
	return fr;
}

int ilp_knap_combine(ilp_knap *k, const int *kinds, int nk, const int *nfree, ilp_cpt **out)
{
	const ilp_front *fr = ilp_knap_front(k, kinds[0], nfree[kinds[0]]);
	if (!fr)
		return -1;
	int n = fr->npt;
	ilp_cpt *cur = malloc((size_t)n * sizeof *cur);
	if (!cur)
		return -1;
	memcpy(cur, fr->pt, (size_t)n * sizeof *cur);
	for (int j = 1; j < nk; j++) {
		const ilp_front *g = ilp_knap_front(k, kinds[j], nfree[kinds[j]]);
		ilp_cpt *nx = g ? malloc((size_t)n * g->npt * sizeof *nx) : NULL;
		if (!nx) {
			free(cur);
			return -1;
		}
		int c = 0;
		for (int a = 0; a < n; a++)
			for (int b = 0; b < g->npt; b++) {
				nx[c] = cur[a];
				nx[c].save += g->pt[b].save;
				nx[c].time += g->pt[b].time;
				nx[c].sel[kinds[j]] = g->pt[b].sel[kinds[j]];
				nx[c].full[kinds[j]] = g->pt[b].full[kinds[j]];
				c++;
			}
		free(cur);
		cur = nx;
		n = pareto(nx, c);
	}
	*out = cur;
	return n;
}

/* Least time with save >= need over the combined front of `kinds`; -1 if none. */
static int combine(ilp_knap *k, const int *kinds, int nk, const int *nfree, double need, ilp_cpt *best,
		double *maxsave)
{
	ilp_cpt *cur;
	int n = ilp_knap_combine(k, kinds, nk, nfree, &cur);
	if (n < 0)
		return -1;
	*maxsave = n ? cur[n - 1].save : 0;
	int lo = 0, hi = n; /* first point with save >= need */
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (cur[mid].save >= need)
			hi = mid;
		else
			lo = mid + 1;
	}
	int rc = -1;
	if (lo < n) {
		*best = cur[lo];
		rc = 0;
	}
	free(cur);
	return rc;
}

int ilp_knap_best(ilp_knap *k, int st, const int (*fixed)[RC_COUNT], const int *nfree, ilp_mix *mix,
		ilp_price *price)
{
	const eval_costs *ec = k->ec;
	memset(mix, 0, sizeof *mix);
	int present[MODEL_MAX_KINDS], np = 0;
	for (int i = 0; i < k->nkinds; i++) {
		for (int mode = 0; mode < RC_COUNT; mode++)
			mix->n[i][mode] = fixed[i][mode];
		mix->n[i][RC_NONE] += nfree[i];
		if (nfree[i] > 0)
			present[np++] = i;
	}
	ilp_price q0;
	ilp_price_stage(ec, k->nkinds, st, mix, &q0);
	*price = q0;
	if (q0.mem <= ec->budget)
		return 0;
	double nin = ec->inflight[st], extra = 0;
	ilp_mix base_mix = *mix;
again:;
	double best_t = INFINITY, least = q0.mem;
	ilp_cpt best;
	for (unsigned set = 1; set < (1u << np); set++) {
		int kinds[MODEL_MAX_KINDS], nk = 0;
		double work = q0.work;
		for (int i = 0; i < np; i++)
			if (set & (1u << i)) {
				kinds[nk++] = present[i];
				if (ec->kind[present[i]].act[RC_NONE] > work)
					work = ec->kind[present[i]].act[RC_NONE];
			}
		double base = q0.mem - q0.work + work; /* memory before any saving */
		/* the search is a hair lenient; the exact price below decides */
		double need = nin > 0 ? (base - ec->budget - 1e-9 * fabs(base)) / nin + extra : INFINITY;
		ilp_cpt c;
		double maxsave = 0;
		int rc = combine(k, kinds, nk, nfree, need, &c, &maxsave);
		if (base - nin * maxsave < least)
			least = base - nin * maxsave;
		if (rc == 0 && c.time < best_t) {
			best_t = c.time;
			best = c;
		}
	}
	if (best_t == INFINITY) {
		price->mem = least;
		return -1;
	}
	for (int i = 0; i < np; i++) {
		int kd = present[i];
		mix->n[kd][RC_SELECTIVE] += best.sel[kd];
		mix->n[kd][RC_FULL] += best.full[kd];
		mix->n[kd][RC_NONE] -= best.sel[kd] + best.full[kd];
	}
	ilp_price_stage(ec, k->nkinds, st, mix, price);
	if (price->mem > ec->budget && nin > 0) {
		/* rounding put the exact price a hair over: ask for a little more saving */
		extra += (price->mem - ec->budget) / nin + 2e-9 * fabs(q0.mem) / nin;
		*mix = base_mix;
		*price = q0;
		goto again;
	}
	return 0;
}
