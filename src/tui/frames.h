/* frames.h - the frame timer: how long each key took from being read to being on the
 * screen, kept for the last TUI_FRAMES keys. Pure, no curses. */
#ifndef STRATA_TUI_FRAMES_H
#define STRATA_TUI_FRAMES_H

#define TUI_FRAMES 1024

typedef struct {
	double us[TUI_FRAMES];  /* ring buffer of key-to-screen times, microseconds */
	long n;                 /* frames recorded in all */
	double last;
} tui_frames;

/* Monotonic clock in microseconds. */
double tui_now_us(void);
/* Record one frame's duration. */
void tui_frames_add(tui_frames *f, double us);
/* Percentile q (0..1) of the recorded frames (up to the last TUI_FRAMES); 0 when empty. */
double tui_frames_pct(const tui_frames *f, double q);

#endif
