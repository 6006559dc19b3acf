/* pane_memory.c - memory per pipeline stage as stacked bars by component (weights,
 * gradients, optimizer states, activations, buffers) against the budget; the part of a
 * bar past the budget is drawn in the over-budget-bar role, with the overflow in GiB. */
#include "core/evaluate.h"
#include "tui/panes.h"
#include "tui/tasks.h"

#include <math.h>

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MEM_NUMS_MIN_W 130 /* pane width from which each stage's numbers are shown */
#define MEM_NUMS_W 58      /* "%3d layers %4.1f in flight  W %5.1f G %5.1f O %5.1f A %5.1f" */

static const tui_role seg_role[5] = {ROLE_MEM_WEIGHTS, ROLE_MEM_GRADS, ROLE_MEM_OPTIM, ROLE_MEM_ACTS, ROLE_MEM_BUFS};
static const char *const seg_name[5] = {"weights", "grads", "optimizer", "activations", "buffers"};

/* Solid blocks when colour tells the components apart; distinct shades (UTF-8) or letters
 * (ASCII) when it cannot. */
static const char *seg_glyph(const tui_app *a, int i)
{
	return a->colors && a->utf8 ? a->g->bar : a->g->seg[i];
}

static void stage_bar(tui_app *a, int y, int x, int bw, const eval_mem *m, double scale, int bcol)
{
	double part[5] = {m->weights, m->grads, m->optimizer, m->activations, m->buffers};
	int end[5];
	double cum = 0;
	for (int i = 0; i < 5; i++) {
		cum += part[i];
		/* cumulative rounding: the segments always add up to the total's length */
		end[i] = (int)lround(cum * scale);
		if (end[i] > bw)
			end[i] = bw;
	}
	int c = 0;
	for (int i = 0; i < 5; i++) {
		/* a segment may straddle the budget: the part past it is drawn as overflow */
		int in = end[i] < bcol ? end[i] : bcol;
		if (in > c) {
			tui_repeat(y, x + c, in - c, a->attr[seg_role[i]], seg_glyph(a, i));
			c = in;
		}
		if (end[i] > c) {
			tui_repeat(y, x + c, end[i] - c, a->attr[ROLE_OVER_BAR], seg_glyph(a, i));
			c = end[i];
		}
	}
	if (c < bcol && bcol < bw)
		tui_text(y, x + bcol, 1, a->attr[ROLE_BUDGET], a->g->budget);
	if (bcol >= bw)
		tui_text(y, x + bw, 1, a->attr[ROLE_BUDGET], a->g->budget);
}

void tui_pane_memory(tui_app *a, tui_rect r)
{
	if (r.h <= 0)
		return;
	/* the figures are PyTorch's allocated bytes (max_memory_allocated), not what
	 * nvidia-smi shows: the title says so, the legend line adds the other two when wide */
	int n = tui_text(r.y, r.x, r.w, a->attr[ROLE_TITLE], a->review ? " ILP allocated GiB" : " Allocated GiB");
	if (!a->cur_valid)
		n += tui_text(r.y, r.x + n, r.w - n, a->attr[ROLE_INVALID], " (last valid)");
	if (!a->have_res)
		return;
	const eval_result *res = a->res;
	double budget = res->budget_bytes, peak = res->peak_bytes;
	/* the peak's stage is marked on its bar; name it too when the title has room */
	char on[16] = "";
	if (r.w - n >= 46)
		snprintf(on, sizeof on, " on s%d", res->peak_stage);
	n += tui_textf(r.y, r.x + n, r.w - n, a->attr[ROLE_LABEL], " %s budget %.1f %s peak %.1f%s %s ", a->g->dot,
			budget / GIB, a->g->dot, peak / GIB, on, a->g->dot);
	if (res->fits)
		n += tui_text(r.y, r.x + n, r.w - n, a->attr[ROLE_FITS], "fits");
	else
		n += tui_textf(r.y, r.x + n, r.w - n, a->attr[ROLE_OVER], "OVER by %.1f", (peak - budget) / GIB);
	/* rows: the bars, then the legend */
	int avail = r.h - 2, rows[EVAL_MAX_STAGES];
	int nrows = tui_pick_rows(res->stages, avail, res->peak_stage, rows);
	/* an explicit (ILP) stage split shows each stage's layers; on trial also how many of
	 * them recompute (s selective, f full) */
	int layers = a->res_split;
	/* with room, each stage's numbers: layers, in-flight micro-batches, and the GiB of
	 * weights, gradients, optimizer states and activations */
	const int nums = r.w >= MEM_NUMS_MIN_W ? MEM_NUMS_W : 0;
	const int label = 5, right = 14, lw = layers && (!nums || a->review) ? (a->review ? 11 : 5) : 0;
	int bw = r.w - label - right - lw - nums - 1;
	if (bw < 4)
		return;
	double maxv = budget > peak ? budget : peak;
	double scale = maxv > 0 ? bw / maxv : 0;
	int bcol = (int)lround(budget * scale);
	for (int i = 0; i < nrows; i++) {
		int y = r.y + 1 + i, s = rows[i];
		const eval_mem ms = eval_stage_mem(res, s), *m = &ms;
		tui_textf(y, r.x, label, a->attr[s == res->peak_stage ? ROLE_VALUE : ROLE_LABEL], " s%-3d", s);
		stage_bar(a, y, r.x + label, bw, m, scale, bcol);
		int x = r.x + label + bw + 1;
		if (lw) {
			char rc[16] = "";
			if (a->review && s < a->review->r.stages)
				tui_rc_text(a->review->r.st[s].rc, rc, sizeof rc);
			tui_textf(y, x, lw, a->attr[a->review ? ROLE_CHANGED : ROLE_LABEL], "%3dL %-6s", m->layers, rc);
			x += lw;
		}
		int t = tui_textf(y, x, right, a->attr[ROLE_VALUE], "%6.1f", m->total / GIB);
		if (m->total > budget)
			tui_textf(y, x + t, right - t, a->attr[ROLE_OVER], " +%.1f", (m->total - budget) / GIB);
		if (nums)
			tui_textf(y, x + right, nums, a->attr[ROLE_LABEL], "%3d layers %4.1f in flight  W %5.1f G %5.1f O %5.1f A %5.1f",
					m->layers, m->inflight, m->weights / GIB, m->grads / GIB, m->optimizer / GIB,
					m->activations / GIB);
	}
	/* legend */
	int y = r.y + r.h - 1, x = r.x + 1, end = r.x + r.w;
	for (int i = 0; i < 5 && x < end; i++) {
		x += tui_text(y, x, end - x, a->attr[seg_role[i]], seg_glyph(a, i));
		/* ASCII names that start with their letter (P params, C comm) */
		const char *name = !a->utf8 && i == 0 ? "params" : !a->utf8 && i == 4 ? "comm" : seg_name[i];
		if (r.w < 60 && i >= 2)
			name = i == 2 ? "optim" : i == 3 ? "acts" : a->utf8 ? "bufs" : "comm";
		x += tui_textf(y, x, end - x, a->attr[ROLE_LABEL], " %s ", name);
	}
	if (x < end) {
		x += tui_text(y, x, end - x, a->attr[ROLE_BUDGET], a->g->budget);
		x += tui_text(y, x, end - x, a->attr[ROLE_LABEL], " budget");
	}
	/* the peak as the allocator's reserve and as nvidia-smi would show it
	 * (eval_mem_convention), when the line has room for them */
	char conv[64];
	const cluster_t *c = &a->plan->cluster;
	int w = snprintf(conv, sizeof conv, "  peak reserved %.1f %s nvidia-smi %.1f",
			eval_mem_convention(c, peak / GIB, EVAL_MEM_RESERVED), a->g->dot,
			eval_mem_convention(c, peak / GIB, EVAL_MEM_NVIDIA_SMI));
	if (w > 0 && x + w <= end)
		tui_text(y, x, end - x, a->attr[ROLE_LABEL], conv);
}
