/* job.h - one background computation of the explorer (the ILP, the search, a Lua recipe):
 * a worker thread runs a function on inputs the caller copied for it, reports progress
 * through a mutex-guarded snapshot, stops when asked through an atomic flag the solvers
 * poll, and hands its result over when the main thread joins it. No curses in here: the
 * worker must never touch the screen, and the hand-over is unit-tested on its own
 * (tests/unit/test_tui_job.c).
 *
 * Ownership: between tui_job_start and tui_job_wait the worker owns `arg`; the main
 * thread may only read the progress snapshot, set the cancel flag and ask whether the
 * worker has returned. tui_job_wait joins, after which `arg` is the caller's again. */
#ifndef STRATA_TUI_JOB_H
#define STRATA_TUI_JOB_H

#include <pthread.h>
#include <stdatomic.h>

/* What the worker last reported; NAN where a number is unknown. */
typedef struct {
	double elapsed_ms;      /* since the start (filled in by tui_job_progress) */
	int level;              /* search: 1 outer level, 2 ILP refinement; else 0 */
	double done;            /* fraction of the current level */
	double best;            /* ILP: best makespan found so far, seconds */
	double gap;             /* ILP: relative gap between best and bound */
	long long reports;      /* progress reports so far */
} tui_job_progress;

typedef struct tui_job tui_job;

/* The work: runs on the worker thread with the job (for reports and the cancel flag). */
typedef void (*tui_job_fn)(tui_job *j, void *arg);

struct tui_job {
	pthread_t tid;
	pthread_mutex_t mu;        /* guards prog */
	atomic_int cancel;         /* set by the main thread, polled by the work */
	atomic_int finished;       /* set by the worker as its very last write */
	int running;               /* main thread only: a worker exists that was not joined */
	int delay_ms;              /* test hook: idle this long (cancellable) before the work */
	double t0_us;
	tui_job_fn fn;
	void *arg;
	tui_job_progress prog;
};

/* Environment variable of the test hook: milliseconds every job waits (cancellable)
 * before its work starts, so tests can see the progress line and cancel a run that
 * would otherwise end in a few milliseconds. */
#define TUI_JOB_DELAY_ENV "STRATA_TEST_JOB_DELAY_MS"

/* Prepare an idle job; 0, or -1 when the mutex cannot be created. */
int tui_job_init(tui_job *j);
/* Cancel and join a running worker, then release the mutex. */
void tui_job_destroy(tui_job *j);
/* Run fn(j, arg) on a new thread after delay_ms (0: none). The thread starts with the
 * terminal signals blocked, so they reach the main loop. 0, or -1 when a job is still
 * running or the thread cannot be created (arg stays the caller's). */
int tui_job_start(tui_job *j, tui_job_fn fn, void *arg, int delay_ms);
/* A worker was started and not yet joined. */
int tui_job_running(const tui_job *j);
/* The worker has returned (tui_job_wait will not block). */
int tui_job_finished(tui_job *j);
/* Ask the work to stop (the solvers poll the flag); returns at once. */
void tui_job_cancel(tui_job *j);
/* Was the job asked to stop? */
int tui_job_cancelled(tui_job *j);
/* The flag to hand to ilp_params.cancel, search_opts.cancel, scr_env.cancel. */
const atomic_int *tui_job_cancel_flag(tui_job *j);
/* Join the worker (blocks until it returns); afterwards arg is the caller's again. */
void tui_job_wait(tui_job *j);
/* Worker side: publish a progress snapshot (elapsed_ms and reports are filled in). */
void tui_job_report(tui_job *j, const tui_job_progress *p);
/* Main side: the last snapshot, with the time elapsed since the start. */
void tui_job_progress_get(tui_job *j, tui_job_progress *out);
/* Milliseconds from a TUI_JOB_DELAY_ENV-style value (NULL, empty or bad: 0; at most 60 s). */
int tui_job_delay_parse(const char *s);

#endif
