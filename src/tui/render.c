/* render.c - one frame: lay out for the current size, draw every pane, send the
 * difference to the terminal (curses keeps the previous screen and writes only changes). */
#include "tui/input.h"
#include "tui/layout.h"
#include "tui/panes.h"

void tui_render(tui_app *a)
{
	int rows = LINES, cols = COLS;
	erase();
	curs_set(0);
	if (a->mode == MODE_HELP) {
		tui_overlay_help(a, rows, cols);
	} else if (a->mode == MODE_PICK) {
		tui_overlay_pick(a, rows, cols);
	} else if (a->mode == MODE_TEXT) {
		tui_overlay_text(a, rows, cols);
	} else if (a->mode == MODE_CANDS && a->cands) {
		tui_overlay_cands(a, rows, cols);
	} else if (a->mode == MODE_SWEEP && a->sweep) {
		tui_overlay_sweep(a, rows, cols);
	} else {
		tui_layout l;
		tui_layout_compute(rows, cols, a->have_res ? a->res->stages : 1, tui_time_rows(a), a->debug, &l);
		if (l.too_small) {
			tui_pane_too_small(a, rows, cols);
		} else {
			tui_pane_header(a, l.header);
			tui_pane_knobs(a, l.knobs);
			tui_pane_memory(a, l.memory);
			tui_pane_time(a, l.time);
			tui_pane_timeline(a, l.timeline);
			tui_pane_why(a, l.why);
			if (a->debug)
				tui_pane_debug(a, l.debug);
			tui_pane_message(a, l.message);
		}
		if (a->mode == MODE_PROMPT && !l.too_small)
			curs_set(1); /* the message line left the cursor at the end of the entry */
	}
	wnoutrefresh(stdscr);
	doupdate();
}
