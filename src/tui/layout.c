/* layout.c - pane rectangles. Rows beyond the 80x24 minimum go first to the memory and
 * time panes (until every stage has its bar), then to the timeline (until every stage has
 * its lane); columns widen the bars and the time axis. */
#include "tui/layout.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

static tui_rect rect(int y, int x, int h, int w)
{
	tui_rect r = {y, x, h > 0 ? h : 0, w > 0 ? w : 0};
	return r;
}

static int min(int a, int b) { return a < b ? a : b; }
static int max(int a, int b) { return a > b ? a : b; }

void tui_layout_compute(int rows, int cols, int stages, int time_rows, int debug, tui_layout *l)
{
	memset(l, 0, sizeof *l);
	l->too_small = rows < TUI_MIN_ROWS || cols < TUI_MIN_COLS;
	l->header = rect(0, 0, 1, cols);
	l->message = rect(rows - 1, 0, 1, cols);
	if (l->too_small)
		return;
	int bottom = rows - 1; /* first row below the body */
	if (debug) {
		l->debug = rect(rows - 2, 0, 1, cols);
		bottom--;
	}
	int body = bottom - 1;
	int want_top = max(TUI_KNOB_ALL, (1 + stages + 1) + time_rows); /* memory: title, bars, legend */
	int top = TUI_KNOB_ROWS;
	int tl_min = TUI_TIMELINE_MIN;
	int extra = body - top - tl_min;
	if (extra < 0) {
		/* the debug line at the minimum size: the timeline gives up a lane */
		tl_min += extra;
		extra = 0;
	}
	int give = min(extra, max(0, want_top - top));
	top += give;
	extra -= give;
	int tl = tl_min + extra; /* the timeline takes whatever is left, even beyond its lanes */
	/* once every stage has its lane, the why pane takes up to TUI_WHY_MAX rows; the
	 * timeline keeps the rest (its lanes grow taller) */
	int spare = tl - max(TUI_TIMELINE_MIN, 1 + stages), why = 0;
	if (spare >= TUI_WHY_MIN) {
		why = min(TUI_WHY_MAX, spare);
		tl -= why;
		/* lanes grow to three rows; rows beyond that stay below the why pane */
		tl = min(tl, max(TUI_TIMELINE_MIN, 1 + TUI_LANE_MAX * stages));
	}
	l->knobs = rect(1, 0, top, TUI_KNOB_W);
	int rx = TUI_KNOB_W, rw = cols - TUI_KNOB_W;
	int mem_rows = 1 + stages + 1;
	int mem_h = min(mem_rows, max(3, top - time_rows));
	l->memory = rect(1, rx, mem_h, rw);
	l->time = rect(1 + mem_h, rx, top - mem_h, rw);
	l->timeline = rect(1 + top, 0, tl, cols);
	if (why)
		l->why = rect(1 + top + tl, 0, why, cols);
}

int tui_pick_rows(int n, int avail, int must, int *out)
{
	if (avail <= 0 || n <= 0)
		return 0;
	if (n <= avail) {
		for (int i = 0; i < n; i++)
			out[i] = i;
		return n;
	}
	if (avail == 1) {
		out[0] = must >= 0 && must < n ? must : 0;
		return 1;
	}
	/* evenly spread over [0, n-1], both ends included, then make room for `must` by
	 * replacing its nearest pick */
	for (int i = 0; i < avail; i++)
		out[i] = (int)((long long)i * (n - 1) / (avail - 1));
	if (must >= 0 && must < n) {
		int best = 0;
		for (int i = 1; i < avail; i++)
			if (abs(out[i] - must) < abs(out[best] - must))
				best = i;
		if (out[best] != must) {
			/* keep the ends: move an inner pick */
			if (best == 0)
				best = 1;
			if (best == avail - 1)
				best = avail - 2;
			out[best] = must;
			/* restore order and uniqueness */
			for (int i = 1; i < avail; i++)
				for (int j = i; j > 0 && out[j] < out[j - 1]; j--) {
					int t = out[j];
					out[j] = out[j - 1];
					out[j - 1] = t;
				}
		}
	}
	int k = 0;
	for (int i = 0; i < avail; i++)
		if (k == 0 || out[i] != out[k - 1])
			out[k++] = out[i];
	return k;
}

int tui_list_key(int key, int *sel, int n, int page)
{
	int s = *sel;
	if (key == KEY_DOWN || key == 'j')
		s++;
	else if (key == KEY_UP || key == 'k')
		s--;
	else if (key == KEY_NPAGE)
		s += page;
	else if (key == KEY_PPAGE)
		s -= page;
	else if (key == KEY_HOME || key == 'g')
		s = 0;
	else if (key == KEY_END || key == 'G')
		s = n - 1;
	else
		return 0;
	*sel = s >= n ? n - 1 : s;
	if (*sel < 0)
		*sel = 0;
	return 1;
}

void tui_list_scroll(int sel, int *top, int avail)
{
	if (sel < *top)
		*top = sel;
	if (sel >= *top + avail)
		*top = sel - avail + 1;
	if (*top < 0)
		*top = 0;
}
