/* bench_tui.c - the explorer's key-to-screen time for `make bench`: 1,000 key presses
 * replayed headlessly through the real key handler and renderer (curses writing to
 * /dev/null, so terminal I/O itself is not measured), on the default plan at 80x24 and on
 * a large terminal. Every third key or so moves between knobs; the others step a knob up
 * or down, which re-evaluates the plan and redraws every pane. */
#include "io/paths.h"
#include "tui/frames.h"
#include "tui/tui.h"

#include <curses.h>
#include <locale.h>
#include <stdio.h>

int bench_tui(const paths_t *paths);

#define NKEYS 1000

static int replay(const paths_t *paths, const char *name, int rows, int cols)
{
	int keys[NKEYS];
	/* for each knob in turn: next knob, one step up, one step down (back where it was) */
	static const int cycle[3] = {'j', 'l', 'h'};
	for (int i = 0; i < NKEYS; i++)
		keys[i] = cycle[i % 3];
	tui_frames f;
	double us[NKEYS];
	char err[512];
	int n = tui_replay(paths, NULL, keys, NKEYS, rows, cols, 0, us, NULL, 0, err, sizeof err);
	if (n < NKEYS) {
		fprintf(stderr, "bench: tui replay: %s\n", n < 0 ? err : "stopped early");
		return 1;
	}
	f.n = 0;
	for (int i = 0; i < n; i++)
		tui_frames_add(&f, us[i]);
	printf("bench: tui_key_to_screen_median%s %.0f us\n", name, tui_frames_pct(&f, 0.5));
	printf("bench: tui_key_to_screen_p90%s %.0f us\n", name, tui_frames_pct(&f, 0.9));
	return 0;
}

int bench_tui(const paths_t *paths)
{
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	int rc = replay(paths, "", 24, 80);
	rc |= replay(paths, "_200x60", 60, 200);
	return rc;
}
