/* scr_int.h - what the files of src/script share: the per-run context, the userdata
 * types of the `strata` module and the conversions between Lua values and the data the
 * rest of strata reads (YAML/JSON text for the loaders, json_w calls for the reports).
 * Only src/script includes this (it pulls in the Lua headers). */
#ifndef STRATA_SCRIPT_SCR_INT_H
#define STRATA_SCRIPT_SCR_INT_H

#include <lauxlib.h>
#include <lua.h>
#include <pthread.h>

#include "core/evaluate.h"
#include "io/json.h"
#include "io/plan.h"
#include "script/script.h"

/* Userdata type names (also their metatables' names in the registry). */
#define SCR_MODEL_T "strata.model"
#define SCR_CLUSTER_T "strata.cluster"
#define SCR_PLAN_T "strata.plan"

#define SCR_HOOK_EVERY 1000         /* most instructions between two count-hook calls */
#define SCR_MAX_DEPTH 16            /* deepest table a script may hand to the API */
#define SCR_METER_EVERY 4096        /* library steps between two looks at the clock */

/* Why a run was stopped (the public SCR_STOP_* values). */
enum { SCR_TRIP_NONE = SCR_STOP_NONE, SCR_TRIP_STEPS = SCR_STOP_STEPS, SCR_TRIP_MEM = SCR_STOP_MEM,
	SCR_TRIP_TIME = SCR_STOP_TIME, SCR_TRIP_CANCEL = SCR_STOP_CANCEL };

/* Everything one run owns; reached from any lua_State of the run through the extra
 * space (faster than a registry lookup in the count hook). */
typedef struct scr_ctx {
	lua_State *L;                   /* the main thread */
	lua_State *fin;                 /* the thread running a finalizer, or NULL */
	const scr_env *env;
	long long max_steps, steps;
	long long meter_next;           /* steps at which scr_meter next looks at the clock */
	long long t0_ns, deadline_ns, time_ms; /* CLOCK_MONOTONIC */
	long long last_hook_ns;         /* when the count hook last ran on the main thread */
	int every;                      /* the main thread's hook count (1..SCR_HOOK_EVERY) */
	int fin_every;                  /* the same for the finalizer thread */
	long long fin_last_ns;          /* when its hook last ran */
	size_t limit, hard_limit;       /* soft cap (stops the script), hard cap (refuses) */
	size_t used, peak;
	size_t grown;                   /* bytes allocated since the allocator looked at the clock */
	int tripped;                    /* SCR_TRIP_*: once set the script cannot continue */
	const char *trip_in;            /* the API function the limit was hit in, or NULL */
	int closing;                    /* the run is over: pending finalizers are not run */
	long long next_id;              /* tostring's numbering of tables and functions */
	eval_result *scratch;           /* strata.eval's result buffer (41 KB: not worth the
	                                 * collector's time on every call) */
	int scratch_busy;               /* in use (a finalizer may call strata.eval meanwhile) */
} scr_ctx;

/* The context of the run L belongs to. */
scr_ctx *scr_ctx_of(lua_State *L);
/* Stop the script at its next instruction (the hook raises every instruction from
 * now on, so pcall inside the script cannot swallow it). */
void scr_trip(scr_ctx *c, int why);
/* Install the count hook on L (a finalizer's thread) with the given count. */
void scr_sethook(lua_State *L, int count);
/* Nanoseconds of CLOCK_MONOTONIC. */
long long scr_now_ns(void);
/* Trip the run when the cancel flag is set, the budget is spent or the deadline passed
 * (now: scr_now_ns(), or 0 to skip the clock); returns c->tripped. */
int scr_check(scr_ctx *c, long long now);
/* Raise the tripped limit's message at the nearest Lua line ("file:line: ..."). */
int scr_raise_trip(lua_State *L);
/* Count n steps of library work (a pattern-matching step, a moved element) against the
 * instruction budget; every SCR_METER_EVERY steps also look at the clock and the cancel
 * flag. Raises when the run is tripped. */
void scr_meter(lua_State *L, long long n);

/* ---- the solvers under the recipe's limits (scr_watch.c) ---- */

/* A watchdog thread that raises a stop flag (the solver's cancel flag) when the run's
 * cancel flag is set, its deadline passes or the process heap grows by more than what is
 * left of the memory cap. Lives on the C stack of the call that runs the solver. */
typedef struct {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int running;                /* the thread runs (else the solver gets env->cancel) */
	int quit;                   /* under mu: the solver returned */
	int why;                    /* under mu: SCR_TRIP_* that raised stop */
	atomic_int stop;
	const atomic_int *cancel;   /* the run's */
	long long deadline_ns;
	long long heap0;            /* process heap at the start; -1: not measurable here */
	long long allow;            /* heap growth allowed */
	const char *what;           /* "strata.ilp", "strata.search" */
} scr_watch;
/* Milliseconds left before the deadline (at least 1). */
long long scr_left_ms(const scr_ctx *c);
/* Start watching before a solver call; raises when a limit is already hit, so call it
 * before the solver holds memory. Nothing may raise between this and scr_watch_end. */
void scr_watch_begin(lua_State *L, scr_watch *w, const char *what);
/* The flag to hand to the solver as its cancel flag. */
const atomic_int *scr_watch_flag(scr_watch *w);
/* Stop watching; trips the run when a limit stopped the solver or has passed meanwhile
 * (raise it with scr_raise_trip once the solver's memory is released). Returns
 * c->tripped. */
int scr_watch_end(lua_State *L, scr_watch *w);

/* ---- the sandboxed library (scr_lib.c, scr_pat.c) ---- */

/* tostring without addresses: a value's __tostring, else "table: #3" numbered in the order
 * first shown, "function: builtin" for C functions. Pushes the text and returns it. */
const char *scr_tolstring(lua_State *L, int idx, size_t *len);
/* Replace tostring, string.format, string.rep, table.insert/remove/move/sort,
 * setmetatable (finalizers run metered on their own thread) and xpcall (the _G table is
 * on top). */
void scr_open_lib(lua_State *L);
/* Replace string.find, match, gmatch and gsub with a metered matcher (string on top). */
void scr_open_pattern(lua_State *L);
/* Protect the metatable on top (getmetatable shows name, setmetatable refuses). */
void scr_protect_mt(lua_State *L, const char *name);

/* ---- conversions (scr_conv.c) ---- */

/* Push the table at idx as JSON text (keys sorted, so messages and results do not depend
 * on hash order). top_strings_only: skip non-string keys at the top level (the block list
 * of strata.layers). Raises "what: ..." on values that have no text form. */
void scr_push_text(lua_State *L, int idx, const char *what, int top_strings_only);
/* Push an array of the table's keys in a fixed order: integers ascending, then strings
 * bytewise, then booleans, then other keys in traversal order. */
void scr_push_sorted_keys(lua_State *L, int idx);
/* A json_w whose calls build a Lua table instead of text; after the walk the value
 * written at the top level is on the stack. */
typedef struct {
	lua_State *L;
	int depth, skip;               /* open containers; containers being ignored */
	int next[JSON_MAX_DEPTH];      /* next array index, 0 for an object */
	json_sink sink;
} scr_tbuild;
void scr_tbuild_init(scr_tbuild *b, lua_State *L, json_w *w);
/* Raise a loader message as "what: msg", dropping the "name:line:col: " position of the
 * generated text (it means nothing to the script); luaL_error adds the script's line. */
int scr_raise_loader(lua_State *L, const char *what, const char *err);
/* Check that every string key of the table at idx is in the NULL-terminated list. */
void scr_check_keys(lua_State *L, int idx, const char *what, const char *const *allowed);
/* Integer argument/field helpers that refuse NaN, fractions and out-of-range values
 * with a message naming the field. */
long long scr_int_field(lua_State *L, int idx, const char *key, const char *what, long long lo, long long hi,
		long long dflt);

/* ---- userdata (scr_model.c, scr_plan.c) ---- */

/* Push a zeroed model userdata. */
model_t *scr_new_model(lua_State *L);
/* Push a zeroed cluster userdata. */
cluster_t *scr_new_cluster(lua_State *L);
/* Push a plan userdata with the default strategy and a derived global batch. */
plan_t *scr_new_plan(lua_State *L);
/* The model userdata at idx, or raise a type error. */
model_t *scr_check_model(lua_State *L, int idx);
/* The cluster userdata at idx, or raise a type error. */
cluster_t *scr_check_cluster(lua_State *L, int idx);
/* The plan userdata at idx, or raise a type error. */
plan_t *scr_check_plan(lua_State *L, int idx);
/* Push a copy of the plan userdata at idx (with its derived-batch flag). */
plan_t *scr_copy_plan(lua_State *L, int idx);
/* Model from a model userdata, preset name or table of config keys at idx. */
void scr_get_model(lua_State *L, int idx, model_t *out, char *ref, size_t reflen);
/* Cluster from a cluster userdata, preset name or table. */
void scr_get_cluster(lua_State *L, int idx, cluster_t *out, char *ref, size_t reflen);
/* Apply a table of strategy keys (and devices/budget_gib) to a copy of a plan and
 * resolve dp; 0, or -1 with the core's reason (the plan is well formed but its shape does
 * not divide). Raises on malformed values. */
int scr_apply_overrides(lua_State *L, int idx, plan_t *p, char *why, size_t whylen);
/* Push the eval report of (p, r) as a table: the keys of `strata eval --json`. */
void scr_push_report(lua_State *L, const plan_t *p, const eval_result *r);
/* The same, with memory.stages and time.stages built when first read (search scores). */
void scr_push_report_lazy(lua_State *L, const plan_t *p, const eval_result *r);
/* Push the strategy of p as a table (the "strategy" object of the report). */
void scr_push_strategy(lua_State *L, const plan_t *p);

/* ---- registration: each adds its functions to the table on top of the stack ---- */
/* Metatables of the lazily built stage lists and their snapshots, and the registry tables
 * the snapshots wait in (no functions). */
void scr_open_conv(lua_State *L);
/* model, layers, dense, moe, mla, cluster, preset, presets; model/cluster metatables. */
void scr_open_model(lua_State *L);
/* plan, eval; the plan metatable. */
void scr_open_plan(lua_State *L);
/* search, ilp. */
void scr_open_solve(lua_State *L);

#endif
