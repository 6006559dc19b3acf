/* ilp_stage.c - the stage model's options: "stage s holds layers [a, b)" with the fastest
 * recompute mix that fits (ilp_knap), for every (s, a, b) some plan better than the best
 * known one can use.
 *
 * What bounds the enumeration:
 *  - a threshold on every stage's time: a plan better than one of makespan M has
 *    cM max T + h(g0) < M (g0: the least sum of g of any plan, no free recomputation), so
 *    no stage is slower than (M - h(g0)) / cM;
 *  - capacities: under that threshold stage s holds at most cap_s layers (its constants
 *    plus its cheapest layers), so a stage starting at a needs a >= L - (cap_s + ... +
 *    cap_{p-1}), and its end b >= L - (cap_{s+1} + ...): the band of positions a stage
 *    can reach narrows to what the stages after it can still finish.
 * A first plan comes from the fixed-threshold DP (the least sum of g with every stage
 * under a threshold) at thresholds rising from the average stage time by 1 %, 2 %, 4 %,
 * ...: a tight threshold leaves only a narrow band, so it is cheap, and its plan sets the
 * threshold of the full enumeration. That plan is also what the solve returns when the
 * enumeration is cut short (time limit, cancel, memory cap). */
#include "solve/ilp_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* More options than this and the stage model is solved by the threshold DP over cached
 * prices alone (ilp_stage_exact): GLPK would not load them in reasonable time. */
#define ILP_STAGE_OPTS_MAX 200000

int ilp_add_opt(ilp_inst *in, const ilp_opt *o)
{
	if (in->nopt == in->capopt) {
		int cap = in->capopt ? 2 * in->capopt : 1024;
		if (ilp_mem_take(in, (size_t)(cap - in->capopt) * sizeof *in->opt))
			return -1;
		ilp_opt *n = realloc(in->opt, (size_t)cap * sizeof *n);
		if (!n) {
			ilp_mem_give(in, (size_t)(cap - in->capopt) * sizeof *in->opt);
			return -1;
		}
		in->opt = n;
		in->capopt = cap;
	}
	in->opt[in->nopt++] = *o;
	return 0;
}

/* Per-stage and per-layer least times (no free recomputation), for g0 and capacities. */
typedef struct {
	double ct[EVAL_MAX_STAGES];       /* T of stage s holding nothing (the MTP on the last) */
	double *lsum;                     /* prefix sums of the layers' T, ascending (L + 1) */
	double tavg;                      /* average stage time: no threshold below it admits a plan */
	int capsuf[EVAL_MAX_STAGES + 1];  /* layers stages s.. hold at most under the threshold */
} bounds_t;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Constants, the layers' least times and g0. 0, or -1 when out of memory. */
static int bounds_init(ilp_inst *in, bounds_t *bd)
{
	const int L = in->L, p = in->p;
	const ilp_form *f = &in->form;
	bd->lsum = malloc((size_t)(L + 1) * sizeof *bd->lsum);
	if (!bd->lsum)
		return -1;
	ilp_mix x;
	ilp_price q, c0;
	memset(&x, 0, sizeof x);
	double g0 = 0, tsum = 0;
	for (int s = 0; s < p; s++) {
		memset(&x, 0, sizeof x);
		if (s == p - 1 && in->mtp > 0)
			x.n[in->mtp_kind][RC_NONE] = in->mtp;
		ilp_price_stage(in->ec, in->nk, s, &x, &q);
		bd->ct[s] = q.f + q.b;
		tsum += bd->ct[s];
		g0 += ilp_form_g(f, &q);
	}
	memset(&x, 0, sizeof x);
	ilp_price_stage(in->ec, in->nk, 0, &x, &c0);
	double *lt = bd->lsum + 1;
	for (int l = 0; l < L; l++) {
		int k = model_layer_kind(in->m, in->virt ? 0 : l), mode = in->rcpin[in->virt ? 0 : l];
		memset(&x, 0, sizeof x);
		x.n[k][mode >= 0 ? mode : RC_NONE] = 1;
		ilp_price_stage(in->ec, in->nk, 0, &x, &q);
		lt[l] = q.f + q.b - (c0.f + c0.b);
		g0 += ilp_form_g(f, &q) - ilp_form_g(f, &c0);
	}
	qsort(lt, (size_t)L, sizeof *lt, cmp_double);
	bd->lsum[0] = 0;
	for (int l = 0; l < L; l++) {
		tsum += lt[l];
		bd->lsum[l + 1] = bd->lsum[l] + lt[l];
	}
	bd->tavg = tsum / p;
	in->g0 = g0;
	return 0;
}

/* capsuf for threshold tau: stage s holds at most the n cheapest layers that keep it
 * under tau (a little slack: the stage's exact sum rounds differently). */
static void capacities(const ilp_inst *in, bounds_t *bd, double tau)
{
	const int L = in->L;
	bd->capsuf[in->p] = 0;
	for (int s = in->p - 1; s >= 0; s--) {
		int n = L;
		if (tau < INFINITY) {
			double room = tau * (1 + 1e-9) + 1e-12 - bd->ct[s];
			int lo = 0, hi = L; /* the largest n with lsum[n] <= room */
			if (room < 0) {
				hi = 0;
			} else {
				while (lo < hi) {
					int mid = (lo + hi + 1) / 2;
					if (bd->lsum[mid] <= room)
						lo = mid;
					else
						hi = mid - 1;
				}
			}
			n = hi;
		}
		if (in->cnt_pin[s] >= 0 && in->cnt_pin[s] < n)
			n = in->cnt_pin[s];
		long sum = (long)bd->capsuf[s + 1] + n;
		bd->capsuf[s] = sum > L ? L : (int)sum;
	}
}

double ilp_tlower(const ilp_inst *in, int st, int (*fixed)[RC_COUNT], const int *nfree, ilp_price *q)
{
	ilp_mix x;
	for (int k = 0; k < in->nk; k++) {
		for (int mode = 0; mode < RC_COUNT; mode++)
			x.n[k][mode] = fixed[k][mode];
		x.n[k][RC_NONE] += nfree[k];
	}
	ilp_price_stage(in->ec, in->nk, st, &x, q);
	return q->f + q->b - q->rc;
}

/* Stage st holding [a, b) as far as the pins go: 1 yes, 0 not this b (a longer range may
 * do), -1 no longer range can: a stage's layer count, and layers pinned to stages. */
static int pinned_ok(const ilp_inst *in, int st, int a, int b)
{
	int want = in->cnt_pin[st];
	if (want >= 0 && b - a > want)
		return -1;
	if (want >= 0 && b - a != want)
		return 0;
	return in->virt ? 1 : ilp_stage_pins_ok(in, st, a, b);
}

typedef int (*range_fn)(ilp_inst *in, void *ctx, const ilp_opt *o);

/* The options of stage st that start at a and end at blo or later, with T <= tau, in
 * order of b: fn(o) for each. *cut is set when a range was left out for its time alone.
 * 0, 1 when fn asked to stop, -1 when stopped. */
static int ranges(ilp_inst *in, int st, int a, double tau, int blo, range_fn fn, void *ctx, int *cut)
{
	const int p = in->p, L = in->L, minn = in->virt ? in->v : 1;
	int bmax = L - (p - 1 - st) * minn, bmin = st == p - 1 ? L : a + minn;
	if (bmin < blo)
		bmin = blo;
	int fixed[MODEL_MAX_KINDS][RC_COUNT], nfree[MODEL_MAX_KINDS];
	for (int b = bmin; b <= bmax; b++) {
		int ok = pinned_ok(in, st, a, b);
		if (ok < 0)
			break;
		if (!ok)
			continue;
		ilp_range_counts(in, a, b, st == p - 1, fixed, nfree);
		ilp_opt o;
		memset(&o, 0, sizeof o);
		if (ilp_tlower(in, st, fixed, nfree, &o.q) > tau) {
			*cut = 1;
			break; /* longer ranges are slower still */
		}
		if (ilp_knap_best(&in->knap, st, (const int(*)[RC_COUNT])fixed, nfree, &o.mix, &o.q))
			break; /* does not fit: longer ranges do not either (or stopped) */
		o.st = o.unit = st;
		o.a = a;
		o.b = b;
		o.T = o.q.f + o.q.b;
		o.g = ilp_form_g(&in->form, &o.q);
		if (o.T > tau) {
			*cut = 1;
			break; /* the fastest fitting mix of a longer range is slower still */
		}
		int rc = fn(in, ctx, &o);
		if (rc)
			return rc;
		if (ilp_tick(in, 1))
			return -1;
	}
	return ilp_tick(in, 1) ? -1 : 0;
}

/* One stage [a, b) priced as the enumeration prices it; 0, or -1 when it does not fit. */
static int price_range(ilp_inst *in, int st, int a, int b, ilp_opt *o)
{
	int fixed[MODEL_MAX_KINDS][RC_COUNT], nfree[MODEL_MAX_KINDS];
	ilp_range_counts(in, a, b, st == in->p - 1, fixed, nfree);
	memset(o, 0, sizeof *o);
	if (ilp_knap_best(&in->knap, st, (const int(*)[RC_COUNT])fixed, nfree, &o->mix, &o->q))
		return -1;
	o->st = o->unit = st;
	o->a = a;
	o->b = b;
	o->T = o->q.f + o->q.b;
	o->g = ilp_form_g(&in->form, &o->q);
	return 0;
}

/* The fixed-threshold DP over cached prices (no options): the first plan, and for stage
 * models too large to enumerate the whole exact scan (ilp_stage_exact). Kept on the
 * instance between the two (ilp_stage_free). */
struct ilp_sdp {
	ilp_pcache pc;
	bounds_t bd;
	double *F;      /* (p + 1) * (L + 1): least sum of g to reach (stage, position) */
	int *par;       /* where the stage ending there started */
	int *cut;       /* the path of the last pass (p + 1) */
	double tmax;    /* its slowest stage */
	size_t bytes;   /* taken from the memory cap */
};

void ilp_stage_free(ilp_inst *in)
{
	struct ilp_sdp *x = in->sdp;
	if (!x)
		return;
	ilp_mem_give(in, x->bytes);
	ilp_pcache_free(&x->pc);
	free(x->bd.lsum);
	free(x->F);
	free(x->par);
	free(x->cut);
	free(x);
	in->sdp = NULL;
}

/* The instance's DP state, made on first use (g0 and the constants with it); NULL when
 * out of memory or over the memory cap. */
static struct ilp_sdp *sdp_get(ilp_inst *in)
{
	if (in->sdp)
		return in->sdp;
	const int p = in->p, W = in->L + 1, minn = in->virt ? in->v : 1;
	size_t bytes = (size_t)(p + 1) * W * (sizeof(double) + sizeof(int)) + (size_t)(in->L + 1) * sizeof(double);
	struct ilp_sdp *x = calloc(1, sizeof *x);
	if (!x)
		return NULL;
	in->sdp = x;
	if (ilp_mem_take(in, bytes)) {
		ilp_stage_free(in);
		return NULL;
	}
	x->bytes = bytes;
	x->F = malloc((size_t)(p + 1) * W * sizeof *x->F);
	x->par = malloc((size_t)(p + 1) * W * sizeof *x->par);
	x->cut = malloc((size_t)(p + 1) * sizeof *x->cut);
	if (!x->F || !x->par || !x->cut || bounds_init(in, &x->bd) ||
			ilp_pcache_init(&x->pc, in, in->L - (p - 1) * minn, in->tau_max)) {
		ilp_stage_free(in);
		return NULL;
	}
	return x;
}

/* Price of stage st holding [a, b) from the cache. */
static ilp_pcost xprice(ilp_inst *in, struct ilp_sdp *x, int st, int a, int b)
{
	int cnt[ILP_NPK];
	for (int u = 0; u < x->pc.U; u++)
		cnt[u] = in->virt ? b - a : ilp_cnt(in, x->pc.upk[u], a, b);
	return ilp_pcache_get(&x->pc, st, cnt);
}

/* One pass at threshold tau: the least sum of g with every stage's T <= tau, its path in
 * cut[] and slowest stage in tmax. Returns the sum (INFINITY: no plan), NAN when stopped
 * or the cache failed. *tcut: a stage was left out for its time alone. The loops are
 * those of ranges(), on cached prices (the same knapsack on the same counts). */
static double xpass(ilp_inst *in, struct ilp_sdp *x, double tau, int *tcut)
{
	const int p = in->p, L = in->L, W = L + 1, minn = in->virt ? in->v : 1;
	double *F = x->F;
	int *par = x->par;
	capacities(in, &x->bd, tau);
	for (long i = 0; i < (long)(p + 1) * W; i++)
		F[i] = INFINITY;
	F[0] = 0;
	for (int st = 0; st < p; st++) {
		int blo = L - x->bd.capsuf[st + 1];
		for (int a = L - x->bd.capsuf[st] > 0 ? L - x->bd.capsuf[st] : 0; a < L; a++) {
			if (F[st * W + a] == INFINITY)
				continue;
			int bmax = L - (p - 1 - st) * minn, bmin = st == p - 1 ? L : a + minn, cnt[ILP_NPK];
			bmin = bmin < blo ? blo : bmin;
			memset(cnt, 0, sizeof cnt);
			for (int b = a + 1; b <= bmax; b++) {
				cnt[in->virt ? 0 : x->pc.lu[b - 1]]++;
				int ok = b < bmin ? 0 : pinned_ok(in, st, a, b);
				if (ok < 0)
					break;
				if (!ok)
					continue;
				ilp_pcost c = ilp_pcache_get(&x->pc, st, cnt);
				if (!c.ok || c.T > tau) {
					*tcut |= c.T > tau; /* (when not ok, T is the time without free recompute) */
					break;
				}
				double v = F[st * W + a] + c.g;
				if (v < F[(st + 1) * W + b]) {
					F[(st + 1) * W + b] = v;
					par[(st + 1) * W + b] = a;
				}
			}
			if (ilp_tick(in, bmax - a) || x->pc.failed)
				return NAN;
		}
	}
	double g = F[p * W + L];
	if (g == INFINITY)
		return g;
	x->cut[p] = L;
	x->tmax = 0;
	for (int st = p - 1; st >= 0; st--) {
		x->cut[st] = par[(st + 1) * W + x->cut[st + 1]];
		ilp_pcost c = xprice(in, x, st, x->cut[st], x->cut[st + 1]);
		x->tmax = c.T > x->tmax ? c.T : x->tmax;
	}
	return g;
}

/* Make the plan with these cuts the first plan when it is better than the one there. */
static void take_first(ilp_inst *in, const int *cut)
{
	const ilp_form *f = &in->form;
	ilp_opt *fo = malloc((size_t)in->p * sizeof *fo);
	if (!fo)
		return;
	double tm = 0, g = 0;
	for (int st = 0; st < in->p; st++) {
		if (price_range(in, st, cut[st], cut[st + 1], &fo[st])) {
			free(fo); /* stopped while pricing */
			return;
		}
		tm = fo[st].T > tm ? fo[st].T : tm;
		g += fo[st].g;
	}
	double val = f->cM * tm + ilp_form_h(f, g);
	if (in->fp_opt && val >= in->fp_val) {
		free(fo);
		return;
	}
	free(in->fp_opt);
	in->fp_opt = fo;
	in->fp_val = val;
	double t = (val - ilp_form_h(f, in->g0)) / f->cM * (1 + 1e-9);
	in->tau_max = t < in->tau_max ? t : in->tau_max;
}

/* The plan's own split (when it fits) as the first plan: a first plan already. */
static void base_first(ilp_inst *in)
{
	if (in->ub0 == INFINITY)
		return;
	int cut[EVAL_MAX_STAGES + 1];
	cut[0] = 0;
	for (int st = 0; st < in->p; st++)
		cut[st + 1] = cut[st] + in->base_n[st];
	in->grace = 1; /* p knapsacks, after a stop too */
	take_first(in, cut);
	in->grace = 0;
}

int ilp_stage_first(ilp_inst *in)
{
	const ilp_form *f = &in->form;
	struct ilp_sdp *x = sdp_get(in);
	if (!x)
		return in->mem_hit ? 0 : -1; /* at the cap: the enumeration is bounded by tau_max alone */
	/* no better plan has a stage slower than this (the caller's tau_max came from M >= m T) */
	if (in->ub0 < INFINITY) {
		double t = (in->ub0 - ilp_form_h(f, in->g0)) / f->cM * (1 + 1e-9);
		in->tau_max = t < in->tau_max ? t : in->tau_max;
	}
	if (in->prm->no_dp)
		return 0;
	base_first(in);
	for (int k = 0; k < 16; k++) {
		double tau = x->bd.tavg * (1 + 0.01 * (1 << k));
		tau = tau < in->tau_max ? tau : in->tau_max;
		int tcut = 0;
		double g = xpass(in, x, tau, &tcut);
		if (isnan(g))
			break; /* stopped */
		if (g < INFINITY) {
			take_first(in, x->cut);
			break;
		}
		if (!tcut || tau == in->tau_max)
			break; /* no stage was cut for its time: no threshold admits a plan */
	}
	return 0;
}

static int add(ilp_inst *in, void *ctx, const ilp_opt *o)
{
	char *reach = ctx;
	if (in->nopt >= ILP_STAGE_OPTS_MAX) {
		in->opts_many = 1;
		return 1;
	}
	if (ilp_add_opt(in, o)) {
		in->opts_cut = 1;
		return 1;
	}
	reach[(o->st + 1) * (in->L + 1) + o->b] = 1;
	return 0;
}

int ilp_stage_options(ilp_inst *in)
{
	const int p = in->p, L = in->L, W = L + 1;
	bounds_t bd;
	struct ilp_sdp *x = in->sdp;
	if (x) {
		bd = x->bd;
		capacities(in, &bd, in->tau_max);
	} else {
		for (int s = 0; s <= p; s++) /* no bounds (memory cap): every position */
			bd.capsuf[s] = s < p ? L : 0;
	}
	char *reach = calloc((size_t)(p + 1) * W, 1);
	if (!reach)
		return -1;
	reach[0] = 1;
	int tcut = 0;
	for (int st = 0; st < p && !in->opts_cut && !in->opts_many; st++) {
		for (int a = L - bd.capsuf[st] > 0 ? L - bd.capsuf[st] : 0; a < L && !in->opts_cut && !in->opts_many; a++) {
			if (!reach[st * W + a])
				continue;
			if (ranges(in, st, a, in->tau_max, L - bd.capsuf[st + 1], add, reach, &tcut) < 0)
				in->opts_cut = 1;
		}
	}
	free(reach);
	if (!in->opts_cut && !in->opts_many)
		ilp_prune_dead(in, p);
	return 0;
}

int ilp_stage_first_options(ilp_inst *in)
{
	in->nopt = 0;
	free(in->warm);
	in->warm = NULL;
	if (!in->fp_opt)
		base_first(in); /* stopped before there was one */
	if (!in->fp_opt)
		return 0;
	int *warm = malloc((size_t)in->p * sizeof *warm);
	if (!warm)
		return -1;
	for (int st = 0; st < in->p; st++) {
		if (ilp_add_opt(in, &in->fp_opt[st])) {
			free(warm);
			in->nopt = 0;
			return -1;
		}
		warm[st] = st;
	}
	in->warm = warm;
	in->ub = in->fp_val;
	return 0;
}


/* Distinct times of the cached prices that fit, ascending, under tau (malloc'd). */
static int xtimes(struct ilp_sdp *x, double tau, double **out)
{
	double *ts = malloc((size_t)(x->pc.nval + 1) * sizeof *ts); /* no larger than the cache */
	if (!ts)
		return -1;
	int n = 0;
	for (int i = 0; i < x->pc.nval; i++)
		if (x->pc.val[i].ok && x->pc.val[i].T <= tau)
			ts[n++] = x->pc.val[i].T;
	qsort(ts, (size_t)n, sizeof *ts, cmp_double);
	int nt = 0;
	for (int i = 0; i < n; i++)
		if (!nt || ts[i] > ts[nt - 1])
			ts[nt++] = ts[i];
	*out = ts;
	return nt;
}

/* The options of a plan's stages as the model (and warm start). 0, or -1 when a stage
 * could not be priced (stopped) or out of memory. */
static int plan_options(ilp_inst *in, const int *cut)
{
	int *warm = malloc((size_t)in->p * sizeof *warm);
	if (!warm)
		return -1;
	in->nopt = 0;
	in->grace = 1; /* p knapsacks, after a stop too */
	for (int st = 0; st < in->p; st++) {
		ilp_opt o;
		if (price_range(in, st, cut[st], cut[st + 1], &o) || ilp_add_opt(in, &o)) {
			free(warm);
			in->nopt = 0;
			in->grace = 0;
			return -1;
		}
		warm[st] = st;
	}
	in->grace = 0;
	free(in->warm);
	in->warm = warm;
	return 0;
}

int ilp_stage_exact(ilp_inst *in)
{
	const int p = in->p;
	const ilp_form *f = &in->form;
	struct ilp_sdp *x = sdp_get(in);
	if (!x)
		return in->mem_hit ? 0 : -1; /* at the cap: the first plan stands */
	int *bestcut = malloc((size_t)(p + 1) * sizeof *bestcut), tcut = 0;
	double *ts = NULL;
	if (!bestcut)
		return -1;
	/* every price under tau_max, and the least sum of g */
	double gmin = xpass(in, x, in->tau_max, &tcut);
	if (gmin == INFINITY && !in->fp_opt && in->ub0 == INFINITY)
		in->none = 1; /* no threshold and no plan: none fits */
	int nt = isnan(gmin) || gmin == INFINITY ? 0 : xtimes(x, in->tau_max, &ts);
	if (nt < 0) {
		free(bestcut);
		return -1;
	}
	double best = INFINITY;
	if (in->fp_opt) { /* the first plan: what a better one must beat */
		best = in->fp_val;
		for (int st = 0; st < p; st++)
			bestcut[st] = in->fp_opt[st].a;
		bestcut[p] = in->L;
	}
	int exact = nt > 0, lo = 0, hi = nt - 1;
	while (lo < hi && exact) { /* the bottleneck: the least threshold with a plan */
		int mid = (lo + hi) / 2;
		double g = xpass(in, x, ts[mid], &tcut);
		exact = !isnan(g);
		if (g < INFINITY)
			hi = mid;
		else
			lo = mid + 1;
	}
	for (int i = lo; i < nt && exact; i++) {
		if (f->cM * ts[i] + ilp_form_h(f, gmin) >= best * (1 - 1e-12))
			break; /* no larger threshold can do better */
		double g = xpass(in, x, ts[i], &tcut);
		exact = !isnan(g);
		double v = f->cM * x->tmax + ilp_form_h(f, g);
		if (g < INFINITY && v < best) {
			best = v;
			memcpy(bestcut, x->cut, (size_t)(p + 1) * sizeof *bestcut);
		}
	}
	if (best < INFINITY && !plan_options(in, bestcut)) {
		in->ub = best;
		if (exact) {
			in->lb = best;
			in->tau_lb = ts[lo];
		}
	}
	free(bestcut);
	free(ts);
	return 0;
}
