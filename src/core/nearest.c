/* nearest.c - edit distance and the nearest candidate. */
#include "core/nearest.h"

#include <ctype.h>
#include <string.h>

#define NEAREST_MAX 63

static int min3(int a, int b, int c)
{
	int m = a < b ? a : b;
	return m < c ? m : c;
}

int nearest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > NEAREST_MAX)
		la = NEAREST_MAX;
	if (lb > NEAREST_MAX)
		lb = NEAREST_MAX;
	int d[NEAREST_MAX + 1][NEAREST_MAX + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			int cost = ca != cb;
			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) == cb &&
					d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1; /* two neighbours swapped */
		}
	return d[la][lb];
}

const char *nearest_word(const char *word, const char *const *cands, size_t n)
{
	size_t wl = strlen(word);
	int limit = (int)(wl / 3 > 2 ? wl / 3 : 2), best = limit + 1;
	const char *pick = NULL;
	for (size_t i = 0; i < n; i++) {
		int d = nearest_distance(word, cands[i]);
		/* a prefix of a long word ("sched" for "schedule") is as good as a near miss */
		if (d > limit && wl >= 3 && !strncmp(word, cands[i], wl))
			d = limit;
		if (d < best) {
			best = d;
			pick = cands[i];
		}
	}
	return pick;
}
