/* ilp_cdp.c - the chunk model's DP: an exact search over chunk boundaries that gives
 * GLPK its incumbent, the lower bound it needs to stop at the root, and the bounds that
 * prune its options.
 *
 * Why a DP works here: for a fixed split the fastest recompute mix that fits a stage
 * (ilp_knap_best) minimises both its time T and its term g of the makespan, so the chunk
 * model is a choice of the P - 1 cut positions alone, and a stage's price depends only
 * on how many layers of each pseudo-kind (kind x pinned mode) its chunks hold.
 *
 * Stage s holds chunks s, s + p, ..., s + (v - 1) p: one chunk in each round of the
 * interleaved order. Walking the stages in order, a state is where each round has got
 * to, and stage s moves every round over its chunk. Two forms:
 *
 *  - rounds: when every layer from position p on is of one pseudo-kind (DeepSeek-V3:
 *    three dense layers, then MoE), the chunks of rounds 1 .. v-1 lie in that uniform
 *    tail (round 1 starts at p or later), so they differ only in length, and a stage's t
 *    tail layers can be shared among them in any way that gives each at least one. The
 *    state is then (x, C): round 0's position and the tail layers used; a plan ends where
 *    x + C = L. Two dimensions whatever v is, and one DP. Stage pins are allowed where
 *    only round 0 reaches (before p), and on a suffix pinned to the last stage, which the
 *    last chunk then holds.
 *  - starts: otherwise the state is the v round positions, and as round i starts where
 *    round i - 1 ends, which ties the two ends of the walk together, the round starts
 *    A_1 .. A_{v-1} are fixed per DP and enumerated outside it, nearest the even split
 *    first (for vpp = 2 at most L of them). Exhaustive within a work budget.
 *
 * Within a DP the objective cM max T + h(sum g) is exact through Pareto labels (slowest
 * stage so far, sum of g so far) per state. Labels die against the best plan so far
 * with cheap bounds on what is left: its layers cost at least their time without
 * recomputation, spread evenly over the stages left (max T) and summed (g); and on the
 * rounds form, past the mixed head, the stages left hold no more tail layers than each
 * holds alone under the threshold. A first plan comes from the fixed-threshold DP (least
 * sum g with every stage under a threshold), so that the exact pass prunes from the
 * start. When the search is exhaustive the best plan is optimal; bound passes then find
 * every stage that lies on a plan as good (ilp_opts.c poses only those to GLPK). */
#include "solve/ilp_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CDP_MAX_STATES (1L << 21)   /* states of one DP over all its layers */
#define CDP_MAX_BOUND (1L << 20)    /* states of one DP for which the bound passes run */
#define CDP_WORK 20000000L          /* stage look-ups before the search gives up being exhaustive */
#define CDP_MAXD (STRAT_MAX_CHUNKS + 1)

enum { CDP_LABEL, CDP_MIN, CDP_FWD, CDP_BWD };

typedef struct {
	double tm, G; /* slowest stage so far, sum of g so far */
	int state, parent, next;
} cdp_label;

typedef struct {
	ilp_inst *in;
	int p, v, P, L;
	ilp_pcache pc;                /* stage prices by counts of pseudo-kinds (pc.lu: per layer) */
	double *gpre, *tpre;          /* prefix sums over layers of g and T without free recompute */
	double gsuf[EVAL_MAX_STAGES + 1], tsuf[EVAL_MAX_STAGES + 1]; /* stage constants of stages >= s */
	/* the form: dimensions of a state */
	int kh;                       /* rounds placed one by one (the rest: a tail count), 1 .. v */
	int rounds;                   /* kh = 1 < v: the (x, C) form of the round model */
	int tailu;                    /* rounds: the tail's pseudo-kind */
	int headend;                  /* rounds: layers from here on are all of the tail's kind */
	int hform;                    /* head and tail: rounds 0 .. kh-1 placed one by one, the rest a
	                               * tail count, for kh = 1, 2, ... (not: round starts, kh = v) */
	int split;                    /* hform with more than one kh (the head reaches past p) */
	int capsuf[EVAL_MAX_STAGES + 1]; /* rounds: most tail layers stages s.. hold under tau_hi */
	int D;                        /* dimensions: 2 (rounds) or v (starts) */
	int A[CDP_MAXD];              /* starts: round starts, A[0] = 0, A[v] = L */
	int step[CDP_MAXD];           /* least layers a stage adds in each dimension */
	int w[CDP_MAXD];
	long stride[CDP_MAXD], N;
	/* the search */
	double best, tau_hi;          /* best plan's makespan; a better one's stages are all under tau_hi */
	long work, maxwork;
	int capped, oom, mode;
	int tau_cut;                  /* a stage that fits was cut only for being over tau_hi */
	int *head;                    /* (p + 1) * N label list heads of the current DP */
	long caphead;
	cdp_label *lab;
	int nlab, caplab;
	int *cut;                     /* the best plan's cut positions (P + 1) */
	double *tf, *gf, *tb, *gb;    /* bound passes, per (layer, state): least max T and least sum g before and after */
	long capb;
	int *rng, nrng, caprng;       /* 4 ints each: starts (chunk, a, b, 0), rounds (stage, a, b, t) */
	/* the stage being enumerated */
	int s, src, sum;
	int x[CDP_MAXD], o[CDP_MAXD], len[CDP_MAXD];
	int cnt[ILP_NPK];
} cdp_t;

/* The price of stage st holding cnt[u] layers of each present pseudo-kind, priced once. */
static ilp_pcost stage_cost(cdp_t *d, int st, const int *cnt)
{
	d->work++;
	ilp_pcost c = ilp_pcache_get(&d->pc, st, cnt);
	if (d->pc.failed)
		d->oom = 1;
	return c; /* (a knapsack stopped answers "does not fit"; the next tick ends the DP) */
}

/* Take bytes of the memory cap for the DP's tables: 0, or -1. */
static int take(cdp_t *d, size_t bytes)
{
	return ilp_mem_take(d->in, bytes);
}

/* Keep the labels of a state Pareto-minimal in (tm, G). */
static void insert(cdp_t *d, long at, double tm, double G, int state, int parent)
{
	int *hp = &d->head[at];
	if (d->mode == CDP_MIN && *hp >= 0) { /* one label: the least sum g, then max T */
		cdp_label *q = &d->lab[*hp];
		if (G < q->G || (G == q->G && tm < q->tm)) {
			q->tm = tm; /* nothing points at a label of the layer being built */
			q->G = G;
			q->state = state;
			q->parent = parent;
		}
		return;
	}
	for (int k = *hp; k >= 0; k = d->lab[k].next)
		if (d->lab[k].tm <= tm && d->lab[k].G <= G)
			return;
	for (int *pp = hp; *pp >= 0;) {
		cdp_label *q = &d->lab[*pp];
		if (tm <= q->tm && G <= q->G)
			*pp = q->next;
		else
			pp = &q->next;
	}
	if (d->nlab == d->caplab) {
		int cap = d->caplab ? 2 * d->caplab : 4096;
		cdp_label *n = take(d, (size_t)(cap - d->caplab) * sizeof *n) ? NULL :
			realloc(d->lab, (size_t)cap * sizeof *n);
		if (!n) {
			d->oom = 1;
			return;
		}
		d->lab = n;
		d->caplab = cap;
	}
	cdp_label *l = &d->lab[d->nlab];
	l->tm = tm;
	l->G = G;
	l->state = state;
	l->parent = parent;
	l->next = *hp;
	*hp = d->nlab++;
}

/* Position of dimension i at layer s with offset o: a cut position (starts, and round 0
 * of rounds) or the tail layers used (rounds, i = 1). */
static int pos_of(const cdp_t *d, int i, int s, int o)
{
	return d->A[i] + s * d->step[i] + o;
}

/* What the layers left after the positions x[] cost at least: g summed, T summed (the
 * stages s.. constants included). */
static void left_cost(const cdp_t *d, int s, const int *x, double *gs, double *ts)
{
	const int F = d->kh - 1;
	*gs = d->gsuf[s];
	*ts = d->tsuf[s];
	if (d->kh == d->v) { /* round starts: every round has a fixed end */
		for (int i = 0; i < d->D; i++) {
			*gs += d->gpre[d->A[i + 1]] - d->gpre[x[i]];
			*ts += d->tpre[d->A[i + 1]] - d->tpre[x[i]];
		}
		return;
	}
	for (int i = 0; i < F; i++) { /* rounds before the free one: fixed ends */
		*gs += d->gpre[d->A[i + 1]] - d->gpre[x[i]];
		*ts += d->tpre[d->A[i + 1]] - d->tpre[x[i]];
	}
	/* the free round and the tail: everything after it, less the tail used */
	double gt = d->gpre[d->L] - d->gpre[d->L - 1], tt = d->tpre[d->L] - d->tpre[d->L - 1];
	*gs += d->gpre[d->L] - d->gpre[x[F]] - x[F + 1] * gt;
	*ts += d->tpre[d->L] - d->tpre[x[F]] - x[F + 1] * tt;
}

/* Remember a stage that lies on a plan as good as the best. */
static void mark(cdp_t *d)
{
	int need = d->rounds ? 1 : d->D;
	if (d->nrng + need > d->caprng) {
		int cap = d->caprng ? 2 * d->caprng : 1024;
		while (cap < d->nrng + need)
			cap *= 2;
		int *n = take(d, (size_t)(cap - d->caprng) * 4 * sizeof *n) ? NULL :
			realloc(d->rng, (size_t)cap * 4 * sizeof *n);
		if (!n) {
			d->oom = 1;
			return;
		}
		d->rng = n;
		d->caprng = cap;
	}
	if (d->rounds) {
		int *t = &d->rng[4 * d->nrng++];
		t[0] = d->s;
		t[1] = d->x[0];
		t[2] = d->x[0] + d->len[0];
		t[3] = d->len[1];
		return;
	}
	for (int i = 0; i < d->D; i++) {
		int *t = &d->rng[4 * d->nrng++];
		t[0] = d->s + i * d->p;
		t[1] = d->x[i];
		t[2] = d->x[i] + d->len[i];
		t[3] = 0;
	}
}

/* Rounds: once round 0 is past the mixed head every layer left is of the tail's kind,
 * and the stages left cannot hold more of them than each holds alone under tau_hi
 * (recomputation and memory included). 1 when the layers left after x[] do not fit. */
static int overfull(const cdp_t *d, int s, const int *x)
{
	const int F = d->kh - 1;
	if (d->kh == d->v || x[F] < d->headend)
		return 0;
	for (int i = 0; i < F; i++)
		if (x[i] != d->A[i + 1])
			return 0; /* rounds before the free one not done: head layers left */
	return d->L - x[F] - x[F + 1] > d->capsuf[s];
}

/* Rounds: capsuf for the current tau_hi. */
static void capacity(cdp_t *d)
{
	/* no stage holds more tail layers than there are, or than leave a layer per other chunk */
	int cnt[ILP_NPK], most = d->L - d->headend < d->L - (d->P - d->v) ? d->L - d->headend : d->L - (d->P - d->v);
	memset(cnt, 0, sizeof cnt);
	d->capsuf[d->p] = 0;
	for (int s = d->p - 1; s >= 0; s--) {
		int n = 0;
		while (n < most) {
			cnt[d->tailu] = n + 1;
			ilp_pcost c = stage_cost(d, s, cnt);
			if (!c.ok || c.T > d->tau_hi)
				break;
			n++;
		}
		d->capsuf[s] = d->capsuf[s + 1] + n;
	}
}

/* A complete stage (lengths d->len[] from the source state, price c): extend the
 * source's labels into the target, or update the bound passes. */
static void leaf(cdp_t *d, const ilp_pcost *c)
{
	const ilp_form *f = &d->in->form;
	const int s = d->s, left = d->p - s - 1;
	const long N = d->N, from = (long)s * N + d->src;
	long to = 0;
	for (int i = 0; i < d->D; i++)
		to += (long)(d->o[i] + d->len[i] - d->step[i]) * d->stride[i];
	const long at = (long)(s + 1) * N + to;
	int xn[CDP_MAXD];
	for (int i = 0; i < d->D; i++)
		xn[i] = d->x[i] + d->len[i];
	if (d->mode != CDP_BWD && overfull(d, s + 1, xn))
		return;
	if (d->mode == CDP_FWD) {
		double tm = d->tf[from] > c->T ? d->tf[from] : c->T;
		if (tm < d->tf[at])
			d->tf[at] = tm;
		if (d->gf[from] + c->g < d->gf[at])
			d->gf[at] = d->gf[from] + c->g;
		return;
	}
	if (d->mode == CDP_BWD) {
		double tm = d->tb[at] > c->T ? d->tb[at] : c->T;
		if (tm < d->tb[from])
			d->tb[from] = tm;
		if (c->g + d->gb[at] < d->gb[from])
			d->gb[from] = c->g + d->gb[at];
		double t = d->tf[from] > tm ? d->tf[from] : tm;
		if (f->cM * t + ilp_form_h(f, d->gf[from] + c->g + d->gb[at]) <= d->best * (1 + 1e-9))
			mark(d);
		return;
	}
	double gs, ts;
	left_cost(d, s + 1, xn, &gs, &ts);
	double tavg = left > 0 ? ts / left : 0; /* the stages left average at least this */
	for (int k = d->head[from]; k >= 0; k = d->lab[k].next) {
		double tm = d->lab[k].tm > c->T ? d->lab[k].tm : c->T, G = d->lab[k].G + c->g;
		if (f->cM * (tm > tavg ? tm : tavg) + ilp_form_h(f, G + gs) >= d->best)
			continue;
		insert(d, at, tm, G, (int)to, k);
		if (d->oom)
			return;
	}
}

/* Add (sign 1) or take away (-1) n layers of dimension i from its position x. */
static void count(cdp_t *d, int i, int x, int n, int sign)
{
	if (d->kh < d->v && i == d->kh) {
		d->cnt[d->tailu] += sign * n;
		return;
	}
	for (int l = x; l < x + n; l++)
		d->cnt[d->pc.lu[l]] += sign;
}

/* The least layers dimension j can take at this stage (starts: the last stage must end
 * each round where the next one starts). */
static int least(const cdp_t *d, int j)
{
	if (d->s == d->p - 1 && (j < d->kh - 1 || d->kh == d->v))
		return d->w[j] - d->o[j] + d->step[j] - 1;
	if (d->kh < d->v && j == d->kh && d->s == d->p - 1 && d->in->tail_last > 1)
		return d->in->tail_last + d->v - d->kh - 1; /* the last chunk holds the pinned suffix */
	return d->step[j];
}

/* Enumerate the length of dimension i (earlier ones fixed in len[], counted in cnt);
 * then the later ones. Longer chunks only add layers, and a stage that does not fit (or
 * is over the threshold) with some layers does not with more, so loops stop at the
 * first length whose least completion fails. */
static void rec(cdp_t *d, int i)
{
	ilp_inst *in = d->in;
	const int s = d->s, D = d->D, x = d->x[i], want = in->cnt_pin[s];
	int lmax = d->w[i] - d->o[i] + d->step[i] - 1, lmin = least(d, i), rest = 0;
	if (d->kh < d->v && i == d->kh) { /* the free round and the tail leave a layer per chunk */
		lmax -= d->o[i - 1] + d->len[i - 1] - d->step[i - 1];
		if (x + lmax > d->L - d->headend) /* and the tail lies past the head */
			lmax = d->L - d->headend - x;
	}
	for (int j = i + 1; j < D; j++)
		rest += least(d, j);
	int added = 0;
	for (int l = 1; l <= lmax && !d->oom; l++) {
		count(d, i, x + l - 1, 1, 1);
		added = l;
		if (l < lmin)
			continue;
		if (want >= 0 && d->sum + l + rest > want)
			break;
		/* (only the rounds placed one by one meet stage pins; a pinned suffix is the last
		 * chunk's, in the tail) */
		int ok = in->has_stage_pins && !(d->kh < d->v && i == d->kh) ? ilp_stage_pins_ok(in, s, x, x + l) : 1;
		if (ok < 0)
			break;
		if (!ok)
			continue;
		d->len[i] = l;
		if (i + 1 < D) {
			for (int j = i + 1; j < D; j++)
				count(d, j, d->x[j], least(d, j), 1);
			ilp_pcost c = stage_cost(d, s, d->cnt);
			for (int j = i + 1; j < D; j++)
				count(d, j, d->x[j], least(d, j), -1);
			d->tau_cut |= c.ok && c.T > d->tau_hi;
			if (!c.ok || c.T > d->tau_hi)
				break;
			d->sum += l;
			rec(d, i + 1);
			d->sum -= l;
		} else {
			if (want >= 0 && d->sum + l != want)
				continue;
			ilp_pcost c = stage_cost(d, s, d->cnt);
			d->tau_cut |= c.ok && c.T > d->tau_hi;
			if (!c.ok || c.T > d->tau_hi)
				break;
			leaf(d, &c);
		}
	}
	count(d, i, x, added, -1);
}

/* The form of the DPs that follow: rounds 0 .. kh-1 placed one by one (the last of them
 * ends anywhere past the head) and, when kh < v, the rest as a tail count (each stage adds
 * a layer to each of its v - kh tail chunks at least); kh = v: round starts. */
static void set_form(cdp_t *d, int kh)
{
	d->kh = kh;
	d->rounds = kh == 1 && kh < d->v;
	d->D = kh < d->v ? kh + 1 : d->v;
	for (int i = 0; i < d->D; i++)
		d->step[i] = kh < d->v && i == kh ? d->v - kh : 1;
	d->A[0] = 0;
	d->A[kh] = kh < d->v ? 0 : d->L; /* the tail counts from 0; the last round ends at L */
}

/* Decode state idx of layer s into offsets o[] and positions x[]. */
static void decode(const cdp_t *d, int s, long idx, int *o, int *x)
{
	for (int i = 0; i < d->D; i++) {
		o[i] = (int)(idx / d->stride[i] % d->w[i]);
		x[i] = pos_of(d, i, s, o[i]);
	}
}

/* Is state idx of the last layer a complete plan? */
static int is_end(const cdp_t *d, long idx)
{
	int o[CDP_MAXD], x[CDP_MAXD];
	decode(d, d->p, idx, o, x);
	if (d->kh < d->v) { /* the free round ends past the head: the tail takes the rest */
		const int F = d->kh - 1;
		for (int i = 0; i < F; i++)
			if (x[i] != d->A[i + 1])
				return 0;
		return x[F] + x[F + 1] == d->L && x[F] >= d->headend;
	}
	for (int i = 0; i < d->D; i++)
		if (x[i] != d->A[i + 1])
			return 0;
	return 1;
}

/* Cut positions of the plan ending in label k of the last layer. Rounds: the tail
 * layers of a stage are shared among its chunks of rounds 1.. v-1 evenly. */
static void trace(cdp_t *d, int k, int *cut)
{
	int o[CDP_MAXD], x[CDP_MAXD];
	if (d->kh == d->v) {
		cut[d->P] = d->L;
		for (int s = d->p; s >= 0 && k >= 0; s--) {
			decode(d, s, d->lab[k].state, o, x);
			for (int i = 0; i < d->D; i++)
				if (s + i * d->p < d->P)
					cut[s + i * d->p] = x[i];
			k = d->lab[k].parent;
		}
		return;
	}
	/* positions of the rounds placed one by one and the tail used, per stage */
	const int p = d->p, D = d->D;
	int *xs = malloc((size_t)(p + 1) * D * sizeof *xs);
	if (!xs) {
		d->oom = 1;
		return;
	}
	for (int s = p; s >= 0 && k >= 0; s--) {
		decode(d, s, d->lab[k].state, o, &xs[s * D]);
		k = d->lab[k].parent;
	}
	int at = 0;
	for (int j = 0; j < d->P; j++) {
		int s = j % p, i = j / p, n;
		if (i < d->kh) {
			n = xs[(s + 1) * D + i] - xs[s * D + i];
		} else {
			int sh[CDP_MAXD];
			ilp_tail_split(d->in, s, xs[(s + 1) * D + d->kh] - xs[s * D + d->kh], d->kh, sh);
			n = sh[i];
		}
		cut[j] = at;
		at += n;
	}
	cut[d->P] = at;
	free(xs);
}

/* State windows: 0, -1 when a round is too short for its chunks, 1 when there are more
 * than max states over all layers. */
static int windows(cdp_t *d, long max)
{
	long N = 1;
	for (int i = 0; i < d->D; i++) {
		if (d->kh < d->v && i >= d->kh - 1) /* the free round and the tail share one */
			d->w[i] = d->L - d->A[d->kh - 1] - d->p * (d->v - d->kh + 1) + 1;
		else
			d->w[i] = d->A[i + 1] - d->A[i] - d->p + 1;
		d->stride[i] = N;
		if (d->w[i] < 1)
			return -1;
		N *= d->w[i];
		if (N * (d->p + 1) > max)
			return 1;
	}
	d->N = N;
	return 0;
}

/* Make state idx of layer s the source. */
static void set_source(cdp_t *d, int s, long idx)
{
	d->s = s;
	d->src = (int)idx;
	d->sum = 0;
	decode(d, s, idx, d->o, d->x);
}

/* Can some label of the source (list from k) still beat the best? */
static int alive(const cdp_t *d, int s, int k)
{
	const ilp_form *f = &d->in->form;
	double gs, ts;
	left_cost(d, s, d->x, &gs, &ts);
	ts /= d->p - s;
	for (; k >= 0; k = d->lab[k].next) {
		double tm = d->lab[k].tm > ts ? d->lab[k].tm : ts;
		if (f->cM * tm + ilp_form_h(f, d->lab[k].G + gs) < d->best)
			return 1;
	}
	return 0;
}

/* One DP (for the round starts in d->A on the starts form): exact with Pareto labels
 * (CDP_LABEL), or the least sum of g with every stage under tau_hi (CDP_MIN). Returns 1
 * when it reached the end (some plan under tau_hi, better than the best or not). */
static int run_dp(cdp_t *d, int mode)
{
	const int p = d->p;
	const ilp_form *f = &d->in->form;
	int rc = windows(d, CDP_MAX_STATES);
	if (rc) {
		d->capped |= rc > 0; /* too many states: not searched */
		return 0;
	}
	const long N = d->N;
	if (N * (p + 1) > d->caphead) {
		int *h = take(d, (size_t)(N * (p + 1) - d->caphead) * sizeof *h) ? NULL :
			realloc(d->head, (size_t)(N * (p + 1)) * sizeof *h);
		if (!h) {
			d->oom = 1;
			return 0;
		}
		d->head = h;
		d->caphead = N * (p + 1);
	}
	for (long i = 0; i < N * (p + 1); i++)
		d->head[i] = -1;
	d->nlab = 0;
	d->mode = mode;
	if (d->kh < d->v)
		capacity(d);
	insert(d, 0, 0, 0, 0, -1);
	long seen = d->work;
	for (int s = 0; s < p && !d->oom; s++) {
		int any = 0;
		const int *h = d->head + (long)s * N;
		for (long idx = 0;; idx++) {
			while (idx < N && h[idx] < 0) /* most states are empty: skip them in a tight loop */
				idx++;
			if (idx >= N || d->oom)
				break;
			int k = h[idx];
			/* a state and the stage prices its stages looked up are the work counted
			 * (a stopped knapsack has set in->stop, which ends it too) */
			if (ilp_tick(d->in, 1 + d->work - seen)) {
				d->capped = 1;
				return 0;
			}
			seen = d->work;
			any = 1;
			set_source(d, s, idx);
			if (alive(d, s, k))
				rec(d, 0);
		}
		if (!any)
			return 0;
		if (ilp_should_stop(d->in) || d->work > d->maxwork) {
			d->capped = 1;
			return 0;
		}
	}
	int reached = 0;
	for (long idx = 0; idx < N && !d->oom; idx++) {
		if (d->head[(long)p * N + idx] < 0 || !is_end(d, idx))
			continue;
		reached = 1;
		for (int k = d->head[(long)p * N + idx]; k >= 0; k = d->lab[k].next) {
			double val = f->cM * d->lab[k].tm + ilp_form_h(f, d->lab[k].G);
			if (val < d->best) {
				d->best = val;
				trace(d, k, d->cut);
				/* a better plan has a slowest stage under this: cM T + h(g0) < best */
				double t = (val - ilp_form_h(f, d->in->g0)) / f->cM;
				d->tau_hi = t < d->tau_hi ? t : d->tau_hi;
			}
		}
	}
	return reached;
}

/* A first plan, so that the exact pass prunes from the start (its work falls several
 * fold): the fixed-threshold DP at thresholds rising from the average stage time by 1 %,
 * 2 %, 4 %, ... of it until one admits a plan. A tight threshold is cheap: stages over it
 * are cut before anything is enumerated. */
static void first_plan(cdp_t *d)
{
	const double cap = d->tau_hi, base = d->in->tau_lb;
	if (!(base > 0) || !(base < cap))
		return;
	for (int k = 0; k < 16; k++) {
		double tau = base * (1 + 0.01 * (1 << k));
		d->tau_hi = tau < cap ? tau : cap;
		d->tau_cut = 0;
		if (run_dp(d, CDP_MIN) || d->tau_hi == cap || d->capped || d->oom || !d->tau_cut)
			break; /* a plan; or no stage was cut for its time, and no threshold admits one */
	}
	const ilp_form *f = &d->in->form;
	double t = d->best < INFINITY ? (d->best - ilp_form_h(f, d->in->g0)) / f->cM : cap;
	d->tau_hi = t < cap ? t : cap;
}

/* The bound passes, once the best plan is known: least max T and least sum g before
 * (forward) and after (backward) every state, each on its own, so that
 * cM max(tf, T, tb) + h(gf + g + gb) bounds every plan through a stage; the stages
 * whose bound reaches the best are marked. 0, or 1 when there are too many states. */
static int bound_dp(cdp_t *d)
{
	const int p = d->p;
	const ilp_form *f = &d->in->form;
	int rc = windows(d, CDP_MAX_BOUND);
	if (rc)
		return rc > 0;
	const long N = d->N, n = N * (p + 1);
	if (n > d->capb) {
		double *t[4] = {NULL, NULL, NULL, NULL};
		if (!take(d, (size_t)(n - d->capb) * 4 * sizeof(double)))
			for (int i = 0; i < 4; i++)
				t[i] = malloc((size_t)n * sizeof(double));
		if (!t[0] || !t[1] || !t[2] || !t[3]) {
			for (int i = 0; i < 4; i++)
				free(t[i]);
			d->oom = 1;
			return 1;
		}
		free(d->tf);
		free(d->gf);
		free(d->tb);
		free(d->gb);
		d->tf = t[0];
		d->gf = t[1];
		d->tb = t[2];
		d->gb = t[3];
		d->capb = n;
	}
	for (long i = 0; i < n; i++)
		d->tf[i] = d->gf[i] = d->tb[i] = d->gb[i] = INFINITY;
	d->tf[0] = d->gf[0] = 0;
	d->mode = CDP_FWD;
	if (d->kh < d->v)
		capacity(d);
	long seen = d->work;
	for (int s = 0; s < p && !d->oom; s++)
		for (long idx = 0; idx < N; idx++) {
			long at = (long)s * N + idx;
			if (d->tf[at] == INFINITY)
				continue;
			if (ilp_tick(d->in, 1 + d->work - seen))
				return d->capped = 1; /* stopped: no marks */
			seen = d->work;
			set_source(d, s, idx);
			double gs, ts;
			left_cost(d, s, d->x, &gs, &ts);
			ts /= p - s;
			double t = d->tf[at] > ts ? d->tf[at] : ts;
			if (f->cM * t + ilp_form_h(f, d->gf[at] + gs) > d->best * (1 + 1e-9)) {
				d->tf[at] = INFINITY; /* no plan through here is as good: not expanded */
				continue;
			}
			rec(d, 0);
		}
	int ends = 0;
	for (long idx = 0; idx < N && !d->oom; idx++)
		if (d->tf[(long)p * N + idx] < INFINITY && is_end(d, idx)) {
			d->tb[(long)p * N + idx] = d->gb[(long)p * N + idx] = 0;
			ends = 1;
		}
	if (d->oom || !ends)
		return d->oom;
	d->mode = CDP_BWD;
	for (int s = p - 1; s >= 0 && !d->oom; s--)
		for (long idx = 0; idx < N; idx++) {
			if (d->tf[(long)s * N + idx] == INFINITY)
				continue;
			if (ilp_tick(d->in, 1 + d->work - seen))
				return d->capped = 1;
			seen = d->work;
			set_source(d, s, idx);
			rec(d, 0);
		}
	return d->oom;
}

/* Head and tail: fn on the form with kh = 1 (round 0 ends past the head), then for kh = 2,
 * 3, ... on every set of starts A_1 < ... < A_{kh-1} inside the head (their rounds hold head
 * layers; round kh starts past it). Every plan is in one of them: kh - 1 is the number of
 * rounds after round 0 that start inside the head. each_head returns 1 when all were
 * visited; head_starts 1 when the search must stop. */
static int head_starts(cdp_t *d, int (*fn)(cdp_t *), int kh, int i, int *a)
{
	const int p = d->p, v = d->v, L = d->L;
	if (i == kh) {
		set_form(d, kh);
		for (int j = 1; j < kh; j++)
			d->A[j] = a[j];
		if (kh == 1) /* the rounds form as it always was: one DP */
			return fn(d);
		d->work++;
		return fn(d) || d->oom || d->work > d->maxwork || ilp_should_stop(d->in);
	}
	for (a[i] = a[i - 1] + p; a[i] < d->headend && a[i] <= L - (v - i) * p; a[i]++)
		if (head_starts(d, fn, kh, i + 1, a))
			return 1;
	return 0;
}

static int each_head(cdp_t *d, int (*fn)(cdp_t *))
{
	int a[CDP_MAXD];
	a[0] = 0;
	for (int kh = 1; kh <= d->v; kh++)
		if (head_starts(d, fn, kh, 1, a))
			return 0;
	return 1;
}

/* Run fn on the one DP of the rounds form, or on every admissible set of round starts,
 * in shells of growing max-distance from the even split (so that the first plans found
 * are good and prune the rest). Returns 1 when every start was visited. */
static int each_start(cdp_t *d, int (*fn)(cdp_t *))
{
	const int p = d->p, v = d->v, L = d->L, m = v - 1;
	if (d->hform)
		return each_head(d, fn);
	int ae[CDP_MAXD], dl[CDP_MAXD], rmax = 0;
	for (int i = 1; i < v; i++) { /* round i starts in [i p, L - (v - i) p] */
		ae[i] = (int)((long)i * L / v);
		int lo = i * p, hi = L - (v - i) * p;
		ae[i] = ae[i] < lo ? lo : ae[i] > hi ? hi : ae[i];
		int r = ae[i] - lo > hi - ae[i] ? ae[i] - lo : hi - ae[i];
		rmax = r > rmax ? r : rmax;
	}
	d->A[0] = 0;
	d->A[v] = L;
	for (int r = 0; r <= rmax; r++) {
		for (int i = 1; i <= m; i++)
			dl[i] = -r;
		for (;;) {
			int norm = 0, ok = 1;
			for (int i = 1; i <= m; i++) {
				int a = dl[i] < 0 ? -dl[i] : dl[i];
				norm = a > norm ? a : norm;
				d->A[i] = ae[i] + dl[i];
				if (d->A[i] < i * p || d->A[i] > L - (v - i) * p || d->A[i] - d->A[i - 1] < p)
					ok = 0;
			}
			d->work++;
			if (norm == r && ok && fn(d))
				return 0;
			if (d->oom || d->work > d->maxwork || ilp_should_stop(d->in))
				return 0;
			int i = 1; /* odometer over [-r, r]^m */
			while (i <= m && dl[i] == r)
				dl[i++] = -r;
			if (i > m)
				break;
			dl[i]++;
		}
	}
	return 1;
}

static int search_fn(cdp_t *d)
{
	if (d->best == INFINITY)
		first_plan(d);
	if (!d->capped && !d->oom)
		run_dp(d, CDP_LABEL);
	return d->capped || d->oom;
}

static int cmp_rng(const void *a, const void *b)
{
	const int *x = a, *y = b;
	for (int i = 0; i < 4; i++)
		if (x[i] != y[i])
			return (x[i] > y[i]) - (x[i] < y[i]);
	return 0;
}

/* How many sets of round starts A_1 < A_2 < ... (each p past the one before, A_1 >= p, all
 * below hi) a split search visits for kh = 2 .. kmax, or with kmax = 2 and hi = L + 1,
 * how many the round-starts form does (all v - 1 of them): what decides between the two. */
static double starts(const cdp_t *d, int kmax, int hi)
{
	const int p = d->p, v = d->v, L = d->L;
	double total = 0, *w = calloc((size_t)L + 2, sizeof *w), *nw = calloc((size_t)L + 2, sizeof *nw);
	if (!w || !nw) {
		free(w);
		free(nw);
		return 0;
	}
	w[0] = 1; /* tuples of length m ending at x (A_0 = 0) */
	for (int m = 1; m < v; m++) {
		double run = 0;
		for (int x = 0; x <= L; x++) {
			run += x - p >= 0 ? w[x - p] : 0; /* ending at x - p or before */
			nw[x] = x < hi && x <= L - (v - m) * p ? run : 0;
		}
		double n = 0;
		for (int x = 0; x <= L; x++) {
			w[x] = nw[x];
			n += w[x];
		}
		if (kmax == 2 && hi > L) /* the round-starts form: all v - 1 starts */
			total = m == v - 1 ? n : 0;
		else if (m + 1 <= kmax)
			total += n;
	}
	free(w);
	free(nw);
	return total;
}

/* Per layer: pseudo-kind index, and the prefix sums of T and g without free recompute
 * (pinned modes included); per stage the constants (and the MTP on the last); the form. */
static int setup(cdp_t *d)
{
	ilp_inst *in = d->in;
	const int L = in->L;
	d->gpre = malloc((size_t)(L + 1) * sizeof *d->gpre);
	d->tpre = malloc((size_t)(L + 1) * sizeof *d->tpre);
	d->cut = malloc((size_t)(d->P + 1) * sizeof *d->cut);
	if (!d->gpre || !d->tpre || !d->cut)
		return -1;
	d->gpre[0] = d->tpre[0] = 0;
	for (int l = 0; l < L; l++) {
		int k = model_layer_kind(in->m, l), mode = in->rcpin[l];
		ilp_mix x;
		ilp_price q;
		memset(&x, 0, sizeof x);
		x.n[k][mode >= 0 ? mode : RC_NONE] = 1;
		/* one layer priced alone less the stage's constants: its share of T and g */
		ilp_price_stage(in->ec, in->nk, 0, &x, &q);
		double t = q.f + q.b - (in->cst[0].f + in->cst[0].b);
		double g = ilp_form_g(&in->form, &q) - ilp_form_g(&in->form, &in->cst[0]);
		d->tpre[l + 1] = d->tpre[l] + t;
		d->gpre[l + 1] = d->gpre[l] + g;
	}
	d->gsuf[d->p] = d->tsuf[d->p] = 0;
	for (int s = d->p - 1; s >= 0; s--) {
		d->gsuf[s] = d->gsuf[s + 1] + ilp_form_g(&in->form, &in->cst[s]);
		d->tsuf[s] = d->tsuf[s + 1] + in->cst[s].f + in->cst[s].b;
	}
	if (in->mtp > 0) { /* the MTP layers always sit on the last stage, unrecomputed at best */
		ilp_mix x;
		ilp_price q;
		memset(&x, 0, sizeof x);
		x.n[in->mtp_kind][RC_NONE] = in->mtp;
		ilp_price_stage(in->ec, in->nk, d->p - 1, &x, &q);
		const ilp_price *c = &in->cst[d->p - 1];
		double t = q.f + q.b - (c->f + c->b), g = ilp_form_g(&in->form, &q) - ilp_form_g(&in->form, c);
		for (int s = 0; s < d->p; s++) {
			d->gsuf[s] += g;
			d->tsuf[s] += t;
		}
	}
	in->g0 = d->gsuf[0] + d->gpre[L];
	/* every stage is at least the average stage */
	double tlb = (d->tsuf[0] + d->tpre[L]) / d->p;
	if (tlb > in->tau_lb)
		in->tau_lb = tlb;
	/* the rounds form: a uniform tail from position p on (rounds 1.. start there or later) */
	/* and stage pins only in round 0's reach (before p) or on a suffix pinned to the last
	 * stage, which the last chunk then holds (in->tail_last layers at least). When the head
	 * reaches past p (DeepSeek-V3's three dense layers on two stages), the rounds form with
	 * round 0 ending past the head, then the round starts with A_1 inside the head: worth
	 * it while the head is short next to the layers the rounds can move */
	d->tailu = d->pc.lu[L - 1];
	d->headend = L;
	while (d->headend > 0 && d->pc.lu[d->headend - 1] == d->tailu)
		d->headend--;
	int lo = L, from = d->headend > d->p ? d->headend : d->p;
	while (lo > 0 && in->stpin[lo - 1] == d->p - 1)
		lo--;
	int hform = d->v > 1 && in->prm->dp_starts != 1 && lo >= d->headend;
	for (int l = from; l < lo && hform; l++)
		hform = in->stpin[l] < 0;
	if (hform && d->headend > d->p && in->prm->dp_starts != 2)
		hform = 4 * (starts(d, d->v, d->headend) + 1) <= starts(d, 2, d->L + 1);
	d->split = hform && d->headend > d->p;
	d->hform = hform;
	in->tail_last = hform ? L - lo : 0;
	set_form(d, hform ? 1 : d->v);
	return 0;
}

int ilp_chunk_dp(ilp_inst *in)
{
	cdp_t *d = calloc(1, sizeof *d);
	if (!d)
		return -1;
	d->in = in;
	d->p = in->p;
	d->v = in->v;
	d->P = in->P;
	d->L = in->L;
	d->best = INFINITY;
	d->tau_hi = in->tau_max;
	d->maxwork = in->prm->dp_work > 0 ? in->prm->dp_work : CDP_WORK;
	int rc = -1;
	/* the other chunks hold a layer each: a stage holds at most L - (P - v) layers */
	if (ilp_pcache_init(&d->pc, in, d->L - (d->P - d->v), in->tau_max) || setup(d))
		goto out;
	if (!each_start(d, search_fn))
		d->capped = 1;
	if (d->oom && !in->mem_hit)
		goto out;
	d->capped |= d->oom; /* at the memory cap: the search stops with the plan it has */
	rc = 0;
	if (d->best < INFINITY) {
		in->ub = d->best;
		in->dp_cut = d->cut;
		d->cut = NULL;
		double t = d->tau_hi * (1 + 1e-9);
		in->tau_max = t < in->tau_max ? t : in->tau_max;
	}
	if (!d->capped) {
		in->dp_exact = 1;
		in->lb = d->best < INFINITY ? d->best : 0;
	}
	/* the stages that can be part of an optimal plan, when every start can be bounded (not
	 * after a split search: its two forms mark stages differently) */
	if (!d->capped && !d->split && d->best < INFINITY && each_start(d, bound_dp) && !d->oom && d->nrng > 0) {
		qsort(d->rng, (size_t)d->nrng, 4 * sizeof *d->rng, cmp_rng);
		int n = 0;
		for (int i = 0; i < d->nrng; i++)
			if (!n || cmp_rng(&d->rng[4 * i], &d->rng[4 * (n - 1)]))
				memmove(&d->rng[4 * n++], &d->rng[4 * i], 4 * sizeof *d->rng);
		in->dp_rng = d->rng;
		in->dp_nrng = n;
		in->dp_rounds = d->rounds;
		d->rng = NULL;
	}
	if (d->oom && !in->mem_hit)
		rc = -1;
out:
	ilp_mem_give(in, (size_t)d->caphead * sizeof *d->head + (size_t)d->caplab * sizeof *d->lab +
			(size_t)d->capb * 4 * sizeof(double) + (size_t)d->caprng * 4 * sizeof *d->rng);
	ilp_pcache_free(&d->pc);
	free(d->gpre);
	free(d->tpre);
	free(d->head);
	free(d->lab);
	free(d->tf);
	free(d->gf);
	free(d->tb);
	free(d->gb);
	free(d->rng);
	free(d->cut);
	free(d);
	return rc;
}
