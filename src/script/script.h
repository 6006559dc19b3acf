/* script.h - Lua 5.4 recipes: an embedded, sandboxed Lua state with the `strata` module
 * (models, presets, plans, evaluation, search, ILP; the API is documented in
 * man/strata-lua.7). This header is Lua-free so the CLI and the TUI can run a recipe
 * without seeing lua.h. Each run gets a fresh state: nothing outlives scr_run_*, and
 * nothing is global, so runs may happen in any thread. */
#ifndef STRATA_SCRIPT_SCRIPT_H
#define STRATA_SCRIPT_SCRIPT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

#include "io/json.h"
#include "io/paths.h"
#include "io/plan.h"
#include "solve/ilp.h"

/* Defaults stop `while true do end` and an allocation bomb well within a second on a
 * laptop-class core (measured figures in man/strata-lua.7); the wall-clock limit bounds
 * what neither counts (long C work: pattern matching, the solvers). */
#define SCR_DEFAULT_STEPS 100000000LL /* Lua VM instructions */
#define SCR_DEFAULT_MIB 128           /* memory cap, MiB */
#define SCR_DEFAULT_TIME_MS 60000LL   /* wall clock, ms (strata run and the explorer) */
#define SCR_MAX_STEPS (1LL << 50)
#define SCR_MAX_MIB (1 << 20)
#define SCR_MAX_TIME_MS (7LL * 86400 * 1000)

/* Limits of one run; 0 in a field means its default. */
typedef struct {
	long long steps;       /* VM instructions, plus the steps of library loops */
	long long mem_mib;     /* heap cap in MiB (the solvers' memory counts too) */
	long long time_ms;     /* wall-clock limit in ms */
} scr_limits;

/* Which limit stopped a run (scr_outcome.stopped). */
enum { SCR_STOP_NONE = 0, SCR_STOP_STEPS, SCR_STOP_MEM, SCR_STOP_TIME, SCR_STOP_CANCEL };

/* Receives what the script prints (one print() call's text, newline included). */
typedef void (*scr_print_fn)(void *user, const char *text, size_t len);

/* Where a run reads its data from and sends its output. */
typedef struct {
	const paths_t *paths;      /* preset search path (required) */
	scr_limits lim;
	FILE *out;                 /* print() target when print_fn is NULL; NULL discards */
	scr_print_fn print_fn;     /* optional: the TUI collects output here */
	void *user;
	const atomic_int *cancel;  /* optional: nonzero stops the script within milliseconds,
	                            * wherever it runs (finalizers, handlers, solvers too) */
	const plan_t *current;     /* optional: what strata.current() returns (the explorer's
	                            * plan on screen, `strata run --plan FILE`'s plan) */
} scr_env;

/* What the chunk returned (its first return value). */
typedef enum { SCR_NONE = 0, SCR_MODEL, SCR_CLUSTER, SCR_PLAN } scr_kind;

typedef struct {
	int rc;                /* 0 ran, 1 script error (syntax, runtime, limit), 2 file error */
	int kind;              /* scr_kind */
	plan_t plan;           /* SCR_PLAN: the plan; SCR_MODEL: .model; SCR_CLUSTER: .cluster */
	char err[8192];        /* rc != 0: "file:line: message" then a traceback, one per line */
	int stopped;           /* SCR_STOP_*: the limit that stopped it (rc is then 1) */
	long long steps;       /* instructions and library steps counted */
	size_t peak_bytes;     /* largest Lua heap seen */
	double seconds;        /* wall-clock time of the run */
} scr_outcome;

/* Parse a "--lua-steps N" value (instructions); 0, or -1 with a reason. */
int scr_parse_steps(const char *s, long long *out, char *err, size_t errlen);
/* Parse a "--lua-mem MIB" value; 0, or -1 with a reason. */
int scr_parse_mib(const char *s, long long *out, char *err, size_t errlen);
/* Parse a "--lua-time SECONDS" value (decimals allowed) into milliseconds; 0, or -1 with
 * a reason. */
int scr_parse_time(const char *s, long long *out_ms, char *err, size_t errlen);
/* Run a recipe file; argv[0..argc) become arg[1..argc] and `...`. Returns o->rc. */
int scr_run_file(const scr_env *env, const char *path, int argc, char **argv, scr_outcome *o);
/* Run recipe text; name appears in messages ("name:line:"). Returns o->rc. */
int scr_run_string(const scr_env *env, const char *text, const char *name, int argc, char **argv,
		scr_outcome *o);
/* The "ilp" object of strata.ilp and of `strata ilp --json` (one writer, so the keys agree). */
void scr_ilp_json(json_w *w, const ilp_result *x);

#endif
