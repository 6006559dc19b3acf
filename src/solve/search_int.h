/* search_int.h - internals shared by the search's files (the outer enumerator and the
 * driver). Not part of the API: callers use search.h. */
#ifndef STRATA_SOLVE_SEARCH_INT_H
#define STRATA_SOLVE_SEARCH_INT_H

#include "solve/search.h"

/* An outer-level candidate: a fitting strategy and its even-split score. */
typedef struct {
	strategy_t s;
	double key;                  /* what ranks it: the score hook's value, else step */
	double step, peak, mfu, tps; /* seconds, bytes, fraction, tokens/s */
	int unit;                    /* the unit it came from */
} search_cand;

/* Bounded heap of the best candidates; the root is the worst kept. */
typedef struct {
	search_cand *c;
	int n, cap;
} search_heap;

/* A unit of outer work: one device split with its expert layout. Units are
 * handed to threads one at a time, so the partition adapts to uneven subtree sizes. */
typedef struct {
	int tp, cp, pp, dp, ep, etp;
	unsigned sched_ok, sp_ok;  /* bit per value some strategy of the split may use */
	unsigned long long cpk_ok; /* bit per Ulysses degree of the variants likewise */
	long long leaves;          /* strategies below it before those checks */
} search_unit;

#define SEARCH_KINDS 4096  /* entries of a worker's layer-kind cost cache (a power of 2; 6 MB) */
#define SEARCH_WHY 320     /* bytes of a reason, as search_result.why */
#define SEARCH_MAX_DIV 2048 /* no number below 2^30 has more than 1344 divisors */
#define SEARCH_MAX_USP 6    /* Ulysses degrees strictly inside cp a unit tries */
#define SEARCH_MAX_RED 5    /* redundant-expert counts a unit tries (search_space.c) */
#define SEARCH_MAX_VAR 64   /* column variants: (2 + SEARCH_MAX_USP) x SEARCH_MAX_RED, bits of cpk_ok */

/* The values of every field below a unit, in enumeration order. */
typedef struct {
	int zero[4], nzero;
	int sched[SCHED_COUNT], nsched;
	int rc[RC_COUNT], nrc;
	int sp[2], nsp;
	/* column variants: the Ulysses degree of CP (1 ring, -1 Ulysses, else USP's) and
	 * the redundant experts per EP rank, crossed (search_var_set) */
	int cpk[SEARCH_MAX_VAR], red[SEARCH_MAX_VAR], ncpk;
	int nred;                  /* redundancies per Ulysses degree (variant i has degree i/nred) */
	int mbs[SEARCH_MAX_DIV], nmbs; /* ascending */
} search_lists;

/* Lower-bound terms of one column (sp, cp kind, micro-batch) of a unit, in seconds per
 * step: a + r[recompute] + pv * vpp <= eval_run's step time. */
typedef struct {
	int ok;                    /* some strategy of the column can be valid */
	double a, r[RC_COUNT], pv;
	double m;                  /* micro-batches per step */
	double nocp;               /* the largest CP-free micro-batch sum priced in the row up to
	                            * this micro-batch (-1: none; search_unit.c, fill_table) */
} search_col;

/* The part of a bound-table column that depends on neither dp nor pp, per eval_kinds_same
 * class: the embedding, head and layer time of one micro-batch's forward and backward (base)
 * and its recompute by mode, summed as fill_col sums them; and the P2P time of one
 * transfer by the pipeline link (0 in the scale-up domain, 1 on the network; NAN until
 * priced), the only other term a column reads. */
typedef struct {
	eval_kinds_key key;
	double base, rc[RC_COUNT], p2p[2];
	double nocp;               /* base without the layers' CP communication: the same for every
	                            * Ulysses degree of the class (eval_kinds_resplit) */
} search_colsum;

#define SEARCH_COLSUMS 65536 /* entries of a worker's column-sum cache (a power of 2; 6 MB) */

/* The prepared space, shared read-only by the threads (but for the counters). */
typedef struct {
	const search_job *job;
	const search_opts *opt;
	strategy_t base;           /* job settings, pinned settings and pinned recompute ranges */
	int fix[PIN_NKEYS], val[PIN_NKEYS]; /* pinned fields and their values */
	double budget_gib, budget; /* GiB and bytes */
	int layers;
	search_unit *unit;
	int nunit;
	long long shapes, shapes_valid;
	int pool;                  /* heap capacity */
	int phase;                 /* 0: sampling, 1: scoring */
	int bound;                 /* the step-time bound prunes (no score hook, not exhaustive) */
	double theta;              /* time threshold so far (INFINITY: none) */
	int *order;                /* units in the order they are handed out */
	int hi;                    /* the phase takes order[next .. hi) */
	atomic_int next, done;     /* next position to take; units scored */
	char why[SEARCH_WHY];      /* first rejection of a device split (canonical order) */
	strategy_t why_s;
	int have_why;
	int aborted;               /* a hook aborted: hook_why says why (hooks run on one thread) */
	char hook_why[SEARCH_WHY];
	double ilp_spent;          /* seconds the inner level has used (over deeper re-runs) */
} search_space;

/* One thread's share: its heap, counters and the first rejection it saw. */
typedef struct {
	search_space *sp;
	search_heap heap;          /* the thread's best (phase 0: its sample) */
	search_heap unit_best;     /* the best of the unit being scored */
	eval_costs ec;             /* scratch for the time bound */
	search_col *col;           /* the unit's bound table: [sp][variant][micro-batch] */
	size_t col_cap;            /* entries allocated */
	long long enumerated, checked, valid, filtered, bounded, evaluated, fit, faster;
	char why[SEARCH_WHY];
	strategy_t why_s;
	int have_why;
	double least_peak;         /* bytes, 0 when none */
	strategy_t least_s;
	eval_result *r;
	eval_kinds *kinds;         /* layer-kind costs by eval_kinds_same class (search_eval) */
	eval_kinds_key *kinds_key; /* the class each entry was priced for */
	unsigned char *kinds_ok;   /* entry filled */
	search_colsum *colsum;     /* bound-table sums by eval_kinds_same class (fill_col) */
	unsigned char *colsum_ok;  /* entry holds a class (colsum itself is never zeroed) */
	int caller;                /* runs on the caller's thread: reports progress */
} search_worker;

/* Order of candidates: lower key (faster, or the better score) first, then the lower peak
 * memory (more headroom), then the canonical strategy order. */
int search_cand_cmp(const search_cand *a, const search_cand *b);
/* Offer a candidate to a bounded heap (copied when kept). */
void search_heap_offer(search_heap *h, const search_cand *c);
/* Build the space for a job and pins: the device splits allowed and the units below them.
 * 0, or -1 with why (sp->why) when the pins contradict or out of memory. */
int search_space_init(search_space *sp, const search_job *job, const pin_set *pins, const search_opts *o);
void search_space_free(search_space *sp);
/* Thread body: take units until none is left or the search is cancelled. */
void *search_worker_run(void *arg);
/* Divisors of n in ascending order into out[SEARCH_MAX_DIV]; returns the count. */
int search_divisors(long long n, int *out);
/* The values below a unit; filter drops those its split's probe ruled out. */
void search_unit_lists(const search_space *sp, const search_unit *u, int filter, search_lists *L);
/* Set the cp kind, Ulysses degree and redundant experts of s (whose cp is set) to column
 * variant i of L. */
static inline void search_var_set(strategy_t *s, const search_lists *L, int i)
{
	int u = L->cpk[i]; /* -1: Ulysses over all of cp */
	s->cp_kind = (uint8_t)(u < 0 ? CP_ULYSSES : CP_RING);
	s->cp_ulysses = u > 1 ? u : 0;
	s->moe_redundant = L->red[i];
}
/* The vpp values a schedule takes in a pipeline of pp stages: [lo, hi] (empty if hi < lo). */
void search_vpp_range(const search_space *sp, int pp, int sched, int *lo, int *hi);
/* Run the filter hook on s: 1 keep (also without a hook), 0 drop, -1 aborted (sp->aborted). */
int search_hook_filter(search_space *sp, const strategy_t *s);
/* The ranking key of a fitting s evaluated as r: the score hook's value, else the step
 * time. INFINITY: the hook dropped it; NAN: it aborted (sp->aborted). */
double search_hook_key(search_space *sp, const strategy_t *s, const eval_result *r);
/* The micro-batch sum of a bound-table column (search_colsum.base): the embedding, head and
 * layers' forward and backward seconds of one micro-batch from eval_costs_time's tables.
 * It never decreases with the micro-batch (search_unit.c, fill_table, has why). */
double search_col_base(const model_t *m, const eval_costs *ec);
/* The layers' exposed CP communication of one micro-batch in the layer-kind costs k: what
 * search_col_base holds of it. base less it (search_colsum.nocp) is the same for every
 * Ulysses degree and never decreases with the micro-batch either. */
double search_col_cp(const model_t *m, const eval_kinds *k);
/* Keep the canonically first rejection reason. */
void search_note_why(char *why, strategy_t *why_s, int *have, const char *reason, const strategy_t *s);

#endif
