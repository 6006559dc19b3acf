/* task_ilp.c - `i`: the bubble ILP for the current plan on the background job, then the
 * refined plan on trial in the panes (MODE_REVIEW) until the user keeps or discards it. */
#include "tui/actions.h"
#include "tui/tasks.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ILP_LIMIT_MS 60000 /* as `strata ilp`: an interactive solve never runs unbounded */

typedef struct {
	plan_t plan;        /* the worker's private copy, even split */
	ilp_pins pins;
	ilp_result res;     /* written by the worker only */
} ilp_task;

static void ilp_progress(void *user, double elapsed_ms, double best_s, double gap)
{
	(void)elapsed_ms;
	tui_job_progress p;
	memset(&p, 0, sizeof p);
	p.done = NAN;
	p.best = best_s;
	p.gap = gap;
	tui_job_report(user, &p);
}

static void ilp_work(tui_job_run *r, void *arg)
{
	ilp_task *t = arg;
	ilp_params prm;
	memset(&prm, 0, sizeof prm);
	prm.time_limit_ms = ILP_LIMIT_MS;
	prm.cancel = tui_job_cancel_flag(r);
	prm.progress = ilp_progress;
	prm.user = r;
	const plan_t *p = &t->plan;
	ilp_solve(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, &t->pins, &prm, &t->res);
}

static void ilp_drop(void *data)
{
	ilp_task *t = data;
	ilp_free(&t->res);
	free(t);
}

static void ilp_progress_line(const void *data, const tui_job_progress *p, const char *dot, char *out, size_t n)
{
	(void)data;
	size_t l = (size_t)snprintf(out, n, "ILP running %.1f s", p->elapsed_ms / 1e3);
	if (!isnan(p->best) && l < n)
		l += (size_t)snprintf(out + l, n - l, " %s best %.4g s", dot, p->best);
	if (!isnan(p->gap) && l < n)
		l += (size_t)snprintf(out + l, n - l, " %s gap %.2f%%", dot, 100 * p->gap);
	if (l < n)
		snprintf(out + l, n - l, " %s Esc cancels", dot);
}

/* Layers per stage, "41 39", for messages. */
static void stage_layers(const ilp_result *r, char *out, size_t n)
{
	size_t l = 0;
	out[0] = 0;
	for (int s = 0; s < r->stages && l + 1 < n; s++)
		l += (size_t)snprintf(out + l, n - l, "%s%d", s ? " " : "", r->st[s].layers);
}

static void ilp_finish(tui_app *a, void *data)
{
	ilp_task *t = data;
	ilp_result *r = &t->res;
	if (!r->have_plan) {
		if (r->status == ILP_CANCELLED)
			tui_app_msg(a, MSG_INFO, "ILP cancelled before it found a plan");
		else if (r->status == ILP_TIMEOUT)
			tui_app_msg(a, MSG_ERROR, "ILP: no plan within %d s", ILP_LIMIT_MS / 1000);
		else if (r->status == ILP_INFEASIBLE && r->bad_stage >= 0 && r->bad_over > 0)
			/* short enough for 80 columns; r->why has the stage's need and the budget */
			tui_app_msg(a, MSG_ERROR, "ILP infeasible: stage %d over budget by %.2f GiB even with full recompute",
					r->bad_stage, r->bad_over / (1024.0 * 1024.0 * 1024.0));
		else if (r->status == ILP_INFEASIBLE)
			tui_app_msg(a, MSG_ERROR, "ILP infeasible: %s", r->why);
		else
			tui_app_msg(a, MSG_ERROR, "ILP failed: %s", r->why[0] ? r->why : ilp_status_name(r->status));
		ilp_drop(t);
		return;
	}
	if (a->review) /* cannot happen (a job starts only in the normal mode); stay safe */
		tui_review_discard(a);
	tui_review *rv = malloc(sizeof *rv);
	if (!rv) {
		tui_app_msg(a, MSG_ERROR, "out of memory");
		ilp_drop(t);
		return;
	}
	rv->before = *a->plan;
	rv->r = *r; /* takes over r->layer_rc */
	free(t);
	plan_t *p = malloc(sizeof *p);
	if (!p) {
		ilp_free(&rv->r);
		free(rv);
		tui_app_msg(a, MSG_ERROR, "out of memory");
		return;
	}
	*p = rv->before;
	p->strategy.nchunks = 0;
	p->strategy.nranges = 0;
	rv->exact = !ilp_apply(&rv->r, &p->strategy);
	/* on trial: shown in every pane, not on the undo stack until kept */
	knob_job j0 = tui_app_job(a);
	*a->plan = *p;
	free(p);
	tui_app_eval(a);
	knob_job j1 = tui_app_job(a);
	a->changed = tui_knobs_changed(a, &j0, &j1);
	a->review = rv;
	a->mode = MODE_REVIEW;
	char layers[256];
	stage_layers(&rv->r, layers, sizeof layers);
	const char *how = rv->r.status == ILP_OPTIMAL ? "optimal" : "feasible (not proven optimal)";
	tui_app_msg(a, MSG_INFO, "ILP %s, %.3fx over even: Enter/y keeps, n/Esc discards %s layers %s%s", how,
			rv->r.speedup, a->g->dot, layers, rv->exact ? "" : " (recompute pattern too detailed: uniform kept)");
}

static const tui_task_ops ilp_ops = {"ILP", ilp_work, ilp_finish, ilp_drop, ilp_progress_line};

void tui_ilp_start(tui_app *a)
{
	if (!a->cur_valid) {
		tui_app_msg(a, MSG_ERROR, "the ILP needs a valid strategy: %s", a->cur_why);
		return;
	}
	/* even split and uniform recompute, also when an earlier ILP plan was kept */
	ilp_task *t = tui_task_alloc(a, sizeof *t, offsetof(ilp_task, plan));
	if (!t)
		return;
	char why[256];
	if (ilp_pins_from_strings(t->plan.pins, t->plan.npins, &t->pins, why, sizeof why)) {
		tui_app_msg(a, MSG_ERROR, "ILP: %s", why);
		free(t);
		return;
	}
	tui_task_start(a, &ilp_ops, t);
}

void tui_review_keep(tui_app *a)
{
	tui_review *rv = a->review;
	if (!rv)
		return;
	plan_t *p = malloc(sizeof *p);
	if (!p) {
		tui_app_msg(a, MSG_ERROR, "out of memory");
		return;
	}
	*p = *a->plan;
	*a->plan = rv->before; /* so that the undo stack gets the plan before the ILP */
	char what[160], layers[120];
	stage_layers(&rv->r, layers, sizeof layers);
	snprintf(what, sizeof what, "kept the ILP plan (u undoes), layers %s", layers);
	a->review = NULL;
	a->mode = MODE_NORMAL;
	ilp_free(&rv->r);
	free(rv);
	tui_commit_described(a, p, what);
	free(p);
}

void tui_review_discard(tui_app *a)
{
	tui_review *rv = a->review;
	a->mode = MODE_NORMAL;
	if (!rv)
		return;
	*a->plan = rv->before;
	tui_app_eval(a);
	a->changed = 0;
	a->review = NULL;
	ilp_free(&rv->r);
	free(rv);
	tui_app_msg(a, MSG_INFO, "ILP plan discarded");
}

/* Used by the panes: "3f", "2s1f", "" — the layers of a stage per recompute mode. */
void tui_rc_text(const int rc[RC_COUNT], char *out, size_t n)
{
	if (rc[RC_SELECTIVE] && rc[RC_FULL])
		snprintf(out, n, "%ds%df", rc[RC_SELECTIVE], rc[RC_FULL]);
	else if (rc[RC_SELECTIVE])
		snprintf(out, n, "%ds", rc[RC_SELECTIVE]);
	else if (rc[RC_FULL])
		snprintf(out, n, "%df", rc[RC_FULL]);
	else
		out[0] = 0;
}
