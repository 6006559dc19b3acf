/* app.c - the explorer's state: evaluation, undo, messages. */
#include "tui/app.h"
#include "io/plan_write.h"
#include "io/report.h"
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
	a->redo = malloc(TUI_UNDO * sizeof *a->redo);
	a->saved = malloc(sizeof *a->saved);
	a->log = malloc(TUI_LOG * sizeof *a->log);
	a->log_kind = malloc(TUI_LOG);
	a->tl = malloc(sizeof *a->tl);
	a->pick = malloc(sizeof *a->pick);
	a->job = malloc(sizeof *a->job);
	if (a->job && tui_job_init(a->job)) {
		free(a->job);
		a->job = NULL;
	}
	if (!a->plan || !a->res || !a->scratch || !a->undo || !a->redo || !a->saved || !a->log || !a->log_kind ||
			!a->tl || !a->pick || !a->job) {
		tui_app_free(a);
		return -1;
	}
	*a->plan = *plan;
	*a->saved = *plan;
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
	free(a->redo);
	free(a->saved);
	free(a->log);
	free(a->log_kind);
	free(a->view_text);
	free(a->slot[0]);
	free(a->slot[1]);
	a->slot[0] = a->slot[1] = NULL;
	a->redo = a->saved = NULL;
	a->log = NULL;
	a->log_kind = NULL;
	a->view_text = a->shown = NULL;
	free(a->tl);
	free(a->pick);
	free(a->why);
	a->why = NULL;
	free(a->sweep);
	a->sweep = NULL;
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
	/* against the previous valid plan on screen */
	if (a->have_res && a->cur_valid)
		report_delta_text(a->res, a->scratch, a->delta, sizeof a->delta);
	eval_result *t = a->res;
	a->res = a->scratch;
	a->scratch = t;
	a->have_res = 1;
	a->cur_valid = 1;
	a->cur_why[0] = 0;
	a->tl_stale = 1;
	a->why_stale = 1;
	a->res_sched = p->strategy.schedule;
	a->res_vpp = p->strategy.vpp;
	a->res_split = p->strategy.nchunks > 0;
}

/* The plan as a plan file writes it, in a malloc'd string (NULL when it cannot be written:
 * a model without a config-key form). */
static char *plan_text(const tui_app *a, const plan_t *p)
{
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	int rc = plan_write(f, p, a->paths, err, sizeof err);
	if (fclose(f) || rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

void tui_app_update_dirty(tui_app *a)
{
	/* compared as the files they would save to: the same plan reached again by undo, or by
	 * stepping a knob back, is not a change (vim's and lazygit's [+]) */
	char *now = plan_text(a, a->plan), *then = plan_text(a, a->saved);
	if (now && then)
		a->dirty = strcmp(now, then) != 0;
	else
		a->dirty = memcmp(a->plan, a->saved, sizeof *a->plan) != 0;
	free(now);
	free(then);
}

void tui_app_commit(tui_app *a, const plan_t *p)
{
	a->undo[a->undo_head] = *a->plan;
	a->undo_head = (a->undo_head + 1) % TUI_UNDO;
	if (a->undo_n < TUI_UNDO)
		a->undo_n++;
	a->redo_n = 0;
	*a->plan = *p;
	tui_app_update_dirty(a);
	tui_app_eval(a);
}

int tui_app_undo(tui_app *a)
{
	if (a->undo_n == 0)
		return -1;
	if (a->redo_n < TUI_UNDO)
		a->redo[a->redo_n++] = *a->plan;
	a->undo_head = (a->undo_head + TUI_UNDO - 1) % TUI_UNDO;
	a->undo_n--;
	*a->plan = a->undo[a->undo_head];
	tui_app_update_dirty(a);
	tui_app_eval(a);
	return 0;
}

int tui_app_redo(tui_app *a)
{
	if (a->redo_n == 0)
		return -1;
	a->undo[a->undo_head] = *a->plan;
	a->undo_head = (a->undo_head + 1) % TUI_UNDO;
	if (a->undo_n < TUI_UNDO)
		a->undo_n++;
	*a->plan = a->redo[--a->redo_n];
	tui_app_update_dirty(a);
	tui_app_eval(a);
	return 0;
}

void tui_app_reset(tui_app *a, const plan_t *p)
{
	a->undo_n = a->undo_head = a->redo_n = 0;
	*a->plan = *p;
	*a->saved = *p;
	a->dirty = 0;
	tui_app_eval(a);
}

void tui_app_mark_saved(tui_app *a)
{
	*a->saved = *a->plan;
	a->dirty = 0;
}

void tui_app_show_text(tui_app *a, const char *title, const char *text)
{
	char *copy = strdup(text);
	if (!copy)
		return;
	free(a->view_text);
	a->view_text = a->shown = copy;
	snprintf(a->text_title, sizeof a->text_title, "%s", title);
	a->text_top = 0;
	a->mode = MODE_TEXT;
}

void tui_app_msg(tui_app *a, tui_msg_kind kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof a->msg, fmt, ap);
	va_end(ap);
	a->msg_kind = kind;
	/* every message goes to the log, read back whole with :messages */
	if (!a->log)
		return;
	snprintf(a->log[a->log_head], sizeof a->log[0], "%s", a->msg);
	a->log_kind[a->log_head] = (unsigned char)kind;
	a->log_head = (a->log_head + 1) % TUI_LOG;
	if (a->log_n < TUI_LOG)
		a->log_n++;
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
