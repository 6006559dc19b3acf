/* ilp_int.h - internals shared by the ILP's files (pricing, knapsack, model). Not part
 * of the API: the TUI and the search use ilp.h. */
#ifndef STRATA_SOLVE_ILP_INT_H
#define STRATA_SOLVE_ILP_INT_H

#include <time.h>

#include "solve/ilp.h"

#define ILP_NPK (MODEL_MAX_KINDS * 4) /* pseudo-kinds: kind x (free, pinned none/sel/full) */
#define ILP_FREE 3                    /* pseudo-kind slot of the layers the ILP decides */

/* What a stage holds: layers per kind and recompute mode (MTP included). */
typedef struct {
	int n[MODEL_MAX_KINDS][RC_COUNT];
} ilp_mix;

/* A stage's price: seconds per micro-batch and bytes, exactly as eval_run adds them. */
typedef struct {
	double f, b, w, rc, mem, work;
} ilp_price;

/* The makespan as cM * max_s T_s + h(sum_s g_s), g = gF f + gB b - gW w and h linear
 * (cS) or a hinge (cZ * max(0, x / p)): the solvers minimise this form. The price
 * (ilp_makespan) is eval_run's, which for some schedules is more than the form: GPipe's
 * phases paced apart, ZB-H1/H2 with too few micro-batches to fill the warm-up, ZB-V's
 * max(F, B_in) and its shortfall (core/cost/schedule.c): the form is then a lower bound;
 * DualPipe's is less (paced by its busiest pair of mirrored stages, not the slowest stage):
 * the form is then an upper bound. Either way the solvers' optimum is not proven. */
typedef struct {
	int p, m, v, extra; /* extra: the price may exceed the form (sched_bubble prices it) */
	double cM, cS, cZ, gF, gB, gW;
	strategy_t s;       /* pp, vpp and schedule, for sched_bubble */
} ilp_form;

/* Price stage st holding mix x. */
void ilp_price_stage(const eval_costs *ec, int nkinds, int st, const ilp_mix *x, ilp_price *o);
/* The schedule's makespan form. */
void ilp_form_init(const eval_costs *ec, ilp_form *f);
/* A stage's term in the sum. */
double ilp_form_g(const ilp_form *f, const ilp_price *q);
/* The sum part of the makespan for a sum of g. */
double ilp_form_h(const ilp_form *f, double gsum);
/* Makespan of p priced stages: eval_run's pipeline time. */
double ilp_makespan(const ilp_form *f, const ilp_price *st);
/* The solvers' form for p priced stages. */
double ilp_form_value(const ilp_form *f, const ilp_price *st);
/* What the makespan of p priced stages exceeds the solvers' form by (0 for most schedules;
 * DualPipe's, paced by its busiest pair of mirrored stages, is at most 0). */
double ilp_form_extra(const ilp_form *f, const ilp_price *st);
/* Idle split of p priced stages: preparation, imbalance, recomputation, useful work. */
void ilp_bubbles(const ilp_form *f, const ilp_price *st, double *prep, double *imb, double *rc,
		double *useful);

/* Recompute knapsack: a point is a choice of how many free layers of each kind go
 * selective and full, with the activation bytes it saves per micro-batch and the seconds
 * it adds. */
typedef struct {
	double save, time;
	int16_t sel[MODEL_MAX_KINDS], full[MODEL_MAX_KINDS];
} ilp_cpt;

/* A point of one kind's front: only the counts (save and time follow from them). */
typedef struct {
	int16_t sel, full;
} ilp_kpt;

/* One kind's Pareto fronts for 0, 1, ..., top free layers, each built from the one before
 * (the front of n layers is the front of the front of n - 1 plus one layer), kept in one
 * pool while the memory cap allows. */
typedef struct {
	int top;      /* fronts 0 .. top are in the pool (-1: none yet) */
	int *off;     /* [maxn + 2]: front n is pool[off[n] .. off[n + 1]) */
	ilp_kpt *pool;
	size_t cap;   /* points the pool holds */
} ilp_kfront;

struct ilp_inst;

typedef struct {
	int nkinds, maxn;
	const eval_costs *ec;
	struct ilp_inst *in;          /* stop checks and the memory cap (NULL: neither) */
	ilp_kfront kf[MODEL_MAX_KINDS];
	ilp_kpt *scr[2];              /* a front past the pool's (memory cap reached) */
	size_t capscr;
	void *cand;                   /* candidates of a front being built */
	size_t capcand;
	ilp_cpt **xc;                 /* [nkinds][maxn + 1]: fronts with their values, or NULL */
	int *xn;                      /* their sizes */
	size_t xbytes;                /* what they take */
	ilp_cpt *xscr;                /* a front with values that is not kept */
	size_t capx;
} ilp_knap;

/* 0 or -1 (out of memory). in may be NULL (no stop checks, no memory cap). */
int ilp_knap_init(ilp_knap *k, const eval_costs *ec, int nkinds, int maxn, struct ilp_inst *in);
void ilp_knap_free(ilp_knap *k);
/* Front of n free layers of kind `kind`, save ascending, time strictly ascending: *npt
 * points. NULL when out of memory or stopped. Valid until the next call. */
const ilp_kpt *ilp_knap_front(ilp_knap *k, int kind, int n, int *npt);
/* A point's bytes saved and seconds added (the same expressions everywhere). */
double ilp_kpt_save(const eval_kind_cost *q, ilp_kpt x);
double ilp_kpt_time(const eval_kind_cost *q, ilp_kpt x);
/* Fastest recompute of the free layers that fits stage st: fixed[k][mode] are pinned
 * layers, nfree[k] the free ones. Fills mix and price; 0, or -1 when nothing fits (price
 * then holds the least memory found) or the solve was stopped. */
int ilp_knap_best(ilp_knap *k, int st, const int (*fixed)[RC_COUNT], const int *nfree, ilp_mix *mix,
		ilp_price *price);

/* Combined front of the kinds in kinds[0..nk) (save ascending) into *out (malloc'd);
 * returns the count, -1 when out of memory or stopped. */
int ilp_knap_combine(ilp_knap *k, const int *kinds, int nk, const int *nfree, ilp_cpt **out);

/* Stage prices by counts of each pseudo-kind (ilp_pcache.c). */
typedef struct {
	double T, g;
	int ok; /* fits the budget (and its time without free recompute is under tau_cap) */
} ilp_pcost;

typedef struct {
	struct ilp_inst *in;
	int U;                /* pseudo-kinds present */
	int upk[ILP_NPK];     /* their pseudo-kind indices */
	uint8_t *lu;          /* per layer: index into upk */
	double tau_cap;       /* prices over it are not worth a knapsack (ok = 0) */
	int failed;           /* out of memory or at the memory cap: lookups answer "no" */
	ilp_pcost *val;
	int nval, capval;
	int *dense;           /* index into val per (stage, counts), or NULL */
	long ndense, mult[ILP_NPK];
	int radix[ILP_NPK];
	int hcap, hn;         /* else open addressing on (stage, counts): */
	int16_t *hkey;        /* (U + 1) per slot; key[0] = stage + 1, 0 when empty */
	int *hat;
} ilp_pcache;

/* most: the most layers one stage holds. 0, or -1 when out of memory. */
int ilp_pcache_init(ilp_pcache *c, struct ilp_inst *in, int most, double tau_cap);
void ilp_pcache_free(ilp_pcache *c);
/* The price of stage st holding cnt[u] layers of pseudo-kind upk[u] (the MTP added on the
 * last stage), computed once: ilp_pcache_get looks up the dense table in line and calls
 * ilp_pcache_fill for the rest. */
ilp_pcost ilp_pcache_fill(ilp_pcache *c, int st, const int *cnt);

static inline ilp_pcost ilp_pcache_get(ilp_pcache *c, int st, const int *cnt)
{
	if (c->dense) {
		long idx = st;
		int u = 0;
		while (u < c->U && cnt[u] < c->radix[u]) {
			idx += cnt[u] * c->mult[u];
			u++;
		}
		if (u == c->U && c->dense[idx] >= 0)
			return c->val[c->dense[idx]];
	}
	return ilp_pcache_fill(c, st, cnt);
}

/* One choice of the model: a stage (stage model) or a chunk (chunk model) holding layers
 * [a, b) with a recompute mix. On the stage model of a single-kind pipeline with vpp > 1
 * a and b are cumulative layer counts ("virtual" positions): only the count matters. On
 * the round model (the chunk model when everything after round 0 is one kind) a stage
 * holds [a, b) in round 0 and `tail` layers in its later chunks. */
typedef struct {
	int st, unit;  /* stage; flow unit (stage or chunk index) */
	int a, b;
	int tail;      /* round model: layers in the stage's chunks of rounds 1.. (all of one kind) */
	ilp_mix mix;   /* everything it holds (pinned layers included) */
	ilp_price q;   /* stage and round model: the whole stage; chunk model: the chunk's share */
	double T, g;   /* seconds per micro-batch; term of the makespan's sum */
} ilp_opt;

/* A prepared instance. */
typedef struct ilp_inst {
	const model_t *m;
	const eval_costs *ec;
	const ilp_params *prm;
	ilp_form form;
	int L, p, v, P, nk, mtp_kind, mtp;
	int chunk_model, virt;
	int8_t *rcpin;     /* per layer: pinned recompute mode or -1 */
	int16_t *stpin;    /* per layer: pinned stage or -1 */
	int *pre;          /* prefix counts per pseudo-kind: pre[pk * (L + 1) + l] */
	int cnt_pin[EVAL_MAX_STAGES]; /* stage layer count or -1 */
	int has_stage_pins;
	ilp_knap knap;
	ilp_opt *opt;
	int nopt, capopt, nrows;
	ilp_price cst[EVAL_MAX_STAGES]; /* chunk model: each stage's empty price (constants) */
	double tau_max, tau_lb, ub, lb; /* bounds; ub/lb INFINITY/0 when unknown */
	int *warm;         /* a known solution: option per unit (or NULL) */
	int *dp_cut;       /* chunk model: cut positions (P + 1) of the chunk DP's plan, or NULL */
	int dp_exact;      /* chunk model: the DP's plan is proven optimal (in->lb = in->ub) */
	int *dp_rng;       /* chunk model: sorted stages that can be on an optimal plan (or NULL), four ints
	                    * each: (chunk, a, b, 0), or with dp_rounds (stage, a, b, tail layers) */
	int dp_nrng, dp_rounds;
	int round_model;   /* the chunk model posed per stage: round 0's chunk and a tail count */
	int tail_last;     /* rounds form: layers of a suffix pinned to the last stage (or 0) */
	double g0;         /* least sum of g of any plan (no free recomputation) */
	double ub0;        /* the plan's own split with the knapsack's mixes (INFINITY: none) */
	double extra;      /* the returned plan's price beyond the form (ilp_form_extra) */
	ilp_opt *fp_opt;   /* stage model: the first plan's options (p), or NULL */
	double fp_val;     /* its makespan */
	int opts_cut;      /* the options were cut short (stop or memory cap): not all there */
	int opts_many;     /* stage model: too many options for GLPK (ilp_stage_exact instead) */
	int none;          /* stage model: the exact DP searched every plan and found none */
	int base_n[EVAL_MAX_STAGES]; /* the plan's layers per stage (when ub0 is finite) */
	int16_t base_chunk[STRAT_MAX_CHUNKS]; /* and per chunk */
	struct ilp_sdp *sdp; /* stage model: the fixed-threshold DP's state (ilp_stage.c) */
	struct timespec t0;
	int stop;          /* cancelled or out of time */
	int grace;         /* pricing the plan to return after a stop: the work checks let it be */
	long ticks;        /* work since the clock and the cancel flag were last read */
	size_t mem_cap;    /* bytes the big arrays (and GLPK's model, estimated) may take */
	size_t mem_used;   /* bytes taken of it */
	int mem_hit;       /* something was refused or cut short for the cap */
} ilp_inst;

/* Work units between two readings of the clock and the cancel flag: a unit is a small
 * step (a label, a point of a front, a price), so a reading comes every few tens of
 * microseconds. */
#define ILP_TICK 4096

/* Count of pseudo-kind pk in [a, b). */
static inline int ilp_cnt(const ilp_inst *in, int pk, int a, int b)
{
	return in->pre[pk * (in->L + 1) + b] - in->pre[pk * (in->L + 1) + a];
}

/* Flow units of the model: chunks (chunk model) or stages. */
static inline int ilp_units(const ilp_inst *in)
{
	return in->chunk_model && !in->round_model ? in->P : in->p;
}

/* Rounds form: how stage st's t tail layers go to its chunks of rounds first .. v-1 (out[first
 * .. v-1]): evenly, except that the last chunk holds a suffix pinned to the last stage. The
 * price is the same whatever the shares, as the tail is of one kind. */
static inline void ilp_tail_split(const ilp_inst *in, int st, int t, int first, int *out)
{
	const int v = in->v, n0 = v - first;
	int last = st == in->p - 1 && in->tail_last > t / n0 + (n0 - 1 < t % n0) ? in->tail_last : 0;
	int rest = last ? t - last : t, n = last ? n0 - 1 : n0;
	for (int i = 0; i < n; i++)
		out[first + i] = rest / n + (i < rest % n);
	if (last)
		out[v - 1] = last;
}

/* Layers of [a, b) by kind: pinned ones per mode, free ones (MTP added when last). */
void ilp_range_counts(const ilp_inst *in, int a, int b, int last, int (*fixed)[RC_COUNT], int *nfree);
/* 1: [a, b) may go on (a chunk of) stage st as far as stage pins go; 0: not this b, a
 * longer range may do; -1: no longer range can. */
int ilp_stage_pins_ok(const ilp_inst *in, int st, int a, int b);
/* Chunk model: the exact DP over chunk boundaries (ilp_cdp.c). Sets ub, tau_max, tau_lb,
 * g0, dp_cut and, when every start was searched, lb and dp_exact. 0, or -1 when out
 * of memory. */
int ilp_chunk_dp(ilp_inst *in);
/* Chunk model, after the options are built: drop those the DP's bounds exclude, add the
 * DP's chunks as options if missing and set warm. 0, or -1 when out of memory. */
int ilp_chunk_warm(ilp_inst *in);
/* Append an option (its memory taken from the cap); 0, or -1 (out of memory or cap). */
int ilp_add_opt(ilp_inst *in, const ilp_opt *o);
/* Stage model (ilp_stage.c): the least sum of g, a first plan from the fixed-threshold DP
 * (fp_opt) and the threshold it gives every better plan (tau_max). 0, or -1 when out of
 * memory. */
int ilp_stage_first(ilp_inst *in);
/* Stage model: every option under tau_max that some plan can use; opts_cut when stopped
 * or at the memory cap. 0, or -1 when out of memory. */
int ilp_stage_options(ilp_inst *in);
/* Stage model with too many options: the threshold DP over prices by counts; its plan
 * (better than the first one) becomes the options and warm start, with lb when the scan
 * was complete. 0, or -1 when out of memory. */
int ilp_stage_exact(ilp_inst *in);
/* Stage model: release the DP's state. */
void ilp_stage_free(ilp_inst *in);
/* Stage model: the options of the first plan, in stage order (replacing all others). */
int ilp_stage_first_options(ilp_inst *in);
/* Keep only options that lie on some path from position 0 to L. */
void ilp_prune_dead(ilp_inst *in, int units);
/* Least time of stage st holding these layers without free recomputation (q: its price);
 * longer ranges only add to it. */
double ilp_tlower(const ilp_inst *in, int st, int (*fixed)[RC_COUNT], const int *nfree, ilp_price *q);
/* Enumerate the options (and, on the stage model, run the DP bounds); 0, -1 on error. */
int ilp_build_options(ilp_inst *in, char *why, size_t whylen);
/* Solve the model in GLPK; fills chosen[unit] with option indices. Returns an
 * ilp_status; obj/bound/gap on success. lp_only: the relaxation alone, for its bound
 * (ILP_FEASIBLE, obj NaN, chosen untouched). */
int ilp_glpk_solve(ilp_inst *in, int lp_only, int *chosen, double *obj, double *bound, double *gap, char *why,
		size_t whylen);
/* Stop requested (cancel flag or time limit)? Reads the clock. */
int ilp_should_stop(ilp_inst *in);

/* Count `work` units of effort; every ILP_TICK units read the clock and the cancel flag.
 * Nonzero once a stop is requested. */
static inline int ilp_tick(ilp_inst *in, long work)
{
	if (in->stop)
		return !in->grace;
	if ((in->ticks += work) < ILP_TICK)
		return 0;
	in->ticks = 0;
	return ilp_should_stop(in);
}

/* Take bytes of the memory cap before allocating them: 0, or -1 (mem_hit set) when that
 * would go over the cap. ilp_mem_give returns them. */
int ilp_mem_take(ilp_inst *in, size_t bytes);
void ilp_mem_give(ilp_inst *in, size_t bytes);

/* Milliseconds since t0. */
double ilp_ms_since(const struct timespec *t0);

#endif
