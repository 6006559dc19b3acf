/* slots.c - the A/B slots: keep the plan on screen in slot A or B (a, b) and compare the
 * current plan with them side by side, component by component (C): each part of the step
 * time, MFU, tokens/s, the peak memory and its components, each stage's memory. The rows
 * and their layout are eval --compare's (io/report.c), so the two faces agree. */
#include "io/report.h"
#include "tui/actions.h"

#include <stdio.h>
#include <stdlib.h>

void tui_slot_keep(tui_app *a, int slot)
{
	if (!a->slot[slot] && !(a->slot[slot] = malloc(sizeof *a->slot[slot]))) {
		tui_app_msg(a, MSG_ERROR, "out of memory");
		return;
	}
	*a->slot[slot] = *a->plan;
	const strategy_t *s = &a->plan->strategy;
	tui_app_msg(a, MSG_INFO, "kept in %c: %d devices, dp %d tp %d pp %d cp %d mbs %d%s (C compares the current plan "
			"with it)", 'A' + slot, a->plan->devices, s->dp, s->tp, s->pp, s->cp, s->micro_batch,
			a->cur_valid ? "" : " (invalid)");
}

/* Slot `slot` against the current plan into f; 0, or -1 when the slot's plan is invalid
 * (said in f). */
static int compare_one(tui_app *a, FILE *f, int slot, eval_result *rs)
{
	const plan_t *ps = a->slot[slot];
	char name[16];
	snprintf(name, sizeof name, "kept %c", 'A' + slot);
	if (eval_run(&ps->model, &ps->cluster, ps->devices, &ps->strategy, ps->budget_gib, rs)) {
		fprintf(f, "%s: invalid: %s\n\n", name, rs->why);
		return -1;
	}
	report_cmp_table(f, name, ps, rs, "current", a->plan, a->res);
	fputc('\n', f);
	return 0;
}

void tui_slot_compare(tui_app *a)
{
	if (!a->slot[0] && !a->slot[1]) {
		tui_app_msg(a, MSG_ERROR, "no plan kept yet: a keeps the current plan in A, b in B");
		return;
	}
	if (!a->cur_valid) {
		tui_app_msg(a, MSG_ERROR, "the current plan is invalid: %s", a->cur_why);
		return;
	}
	eval_result *rs = malloc(sizeof *rs);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = rs ? open_memstream(&buf, &len) : NULL;
	if (!f) {
		free(rs);
		tui_app_msg(a, MSG_ERROR, "out of memory");
		return;
	}
	for (int k = 0; k < 2; k++)
		if (a->slot[k])
			compare_one(a, f, k, rs);
	fputs("Column A is the kept plan, B the current one. a or b keeps the current plan, u undoes.\n", f);
	int bad = fclose(f);
	free(rs);
	if (bad || !buf) {
		free(buf);
		tui_app_msg(a, MSG_ERROR, "out of memory");
		return;
	}
	tui_app_show_text(a, a->slot[0] && a->slot[1] ? "A and B against the current plan" :
			a->slot[0] ? "A against the current plan" : "B against the current plan", buf);
	free(buf);
}
