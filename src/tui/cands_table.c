/* cands_table.c - working with the search table: the rows shown (the `/` filter, the sort
 * by any column with o and O, `=` folding rows whose shown figures are equal), its keys,
 * and the preview (v): the panes show the selected candidate before it is applied. */
#include "tui/actions.h"
#include "tui/layout.h"
#include "tui/panes.h"
#include "tui/tasks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tui_cands_item(const tui_cands *c)
{
	return c->sel >= 0 && c->sel < c->nord ? c->ord[c->sel] : -1;
}

/* The key of item i in column col (the strategy column sorts by its degrees). */
static double col_value(const tui_cands *c, int i, int col)
{
	const search_item *it = &c->r.item[i];
	switch (col) {
	case 2: return it->peak_gib;
	case 3: return it->step;
	case 4: return it->mfu;
	case 5: return it->tokens_per_s;
	case 6: return it->ilp_status >= 0 ? it->ilp_gain : -1;
	case 7: return it->step; /* vs current: the step over the current plan's */
	default: return i;
	}
}

static const tui_cands *sort_c; /* qsort's context: set only around the call below */

static int cmp_rows(const void *x, const void *y)
{
	int i = *(const int *)x, j = *(const int *)y;
	const tui_cands *c = sort_c;
	int r;
	if (c->sort == 1) {
		r = search_canon_cmp(&c->r.item[i].s, &c->r.item[j].s);
	} else {
		double a = col_value(c, i, c->sort), b = col_value(c, j, c->sort);
		r = a < b ? -1 : a > b ? 1 : 0;
	}
	if (c->desc)
		r = -r;
	return r ? r : i - j; /* ties keep the rank order */
}

/* The shown figures of two items are equal (as the table prints them). */
static int same_shown(const search_item *a, const search_item *b)
{
	return lround(a->peak_gib * 10) == lround(b->peak_gib * 10) && lround(a->mfu * 1000) == lround(b->mfu * 1000) &&
		fabs(a->step - b->step) <= 5e-4 * fmax(a->step, b->step);
}

void tui_cands_rows(tui_cands *c)
{
	c->nord = 0;
	for (int i = 0; i < c->r.n; i++)
		if (cand_filter_match(&c->filter, &c->r.item[i]))
			c->ord[c->nord++] = i;
	sort_c = c;
	qsort(c->ord, (size_t)c->nord, sizeof *c->ord, cmp_rows);
	sort_c = NULL;
	int k = 0;
	for (int i = 0; i < c->nord; i++) {
		if (c->merge && k > 0 && same_shown(&c->r.item[c->ord[i]], &c->r.item[c->ord[k - 1]])) {
			c->more[k - 1]++;
			continue;
		}
		c->more[k] = 0;
		c->ord[k++] = c->ord[i];
	}
	c->nord = k;
	if (c->sel >= c->nord)
		c->sel = c->nord - 1;
	if (c->sel < 0)
		c->sel = 0;
	c->top = 0;
	c->ev_for = 0;
}

/* A key while the filter is typed: letters, Backspace, Enter (apply), Esc (drop). */
static void filter_key(tui_app *a, tui_cands *c, int key)
{
	size_t l = strlen(c->ftext);
	if (key == 27) {
		c->typing = 0;
		return;
	}
	if (key == 21) { /* Ctrl-U: start over */
		c->ftext[0] = 0;
		return;
	}
	if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		if (l)
			c->ftext[l - 1] = 0;
		return;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		char err[200];
		cand_filter f;
		if (cand_filter_parse(c->ftext, &f, err, sizeof err)) {
			tui_app_msg(a, MSG_ERROR, "filter: %s", err);
			return;
		}
		c->filter = f;
		c->typing = 0;
		tui_cands_rows(c);
		return;
	}
	if (key >= 32 && key < 127 && l + 1 < sizeof c->ftext) {
		c->ftext[l] = (char)key;
		c->ftext[l + 1] = 0;
	}
}

/* v: the panes show candidate it in place of the plan (the plan is kept aside). */
static void preview(tui_app *a, tui_cands *c)
{
	int it = tui_cands_item(c);
	if (it < 0)
		return;
	if (!c->before && !(c->before = malloc(sizeof *c->before))) {
		tui_app_msg(a, MSG_ERROR, "out of memory");
		return;
	}
	*c->before = *a->plan;
	a->plan->strategy = c->r.item[it].s;
	tui_app_eval(a);
	a->mode = MODE_PREVIEW;
	tui_app_msg(a, MSG_INFO, "preview of #%d: Enter applies, Esc goes back", it + 1);
}

/* Back from the preview: the plan as it was, evaluated again. */
static void unpreview(tui_app *a, tui_cands *c)
{
	if (c->before) {
		*a->plan = *c->before;
		tui_app_eval(a);
	}
	a->msg_kind = MSG_NONE;
}

const plan_t *tui_preview_user_plan(const tui_app *a)
{
	if (a->mode == MODE_REVIEW && a->review) /* an ILP plan on trial, not yet kept */
		return &a->review->before;
	return a->mode == MODE_PREVIEW && a->cands && a->cands->before ? a->cands->before : a->plan;
}

void tui_preview_key(tui_app *a, int key)
{
	tui_cands *c = a->cands;
	unpreview(a, c);
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		tui_cands_apply(a);
	} else if (key == 27 || key == 'v' || key == ' ' || key == 'q') {
		a->mode = MODE_CANDS;
	} else {
		preview(a, c); /* any other key: stay in the preview (and say so again) */
	}
}

void tui_cands_key(tui_app *a, int key)
{
	tui_cands *c = a->cands;
	if (c->typing) {
		a->msg_kind = MSG_NONE;
		filter_key(a, c, key);
		return;
	}
	a->msg_kind = MSG_NONE;
	if (tui_list_key(key, &c->sel, c->nord, tui_cands_list_rows(LINES)))
		return;
	if (key == 27 || key == 'q') {
		a->mode = MODE_NORMAL;
	} else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		tui_cands_apply(a);
	} else if (key == 'o' || key == 'O') {
		/* o: the next column; O: the other direction */
		if (key == 'o')
			c->sort = (c->sort + 1) % CANDS_COLS;
		else
			c->desc = !c->desc;
		tui_cands_rows(c);
	} else if (key == '=') {
		c->merge = !c->merge;
		tui_cands_rows(c);
	} else if (key == '/') {
		c->typing = 1;
	} else if (key == 'v' || key == ' ') {
		preview(a, c);
	}
}
