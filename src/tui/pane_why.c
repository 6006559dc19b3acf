/* pane_why.c - "why is it slow" in the explorer: the plan's dominant losses, each with the
 * change the model says helps most and its measured effect (solve/advice.c), and where each
 * parallel group sits (inside a node or across nodes). A pane under the timeline when the
 * terminal has the rows, and `W` shows the same in the text view at any size. The advice is
 * computed once per evaluation (it evaluates a few dozen alternatives), not per frame. */
#include "core/knob.h"
#include "io/units.h"
#include "tui/panes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The advice for the current plan, recomputed when the evaluation changed; NULL when the
 * plan does not evaluate or memory is short. */
static const adv_list *why_of(tui_app *a)
{
	if (!a->cur_valid || !a->have_res)
		return NULL;
	if (!a->why && !(a->why = malloc(sizeof *a->why)))
		return NULL;
	if (a->why_stale) {
		const plan_t *p = a->plan;
		if (advice_run(&p->model, &p->cluster, p->devices, &p->strategy, p->budget_gib, a->res,
				tui_app_pinned(a), a->why))
			a->why->n = 0;
		a->why_stale = 0;
	}
	return a->why;
}

/* "TP 8 inside a node · CP 1 (none) · ..." */
static void placement_line(const tui_app *a, char *out, size_t n)
{
	adv_group g[ADV_GROUPS];
	advice_placement(&a->plan->cluster, &a->plan->strategy, g);
	size_t l = (size_t)snprintf(out, n, "placement, %d per node:", a->plan->cluster.node_devices);
	for (int i = 0; i < ADV_GROUPS && l < n; i++) {
		char one[64];
		advice_group_text(&g[i], one, sizeof one);
		l += (size_t)snprintf(out + l, n - l, "%s %s", i ? ";" : "", one);
	}
}

void tui_pane_why(tui_app *a, tui_rect r)
{
	if (r.h <= 0)
		return;
	int n = tui_text(r.y, r.x, r.w, a->attr[ROLE_TITLE], " Why is it slow");
	const adv_list *l = why_of(a);
	if (!l) {
		tui_text(r.y, r.x + n, r.w - n, a->attr[ROLE_LABEL], a->cur_valid ? "" : " (the plan does not evaluate)");
		return;
	}
	tui_textf(r.y, r.x + n, r.w - n, a->attr[ROLE_LABEL], " %s each change measured by the cost model %s W: in full",
			a->g->dot, a->g->dot);
	/* each loss with its fix on the next line when the rows allow, else on one line */
	int two = 1 + 2 * l->n + 1 <= r.h;
	int y = r.y + 1, last = r.y + r.h - 1; /* the placement goes last */
	for (int i = 0; i < l->n && y < last; i++, y++) {
		const adv_item *it = &l->item[i];
		char fx[200];
		advice_fix_text(it, fx, sizeof fx);
		int x = r.x + tui_textf(y, r.x, r.w, a->attr[it->kind == ADV_MEMORY ? ROLE_OVER : ROLE_NORMAL], " %d. %s ",
				i + 1, it->loss);
		if (two)
			x = r.x + tui_text(++y, r.x, r.w, a->attr[ROLE_LABEL], "    ");
		if (x < r.x + r.w)
			tui_textf(y, x, r.x + r.w - x, a->attr[it->has_fix ? ROLE_VALUE : ROLE_LABEL], "%s %s",
					two ? "->" : a->g->dot, fx);
	}
	char pl[400];
	placement_line(a, pl, sizeof pl);
	tui_textf(y < last ? y : last, r.x, r.w, a->attr[ROLE_LABEL], " %s", pl);
}

void tui_why_show(tui_app *a)
{
	const adv_list *l = why_of(a);
	if (!l) {
		tui_app_msg(a, MSG_ERROR, "why: %s", a->cur_valid ? "out of memory" : a->cur_why);
		return;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		tui_app_msg(a, MSG_ERROR, "out of memory");
		return;
	}
	char t[32], fx[200], pl[400];
	units_time(a->res->step, t, sizeof t);
	fprintf(f, "step %s, MFU %.1f%%. Each change below is the changed plan evaluated\n"
			"by the cost model: the same devices, global batch and sequence;\n"
			"pinned knobs are left alone.\n\n", t, 100 * a->res->mfu);
	for (int i = 0; i < l->n; i++) {
		advice_fix_text(&l->item[i], fx, sizeof fx);
		fprintf(f, "%d. %s\n   -> %s\n\n", i + 1, l->item[i].loss, fx);
	}
	adv_group g[ADV_GROUPS];
	advice_placement(&a->plan->cluster, &a->plan->strategy, g);
	fprintf(f, "placement, %d devices per node (Megatron-LM's rank order: tp innermost,\n"
			"then cp, dp, pp; a group inside a node talks over the node's links,\n"
			"one across nodes over the network):\n", a->plan->cluster.node_devices);
	for (int i = 0; i < ADV_GROUPS; i++) {
		advice_group_text(&g[i], pl, sizeof pl);
		fprintf(f, "  %s\n", pl);
	}
	fclose(f);
	tui_app_show_text(a, "Why is it slow (strata eval --why)", buf ? buf : "");
	free(buf);
}
