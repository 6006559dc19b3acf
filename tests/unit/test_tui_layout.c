/* Unit tests for the explorer's pure parts: src/tui/layout.c (pane rectangles for any
 * terminal size, the 80x24 minimum, which stages get a row) and src/tui/frames.c (the
 * frame timer's percentiles). */
#include "check.h"
#include "tui/frames.h"
#include "tui/layout.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

static int inside(tui_rect r, int rows, int cols)
{
	return r.h == 0 || (r.y >= 0 && r.x >= 0 && r.y + r.h <= rows && r.x + r.w <= cols);
}

static int overlap(tui_rect a, tui_rect b)
{
	if (!a.h || !a.w || !b.h || !b.w)
		return 0;
	return a.y < b.y + b.h && b.y < a.y + a.h && a.x < b.x + b.w && b.x < a.x + a.w;
}

static int sane(const tui_layout *l, int rows, int cols)
{
	tui_rect r[] = {l->header, l->knobs, l->memory, l->time, l->timeline, l->debug, l->message, l->why};
	int n = sizeof r / sizeof r[0];
	for (int i = 0; i < n; i++) {
		if (!inside(r[i], rows, cols))
			return 0;
		for (int j = i + 1; j < n; j++)
			if (overlap(r[i], r[j]))
				return 0;
	}
	return 1;
}

static void test_minimum(void)
{
	tui_layout l;
	tui_layout_compute(24, 80, 4, 9, 0, &l);
	CHECK(!l.too_small, "80x24 is enough");
	CHECK(l.header.y == 0 && l.header.h == 1 && l.message.y == 23, "header on top, message line at the bottom");
	CHECK(l.knobs.h == TUI_KNOB_ROWS && l.knobs.w == TUI_KNOB_W, "all 16 knobs and the title fit at 80x24");
	CHECK(l.timeline.y == 18 && l.timeline.h == 5, "timeline: title and 4 lanes at 80x24");
	CHECK(l.memory.h == 6 && l.time.h == 11, "4 stages: memory title, 4 bars, legend; time gets the rest");
	CHECK(l.memory.w + l.knobs.w == 80, "panes fill the width");
	CHECK(sane(&l, 24, 80), "80x24: inside the screen, no overlaps");
	CHECK(l.why.h == 0, "80x24: no why pane (W shows it)");
	tui_layout_compute(24, 79, 4, 9, 0, &l);
	CHECK(l.too_small, "79 columns: too small");
	tui_layout_compute(23, 80, 4, 9, 0, &l);
	CHECK(l.too_small, "23 rows: too small");
	tui_layout_compute(20, 60, 4, 9, 0, &l);
	CHECK(l.too_small && l.message.y == 19, "60x20: too small, message line still placed");
	tui_layout_compute(24, 80, 4, 9, 1, &l);
	CHECK(l.debug.y == 22 && l.debug.h == 1 && l.timeline.h == 4 && sane(&l, 24, 80),
			"debug line at 80x24: above the message line, the timeline gives up a lane");
}

static void test_larger(void)
{
	tui_layout l;
	tui_layout_compute(60, 200, 16, 10, 0, &l);
	CHECK(l.memory.h == 18, "16 stages at 200x60: every stage gets a bar");
	CHECK(l.time.h >= 10, "and the time breakdown all its rows");
	CHECK(l.timeline.h >= 17, "and the timeline a lane per stage");
	CHECK(l.memory.w == 200 - TUI_KNOB_W, "bars widen with the terminal");
	CHECK(sane(&l, 60, 200), "200x60 sane");
	CHECK(l.why.h >= TUI_WHY_MIN && l.why.y == l.timeline.y + l.timeline.h, "200x60, 16 stages: the why pane under the timeline");
	tui_layout_compute(60, 200, 4, 9, 0, &l);
	CHECK(l.why.h == TUI_WHY_MAX && l.timeline.h == 1 + TUI_LANE_MAX * 4 && sane(&l, 60, 200),
			"200x60, 4 stages: lanes three rows tall, the why pane all its rows");
	int bad = 0;
	for (int rows = 24; rows <= 70; rows += 3)
		for (int cols = 80; cols <= 240; cols += 23)
			for (int st = 1; st <= 64; st *= 2)
				for (int dbg = 0; dbg < 2; dbg++) {
					tui_layout_compute(rows, cols, st, 1 + st % 9, dbg, &l);
					if (l.too_small || !sane(&l, rows, cols) || l.knobs.h < TUI_KNOB_ROWS || l.timeline.h < 4 ||
							l.memory.h < 3)
						bad++;
				}
	CHECK(bad == 0, "every size from 80x24 up: panes inside, disjoint, minimum heights kept");
}

static void test_pick_rows(void)
{
	int out[64];
	int n = tui_pick_rows(4, 10, -1, out);
	CHECK(n == 4 && out[0] == 0 && out[3] == 3, "fewer rows than room: all of them");
	n = tui_pick_rows(16, 5, -1, out);
	CHECK(n == 5 && out[0] == 0 && out[4] == 15, "16 in 5: first and last kept");
	n = tui_pick_rows(16, 5, 7, out);
	int has = 0, sorted = 1;
	for (int i = 0; i < n; i++) {
		has |= out[i] == 7;
		if (i && out[i] <= out[i - 1])
			sorted = 0;
	}
	CHECK(n <= 5 && has && sorted && out[0] == 0 && out[n - 1] == 15, "16 in 5 with peak 7: peak shown, ends kept, ascending");
	int bad = 0;
	for (int total = 1; total <= 64; total++)
		for (int avail = 1; avail <= 20; avail++)
			for (int must = -1; must < total; must += 5) {
				n = tui_pick_rows(total, avail, must, out);
				int ok = n >= 1 && n <= avail && n <= total;
				for (int i = 1; i < n; i++)
					ok &= out[i] > out[i - 1];
				for (int i = 0; i < n; i++)
					ok &= out[i] >= 0 && out[i] < total;
				if (must >= 0 && avail >= 3) {
					int found = 0;
					for (int i = 0; i < n; i++)
						found |= out[i] == must;
					ok &= found;
				}
				bad += !ok;
			}
	CHECK(bad == 0, "pick_rows: within room, ascending, unique, the must row present");
	CHECK(tui_pick_rows(5, 0, -1, out) == 0, "no room: nothing");
}

static tui_frames frames;

static void test_frames(void)
{
	CHECK(tui_frames_pct(&frames, 0.5) == 0, "no frames: 0");
	for (int i = 1; i <= 100; i++)
		tui_frames_add(&frames, i);
	CHECK(tui_frames_pct(&frames, 0.5) == 50 && tui_frames_pct(&frames, 0.9) == 90 &&
			tui_frames_pct(&frames, 1.0) == 100 && tui_frames_pct(&frames, 0.0) == 1,
			"nearest-rank percentiles of 1..100");
	CHECK(frames.last == 100 && frames.n == 100, "last frame and count");
	for (int i = 0; i < TUI_FRAMES; i++)
		tui_frames_add(&frames, 1000);
	CHECK(tui_frames_pct(&frames, 0.5) == 1000, "only the last TUI_FRAMES frames count");
	double t0 = tui_now_us(), t1 = tui_now_us();
	CHECK(t1 >= t0 && t0 > 0, "monotonic clock");
}

/* The list navigation of the picker and the candidates table. */
static void test_list(void)
{
	int sel = 0, top = 0;
	CHECK(tui_list_key('j', &sel, 5, 3) && sel == 1, "j moves down");
	CHECK(tui_list_key(KEY_UP, &sel, 5, 3) && sel == 0, "Up moves up");
	tui_list_key('k', &sel, 5, 3);
	CHECK(sel == 0, "k stops at the first row");
	tui_list_key('G', &sel, 5, 3);
	CHECK(sel == 4, "G goes to the last row");
	tui_list_key('j', &sel, 5, 3);
	CHECK(sel == 4, "j stops at the last row");
	tui_list_key(KEY_PPAGE, &sel, 5, 3);
	CHECK(sel == 1, "Page Up moves a page");
	tui_list_key(KEY_NPAGE, &sel, 5, 30);
	CHECK(sel == 4, "Page Down stops at the last row");
	tui_list_key('g', &sel, 5, 3);
	CHECK(sel == 0, "g goes to the first row");
	CHECK(!tui_list_key('x', &sel, 5, 3) && sel == 0, "other keys are not navigation");
	tui_list_key('j', &sel, 0, 3);
	CHECK(sel == 0, "an empty list keeps row 0");
	tui_list_scroll(10, &top, 4);
	CHECK(top == 7, "scrolling down shows the selected row last");
	tui_list_scroll(2, &top, 4);
	CHECK(top == 2, "scrolling up shows the selected row first");
	tui_list_scroll(3, &top, 4);
	CHECK(top == 2, "a visible row does not scroll");
}

int main(void)
{
	test_minimum();
	test_larger();
	test_pick_rows();
	test_frames();
	test_list();
	return check_done();
}
