/* job.c - the explorer's background worker: thread, progress snapshot, cancel flag. */
#include "tui/job.h"
#include "tui/frames.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void empty_progress(tui_job_progress *p)
{
	memset(p, 0, sizeof *p);
	p->done = p->best = p->gap = NAN;
}

int tui_job_init(tui_job *j)
{
	memset(j, 0, sizeof *j);
	atomic_init(&j->cancel, 0);
	atomic_init(&j->finished, 0);
	empty_progress(&j->prog);
	return pthread_mutex_init(&j->mu, NULL) ? -1 : 0;
}

void tui_job_destroy(tui_job *j)
{
	if (j->running) {
		tui_job_cancel(j);
		tui_job_wait(j);
	}
	pthread_mutex_destroy(&j->mu);
}

/* The test hook's pause, in slices short enough that a cancel is noticed at once. */
static void pause_ms(tui_job *j, int ms)
{
	double end = tui_now_us() + ms * 1e3;
	while (!atomic_load(&j->cancel) && tui_now_us() < end) {
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

static void *trampoline(void *v)
{
	tui_job *j = v;
	if (j->delay_ms > 0)
		pause_ms(j, j->delay_ms);
	j->fn(j, j->arg);
	/* release: everything the work wrote is visible to whoever sees finished == 1 */
	atomic_store_explicit(&j->finished, 1, memory_order_release);
	return NULL;
}

int tui_job_start(tui_job *j, tui_job_fn fn, void *arg, int delay_ms)
{
	if (j->running)
		return -1;
	j->fn = fn;
	j->arg = arg;
	j->delay_ms = delay_ms;
	j->t0_us = tui_now_us();
	atomic_store(&j->cancel, 0);
	atomic_store(&j->finished, 0);
	pthread_mutex_lock(&j->mu);
	empty_progress(&j->prog);
	pthread_mutex_unlock(&j->mu);
	/* The terminal's signals must reach the main thread: its loop is the one that polls
	 * the stop flag and restores the terminal. The new thread inherits this mask. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int rc = pthread_create(&j->tid, NULL, trampoline, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -1;
	j->running = 1;
	return 0;
}

int tui_job_running(const tui_job *j)
{
	return j->running;
}

int tui_job_finished(tui_job *j)
{
	return j->running && atomic_load_explicit(&j->finished, memory_order_acquire);
}

void tui_job_cancel(tui_job *j)
{
	atomic_store(&j->cancel, 1);
}

int tui_job_cancelled(tui_job *j)
{
	return atomic_load(&j->cancel) != 0;
}

const atomic_int *tui_job_cancel_flag(tui_job *j)
{
	return &j->cancel;
}

void tui_job_wait(tui_job *j)
{
	if (!j->running)
		return;
	pthread_join(j->tid, NULL);
	j->running = 0;
}

void tui_job_report(tui_job *j, const tui_job_progress *p)
{
	pthread_mutex_lock(&j->mu);
	long long n = j->prog.reports + 1;
	j->prog = *p;
	j->prog.reports = n;
	pthread_mutex_unlock(&j->mu);
}

void tui_job_progress_get(tui_job *j, tui_job_progress *out)
{
	pthread_mutex_lock(&j->mu);
	*out = j->prog;
	pthread_mutex_unlock(&j->mu);
	out->elapsed_ms = (tui_now_us() - j->t0_us) / 1e3;
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
