/* replay.c - the explorer without a terminal: the same key handler and renderer, curses
 * writing to /dev/null, for the key-to-screen benchmark and for tests. */
#include "tui/tui.h"
#include "io/plan.h"
#include "tui/actions.h"
#include "tui/input.h"
#include "tui/job.h"
#include "tui/tasks.h"
#include "tui/term.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long a replay waits for a job's result: past the ILP's own 60 s limit, so only a
 * job that would never end (a recipe stuck where the sandbox cannot stop it) meets it. */
#define REPLAY_JOB_MS 120000

/* The screen as text, one line per row (ASCII glyph set: innstr is byte-based). */
static void dump(char *out, size_t n, int rows, int cols)
{
	size_t len = 0;
	char line[1100];
	out[0] = 0;
	for (int y = 0; y < rows && len + 1 < n; y++) {
		int got = mvinnstr(y, 0, line, cols < 1024 ? cols : 1024);
		if (got < 0)
			got = 0;
		line[got] = 0;
		len += (size_t)snprintf(out + len, n - len, "%s\n", line);
	}
}

int tui_replay(const paths_t *paths, const char *plan_text, const int *keys, int nkeys, int rows, int cols,
		int flags, double *us, char *screen, size_t screenlen, char *err, size_t errlen)
{
	plan_t *plan = malloc(sizeof *plan);
	if (!plan) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (plan_load_text(plan, plan_text ? plan_text : plan_default_text, "(replay plan)", paths, err, errlen) ||
			strat_resolve(&plan->strategy, plan->devices, err, errlen)) {
		free(plan);
		return -1;
	}
	tui_app a;
	int rc = tui_app_init(&a, plan, paths);
	free(plan);
	if (rc) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	tui_term term;
	if (!out || !in || tui_term_open(&term, out, in, "xterm-256color", 1, err, errlen)) {
		if (out)
			fclose(out);
		if (in)
			fclose(in);
		tui_app_free(&a);
		return -1;
	}
	resize_term(rows, cols);
	a.term = &term;
	a.colors = term.colors;
	a.utf8 = !(flags & TUI_REPLAY_ASCII);
	a.g = tui_glyphs_get(a.utf8);
	tui_themes_scan(&a);
	if (tui_theme_use(&a, "dark"))
		tui_theme_use(&a, "builtin");
	a.msg_kind = MSG_NONE;
	tui_render(&a);
	int done = 0;
	for (; done < nkeys && !a.quit; done++) {
		double t0 = tui_now_us();
		tui_handle_key(&a, keys[done]);
		/* a key that started a job: wait for its result, so a replay is deterministic;
		 * bounded: a job past REPLAY_JOB_MS is stopped (and abandoned if need be) */
		double job_t0 = tui_now_us();
		while (tui_task_busy(&a) && a.mode == MODE_NORMAL) {
			if (tui_now_us() - job_t0 > REPLAY_JOB_MS * 1e3) {
				tui_task_stop(&a);
				break;
			}
			if (!tui_job_finished(a.job)) {
				struct timespec ts = {0, 1000 * 1000};
				nanosleep(&ts, NULL);
			}
			tui_task_poll(&a);
		}
		tui_render(&a);
		double dt = tui_now_us() - t0;
		tui_frames_add(&a.frames, dt);
		if (us)
			us[done] = dt;
	}
	if (screen && screenlen)
		dump(screen, screenlen, rows, cols);
	tui_term_close(&term);
	fclose(out);
	fclose(in);
	tui_app_free(&a);
	return done;
}
