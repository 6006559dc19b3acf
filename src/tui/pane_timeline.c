/* pane_timeline.c - the pipeline schedule drawn as forward (F), backward (B) and
 * weight-gradient (W) blocks per stage over time, idle time (the bubble) as dots. The
 * blocks come from the simulation in core/timeline.c fed with the per-stage times of the
 * last valid evaluation; by default the first few micro-batches are drawn so the warm-up
 * and cool-down shapes stay readable, `z` draws the whole step. */
#include "tui/panes.h"
#include "core/strategy.h"

#include <string.h>

#define MAX_W 1024

/* Micro-batches to simulate for a lane of `lanew` columns. */
static int shown_microbatches(const tui_app *a, int lanew)
{
	const eval_result *r = a->res;
	int p = r->stages, M = r->microbatches;
	int v = a->res_sched == SCHED_INTERLEAVED ? a->res_vpp : 1;
	long K = a->res_sched == SCHED_ZBV ? 2L * p : (long)p * v;
	/* about three columns per block: enough to tell F from B */
	long m = a->zoom ? M : lanew / (3 * v);
	if (m < p)
		m = p;
	if (m > M)
		m = M;
	if (m * K > TL_MAX_UNITS)
		m = TL_MAX_UNITS / K;
	if (v > 1)
		m = m / p * p; /* interleaving runs micro-batches in groups of pp */
	/* DualPipe's program needs an even count of at least 2 pp (the evaluation's M is one) */
	if (a->res_sched == SCHED_DUALPIPE && m < 2L * p)
		m = 2L * p < M ? 2L * p : M;
	if (a->res_sched == SCHED_DUALPIPE && m % 2 && m < M)
		m++;
	return m < 1 ? 1 : (int)m;
}

static void simulate(tui_app *a, int lanew)
{
	const eval_result *r = a->res;
	double f[EVAL_MAX_STAGES], b[EVAL_MAX_STAGES], w[EVAL_MAX_STAGES];
	for (int i = 0; i < r->stages; i++) {
		const eval_stage_time *t = &eval_span_of(r, i)->st;
		f[i] = t->fwd;
		b[i] = t->bwd;
		w[i] = t->wgrad;
	}
	/* the schedule of the shown result: the last valid one when the current is invalid */
	tl_spec sp = {a->res_sched, r->stages, a->res_vpp, 0, f, b, w};
	a->tl_mb = sp.microbatches = shown_microbatches(a, lanew);
	a->tl_ok = !tl_simulate(&sp, a->tl, a->tl_why, sizeof a->tl_why);
	a->tl_width = lanew;
	a->tl_zoomed = a->zoom;
	a->tl_stale = 0;
}

/* Fraction of each column covered by F, B and W blocks of one device. */
static void coverage(const tl_result *t, int dev, double scale, int w, double cov[][3])
{
	for (int c = 0; c < w; c++)
		cov[c][0] = cov[c][1] = cov[c][2] = 0;
	for (int i = 0; i < t->nops; i++) {
		const tl_op *o = &t->ops[i];
		if (o->dev != dev)
			continue;
		double c0 = o->t0 * scale, c1 = o->t1 * scale;
		for (int c = (int)c0; c < w && c < c1; c++) {
			double lo = c0 > c ? c0 : c, hi = c1 < c + 1 ? c1 : c + 1;
			if (hi > lo)
				cov[c][o->kind] += hi - lo;
		}
	}
}

void tui_pane_timeline(tui_app *a, tui_rect r)
{
	if (r.h <= 0)
		return;
	int lanew = r.w - 5;
	if (lanew > MAX_W)
		lanew = MAX_W;
	int n = tui_text(r.y, r.x, r.w, a->attr[ROLE_TITLE], " Timeline");
	if (!a->have_res || lanew < 8)
		return;
	if (a->tl_stale || a->tl_zoomed != a->zoom || (!a->zoom && a->tl_width != lanew))
		simulate(a, lanew);
	const eval_result *res = a->res;
	n += tui_textf(r.y, r.x + n, r.w - n, a->attr[ROLE_LABEL], " %s %s", strat_schedule_name(a->res_sched),
			a->g->dot);
	if (a->tl_mb < res->microbatches)
		n += tui_textf(r.y, r.x + n, r.w - n, a->attr[ROLE_LABEL], " %d/%d micro-batches (z)", a->tl_mb,
				res->microbatches);
	else
		n += tui_textf(r.y, r.x + n, r.w - n, a->attr[ROLE_LABEL], " %d micro-batches", res->microbatches);
	n += tui_textf(r.y, r.x + n, r.w - n, a->attr[ROLE_LABEL], " %s bubble %.1f%% %s ", a->g->dot,
			res->step > 0 ? 100 * res->bubble / res->step : 0, a->g->dot);
	const struct { tui_role role; const char *s; } legend[] = {
		{ROLE_TL_F, "F"}, {ROLE_LABEL, "wd "}, {ROLE_TL_B, "B"}, {ROLE_LABEL, "wd "},
		{ROLE_TL_W, "W"}, {ROLE_LABEL, "grad "}, {ROLE_TL_IDLE, a->g->idle}, {ROLE_LABEL, "idle"},
	};
	for (size_t i = 0; i < sizeof legend / sizeof legend[0] && n < r.w; i++)
		n += tui_text(r.y, r.x + n, r.w - n, a->attr[legend[i].role], legend[i].s);
	if (!a->tl_ok) {
		if (r.h > 1)
			tui_text(r.y + 1, r.x + 1, r.w - 1, a->attr[ROLE_LABEL], a->tl_why);
		return;
	}
	int rows[EVAL_MAX_STAGES];
	int nrows = tui_pick_rows(res->stages, r.h - 1, -1, rows);
	/* rows to spare: each lane grows up to three rows tall */
	int lane_h = nrows > 0 ? (r.h - 1) / nrows : 1;
	lane_h = lane_h > TUI_LANE_MAX ? TUI_LANE_MAX : lane_h < 1 ? 1 : lane_h;
	double scale = a->tl->makespan > 0 ? lanew / a->tl->makespan : 0;
	static const tui_role kind_role[3] = {ROLE_TL_F, ROLE_TL_B, ROLE_TL_W};
	static const char *const kind_glyph[3] = {"F", "B", "W"};
	double cov[MAX_W][3];
	for (int i = 0; i < nrows; i++) {
		int y = r.y + 1 + i * lane_h, d = rows[i];
		tui_textf(y, r.x, 5, a->attr[ROLE_LABEL], " s%-3d", d);
		coverage(a->tl, d, scale, lanew, cov);
		/* the dominant block kind per column (3 = idle), drawn in runs */
		int kind[MAX_W];
		for (int c = 0; c < lanew; c++) {
			int k = 0;
			for (int j = 1; j < 3; j++)
				if (cov[c][j] > cov[c][k])
					k = j;
			kind[c] = cov[c][0] + cov[c][1] + cov[c][2] < 0.5 ? 3 : k;
		}
		for (int c = 0; c < lanew;) {
			int e = c;
			while (e < lanew && kind[e] == kind[c])
				e++;
			for (int h = 0; h < lane_h; h++) {
				/* a tall lane: the blocks fill it, the idle dots only its first row */
				if (kind[c] == 3 && h == 0)
					tui_repeat(y, r.x + 5 + c, e - c, a->attr[ROLE_TL_IDLE], a->g->idle);
				else if (kind[c] != 3)
					tui_repeat(y + h, r.x + 5 + c, e - c, a->attr[kind_role[kind[c]]], kind_glyph[kind[c]]);
			}
			c = e;
		}
	}
}
