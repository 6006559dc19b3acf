/* overlay_cands.c - the search's candidates table: what was searched (strategies in the
 * space, the rate, how many fit, the time of each level), then one row per candidate,
 * best first: strategy, peak memory, step time, MFU, tokens/s and the ILP's gain over
 * the even split. */
#include "tui/panes.h"
#include "tui/tasks.h"

#include <stdio.h>

/* 1234567 -> "1.23M": the space sizes run from hundreds to billions */
static void count_text(char *out, size_t n, double v)
{
	if (v >= 1e9)
		snprintf(out, n, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(out, n, "%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(out, n, "%.1fk", v / 1e3);
	else
		snprintf(out, n, "%.0f", v);
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

void tui_overlay_cands(tui_app *a, int rows, int cols)
{
	tui_cands *c = a->cands;
	const search_result *r = &c->r;
	erase();
	char space[32], rate[32], fit[32];
	count_text(space, sizeof space, (double)r->enumerated);
	count_text(rate, sizeof rate, r->outer_s > 0 ? r->enumerated / r->outer_s : 0);
	count_text(fit, sizeof fit, (double)r->fit);
	tui_fill(0, 0, cols, a->attr[ROLE_HEADER]);
	/* what matters first for 80 columns: the space, its rate, what fits, the time */
	tui_textf(0, 0, cols, a->attr[ROLE_HEADER],
			" Search %s %s strategies (%s/s) %s %s fit %s ILP refined %d %s %.2f s (outer %.2f, ILP %.2f)",
			a->g->dot, space, rate, a->g->dot, fit, a->g->dot, r->refined, a->g->dot, c->wall_s, r->outer_s,
			r->inner_s);
	int sw = cols - 42; /* the strategy column takes what the numbers leave */
	if (sw < 20)
		sw = 20;
	tui_textf(1, 0, cols, a->attr[ROLE_TITLE], "   # %-*s %6s %7s %6s %7s %6s", sw, "strategy", "GiB", "step s",
			"MFU", "tok/s", "ILP");
	int avail = rows - 3;
	tui_list_scroll(c->sel, &c->top, avail);
	for (int i = 0; i < avail && c->top + i < r->n; i++) {
		int k = c->top + i, y = 2 + i;
		const search_item *it = &r->item[k];
		char st[256], tok[32], g[32];
		tui_strategy_text(&it->s, &a->plan->model, st, sizeof st);
		count_text(tok, sizeof tok, it->tokens_per_s);
		gain_text(it, g, sizeof g);
		attr_t at = a->attr[k == c->sel ? ROLE_SELECTED : ROLE_NORMAL];
		tui_fill(y, 0, cols, at);
		tui_textf(y, 0, cols, at, "%s%3d %-*.*s %6.1f %7.4g %5.1f%% %7s %6s", k == c->sel ? a->g->sel : " ", k + 1,
				sw, sw, st, it->peak_gib, it->step, 100 * it->mfu, tok, g);
	}
	tui_textf(rows - 1, 0, cols, a->attr[ROLE_LABEL], "%s%s move %s Enter applies to the knobs (pins kept: %s; u undoes) %s Esc closes",
			a->g->up, a->g->down, a->g->dot, c->pins[0] ? c->pins : "none", a->g->dot);
}
