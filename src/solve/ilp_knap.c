/* ilp_knap.c - the recompute knapsack of one stage: which free layers to recompute
 * (selective or full) so the stage fits its budget at the least added backward time.
 *
 * Layers of one kind are interchangeable, so a kind's choices are just how many layers
 * go selective and how many full; their (bytes saved, seconds added) Pareto front is
 * small (about n + 1 points for n layers). The front of n layers is the Pareto front of
 * the front of n - 1 layers each extended by one layer (none, selective or full), so the
 * fronts of 0 .. n layers are built one from the other in time and memory linear in their
 * size, kept as counts only, in a pool per kind while the memory cap allows (past it a
 * front is rebuilt from the last one kept, slower but in bounded memory). A stage with
 * several kinds combines the fronts of the kinds it recomputes; which kinds recompute
 * also sets the transient "work" buffer (a recomputed layer is materialised whole), so
 * each subset of kinds is tried. Every loop counts its work for the stop checks. */
#include "solve/ilp_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KNAP_XCACHE (64u << 20) /* bytes of fronts kept with their values, at most */

/* A candidate point while a front is built. */
typedef struct {
	double save, time;
	ilp_kpt x;
} cand_t;

double ilp_kpt_save(const eval_kind_cost *q, ilp_kpt x)
{
	return x.sel * (q->act[RC_NONE] - q->act[RC_SELECTIVE]) + x.full * (q->act[RC_NONE] - q->act[RC_FULL]);
}

double ilp_kpt_time(const eval_kind_cost *q, ilp_kpt x)
{
	return x.sel * q->rc[RC_SELECTIVE] + x.full * q->rc[RC_FULL];
}

static int take(ilp_knap *k, size_t bytes)
{
	return k->in ? ilp_mem_take(k->in, bytes) : 0;
}

static void give(ilp_knap *k, size_t bytes)
{
	if (k->in)
		ilp_mem_give(k->in, bytes);
}

static int stopped(ilp_knap *k, long work)
{
	return k->in ? ilp_tick(k->in, work) : 0;
}

int ilp_knap_init(ilp_knap *k, const eval_costs *ec, int nkinds, int maxn, struct ilp_inst *in)
{
	memset(k, 0, sizeof *k);
	k->nkinds = nkinds;
	k->maxn = maxn;
	k->ec = ec;
	k->in = in;
	size_t slots = (size_t)nkinds * (maxn + 1);
	if (take(k, slots * (sizeof *k->xc + sizeof *k->xn)))
		return -1;
	k->xc = calloc(slots, sizeof *k->xc);
	k->xn = calloc(slots, sizeof *k->xn);
	if (!k->xc || !k->xn)
		return -1;
	for (int i = 0; i < nkinds; i++) {
		k->kf[i].top = -1;
		if (take(k, (size_t)(maxn + 2) * sizeof(int)))
			return -1;
		k->kf[i].off = malloc((size_t)(maxn + 2) * sizeof(int));
		if (!k->kf[i].off) {
			give(k, (size_t)(maxn + 2) * sizeof(int));
			return -1;
		}
	}
	return 0;
}

void ilp_knap_free(ilp_knap *k)
{
	size_t slots = (size_t)k->nkinds * (k->maxn + 1);
	for (size_t i = 0; k->xc && i < slots; i++)
		free(k->xc[i]);
	give(k, k->xbytes + (k->xc ? slots * (sizeof *k->xc + sizeof *k->xn) : 0));
	free(k->xc);
	free(k->xn);
	free(k->xscr);
	for (int i = 0; i < k->nkinds; i++) {
		if (k->kf[i].off)
			give(k, (size_t)(k->maxn + 2) * sizeof(int));
		give(k, k->kf[i].cap * sizeof(ilp_kpt));
		free(k->kf[i].off);
		free(k->kf[i].pool);
	}
	give(k, 2 * k->capscr * sizeof(ilp_kpt) + k->capcand * sizeof(cand_t));
	free(k->scr[0]);
	free(k->scr[1]);
	free(k->cand);
	memset(k, 0, sizeof *k);
}

/* Does a come before b in the order the Pareto scan takes: save descending, then time
 * ascending, then (for points of equal value) fewer full, then fewer selective layers? */
static int before(const cand_t *a, const cand_t *b)
{
	if (a->save != b->save)
		return a->save > b->save;
	if (a->time != b->time)
		return a->time < b->time;
	if (a->x.full != b->x.full)
		return a->x.full < b->x.full;
	return a->x.sel < b->x.sel;
}

/* Room for n candidates and for two fronts of n points (scratch). 0, or -1. */
static int room(ilp_knap *k, size_t n)
{
	if (n <= k->capcand)
		return 0;
	size_t cap = k->capcand ? k->capcand : 64;
	while (cap < n)
		cap *= 2;
	size_t more = (cap - k->capcand) * (sizeof(cand_t) + 2 * sizeof(ilp_kpt));
	if (take(k, more))
		return -1;
	cand_t *c = realloc(k->cand, cap * sizeof *c);
	if (c)
		k->cand = c;
	ilp_kpt *s0 = c ? realloc(k->scr[0], cap * sizeof *s0) : NULL;
	if (s0)
		k->scr[0] = s0;
	ilp_kpt *s1 = s0 ? realloc(k->scr[1], cap * sizeof *s1) : NULL;
	if (s1)
		k->scr[1] = s1;
	if (!s1) {
		give(k, more);
		return -1;
	}
	k->capcand = k->capscr = cap;
	return 0;
}

/* The front of one more layer than prev[0 .. n) (save ascending) into out; returns its
 * size, or -1. The three extended copies of prev are each in save order already (up to
 * rounding, which the insertion pass mends), so a merge replaces a sort. */
static int extend(ilp_knap *k, const eval_kind_cost *q, const ilp_kpt *prev, int n, ilp_kpt *out)
{
	if (room(k, 3 * (size_t)n))
		return -1;
	cand_t *c = k->cand;
	int at[3] = {n - 1, n - 1, n - 1}, m = 0;
	/* merged from the largest save down: the order of the scan */
	for (;;) {
		cand_t best;
		int pick = -1;
		for (int j = 0; j < 3; j++) {
			if (at[j] < 0)
				continue;
			cand_t y;
			y.x = prev[at[j]];
			y.x.sel = (int16_t)(y.x.sel + (j == 1));
			y.x.full = (int16_t)(y.x.full + (j == 2));
			y.save = ilp_kpt_save(q, y.x);
			y.time = ilp_kpt_time(q, y.x);
			if (pick < 0 || before(&y, &best)) {
				best = y;
				pick = j;
			}
		}
		if (pick < 0)
			break;
		at[pick]--;
		int i = m++;
		while (i > 0 && before(&best, &c[i - 1])) { /* rounding may leave a point out of place */
			c[i] = c[i - 1];
			i--;
		}
		c[i] = best;
	}
	if (stopped(k, 3L * n))
		return -1;
	int cnt = 0;
	double tmin = INFINITY;
	for (int i = 0; i < m; i++)
		if (c[i].time < tmin) {
			tmin = c[i].time;
			out[cnt++] = c[i].x;
		}
	for (int i = 0; i < cnt / 2; i++) {
		ilp_kpt t = out[i];
		out[i] = out[cnt - 1 - i];
		out[cnt - 1 - i] = t;
	}
	return cnt;
}

/* Keep front n of kind kd (points in pts) in the pool when the cap allows. */
static void keep(ilp_knap *k, ilp_kfront *f, int n, const ilp_kpt *pts, int cnt)
{
	size_t used = (size_t)f->off[n];
	if (used + cnt > f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 256;
		while (cap < used + cnt)
			cap *= 2;
		if (take(k, (cap - f->cap) * sizeof(ilp_kpt)))
			return;
		ilp_kpt *p = realloc(f->pool, cap * sizeof *p);
		if (!p) {
			give(k, (cap - f->cap) * sizeof(ilp_kpt));
			return;
		}
		f->pool = p;
		f->cap = cap;
	}
	memcpy(f->pool + used, pts, (size_t)cnt * sizeof *pts);
	f->off[n + 1] = (int)(used + cnt);
	f->top = n;
}

const ilp_kpt *ilp_knap_front(ilp_knap *k, int kind, int n, int *npt)
{
	if (n < 0 || n > k->maxn)
		return NULL;
	ilp_kfront *f = &k->kf[kind];
	const eval_kind_cost *q = &k->ec->kind[kind];
	if (f->top < 0) { /* front 0: recompute nothing */
		ilp_kpt zero = {0, 0};
		f->off[0] = 0;
		keep(k, f, 0, &zero, 1);
		if (f->top < 0)
			return NULL;
	}
	if (n <= f->top) {
		*npt = f->off[n + 1] - f->off[n];
		return f->pool + f->off[n];
	}
	/* build fronts top + 1 .. n, each into the pool while it takes them */
	int from = f->top, cnt = f->off[from + 1] - f->off[from], cur = 0;
	if (room(k, 3 * (size_t)cnt + 3))
		return NULL;
	memcpy(k->scr[0], f->pool + f->off[from], (size_t)cnt * sizeof(ilp_kpt));
	for (int i = from + 1; i <= n; i++) {
		if (room(k, 3 * (size_t)cnt + 3))
			return NULL;
		int c = extend(k, q, k->scr[cur], cnt, k->scr[1 - cur]);
		if (c < 0)
			return NULL;
		cur = 1 - cur;
		cnt = c;
		if (f->top == i - 1)
			keep(k, f, i, k->scr[cur], cnt);
	}
	*npt = cnt;
	return f->top == n ? f->pool + f->off[n] : k->scr[cur];
}

/* A kind's front as full points (sel/full of that kind set, the others 0). */
static void to_cpt(const eval_kind_cost *q, int kind, ilp_kpt x, ilp_cpt *o)
{
	memset(o, 0, sizeof *o);
	o->save = ilp_kpt_save(q, x);
	o->time = ilp_kpt_time(q, x);
	o->sel[kind] = x.sel;
	o->full[kind] = x.full;
}

/* Front n of a kind as full points with their values, kept (up to KNAP_XCACHE bytes of
 * the memory cap) for the fronts in use: the stages of a model hold a few sizes, asked
 * for over and over. NULL when out of memory or stopped; a front not kept lives in
 * k->xscr until the next call. */
static const ilp_cpt *front_x(ilp_knap *k, int kind, int n, int *npt)
{
	ilp_cpt **slot = &k->xc[kind * (k->maxn + 1) + n];
	if (*slot) {
		*npt = k->xn[kind * (k->maxn + 1) + n];
		return *slot;
	}
	int m;
	const ilp_kpt *fr = ilp_knap_front(k, kind, n, &m);
	if (!fr)
		return NULL;
	size_t bytes = (size_t)m * sizeof(ilp_cpt);
	ilp_cpt *x = NULL;
	if (k->xbytes + bytes <= KNAP_XCACHE && !take(k, bytes)) {
		x = malloc(bytes ? bytes : 1);
		if (x) {
			*slot = x;
			k->xn[kind * (k->maxn + 1) + n] = m;
			k->xbytes += bytes;
		} else {
			give(k, bytes);
		}
	}
	if (!x) {
		if ((size_t)m > k->capx) {
			ilp_cpt *t = realloc(k->xscr, (size_t)m * sizeof *t);
			if (!t)
				return NULL;
			k->xscr = t;
			k->capx = (size_t)m;
		}
		x = k->xscr;
	}
	for (int i = 0; i < m; i++)
		to_cpt(&k->ec->kind[kind], kind, fr[i], &x[i]);
	*npt = m;
	return x;
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

int ilp_knap_combine(ilp_knap *k, const int *kinds, int nk, const int *nfree, ilp_cpt **out)
{
	int n;
	const ilp_cpt *fr = front_x(k, kinds[0], nfree[kinds[0]], &n);
	if (!fr)
		return -1;
	ilp_cpt *cur = malloc((size_t)n * sizeof *cur);
	if (!cur)
		return -1;
	memcpy(cur, fr, (size_t)n * sizeof *cur);
	for (int j = 1; j < nk; j++) {
		int kd = kinds[j], ng;
		const ilp_cpt *g = front_x(k, kd, nfree[kd], &ng);
		ilp_cpt *nx = g && !stopped(k, (long)n * ng) ? malloc((size_t)n * ng * sizeof *nx) : NULL;
		if (!nx) {
			free(cur);
			return -1;
		}
		int c = 0;
		for (int a = 0; a < n; a++)
			for (int b = 0; b < ng; b++) {
				nx[c] = cur[a];
				nx[c].save += g[b].save;
				nx[c].time += g[b].time;
				nx[c].sel[kd] = g[b].sel[kd];
				nx[c].full[kd] = g[b].full[kd];
				c++;
			}
		free(cur);
		cur = nx;
		n = pareto(nx, c);
	}
	*out = cur;
	return n;
}

/* The point of least time with save >= need on a front (save ascending, time ascending):
 * the first such; 0, or -1 when none. maxsave: the front's largest saving. */
static int least_time(const ilp_cpt *pts, int n, double need, ilp_cpt *best, double *maxsave)
{
	*maxsave = n ? pts[n - 1].save : 0;
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (pts[mid].save >= need)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == n)
		return -1;
	*best = pts[lo];
	return 0;
}

/* Least time with save >= need over the combined front of `kinds`; -1 if none (or
 * stopped, or out of memory: *fail set). One kind: its own front, searched in place. */
static int combine(ilp_knap *k, const int *kinds, int nk, const int *nfree, double need, ilp_cpt *best,
		double *maxsave, int *fail)
{
	ilp_cpt *cur = NULL;
	int n;
	const ilp_cpt *fr = nk == 1 ? front_x(k, kinds[0], nfree[kinds[0]], &n) : NULL;
	if (nk > 1 && (n = ilp_knap_combine(k, kinds, nk, nfree, &cur)) >= 0)
		fr = cur;
	if (!fr) {
		*fail = 1;
		return -1;
	}
	int rc = least_time(fr, n, need, best, maxsave);
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
		int fail = 0;
		int rc = combine(k, kinds, nk, nfree, need, &c, &maxsave, &fail);
		if (fail)
			return -1; /* stopped or out of memory: the caller reads the stop flag */
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
