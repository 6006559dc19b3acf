/* Unit tests of the explorer's task layer (src/tui/tasks.c) on a real tui_app without a
 * terminal: Esc on a job that does not stop gives the keyboard back within 100 ms (the
 * job is abandoned and frees its own data later), a job that stops is collected as
 * before, quitting waits TUI_JOB_STOP_MS at most, and freeing the app with a runaway job
 * leaves the job its own memory (the sanitizer build checks the late writes). */
#include "check.h"
#include "fixture.h"
#include "io/paths.h"
#include "io/plan.h"
#include "tui/frames.h"
#include "tui/job.h"
#include "tui/tasks.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ESC_DELAY_MS 25 /* curses' Esc delay as the explorer sets it (term.c) */

static paths_t paths;
static atomic_int release;   /* lets the stubborn work return */
static atomic_int dropped;   /* data blocks freed unseen (main thread or late worker) */
static atomic_int finished;  /* data blocks collected by finish() */

typedef struct {
	int stubborn;            /* ignore the cancel flag until `release` */
	int saw_cancel;
	char scratch[4096];      /* what a late worker writes into */
} fake_task;

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void fake_work(tui_job_run *r, void *arg)
{
	fake_task *t = arg;
	while (t->stubborn ? !atomic_load(&release) : !tui_job_run_cancelled(r))
		sleep_ms(1);
	t->saw_cancel = tui_job_run_cancelled(r);
	memset(t->scratch, 'x', sizeof t->scratch); /* a late write: only into its own block */
}

static void fake_finish(tui_app *a, void *data)
{
	fake_task *t = data;
	tui_app_msg(a, MSG_INFO, "fake %s", t->saw_cancel ? "cancelled" : "done");
	free(t);
	atomic_fetch_add(&finished, 1);
}

static void fake_drop(void *data)
{
	free(data);
	atomic_fetch_add(&dropped, 1);
}

static void fake_status(const void *data, const tui_job_progress *p, const char *dot, char *out, size_t n)
{
	(void)data;
	snprintf(out, n, "fake running %.1f s %s", p->elapsed_ms / 1e3, dot);
}

static const tui_task_ops fake_ops = {"fake", fake_work, fake_finish, fake_drop, fake_status};

static int start(tui_app *a, int stubborn)
{
	fake_task *t = calloc(1, sizeof *t);
	if (!t)
		return -1;
	t->stubborn = stubborn;
	return tui_task_start(a, &fake_ops, t);
}

/* The main loop while a job runs: poll every 10 ms until the job is gone (bounded). */
static double loop_until_idle(tui_app *a, int ms)
{
	double t0 = tui_now_us();
	while (tui_task_busy(a) && tui_now_us() - t0 < ms * 1e3) {
		sleep_ms(10);
		tui_task_poll(a);
	}
	return (tui_now_us() - t0) / 1e3;
}

static int wait_no_abandoned(int ms)
{
	double end = tui_now_us() + ms * 1e3;
	while (tui_job_abandoned_live() > 0 && tui_now_us() < end)
		sleep_ms(1);
	return tui_job_abandoned_live() == 0;
}

static void test_esc(tui_app *a)
{
	char name[200];
	atomic_store(&release, 0);
	CHECK(start(a, 1) == 0 && tui_task_busy(a), "a job that ignores cancel is running");
	sleep_ms(20);
	CHECK(tui_task_poll(a) == 0 && tui_task_busy(a), "polling a running job does not end it");
	tui_task_cancel(a); /* Esc */
	double ms = loop_until_idle(a, 5000);
	snprintf(name, sizeof name, "Esc: the keyboard is free within %d ms of the key (measured %.0f ms + %d ms Esc delay)",
			100, ms, ESC_DELAY_MS);
	CHECK(!tui_task_busy(a) && ms + ESC_DELAY_MS <= 100, name);
	CHECK(ms >= TUI_CANCEL_GRACE_MS - 1, "Esc: the job had TUI_CANCEL_GRACE_MS to stop first");
	CHECK(strstr(a->msg, "fake cancelled (it did not stop within") && strstr(a->msg, "abandoned"),
			"Esc: the message line says the job was cancelled and abandoned");
	CHECK(tui_job_abandoned_live() == 1 && atomic_load(&dropped) == 0, "the abandoned worker runs on, its data alive");
	/* another job starts at once and is collected as usual */
	CHECK(start(a, 0) == 0, "a new job starts beside the abandoned one");
	tui_task_cancel(a);
	loop_until_idle(a, 5000);
	CHECK(atomic_load(&finished) == 1 && strstr(a->msg, "fake cancelled") && !strstr(a->msg, "abandoned"),
			"a job that stops in time is collected: its own result, not abandoned");
	atomic_store(&release, 1);
	CHECK(wait_no_abandoned(5000) && atomic_load(&dropped) == 1, "the abandoned worker frees its own data when it returns");
}

static void test_stop(tui_app *a)
{
	char name[200];
	atomic_store(&release, 0);
	atomic_store(&dropped, 0);
	start(a, 1);
	double t0 = tui_now_us();
	tui_task_stop(a); /* quit or a signal */
	double ms = (tui_now_us() - t0) / 1e3;
	snprintf(name, sizeof name, "quit with a runaway job: back after TUI_JOB_STOP_MS (%d ms; took %.0f ms)",
			TUI_JOB_STOP_MS, ms);
	CHECK(!tui_task_busy(a) && ms >= TUI_JOB_STOP_MS - 1 && ms < TUI_JOB_STOP_MS + 800, name);
	atomic_store(&release, 1);
	CHECK(wait_no_abandoned(5000) && atomic_load(&dropped) == 1, "quit: the abandoned job's data freed by its worker");
	/* a job that honours the flag: joined and dropped by the main thread at once */
	atomic_store(&dropped, 0);
	start(a, 0);
	t0 = tui_now_us();
	tui_task_stop(a);
	ms = (tui_now_us() - t0) / 1e3;
	CHECK(!tui_task_busy(a) && atomic_load(&dropped) == 1 && ms < TUI_JOB_STOP_MS,
			"quit with a job that stops: joined and dropped before the bound");
}

static void test_free_with_runaway(const plan_t *plan)
{
	tui_app a;
	CHECK(tui_app_init(&a, plan, &paths) == 0, "a second app");
	atomic_store(&release, 0);
	atomic_store(&dropped, 0);
	start(&a, 1);
	double t0 = tui_now_us();
	tui_app_free(&a);
	CHECK((tui_now_us() - t0) / 1e3 < TUI_JOB_STOP_MS + 800, "freeing the app with a runaway job is bounded");
	memset(&a, 0xA5, sizeof a); /* the app is gone; the worker must not care */
	atomic_store(&release, 1);
	CHECK(wait_no_abandoned(5000) && atomic_load(&dropped) == 1, "the job outlives the app and frees only its own data");
}

int main(void)
{
	char cwd[1024];
	if (!getcwd(cwd, sizeof cwd))
		return 1;
	setenv("STRATA_DATA", cwd, 1); /* the presets of the source tree (tests run from its root) */
	paths_init(&paths, "strata");
	plan_t *plan = malloc(sizeof *plan);
	if (!plan || fixture_load(plan, &paths, plan_default_text)) {
		CHECK(0, "the default plan loads");
		free(plan);
		return check_done();
	}
	tui_app a;
	CHECK(tui_app_init(&a, plan, &paths) == 0, "app without a terminal");
	test_esc(&a);
	test_stop(&a);
	tui_app_free(&a);
	test_free_with_runaway(plan);
	free(plan);
	return check_done();
}
