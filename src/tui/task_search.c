/* task_search.c - `s`: the two-level strategy search for the current job on the
 * background job, then the candidates table (MODE_CANDS); Enter applies one. */
#include "tui/actions.h"
#include "tui/tasks.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEARCH_TOP 200 /* rows of the table: it scrolls, sorts and filters (the ILP's time
                        * budget, SEARCH_ILP_BUDGET_MS, bounds the refinement of so many) */

typedef struct {
	plan_t plan;        /* the worker's private copy */
	pin_set pins;
	search_result res;  /* written by the worker only */
	int rc;
	char why[320];      /* empty result with pins: the pin that empties the space */
	double wall_s;      /* both levels, as the worker saw them */
} search_task;

static void search_progress(void *user, int level, double done)
{
	tui_job_progress p;
	memset(&p, 0, sizeof p);
	p.level = level;
	p.done = done;
	p.best = p.gap = NAN;
	tui_job_report(user, &p);
}

static void search_job_of(const search_task *t, search_job *job)
{
	job->model = &t->plan.model;
	job->cluster = &t->plan.cluster;
	job->devices = t->plan.devices;
	job->base = t->plan.strategy;
	job->budget_gib = t->plan.budget_gib;
}

static void search_work(tui_job_run *r, void *arg)
{
	search_task *t = arg;
	double t0 = tui_now_us();
	search_job job;
	search_job_of(t, &job);
	search_opts o;
	memset(&o, 0, sizeof o);
	o.top = SEARCH_TOP;
	o.cancel = tui_job_cancel_flag(r);
	o.progress = search_progress;
	o.user = r;
	t->rc = search_run(&job, &t->pins, &o, &t->res);
	if (!t->rc && t->res.n == 0 && !t->res.cancelled && t->pins.n)
		search_explain(&job, &t->pins, &o, t->why, sizeof t->why);
	t->wall_s = (tui_now_us() - t0) / 1e6;
}

static void search_drop(void *data)
{
	search_task *t = data;
	search_free(&t->res);
	free(t);
}

static void search_status(const void *data, const tui_job_progress *p, const char *dot, char *out, size_t n)
{
	(void)data;
	if (p->level == 0 || isnan(p->done))
		snprintf(out, n, "search running %.1f s %s Esc cancels", p->elapsed_ms / 1e3, dot);
	else
		snprintf(out, n, "search: %s %.0f%% %s %.1f s %s Esc cancels",
				p->level == 1 ? "strategies" : "ILP refinement", 100 * p->done, dot, p->elapsed_ms / 1e3, dot);
}

static void search_finish(tui_app *a, void *data)
{
	search_task *t = data;
	if (t->rc) {
		tui_app_msg(a, MSG_ERROR, "search: %s", t->res.why);
	} else if (t->res.cancelled) {
		tui_app_msg(a, MSG_INFO, "search cancelled");
	} else if (t->res.n == 0) {
		tui_app_msg(a, MSG_ERROR, "search: %s", t->why[0] ? t->why : t->res.why);
	} else {
		tui_cands *c = a->cands ? a->cands : malloc(sizeof *c);
		if (!c) {
			tui_app_msg(a, MSG_ERROR, "out of memory");
			search_drop(t);
			return;
		}
		if (a->cands) {
			search_free(&c->r);
			free(c->ord);
			free(c->more);
			free(c->before);
		}
		memset(c, 0, sizeof *c);
		c->r = t->res; /* takes over the items */
		memset(&t->res, 0, sizeof t->res);
		c->ord = malloc(sizeof *c->ord * (size_t)c->r.n);
		c->more = malloc(sizeof *c->more * (size_t)c->r.n);
		if (!c->ord || !c->more) {
			search_free(&c->r);
			free(c->ord);
			free(c->more);
			free(c);
			a->cands = NULL;
			tui_app_msg(a, MSG_ERROR, "out of memory");
			search_drop(t);
			return;
		}
		tui_cands_rows(c);
		c->wall_s = t->wall_s;
		size_t l = 0;
		for (int i = 0; i < t->pins.n && l + 1 < sizeof c->pins; i++)
			l += (size_t)snprintf(c->pins + l, sizeof c->pins - l, "%s%s", i ? " " : "", t->pins.pin[i].text);
		a->cands = c;
		a->mode = MODE_CANDS;
		a->msg_kind = MSG_NONE;
	}
	search_drop(t);
}

static const tui_task_ops search_ops = {"search", search_work, search_finish, search_drop, search_status};

void tui_search_start(tui_app *a)
{
	search_task *t = tui_task_alloc(a, sizeof *t, offsetof(search_task, plan));
	if (!t)
		return;
	char why[512];
	if (pin_set_from_strings(&t->pins, t->plan.pins, t->plan.npins, why, sizeof why)) {
		tui_app_msg(a, MSG_ERROR, "search: %s", why);
		free(t);
		return;
	}
	for (int i = 0; i < t->pins.n; i++)
		if (t->pins.pin[i].key == PIN_BUDGET) /* as `strata search`: the pinned budget rules */
			t->plan.budget_gib = t->pins.pin[i].value / 1024.0;
	tui_task_start(a, &search_ops, t);
}

void tui_cands_apply(tui_app *a)
{
	tui_cands *c = a->cands;
	a->mode = MODE_NORMAL;
	int it = c ? tui_cands_item(c) : -1;
	if (it < 0)
		return;
	plan_t *p = malloc(sizeof *p);
	if (!p) {
		tui_app_msg(a, MSG_ERROR, "out of memory");
		return;
	}
	*p = *a->plan; /* pins, model, cluster and devices stay: the search kept them */
	p->strategy = c->r.item[it].s;
	char what[64];
	snprintf(what, sizeof what, "applied candidate #%d (u undoes)", it + 1);
	tui_commit_described(a, p, what);
	free(p);
}

void tui_strategy_text(const strategy_t *s, const model_t *m, char *out, size_t n)
{
	size_t l = (size_t)snprintf(out, n, "dp%d tp%d pp%d", s->dp, s->tp, s->pp);
	if (s->vpp > 1 && l < n)
		l += (size_t)snprintf(out + l, n - l, " vpp%d", s->vpp);
	if (s->cp > 1 && l < n)
		l += (size_t)snprintf(out + l, n - l, " cp%d%s", s->cp, strat_cp_mode(s) == CP_ULYSSES ? "u" : "");
	if (s->cp > 1 && strat_cp_mode(s) == CP_USP && l < n) /* USP: the Ulysses degree */
		l += (size_t)snprintf(out + l, n - l, "u%d", strat_cp_ulysses(s));
	if (model_max_experts(m) > 0 && l < n)
		l += (size_t)snprintf(out + l, n - l, " ep%d etp%d", s->ep, s->etp);
	if (s->moe_redundant > 0 && l < n)
		l += (size_t)snprintf(out + l, n - l, " r%d", s->moe_redundant);
	if (l < n)
		l += (size_t)snprintf(out + l, n - l, " z%d mbs%d%s%s %s", s->zero, s->micro_batch,
				s->recompute == RC_NONE ? "" : " ", s->recompute == RC_NONE ? "" : s->recompute == RC_FULL ? "full" : "sel",
				strat_schedule_name(s->schedule));
	if (s->nchunks && l < n)
		snprintf(out + l, n - l, " uneven");
}
