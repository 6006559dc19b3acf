/* Unit tests of the explorer's background job (src/tui/job.c) without curses: start,
 * progress hand-over, cancel (during the test-hook pause and during the work), join, one
 * job at a time, the result visible after the join, restart, the delay parser. */
#include "check.h"
#include "tui/frames.h"
#include "tui/job.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

typedef struct {
	atomic_int go;        /* the test lets the work finish */
	int steps;            /* written by the worker, read after the join */
	int saw_cancel;
	double result;
} work_arg;

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Reports progress until told to go or cancelled, then writes a result. */
static void worker(tui_job *j, void *v)
{
	work_arg *w = v;
	while (!atomic_load(&w->go) && !tui_job_cancelled(j)) {
		tui_job_progress p;
		memset(&p, 0, sizeof p);
		p.level = 1;
		p.done = w->steps / 1000.0;
		p.best = 42.0;
		p.gap = NAN;
		tui_job_report(j, &p);
		w->steps++;
		sleep_ms(1);
	}
	w->saw_cancel = tui_job_cancelled(j);
	w->result = 7.5;
}

/* Poll like the main loop does until the worker has returned (bounded). */
static int wait_finished(tui_job *j, int ms)
{
	double end = tui_now_us() + ms * 1e3;
	while (!tui_job_finished(j) && tui_now_us() < end)
		sleep_ms(1);
	return tui_job_finished(j);
}

static void test_run_and_progress(void)
{
	tui_job j;
	CHECK(tui_job_init(&j) == 0, "init");
	CHECK(!tui_job_running(&j) && !tui_job_finished(&j), "idle job: not running, not finished");
	work_arg w;
	memset(&w, 0, sizeof w);
	CHECK(tui_job_start(&j, worker, &w, 0) == 0, "start");
	CHECK(tui_job_running(&j), "running after start");
	work_arg other;
	memset(&other, 0, sizeof other);
	CHECK(tui_job_start(&j, worker, &other, 0) == -1, "a second start while one runs is refused");
	tui_job_progress p;
	double end = tui_now_us() + 5e6;
	do {
		sleep_ms(2);
		tui_job_progress_get(&j, &p);
	} while (p.reports < 3 && tui_now_us() < end);
	CHECK(p.reports >= 3 && p.level == 1 && p.best == 42.0 && isnan(p.gap), "progress snapshots reach the main side");
	CHECK(p.elapsed_ms > 0, "elapsed time filled in by the main side");
	CHECK(!tui_job_finished(&j), "not finished while the work goes on");
	atomic_store(&w.go, 1);
	CHECK(wait_finished(&j, 5000), "finished once the work returns");
	tui_job_wait(&j);
	CHECK(!tui_job_running(&j), "not running after the join");
	CHECK(w.result == 7.5 && !w.saw_cancel && w.steps >= 3, "the result is the caller's after the join");
	tui_job_wait(&j); /* a second join is harmless */
	CHECK(1, "a second wait is harmless");
	/* the job can run again, and progress starts afresh */
	memset(&w, 0, sizeof w);
	atomic_store(&w.go, 1);
	CHECK(tui_job_start(&j, worker, &w, 0) == 0, "restart after the join");
	tui_job_progress_get(&j, &p);
	CHECK(p.reports == 0 || p.reports == 1, "progress reset at the restart");
	CHECK(wait_finished(&j, 5000), "second run finishes");
	tui_job_wait(&j);
	tui_job_destroy(&j);
}

static void test_cancel(void)
{
	tui_job j;
	tui_job_init(&j);
	work_arg w;
	memset(&w, 0, sizeof w);
	tui_job_start(&j, worker, &w, 0);
	sleep_ms(5);
	double t0 = tui_now_us();
	tui_job_cancel(&j);
	CHECK(tui_job_cancelled(&j), "cancel sets the flag");
	CHECK(wait_finished(&j, 5000), "a cancelled job finishes");
	tui_job_wait(&j);
	CHECK(w.saw_cancel && (tui_now_us() - t0) < 1e6, "the work saw the flag and stopped within a second");
	CHECK(atomic_load(tui_job_cancel_flag(&j)) == 1, "the flag handed to the solvers is the same one");
	/* the test hook's pause: cancelled long before its end */
	memset(&w, 0, sizeof w);
	t0 = tui_now_us();
	tui_job_start(&j, worker, &w, 10000);
	CHECK(!tui_job_cancelled(&j), "a new start clears the flag");
	sleep_ms(20);
	CHECK(w.steps == 0, "the work waits for the pause");
	tui_job_cancel(&j);
	CHECK(wait_finished(&j, 5000), "cancel during the pause finishes the job");
	tui_job_wait(&j);
	CHECK((tui_now_us() - t0) < 2e6 && w.saw_cancel, "the 10 s pause was cut short");
	/* destroy with a job running: cancelled and joined */
	memset(&w, 0, sizeof w);
	tui_job_start(&j, worker, &w, 0);
	tui_job_destroy(&j);
	CHECK(w.saw_cancel && w.result == 7.5, "destroy cancels and joins a running job");
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
	test_delay_parse();
	return check_done();
}
