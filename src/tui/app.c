/* app.c - the explorer's state: evaluation, undo, messages. */
#include "tui/app.h"
#include "tui/job.h"
#include "tui/tasks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tui_app_init(tui_app *a, const plan_t *plan, const paths_t *paths)
{
	memset(a, 0, sizeof *a);
	a->paths = paths;
	a->plan = malloc(sizeof *a->plan);
	a->res = malloc(sizeof *a->res);
	a->scratch = malloc(sizeof *a->scratch);
	a->undo = malloc(TUI_UNDO * sizeof *a->undo);
	a->tl = malloc(sizeof *a->tl);
	a->pick = malloc(sizeof *a->pick);
	a->job = malloc(sizeof *a->job);
	if (a->job && tui_job_init(a->job)) {
		free(a->job);
		a->job = NULL;
	}
	if (!a->plan || !a->res || !a->scratch || !a->undo || !a->tl || !a->pick || !a->job) {
		tui_app_free(a);
		return -1;
	}
	*a->plan = *plan;
	snprintf(a->save_path, sizeof a->save_path, "%s", plan->path);
	a->g = tui_glyphs_get(0);
	a->tl_stale = 1;
	tui_theme_builtin(&a->theme);
	tui_app_eval(a);
	return 0;
}

void tui_app_free(tui_app *a)
{
	/* a worker still running is stopped (joined, or abandoned after TUI_JOB_STOP_MS: it
	 * reads and writes only its own copies, which it frees itself) */
	tui_tasks_release(a);
	if (a->job) {
		tui_job_destroy(a->job);
		free(a->job);
		a->job = NULL;
	}
	free(a->plan);
	free(a->res);
	free(a->scratch);
	free(a->undo);
	free(a->tl);
	free(a->pick);
	a->plan = NULL;
	a->res = a->scratch = NULL;
	a->undo = NULL;
	a->tl = NULL;
	a->pick = NULL;
}

void tui_app_eval(tui_app *a)
{
	const plan_t *p = a->plan;
	double t0 = tui_now_us();
	int rc = eval_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, a->scratch);
	a->eval_us = tui_now_us() - t0;
	if (rc) {
		/* keep the last valid result on screen; the message line says why this one is not */
		a->cur_valid = 0;
		snprintf(a->cur_why, sizeof a->cur_why, "%s", a->scratch->why);
		return;
	}
	eval_result *t = a->res;
	a->res = a->scratch;
	a->scratch = t;
	a->have_res = 1;
	a->cur_valid = 1;
	a->cur_why[0] = 0;
	a->tl_stale = 1;
	a->res_sched = p->strategy.schedule;
	a->res_vpp = p->strategy.vpp;
	a->res_split = p->strategy.nchunks > 0;
}

void tui_app_commit(tui_app *a, const plan_t *p)
{
	a->undo[a->undo_head] = *a->plan;
	a->undo_head = (a->undo_head + 1) % TUI_UNDO;
	if (a->undo_n < TUI_UNDO)
		a->undo_n++;
	*a->plan = *p;
	a->dirty = 1;
	tui_app_eval(a);
}

int tui_app_undo(tui_app *a)
{
	if (a->undo_n == 0)
		return -1;
	a->undo_head = (a->undo_head + TUI_UNDO - 1) % TUI_UNDO;
	a->undo_n--;
	*a->plan = a->undo[a->undo_head];
	a->dirty = 1;
	tui_app_eval(a);
	return 0;
}

void tui_app_msg(tui_app *a, tui_msg_kind kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof a->msg, fmt, ap);
	va_end(ap);
	a->msg_kind = kind;
}

knob_job tui_app_job(const tui_app *a)
{
	knob_job j;
	j.s = a->plan->strategy;
	j.devices = a->plan->devices;
	j.budget_gib = a->plan->budget_gib;
	return j;
}

unsigned tui_app_pinned(const tui_app *a)
{
	unsigned m = 0;
	for (int i = 0; i < a->plan->npins; i++)
		m |= knob_pin_bit(a->plan->pins[i]);
	return m;
}
