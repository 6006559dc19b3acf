/* pane_knobs.c - the strategy knobs. */
#include "tui/panes.h"

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
		tui_text(r.y, r.x + n, w - n, a->attr[ROLE_INVALID], " INVALID");
	for (int k = 0; k < KNOB_COUNT && 1 + k < r.h; k++) {
		int y = r.y + 1 + k;
		int sel = k == a->sel;
		attr_t base = a->attr[sel ? ROLE_SELECTED : ROLE_NORMAL];
		tui_fill(y, r.x, w, base);
		tui_text(y, r.x, 1, base, sel ? a->g->sel : " ");
		if (pinned & (1u << k))
			tui_text(y, r.x + 1, 1, sel ? base : a->attr[ROLE_PINNED], a->g->pin);
		tui_text(y, r.x + 3, 12, sel ? base : a->attr[ROLE_LABEL], knob_label((knob_id)k));
		char v[32];
		knob_format(&j, &a->plan->cluster, (knob_id)k, v, sizeof v);
		tui_role role = a->changed & (1u << k) ? ROLE_CHANGED : ROLE_VALUE;
		int vw = tui_width(v), room = w - 15;
		tui_text(y, r.x + 15 + (vw < room ? room - vw : 0), room, sel ? base | A_BOLD : a->attr[role], v);
	}
}
