/* pane_header.c - the job header, the message line, the debug line and the screen shown
 * when the terminal is below the minimum size. */
#include "tui/layout.h"
#include "tui/panes.h"
#include "tui/tasks.h"

#include <stdio.h>
#include <string.h>

void tui_pane_header(tui_app *a, tui_rect r)
{
	const plan_t *p = a->plan;
	attr_t h = a->attr[ROLE_HEADER];
	tui_fill(r.y, r.x, r.w, h);
	double total = model_total_params(&p->model, true), active = model_active_params(&p->model);
	char params[48];
	if (active < 0.999 * total)
		snprintf(params, sizeof params, "%.1fB (%.1fB active)", total / 1e9, active / 1e9);
	else
		snprintf(params, sizeof params, "%.1fB params", total / 1e9);
	const char *file = a->save_path[0] ? strrchr(a->save_path, '/') : NULL;
	file = file ? file + 1 : a->save_path[0] ? a->save_path : "default plan";
	/* a framework other than Megatron-LM (set, or implied by ZeRO-3) changes what selective
	 * recompute and TP overlap mean: say so */
	char fw[48] = "";
	int fwk = strat_framework(&p->strategy);
	if (fwk != FW_MEGATRON)
		snprintf(fw, sizeof fw, " %s %s", a->g->vline, strat_framework_name(fwk));
	/* the file and its [+] first: a narrow terminal cuts the end of the line, and whether
	 * the work is saved must always show */
	tui_textf(r.y, r.x, r.w, h, " strata %s %s%s %s %s %s %s %s %d%s%s%s", a->g->vline, file, a->dirty ? " [+]" : "",
			a->g->vline, p->model.name, params, a->g->vline, p->cluster.name, p->devices, a->g->times,
			p->cluster.device, fw);
}

void tui_pane_message(tui_app *a, tui_rect r)
{
	tui_fill(r.y, r.x, r.w, a->attr[ROLE_NORMAL]);
	if (a->mode == MODE_PROMPT) {
		int n = tui_text(r.y, r.x, r.w, a->attr[ROLE_PROMPT], a->prompt.label);
		/* show the end of a long entry: that is where the cursor is */
		const char *s = a->prompt.buf;
		int room = r.w - n - 1;
		int w = tui_width(s);
		while (w > room && *s) {
			s++;
			if (((unsigned char)*s & 0xC0) != 0x80)
				w--;
		}
		n += tui_text(r.y, r.x + n, room, a->attr[ROLE_NORMAL], s);
		move(r.y, r.x + n);
		return;
	}
	if (tui_task_busy(a)) {
		/* the progress line; a refusal from the last key stays beside it */
		char st[200];
		tui_task_status(a, st, sizeof st);
		int n = tui_text(r.y, r.x, r.w, a->attr[ROLE_MESSAGE], st);
		if (a->msg_kind != MSG_NONE)
			tui_textf(r.y, r.x + n, r.w - n, a->attr[a->msg_kind == MSG_ERROR ? ROLE_ERROR : ROLE_MESSAGE], " %s %s",
					a->g->dot, a->msg);
		return;
	}
	if (a->msg_kind != MSG_NONE) {
		int n = tui_text(r.y, r.x, r.w, a->attr[a->msg_kind == MSG_ERROR ? ROLE_ERROR : ROLE_MESSAGE], a->msg);
		if (a->msg_kind == MSG_INFO && a->delta[0]) /* what the change did */
			tui_textf(r.y, r.x + n, r.w - n, a->attr[ROLE_CHANGED], " %s %s", a->g->dot, a->delta);
		return;
	}
	if (a->mode == MODE_REVIEW) {
		tui_text(r.y, r.x, r.w, a->attr[ROLE_MESSAGE], "ILP plan on trial: Enter or y keeps it, n or Esc discards it");
		return;
	}
	if (!a->cur_valid) {
		tui_textf(r.y, r.x, r.w, a->attr[ROLE_ERROR], "invalid: %s", a->cur_why);
		return;
	}
	tui_textf(r.y, r.x, r.w, a->attr[ROLE_LABEL], "%s%s knob  h/l value  p pin  u undo  i ILP  s search  e export  ? help  q quit",
			a->g->up, a->g->down);
}

void tui_pane_debug(tui_app *a, tui_rect r)
{
	attr_t d = a->attr[ROLE_DEBUG];
	tui_fill(r.y, r.x, r.w, d);
	tui_textf(r.y, r.x, r.w, d, " frame %.0f us %s median %.0f us %s p90 %.0f us %s %ld keys %s eval %.1f us %s %s %s %s %s %dx%d %s theme %s",
			a->frames.last, a->g->dot, tui_frames_pct(&a->frames, 0.5), a->g->dot, tui_frames_pct(&a->frames, 0.9),
			a->g->dot, a->frames.n, a->g->dot, a->eval_us, a->g->dot,
			a->colors ? (a->colors == 256 ? "256 colours" : a->colors == 16 ? "16 colours" : "8 colours") : "monochrome",
			a->g->dot, a->utf8 ? "UTF-8" : "ASCII", a->g->dot, COLS, LINES, a->g->dot, a->theme.name);
}

void tui_pane_too_small(tui_app *a, int rows, int cols)
{
	const char *lines[3];
	char need[96];
	snprintf(need, sizeof need, "strata needs %dx%d, this is %dx%d", TUI_MIN_COLS, TUI_MIN_ROWS, cols, rows);
	lines[0] = "Terminal too small";
	lines[1] = need;
	lines[2] = "enlarge it, or press q to quit";
	int y0 = rows / 2 - 1;
	for (int i = 0; i < 3; i++) {
		int w = tui_width(lines[i]);
		int x = w < cols ? (cols - w) / 2 : 0;
		if (y0 + i >= 0 && y0 + i < rows)
			tui_text(y0 + i, x, cols - x, a->attr[i == 0 ? ROLE_ERROR : ROLE_NORMAL], lines[i]);
	}
}
