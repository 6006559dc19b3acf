/* overlay_sweep.c - the sweep view (`S`): step time, MFU, peak memory or tokens/s of the
 * current plan against one knob (global batch, sequence length, devices, micro-batch),
 * each point evaluated by the cost model (solve/sweep.c), drawn as a column chart with a
 * value axis; the current value's column is marked, points that do not fit are drawn in
 * the over-budget colour, invalid ones as a gap with the reason under the chart.
 * Tab / Left / Right: the knob; m: the metric; Enter applies the selected point; Esc closes. */
#include "io/units.h"
#include "tui/actions.h"
#include "tui/panes.h"
#include "tui/tasks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The range swept around the current value v: v/8 .. v*8 by doubling (within what the
 * knob allows), so the current plan sits in the middle. */
static void range(sweep_knob k, long v, sweep_spec *sp)
{
	long lo = v / 8, hi = v * 8;
	if (k == SWEEP_MBS)
		lo = 1, hi = v * 8 < 64 ? 64 : v * 8;
	if (lo < 1)
		lo = 1;
	sp->knob = k;
	sp->n = 0;
	/* powers of two times the current value, so it is one of the points */
	long start = v;
	while (start / 2 >= lo && start % 2 == 0)
		start /= 2;
	for (long x = start; x <= hi && sp->n < SWEEP_MAX; x *= 2)
		sp->v[sp->n++] = x;
}

static long current(const tui_app *a, sweep_knob k)
{
	const strategy_t *s = &a->plan->strategy;
	return k == SWEEP_GBS ? s->global_batch : k == SWEEP_SEQ ? s->seq : k == SWEEP_DEVICES ? a->plan->devices
		: s->micro_batch;
}

/* Evaluate the sweep of the knob and metric a->sweep names. */
static void sweep_compute(tui_app *a)
{
	tui_sweep *w = a->sweep;
	range(w->knob, current(a, w->knob), &w->spec);
	const plan_t *p = a->plan;
	sweep_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, &w->spec, w->pt, a->scratch);
	w->sel = 0;
	for (int i = 0; i < w->spec.n; i++)
		if (w->spec.v[i] == current(a, w->knob))
			w->sel = i;
}

void tui_sweep_open(tui_app *a)
{
	if (!a->sweep && !(a->sweep = calloc(1, sizeof *a->sweep))) {
		tui_app_msg(a, MSG_ERROR, "out of memory");
		return;
	}
	sweep_compute(a);
	a->mode = MODE_SWEEP;
}

static void metric_text(const tui_app *a, double v, char *out, size_t n)
{
	switch (a->sweep->metric) {
	case SWEEP_STEP:
		units_time(v, out, n);
		break;
	case SWEEP_MFU:
		snprintf(out, n, "%.1f%%", v);
		break;
	case SWEEP_PEAK:
		snprintf(out, n, "%.1f GiB", v);
		break;
	default:
		units_rate(v, out, n);
	}
}

void tui_sweep_key(tui_app *a, int key)
{
	tui_sweep *w = a->sweep;
	if (key == 27 || key == 'q') {
		a->mode = MODE_NORMAL;
	} else if (key == '\t' || key == KEY_BTAB) {
		w->knob = (sweep_knob)((w->knob + (key == '\t' ? 1 : SWEEP_KNOBS - 1)) % SWEEP_KNOBS);
		sweep_compute(a);
	} else if (key == 'm') {
		w->metric = (sweep_metric)((w->metric + 1) % SWEEP_METRICS);
	} else if (key == KEY_LEFT || key == 'h') {
		w->sel = w->sel > 0 ? w->sel - 1 : 0;
	} else if (key == KEY_RIGHT || key == 'l') {
		w->sel = w->sel + 1 < w->spec.n ? w->sel + 1 : w->sel;
	} else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		const sweep_point *q = &w->pt[w->sel];
		if (!q->valid) {
			tui_app_msg(a, MSG_ERROR, "sweep: %s", q->why);
			return;
		}
		plan_t *p = malloc(sizeof *p);
		if (!p)
			return;
		*p = *a->plan;
		sweep_apply(w->knob, q->value, &p->strategy, &p->devices);
		char why[160];
		strat_resolve(&p->strategy, p->devices, why, sizeof why);
		/* a pinned knob stays, as with h/l: pinning devices keeps the job's count */
		knob_job j0 = tui_app_job(a), j1 = {p->strategy, p->devices, p->budget_gib};
		unsigned clash = tui_knobs_changed(a, &j0, &j1) & tui_app_pinned(a);
		for (int k = 0; clash && k < KNOB_COUNT; k++)
			if (clash & (1u << k)) {
				a->mode = MODE_NORMAL; /* the panes and the pin marker beside the message */
				tui_app_msg(a, MSG_ERROR, "sweep: %s = %ld would change %s, which is pinned (p unpins it)",
						sweep_knob_key(w->knob), q->value, knob_label((knob_id)k));
				free(p);
				return;
			}
		char what[96];
		snprintf(what, sizeof what, "%s = %ld from the sweep (u undoes)", sweep_knob_key(w->knob), q->value);
		a->mode = MODE_NORMAL;
		tui_commit_described(a, p, what);
		free(p);
	}
}

void tui_overlay_sweep(tui_app *a, int rows, int cols)
{
	tui_sweep *w = a->sweep;
	erase();
	tui_fill(0, 0, cols, a->attr[ROLE_HEADER]);
	/* the batch command whole: the job's name goes first when 80 columns have no room */
	char cmd[96], title[320];
	snprintf(cmd, sizeof cmd, "strata sweep %s=%ld..%ld", sweep_knob_short(w->knob), w->spec.v[0],
			w->spec.v[w->spec.n - 1]);
	snprintf(title, sizeof title, " Sweep %s %s against %s %s %s on %d devices (%s)", a->g->dot,
			sweep_metric_name(w->metric), sweep_knob_key(w->knob), a->g->dot, a->plan->model.name,
			a->plan->devices, cmd);
	if (tui_width(title) > cols)
		snprintf(title, sizeof title, " Sweep %s %s against %s %s %s", a->g->dot, sweep_metric_name(w->metric),
				sweep_knob_key(w->knob), a->g->dot, cmd);
	tui_text(0, 0, cols, a->attr[ROLE_HEADER], title);
	double hi = 0;
	for (int i = 0; i < w->spec.n; i++)
		if (w->pt[i].valid && sweep_metric_of(&w->pt[i], w->metric) > hi)
			hi = sweep_metric_of(&w->pt[i], w->metric);
	int axis = 11, ch = rows - 6; /* chart rows: header, x labels, detail (2), key line */
	if (ch < 3)
		ch = 3;
	int colw = (cols - axis - 1) / (w->spec.n > 0 ? w->spec.n : 1);
	if (colw > 12)
		colw = 12;
	if (colw < 3)
		colw = 3;
	/* value axis: the top, the middle and zero */
	for (int k = 0; k <= 2; k++) {
		char v[32];
		metric_text(a, hi * (2 - k) / 2.0, v, sizeof v);
		tui_textf(1 + (ch - 1) * k / 2, 0, axis, a->attr[ROLE_LABEL], "%*s ", axis - 1, v);
	}
	for (int y = 1; y <= ch; y++)
		tui_text(y, axis - 1, 1, a->attr[ROLE_LABEL], "|");
	long cur = current(a, w->knob);
	for (int i = 0; i < w->spec.n && axis + (i + 1) * colw <= cols; i++) {
		const sweep_point *q = &w->pt[i];
		int x = axis + i * colw + 1, bw = colw - 1;
		if (q->valid && hi > 0) {
			int h = (int)lround(ch * sweep_metric_of(q, w->metric) / hi);
			h = h < 1 ? 1 : h; /* a valid point always shows */
			tui_role role = !q->fits ? ROLE_OVER_BAR : i == w->sel ? ROLE_VALUE : ROLE_MEM_WEIGHTS;
			for (int y = 0; y < h; y++)
				tui_repeat(ch - y, x, bw, a->attr[role], a->g->bar);
		} else if (!q->valid) {
			tui_text(ch, x, bw, a->attr[ROLE_LABEL], "x");
		}
		char lab[24];
		snprintf(lab, sizeof lab, "%s%ld", q->value == cur ? "*" : "", q->value);
		tui_textf(ch + 1, x, bw, a->attr[i == w->sel ? ROLE_SELECTED : ROLE_LABEL], "%-*s", bw, lab);
	}
	const sweep_point *q = &w->pt[w->sel];
	if (q->valid) {
		char t[32], tok[32];
		units_time(q->step, t, sizeof t);
		units_rate(q->tokens_per_s, tok, sizeof tok);
		/* the point whole: tok/s (it ranks as step does within one job) goes first when the
		 * line is wider than the screen */
		char rate[48], line[256];
		for (int with_rate = 1; with_rate >= 0; with_rate--) {
			snprintf(rate, sizeof rate, " %s %s tok/s", a->g->dot, tok);
			snprintf(line, sizeof line, " %s = %ld: step %s %s MFU %.1f%%%s %s peak %.1f GiB%s %s dp %d",
					sweep_knob_short(w->knob), q->value, t, a->g->dot, 100 * q->mfu, with_rate ? rate : "",
					a->g->dot, q->peak_gib, q->fits ? "" : " (over the budget)", a->g->dot, q->dp);
			if (tui_width(line) <= cols)
				break;
		}
		tui_text(rows - 3, 0, cols, a->attr[ROLE_TITLE], line);
	} else {
		tui_textf(rows - 3, 0, cols, a->attr[ROLE_INVALID], " %s = %ld: %s", sweep_knob_key(w->knob), q->value, q->why);
	}
	tui_textf(rows - 2, 0, cols, a->attr[ROLE_LABEL], " * the current value %s x: invalid %s red: over the budget",
			a->g->dot, a->g->dot);
	tui_textf(rows - 1, 0, cols, a->attr[ROLE_LABEL], " h/l point %s Tab knob %s m metric (%s) %s Enter applies %s Esc closes",
			a->g->dot, a->g->dot, sweep_metric_name(w->metric), a->g->dot, a->g->dot);
}
