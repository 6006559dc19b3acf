/* job.h - one background computation of the explorer (the ILP, the search, a Lua recipe):
 * a worker thread runs a function on inputs the caller copied for it, reports progress
 * through a mutex-guarded snapshot, stops when asked through an atomic flag the solvers
 * poll, and hands its result over when the main thread joins it. No curses in here: the
 * worker must never touch the screen, and the hand-over is unit-tested on its own
 * (tests/unit/test_tui_job.c).
 *
 * The main thread never waits on a worker without a time bound. Every start makes a run:
 * a heap block the main thread and the worker share (cancel flag, progress, the finish
 * hand-shake), which the worker sees instead of the long-lived tui_job. A worker that does
 * not stop when asked (a recipe stuck where the sandbox cannot interrupt it, a solver deep
 * in one long step) is abandoned: the main thread forgets the run without joining, the
 * thread is detached, and the worker, when it returns, frees `arg` (with the run's free
 * function) and the run itself. A worker that never returns dies with the process.
 *
 * Ownership: between tui_job_start and a successful tui_job_wait the worker owns `arg`; the
 * main thread may only read the progress snapshot, set the cancel flag and ask whether the
 * worker has returned. A wait that joins gives `arg` back to the caller; an abandonment
 * gives it to the worker for good. */
#ifndef STRATA_TUI_JOB_H
#define STRATA_TUI_JOB_H

#include <stdatomic.h>

/* How long quitting, a signal or tui_job_destroy wait for a cancelled worker to return
 * before abandoning it. */
#define TUI_JOB_STOP_MS 200
/* Abandoned workers still running at most: past this, no new job starts (each may keep a
 * core busy until it returns or the explorer exits). */
#define TUI_JOB_MAX_ABANDONED 4

/* What the worker last reported; NAN where a number is unknown. */
typedef struct {
	double elapsed_ms;      /* since the start (filled in by tui_job_progress) */
	int level;              /* search: 1 outer level, 2 ILP refinement; else 0 */
	double done;            /* fraction of the current level */
	double best;            /* ILP: best makespan found so far, seconds */
	double gap;             /* ILP: relative gap between best and bound */
	long long reports;      /* progress reports so far */
} tui_job_progress;

/* One run: shared by the main thread and its worker, freed by whichever lets go last. */
typedef struct tui_job_run tui_job_run;

/* The work: runs on the worker thread with its run (for reports and the cancel flag). */
typedef void (*tui_job_fn)(tui_job_run *r, void *arg);
/* Frees a run's arg unseen: called by the worker when the main thread abandoned it. */
typedef void (*tui_job_free_fn)(void *arg);

/* The main thread's handle: the current run, if any. */
typedef struct tui_job {
	tui_job_run *run;       /* started and not yet joined or abandoned; NULL when idle */
} tui_job;

/* Environment variable of the test hook: milliseconds every job waits (cancellable)
 * before its work starts, so tests can see the progress line and cancel a run that
 * would otherwise end in a few milliseconds. */
#define TUI_JOB_DELAY_ENV "STRATA_TEST_JOB_DELAY_MS"

/* Prepare an idle job; 0 (kept for symmetry with tui_job_destroy). */
int tui_job_init(tui_job *j);
/* Stop a running worker as tui_job_stop(j, TUI_JOB_STOP_MS) does, freeing its arg. */
void tui_job_destroy(tui_job *j);
/* Run fn(run, arg) on a new thread after delay_ms (0: none); free_arg frees arg should the
 * worker be abandoned. The thread starts with the terminal signals blocked, so they reach
 * the main loop, and with an alternate signal stack, so the fatal-signal handler runs even
 * on a stack overflow. 0, or -1 when a job is still running, too many abandoned workers
 * are still running, or the thread cannot be created (arg stays the caller's). */
int tui_job_start(tui_job *j, tui_job_fn fn, void *arg, tui_job_free_fn free_arg, int delay_ms);
/* A worker was started and not yet joined or abandoned. */
int tui_job_running(const tui_job *j);
/* The worker has returned (tui_job_wait will not block). */
int tui_job_finished(const tui_job *j);
/* Ask the work to stop (the solvers poll the flag); returns at once. */
void tui_job_cancel(tui_job *j);
/* Was the running job asked to stop? */
int tui_job_cancelled(const tui_job *j);
/* Wait at most ms milliseconds for the worker to return (0: just look). 1 when it has (it
 * is joined: arg is the caller's again; also when no worker runs), 0 when it still runs. */
int tui_job_wait(tui_job *j, int ms);
/* Let go of a worker that has not returned: detach it; it frees arg and the run when it
 * returns. 1 when abandoned, 0 when the worker had in fact returned (joined: arg is the
 * caller's). The job is idle afterwards either way. */
int tui_job_abandon(tui_job *j);
/* Cancel, wait up to ms, and abandon the worker if it is still running. 0 when the worker
 * was joined (or none ran): arg is the caller's; 1 when abandoned: arg is the worker's. */
int tui_job_stop(tui_job *j, int ms);
/* Abandoned workers that have not returned yet (in this process). */
int tui_job_abandoned_live(void);
/* Main side: the last snapshot, with the time elapsed since the start. */
void tui_job_progress_get(tui_job *j, tui_job_progress *out);
/* Worker side: publish a progress snapshot (elapsed_ms and reports are filled in). */
void tui_job_report(tui_job_run *r, const tui_job_progress *p);
/* Worker side: the flag to hand to ilp_params.cancel, search_opts.cancel, scr_env.cancel. */
const atomic_int *tui_job_cancel_flag(tui_job_run *r);
/* Worker side: was this run asked to stop? */
int tui_job_run_cancelled(tui_job_run *r);
/* Milliseconds from a TUI_JOB_DELAY_ENV-style value (NULL, empty or bad: 0; at most 60 s). */
int tui_job_delay_parse(const char *s);

#endif
