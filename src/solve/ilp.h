/* ilp.h - the pipeline bubble ILP (GLPK): how many layers of each kind every pipeline
 * stage and virtual chunk holds and which recomputation mode each layer uses, so that the
 * schedule's makespan is smallest while every stage fits its memory budget. Costs come
 * from the core (eval_costs_get); the formulation and why it is fast: docs/ilp.md.
 * Reentrant: no global state; GLPK is only touched from the calling thread. */
#ifndef STRATA_SOLVE_ILP_H
#define STRATA_SOLVE_ILP_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/evaluate.h"

#define ILP_MAX_PINS 64

typedef enum { ILP_PIN_STAGE = 0, ILP_PIN_RECOMPUTE, ILP_PIN_LAYERS } ilp_pin_kind;

/* One pin: layers[lo:hi].stage=stage, layers[lo:hi].recompute=value, or
 * stages[stage].layers=value (the stage's layer count over all its chunks). */
typedef struct {
	int kind;   /* ilp_pin_kind */
	int lo, hi; /* layer range [lo, hi) (STAGE, RECOMPUTE) */
	int stage;  /* STAGE, LAYERS */
	int value;  /* recompute_t (RECOMPUTE) or layer count (LAYERS) */
} ilp_pin;

typedef struct {
	int n;
	ilp_pin pin[ILP_MAX_PINS];
} ilp_pins;

typedef enum {
	ILP_OPTIMAL = 0, /* proven optimal */
	ILP_FEASIBLE,    /* a plan, optimality not proven (cancelled with an incumbent) */
	ILP_INFEASIBLE,  /* no split fits the budget (why, bad_stage, bad_over_bytes) */
	ILP_TIMEOUT,     /* the time limit hit; a plan is present when have_plan */
	ILP_CANCELLED,   /* cancelled before any plan */
	ILP_ERROR        /* invalid input or solver failure (why) */
} ilp_status;

/* Progress report: elapsed time, best makespan so far (NAN if none), relative gap
 * (NAN if unknown). Called from the solving thread. */
typedef void (*ilp_progress_fn)(void *user, double elapsed_ms, double best_s, double gap);

typedef struct {
	int time_limit_ms;          /* 0: no limit */
	const atomic_int *cancel;   /* optional: nonzero stops the solve (set from any thread) */
	ilp_progress_fn progress;   /* optional */
	void *user;
	int no_dp;                  /* tests: no DP bounds, prune or warm start (plain ILP) */
	int chunk_model;            /* tests: always the chunk-level model */
	int dp_starts;              /* tests: 1, the chunk DP enumerates round starts even when the
	                             * rounds form applies; 2, it places a head longer than pp
	                             * round by round whenever it can (docs/ilp.md) */
	long dp_work;               /* tests: the chunk DP's work limit (0: its default) */
	int mem_cap_mib;            /* memory cap of the solve in MiB (0: ILP_MEM_CAP_MIB); see
	                             * docs/ilp.md */
	int no_confirm;             /* an exact DP's optimum is returned without GLPK's
	                             * confirmation (the search's refinement: the DP proves it;
	                             * GLPK would only cost time) */
	int framework;              /* framework_t whose rules bind the plan (what it recomputes
	                             * and splits); FW_AUTO: the strategy's own, and an `auto`
	                             * strategy is free (the search passes the framework that
	                             * prices it) */
} ilp_params;

#define ILP_MEM_CAP_MIB 1024        /* default memory cap of one solve */

/* One stage of the refined plan (per micro-batch, per device). */
typedef struct {
	int layers;                 /* transformer layers over all chunks (MTP excluded) */
	int rc[RC_COUNT];           /* layers (MTP included) per recompute mode */
	int kind_layers[MODEL_MAX_KINDS];
	double mem;                 /* bytes */
	double fwd, bwd, wgrad;     /* seconds; bwd includes recomputation */
	double recompute;           /* seconds of bwd spent recomputing */
} ilp_stage;

typedef struct {
	int status;                 /* ilp_status */
	int have_plan;
	char why[256];
	double solve_ms;
	int stages, vpp, microbatches, layers;
	ilp_stage st[EVAL_MAX_STAGES];
	int16_t chunk_layers[STRAT_MAX_CHUNKS]; /* chunk-major, as strategy_t.chunk_layers */
	uint8_t *layer_rc;          /* recompute mode of each layer (MTP last); ilp_free() */
	double makespan;            /* pipeline seconds per step: the objective */
	double step;                /* makespan + the even split's non-pipeline time */
	double bound, gap;          /* best proven lower bound and relative gap */
	double useful;              /* m x average stage time without recomputation */
	double bubble_prep, bubble_imb, bubble_rc; /* idle split; sums to makespan - useful */
	/* the plan as given (the core's even split and uniform recompute) */
	double even_makespan, even_step, even_peak;
	int even_fits;
	double speedup;             /* even_step / step */
	int bad_stage;              /* infeasible: stage over even with full recompute, or -1 */
	double bad_over;            /* bytes over the budget at its least */
	int options, rows;          /* model size (for the bench and docs) */
} ilp_result;

/* Solve for a plan's macro strategy; budget_gib <= 0 is the cluster default.
 * Returns r->status. r must be released with ilp_free. */
int ilp_solve(const model_t *m, const cluster_t *c, int devices, const strategy_t *s, double budget_gib,
		const ilp_pins *pins, const ilp_params *prm, ilp_result *r);
/* Solve from prepared costs (tests, the search's refinement); base is the plan whose
 * split and recompute are the comparison. step = makespan (no non-pipeline part). */
int ilp_solve_costs(const model_t *m, const eval_costs *ec, const strategy_t *base, const ilp_pins *pins,
		const ilp_params *prm, ilp_result *r);
/* Release what a result owns. */
void ilp_free(ilp_result *r);
/* Write the refined split (and recompute ranges when they fit) into s; 0, or -1 when
 * the recompute pattern needs more than STRAT_MAX_RANGES ranges (split still written). */
int ilp_apply(const ilp_result *r, strategy_t *s);
/* Name of a status for JSON and messages. */
const char *ilp_status_name(int status);

/* Parse a pin expression (layers[0:3].recompute=full, layers[60:61].stage=15,
 * stages[3].layers=5); 0, 1 when it is not a layer/stage pin (e.g. tp=8), -1 when it is
 * malformed (why says how). */
int ilp_pin_parse(const char *expr, ilp_pin *pin, char *why, size_t whylen);
/* Parse every layer/stage pin of a plan's pin list into out; -1 with why on a bad one. */
int ilp_pins_from_strings(char (*pins)[128], int n, ilp_pins *out, char *why, size_t whylen);

#endif
