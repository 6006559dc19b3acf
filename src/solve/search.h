/* search.h - the two-level strategy search (after H2O, DESIGN.md sections 1 and 6).
 * Outer level: enumerate every macro strategy of a job (dp, tp, pp, vpp, cp and its kind,
 * ep, etp, ZeRO level, micro-batch, sp, recompute, schedule), skip subtrees that provably
 * cannot be valid or fit, score the rest with eval_run and keep the best in bounded heaps,
 * one per thread. Inner level: refine the best with the bubble ILP (uneven stages,
 * per-layer recompute) and re-rank. Pins (solve/pins.h) fix choices on both levels.
 * Results are deterministic: the same job, pins and options give the same results, in the
 * same order, with any number of threads (ties go to the canonical strategy order).
 * Optional hooks filter and score the candidates (search_opts; they run on one thread).
 * No global state; the ILP runs on the calling thread. docs/search.md has the details. */
#ifndef STRATA_SOLVE_SEARCH_H
#define STRATA_SOLVE_SEARCH_H

#include <stdatomic.h>

#include "core/evaluate.h"
#include "solve/pins.h"

#define SEARCH_MAX_TOP 1000
#define SEARCH_MAX_THREADS 64
#define SEARCH_ILP_MS 500          /* default time limit of one ILP refinement */
#define SEARCH_ILP_BUDGET_MS 3000  /* default time for the whole inner level */

/* A job: what is fixed before the search starts. */
typedef struct {
	const model_t *model;
	const cluster_t *cluster;
	int devices;
	strategy_t base;   /* global_batch and seq_length (the job) and the settings the search
	                    * keeps as they are: precision, flash attention, TP overlap, vocab
	                    * parallelism; every other field is searched */
	double budget_gib; /* <= 0: the cluster default */
} search_job;

/* Progress: level 1 (outer) or 2 (ILP refinement) and the fraction of it done. Called on the
 * thread that called search_run. */
typedef void (*search_progress_fn)(void *user, int level, double done);

/* Per-candidate hooks (strata.search's Lua filter and score). They run on the thread that
 * called search_run, which therefore runs the outer level on that thread alone whenever a
 * hook is set: a hook needs no locking (a Lua state is single-threaded). To abort the
 * search a hook writes a reason into why (whylen bytes) and returns its sentinel; search_run
 * then stops, returns -1 and reports the reason with r->aborted set.
 * filter: called on every valid strategy before it is evaluated (the sample included, so it
 *   should be a pure function of the strategy); 1 keeps it, 0 drops it, -1 aborts. Dropping
 *   candidates only shrinks the space, so every bound stays valid and all pruning is kept.
 * score: called on every fitting strategy with its evaluation (and on the ILP's refined
 *   plan); lower is better, INFINITY drops the candidate, NAN aborts. A score need not grow
 *   with the step time, so the step-time bound is off (memory and rule pruning stay) and
 *   ranking, kept candidates and re-ranking after the ILP all follow the score. */
typedef int (*search_filter_fn)(void *user, const strategy_t *s, char *why, size_t whylen);
typedef double (*search_score_fn)(void *user, const strategy_t *s, const eval_result *r, char *why, size_t whylen);

typedef struct {
	int top;                   /* results wanted (K); 0 means 10 */
	int refine;                /* candidates the ILP refines; 0: 2*top (4*top with stage pins) */
	int threads;               /* 0: one per online CPU */
	int no_ilp;                /* outer level only */
	int ilp_time_limit_ms;     /* per candidate; 0: SEARCH_ILP_MS */
	int ilp_budget_ms;         /* all candidates together; 0: SEARCH_ILP_BUDGET_MS */
	double ref_step;           /* > 0: count fitting strategies faster than this (--compare) */
	const atomic_int *cancel;  /* optional: nonzero stops the search (set from any thread) */
	int exhaustive;            /* no step-time bound: evaluate everything memory and the
	                            * rules leave (same results, slower; checks the bound) */
	search_progress_fn progress;
	void *user;                /* for progress */
	search_filter_fn filter;   /* optional hooks (above); force one thread */
	search_score_fn score;
	void *hook_user;           /* for filter and score */
} search_opts;

#define SEARCH_MAX_ALIKE 16         /* merged strategies an item lists (it counts them all) */
#define SEARCH_ALIKE_REL 1e-9        /* relative tolerance of "identical results" */
#define SEARCH_MAX_POOL 4096         /* how deep the outer level may keep candidates when
                                      * merging leaves fewer than top distinct results */

/* The macro knobs of a strategy: what tells apart the strategies merged into one result. */
typedef struct {
	int dp, tp, pp, vpp, cp, cp_kind, ep, etp, zero, micro_batch, sp, recompute, schedule;
	int cp_ulysses, moe_redundant; /* USP's Ulysses degree, redundant experts per EP rank */
} search_knobs;

/* One ranked result. */
typedef struct {
	strategy_t s;              /* the strategy, with the ILP's split and recompute ranges
	                            * written in when it refined it and they can be expressed */
	double step, peak_gib, mfu, tokens_per_s; /* of the ranked plan (refined when refined) */
	double score;              /* the ranking key: the score hook's value, else step */
	double even_step, even_peak_gib;          /* the outer level's even split */
	int ilp_status;            /* ilp_status, or -1 when not refined */
	int ilp_applied;           /* s carries the ILP plan exactly (eval_run reproduces it) */
	double ilp_ms;
	double ilp_gain;           /* even_step / step - 1: the ILP's gain over the even split */
	/* Other strategies the search kept whose results are identical to this one's (every
	 * figure eval --json and the search report within SEARCH_ALIKE_REL: search_alike), merged
	 * into it; it is the simplest of them (fewest knobs off their defaults, then the smaller
	 * degrees). alike counts them, alike_k lists the first SEARCH_MAX_ALIKE. */
	int alike;
	search_knobs alike_k[SEARCH_MAX_ALIKE];
} search_item;

typedef struct {
	long long shapes, shapes_valid; /* dp*tp*pp*cp splits of the devices; how many any rule allows */
	long long enumerated;      /* strategies in the space (over the valid splits) */
	long long pruned;          /* never looked at: ruled out by a device split's checks
	                            * or by a memory bound (cannot fit) */
	long long bounded;         /* skipped: a lower bound on their step time shows they can
	                            * neither be kept nor beat the reference */
	long long checked, valid;  /* looked at one by one; accepted by strat_validate */
	long long filtered;        /* dropped by a hook: the filter (before evaluation, so
	                            * not in valid) or an INFINITY score (counted in fit) */
	long long evaluated, fit;  /* scored with eval_run; of those, fit the budget */
	long long faster_than_ref; /* ref_step given: fitting strategies strictly faster */
	double outer_s, inner_s;   /* wall time of each level */
	int threads, refined, dropped; /* dropped: refined candidates the ILP found no plan for */
	int cancelled;
	int aborted;               /* a hook aborted the search: why says why */
	int n;
	search_item *item;         /* n results, best first; search_free releases them */
	int merged;                /* strategies merged into the n results (their alike counts) */
	char why[320];             /* n == 0: why nothing was found */
	double least_peak_gib;     /* smallest peak of a valid strategy seen (0: none) */
} search_result;

/* s with the knobs k (the layer split and recompute ranges of s are kept). */
void search_knobs_apply(const search_knobs *k, strategy_t *s);

/* Run the search. pins may be NULL (the plain automatic planner). Returns 0 (results may
 * be empty: r->why says why), -1 on bad input, out of memory or a hook's abort (r->why). */
int search_run(const search_job *job, const pin_set *pins, const search_opts *o, search_result *r);
/* Release a result's items. */
void search_free(search_result *r);
/* After an empty result: find the pin that empties the space by adding the pins one at a
 * time. Returns the index of that pin (why: which pin, whether it fails on its own or
 * against the earlier ones, and the core's reason), or -1 when the job fails without any
 * pin (why: the reason). */
int search_explain(const search_job *job, const pin_set *pins, const search_opts *o, char *why, size_t whylen);
/* Canonical order of strategies (pp, tp, cp, dp, vpp, ep, etp, zero, micro-batch, sp,
 * recompute, schedule, cp kind): breaks ties so that rankings never depend on timing. */
int search_canon_cmp(const strategy_t *a, const strategy_t *b);

#endif
