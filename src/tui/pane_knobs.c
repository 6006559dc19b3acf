/* pane_knobs.c - the strategy knobs, in the order of knob_at() (devices first). When the
 * pane has fewer rows than knobs (80x24 has room for all but one) the list scrolls to keep
 * the selected knob in view, and the title says how many rows are above or below. */
#include "tui/panes.h"

_Static_assert(TUI_KNOB_ALL == 1 + KNOB_COUNT, "the layout makes room for every knob");

void tui_pane_knobs(tui_app *a, tui_rect r)
{
	knob_job j = tui_app_job(a);
	unsigned pinned = tui_app_pinned(a);
	int w = r.w - 1; /* the last column is the separator */
	attrset(a->attr[ROLE_BORDER]);
	for (int y = r.y; y < r.y + r.h; y++)
		tui_text(y, r.x + w, 1, a->attr[ROLE_BORDER], a->g->vline);
	int n = tui_text(r.y, r.x, w, a->attr[ROLE_TITLE], " Strategy");
	if (!a->cur_valid)
		n += tui_text(r.y, r.x + n, w - n, a->attr[ROLE_INVALID], " INVALID");
	int avail = r.h - 1, top = 0, row = knob_row((knob_id)a->sel);
	if (avail <= 0)
		return;
	if (row >= avail)
		top = row - avail + 1;
	int below = KNOB_COUNT - top - avail;
	if (top > 0 || below > 0) {
		char more[32];
		snprintf(more, sizeof more, "%s%d ", top > 0 ? a->g->up : a->g->down, top > 0 ? top : below);
		int mw = tui_width(more);
		if (n + mw < w)
			tui_text(r.y, r.x + w - mw, mw, a->attr[ROLE_LABEL], more);
	}
	for (int i = 0; i < avail && top + i < KNOB_COUNT; i++) {
		knob_id k = knob_at(top + i);
		int y = r.y + 1 + i;
		int sel = (int)k == a->sel;
		attr_t base = a->attr[sel ? ROLE_SELECTED : ROLE_NORMAL];
		tui_fill(y, r.x, w, base);
		tui_text(y, r.x, 1, base, sel ? a->g->sel : " ");
		if (pinned & (1u << k))
			tui_text(y, r.x + 1, 1, sel ? base : a->attr[ROLE_PINNED], a->g->pin);
		tui_text(y, r.x + 3, 12, sel ? base : a->attr[ROLE_LABEL], knob_label(k));
		char v[32];
		knob_format(&j, &a->plan->cluster, k, v, sizeof v);
		tui_role role = a->changed & (1u << k) ? ROLE_CHANGED : ROLE_VALUE;
		int vw = tui_width(v), room = w - 15;
		tui_text(y, r.x + 15 + (vw < room ? room - vw : 0), room, sel ? base | A_BOLD : a->attr[role], v);
	}
}
