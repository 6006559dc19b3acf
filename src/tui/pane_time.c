/* pane_time.c - where the step time goes: compute, recomputation, pipeline bubble, each
 * exposed communication kind, optimizer; with MFU, HFU and tokens/s in the title. */
#include "core/train_cost.h"
#include "io/report.h"
#include "io/units.h"
#include "tui/panes.h"
#include "tui/tasks.h"

#include <math.h>
#include <stdio.h>

typedef struct {
	const char *name;
	double v;
	tui_role role;
} part;

/* The parts worth a row, in a fixed order: compute always, the rest when non-zero. */
static int parts_of(const eval_result *r, part *out)
{
	/* the core's parts and names (eval_step_parts), coloured by kind */
	static const tui_role role[EVAL_NPARTS] = {
		ROLE_T_COMPUTE, ROLE_T_RECOMPUTE, ROLE_T_BUBBLE, ROLE_T_COMM, ROLE_T_COMM,
		ROLE_T_COMM, ROLE_T_COMM, ROLE_T_COMM, ROLE_T_OPTIM,
	};
	eval_part all[EVAL_NPARTS];
	eval_step_parts(r, all);
	int n = 0;
	for (int i = 0; i < EVAL_NPARTS; i++)
		if (i == 0 || all[i].s > 0)
			out[n++] = (part){all[i].name, all[i].s, role[i]};
	return n;
}

/* An ILP plan on trial: its step split into useful pipeline work, the three kinds of idle
 * time (preparation = warm-up and cool-down, imbalance between stages, recomputation) and
 * the time outside the pipeline; the parts add up to the ILP's step time. */
static int review_parts(const tui_review *rv, part *out)
{
	const ilp_result *x = &rv->r;
	const part all[] = {
		{"useful", x->useful, ROLE_T_COMPUTE}, {"prep idle", x->bubble_prep, ROLE_T_BUBBLE},
		{"imbalance", x->bubble_imb, ROLE_T_BUBBLE}, {"recompute", x->bubble_rc, ROLE_T_RECOMPUTE},
		{"outside pp", x->step - x->makespan, ROLE_T_COMM},
	};
	int n = 0;
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (i == 0 || all[i].v > 1e-12)
			out[n++] = all[i];
	return n;
}

int tui_time_rows(const tui_app *a)
{
	part p[9];
	if (a->review)
		return 1 + review_parts(a->review, p);
	return 1 + (a->have_res ? parts_of(a->res, p) : 0);
}


/* Below the parts, in the rows the pane has left: the per-device rates Megatron-LM logs,
 * the run's days, GPU-hours, cost and energy (with train_tokens), and the plan's published
 * figures beside the predictions (expect:). */
static void extras(tui_app *a, tui_rect r, int y)
{
	const eval_result *res = a->res;
	const plan_t *p = a->plan;
	int end = r.y + r.h;
	train_cost c;
	train_cost_of(&p->cluster, p->devices, res->tokens_per_s, res->model_flops / res->step, p->train_tokens,
			p->gpu_hour_usd, &c);
	char tok[32], gh[32], usd[32];
	if (y < end) {
		units_rate(c.tokens_per_s_dev, tok, sizeof tok);
		tui_textf(y++, r.x, r.w, a->attr[ROLE_LABEL], " per device %s tok/s %s %.1f TFLOP/s", tok, a->g->dot,
				c.tflops_dev);
	}
	if (c.has_time && y < end) {
		units_big(c.gpu_hours, 3, gh, sizeof gh);
		units_big(c.usd, 3, usd, sizeof usd);
		int n = tui_textf(y, r.x, r.w, a->attr[ROLE_LABEL], " run %.1f days %s %s GPU-h", c.days, a->g->dot, gh);
		if (c.has_usd)
			n += tui_textf(y, r.x + n, r.w - n, a->attr[ROLE_LABEL], " %s $%s", a->g->dot, usd);
		if (c.has_energy)
			tui_textf(y, r.x + n, r.w - n, a->attr[ROLE_LABEL], c.mwh >= 100 ? " %s %.0f MWh" : " %s %.3g MWh",
					a->g->dot, c.mwh);
		y++;
	}
	report_expect_row x[REPORT_EXPECT_ROWS];
	int nx = a->cur_valid ? report_expect_rows(p, res, x) : 0;
	for (int i = 0; i < nx && y < end; i++, y++)
		tui_textf(y, r.x, r.w, a->attr[ROLE_CHANGED], " %-11s %9.4g %s published %s model %+.1f%%", x[i].name,
				x[i].published, x[i].unit, a->g->dot, 100 * (x[i].predicted / x[i].published - 1));
}

void tui_pane_time(tui_app *a, tui_rect r)
{
	if (r.h <= 0 || !a->have_res)
		return;
	const eval_result *res = a->res;
	char step[32], tok[32];
	double total = res->step;
	part p[10];
	int np;
	if (a->review) {
		const ilp_result *x = &a->review->r;
		char even[32];
		total = x->step;
		units_time(x->step, step, sizeof step);
		units_time(x->even_step, even, sizeof even);
		int n = tui_textf(r.y, r.x, r.w, a->attr[ROLE_TITLE], " ILP step %s", step);
		tui_textf(r.y, r.x + n, r.w - n, a->attr[ROLE_CHANGED], " %s even %s%s %s %.3fx %s %s", a->g->dot, even,
				x->even_fits ? "" : " (over budget)", a->g->dot, x->speedup, a->g->dot, ilp_status_name(x->status));
		np = review_parts(a->review, p);
	} else {
		units_time(res->step, step, sizeof step);
		units_rate(res->tokens_per_s, tok, sizeof tok);
		int n = tui_textf(r.y, r.x, r.w, a->attr[ROLE_TITLE], " Step %s", step);
		if (!a->cur_valid)
			n += tui_text(r.y, r.x + n, r.w - n, a->attr[ROLE_INVALID], " (last valid)");
		tui_textf(r.y, r.x + n, r.w - n, a->attr[ROLE_LABEL], " %s %s tok/s %s MFU %.1f%% %s HFU %.1f%%", a->g->dot,
				tok, a->g->dot, 100 * res->mfu, a->g->dot, 100 * res->hfu);
		np = parts_of(res, p);
	}
	int avail = r.h - 1;
	if (np > avail && avail >= 2) {
		/* too few rows: compute, the largest other parts, and one "other" row for the rest */
		int keep[10] = {1};
		for (int k = 0; k < avail - 2; k++) {
			int best = -1;
			for (int i = 1; i < np; i++)
				if (!keep[i] && (best < 0 || p[i].v > p[best].v))
					best = i;
			if (best >= 0)
				keep[best] = 1;
		}
		part q[10];
		int m = 0;
		double rest = 0;
		for (int i = 0; i < np; i++) {
			if (keep[i])
				q[m++] = p[i];
			else
				rest += p[i].v;
		}
		q[m++] = (part){"other", rest, ROLE_LABEL};
		for (int i = 0; i < m; i++)
			p[i] = q[i];
		np = m;
	}
	int bw = r.w - 31;
	for (int i = 0; i < np && i < avail; i++) {
		int y = r.y + 1 + i;
		char t[32];
		units_time(p[i].v, t, sizeof t);
		double frac = total > 0 ? p[i].v / total : 0;
		tui_textf(y, r.x, 28, a->attr[ROLE_LABEL], " %-10s %9s %5.1f%%", p[i].name, t, 100 * frac);
		int len = (int)lround(frac * bw);
		if (len == 0 && p[i].v > 0)
			len = 1; /* a non-zero part stays visible */
		tui_repeat(y, r.x + 30, len < bw ? len : bw, a->attr[p[i].role], a->g->bar);
	}
	if (!a->review && np < avail)
		extras(a, r, r.y + 1 + np);
}
