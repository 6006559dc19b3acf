/* overlay_cands.c - the search's candidates table: what was searched (strategies in the
 * space, the rate, how many fit, the time of each level), then one row per candidate,
 * best first: strategy (with +N when strategies with identical results are merged into
 * it, and ! when it relies on a regime no validation run measures), peak memory, step
 * time, MFU, tokens/s and the ILP's gain over the even split; under the list, the selected
 * candidate against the current plan, part by part (report_compare_rows, as `strata
 * search --compare`), with its unvalidated regimes and merged strategies spelt out. */
#include "core/regime.h"
#include "io/report.h"
#include "io/units.h"
#include "tui/panes.h"
#include "tui/tasks.h"

#include <stdio.h>
#include <string.h>

#define DETAIL_ROWS 4 /* the selected candidate's comparison under the list */

int tui_cands_list_rows(int rows)
{
	int n = rows - 3 - (rows >= 16 ? DETAIL_ROWS : 0);
	return n > 1 ? n : 1;
}

/* A difference of times with its sign: "+289.7 ms", "-1.155 s". */
static void signed_time(double s, char *out, size_t n)
{
	if (s > 0 && n > 1) {
		out[0] = '+';
		units_time(s, out + 1, n - 1);
	} else {
		units_time(s, out, n);
	}
}

/* The ILP's gain over the even split; "-" when the ILP did not refine the candidate, the
 * status when it found no plan. */
static void gain_text(const search_item *it, char *out, size_t n)
{
	if (it->ilp_status == ILP_OPTIMAL || it->ilp_status == ILP_FEASIBLE)
		snprintf(out, n, "%+.1f%%", 100 * it->ilp_gain);
	else
		snprintf(out, n, "%s", it->ilp_status < 0 ? "-" : ilp_status_name(it->ilp_status));
}

/* The "vs cur" column: the candidate's tokens/s against the current plan's ("+12%": that
 * much faster), "-" while the current plan is invalid. */
static void vs_current_text(const tui_app *a, const search_item *it, char *out, size_t n)
{
	if (!a->cur_valid || !a->have_res || !(it->step > 0))
		snprintf(out, n, "-");
	else
		snprintf(out, n, "%+.0f%%", 100 * (a->res->step / it->step - 1));
}

/* The selected candidate against the current plan, from row y: the step and the peak
 * memory, the difference of each part of the step (the rows of search --compare), then
 * its unvalidated regimes and the strategies merged into it. */
static void cands_detail(tui_app *a, int y, int cols)
{
	tui_cands *c = a->cands;
	int sel = tui_cands_item(c);
	if (sel < 0) {
		tui_textf(y, 0, cols, a->attr[ROLE_TITLE], " no result matches the filter (/ changes it)");
		return;
	}
	const search_item *it = &c->r.item[sel];
	const plan_t *p = a->plan;
	attr_t lab = a->attr[ROLE_LABEL], val = a->attr[ROLE_NORMAL], tit = a->attr[ROLE_TITLE];
	if (c->ev_for != sel + 1) {
		eval_run(&p->model, &p->cluster, p->devices, &it->s, p->budget_gib, &c->ev);
		c->ev_for = sel + 1;
	}
	if (!a->cur_valid || !a->have_res || !c->ev.valid) {
		tui_textf(y, 0, cols, tit, " #%d against the plan: %s", sel + 1,
				!c->ev.valid ? c->ev.why : a->cur_valid ? "no evaluation" : a->cur_why);
	} else {
		report_diff d[REPORT_DIFF_ROWS];
		int n = report_compare_rows(a->res, &c->ev, d);
		const report_diff *step = &d[n - 2], *peak = &d[n - 1];
		char t[32], dt[32];
		units_time(step->cand, t, sizeof t);
		signed_time(step->cand - step->ref, dt, sizeof dt);
		tui_textf(y, 0, cols, tit, " #%d vs the plan: step %s (%s, %+.1f%% tok/s) %s peak %.1f GiB (%+.1f)",
				sel + 1, t, dt, 100 * (step->ref / step->cand - 1), a->g->dot, peak->cand, peak->cand - peak->ref);
		/* the parts, as many to a line as fit, on two lines */
		int x = 1, line = 1;
		for (int i = 0; i < n - 2 && line <= 2; i++) {
			char one[64], dv[32];
			signed_time(d[i].cand - d[i].ref, dv, sizeof dv);
			int w = snprintf(one, sizeof one, "%s %s", d[i].name, dv);
			if (x + w + 2 > cols && x > 1) {
				if (++line > 2)
					break;
				x = 1;
			}
			tui_text(y + line, x, cols - x, val, one);
			x += w + 2;
		}
	}
	char rg[96], al[400] = "";
	unsigned u = regime_unvalidated(&p->model, &p->cluster, &it->s);
	regime_text(u, &it->s, rg, sizeof rg);
	size_t l = 0;
	for (int i = 0; i < it->alike && i < SEARCH_MAX_ALIKE && l + 1 < sizeof al; i++) {
		strategy_t t = it->s;
		search_knobs_apply(&it->alike_k[i], &t);
		t.nchunks = 0; /* the split is the row's */
		char one[128];
		tui_strategy_text(&t, &p->model, one, sizeof one);
		l += (size_t)snprintf(al + l, sizeof al - l, "%s %s", i ? ";" : ":", one);
	}
	if (u)
		tui_textf(y + 3, 0, cols, lab, " ! unvalidated: %s %s +%d alike%s", rg, a->g->dot, it->alike, al);
	else
		tui_textf(y + 3, 0, cols, lab, " validated regimes %s +%d alike%s", a->g->dot, it->alike, al);
}

/* Replace each `from` in s (at most n bytes with its NUL) by the shorter `to`. */
static void shorten(char *s, const char *from, const char *to)
{
	size_t lf = strlen(from), lt = strlen(to);
	for (char *p = strstr(s, from); p; p = strstr(p + lt, from)) {
		memcpy(p, to, lt);
		memmove(p + lt, p + lf, strlen(p + lf) + 1);
	}
}

/* A strategy in `w` columns: the table's words, or when they do not fit the short ones
 * (v for vpp, m for mbs, intl for interleaved, dualp for dualpipe, and no "uneven": the
 * ILP column's gain already says the split is the ILP's). */
static void fit_strategy(char *st, int w)
{
	if ((int)strlen(st) <= w)
		return;
	shorten(st, " vpp", " v");
	shorten(st, " mbs", " m");
	shorten(st, "interleaved", "intl");
	shorten(st, "dualpipe", "dualp");
	shorten(st, " uneven", "");
}

void tui_overlay_cands(tui_app *a, int rows, int cols)
{
	tui_cands *c = a->cands;
	const search_result *r = &c->r;
	erase();
	char space[32], rate[32], fit[32];
	units_count((double)r->enumerated, space, sizeof space);
	units_rate(r->outer_s > 0 ? r->enumerated / r->outer_s : 0, rate, sizeof rate);
	units_count((double)r->fit, fit, sizeof fit);
	tui_fill(0, 0, cols, a->attr[ROLE_HEADER]);
	/* what matters first for 80 columns: the space, its rate, what fits, the time */
	tui_textf(0, 0, cols, a->attr[ROLE_HEADER],
			" Search %s %s strategies (%s/s) %s %s fit %s ILP refined %d %s %.2f s (outer %.2f, ILP %.2f)",
			a->g->dot, space, rate, a->g->dot, fit, a->g->dot, r->refined, a->g->dot, c->wall_s, r->outer_s,
			r->inner_s);
	/* below 100 columns tok/s goes (within one job it ranks as step and MFU do: the same
	 * tokens per step) and the strategy column takes its 8 */
	int narrow = cols < 100;
	int sw = cols - 54 + (narrow ? 8 : 0); /* the strategy column takes what the numbers and marks leave */
	if (sw < 20)
		sw = 20;
	/* the column titles, the sorted one marked with its direction. A new column (say "vs
	 * current") goes after ILP: its title here, its cell in the row's printf below, its
	 * sort key in cands_table.c's col_value, and CANDS_COLS one more */
	const char *mk = c->desc ? (a->utf8 ? "▼" : "v") : (a->utf8 ? "▲" : "^");
	char ttl[CANDS_COLS][24];
	static const char *const names[CANDS_COLS] = {"#", "strategy", "alloc", "step", "MFU", "tok/s", "ILP", "vs cur"};
	for (int i = 0; i < CANDS_COLS; i++)
		snprintf(ttl[i], sizeof ttl[i], "%s%s", names[i], i == c->sort && (c->sort || c->desc) ? mk : "");
	char tt[32] = "";
	if (!narrow)
		snprintf(tt, sizeof tt, " %7s", ttl[5]);
	tui_textf(1, 0, cols, a->attr[ROLE_TITLE], "   %-4s %-*s %6s %9s %6s%s %6s %6s", ttl[0], sw, ttl[1], ttl[2],
			ttl[3], ttl[4], tt, ttl[6], ttl[7]);
	int avail = tui_cands_list_rows(rows);
	tui_list_scroll(c->sel, &c->top, avail);
	for (int i = 0; i < avail && c->top + i < c->nord; i++) {
		int row = c->top + i, k = c->ord[row], y = 2 + i;
		const search_item *it = &r->item[k];
		char st[256], tok[32], g[32], al[4] = "", vs[16];
		tui_strategy_text(&it->s, &a->plan->model, st, sizeof st);
		fit_strategy(st, sw);
		units_rate(it->tokens_per_s, tok, sizeof tok);
		char tc[40] = "";
		if (!narrow)
			snprintf(tc, sizeof tc, " %7s", tok);
		gain_text(it, g, sizeof g);
		vs_current_text(a, it, vs, sizeof vs);
		/* the marks, as search's [unvalidated: ...] and +N alike; the selected row's
		 * reasons and merged strategies are spelt out under the list */
		unsigned u = regime_unvalidated(&a->plan->model, &a->plan->cluster, &it->s);
		int merged = it->alike + c->more[row];
		if (merged)
			snprintf(al, sizeof al, merged < 10 ? "+%d" : "+>", merged);
		attr_t at = a->attr[row == c->sel ? ROLE_SELECTED : ROLE_NORMAL];
		tui_fill(y, 0, cols, at);
		char t[32];
		units_time(it->step, t, sizeof t);
		tui_textf(y, 0, cols, at, "%s%3d%s%-2s %-*.*s %6.1f %9s %5.1f%%%s %6s %6s", row == c->sel ? a->g->sel : " ",
				k + 1, u ? "!" : " ", al, sw, sw, st, it->peak_gib, t, 100 * it->mfu, tc, g, vs);
	}
	if (rows >= 16)
		cands_detail(a, rows - 1 - DETAIL_ROWS, cols);
	if (c->typing) {
		int n = tui_textf(rows - 1, 0, cols, a->attr[ROLE_PROMPT], "/");
		n += tui_text(rows - 1, n, cols - n, a->attr[ROLE_NORMAL], c->ftext);
		if (a->msg_kind == MSG_ERROR) /* the filter's error, until the next key */
			tui_textf(rows - 1, n, cols - n, a->attr[ROLE_ERROR], "   %s", a->msg);
		else
			tui_text(rows - 1, n, cols - n, a->attr[ROLE_LABEL], "   (tp<=8 pp=4 step<10; Enter filters, Ctrl-U clears, Esc)");
		return;
	}
	int n = 0;
	if (c->filter.n || c->merge)
		n = tui_textf(rows - 1, 0, cols, a->attr[ROLE_VALUE], "%d of %d%s%s%s ", c->nord, r->n, c->filter.n ? " /" : "",
				c->filter.n ? c->ftext : "", c->merge ? " =merged" : "");
	tui_textf(rows - 1, n, cols - n, a->attr[ROLE_LABEL], "%s%s Enter applies (pins kept: %s) %s v preview %s o/O sort %s / filter %s = merge %s Esc",
			a->g->up, a->g->down, c->pins[0] ? c->pins : "none", a->g->dot, a->g->dot, a->g->dot, a->g->dot, a->g->dot);
}
