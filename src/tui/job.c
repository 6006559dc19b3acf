/* job.c - the explorer's background worker: thread, progress snapshot, cancel flag, and
 * the bounded hand-over (join when the worker returned in time, else abandon it). */
#include "tui/job.h"
#include "tui/frames.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUN_FINISHED 1   /* the worker has returned from the work */
#define RUN_ABANDONED 2  /* the main thread let go: the worker frees the run */
#define ALTSTACK_BYTES (64 * 1024)

struct tui_job_run {
	pthread_t tid;
	pthread_mutex_t mu;        /* guards prog and the finish signal */
	pthread_cond_t done;       /* signalled when RUN_FINISHED is set (monotonic clock) */
	atomic_int cancel;         /* set by the main thread, polled by the work */
	atomic_int state;          /* RUN_FINISHED | RUN_ABANDONED: whoever sets the second frees */
	int delay_ms;              /* test hook: idle this long (cancellable) before the work */
	double t0_us;
	tui_job_fn fn;
	void *arg;
	tui_job_free_fn free_arg;
	tui_job_progress prog;
};

/* Workers abandoned and still running, process-wide: they outlive every handle. */
static atomic_int abandoned_live;

static void empty_progress(tui_job_progress *p)
{
	memset(p, 0, sizeof *p);
	p->done = p->best = p->gap = NAN;
}

static void run_free(tui_job_run *r)
{
	pthread_cond_destroy(&r->done);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

static tui_job_run *run_new(void)
{
	tui_job_run *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	pthread_condattr_t ca;
	int ok = !pthread_condattr_init(&ca);
	ok = ok && !pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!ok || pthread_cond_init(&r->done, &ca)) {
		free(r);
		return NULL;
	}
	pthread_condattr_destroy(&ca);
	if (pthread_mutex_init(&r->mu, NULL)) {
		pthread_cond_destroy(&r->done);
		free(r);
		return NULL;
	}
	atomic_init(&r->cancel, 0);
	atomic_init(&r->state, 0);
	empty_progress(&r->prog);
	return r;
}

int tui_job_init(tui_job *j)
{
	j->run = NULL;
	return 0;
}

void tui_job_destroy(tui_job *j)
{
	if (!j->run)
		return;
	/* read before the stop: a joined run is freed by it, an abandoned one is the worker's */
	tui_job_free_fn free_arg = j->run->free_arg;
	void *arg = j->run->arg;
	if (tui_job_stop(j, TUI_JOB_STOP_MS) == 0)
		free_arg(arg); /* joined: the arg came back to us unseen */
}

/* The test hook's pause, in slices short enough that a cancel is noticed at once. */
static void pause_ms(tui_job_run *r, int ms)
{
	double end = tui_now_us() + ms * 1e3;
	while (!atomic_load(&r->cancel) && tui_now_us() < end) {
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

/* The worker's own alternate signal stack: the fatal-signal handler (term.c) restores the
 * terminal even when this thread overflows its stack. NULL when none could be set. */
static void *altstack_on(void)
{
	stack_t ss;
	memset(&ss, 0, sizeof ss);
	ss.ss_sp = malloc(ALTSTACK_BYTES);
	ss.ss_size = ALTSTACK_BYTES;
	if (ss.ss_sp && sigaltstack(&ss, NULL)) {
		free(ss.ss_sp);
		return NULL;
	}
	return ss.ss_sp;
}

static void altstack_off(void *sp)
{
	if (!sp)
		return;
	stack_t ss;
	memset(&ss, 0, sizeof ss);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	free(sp);
}

static void *trampoline(void *v)
{
	tui_job_run *r = v;
	void *alt = altstack_on();
	if (r->delay_ms > 0)
		pause_ms(r, r->delay_ms);
	r->fn(r, r->arg);
	altstack_off(alt);
	/* the hand-shake: under the mutex so a timed wait cannot miss the signal; acq_rel so
	 * everything the work wrote is visible to whoever sees RUN_FINISHED, and so exactly
	 * one of us sees the other's bit */
	pthread_mutex_lock(&r->mu);
	int old = atomic_fetch_or_explicit(&r->state, RUN_FINISHED, memory_order_acq_rel);
	pthread_cond_broadcast(&r->done);
	pthread_mutex_unlock(&r->mu);
	if (old & RUN_ABANDONED) {
		/* nobody will join or read us: the result goes unseen */
		r->free_arg(r->arg);
		run_free(r);
		atomic_fetch_sub(&abandoned_live, 1);
	}
	return NULL;
}

int tui_job_start(tui_job *j, tui_job_fn fn, void *arg, tui_job_free_fn free_arg, int delay_ms)
{
	if (j->run || atomic_load(&abandoned_live) >= TUI_JOB_MAX_ABANDONED)
		return -1;
	tui_job_run *r = run_new();
	if (!r)
		return -1;
	r->fn = fn;
	r->arg = arg;
	r->free_arg = free_arg;
	r->delay_ms = delay_ms;
	r->t0_us = tui_now_us();
	/* The terminal's signals must reach the main thread: its loop is the one that polls
	 * the stop flag and restores the terminal. The new thread inherits this mask. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int rc = pthread_create(&r->tid, NULL, trampoline, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		run_free(r);
		return -1;
	}
	j->run = r;
	return 0;
}

int tui_job_running(const tui_job *j)
{
	return j->run != NULL;
}

int tui_job_finished(const tui_job *j)
{
	return j->run && (atomic_load_explicit(&j->run->state, memory_order_acquire) & RUN_FINISHED);
}

void tui_job_cancel(tui_job *j)
{
	if (j->run)
		atomic_store(&j->run->cancel, 1);
}

int tui_job_cancelled(const tui_job *j)
{
	return j->run && atomic_load(&j->run->cancel) != 0;
}

/* Join a worker that has returned and free its run. */
static void join_run(tui_job *j)
{
	pthread_join(j->run->tid, NULL); /* bounded: the worker is past its last write */
	run_free(j->run);
	j->run = NULL;
}

int tui_job_wait(tui_job *j, int ms)
{
	tui_job_run *r = j->run;
	if (!r)
		return 1;
	if (ms > 0 && !tui_job_finished(j)) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += ms / 1000;
		until.tv_nsec += (long)(ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&r->mu);
		while (!(atomic_load(&r->state) & RUN_FINISHED))
			if (pthread_cond_timedwait(&r->done, &r->mu, &until) == ETIMEDOUT)
				break;
		pthread_mutex_unlock(&r->mu);
	}
	if (!tui_job_finished(j))
		return 0;
	join_run(j);
	return 1;
}

int tui_job_abandon(tui_job *j)
{
	tui_job_run *r = j->run;
	if (!r)
		return 0;
	pthread_t tid = r->tid; /* r may be gone as soon as our bit is set */
	atomic_fetch_add(&abandoned_live, 1);
	int old = atomic_fetch_or_explicit(&r->state, RUN_ABANDONED, memory_order_acq_rel);
	if (old & RUN_FINISHED) {
		/* it returned meanwhile and saw no abandonment: ours to join after all */
		atomic_fetch_sub(&abandoned_live, 1);
		join_run(j);
		return 0;
	}
	pthread_detach(tid);
	j->run = NULL;
	return 1;
}

int tui_job_stop(tui_job *j, int ms)
{
	if (!j->run)
		return 0;
	tui_job_cancel(j);
	if (tui_job_wait(j, ms))
		return 0;
	return tui_job_abandon(j);
}

int tui_job_abandoned_live(void)
{
	return atomic_load(&abandoned_live);
}

void tui_job_report(tui_job_run *r, const tui_job_progress *p)
{
	pthread_mutex_lock(&r->mu);
	long long n = r->prog.reports + 1;
	r->prog = *p;
	r->prog.reports = n;
	pthread_mutex_unlock(&r->mu);
}

const atomic_int *tui_job_cancel_flag(tui_job_run *r)
{
	return &r->cancel;
}

int tui_job_run_cancelled(tui_job_run *r)
{
	return atomic_load(&r->cancel) != 0;
}

void tui_job_progress_get(tui_job *j, tui_job_progress *out)
{
	tui_job_run *r = j->run;
	if (!r) {
		empty_progress(out);
		return;
	}
	pthread_mutex_lock(&r->mu);
	*out = r->prog;
	pthread_mutex_unlock(&r->mu);
	out->elapsed_ms = (tui_now_us() - r->t0_us) / 1e3;
}

int tui_job_delay_parse(const char *s)
{
	if (!s || !*s)
		return 0;
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v <= 0)
		return 0;
	return v > 60000 ? 60000 : (int)v;
}
