/* layout.h - where each pane goes for a given terminal size. Pure arithmetic, so the
 * rules (80x24 minimum, extra rows to memory first, then the timeline, then the why pane
 * once every stage has its lane) are unit-tested. */
#ifndef STRATA_TUI_LAYOUT_H
#define STRATA_TUI_LAYOUT_H

#define TUI_MIN_COLS 80
#define TUI_MIN_ROWS 24
#define TUI_KNOB_W 27          /* knob pane width, its separator column included */
#define TUI_KNOB_ROWS 17       /* title + 16 knobs: at 80x24 the list of 17 scrolls by one */
#define TUI_KNOB_ALL 18        /* title + every knob (KNOB_COUNT), once the terminal has the row */
#define TUI_TIMELINE_MIN 5     /* title + 4 lanes */
#define TUI_LANE_MAX 3         /* rows of one timeline lane when the terminal has them */
#define TUI_WHY_MIN 8          /* the why pane: title, a few losses, the placement */
#define TUI_WHY_MAX 15         /* title, six losses of two lines each, the placement */

typedef struct {
	int y, x, h, w;
} tui_rect;

typedef struct {
	int too_small;
	tui_rect header, knobs, memory, time, timeline, debug, message;
	tui_rect why;              /* under the timeline when the rows allow (h 0: none) */
} tui_layout;

/* Lay out a rows x cols screen for a pipeline of `stages` stages whose time breakdown
 * wants `time_rows` rows; `debug` reserves the debug line above the message line. */
void tui_layout_compute(int rows, int cols, int stages, int time_rows, int debug, tui_layout *l);

/* Choose which of n rows to show in avail slots: all when they fit, else the first, the
 * last, `must` (e.g. the peak stage; -1 for none) and evenly spread others, ascending.
 * Returns how many indices were written to out. */
int tui_pick_rows(int n, int avail, int must, int *out);

/* A selectable list of n rows (picker, candidates): move *sel for a navigation key (the
 * arrows, j/k, g/G, Home/End, Page Up/Down by `page`); 1 when key was one of them. */
int tui_list_key(int key, int *sel, int n, int page);
/* Scroll *top so that row sel is among the avail rows shown. */
void tui_list_scroll(int sel, int *top, int avail);

#endif
