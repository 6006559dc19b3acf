/* Unit tests of the explorer's background job (src/tui/job.c) without curses: start,
 * progress hand-over, cancel (during the test-hook pause and during the work), bounded
 * waits, join, one job at a time, the result visible after the join, restart, abandoning
 * a worker that ignores the cancel flag (it frees its own data later; the cap on abandoned
 * workers), the delay parser. */
#include "check.h"
#include "tui/frames.h"
#include "tui/job.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
	atomic_int go;        /* the test lets the work finish */
	int steps;            /* written by the worker, read after the join */
	int saw_cancel;
	double result;
} work_arg;

static atomic_int freed;  /* arg blocks freed through the free function */

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Reports progress until told to go or cancelled, then writes a result. */
static void worker(tui_job_run *r, void *v)
{
	work_arg *w = v;
	while (!atomic_load(&w->go) && !tui_job_run_cancelled(r)) {
		tui_job_progress p;
		memset(&p, 0, sizeof p);
		p.level = 1;
		p.done = w->steps / 1000.0;
		p.best = 42.0;
		p.gap = NAN;
		tui_job_report(r, &p);
		w->steps++;
		sleep_ms(1);
	}
	w->saw_cancel = tui_job_run_cancelled(r);
	w->result = 7.5;
}

/* The free function for args on the test's stack: only counts. */
static void count_free(void *v)
{
	(void)v;
	atomic_fetch_add(&freed, 1);
}

/* The free function for heap args. */
static void heap_free(void *v)
{
	free(v);
	atomic_fetch_add(&freed, 1);
}

/* Ignores the cancel flag (a recipe stuck where the sandbox cannot reach it) until the
 * test lets it go, then writes into its heap block, as a late worker would. */
static atomic_int release_stubborn;
static void stubborn(tui_job_run *r, void *v)
{
	work_arg *w = v;
	while (!atomic_load(&release_stubborn))
		sleep_ms(1);
	w->saw_cancel = tui_job_run_cancelled(r);
	w->result = 1.0;
	w->steps = 99;
}

/* Poll like the main loop does until the worker has returned (bounded). */
static int wait_finished(tui_job *j, int ms)
{
	double end = tui_now_us() + ms * 1e3;
	while (!tui_job_finished(j) && tui_now_us() < end)
		sleep_ms(1);
	return tui_job_finished(j);
}

/* Check that the time since t0 is in [lo, hi) ms; the name shows the figure. */
static void check_ms(double t0, double lo, double hi, const char *what)
{
	double ms = (tui_now_us() - t0) / 1e3;
	char name[200];
	snprintf(name, sizeof name, "%s (took %.1f ms)", what, ms);
	CHECK(ms >= lo && ms < hi, name);
}

/* Poll until no abandoned worker is left (bounded). */
static int wait_no_abandoned(int ms)
{
	double end = tui_now_us() + ms * 1e3;
	while (tui_job_abandoned_live() > 0 && tui_now_us() < end)
		sleep_ms(1);
	return tui_job_abandoned_live() == 0;
}

static void test_run_and_progress(void)
{
	tui_job j;
	CHECK(tui_job_init(&j) == 0, "init");
	CHECK(!tui_job_running(&j) && !tui_job_finished(&j), "idle job: not running, not finished");
	CHECK(tui_job_wait(&j, 0) == 1 && tui_job_stop(&j, 10) == 0, "waiting for or stopping an idle job: nothing to do");
	work_arg w;
	memset(&w, 0, sizeof w);
	CHECK(tui_job_start(&j, worker, &w, count_free, 0) == 0, "start");
	CHECK(tui_job_running(&j), "running after start");
	work_arg other;
	memset(&other, 0, sizeof other);
	CHECK(tui_job_start(&j, worker, &other, count_free, 0) == -1, "a second start while one runs is refused");
	tui_job_progress p;
	double end = tui_now_us() + 5e6;
	do {
		sleep_ms(2);
		tui_job_progress_get(&j, &p);
	} while (p.reports < 3 && tui_now_us() < end);
	CHECK(p.reports >= 3 && p.level == 1 && p.best == 42.0 && isnan(p.gap), "progress snapshots reach the main side");
	CHECK(p.elapsed_ms > 0, "elapsed time filled in by the main side");
	CHECK(!tui_job_finished(&j), "not finished while the work goes on");
	double t0 = tui_now_us();
	CHECK(tui_job_wait(&j, 30) == 0, "a bounded wait on a busy worker gives up");
	check_ms(t0, 25, 1000, "... after its bound (30 ms)");
	CHECK(tui_job_running(&j), "... and the worker is still ours");
	atomic_store(&w.go, 1);
	CHECK(tui_job_wait(&j, 5000) == 1, "a bounded wait returns once the work does");
	CHECK(!tui_job_running(&j), "not running after the join");
	CHECK(w.result == 7.5 && !w.saw_cancel && w.steps >= 3, "the result is the caller's after the join");
	CHECK(tui_job_wait(&j, 0) == 1, "a second wait is harmless");
	CHECK(atomic_load(&freed) == 0, "a joined job's arg is never freed by the job");
	/* the job can run again, and progress starts afresh */
	memset(&w, 0, sizeof w);
	atomic_store(&w.go, 1);
	CHECK(tui_job_start(&j, worker, &w, count_free, 0) == 0, "restart after the join");
	tui_job_progress_get(&j, &p);
	CHECK(p.reports == 0 || p.reports == 1, "progress reset at the restart");
	CHECK(wait_finished(&j, 5000), "second run finishes");
	CHECK(tui_job_wait(&j, 0) == 1, "a finished worker is joined without waiting");
	tui_job_destroy(&j);
}

static void test_cancel(void)
{
	tui_job j;
	tui_job_init(&j);
	work_arg w;
	memset(&w, 0, sizeof w);
	tui_job_start(&j, worker, &w, count_free, 0);
	sleep_ms(5);
	double t0 = tui_now_us();
	tui_job_cancel(&j);
	CHECK(tui_job_cancelled(&j), "cancel sets the flag");
	CHECK(wait_finished(&j, 5000), "a cancelled job finishes");
	tui_job_wait(&j, 0);
	CHECK(w.saw_cancel && (tui_now_us() - t0) < 1e6, "the work saw the flag and stopped within a second");
	/* the test hook's pause: cancelled long before its end */
	memset(&w, 0, sizeof w);
	t0 = tui_now_us();
	tui_job_start(&j, worker, &w, count_free, 10000);
	CHECK(!tui_job_cancelled(&j), "a new start clears the flag");
	sleep_ms(20);
	CHECK(w.steps == 0, "the work waits for the pause");
	CHECK(tui_job_stop(&j, 5000) == 0, "stop during the pause: the worker returns and is joined");
	CHECK((tui_now_us() - t0) < 2e6 && w.saw_cancel, "the 10 s pause was cut short");
	/* destroy with a cooperative job running: cancelled, joined, its arg freed */
	memset(&w, 0, sizeof w);
	atomic_store(&freed, 0);
	tui_job_start(&j, worker, &w, count_free, 0);
	tui_job_destroy(&j);
	CHECK(w.saw_cancel && w.result == 7.5, "destroy cancels and joins a running job");
	CHECK(atomic_load(&freed) == 1, "destroy frees the joined job's arg with its free function");
}

static void test_abandon(void)
{
	tui_job j;
	tui_job_init(&j);
	atomic_store(&freed, 0);
	atomic_store(&release_stubborn, 0);
	work_arg *w = calloc(1, sizeof *w);
	CHECK(w && tui_job_start(&j, stubborn, w, heap_free, 0) == 0, "a worker that ignores the cancel flag starts");
	double t0 = tui_now_us();
	CHECK(tui_job_stop(&j, 50) == 1, "stop gives up on it: abandoned");
	check_ms(t0, 45, 1000, "... after the bound (50 ms)");
	CHECK(!tui_job_running(&j) && !tui_job_finished(&j) && !tui_job_cancelled(&j), "the job is idle afterwards");
	CHECK(tui_job_abandoned_live() == 1, "one abandoned worker counted");
	CHECK(atomic_load(&freed) == 0, "its arg is not freed while it runs");
	/* the handle is free for another job while the abandoned worker runs on */
	work_arg w2;
	memset(&w2, 0, sizeof w2);
	atomic_store(&w2.go, 1);
	CHECK(tui_job_start(&j, worker, &w2, count_free, 0) == 0, "a new job starts beside the abandoned worker");
	CHECK(tui_job_wait(&j, 5000) == 1 && w2.result == 7.5, "and finishes normally");
	/* let the stubborn one return: it writes into its own block, then frees it (ASan
	 * would see a write into freed memory) */
	atomic_store(&release_stubborn, 1);
	CHECK(wait_no_abandoned(5000), "the abandoned worker, once it returns, is no longer counted");
	CHECK(atomic_load(&freed) == 1, "and freed its arg with the free function");
	/* abandoning a worker that has in fact returned joins it and leaves the arg with us */
	work_arg w3;
	memset(&w3, 0, sizeof w3);
	atomic_store(&w3.go, 1);
	tui_job_start(&j, worker, &w3, count_free, 0);
	CHECK(wait_finished(&j, 5000), "a quick worker returns");
	CHECK(tui_job_abandon(&j) == 0 && !tui_job_running(&j), "abandoning it joins it instead");
	CHECK(atomic_load(&freed) == 1 && w3.result == 7.5, "its arg is the caller's");
	tui_job_destroy(&j);
}

static void test_abandon_cap(void)
{
	tui_job j;
	tui_job_init(&j);
	atomic_store(&freed, 0);
	atomic_store(&release_stubborn, 0);
	int started = 0;
	for (int i = 0; i < TUI_JOB_MAX_ABANDONED; i++) {
		work_arg *w = calloc(1, sizeof *w);
		if (w && tui_job_start(&j, stubborn, w, heap_free, 0) == 0 && tui_job_stop(&j, 1) == 1)
			started++;
		else
			free(w);
	}
	CHECK(started == TUI_JOB_MAX_ABANDONED && tui_job_abandoned_live() == TUI_JOB_MAX_ABANDONED,
			"TUI_JOB_MAX_ABANDONED workers abandoned");
	work_arg w;
	memset(&w, 0, sizeof w);
	CHECK(tui_job_start(&j, worker, &w, count_free, 0) == -1, "no new job while that many still run");
	atomic_store(&release_stubborn, 1);
	CHECK(wait_no_abandoned(5000) && atomic_load(&freed) == TUI_JOB_MAX_ABANDONED,
			"they all return and free their blocks");
	atomic_store(&w.go, 1);
	CHECK(tui_job_start(&j, worker, &w, count_free, 0) == 0 && tui_job_wait(&j, 5000) == 1,
			"jobs start again afterwards");
	tui_job_destroy(&j);
}

static void test_delay_parse(void)
{
	CHECK(tui_job_delay_parse(NULL) == 0 && tui_job_delay_parse("") == 0, "no delay by default");
	CHECK(tui_job_delay_parse("250") == 250, "250 ms");
	CHECK(tui_job_delay_parse("-5") == 0 && tui_job_delay_parse("12x") == 0, "bad values mean none");
	CHECK(tui_job_delay_parse("999999") == 60000, "capped at a minute");
}

int main(void)
{
	test_run_and_progress();
	test_cancel();
	test_abandon();
	test_abandon_cap();
	test_delay_parse();
	return check_done();
}
