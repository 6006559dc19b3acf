/* tasks.h - the explorer's long work: the bubble ILP (`i`), the strategy search (`s`) and
 * Lua recipes (`L`, `:lua`) run on the background job (job.h) while the main loop keeps
 * reading keys and redrawing; exports (`e`, `:export`) are quick and run in place.
 *
 * One job at a time. The job gets a private copy of the plan (and of everything else it
 * reads) and writes only into its own result; the main thread collects that result after
 * joining the worker, and only in the normal mode (never in the middle of a prompt or an
 * overlay). While a job runs, keys that would change the plan are refused: the result
 * belongs to the plan it started from.
 *
 * Never waiting without a bound: Esc asks the job to stop, and a job that has not returned
 * TUI_CANCEL_GRACE_MS later is abandoned (job.h: the worker frees its data when it returns,
 * its result unseen), so the keyboard is the user's again within 100 ms; quitting and
 * signals wait TUI_JOB_STOP_MS at most. */
#ifndef STRATA_TUI_TASKS_H
#define STRATA_TUI_TASKS_H

#include "solve/ilp.h"
#include "solve/search.h"
#include "solve/cand_filter.h"
#include "tui/app.h"
#include "tui/job.h"

#include <stddef.h>

/* How long after Esc a job that has not returned is abandoned; with the main loop's 10 ms
 * poll and the 25 ms Esc delay, a key press gets the keyboard back within 100 ms. */
#define TUI_CANCEL_GRACE_MS 50

/* One kind of background work. */
typedef struct tui_task_ops {
	const char *name;                                   /* "ILP", "search", "lua" */
	tui_job_fn work;                                    /* runs on the worker */
	/* show the result and free data (main thread, after the join); drop frees data unseen,
	 * on the main thread or on an abandoned worker when it returns */
	void (*finish)(tui_app *a, void *data);
	void (*drop)(void *data);
	/* the progress line; runs on the main thread while the worker runs, so it may only
	 * read what was set before the start (a name), never the result */
	void (*status)(const void *data, const tui_job_progress *p, const char *dot, char *out, size_t n);
} tui_task_ops;

/* The ILP plan on trial (MODE_REVIEW): the panes show it, Enter keeps it, n discards it. */
typedef struct tui_review {
	plan_t before;          /* the plan `i` started from: what discarding restores */
	ilp_result r;           /* the solver's figures (owns r.layer_rc) */
	int exact;              /* the plan carries the ILP's recompute pattern exactly */
} tui_review;

/* The last search's candidates (MODE_CANDS). */
#define CANDS_COLS 8            /* sortable columns: #, strategy, alloc, step, MFU, tok/s, ILP, vs cur */
typedef struct tui_cands {
	search_result r;        /* owns the items */
	int sel, top;           /* selected and first shown row of ord */
	int *ord, nord;         /* the rows shown: item indices after the filter, sort and merge */
	int *more;              /* per row: results folded into it by the merge toggle */
	int sort, desc;         /* sort column (CANDS_COLS) and direction */
	int merge;              /* `=`: fold rows whose shown figures are equal */
	int typing;             /* `/` is being typed into ftext */
	char ftext[128];        /* the filter as typed; filter is it parsed */
	cand_filter filter;
	plan_t *before;         /* preview: the plan to go back to */
	eval_result ev;         /* the selected candidate's evaluation, for its comparison */
	int ev_for;             /* 1 + the item ev holds (0: none), so moving re-evaluates */
	double wall_s;          /* the whole search (both levels) */
	char pins[256];         /* the pins it honoured, for the title */
} tui_cands;

/* A task's data block of `size` bytes, zeroed, whose plan_t member at plan_off gets the
 * current plan without its explicit stage split and recompute ranges: the solvers decide
 * those and compare with the even split. NULL (and the message) when out of memory. */
void *tui_task_alloc(tui_app *a, size_t size, size_t plan_off);
/* Start a job: data becomes the job's until finish or drop. 0, or -1 with the reason on
 * the message line (data is dropped). */
int tui_task_start(tui_app *a, const tui_task_ops *ops, void *data);
/* A job is running (or finished and not yet collected). */
int tui_task_busy(const tui_app *a);
/* Collect a finished job (normal mode only), or abandon a cancelled one that outlived
 * TUI_CANCEL_GRACE_MS; never blocks. 1 when the job ended (redraw), else 0. */
int tui_task_poll(tui_app *a);
/* Esc: ask the running job to stop (its result says what was kept); returns at once. */
void tui_task_cancel(tui_app *a);
/* Cancel and drop a running job, waiting TUI_JOB_STOP_MS at most (then it is abandoned):
 * quitting, signals. */
void tui_task_stop(tui_app *a);
/* The progress line of the running job. */
void tui_task_status(tui_app *a, char *out, size_t n);
/* Stop any job and free the review, candidates and recipe output. */
void tui_tasks_release(tui_app *a);

/* `i`: the bubble ILP for the current plan (task_ilp.c). */
void tui_ilp_start(tui_app *a);
/* MODE_REVIEW: keep the plan on trial (undoable) or go back to the one before. */
void tui_review_keep(tui_app *a);
void tui_review_discard(tui_app *a);
/* A stage's layers per recompute mode for the panes: "3f", "2s1f", "" (none). */
void tui_rc_text(const int rc[RC_COUNT], char *out, size_t n);

/* `s`: the strategy search for the current job (task_search.c). */
void tui_search_start(tui_app *a);
/* MODE_CANDS: apply the selected candidate to the knobs, pins kept (undoable). */
void tui_cands_apply(tui_app *a);
/* The item of the selected row; -1 when no row is shown. */
int tui_cands_item(const tui_cands *c);
/* Rebuild the shown rows after the filter, the sort or the merge changed (cands_table.c). */
void tui_cands_rows(tui_cands *c);
/* MODE_CANDS keys: moving, sorting (o, O), filtering (/), merging (=), preview (v). */
void tui_cands_key(tui_app *a, int key);
/* MODE_PREVIEW: the panes show the selected candidate; Enter applies, Esc goes back. */
void tui_preview_key(tui_app *a, int key);
/* The user's own plan: during a candidate's preview or an ILP plan's trial the one they
 * replaced, else the plan on screen (what a recovery file must keep). */
const plan_t *tui_preview_user_plan(const tui_app *a);
/* Short text of a strategy for the table: "dp32 tp2 pp2 cp4 z2 mbs1 sel zb-v". */
void tui_strategy_text(const strategy_t *s, const model_t *m, char *out, size_t n);

/* `L` and `:lua FILE [ARGS...]` (task_lua.c): FILE as given, else lua/FILE[.lua] on the
 * data path. */
void tui_lua_start(tui_app *a, const char *cmdline);

/* `e` and `:export TARGET [FILE]` (export_ui.c). */
void tui_export_begin(tui_app *a);
/* PROMPT_TARGET: the key that chose the target (m, d, t). */
void tui_export_choose(tui_app *a, int key);
/* Write the plan for a target to path (NULL or "": the default name). force: write the
 * nearest launchable plan (:export!), and replace an existing file without asking;
 * overwrite: the user already agreed to replace it. */
void tui_export_to(tui_app *a, int target, const char *path, int force, int overwrite);
/* ":export TARGET [FILE]" */
void tui_export_command(tui_app *a, const char *args, int force);
/* The default file name: plan-NAME.megatron.sh, .deepspeed.json, .torchtitan.toml. */
void tui_export_default_name(const tui_app *a, int target, char *out, size_t n);

#endif
