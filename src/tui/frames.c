/* frames.c - key-to-screen timing statistics. */
#include "tui/frames.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double tui_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

void tui_frames_add(tui_frames *f, double us)
{
	f->us[f->n % TUI_FRAMES] = us;
	f->n++;
	f->last = us;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double tui_frames_pct(const tui_frames *f, double q)
{
	int n = f->n < TUI_FRAMES ? (int)f->n : TUI_FRAMES;
	if (n == 0)
		return 0;
	double v[TUI_FRAMES];
	memcpy(v, f->us, (size_t)n * sizeof v[0]);
	qsort(v, (size_t)n, sizeof v[0], cmp);
	/* nearest rank: the smallest value with at least q of the frames at or below it */
	int i = (int)(q * n + 0.999999) - 1;
	if (i < 0)
		i = 0;
	if (i >= n)
		i = n - 1;
	return v[i];
}
