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
 * (cS) or a hinge (cZ * max(0, x / p)): every schedule of eval_run has this shape. */
typedef struct {
	int p, m, v;
	double cM, cS, cZ, gF, gB, gW;
} ilp_form;

/* Price stage st holding mix x. */
void ilp_price_stage(const eval_costs *ec, int nkinds, int st, const ilp_mix *x, ilp_price *o);
/* The schedule's makespan form. */
void ilp_form_init(const eval_costs *ec, ilp_form *f);
/* A stage's term in the sum. */
double ilp_form_g(const ilp_form *f, const ilp_price *q);
/* The sum part of the makespan for a sum of g. */
double ilp_form_h(const ilp_form *f, double gsum);
/* Makespan of p priced stages. */
double ilp_makespan(const ilp_form *f, const ilp_price *st);
/* Idle split of p priced stages: preparation, imbalance, recomputation, useful work. */
void ilp_bubbles(const ilp_form *f, const ilp_price *st, double *prep, double *imb, double *rc,
		double *useful);

/* Recompute knapsack: a point is a choice of how many free layers of each kind go
 * selective and full, with the activation bytes it saves per micro-batch and the seconds
 * it adds. A kind's Pareto front for n free layers is cached per (kind, n). */
typedef struct {
	double save, time;
	int16_t sel[MODEL_MAX_KINDS], full[MODEL_MAX_KINDS];
} ilp_cpt;

typedef struct {
	int npt;
	ilp_cpt *pt; /* save ascending, time strictly ascending */
} ilp_front;

typedef struct {
	int nkinds, maxn;
	const eval_costs *ec;
	ilp_front *f; /* [nkinds][maxn + 1], filled lazily */
} ilp_knap;

/* 0 or -1 (out of memory). */
int ilp_knap_init(ilp_knap *k, const eval_costs *ec, int nkinds, int maxn);
void ilp_knap_free(ilp_knap *k);
/* Frontier of n free layers of kind k (NULL when out of memory). */
const ilp_front *ilp_knap_front(ilp_knap *k, int kind, int n);
/* Fastest recompute of the free layers that fits stage st: fixed[k][mode] are pinned
 * layers, nfree[k] the free ones. Fills mix and price; 0, or -1 when nothing fits (price
 * then holds the least memory found). */
int ilp_knap_best(ilp_knap *k, int st, const int (*fixed)[RC_COUNT], const int *nfree, ilp_mix *mix,
		ilp_price *price);

/* Combined front of the kinds in kinds[0..nk) (save ascending) into *out (malloc'd);
 * returns the count, -1 when out of memory. */
int ilp_knap_combine(ilp_knap *k, const int *kinds, int nk, const int *nfree, ilp_cpt **out);

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
typedef struct {
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
	double g0;         /* chunk model: least sum of g of any plan (no recomputation) */
	struct timespec t0;
	int stop;          /* cancelled or out of time while preparing */
} ilp_inst;

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

/* Rounds form: how stage st's t tail layers go to its chunks of rounds 1 .. v-1 (out[1 ..
 * v-1]): evenly, except that the last chunk holds a suffix pinned to the last stage. The
 * price is the same whatever the shares, as the tail is of one kind. */
static inline void ilp_tail_split(const ilp_inst *in, int st, int t, int *out)
{
	const int v = in->v;
	int last = st == in->p - 1 && in->tail_last > t / (v - 1) + (v - 2 < t % (v - 1)) ? in->tail_last : 0;
	int rest = last ? t - last : t, n = last ? v - 2 : v - 1;
	for (int i = 1; i <= n; i++)
		out[i] = rest / n + (i - 1 < rest % n);
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
/* Enumerate the options (and, on the stage model, run the DP bounds); 0, -1 on error. */
int ilp_build_options(ilp_inst *in, char *why, size_t whylen);
/* Solve the model in GLPK; fills chosen[unit] with option indices. Returns an
 * ilp_status; obj/bound/gap on success. */
int ilp_glpk_solve(ilp_inst *in, int *chosen, double *obj, double *bound, double *gap, char *why,
		size_t whylen);
/* Stop requested (cancel flag or time limit)? */
int ilp_should_stop(ilp_inst *in);

/* Milliseconds since t0. */
double ilp_ms_since(const struct timespec *t0);

#endif
