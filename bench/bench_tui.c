/* bench_tui.c - the explorer's key-to-screen time for `make bench`: 1,000 key presses
 * replayed headlessly through the real key handler and renderer (curses writing to
 * /dev/null, so terminal I/O itself is not measured), on the default plan at 80x24 and on
 * a large terminal. Every third key or so moves between knobs; the others step a knob up
 * or down, which re-evaluates the plan and redraws every pane. Then the ILP key: from `i`
 * to its result on the screen. */
#include "bench.h"
#include "io/paths.h"
#include "tui/frames.h"
#include "tui/tui.h"

#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

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

/* `i` then `n`, 50 times: from the key to the ILP's plan on the screen (worker thread
 * started, solve, evaluation of the refined plan, frame), the replay waiting for the job. */
static int replay_ilp(const paths_t *paths)
{
	enum { N = 100 };
	int keys[N];
	double us[N], ilp[N / 2];
	for (int i = 0; i < N; i++)
		keys[i] = i % 2 ? 'n' : 'i';
	char err[512];
	int n = tui_replay(paths, NULL, keys, N, 24, 80, 0, us, NULL, 0, err, sizeof err);
	if (n < N) {
		fprintf(stderr, "bench: tui ilp replay: %s\n", n < 0 ? err : "stopped early");
		return 1;
	}
	for (int i = 0; i < N / 2; i++)
		ilp[i] = us[2 * i];
	qsort(ilp, N / 2, sizeof ilp[0], bench_dcmp);
	printf("bench: tui_ilp_key_to_result_median %.0f us\n", ilp[N / 4]);
	return 0;
}

int bench_tui(const paths_t *paths)
{
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	int rc = replay(paths, "", 24, 80);
	rc |= replay(paths, "_200x60", 60, 200);
	rc |= replay_ilp(paths);
	return rc;
}
